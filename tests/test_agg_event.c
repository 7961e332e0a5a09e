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

/* One corpus line against its golden row; false (and a report) when they differ. */
static bool check_line(arena *a, iz no, str line, const json *g, tally *t)
{
    agg_event ev;
    agg_decode_error de;
    const i64 now = 777;
    int rc = agg_event_decode(a, line, now, &ev, &de);
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
        check_line(&a, k + 1, cl[k], g, &t);
    }
    printf("# golden: %lld lines: %lld accepted (%lld of them refused by tally alone: timestamp beyond int64), "
           "%lld refused (", (long long)t.lines, (long long)t.accepted, (long long)t.deviations, (long long)t.refused);
    for (int c = 0; c < 6; c++)
        if (t.by_cls[c])
            printf("%s%s %lld", c ? ", " : "", classes[c], (long long)t.by_cls[c]);
    printf("); %lld differ\n", (long long)t.mismatched);
    EXPECT_EQ(t.mismatched, 0);
    EXPECT(t.accepted > 20000 && t.refused > 20000);
    arena_fini(&a);
    free(cl);
    free(gl);
    free(corpus);
    free(golden);
}

int main(void)
{
    RUN(test_golden);
    return test_done();
}
