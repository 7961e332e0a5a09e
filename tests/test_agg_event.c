/* test_agg_event.c - the event decoder (src/agg/event.c) against upstream's
 * own: every line of tests/data/agg_event's corpus (rebuilt by `make
 * test-build`, checked against the golden's checksum) decodes to exactly
 * the golden's outcome (the record's fields and the payload's msgspec
 * encoding, or the exception's class and message); then the cases the
 * corpus cannot hold (the recursion limit as the reference replay meets
 * it, the clock, the arena, reads past the line). */
#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>
#include "test.h"
#include "sha256.h"
#include "../src/agg/event.h"
#include "../src/agg/inputs.h"
#include "../src/agg/event_py.h"
#include "../src/base/arena.h"
#include "../src/json/pyfmt.h"

#define CORPUS "build/agg_event/corpus.jsonl"
#define GOLDEN "tests/data/agg_event/golden.jsonl"

/* ---- helpers ---------------------------------------------------------------- */

/* The lines of s, empty ones included (s ends with a newline). */
static iz split_lines(str s, str **out)
{
    iz n = 0;
    for (iz i = 0; i < s.len; i++)
        n += s.s[i] == '\n';
    str *v = malloc((size_t)(n + 1) * sizeof *v);
    iz k = 0, b = 0;
    for (iz i = 0; i < s.len; i++)
        if (s.s[i] == '\n') {
            v[k++] = str_cut(s, b, i);
            b = i + 1;
        }
    *out = v;
    return k;
}

static const json *get(const json *o, const char *k) { return json_get(o, str_cstr(k)); }

/* msgspec.json.encode(record.data) of the decoded payload: every field of
 * its struct (defaults for the missing ones: "" for output and
 * error_message, None else), nothing after them. */
static bool payload_encoding(const agg_event *ev, buf *b)
{
    static const char *const tags[] = {"", "PromptData", "TextModelOutput", "ErrorData"};
    static const int nfields[] = {0, 7, 3, 2};
    const json *v = ev->data;
    buf_cstr(b, "[\"");
    buf_cstr(b, tags[ev->data_kind]);
    buf_byte(b, '"');
    pyfmt_dumps_opts o = {.msgspec = true};
    for (int k = 1; k <= nfields[ev->data_kind]; k++) {
        buf_byte(b, ',');
        if (k < v->u.arr.n) {
            err e = {0};
            if (!pyfmt_json_dumps(b, &v->u.arr.items[k], &o, NULL, &e))
                return false;
        } else if ((ev->data_kind == AGG_DATA_OUTPUT && k == 1) || (ev->data_kind == AGG_DATA_ERROR && k == 2)) {
            buf_cstr(b, "\"\"");
        } else {
            buf_cstr(b, "null");
        }
    }
    buf_byte(b, ']');
    return true;
}

typedef struct tally {
    i64 lines, accepted, refused, mismatched, deviations;
    i64 by_cls[8];
} tally;

static const char *const classes[] = {"DecodeError", "ValidationError", "UnicodeDecodeError", "NotImplementedError",
                                      "RecursionError", "?"};

