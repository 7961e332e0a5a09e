/* test_io_events.c - the event sources (src/io/events*.c): one generated run
 * (tests/data/agg/gen_events.py) read as JSONL, gzip-compressed JSONL and
 * events.db gives the file's lines, the same lines, and the lines the
 * reference replay reads for the .db (gen_events.py db2jsonl, checked
 * against tests/data/agg/SHA256SUMS); then every bad source: missing,
 * folder, empty, truncated and corrupt gzip, bytes after a gzip stream,
 * the SQLite magic on something else, no events table, missing columns,
 * rows with NULLs and wrong storage classes, a corrupt page; and memory
 * that does not grow with the log. */
#include <fcntl.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include "test.h"
#include "sha256.h"
#include "../src/agg/event.h"
#include "../src/base/arena.h"
#include "../src/io/events.h"

#define DIR "build/test_io_events"

/* ---- helpers ------------------------------------------------------------------ */

static void sh(const char *fmt, ...) PRINTF_LIKE(1, 2);
static void sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        printf("#   command failed: %s\n", cmd);
}

static void write_file(const char *path, const void *p, iz n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        if (n)
            fwrite(p, 1, (size_t)n, f);
        fclose(f);
    }
}

/* gzip of data[0..n) as `members` members, then `pad` zero bytes. */
static void write_gzip(const char *path, const u8 *data, iz n, int members, int pad)
{
    unlink(path);
    for (int m = 0; m < members; m++) {
        gzFile g = gzopen(path, "ab");
        iz a = n * m / members, b = n * (m + 1) / members;
        if (b > a)
            gzwrite(g, data + a, (unsigned)(b - a));
        gzclose(g);
    }
    FILE *f = fopen(path, "ab");
    for (int k = 0; k < pad; k++)
        fputc(0, f);
    fclose(f);
}

typedef struct got {
    buf all;          /* every line with a newline after it */
    i64 n, too_long;
    char err[600];
    bool opened;
    i64 where_last, bytes, size;
} got;

/* Every line of the source at path. */
static got read_all(const char *path, iz max_line)
{
    got g = {0};
    err e = {0};
    io_events *s = io_events_open(path, max_line, &e);
    if (!s) {
        snprintf(g.err, sizeof g.err, "%s", e.msg);
        return g;
    }
    g.opened = true;
    str line;
    int r;
    while ((r = io_events_next(s, &line)) != LINES_END) {
        g.n++;
        if (r == LINES_TOO_LONG) {
            g.too_long++;
            buf_cstr(&g.all, "<too long>\n");
        } else {
            buf_str(&g.all, line);
            buf_byte(&g.all, '\n');
        }
        if (io_events_where(s) != g.n)
            printf("#   where %lld after %lld lines\n", (long long)io_events_where(s), (long long)g.n);
    }
    const err *le = io_events_error(s);
    if (le)
        snprintf(g.err, sizeof g.err, "%s", le->msg);
    g.where_last = io_events_where(s);
    g.bytes = io_events_bytes(s);
    g.size = io_events_size(s);
    io_events_close(s);
    return g;
}

static bool contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

static void sum_of(str s, char out[65]) { sha256_hex(s, out); }

/* The checksum SHA256SUMS gives `name`, or "". */
static void want_sum(const char *name, char out[65])
{
    out[0] = 0;
    iz len;
    char *t = test_slurp("tests/data/agg/SHA256SUMS", &len);
    for (char *p = t; p && *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        if (strlen(p) > 66 && !strcmp(p + 66, name))
            snprintf(out, 65, "%.64s", p);
        p = nl ? nl + 1 : NULL;
    }
    free(t);
}

