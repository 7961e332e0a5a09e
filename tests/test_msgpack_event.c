/* test_msgpack_event.c - upstream's frames and msgpack records
 * (src/io/msgpack_event.c): the literal records of upstream-spec.md §2.6;
 * every line of the event decoder's corpus (build/agg_event, upstream's
 * verdict on each) and of the bundled run, encoded as msgspec encodes it,
 * decodes to the very record (or the very refusal) the JSONL line gives;
 * what msgpack can say and JSON cannot (bin, ext, non-string keys, NaN,
 * nesting, bad bytes, lengths past the end); the frame splitter; the
 * MetricsSnapshot's encoding. */
#include <math.h>
#include <msgpack.h>
#include "test.h"
#include "../src/agg/agg.h"
#include "../src/agg/event.h"
#include "../src/base/arena.h"
#include "../src/io/events.h"
#include "../src/io/msgpack_event.h"
#include "../src/json/json.h"
#include "../src/json/pyfmt.h"

#define CORPUS "build/agg_event/corpus.jsonl"

static int to_buf(void *data, const char *p, size_t n)
{
    buf_put(data, p, (iz)n);
    return 0;
}

/* msgspec's msgpack of a JSON value (as upstream's producer encodes the
 * record the line stands for); false for what msgpack cannot carry (an
 * int past uint64). */
static bool pack_json(msgpack_packer *pk, const json *v)
{
    switch ((json_type)v->type) {
    case JSON_NULL: msgpack_pack_nil(pk); return true;
    case JSON_BOOL: if (v->u.b) msgpack_pack_true(pk); else msgpack_pack_false(pk); return true;
    case JSON_INT: {
        if (!v->big) {
            msgpack_pack_int64(pk, v->u.i);
            return true;
        }
        str t = v->u.num;
        if (!t.len || t.s[0] == '-' || t.len > 20)
            return false;
        u64 x = 0;
        for (iz k = 0; k < t.len; k++) {
            u64 d = (u64)(t.s[k] - '0');
            if (x > (UINT64_MAX - d) / 10)
                return false;
            x = x * 10 + d;
        }
        msgpack_pack_uint64(pk, x);
        return true;
    }
    case JSON_FLOAT:
        if (!isfinite(v->u.f))
            return false;
        msgpack_pack_double(pk, v->u.f);
        return true;
    case JSON_STR:
        msgpack_pack_str(pk, (size_t)v->u.s.len);
        msgpack_pack_str_body(pk, v->u.s.s, (size_t)v->u.s.len);
        return true;
    case JSON_ARR:
        msgpack_pack_array(pk, (size_t)v->u.arr.n);
        for (iz k = 0; k < v->u.arr.n; k++)
            if (!pack_json(pk, &v->u.arr.items[k]))
                return false;
        return true;
    case JSON_OBJ:
        msgpack_pack_map(pk, (size_t)v->u.obj.n);
        for (iz k = 0; k < v->u.obj.n; k++) {
            const json_member *m = &v->u.obj.members[k];
            msgpack_pack_str(pk, (size_t)m->key.len);
            msgpack_pack_str_body(pk, m->key.s, (size_t)m->key.len);
            if (!pack_json(pk, &m->val))
                return false;
        }
        return true;
    }
    return false;
}

static int depth_of(const json *v)
{
    int d = 0, x;
    if (v->type == JSON_ARR)
        for (iz k = 0; k < v->u.arr.n; k++)
            if ((x = depth_of(&v->u.arr.items[k])) > d)
                d = x;
    if (v->type == JSON_OBJ)
        for (iz k = 0; k < v->u.obj.n; k++)
            if ((x = depth_of(&v->u.obj.members[k].val)) > d)
                d = x;
    return d + (v->type == JSON_ARR || v->type == JSON_OBJ);
}

/* Python's view of a payload: json.dumps of its value. */
static void dumps(const json *v, buf *b)
{
    pyfmt_dumps_opts o = {0};
    err e = {0};
    if (v)
        pyfmt_json_dumps(b, v, &o, NULL, &e);
}

/* agg_event_same, the payloads compared as values (the JSONL's text keeps
 * the line's escapes, msgpack's is written afresh). */