static void report(i64 n, iz line_no, str line, const char *what, const char *fmt, ...) PRINTF_LIKE(5, 6);
static void report(i64 n, iz line_no, str line, const char *what, const char *fmt, ...)
{
    if (n > 40)
        return;
    char m[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    printf("#   corpus line %td (%td bytes: %.*s%s): %s: %s\n", line_no, line.len, (int)MIN(line.len, 120),
           (const char *)line.s, line.len > 120 ? "..." : "", what, m);
}

/* The timestamp the golden gives, as this decoder can hold it. */
static bool golden_i64(const json *v, i64 *out)
{
    if (!v || v->type != JSON_INT || v->big)
        return false;
    *out = v->u.i;
    return true;
}

static i64 golden_clamped(const json *v)
{
    if (!v->big)
        return v->u.i;
    return v->u.num.len && v->u.num.s[0] == '-' ? INT64_MIN : INT64_MAX;
}

typedef int decoder(arena *a, str line, i64 now_ns, agg_event *ev, agg_decode_error *de);

/* One corpus line against its golden row; false (and a report) when they differ. */
static bool check_line(decoder *decode, arena *a, iz no, str line, const json *g, tally *t)
{
    agg_event ev;
    agg_decode_error de;
    const i64 now = 777;
    int rc = decode(a, line, now, &ev, &de);
    const json *ok = get(g, "ok");
    if (!ok || ok->type != JSON_INT) {
        report(++t->mismatched, no, line, "golden", "row without \"ok\"");
        return false;
    }
    if (ok->u.i == 0) {
        t->refused++;
        str cls = get(g, "cls")->u.s, msg = get(g, "msg")->u.s;
        const json *ml = get(g, "ml");
        iz full = ml ? (iz)ml->u.i : msg.len;
        int c = 0;
        while (c < 5 && !str_eq(cls, str_cstr(classes[c])))
            c++;
        t->by_cls[c]++;
        if (rc == ERR_OK) {
            report(++t->mismatched, no, line, "accepted", "upstream raises %.*s: %.*s", (int)cls.len,
                   (const char *)cls.s, (int)msg.len, (const char *)msg.s);
            return false;
        }
        if (!str_eq(str_cstr(de.cls), cls) || !str_eq(str_from(de.msg, de.msg_len), msg) || de.full_len != full) {
            report(++t->mismatched, no, line, "refused differently",
                   "\n#     got      %s: %.*s (%td bytes)\n#     expected %.*s: %.*s (%td bytes)", de.cls,
                   (int)de.msg_len, de.msg, de.full_len, (int)cls.len, (const char *)cls.s, (int)msg.len,
                   (const char *)msg.s, full);
            return false;
        }
        return true;
    }
    t->accepted++;
    const json *ts = get(g, "ts");
    i64 want_ts = now;
    if (ts->type != JSON_NULL && !golden_i64(ts, &want_ts)) {
        /* the one refusal of tally's own: a timestamp outside int64 */
        t->deviations++;
        if (rc != ERR_UNSUPPORTED || strcmp(de.cls, "tally.Unsupported")) {
            report(++t->mismatched, no, line, "timestamp beyond int64", "rc %d (%s: %s), expected tally.Unsupported",
                   rc, rc ? de.cls : "-", rc ? de.msg : "-");
            return false;
        }
        return true;
    }
    if (rc != ERR_OK) {
        report(++t->mismatched, no, line, "refused", "%s: %.*s (upstream accepts it)", de.cls, (int)de.msg_len, de.msg);
        return false;
    }
    char why[200] = "";
    const json *c = get(g, "c"), *turn = get(g, "turn"), *fr = get(g, "fr"), *w = get(g, "w");
    const json *tag = get(g, "tag"), *dg = get(g, "d"), *wire = get(g, "wire");
    if (!str_eq(str_cstr(agg_ev_topic(ev.type)), get(g, "t")->u.s))
        snprintf(why, sizeof why, "event type %s", agg_ev_topic(ev.type));
    else if (ev.timestamp_ns != want_ts || ev.ts_from_clock != (ts->type == JSON_NULL))
        snprintf(why, sizeof why, "timestamp %lld%s", (long long)ev.timestamp_ns, ev.ts_from_clock ? " (clock)" : "");
    else if (!str_eq(ev.sample_uuid, get(g, "u")->u.s))
        snprintf(why, sizeof why, "sample_uuid \"%.*s\"", (int)MIN(ev.sample_uuid.len, 80),
                 (const char *)ev.sample_uuid.s);
    else if (!str_eq(ev.conversation_id, c ? c->u.s : S("")))
        snprintf(why, sizeof why, "conversation_id \"%.*s\"", (int)MIN(ev.conversation_id.len, 80),
                 (const char *)ev.conversation_id.s);
    else if (ev.has_turn != (turn != NULL) || (turn && ev.turn != golden_clamped(turn)))
        snprintf(why, sizeof why, "turn %d %lld", ev.has_turn, (long long)ev.turn);
    else if (ev.has_finish_reason != (fr != NULL) || (fr && !str_eq(ev.finish_reason, fr->u.s)))
        snprintf(why, sizeof why, "finish_reason %d \"%.*s\"", ev.has_finish_reason, (int)ev.finish_reason.len,
                 (const char *)ev.finish_reason.s);
    else if (ev.has_worker_id != (w != NULL) || (w && ev.worker_id != golden_clamped(w)))
        snprintf(why, sizeof why, "worker_id %d %lld", ev.has_worker_id, (long long)ev.worker_id);
    else if ((ev.data_kind != AGG_DATA_NONE) != (tag != NULL) || (ev.data != NULL) != (tag != NULL))
        snprintf(why, sizeof why, "payload kind %d", ev.data_kind);
    else if ((wire ? wire->u.s : S("")).len != (ev.wire_error ? (iz)strlen(ev.wire_error) : 0) ||
             (wire && !str_eq(wire->u.s, str_cstr(ev.wire_error))))
        snprintf(why, sizeof why, "wire error %s", ev.wire_error ? ev.wire_error : "none");
    if (!why[0] && tag) {
        static const char *const tags[] = {"", "PromptData", "TextModelOutput", "ErrorData"};
        str want = dg->u.s;
        if (!str_eq(tag->u.s, str_cstr(tags[ev.data_kind]))) {
            snprintf(why, sizeof why, "payload tag %s", tags[ev.data_kind]);
        } else if (want.len && want.s[0] == '!') {
            /* msgspec cannot encode it (an int beyond 64 bits): neither can the wire */
            if (!ev.wire_error || strcmp(ev.wire_error, "OverflowError"))
                snprintf(why, sizeof why, "payload encoding fails upstream (%.*s), wire error %s", (int)want.len,
                         (const char *)want.s, ev.wire_error ? ev.wire_error : "none");
        } else {
            buf b = {0};
            char hex[65];
            if (!payload_encoding(&ev, &b)) {
                snprintf(why, sizeof why, "the payload does not encode");
            } else {
                sha256_hex(buf_view(&b), hex);
                if (memcmp(hex, want.s, 16))
                    snprintf(why, sizeof why, "payload %.16s != %.*s: %.*s", hex, (int)want.len, (const char *)want.s,
                             (int)MIN(b.len, 100), (const char *)b.data);
            }
            buf_free(&b);
        }
    }
    if (why[0]) {
        report(++t->mismatched, no, line, "accepted differently", "%s", why);
        return false;
    }
    return true;
}

/* ---- the fast path ----------------------------------------------------------- */

/* Every corpus line, and the canonical chunk lines of a generated run
 * with each byte changed in turn: agg_event_decode (fast path first) and
 * the general reader alone give the same outcome and the same record. */
static bool same_outcome(arena *a, str line)
{
    agg_event x, y;
    agg_decode_error dx, dy;
    int rx = agg_event_decode(a, line, 7, &x, &dx), ry = agg_event_decode_general(a, line, 7, &y, &dy);
    bool same = rx == ry && (rx != ERR_OK ? !strcmp(dx.cls, dy.cls) && dx.msg_len == dy.msg_len &&
                                                !memcmp(dx.msg, dy.msg, (size_t)dx.msg_len)
                                          : agg_event_same(&x, &y));
    /* the payload left for later, then parsed: the same tree */
    agg_event z;
    agg_decode_error dz;
    int rz = agg_event_decode_deferred(a, line, 7, &z, &dz);
    same = same && rz == rx;
    if (same && rz == ERR_OK) {
        const json *t = agg_event_data(a, &z, NULL);
        same = agg_event_same(&z, &y) && (t != NULL) == (y.data != NULL);
        if (same && t) {
            buf bt = {0}, by = {0};
            json_write(&bt, t);
            json_write(&by, y.data);
            same = str_eq(buf_view(&bt), buf_view(&by));
            buf_free(&bt);
            buf_free(&by);
        }
    }
    /* the ISL the decoder reads off a PromptData is what agg_input makes of it */
    if (same && ry == ERR_OK && y.data && y.data_kind == AGG_DATA_PROMPT) {
        shapes_item it;
        err e = {0};
        int st = agg_input(a, y.data, SHAPES_AUTO, AGG_ISL, &it, &e);
        int want = st == SHAPES_SKIP ? AGG_ISL_NONE
                 : st != SHAPES_COUNT ? -1
                 : it.in.kind == COUNT_IDS ? AGG_ISL_IDS
                 : it.in.kind == COUNT_TEXT ? AGG_ISL_TEXT
                 : it.in.kind == COUNT_PROMPT ? AGG_ISL_PROMPT : -1;
        same = want == y.data_isl && (want != AGG_ISL_IDS || it.in.token_ids->u.arr.n == y.data_nids);
    }
    if (!same)
        printf("#   fast path differs on: %.*s\n", (int)MIN(line.len, 200), (const char *)line.s);
    return same;
}

static void test_fast_path(void)
{
    iz clen;
    char *corpus = test_slurp(CORPUS, &clen);
    REQUIRE(clen > 0);
    str *cl;
    iz nc = split_lines(str_from(corpus, clen), &cl);
    arena a;
    arena_init(&a, 0);
    arena_mark base = arena_save(&a);
    iz differ = 0;
    for (iz k = 0; k < nc; k++) {
        arena_restore(&a, base);
        differ += !same_outcome(&a, cl[k]);
    }
    /* one canonical line of each shape, every byte replaced by each of a
     * few bytes that matter to JSON and to the form */
    static const char *const lines[] = {
        "{\"event_type\":\"sample.recv_non_first\",\"timestamp_ns\":95310689805388,\"sample_uuid\":"
        "\"90249a23abeb4a21a67a169df802752d\",\"conversation_id\":\"\",\"turn\":null,\"data\":null}",
        "{\"event_type\":\"session.started\",\"timestamp_ns\":0,\"sample_uuid\":\"\",\"conversation_id\":\"c-1\","
        "\"turn\":-12,\"data\":null}",
        /* payloads: every field type, escapes, UTF-8, numbers */
        "{\"event_type\":\"sample.issued\",\"timestamp_ns\":95310665032817,\"sample_uuid\":\"1d22\","
        "\"conversation_id\":\"\",\"turn\":null,\"data\":[\"PromptData\",\"t\\n\\u00e9\",[1,22,333],"
        "[{\"role\":\"user\",\"content\":\"Caf\xc3\xa9 \\\"x\\\"\"}],[{\"type\":\"function\",\"f\":"
        "{\"a\":[1.5,-2,true,false,null,{}]}}],{\"k\":0},\"tmpl\",\"auto\"]}",
        "{\"event_type\":\"sample.complete\",\"timestamp_ns\":9,\"sample_uuid\":\"u\",\"conversation_id\":\"c\","
        "\"turn\":3,\"data\":[\"TextModelOutput\",[\"a\",\"b\"],\"r\",[{\"id\":\"c1\"},[]]],"
        "\"finish_reason\":\"stop\",\"worker_id\":6}",
        "{\"event_type\":\"sample.complete\",\"timestamp_ns\":9,\"sample_uuid\":\"u\",\"conversation_id\":\"\","
        "\"turn\":null,\"data\":[\"TextModelOutput\",\"out\"],\"worker_id\":12}",
    };
    static const u8 subs[] = {'"', '\\', '0', '9', '-', ' ', ',', '}', ']', '[', '{', 'n', 'e', '.', 0x7f, 0xc3, 0x00, 'x'};
    iz tried = 0;
    for (size_t l = 0; l < countof(lines); l++) {
        iz n = (iz)strlen(lines[l]);
        u8 *v = malloc((size_t)n);
        REQUIRE(v);
        differ += !same_outcome(&a, str_from(lines[l], n));
        for (iz i = 0; i < n; i++)
            for (size_t k = 0; k < sizeof subs; k++) {
                memcpy(v, lines[l], (size_t)n);
                v[i] = subs[k];
                arena_restore(&a, base);
                differ += !same_outcome(&a, str_from(v, n));
                tried++;
            }
        free(v);
    }
    printf("# %td corpus lines and %td changed canonical lines: %td differ\n", nc, tried, differ);
    EXPECT_EQ(differ, 0);
    free(cl);
    free(corpus);
    arena_fini(&a);
}

/* ---- the golden -------------------------------------------------------------- */

static void test_golden(void)
{
    iz clen, glen;
    /* another corpus and its golden (corpus.py corpus OUT SEED N; golden) */
    const char *cpath = getenv("TALLY_EVENT_CORPUS"), *gpath = getenv("TALLY_EVENT_GOLDEN");
    char *corpus = test_slurp(cpath ? cpath : CORPUS, &clen), *golden = test_slurp(gpath ? gpath : GOLDEN, &glen);
    REQUIRE(clen > 0 && glen > 0);
    str *cl, *gl;
    iz nc = split_lines(str_from(corpus, clen), &cl), ng = split_lines(str_from(golden, glen), &gl);
    arena a;
    arena_init(&a, 0);
    json *head = json_parse(&a, gl[0], NULL, NULL);
    REQUIRE(head);
    char hex[65];
    sha256_hex(str_from(corpus, clen), hex);
    const json *want = get(head, "corpus_sha256");
    REQUIRE(want && str_eq(want->u.s, str_cstr(hex)));   /* `make test-build` rebuilds and checks it */
    EXPECT_EQ(ng - 1, nc);
    EXPECT_EQ(get(head, "lines")->u.i, nc);
    /* agg_event_decode (the canonical fast path, json_parse's tree, the byte
     * reader for what json_parse refuses), the same without the fast path,
     * and the byte reader alone: each must give upstream's outcome */
    static decoder *const decoders[3] = {agg_event_decode, agg_event_decode_general, agg_event_decode_bytes};
    static const char *const names[3] = {"agg_event_decode", "without the canonical fast path",
                                         "the byte reader alone"};
    for (int w = 0; w < 3; w++) {
        tally t = {0};
        arena_mark base = arena_save(&a);
        for (iz k = 0; k < nc && k + 1 < ng; k++) {
            arena_restore(&a, base);
            t.lines++;
            json *g = json_parse(&a, gl[k + 1], NULL, NULL);
            if (!g) {
                report(++t.mismatched, k + 1, cl[k], "golden", "row %td does not parse", k + 2);
                continue;
            }
            check_line(decoders[w], &a, k + 1, cl[k], g, &t);
        }
        printf("# golden, %s: %lld lines: %lld accepted (%lld of them refused by tally alone: timestamp beyond "
               "int64), %lld refused (", names[w], (long long)t.lines, (long long)t.accepted, (long long)t.deviations,
               (long long)t.refused);
        for (int c = 0; c < 6; c++)
            if (t.by_cls[c])
                printf("%s%s %lld", c ? ", " : "", classes[c], (long long)t.by_cls[c]);
        printf("); %lld differ\n", (long long)t.mismatched);
        EXPECT_EQ(t.mismatched, 0);
        if (!getenv("TALLY_EVENT_CORPUS"))
            EXPECT(t.accepted > 20000 && t.refused > 20000);
    }
    arena_fini(&a);
    free(cl);
    free(gl);
    free(corpus);
    free(golden);
}

/* ---- cases the corpus cannot hold ------------------------------------------------ */

static arena ta;

static int dec(const char *line, agg_event *ev, agg_decode_error *de)
{
    arena_fini(&ta);
    arena_init(&ta, 0);
    return agg_event_decode(&ta, str_cstr(line), 42, ev, de);
}

/* upstream-spec.md §2.7's literal lines */
static void test_spec_lines(void)
{
    agg_event ev;
    agg_decode_error de;
    EXPECT_EQ(dec("{\"event_type\":\"sample.issued\",\"timestamp_ns\":1000001000,\"sample_uuid\":"
                  "\"9f1c2d3e4b5a69788796a5b4c3d2e1f0\",\"conversation_id\":\"\",\"turn\":null,\"data\":"
                  "[\"PromptData\",\"Hello there\",null,null,null,null,null,null]}", &ev, &de), ERR_OK);
    EXPECT_EQ(ev.type, AGG_EV_SAMPLE_ISSUED);
    EXPECT_EQ(ev.timestamp_ns, 1000001000);
    EXPECT(!ev.ts_from_clock && !ev.has_turn && !ev.has_finish_reason && !ev.has_worker_id && !ev.wire_error);
    EXPECT_STR(ev.sample_uuid, S("9f1c2d3e4b5a69788796a5b4c3d2e1f0"));
    EXPECT_EQ(ev.data_kind, AGG_DATA_PROMPT);
    EXPECT_STR(ev.data_text, S("[\"PromptData\",\"Hello there\",null,null,null,null,null,null]"));
    REQUIRE(ev.data && ev.data->type == JSON_ARR && ev.data->u.arr.n == 8);
    EXPECT_STR(ev.data->u.arr.items[1].u.s, S("Hello there"));
    EXPECT_EQ(dec("{\"event_type\":\"sample.complete\",\"timestamp_ns\":1001501000,\"sample_uuid\":\"9f1c\","
                  "\"conversation_id\":\"\",\"turn\":null,\"data\":[\"TextModelOutput\",[\"Hel\",\"lo world\"],"
                  "null,null],\"finish_reason\":\"stop\",\"worker_id\":0}", &ev, &de), ERR_OK);
    EXPECT_EQ(ev.type, AGG_EV_SAMPLE_COMPLETE);
    EXPECT(ev.has_finish_reason && ev.has_worker_id && ev.worker_id == 0);
    EXPECT_STR(ev.finish_reason, S("stop"));
    EXPECT_EQ(ev.data_kind, AGG_DATA_OUTPUT);
    EXPECT_EQ(dec("{\"event_type\":\"error.generic\",\"timestamp_ns\":1002000000,\"sample_uuid\":\"0a1b\","
                  "\"conversation_id\":\"conv-7\",\"turn\":2,\"data\":[\"ErrorData\",\"TimeoutError\","
                  "\"request timed out\"]}", &ev, &de), ERR_OK);
    EXPECT(agg_ev_is_error(ev.type) && !agg_ev_is_session(ev.type) && !agg_ev_is_sample(ev.type));
    EXPECT_STR(ev.conversation_id, S("conv-7"));
    EXPECT(ev.has_turn && ev.turn == 2);
    EXPECT_EQ(ev.data_kind, AGG_DATA_ERROR);
    for (int t = 0; t < AGG_EV_COUNT; t++) {
        char line[200];
        snprintf(line, sizeof line, "{\"event_type\":\"%s\",\"timestamp_ns\":1}", agg_ev_topic(t));
        EXPECT_EQ(dec(line, &ev, &de), ERR_OK);
        EXPECT_EQ(ev.type, t);
        EXPECT_EQ(agg_ev_is_session(t) + agg_ev_is_error(t) + agg_ev_is_sample(t), 1);
    }
    EXPECT_STR(str_cstr(agg_ev_topic(AGG_EV_COUNT)), S(""));
}

/* A line without timestamp_ns takes the reader's clock; one with it does not read it. */
static void test_clock(void)
{
    agg_event ev;
    agg_decode_error de;
    EXPECT_EQ(dec("{\"event_type\":\"error.generic\"}", &ev, &de), ERR_OK);
    EXPECT(ev.ts_from_clock && ev.timestamp_ns == 42);
    EXPECT_EQ(dec("{\"event_type\":\"error.generic\",\"timestamp_ns\":-5}", &ev, &de), ERR_OK);
    EXPECT(!ev.ts_from_clock && ev.timestamp_ns == -5);
    /* int64's ends are kept; beyond them tally refuses what upstream takes */
    EXPECT_EQ(dec("{\"event_type\":\"error.generic\",\"timestamp_ns\":9223372036854775807}", &ev, &de), ERR_OK);
    EXPECT_EQ(ev.timestamp_ns, INT64_MAX);
    EXPECT_EQ(dec("{\"event_type\":\"error.generic\",\"timestamp_ns\":-9223372036854775808}", &ev, &de), ERR_OK);
    EXPECT_EQ(ev.timestamp_ns, INT64_MIN);
    EXPECT_EQ(dec("{\"event_type\":\"error.generic\",\"timestamp_ns\":9223372036854775808}", &ev, &de),
              ERR_UNSUPPORTED);
    EXPECT_STR(str_cstr(de.cls), S("tally.Unsupported"));
    EXPECT_EQ(dec("{\"event_type\":\"error.generic\",\"timestamp_ns\":-9223372036854775809}", &ev, &de),
              ERR_UNSUPPORTED);
    /* a duplicate key: the last value is the one kept (and checked) */
    EXPECT_EQ(dec("{\"event_type\":\"error.generic\",\"timestamp_ns\":99999999999999999999999,\"timestamp_ns\":3}",
                  &ev, &de), ERR_OK);
    EXPECT(ev.timestamp_ns == 3 && !ev.wire_error);
}

/* data_text: the payload's own bytes, or without what upstream skipped. */
static void test_data_text(void)
{
    agg_event ev;
    agg_decode_error de;
    EXPECT_EQ(dec("{\"event_type\":\"sample.issued\",\"data\": [ \"PromptData\" , \"a\\nb\" ] ,\"x\":1}", &ev, &de),
              ERR_OK);
    EXPECT_STR(ev.data_text, S("[ \"PromptData\" , \"a\\nb\" ]"));
    REQUIRE(ev.data && ev.data->u.arr.n == 2);
    EXPECT_STR(ev.data->u.arr.items[1].u.s, S("a\nb"));
    /* elements past the struct's fields: skipped by upstream, left out here */
    EXPECT_EQ(dec("{\"event_type\":\"sample.complete\",\"data\":[\"TextModelOutput\",\"o\",null,null,1e400,"
                  "\"\xff\",[1,]x]}", &ev, &de), ERR_SYNTAX);
    EXPECT_EQ(dec("{\"event_type\":\"sample.complete\",\"data\":[\"TextModelOutput\",\"o\",null,null ,1e400,"
                  "\"\xff\",{\"a\":[]}]}", &ev, &de), ERR_OK);
    EXPECT_STR(ev.data_text, S("[\"TextModelOutput\",\"o\",null,null]"));
    REQUIRE(ev.data && ev.data->u.arr.n == 4);
    /* the last of two payloads */
    EXPECT_EQ(dec("{\"event_type\":\"sample.complete\",\"data\":[\"ErrorData\",\"E\"],\"data\":null}", &ev, &de),
              ERR_OK);
    EXPECT(ev.data_kind == AGG_DATA_NONE && !ev.data && !ev.data_text.len);
    /* strings with escapes are unescaped (into the arena) */
    EXPECT_EQ(dec("{\"event_type\":\"sample.complete\",\"sample_uuid\":\"a\\u00e9\\\"b\",\"finish_reason\":"
                  "\"st\\u006fp\",\"conversation_id\":\"\\ud83d\\ude00\"}", &ev, &de), ERR_OK);
    EXPECT_STR(ev.sample_uuid, S("a\xc3\xa9\"b"));
    EXPECT_STR(ev.finish_reason, S("stop"));
    EXPECT_STR(ev.conversation_id, S("\xf0\x9f\x98\x80"));
}

/* The reader drops the trailing CR and LF bytes before decoding, so a
 * string cut by the end of the line is truncated, not a control byte. */
static void test_line_end(void)
{
    agg_event ev;
    agg_decode_error de;
    EXPECT_EQ(dec("{\"event_type\":\"session.started\"}\r\n", &ev, &de), ERR_OK);
    EXPECT_EQ(dec("{\"event_type\":\"session.started\"}\r\r", &ev, &de), ERR_OK);
    EXPECT_EQ(dec("{\"event_type\":\"sess\r", &ev, &de), ERR_SYNTAX);
    EXPECT_STR(str_cstr(de.msg), S("Input data was truncated"));
    EXPECT_EQ(dec("{\"event_type\":\"sess\r\"}", &ev, &de), ERR_SYNTAX);
    EXPECT_STR(str_cstr(de.msg), S("JSON is malformed: invalid character (byte 19)"));
    EXPECT_EQ(de.off, 19);
    EXPECT_EQ(dec("", &ev, &de), ERR_SYNTAX);
    EXPECT_EQ(agg_event_decode(&ta, S("{\"event_type\":\"session.started\"}"), 0, &ev, NULL), ERR_OK);
    EXPECT_EQ(agg_event_decode(&ta, S("{"), 0, &ev, NULL), ERR_SYNTAX);
}

static char *nest(const char *pre, int n, const char *open, const char *leaf, const char *close, const char *post)
{
    buf b = {0};
    buf_cstr(&b, pre);
    for (int k = 0; k < n; k++)
        buf_cstr(&b, open);
    buf_cstr(&b, leaf);
    for (int k = 0; k < n; k++)
        buf_cstr(&b, close);
    buf_cstr(&b, post);
    buf_byte(&b, 0);
    return (char *)b.data;
}

/* The nesting the reference replay's reader takes (replay.py, measured on
 * one-line logs with --bad-lines error; tests/data/agg_event/README.md):
 * 996 levels counting the record and the payload. */
static void test_depth(void)
{
    static const struct { const char *pre, *post; int fixed; } where[] = {
        {"{\"event_type\":\"sample.issued\",\"x\":", "}", 1},                                     /* skipped */
        {"{\"event_type\":\"sample.issued\",\"data\":[\"PromptData\",null,null,[{\"a\":", "}]]}", 4},   /* messages */
        {"{\"event_type\":\"sample.issued\",\"data\":[\"PromptData\",null,null,null,null,null,null,null,", "]}", 2},
        {"{\"event_type\":\"sample.issued\",\"data\":[\"TextModelOutput\",\"o\",null,[", "]]}", 3},
    };
    agg_event ev;
    agg_decode_error de;
    for (int w = 0; w < countof(where); w++) {
        int n = AGG_EVENT_MAX_DEPTH - where[w].fixed;
        char *ok = nest(where[w].pre, n, "[", "", "]", where[w].post);
        char *deep = nest(where[w].pre, n + 1, "[", "", "]", where[w].post);
        char *objs = nest(where[w].pre, n, "{\"k\":", "0", "}", where[w].post);
        char *objs_deep = nest(where[w].pre, n + 1, "{\"k\":", "0", "}", where[w].post);
        EXPECT_EQ(dec(ok, &ev, &de), ERR_OK);
        EXPECT_EQ(dec(objs, &ev, &de), ERR_OK);
        EXPECT_EQ(dec(objs_deep, &ev, &de), ERR_LIMIT);
        EXPECT_EQ(dec(deep, &ev, &de), ERR_LIMIT);
        EXPECT_STR(str_cstr(de.cls), S("RecursionError"));
        EXPECT_STR(str_cstr(de.msg), S("maximum recursion depth exceeded while deserializing an object"));
        free(ok);
        free(deep);
        free(objs);
        free(objs_deep);
    }
    /* the wire (msgpack's encoder) stops one level earlier, not counting empty containers */
    char *a = nest(where[1].pre, AGG_EVENT_MAX_DEPTH - 4, "[", "", "]", where[1].post);
    char *o = nest(where[1].pre, AGG_EVENT_MAX_DEPTH - 4, "{\"a\":", "1", "}", where[1].post);
    EXPECT_EQ(dec(a, &ev, &de), ERR_OK);
    EXPECT(!ev.wire_error);
    EXPECT_EQ(dec(o, &ev, &de), ERR_OK);
    EXPECT(ev.wire_error && !strcmp(ev.wire_error, "RecursionError"));
    free(a);
    free(o);
    /* 100,000 levels: refused at once, and no C stack is spent on them */
    char *huge = nest("{\"event_type\":", 100000, "[", "", "]", "}");
    EXPECT_EQ(dec(huge, &ev, &de), ERR_LIMIT);
    free(huge);
}

/* An int beyond 64 bits that the record keeps: accepted, but not for the wire. */
static void test_big_ints(void)
{
    agg_event ev;
    agg_decode_error de;
    EXPECT_EQ(dec("{\"event_type\":\"sample.issued\",\"turn\":-99999999999999999999,\"worker_id\":18446744073709551615}",
                  &ev, &de), ERR_OK);
    EXPECT(ev.has_turn && ev.turn == INT64_MIN && ev.worker_id == INT64_MAX);
    EXPECT(ev.wire_error && !strcmp(ev.wire_error, "OverflowError"));
    EXPECT_EQ(dec("{\"event_type\":\"sample.issued\",\"data\":[\"PromptData\",null,[18446744073709551616]]}", &ev,
                  &de), ERR_OK);
    EXPECT(ev.wire_error && !strcmp(ev.wire_error, "OverflowError"));
    EXPECT_EQ(dec("{\"event_type\":\"sample.issued\",\"x\":18446744073709551616}", &ev, &de), ERR_OK);
    EXPECT(!ev.wire_error);   /* skipped: the record does not hold it */
}

/* Out of memory in the arena: an error for the line, the arena usable after. */
static void test_nomem(void)
{
    arena a;
    arena_init(&a, 4096);
    agg_event ev;
    agg_decode_error de;
    char *big = nest("{\"event_type\":\"sample.issued\",\"data\":[\"PromptData\",null,null,[", 3000,
                     "{\"content\":\"a\\nb\"},", "{}", "", "]]}");
    arena_mark m = arena_save(&a);
    EXPECT_EQ(agg_event_decode(&a, str_cstr(big), 0, &ev, &de), ERR_NOMEM);
    EXPECT(a.oom == NULL);
    EXPECT_STR(str_cstr(de.cls), S("MemoryError"));
    arena_restore(&a, m);
    EXPECT_EQ(agg_event_decode(&a, S("{\"event_type\":\"session.ended\"}"), 0, &ev, &de), ERR_OK);
    arena_fini(&a);
    free(big);
}

/* Every prefix of a few lines, each placed against an unreadable page:
 * the decoder reads nothing past the line. */
static void test_guard_page(void)
{
    static const char *const lines[] = {
        "{\"event_type\":\"sample.complete\",\"timestamp_ns\":1001501000,\"sample_uuid\":\"9f1c\\u00e9\","
        "\"conversation_id\":\"\",\"turn\":12,\"data\":[\"TextModelOutput\",[\"Hel\",\"lo \\ud83d\\ude00\"],"
        "\"r\",[[{\"index\":0,\"function\":{\"arguments\":\"{}\"}}]],7],\"finish_reason\":\"stop\",\"worker_id\":-0,"
        "\"x\":[true,false,null,-1.5e-3,\"\\/\",{\"a\":{}}]}",
        "{\"event_type\":\"sample.issued\",\"data\":[\"PromptData\",null,[1,2,3],[{\"role\":\"user\",\"content\":"
        "\"caf\xc3\xa9\"}],null,{\"k\":1e5},\"t\",{\"type\":\"function\"}]}",
        "{\"event_type\":[1,\"a\",null,{\"k\":2.5}]}",
        "{\"event_type\":\"x.y\",\"timestamp_ns\":123456789012345678901234}",
    };
    long page = sysconf(_SC_PAGESIZE);
    u8 *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(map != MAP_FAILED);
    REQUIRE(mprotect(map + page, (size_t)page, PROT_NONE) == 0);
    arena a;
    arena_init(&a, 0);
    arena_mark m = arena_save(&a);
    iz ok = 0;
    for (iz l = 0; l < countof(lines); l++) {
        iz n = (iz)strlen(lines[l]);
        for (iz k = 0; k <= n; k++) {
            u8 *at = map + page - k;
            memcpy(at, lines[l], (size_t)k);
            agg_event ev;
            agg_decode_error de;
            arena_restore(&a, m);
            ok += agg_event_decode(&a, str_from(at, k), 0, &ev, &de) == ERR_OK;
        }
    }
    EXPECT_EQ(ok, 2);   /* the two whole lines that upstream takes */
    arena_fini(&a);
    munmap(map, (size_t)page * 2);
}

int main(void)
{
    arena_init(&ta, 0);
    RUN(test_golden);
    RUN(test_fast_path);
    RUN(test_spec_lines);
    RUN(test_clock);
    RUN(test_data_text);
    RUN(test_line_end);
    RUN(test_depth);
    RUN(test_big_ints);
    RUN(test_nomem);
    RUN(test_guard_page);
    arena_fini(&ta);
    return test_done();
}