/* The generated run, once per test binary: SCENARIO-nN-s1.{jsonl,db,db.jsonl} in DIR. */
static bool make_run(const char *scenario, int n, char *base, size_t cap)
{
    snprintf(base, cap, DIR "/%s-n%d-s1", scenario, n);
    char jsonl[600];
    snprintf(jsonl, sizeof jsonl, "%s.jsonl", base);
    struct stat sb;
    if (stat(jsonl, &sb) != 0)
        sh("mkdir -p " DIR " && python3 tests/data/agg/gen_events.py %s --samples %d --seed 1 --out %s --db %s.db "
           ">/dev/null 2>&1 && python3 tests/data/agg/gen_events.py db2jsonl %s.db --out %s.db.jsonl 2>/dev/null",
           scenario, n, jsonl, base, base, base);
    return stat(jsonl, &sb) == 0;
}

/* ---- one run, three sources ------------------------------------------------------ */

static void check_run(const char *scenario, int n)
{
    char base[512], path[600], name[300];
    REQUIRE(make_run(scenario, n, base, sizeof base));
    snprintf(path, sizeof path, "%s.jsonl", base);
    iz len;
    char *file = test_slurp(path, &len);
    got j = read_all(path, 0);
    EXPECT(j.opened && !j.err[0]);
    /* the file's lines, a newline after each (the last may have lacked it) */
    bool last_nl = len && file[len - 1] == '\n';
    EXPECT_EQ(j.all.len, len + !last_nl);
    EXPECT(j.all.len >= len && !memcmp(j.all.data, file, (size_t)len));
    EXPECT_EQ(j.bytes, len);
    EXPECT_EQ(j.size, len);
    char sum[65], want[65];
    snprintf(name, sizeof name, "%s-n%d-s1.jsonl", scenario, n);
    want_sum(name, want);
    sum_of(str_from(file, len), sum);
    EXPECT_STR(str_cstr(sum), str_cstr(want));   /* the log the goldens were made from */
    /* gzip: the same lines, in two members with padding too */
    char gz[600];
    snprintf(gz, sizeof gz, "%s.jsonl.gz", base);
    for (int members = 1; members <= 2; members++) {
        write_gzip(gz, (const u8 *)file, len, members, members == 2 ? 7 : 0);
        got g = read_all(gz, 0);
        EXPECT(g.opened && !g.err[0]);
        EXPECT_EQ(g.n, j.n);
        EXPECT(g.all.len == j.all.len && !memcmp(g.all.data, j.all.data, (size_t)j.all.len));
        struct stat sb;
        stat(gz, &sb);
        EXPECT_EQ(g.size, (i64)sb.st_size);
        EXPECT_EQ(g.bytes, (i64)sb.st_size);
        buf_free(&g.all);
    }
    /* the .db: the rows' lines are what the reference replay reads for it */
    snprintf(path, sizeof path, "%s.db", base);
    got d = read_all(path, 0);
    EXPECT(d.opened && !d.err[0]);
    EXPECT_EQ(d.bytes, d.n);
    EXPECT_EQ(d.size, d.n);
    snprintf(path, sizeof path, "%s.db.jsonl", base);
    iz dlen;
    char *dj = test_slurp(path, &dlen);
    EXPECT(d.all.len == dlen && !memcmp(d.all.data, dj, (size_t)dlen));
    snprintf(name, sizeof name, "%s-n%d-s1.db.jsonl", scenario, n);
    want_sum(name, want);
    sum_of(buf_view(&d.all), sum);
    EXPECT_STR(str_cstr(sum), str_cstr(want));
    /* every row decodes as its JSONL line does, but for what the table does not keep */
    arena a;
    arena_init(&a, 0);
    iz rows = 0, bad = 0;
    for (iz at = 0; at < d.all.len;) {
        u8 *nl = memchr(d.all.data + at, '\n', (size_t)(d.all.len - at));
        str line = str_from(d.all.data + at, nl - (d.all.data + at));
        at = nl - d.all.data + 1;
        agg_event ev;
        agg_decode_error de;
        arena_mark m = arena_save(&a);
        bad += agg_event_decode(&a, line, 0, &ev, &de) != ERR_OK;
        EXPECT(!ev.has_finish_reason && !ev.has_worker_id);
        arena_restore(&a, m);
        rows++;
    }
    EXPECT_EQ(rows, d.n);
    EXPECT_EQ(bad, 0);
    printf("# %s: %lld lines (%td bytes), gzip the same, %lld rows\n", scenario, (long long)j.n, len, (long long)d.n);
    arena_fini(&a);
    buf_free(&j.all);
    buf_free(&d.all);
    free(file);
    free(dj);
}