static bool same_event(const agg_event *x, const agg_event *y)
{
    agg_event xx = *x, yy = *y;
    buf a = {0}, b = {0};
    dumps(x->data, &a);
    dumps(y->data, &b);
    bool same = str_eq(buf_view(&a), buf_view(&b));
    xx.data_text = yy.data_text = S("");
    buf_free(&a);
    buf_free(&b);
    return same && agg_event_same(&xx, &yy);
}

typedef struct tally_counts {
    iz lines, compared, same_ok, same_err, skipped;
    io_mp_decoder dec;   /* kept from line to line, as tally aggregate keeps it */
} tally_counts;

/* One line both ways: the JSONL decoder and msgpack of its value. */
static void both_ways(str line, tally_counts *c)
{
    arena a, b;
    arena_init(&a, 0);
    arena_init(&b, 0);
    c->lines++;
    err je = {0};
    json_opts jo = {.max_depth = 2000};
    json *v = json_parse(&a, line, &jo, &je);
    buf mp = {0};
    msgpack_packer pk;
    msgpack_packer_init(&pk, &mp, to_buf);
    if (!v || depth_of(v) > IO_MP_MAX_DEPTH || !pack_json(&pk, v)) {
        c->skipped++;   /* JSON msgpack cannot carry, or not JSON at all (the line's own test) */
        goto done;
    }
    agg_event x, y;
    agg_decode_error dx, dy;
    int rx = agg_event_decode(&a, line, 77, &x, &dx);
    int ry = io_mp_event_decode(&c->dec, &b, buf_view(&mp), 77, &y, &dy);
    if (ry == ERR_OK && y.data_later) {
        /* the payload the decoder left as text, made as the aggregator makes it */
        err de = {0};
        y.data = agg_event_data(&b, &y, &de);
        EXPECT(y.data != NULL);
    }
    c->compared++;
    if (rx == ERR_OK) {
        EXPECT_EQ(ry, ERR_OK);
        if (ry == ERR_OK && same_event(&x, &y))
            c->same_ok++;
        else if (c->compared - c->same_ok - c->same_err < 4)
            printf("#   differs: %.*s\n#     msgpack: %s %s\n", (int)MIN(line.len, 300), (const char *)line.s, dy.cls,
                   dy.msg);
    } else {
        if (ry == rx && !strcmp(dx.cls, dy.cls) && dx.msg_len == dy.msg_len && !memcmp(dx.msg, dy.msg, (size_t)dx.msg_len))
            c->same_err++;
        else if (c->compared - c->same_ok - c->same_err < 4)
            printf("#   refusal differs: %.*s\n#     json: %s %s\n#     msgpack: %s %s\n", (int)MIN(line.len, 300),
                   (const char *)line.s, dx.cls, dx.msg, dy.cls, dy.msg);
    }
done:
    buf_free(&mp);
    arena_fini(&a);
    arena_fini(&b);
}

static void each_line(const char *path, tally_counts *c)
{
    err e = {0};
    io_events *src = io_events_open(path, 0, &e);
    if (!src) {
        printf("#   %s: %s\n", path, e.msg);
        test_cur_failed = 1;
        return;
    }
    str line;
    int r;
    while ((r = io_events_next(src, &line)) != LINES_END)
        if (r == LINES_OK && line.len)
            both_ways(line, c);
    io_events_close(src);
}

static void test_corpus(void)
{
    tally_counts c = {0};
    each_line(CORPUS, &c);
    printf("# corpus: %td lines, %td compared (%td accepted alike, %td refused alike), %td JSON msgpack cannot carry\n",
           c.lines, c.compared, c.same_ok, c.same_err, c.skipped);
    EXPECT(c.compared > 30000);
    EXPECT_EQ(c.same_ok + c.same_err, c.compared);
    io_mp_decoder_free(&c.dec);
}

static void test_bundled_run(void)
{
    tally_counts c = {0};
    each_line("examples/events.jsonl.gz", &c);
    EXPECT_EQ(c.lines, 3645);
    EXPECT_EQ(c.same_ok, c.lines);
    io_mp_decoder_free(&c.dec);
}

/* ---- §2.6's literal records --------------------------------------------------- */

