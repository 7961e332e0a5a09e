/* msgpack_event.c - upstream's frames and msgpack payloads (msgpack_event.h):
 * the frame splitter, a msgpack record turned into the JSON text the event
 * decoder judges, and the MetricsSnapshot encoder, over msgpack-c. */
#include "msgpack_event.h"

#include <math.h>
#include <stdarg.h>
#include <msgpack.h>
#include <stdio.h>
#include <string.h>

#include "../base/utf8.h"
#include "../json/json.h"
#include "../json/pyfmt.h"

const u8 io_snapshot_topic[IO_TOPIC_SIZE] = {'M', 'E', 'T'};
static const u8 batch_topic[IO_TOPIC_SIZE] = {'b', 'a', 't', 'c', 'h'};

/* ---- a first pass over the bytes -------------------------------------------- */

/* msgpack-c allocates a container's elements when it reads the header, for
 * the length the header claims: a claim past what the bytes can hold is
 * refused first, here, so that no frame makes it ask for more memory than
 * 16 bytes for each byte of the frame. This pass also finds msgspec's
 * errors (an invalid opcode, truncation) and the depth limit. */

enum { SCAN_OK, SCAN_TRUNCATED, SCAN_OPCODE, SCAN_DEEP };

typedef struct scan {
    const u8 *beg, *p, *end;
    const u8 *bad;   /* where the error is */
} scan;

static bool need(scan *s, iz n)
{
    if (s->end - s->p < n) {
        s->bad = s->p;
        return false;
    }
    return true;
}

static u64 be(const u8 *p, int n)
{
    u64 v = 0;
    for (int k = 0; k < n; k++)
        v = v << 8 | p[k];
    return v;
}

/* One value at s->p; advances past it. */
static int scan_value(scan *s, int depth)
{
    if (!need(s, 1))
        return SCAN_TRUNCATED;
    const u8 *at = s->p;
    u8 c = *s->p++;
    u64 n = 0;        /* elements of a container (a map counts keys and values) */
    iz skip = 0;      /* bytes of a scalar's body */
    int hdr = 0;      /* bytes of a length header */
    bool cont = false;
    if (c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3)
        return SCAN_OK;
    if ((c & 0xe0) == 0xa0) {
        skip = c & 0x1f;
    } else if ((c & 0xf0) == 0x90) {
        n = c & 0x0f;
        cont = true;
    } else if ((c & 0xf0) == 0x80) {
        n = (u64)(c & 0x0f) * 2;
        cont = true;
    } else {
        switch (c) {
        case 0xc4: case 0xd9: hdr = 1; break;                 /* bin8, str8 */
        case 0xc5: case 0xda: hdr = 2; break;                 /* bin16, str16 */
        case 0xc6: case 0xdb: hdr = 4; break;                 /* bin32, str32 */
        case 0xc7: hdr = 1; skip = 1; break;                  /* ext8: length, type */
        case 0xc8: hdr = 2; skip = 1; break;
        case 0xc9: hdr = 4; skip = 1; break;
        case 0xca: skip = 4; break;
        case 0xcb: skip = 8; break;
        case 0xcc: case 0xd0: skip = 1; break;
        case 0xcd: case 0xd1: skip = 2; break;
        case 0xce: case 0xd2: skip = 4; break;
        case 0xcf: case 0xd3: skip = 8; break;
        case 0xd4: skip = 2; break;                           /* fixext 1..16: type + body */
        case 0xd5: skip = 3; break;
        case 0xd6: skip = 5; break;
        case 0xd7: skip = 9; break;
        case 0xd8: skip = 17; break;
        case 0xdc: case 0xde: hdr = 2; cont = true; break;
        case 0xdd: case 0xdf: hdr = 4; cont = true; break;
        default:   /* 0xc1 */
            s->bad = at;
            return SCAN_OPCODE;
        }
        if (hdr) {
            if (!need(s, hdr))
                return SCAN_TRUNCATED;
            u64 len = be(s->p, hdr);
            s->p += hdr;
            if (cont)
                n = (c == 0xde || c == 0xdf) ? len * 2 : len;
            else
                skip += (iz)len;
        }
    }
    if (!cont) {
        if (!need(s, skip))
            return SCAN_TRUNCATED;
        s->p += skip;
        return SCAN_OK;
    }
    if (n == 0)
        return SCAN_OK;
    if (depth >= IO_MP_MAX_DEPTH) {
        s->bad = at;
        return SCAN_DEEP;
    }
    if (n > (u64)(s->end - s->p)) {   /* each element takes a byte at least */
        s->p = s->end;
        s->bad = s->end;
        return SCAN_TRUNCATED;
    }
    for (u64 k = 0; k < n; k++) {
        int rc = scan_value(s, depth + 1);
        if (rc != SCAN_OK)
            return rc;
    }
    return SCAN_OK;
}