static void test_mixed(void) { check_run("mixed", 240); }
static void test_interrupted(void) { check_run("interrupted", 160); }
static void test_agentic(void) { check_run("agentic", 400); }

/* ---- JSONL details ------------------------------------------------------------------ */

static void test_jsonl_details(void)
{
    sh("mkdir -p " DIR);
    /* a byte-order mark stays (the reference refuses that line), CRs stay,
     * an over-long line is skipped and counted, the last line has no newline */
    static const char text[] = "\xEF\xBB\xBF{\"event_type\":\"session.started\"}\r\n\n"
                               "{\"event_type\":\"session.ended\",\"x\":\"0123456789012345678901234567890123456789\"}\n"
                               "{\"event_type\":\"error.generic\"}";
    write_file(DIR "/details.jsonl", text, lengthof(text));
    got g = read_all(DIR "/details.jsonl", 40);
    EXPECT(g.opened && !g.err[0]);
    EXPECT_EQ(g.n, 4);
    EXPECT_EQ(g.too_long, 1);
    EXPECT_STR(buf_view(&g.all), S("\xEF\xBB\xBF{\"event_type\":\"session.started\"}\r\n\n<too long>\n"
                                   "{\"event_type\":\"error.generic\"}\n"));
    buf_free(&g.all);
    /* a FIFO: JSONL and gzip both told by their first bytes */
    for (int z = 0; z < 2; z++) {
        unlink(DIR "/fifo");
        REQUIRE(mkfifo(DIR "/fifo", 0600) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            if (z) {
                gzFile gf = gzopen(DIR "/fifo", "wb");
                gzwrite(gf, text, lengthof(text));
                gzclose(gf);
            } else {
                int fd = open(DIR "/fifo", O_WRONLY);
                if (write(fd, text, lengthof(text)) < 0)
                    _exit(1);
                close(fd);
            }
            _exit(0);
        }
        got f = read_all(DIR "/fifo", 40);
        waitpid(pid, NULL, 0);
        EXPECT(f.opened && !f.err[0]);
        EXPECT_EQ(f.n, 4);
        EXPECT_EQ(f.size, -1);
        buf_free(&f.all);
    }
    unlink(DIR "/fifo");
}

/* ---- bad sources -------------------------------------------------------------------- */

static void test_bad_files(void)
{
    sh("mkdir -p " DIR "/a_folder");
    got g = read_all(DIR "/no_such_file.jsonl", 0);
    EXPECT(!g.opened && contains(g.err, "cannot open") && contains(g.err, "No such file"));
    g = read_all(DIR "/a_folder", 0);
    EXPECT(!g.opened && contains(g.err, "is a folder"));
    write_file(DIR "/empty.jsonl", "", 0);
    g = read_all(DIR "/empty.jsonl", 0);
    EXPECT(!g.opened && contains(g.err, "is empty"));
    /* SQLite's magic on something that is not a database */
    static const char fake[] = "SQLite format 3\0 and then nothing that SQLite would call a database at all, "
                               "padded out to more than one hundred bytes so that it has a header's length.....";
    write_file(DIR "/fake.db", fake, lengthof(fake));
    g = read_all(DIR "/fake.db", 0);
    EXPECT(!g.opened && contains(g.err, "not a database"));
    if (g.opened || !contains(g.err, "not a database"))
        printf("#   fake.db: %s\n", g.err);
}