static str hex(arena *a, const char *h)
{
    iz n = 0;
    u8 *out = arena_alloc_nz(a, 1, 1, (iz)strlen(h) / 2 + 1);
    for (const char *p = h; *p;) {
        if (*p == ' ' || *p == '\n') {
            p++;
            continue;
        }
        unsigned x;
        sscanf(p, "%2x", &x);
        out[n++] = (u8)x;
        p += 2;
    }
    return str_from(out, n);
}

static void test_spec_examples(void)
{
    arena a;
    arena_init(&a, 0);
    str ended = hex(&a, "86 aa 65 76 65 6e 74 5f 74 79 70 65 ad 73 65 73 73 69 6f 6e 2e 65 6e 64 65 64 ac 74 69 6d 65"
                        "73 74 61 6d 70 5f 6e 73 2a ab 73 61 6d 70 6c 65 5f 75 75 69 64 a0 af 63 6f 6e 76 65 72 73 61"
                        "74 69 6f 6e 5f 69 64 a0 a4 74 75 72 6e c0 a4 64 61 74 61 c0");
    EXPECT_EQ(ended.len, 82);
    agg_event ev;
    agg_decode_error de;
    EXPECT_EQ(io_mp_event_decode(NULL, &a, ended, 0, &ev, &de), ERR_OK);
    EXPECT_EQ(ev.type, AGG_EV_SESSION_ENDED);
    EXPECT_EQ(ev.timestamp_ns, 42);
    EXPECT(!ev.has_turn && !ev.data);
    /* ISSUED with token ids (108 bytes) */
    buf b = {0};
    buf_put(&b, "\x86\xaa" "event_type" "\xad" "sample.issued" "\xac" "timestamp_ns" "\xcd\x03\xe8"
                "\xab" "sample_uuid" "\xa3" "abc" "\xaf" "conversation_id" "\xa0" "\xa4" "turn" "\xc0"
                "\xa4" "data" "\x98\xaa" "PromptData" "\xc0\x93\x01\x02\x03\xc0\xc0\xc0\xc0\xc0", 108);
    EXPECT_EQ(io_mp_event_decode(NULL, &a, buf_view(&b), 0, &ev, &de), ERR_OK);
    EXPECT_EQ(ev.type, AGG_EV_SAMPLE_ISSUED);
    EXPECT_EQ(ev.timestamp_ns, 1000);
    EXPECT_STR(ev.sample_uuid, S("abc"));
    EXPECT_EQ(ev.data_kind, AGG_DATA_PROMPT);
    EXPECT_STR(ev.data_text, S("[\"PromptData\",null,[1,2,3],null,null,null,null,null]"));
    /* COMPLETE with streamed output and a finish reason */
    b.len = 0;
    buf_put(&b, "\x87\xaa" "event_type" "\xaf" "sample.complete" "\xac" "timestamp_ns" "\xcd\x13\x88"
                "\xab" "sample_uuid" "\xa3" "abc" "\xaf" "conversation_id" "\xa0" "\xa4" "turn" "\xc0"
                "\xa4" "data" "\x94\xaf" "TextModelOutput" "\x92\xa3" "Hel" "\xa2" "lo" "\xc0\xc0"
                "\xad" "finish_reason" "\xa4" "stop", 134);
    EXPECT_EQ(io_mp_event_decode(NULL, &a, buf_view(&b), 0, &ev, &de), ERR_OK);
    EXPECT_EQ(ev.type, AGG_EV_SAMPLE_COMPLETE);
    EXPECT_EQ(ev.timestamp_ns, 5000);
    EXPECT(ev.has_finish_reason);
    EXPECT_STR(ev.finish_reason, S("stop"));
    EXPECT_STR(ev.data_text, S("[\"TextModelOutput\",[\"Hel\",\"lo\"],null,null]"));
    buf_free(&b);
    arena_fini(&a);
}

/* ---- what only msgpack can say ------------------------------------------------ */

static void refused(const char *what, str payload, const char *cls, int code)
{
    arena a;
    arena_init(&a, 0);
    agg_event ev;
    agg_decode_error de;
    int rc = io_mp_event_decode(NULL, &a, payload, 0, &ev, &de);
    if (rc != code || strcmp(de.cls, cls)) {
        printf("#   %s: got %d %s (%s), expected %d %s\n", what, rc, de.cls, de.msg, code, cls);
        test_cur_failed = 1;
    }
    arena_fini(&a);
}

