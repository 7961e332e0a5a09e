/* test_io_events.c - the event log's storages (io/events.h): JSONL, gzip
 * (one and several members) and SQLite give the same lines; the database's
 * lines are those of gen_events.py's db2jsonl (an implementation of the same
 * rule in Python, from a database gen_events.py writes as upstream's
 * SQLWriter does); every bad log is a clear error, never a crash. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "test.h"
#include "test_proc.h"
#include "../src/io/events.h"

static char dir[64];

static void path_of(char *out, const char *name) { snprintf(out, 256, "%s/%s", dir, name); }

static void write_file(const char *path, const void *data, iz len)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f);
    if (len)
        REQUIRE(fwrite(data, 1, (size_t)len, f) == (size_t)len);
    REQUIRE(fclose(f) == 0);
}

/* gzip of `data` as one member (zlib's gzip wrapper). */
static iz gzip_of(const char *data, iz len, u8 *out, iz cap)
{
    z_stream z = {0};
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    iz n = deflate(&z, Z_FINISH) == Z_STREAM_END ? (iz)z.total_out : 0;
    deflateEnd(&z);
    return n;
}

/* All lines of a log, each with a "\n"; *code: the error's code or 0
 * (NULL and the opening error when it does not open). */
static char *read_all(const char *path, int *code, char *msg, iz *nlines)
{
    err e = {0};
    io_events *s = io_events_open(path, 0, &e);
    if (!s) {
        *code = e.code ? e.code : -1;
        snprintf(msg, 600, "%s", e.msg);
        return NULL;
    }
    buf out = {0};
    str line;
    int r;
    *nlines = 0;
    while ((r = io_events_next(s, &line)) != LINES_END) {
        EXPECT_EQ(r, LINES_OK);
        buf_str(&out, line);
        buf_byte(&out, '\n');
        ++*nlines;
        EXPECT_EQ(io_events_where(s), *nlines);
    }
    const err *le = io_events_error(s);
    *code = le ? le->code : 0;
    snprintf(msg, 600, "%s", le ? le->msg : "");
    EXPECT(io_events_bytes(s) <= io_events_size(s) || io_events_kind_of(s) == IO_EVENTS_SQLITE);
    io_events_close(s);
    buf_byte(&out, 0);
    return (char *)out.data;
}

static const char jsonl[] =
    "{\"event_type\":\"session.started\",\"timestamp_ns\":1,\"sample_uuid\":\"\",\"conversation_id\":\"\",\"turn\":null,\"data\":null}\n"
    "{\"event_type\":\"sample.issued\",\"timestamp_ns\":2,\"sample_uuid\":\"a\",\"conversation_id\":\"\",\"turn\":null,\"data\":[\"PromptData\",\"hi\"]}\n"
    "{\"event_type\":\"session.ended\",\"timestamp_ns\":3,\"sample_uuid\":\"\",\"conversation_id\":\"\",\"turn\":null,\"data\":null}";

static void test_jsonl_and_gzip(void)
{
    char p[256], q[256], m[256], t[256], c[256], msg[600];
    int code;
    iz n;
    path_of(p, "a.jsonl");
    write_file(p, jsonl, (iz)strlen(jsonl));
    char *plain = read_all(p, &code, msg, &n);
    REQUIRE(plain);
    EXPECT_EQ(code, 0);
    EXPECT_EQ(n, 3);
    EXPECT(!strncmp(plain, jsonl, strlen(jsonl)));

    u8 gz[4096];
    iz gl = gzip_of(jsonl, (iz)strlen(jsonl), gz, sizeof gz);
    REQUIRE(gl > 40);
    path_of(q, "a.jsonl.gz");
    write_file(q, gz, gl);
    char *z = read_all(q, &code, msg, &n);
    REQUIRE(z);
    EXPECT_EQ(code, 0);
    EXPECT_EQ(n, 3);
    EXPECT(!strcmp(z, plain));
    free(z);

    /* two members, as `cat a.gz b.gz` makes: the lines of both; the first
     * member's last line has its newline */
    u8 two[8192];
    iz l1 = gzip_of(jsonl, 130, two, sizeof two);
    iz l2 = gzip_of(jsonl + 130, (iz)strlen(jsonl) - 130, two + l1, (iz)sizeof two - l1);
    path_of(m, "m.jsonl.gz");
    write_file(m, two, l1 + l2);
    z = read_all(m, &code, msg, &n);
    REQUIRE(z);
    EXPECT_EQ(code, 0);
    EXPECT(!strcmp(z, plain));
    free(z);

    /* truncated: the lines before the cut, then the error */
    path_of(t, "t.jsonl.gz");
    write_file(t, gz, gl - 12);
    z = read_all(t, &code, msg, &n);
    EXPECT_EQ(code, ERR_SYNTAX);
    EXPECT(strstr(msg, "truncated") != NULL);
    free(z);

    /* corrupt in the middle of the deflate data */
    u8 bad[4096];
    memcpy(bad, gz, (size_t)gl);
    for (iz k = 12; k < 40 && k < gl - 8; k++)
        bad[k] ^= 0x5a;
    path_of(c, "c.jsonl.gz");
    write_file(c, bad, gl);
    z = read_all(c, &code, msg, &n);
    EXPECT(code == ERR_SYNTAX);
    EXPECT(strstr(msg, "corrupt") != NULL || strstr(msg, "truncated") != NULL);
    free(z);
    free(plain);
}