static void test_bad_gzip(void)
{
    sh("mkdir -p " DIR);
    static const char text[] = "{\"event_type\":\"session.started\",\"timestamp_ns\":1}\n"
                               "{\"event_type\":\"session.ended\",\"timestamp_ns\":2}\n";
    buf big = {0};
    for (int k = 0; k < 3000; k++)
        buf_printf(&big, "{\"event_type\":\"sample.issued\",\"timestamp_ns\":%d,\"sample_uuid\":\"u%d\"}\n", k, k * 7919);
    write_gzip(DIR "/ok.gz", big.data, big.len, 1, 0);
    iz zlen;
    char *z = test_slurp(DIR "/ok.gz", &zlen);
    /* cut anywhere: the lines before the cut, then an error that says so */
    iz cuts[] = {2, 5, 10, 20, zlen / 3, zlen / 2, zlen - 9, zlen - 4, zlen - 1};
    for (iz k = 0; k < countof(cuts); k++) {
        write_file(DIR "/cut.gz", z, cuts[k]);
        got g = read_all(DIR "/cut.gz", 0);
        EXPECT(g.opened);
        EXPECT(contains(g.err, "truncated gzip") || contains(g.err, "corrupt gzip"));
        EXPECT(g.n < 3000 || cuts[k] >= zlen - 16);   /* the last block's end and the trailer's checks */
        EXPECT(g.all.len <= big.len && (g.all.len <= 200 || !memcmp(g.all.data, big.data, (size_t)(g.all.len - 200))));
        buf_free(&g.all);
    }
    /* a flipped byte in the data: zlib's checks (a bad block or the CRC) */
    int seen_corrupt = 0;
    for (iz at = 20; at < zlen - 8; at += zlen / 7) {
        char *c = malloc((size_t)zlen);
        memcpy(c, z, (size_t)zlen);
        c[at] ^= 0x55;
        write_file(DIR "/flip.gz", c, zlen);
        got g = read_all(DIR "/flip.gz", 0);
        EXPECT(g.opened);
        seen_corrupt += contains(g.err, "corrupt gzip") || contains(g.err, "truncated gzip");
        buf_free(&g.all);
        free(c);
    }
    EXPECT_EQ(seen_corrupt, 7);
    /* bytes after the stream that are not another member */
    buf t = {0};
    buf_put(&t, z, zlen);
    buf_cstr(&t, "trailing garbage");
    write_file(DIR "/trail.gz", t.data, t.len);
    got g = read_all(DIR "/trail.gz", 0);
    EXPECT(g.opened && g.n == 3000 && contains(g.err, "after the end of the gzip stream"));
    buf_free(&g.all);
    /* only the magic */
    write_file(DIR "/magic.gz", "\x1f\x8b", 2);
    g = read_all(DIR "/magic.gz", 0);
    EXPECT(g.opened && g.n == 0 && contains(g.err, "truncated gzip"));
    /* an empty member is a log without lines, cleanly */
    write_gzip(DIR "/nothing.gz", (const u8 *)text, 0, 1, 0);
    g = read_all(DIR "/nothing.gz", 0);
    EXPECT(g.opened && g.n == 0 && !g.err[0]);
    buf_free(&t);
    buf_free(&big);
    free(z);
}

/* ---- databases ------------------------------------------------------------------------ */

static sqlite3 *new_db(const char *path, const char *ddl)
{
    unlink(path);
    sqlite3 *db = NULL;
    if (sqlite3_open(path, &db) != SQLITE_OK || sqlite3_exec(db, ddl, NULL, NULL, NULL) != SQLITE_OK)
        printf("#   %s: %s\n", path, db ? sqlite3_errmsg(db) : "cannot open");
    return db;
}