static void set_error(agg_decode_error *de, const char *cls, iz off, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void set_error(agg_decode_error *de, const char *cls, iz off, const char *fmt, ...)
{
    if (!de)
        return;
    memset(de, 0, sizeof *de);
    snprintf(de->cls, sizeof de->cls, "%s", cls);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(de->msg, sizeof de->msg, fmt, ap);
    va_end(ap);
    de->full_len = n > 0 ? n : 0;
    de->msg_len = (iz)strlen(de->msg);
    de->off = off;
}

/* The whole payload is one msgpack value, as msgspec's Decoder.decode
 * wants it; its errors in msgspec's words. */
static int check(str payload, agg_decode_error *de)
{
    scan s = {payload.s, payload.s, payload.s + payload.len, NULL};
    int rc = scan_value(&s, 0);
    iz off = (s.bad ? s.bad : s.p) - s.beg;
    switch (rc) {
    case SCAN_TRUNCATED:
        set_error(de, "DecodeError", off, "Input data was truncated");
        return ERR_SYNTAX;
    case SCAN_OPCODE:
        set_error(de, "DecodeError", off, "MessagePack data is malformed: invalid opcode '\\xc1' (byte %td)", off);
        return ERR_SYNTAX;
    case SCAN_DEEP:
        set_error(de, "tally.Unsupported", off, "msgpack nesting deeper than %d levels (byte %td)", IO_MP_MAX_DEPTH,
                  off);
        return ERR_UNSUPPORTED;
    default:
        break;
    }
    if (s.p != s.end) {
        set_error(de, "DecodeError", s.p - s.beg, "MessagePack data is malformed: trailing characters (byte %td)",
                  s.p - s.beg);
        return ERR_SYNTAX;
    }
    return ERR_OK;
}

/* msgpack-c's tree of a checked payload; false when out of memory. */
static bool unpack(str payload, msgpack_unpacked *u)
{
    msgpack_unpacked_init(u);
    size_t off = 0;
    msgpack_unpack_return r = msgpack_unpack_next(u, (const char *)payload.s, (size_t)payload.len, &off);
    return r == MSGPACK_UNPACK_SUCCESS && off == (size_t)payload.len;
}

/* The tree of a checked payload in a zone kept from record to record:
 * msgpack_unpack_next makes a zone each call (two mallocs and their
 * frees a record), msgpack_unpack (which msgpack-c's header calls
 * obsolete, and still exports) takes the caller's. */
enum { ZONE_CHUNK = 64 * 1024 };

static bool unpack_in(str payload, msgpack_zone *z, msgpack_object *o)
{
    size_t off = 0;
    msgpack_unpack_return r = msgpack_unpack((const char *)payload.s, (size_t)payload.len, &off, z, o);
    return r == MSGPACK_UNPACK_SUCCESS && off == (size_t)payload.len;
}

/* ---- frames ------------------------------------------------------------------ */

io_frame_kind io_frame_split(str frame, void (*item)(void *ctx, str payload), void *ctx, char *why, iz why_cap)
{
    if (why && why_cap)
        why[0] = 0;
    if (frame.len >= IO_TOPIC_SIZE && !memcmp(frame.s, batch_topic, IO_TOPIC_SIZE)) {
        str body = str_from(frame.s + IO_TOPIC_SIZE, frame.len - IO_TOPIC_SIZE);
        agg_decode_error de;
        if (check(body, &de) != ERR_OK) {
            if (why)
                snprintf(why, (size_t)why_cap, "%s: %s", de.cls, de.msg);
            return IO_FRAME_BAD_BATCH;
        }
        msgpack_unpacked u;
        if (!unpack(body, &u)) {
            msgpack_unpacked_destroy(&u);
            if (why)
                snprintf(why, (size_t)why_cap, "MemoryError: out of memory");
            return IO_FRAME_BAD_BATCH;
        }
        const msgpack_object *o = &u.data;
        io_frame_kind kind = IO_FRAME_BATCH;
        if (o->type != MSGPACK_OBJECT_ARRAY) {
            if (why)
                snprintf(why, (size_t)why_cap, "ValidationError: Expected `array`, got a msgpack value of type %d",
                         (int)o->type);
            kind = IO_FRAME_BAD_BATCH;
        }
        for (u32 k = 0; kind == IO_FRAME_BATCH && k < o->via.array.size; k++)
            if (o->via.array.ptr[k].type != MSGPACK_OBJECT_BIN) {
                if (why)
                    snprintf(why, (size_t)why_cap, "ValidationError: Expected `bytes`, got another type - at `$[%u]`",
                             k);
                kind = IO_FRAME_BAD_BATCH;
            }
        for (u32 k = 0; kind == IO_FRAME_BATCH && k < o->via.array.size; k++) {
            const msgpack_object_bin *b = &o->via.array.ptr[k].via.bin;
            if (b->size)
                item(ctx, str_from(b->ptr, b->size));
        }
        msgpack_unpacked_destroy(&u);
        return kind;
    }
    if (frame.len <= IO_TOPIC_SIZE)
        return IO_FRAME_SHORT;
    item(ctx, str_from(frame.s + IO_TOPIC_SIZE, frame.len - IO_TOPIC_SIZE));
    return IO_FRAME_RECORD;
}

/* ---- records ------------------------------------------------------------------ */

typedef struct conv {
    buf *out;
    agg_decode_error *de;
    const u8 *beg;
} conv;

static bool put_str(conv *c, const char *p, u32 n, bool key)
{
    str s = str_from(p, n);
    iz bad = utf8_invalid_at(s);
    if (bad >= 0) {
        set_error(c->de, "UnicodeDecodeError", (const u8 *)p - c->beg + bad,
                  "'utf-8' codec can't decode byte 0x%02x in position %td: invalid %s", s.s[bad], bad,
                  key ? "map key" : "string");
        return false;
    }
    json_write_str(c->out, s);
    return true;
}

static bool put_value(conv *c, const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:
        buf_cstr(c->out, "null");
        return true;
    case MSGPACK_OBJECT_BOOLEAN:
        buf_cstr(c->out, o->via.boolean ? "true" : "false");
        return true;
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        buf_u64(c->out, o->via.u64);
        return true;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        buf_i64(c->out, o->via.i64);
        return true;
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        if (!isfinite(o->via.f64)) {
            set_error(c->de, "tally.Unsupported", -1, "a float that is not finite (%g) in a msgpack record",
                      o->via.f64);
            return false;
        }
        pyfmt_float_repr(c->out, o->via.f64);
        return true;
    case MSGPACK_OBJECT_STR:
        return put_str(c, o->via.str.ptr, o->via.str.size, false);
    case MSGPACK_OBJECT_ARRAY:
        buf_byte(c->out, '[');
        for (u32 k = 0; k < o->via.array.size; k++) {
            if (k)
                buf_byte(c->out, ',');
            if (!put_value(c, &o->via.array.ptr[k]))
                return false;
        }
        buf_byte(c->out, ']');
        return true;
    case MSGPACK_OBJECT_MAP:
        buf_byte(c->out, '{');
        for (u32 k = 0; k < o->via.map.size; k++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[k];
            if (k)
                buf_byte(c->out, ',');
            if (kv->key.type != MSGPACK_OBJECT_STR) {
                set_error(c->de, "tally.Unsupported", -1, "a map key that is not a string in a msgpack record");
                return false;
            }
            if (!put_str(c, kv->key.via.str.ptr, kv->key.via.str.size, true))
                return false;
            buf_byte(c->out, ':');
            if (!put_value(c, &kv->val))
                return false;
        }
        buf_byte(c->out, '}');
        return true;
    case MSGPACK_OBJECT_BIN:
    case MSGPACK_OBJECT_EXT:
        set_error(c->de, "tally.Unsupported", -1, "a msgpack %s value in a record (no field of EventRecord holds one)",
                  o->type == MSGPACK_OBJECT_BIN ? "bin" : "ext");
        return false;
    }
    set_error(c->de, "tally.Unsupported", -1, "an unknown msgpack type");
    return false;
}