static void test_msgpack_only(void)
{
    /* a record whose data is replaced by each value */
    const char *head = "\x82\xaa" "event_type" "\xad" "sample.issued" "\xa4" "data";
    struct { const char *what; const char *bytes; iz n; const char *cls; int code; } cases[] = {
        {"bin", "\xc4\x01x", 3, "tally.Unsupported", ERR_UNSUPPORTED},
        {"ext", "\xd4\x01\x02", 3, "tally.Unsupported", ERR_UNSUPPORTED},
        {"int key", "\x81\x01\xc0", 3, "tally.Unsupported", ERR_UNSUPPORTED},
        {"nan", "\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00", 9, "tally.Unsupported", ERR_UNSUPPORTED},
        {"invalid opcode", "\xc1", 1, "DecodeError", ERR_SYNTAX},
        {"bad utf-8", "\xa2\xff\xfe", 3, "UnicodeDecodeError", ERR_UTF8},
        {"truncated str", "\xa5" "ab", 3, "DecodeError", ERR_SYNTAX},
        {"array past the end", "\xdd\xff\xff\xff\xff\xc0", 6, "DecodeError", ERR_SYNTAX},
        {"map past the end", "\xdf\x7f\xff\xff\xff", 5, "DecodeError", ERR_SYNTAX},
        {"str32 past the end", "\xdb\xff\xff\xff\xff", 5, "DecodeError", ERR_SYNTAX},
        /* accepted by the reader, judged by the decoder: a float for data */
        {"float data", "\xcb\x3f\xf0\x00\x00\x00\x00\x00\x00", 9, "ValidationError", ERR_INVALID},
    };
    for (size_t k = 0; k < countof(cases); k++) {
        buf b = {0};
        buf_put(&b, head, (iz)strlen(head));
        buf_put(&b, cases[k].bytes, cases[k].n);
        refused(cases[k].what, buf_view(&b), cases[k].cls, cases[k].code);
        buf_free(&b);
    }
    /* trailing bytes after the record */
    buf b = {0};
    buf_put(&b, "\x81\xaa" "event_type" "\xad" "sample.issued" "\x00", 27);
    refused("trailing", buf_view(&b), "DecodeError", ERR_SYNTAX);
    /* nesting: 32 levels are taken, 33 are not */
    for (int depth = 30; depth <= 34; depth++) {
        b.len = 0;
        buf_put(&b, "\x83\xaa" "event_type" "\xad" "sample.issued" "\xa4" "data" "\xc0\xa1x", 34);
        for (int k = 0; k < depth - 1; k++)
            buf_byte(&b, 0x91);
        buf_byte(&b, 0xc0);
        arena a;
        arena_init(&a, 0);
        agg_event ev;
        agg_decode_error de;
        int rc = io_mp_event_decode(NULL, &a, buf_view(&b), 0, &ev, &de);
        EXPECT_EQ(rc, depth <= IO_MP_MAX_DEPTH ? ERR_OK : ERR_UNSUPPORTED);
        arena_fini(&a);
    }
    /* uint64 above int64 and negative ints where int is wanted */
    b.len = 0;
    buf_put(&b, "\x82\xaa" "event_type" "\xad" "sample.issued" "\xa4" "turn" "\xcf\xff\xff\xff\xff\xff\xff\xff\xff", 40);
    arena a;
    arena_init(&a, 0);
    agg_event ev;
    agg_decode_error de;
    EXPECT_EQ(io_mp_event_decode(NULL, &a, buf_view(&b), 5, &ev, &de), ERR_OK);
    EXPECT(ev.has_turn && ev.turn == INT64_MAX && ev.ts_from_clock && ev.timestamp_ns == 5);
    b.len = 0;
    buf_put(&b, "\x82\xaa" "event_type" "\xad" "sample.issued" "\xac" "timestamp_ns" "\xd3\x80\x00\x00\x00\x00\x00\x00\x00", 48);
    EXPECT_EQ(io_mp_event_decode(NULL, &a, buf_view(&b), 5, &ev, &de), ERR_OK);
    EXPECT_EQ(ev.timestamp_ns, INT64_MIN);
    arena_fini(&a);
    buf_free(&b);
}