static void test_bad_databases(void)
{
    sh("mkdir -p " DIR);
    sqlite3 *db = new_db(DIR "/other.db", "CREATE TABLE other (x INTEGER)");
    sqlite3_close(db);
    got g = read_all(DIR "/other.db", 0);
    EXPECT(!g.opened && contains(g.err, "without the table events"));
    db = new_db(DIR "/cols.db", "CREATE TABLE events (id INTEGER PRIMARY KEY, sample_uuid VARCHAR, data BLOB)");
    sqlite3_close(db);
    g = read_all(DIR "/cols.db", 0);
    EXPECT(!g.opened && contains(g.err, "lacks upstream's columns"));
    /* an empty table: a log without lines */
    db = new_db(DIR "/none.db", "CREATE TABLE events (id INTEGER NOT NULL, sample_uuid VARCHAR NOT NULL, event_type "
                "VARCHAR NOT NULL, timestamp_ns BIGINT NOT NULL, conversation_id VARCHAR NOT NULL, turn INTEGER, "
                "data BLOB NOT NULL, PRIMARY KEY (id))");
    sqlite3_close(db);
    g = read_all(DIR "/none.db", 0);
    EXPECT(g.opened && g.n == 0 && !g.err[0]);
}

/* Rows upstream's writer could not have written: each is one line the
 * decoder refuses (a counted malformed line), the others decode. */