void io_mp_decoder_free(io_mp_decoder *d)
{
    buf_free(&d->text);
    if (d->zone)
        msgpack_zone_free(d->zone);
    d->zone = NULL;
}

/* io_mp_to_json in d's zone (its own, when d is NULL). */
static int to_json(io_mp_decoder *d, str payload, buf *out, agg_decode_error *de)
{
    int rc = check(payload, de);
    if (rc != ERR_OK)
        return rc;
    msgpack_zone *z = d ? d->zone : NULL;
    if (!z) {
        z = msgpack_zone_new(ZONE_CHUNK);
        if (d)
            d->zone = z;
    }
    msgpack_object o;
    bool ok = z && unpack_in(payload, z, &o);
    if (ok) {
        conv c = {out, de, payload.s};
        ok = put_value(&c, &o);
        if (ok && out->failed) {
            ok = false;
            rc = ERR_NOMEM;
        } else if (!ok) {
            rc = !strcmp(de ? de->cls : "", "UnicodeDecodeError") ? ERR_UTF8 : ERR_UNSUPPORTED;
        }
    } else {
        rc = ERR_NOMEM;
    }
    if (rc == ERR_NOMEM)
        set_error(de, "MemoryError", 0, "out of memory");
    if (z && d)
        msgpack_zone_clear(z);
    else if (z)
        msgpack_zone_free(z);
    return rc;
}