/* ---- frames ---------------------------------------------------------------- */

typedef struct items {
    str v[8];
    int n;
} items;

static void take(void *ctx, str p)
{
    items *it = ctx;
    if (it->n < 8)
        it->v[it->n] = p;
    it->n++;
}

static io_frame_kind split(const void *p, iz n, items *it)
{
    memset(it, 0, sizeof *it);
    char why[256];
    return io_frame_split(str_from(p, n), take, it, why, (iz)sizeof why);
}

static void test_frames(void)
{
    u8 f[256];
    items it;
    memset(f, 0, sizeof f);
    memcpy(f, "sample.issued", 13);
    f[40] = 0x80;
    EXPECT_EQ(split(f, 41, &it), IO_FRAME_RECORD);
    EXPECT(it.n == 1 && it.v[0].len == 1 && it.v[0].s == f + 40);
    EXPECT_EQ(split(f, 40, &it), IO_FRAME_SHORT);
    EXPECT_EQ(split(f, 3, &it), IO_FRAME_SHORT);
    EXPECT_EQ(split(f, 0, &it), IO_FRAME_SHORT);
    EXPECT_EQ(it.n, 0);
    /* a batch: three bin items, the empty one skipped */
    memset(f, 0, sizeof f);
    memcpy(f, "batch", 5);
    const u8 body[] = {0x93, 0xc4, 0x01, 0xc0, 0xc4, 0x00, 0xc5, 0x00, 0x02, 0x90, 0x90};
    memcpy(f + 40, body, sizeof body);
    EXPECT_EQ(split(f, 40 + (iz)sizeof body, &it), IO_FRAME_BATCH);
    EXPECT_EQ(it.n, 2);
    EXPECT(it.v[0].len == 1 && it.v[1].len == 2);
    /* a batch of nothing is a batch */
    f[40] = 0x90;
    EXPECT_EQ(split(f, 41, &it), IO_FRAME_BATCH);
    EXPECT_EQ(it.n, 0);
    /* bad batches hand over nothing */
    const u8 *bad[] = {
        (const u8 *)"\x92\xc4\x01\xc0\xa1x",   /* a str item */
        (const u8 *)"\x81\xa1k\xc0",           /* a map */
        (const u8 *)"\x92\xc4\x01\xc0",        /* cut short */
        (const u8 *)"\x91\xc4\x01\xc0\xc0",    /* trailing */
        (const u8 *)"\xdd\xff\xff\xff\xff",    /* a length past the end */
        (const u8 *)"\xc1",
    };
    const iz blen[] = {6, 4, 4, 5, 5, 1};
    for (size_t k = 0; k < countof(bad); k++) {
        memcpy(f + 40, bad[k], (size_t)blen[k]);
        EXPECT_EQ(split(f, 40 + blen[k], &it), IO_FRAME_BAD_BATCH);
        EXPECT_EQ(it.n, 0);
    }
    /* the bare batch topic: no list at all */
    EXPECT_EQ(split(f, 40, &it), IO_FRAME_BAD_BATCH);
}

/* ---- snapshots --------------------------------------------------------------- */

static const msgpack_object *at(const msgpack_object *o, u32 k)
{
    return o->type == MSGPACK_OBJECT_ARRAY && k < o->via.array.size ? &o->via.array.ptr[k] : NULL;
}

static bool is_str(const msgpack_object *o, const char *s)
{
    return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == strlen(s) && !memcmp(o->via.str.ptr, s, strlen(s));
}