static void test_bad_rows(void)
{
    sh("mkdir -p " DIR);
    /* no declared types: SQLite keeps every value's own storage class */
    sqlite3 *db = new_db(DIR "/rows.db", "CREATE TABLE events (id INTEGER PRIMARY KEY, sample_uuid, event_type, "
                         "timestamp_ns, conversation_id, turn, data)");
    static const struct { const char *values; int rc; } rows[] = {
        {"'u1', 'sample.issued', 10, '', NULL, CAST('[\"PromptData\",\"hi\"]' AS BLOB)", ERR_OK},
        {"NULL, 'sample.issued', 10, '', NULL, CAST('null' AS BLOB)", ERR_SYNTAX},
        {"'u', 5, 10, '', NULL, CAST('null' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', 1.5, '', NULL, CAST('null' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', '12', '', NULL, CAST('null' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', NULL, '', NULL, CAST('null' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', 10, NULL, NULL, CAST('null' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', 10, '', 'x', CAST('null' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', 10, '', 2.0, CAST('null' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', 10, '', 3, NULL", ERR_SYNTAX},
        {"'u', 'sample.issued', 10, '', 3, 7", ERR_SYNTAX},
        {"X'7531', 'sample.issued', 10, '', 3, CAST('null' AS BLOB)", ERR_SYNTAX},
        /* data as TEXT is taken as its bytes */
        {"'u', 'error.generic', 10, 'c', 3, '[\"ErrorData\",\"E\"]'", ERR_OK},
        /* data that would reach outside its place, or holds a newline */
        {"'u', 'sample.issued', 10, '', 3, CAST('null,\"event_type\":\"session.ended\"' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', 10, '', 3, CAST('[1]]' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', 10, '', 3, CAST('\"a' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', 10, '', 3, CAST(X'5B0A5D' AS BLOB)", ERR_SYNTAX},
        /* one value, but not JSON the decoder takes: its own verdict */
        {"'u', 'sample.issued', 10, '', 3, CAST('[\"ErrorData\",\"E\",]' AS BLOB)", ERR_SYNTAX},
        {"'u', 'sample.issued', 10, '', 3, CAST('{}' AS BLOB)", ERR_INVALID},
        /* text the writer escapes as msgspec does; text that is not UTF-8 */
        {"'q\"\\' || char(10) || char(1), 'session.started', -3, '', NULL, CAST(' null ' AS BLOB)", ERR_OK},
        {"'u', 'session.started', 4, CAST(X'FF41' AS TEXT), NULL, CAST('null' AS BLOB)", ERR_UTF8},
        {"'u', 'no.such', 4, '', NULL, CAST('null' AS BLOB)", ERR_INVALID},
    };
    for (iz k = 0; k < countof(rows); k++) {
        char sql[600];
        snprintf(sql, sizeof sql, "INSERT INTO events (sample_uuid, event_type, timestamp_ns, conversation_id, turn, "
                 "data) VALUES (%s)", rows[k].values);
        if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
            printf("#   %s: %s\n", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    err e = {0};
    io_events *s = io_events_open(DIR "/rows.db", 0, &e);
    REQUIRE(s);
    EXPECT_EQ(io_events_kind_of(s), IO_EVENTS_SQLITE);
    EXPECT_STR(str_cstr(io_events_kind_name(io_events_kind_of(s))), S("SQLite"));
    EXPECT_EQ(io_events_size(s), countof(rows));
    arena a;
    arena_init(&a, 0);
    str line;
    iz k = 0;
    while (io_events_next(s, &line) == LINES_OK) {
        REQUIRE(k < countof(rows));
        EXPECT(!memchr(line.s, '\n', (size_t)line.len));
        agg_event ev;
        agg_decode_error de;
        int rc = agg_event_decode(&a, line, 0, &ev, &de);
        if (rc != rows[k].rc)
            printf("#   row %td: %.*s -> %d (%s: %s), expected %d\n", k + 1, (int)line.len, (const char *)line.s, rc,
                   de.cls, de.msg, rows[k].rc);
        EXPECT_EQ(rc, rows[k].rc);
        if (k == 19 && rc == ERR_OK) {
            EXPECT_STR(ev.sample_uuid, S("q\"\\\n\x01"));
            EXPECT_EQ(ev.timestamp_ns, -3);
        }
        EXPECT_EQ(io_events_where(s), k + 1);
        k++;
    }
    EXPECT_EQ(k, countof(rows));
    EXPECT(!io_events_error(s));
    io_events_close(s);
    arena_fini(&a);
}

/* A corrupt page, a file cut short: an error, never a crash. */
static void test_corrupt_database(void)
{
    char base[512], path[600];
    REQUIRE(make_run("mixed", 240, base, sizeof base));
    snprintf(path, sizeof path, "%s.db", base);
    iz len;
    char *db = test_slurp(path, &len);
    REQUIRE(len > 8 * 4096);
    int flagged = 0;
    for (int page = 2; page <= 6; page++) {
        char *c = malloc((size_t)len);
        memcpy(c, db, (size_t)len);
        memset(c + (iz)(page - 1) * 4096, 0xA5, 4096);
        write_file(DIR "/corrupt.db", c, len);
        got g = read_all(DIR "/corrupt.db", 0);
        flagged += !g.opened || g.err[0];
        if (g.err[0] && !contains(g.err, "malformed") && !contains(g.err, "corrupt"))
            printf("#   page %d: %s\n", page, g.err);
        buf_free(&g.all);
        free(c);
    }
    EXPECT_EQ(flagged, 5);
    for (iz cut = 100; cut < len; cut += len / 5) {
        write_file(DIR "/short.db", db, cut);
        got g = read_all(DIR "/short.db", 0);
        EXPECT(!g.opened || g.err[0] || g.n < 1978);
        buf_free(&g.all);
    }
    free(db);
}

/* ---- memory ------------------------------------------------------------------------- */

/* The resident size now, in KB (/proc/self/statm). */
static long rss_kb(void)
{
    long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* 256 MB of lines through a pipe, plain and gzip: the peak resident size
 * grows by the reader's buffers only. */
static void test_memory_flat(void)
{
    sh("mkdir -p " DIR);
    REQUIRE(rss_kb() > 0);
    for (int z = 0; z < 2; z++) {
        unlink(DIR "/big_fifo");
        REQUIRE(mkfifo(DIR "/big_fifo", 0600) == 0);
        const iz total = (iz)256 << 20;
        pid_t pid = fork();
        if (pid == 0) {
            char line[1024];
            memset(line, 'x', sizeof line);
            memcpy(line, "{\"event_type\":\"sample.recv_first\",\"x\":\"", 40);
            line[sizeof line - 3] = '"';
            line[sizeof line - 2] = '}';
            line[sizeof line - 1] = '\n';
            if (z) {
                gzFile gf = gzopen(DIR "/big_fifo", "wb1");
                for (iz k = 0; k < total / (iz)sizeof line; k++)
                    gzwrite(gf, line, sizeof line);
                gzclose(gf);
            } else {
                int fd = open(DIR "/big_fifo", O_WRONLY);
                for (iz k = 0; k < total / (iz)sizeof line; k++)
                    if (write(fd, line, sizeof line) < 0)
                        _exit(1);
                close(fd);
            }
            _exit(0);
        }
        long before = rss_kb(), peak = before;
        got g = {0};
        err e = {0};
        io_events *s = io_events_open(DIR "/big_fifo", 0, &e);
        REQUIRE(s);
        str line;
        while (io_events_next(s, &line) == LINES_OK)
            if (++g.n % 8192 == 0)
                peak = MAX(peak, rss_kb());
        EXPECT(!io_events_error(s));
        io_events_close(s);
        waitpid(pid, NULL, 0);
        long grew = peak - before;
        printf("# %s: %lld lines, peak RSS +%ld KB\n", z ? "gzip" : "plain", (long long)g.n, grew);
        EXPECT_EQ(g.n, total / 1024);
        EXPECT(grew < 32 * 1024);
    }
    unlink(DIR "/big_fifo");
    /* a database of 64 MB: SQLite's page cache, one row at a time */
    sqlite3 *db = new_db(DIR "/big.db", "CREATE TABLE events (id INTEGER NOT NULL, sample_uuid VARCHAR NOT NULL, "
                         "event_type VARCHAR NOT NULL, timestamp_ns BIGINT NOT NULL, conversation_id VARCHAR NOT NULL, "
                         "turn INTEGER, data BLOB NOT NULL, PRIMARY KEY (id))");
    REQUIRE(db);
    sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
    sqlite3_stmt *ins = NULL;
    sqlite3_prepare_v2(db, "INSERT INTO events (sample_uuid, event_type, timestamp_ns, conversation_id, turn, data) "
                       "VALUES ('u', 'sample.issued', ?, '', NULL, ?)", -1, &ins, NULL);
    char data[1024];
    memset(data, 'y', sizeof data);
    memcpy(data, "[\"PromptData\",\"", 15);
    memcpy(data + sizeof data - 2, "\"]", 2);
    const int nrows = 64 * 1024;
    for (int k = 0; k < nrows; k++) {
        sqlite3_bind_int64(ins, 1, k);
        sqlite3_bind_blob(ins, 2, data, sizeof data, SQLITE_STATIC);
        sqlite3_step(ins);
        sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(db);
    long before = rss_kb(), peak = before;
    err e = {0};
    io_events *s = io_events_open(DIR "/big.db", 0, &e);
    REQUIRE(s);
    EXPECT_EQ(io_events_size(s), nrows);
    str line;
    i64 n = 0;
    while (io_events_next(s, &line) == LINES_OK)
        if (++n % 4096 == 0)
            peak = MAX(peak, rss_kb());
    EXPECT(!io_events_error(s));
    EXPECT_EQ(io_events_bytes(s), nrows);
    io_events_close(s);
    printf("# database: %lld rows, peak RSS +%ld KB\n", (long long)n, peak - before);
    EXPECT_EQ(n, nrows);
    EXPECT(peak - before < 32 * 1024);
    unlink(DIR "/big.db");
}

int main(void)
{
    RUN(test_mixed);
    RUN(test_interrupted);
    RUN(test_agentic);
    RUN(test_jsonl_details);
    RUN(test_bad_files);
    RUN(test_bad_gzip);
    RUN(test_bad_databases);
    RUN(test_bad_rows);
    RUN(test_corrupt_database);
    RUN(test_memory_flat);
    return test_done();
}