int io_mp_to_json(str payload, buf *out, agg_decode_error *de)
{
    return to_json(NULL, payload, out, de);
}

int io_mp_event_decode(io_mp_decoder *d, arena *a, str payload, i64 now_ns, agg_event *ev, agg_decode_error *de)
{
    memset(ev, 0, sizeof *ev);
    io_mp_decoder local = {0};
    io_mp_decoder *dd = d ? d : &local;
    agg_decode_error scratch;
    dd->text.len = 0;
    dd->text.failed = false;
    int rc = to_json(dd, payload, &dd->text, de ? de : &scratch);
    if (rc == ERR_OK) {
        /* the event's strings point into its text: a copy in the arena */
        u8 *t = arena_alloc_nz(a, 1, 1, dd->text.len + 1);
        if (!t) {
            rc = ERR_NOMEM;
            set_error(de, "MemoryError", 0, "out of memory");
        } else {
            memcpy(t, dd->text.data, (size_t)dd->text.len);
            t[dd->text.len] = 0;
            rc = agg_event_decode_deferred(a, str_from(t, dd->text.len), now_ns, ev, de);
        }
    }
    if (!d)
        io_mp_decoder_free(&local);
    return rc;
}

/* ---- snapshots ------------------------------------------------------------- */

static int to_buf(void *data, const char *p, size_t n)
{
    buf_put(data, p, (iz)n);
    return 0;
}