static void test_bad_logs(void)
{
    char p[256], msg[600];
    int code;
    iz n;
    path_of(p, "missing.jsonl");
    EXPECT(read_all(p, &code, msg, &n) == NULL);
    EXPECT_EQ(code, ERR_IO);
    EXPECT(strstr(msg, "missing.jsonl") != NULL);

    EXPECT(read_all(dir, &code, msg, &n) == NULL);
    EXPECT(strstr(msg, "folder") != NULL);

    path_of(p, "empty.jsonl");
    write_file(p, "", 0);
    EXPECT(read_all(p, &code, msg, &n) == NULL);
    EXPECT(strstr(msg, "empty") != NULL);

    /* the magic of a database, then garbage */
    char fake[4096];
    memset(fake, 'x', sizeof fake);
    memcpy(fake, "SQLite format 3", 16);
    path_of(p, "fake.db");
    write_file(p, fake, sizeof fake);
    EXPECT(read_all(p, &code, msg, &n) == NULL);
    EXPECT(code != 0);
    EXPECT(strstr(msg, "fake.db") != NULL);

    /* a database without the events table */
    sqlite3 *db;
    path_of(p, "other.db");
    REQUIRE(sqlite3_open(p, &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE other (x INTEGER)", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    EXPECT(read_all(p, &code, msg, &n) == NULL);
    EXPECT(strstr(msg, "without upstream's events table") != NULL);
}

/* Rows of every odd type: each becomes a line (the decoder refuses the
 * ones whose value matters), none crashes the reader. */
static void test_odd_rows(void)
{
    char p[256], msg[600];
    int code;
    iz n;
    sqlite3 *db;
    path_of(p, "odd.db");
    REQUIRE(sqlite3_open(p, &db) == SQLITE_OK);
    /* no NOT NULL constraints: a database written by something else */
    REQUIRE(sqlite3_exec(db,
                         "CREATE TABLE events (id INTEGER PRIMARY KEY, sample_uuid VARCHAR, event_type VARCHAR,"
                         " timestamp_ns BIGINT, conversation_id VARCHAR, turn INTEGER, data BLOB);"
                         "INSERT INTO events VALUES (1, 'u\"\\\n', 'sample.issued', 5, '', 3, X'6e756c6c');"
                         "INSERT INTO events VALUES (2, NULL, NULL, NULL, NULL, NULL, NULL);"
                         "INSERT INTO events VALUES (3, 'x', 'sample.issued', 'soon', 'c', 1.5, 'null');"
                         "INSERT INTO events VALUES (4, X'ff', 'sample.issued', 2.5, 7, 'a', X'5b22');",
                         NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(db);
    char *all = read_all(p, &code, msg, &n);
    REQUIRE(all);
    EXPECT_EQ(code, 0);
    EXPECT_EQ(n, 4);
    const char *want =
        "{\"event_type\":\"sample.issued\",\"timestamp_ns\":5,\"sample_uuid\":\"u\\\"\\\\\\n\",\"conversation_id\":\"\","
        "\"turn\":3,\"data\":null}\n"
        "{\"event_type\":null,\"timestamp_ns\":null,\"sample_uuid\":null,\"conversation_id\":null,\"turn\":null,"
        "\"data\":}\n"
        "{\"event_type\":\"sample.issued\",\"timestamp_ns\":\"soon\",\"sample_uuid\":\"x\",\"conversation_id\":\"c\","
        "\"turn\":\"1.5\",\"data\":null}\n"
        "{\"event_type\":\"sample.issued\",\"timestamp_ns\":\"2.5\",\"sample_uuid\":\"\xff\",\"conversation_id\":\"7\","
        "\"turn\":\"a\",\"data\":[\"}\n";
    EXPECT_STR(str_cstr(all), str_cstr(want));
    free(all);
}

/* A database gen_events.py writes as upstream's SQLWriter does, against
 * its db2jsonl. */
static void test_db_against_db2jsonl(void)
{
    char db[256], lines_path[256], cmd[1024], msg[600];
    int code;
    iz n;
    path_of(db, "mixed.db");
    path_of(lines_path, "mixed.db.jsonl");
    snprintf(cmd, sizeof cmd,
             "python3 tests/data/agg/gen_events.py mixed --samples 60 --seed 3 --out '' --db %s 2>/dev/null && "
             "python3 tests/data/agg/gen_events.py db2jsonl %s --out %s 2>/dev/null",
             db, db, lines_path);
    if (system(cmd) != 0) {
        printf("#   python3 tests/data/agg/gen_events.py failed: is ../shared/data there?\n");
        EXPECT(false);
        return;
    }
    iz want_len;
    char *want = test_slurp(lines_path, &want_len);
    REQUIRE(want);
    char *got = read_all(db, &code, msg, &n);
    REQUIRE(got);
    EXPECT_EQ(code, 0);
    EXPECT(n > 100);
    EXPECT_STR(str_cstr(got), str_from(want, want_len));
    free(want);
    free(got);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tally-events-XXXXXX");
    if (!mkdtemp(dir)) {
        printf("not ok 1 - mkdtemp %s\n", dir);
        return 1;
    }
    RUN(test_jsonl_and_gzip);
    RUN(test_bad_logs);
    RUN(test_odd_rows);
    RUN(test_db_against_db2jsonl);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("#   could not remove %s\n", dir);
    return test_done();
}