static void test_snapshot(void)
{
    err e = {0};
    agg_opts ao = {.streaming = true, .early_stopping = true, .sig_figs = 3, .n_buckets = 5};
    agg *g = agg_new(&ao, &e);
    REQUIRE(g);
    arena a;
    arena_init(&a, 0);
    const char *recs[] = {
        "{\"event_type\":\"session.started\",\"timestamp_ns\":10}",
        "{\"event_type\":\"session.start_performance_tracking\",\"timestamp_ns\":11}",
        "{\"event_type\":\"sample.issued\",\"timestamp_ns\":100,\"sample_uuid\":\"a\",\"data\":[\"PromptData\",null,[1,2,3]]}",
        "{\"event_type\":\"sample.recv_first\",\"timestamp_ns\":150,\"sample_uuid\":\"a\"}",
        "{\"event_type\":\"sample.complete\",\"timestamp_ns\":300,\"sample_uuid\":\"a\",\"finish_reason\":\"stop\"}",
    };
    for (size_t k = 0; k < countof(recs); k++) {
        agg_event ev;
        REQUIRE(agg_event_decode(&a, str_cstr(recs[k]), 0, &ev, NULL) == ERR_OK);
        REQUIRE(agg_process(g, &ev) == ERR_OK);
    }
    agg_snapshot *snap = calloc(1, sizeof *snap);
    for (int pass = 0; pass < 2; pass++) {
        agg_state st = pass ? AGG_COMPLETE : AGG_LIVE;
        REQUIRE(agg_registry_snapshot(agg_registry_of(g), st, 1234, 0, snap, &e) == ERR_OK);
        buf b = {0};
        io_mp_snapshot(snap, &b);
        /* the head as §9.1's example: [counter, 1234, "live", 0, [...]] */
        const u8 head[] = {0x95, (u8)(pass + 1), 0xcd, 0x04, 0xd2};
        EXPECT(b.len > 5 && !memcmp(b.data, head, sizeof head));
        msgpack_unpacked u;
        msgpack_unpacked_init(&u);
        size_t off = 0;
        EXPECT_EQ(msgpack_unpack_next(&u, (const char *)b.data, (size_t)b.len, &off), MSGPACK_UNPACK_SUCCESS);
        EXPECT_EQ(off, b.len);
        const msgpack_object *m = at(&u.data, 4);
        EXPECT(is_str(at(&u.data, 2), pass ? "complete" : "live"));
        REQUIRE(m && m->via.array.size == AGG_NCOUNTERS + 6);
        for (int k = 0; k < AGG_NCOUNTERS; k++) {
            EXPECT(is_str(at(at(m, (u32)k), 0), "counter"));
            EXPECT(is_str(at(at(m, (u32)k), 1), agg_counter_name((agg_counter)k)));
        }
        EXPECT_EQ(at(at(m, AGG_TOTAL_ISSUED), 2)->via.i64, 1);
        const msgpack_object *lat = at(m, AGG_NCOUNTERS + AGG_S_LATENCY);
        EXPECT(is_str(at(lat, 0), "series") && is_str(at(lat, 1), "sample_latency_ns"));
        EXPECT_EQ(lat->via.array.size, 10);
        EXPECT_EQ(at(lat, 2)->via.u64, 1);                          /* count */
        EXPECT_EQ(at(lat, 3)->via.u64, 200);                        /* total: an int */
        EXPECT_EQ(at(lat, 6)->type, MSGPACK_OBJECT_FLOAT64);        /* sum_sq: a float */
        EXPECT_EQ(at(lat, 7)->via.map.size, AGG_NPCT);
        EXPECT_EQ(at(lat, 8)->via.array.size, 5);                   /* the buckets */
        /* the early-stopping map on COMPLETE only; nil otherwise */
        EXPECT_EQ(at(lat, 9)->type, pass ? MSGPACK_OBJECT_MAP : MSGPACK_OBJECT_NIL);
        const msgpack_object *isl = at(m, AGG_NCOUNTERS + AGG_S_ISL);
        EXPECT_EQ(at(isl, 9)->type, MSGPACK_OBJECT_NIL);
        const msgpack_object *tpot = at(m, AGG_NCOUNTERS + AGG_S_TPOT);
        EXPECT(is_str(at(tpot, 1), "tpot_ns"));
        EXPECT_EQ(at(tpot, 8)->via.array.size, 0);                  /* empty: no buckets */
        msgpack_unpacked_destroy(&u);
        buf_free(&b);
    }
    free(snap);
    agg_free(g);
    arena_fini(&a);
}

int main(void)
{
    RUN(test_spec_examples);
    RUN(test_msgpack_only);
    RUN(test_frames);
    RUN(test_snapshot);
    RUN(test_bundled_run);
    RUN(test_corpus);
    return test_done();
}