static void pack_cstr(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    msgpack_pack_str(pk, n);
    msgpack_pack_str_body(pk, s, n);
}

/* A Python int of the snapshot: int64, uint64 above it; past both (no
 * run comes near) the nearest float. */
static void pack_i128(msgpack_packer *pk, agg_i128 v)
{
    if (v >= INT64_MIN && v <= INT64_MAX)
        msgpack_pack_int64(pk, (int64_t)v);
    else if (v > 0 && v <= (agg_i128)UINT64_MAX)
        msgpack_pack_uint64(pk, (uint64_t)v);
    else
        msgpack_pack_double(pk, (double)v);
}

static void pack_series(msgpack_packer *pk, const agg_stat *s, const char *name)
{
    msgpack_pack_array(pk, 10);
    pack_cstr(pk, "series");
    pack_cstr(pk, name);
    msgpack_pack_int64(pk, s->count);
    if (s->is_float)
        msgpack_pack_double(pk, s->total_f);
    else
        pack_i128(pk, s->total_i);
    if (s->minmax_int) {
        msgpack_pack_int64(pk, s->min_i);
        msgpack_pack_int64(pk, s->max_i);
    } else {
        msgpack_pack_double(pk, s->min_f);
        msgpack_pack_double(pk, s->max_f);
    }
    if (s->sum_sq_int)
        pack_i128(pk, s->sum_sq_i);
    else
        msgpack_pack_double(pk, s->sum_sq_f);
    msgpack_pack_map(pk, AGG_NPCT);
    for (int k = 0; k < AGG_NPCT; k++) {
        pack_cstr(pk, agg_pct_keys[k]);
        msgpack_pack_double(pk, s->pct[k]);
    }
    msgpack_pack_array(pk, (size_t)s->nbuckets);
    for (int k = 0; k < s->nbuckets; k++) {
        msgpack_pack_array(pk, 2);
        msgpack_pack_array(pk, 2);
        msgpack_pack_double(pk, s->edges[k]);
        msgpack_pack_double(pk, s->edges[k + 1]);
        msgpack_pack_int64(pk, s->counts[k]);
    }
    if (!s->has_es) {
        msgpack_pack_nil(pk);
        return;
    }
    msgpack_pack_map(pk, AGG_NES);
    for (int k = 0; k < AGG_NES; k++) {
        pack_cstr(pk, agg_pct_keys[k]);
        if (s->es_null[k])
            msgpack_pack_nil(pk);
        else
            msgpack_pack_double(pk, s->es[k]);
    }
}

void io_mp_snapshot(const agg_snapshot *snap, buf *out)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, out, to_buf);
    int nseries = 0;
    for (int k = 0; k < AGG_NSERIES; k++)
        nseries += snap->has[k];
    msgpack_pack_array(&pk, 5);
    msgpack_pack_int64(&pk, snap->counter);
    msgpack_pack_int64(&pk, snap->timestamp_ns);
    pack_cstr(&pk, agg_state_name(snap->state));
    msgpack_pack_int64(&pk, snap->n_pending);
    msgpack_pack_array(&pk, (size_t)(AGG_NCOUNTERS + nseries));
    for (int k = 0; k < AGG_NCOUNTERS; k++) {
        msgpack_pack_array(&pk, 3);
        pack_cstr(&pk, "counter");
        pack_cstr(&pk, agg_counter_name((agg_counter)k));
        pack_i128(&pk, snap->counters[k]);
    }
    for (int k = 0; k < AGG_NSERIES; k++)
        if (snap->has[k])
            pack_series(&pk, &snap->stats[k], agg_series_name((agg_series_id)k));
}

void io_mp_int(buf *out, i64 v)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, out, to_buf);
    msgpack_pack_int64(&pk, v);
}
