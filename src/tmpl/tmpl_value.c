/* tmpl_value.c - the value model of the template evaluator: construction,
 * Python's str()/repr(), equality, ordering, hashing, containment, length,
 * iteration, and Jinja2's sandboxed attribute and item access.
 * See tmpl_value.h for the contracts. */
#define _GNU_SOURCE   /* memmem */
#include "tmpl_value.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/hash.h"
#include "../base/os.h"
#include "../base/utf8.h"
#include "../json/pyfmt.h"
#include "tmpl_ast.h"
#include "tmpl_pystr.h"

/* ---- errors ------------------------------------------------------------ */

_Noreturn void tmpl_raise(tmpl_rt *rt, const char *exc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->msg, sizeof rt->msg, fmt, ap);
    va_end(ap);
    rt->exc = exc;
    rt->code = ERR_TEMPLATE;
    longjmp(*rt->jb, 1);
}

_Noreturn void tmpl_fail(tmpl_rt *rt, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->msg, sizeof rt->msg, fmt, ap);
    va_end(ap);
    rt->exc = NULL;
    rt->code = code;
    longjmp(*rt->jb, 1);
}

void tmpl_clock(tmpl_rt *rt)
{
    if (rt->deadline <= 0) {
        rt->steps = INT64_MAX / 2;   /* no budget: never read the clock */
        return;
    }
    if (os_now() >= rt->deadline)
        tmpl_fail(rt, ERR_LIMIT, "the render ran past its time budget");
    rt->steps = TMPL_CLOCK_STEPS;
}

/* Appends to a buffer, failing the render when it passes the output limit
 * or the heap refuses. */
static void check_buf(tmpl_rt *rt, buf *b)
{
    if (b->failed)
        tmpl_fail(rt, ERR_NOMEM, "out of memory building a string");
    if (b->len > TMPL_MAX_OUTPUT)
        tmpl_fail(rt, ERR_LIMIT, "a string grew past %d bytes", (int)TMPL_MAX_OUTPUT);
}

/* ---- undefined --------------------------------------------------------- */

tv tv_undef_name(tmpl_rt *rt, str name)
{
    tv_undef *u = NEW(rt->a, tv_undef, 1);
    u->key = tv_str(name);
    u->exc = "UndefinedError";
    tv v = {.kind = TV_UNDEF};
    v.u.undef = u;
    return v;
}

tv tv_undef_attr(tmpl_rt *rt, tv obj, tv key)
{
    tv_undef *u = NEW(rt->a, tv_undef, 1);
    u->has_obj = true;
    u->obj = obj;
    u->key = key;
    u->exc = "UndefinedError";
    tv v = {.kind = TV_UNDEF};
    v.u.undef = u;
    return v;
}

tv tv_undef_hint(tmpl_rt *rt, const char *exc, const char *hint)
{
    tv_undef *u = NEW(rt->a, tv_undef, 1);
    u->hint = hint;
    u->exc = exc;
    tv v = {.kind = TV_UNDEF};
    v.u.undef = u;
    return v;
}

/* jinja2.utils.object_type_repr: "None", or "<class name> object" with the
 * module for classes outside builtins. */
static const char *object_type_repr(tv v)
{
    switch ((tv_kind)v.kind) {
    case TV_NONE:   return "None";
    case TV_BOOL:   return "bool object";
    case TV_INT:
    case TV_BIGINT: return "int object";
    case TV_FLOAT:  return "float object";
    case TV_STR:    return v.flags & TVF_SAFE ? "markupsafe.Markup object" : "str object";
    case TV_LIST:
        if (v.flags & TVF_ITER)
            return v.id == TVI_LIST_REVERSE    ? "list_reverseiterator object"
                 : v.id == TVI_REVERSED        ? "reversed object"
                 : v.id == TVI_DICT_REVERSEKEY ? "dict_reversekeyiterator object"
                                               : "generator object";
        return v.flags & TVF_RANGE ? "range object" : "list object";
    case TV_TUPLE:  return v.flags & TVF_GROUP ? "jinja2.filters._GroupTuple object" : "tuple object";
    case TV_DICT:   return "dict object";
    case TV_NS:     return "jinja2.utils.Namespace object";
    case TV_LOOP:   return "jinja2.runtime.LoopContext object";
    case TV_MACRO:  return "jinja2.runtime.Macro object";
    case TV_CYCLER: return "jinja2.utils.Cycler object";
    case TV_JOINER: return "jinja2.utils.Joiner object";
    case TV_METHOD: return "builtin_function_or_method object";
    case TV_FUNC:   return "function object";
    case TV_UNDEF:  return "jinja2.runtime.Undefined object";
    case TV_MISSING: return "jinja2.utils.MissingType object";
    case TV_KIND_COUNT: break;
    }
    return "object";
}

void tv_undef_message(tmpl_rt *rt, buf *b, tv v)
{
    const tv_undef *u = v.u.undef;
    if (!u) {
        buf_cstr(b, "None is undefined");   /* Jinja's nameless Undefined */
        return;
    }
    if (u->hint) {
        buf_cstr(b, u->hint);
        return;
    }
    if (!u->has_obj || u->obj.kind == TV_MISSING) {   /* Jinja: _undefined_obj is missing */
        tv_write_repr(rt, b, u->key);
        buf_cstr(b, " is undefined");
        return;
    }
    if (u->key.kind != TV_STR) {
        buf_cstr(b, object_type_repr(u->obj));
        buf_cstr(b, " has no element ");
        tv_write_repr(rt, b, u->key);
        return;
    }
    buf_byte(b, '\'');
    buf_cstr(b, object_type_repr(u->obj));
    buf_cstr(b, "' has no attribute ");
    tv_write_repr(rt, b, u->key);
}

_Noreturn void tv_undef_raise(tmpl_rt *rt, tv v)
{
    buf b = {0};
    tv_undef_message(rt, &b, v);
    const char *exc = v.u.undef && v.u.undef->exc ? v.u.undef->exc : "UndefinedError";
    if (b.failed) {
        buf_free(&b);
        tmpl_fail(rt, ERR_NOMEM, "out of memory");
    }
    int n = (int)MIN(b.len, (iz)ERR_MSG_MAX - 1);
    char tmp[ERR_MSG_MAX];
    if (n > 0)
        memcpy(tmp, b.data, (size_t)n);
    tmp[n] = 0;
    buf_free(&b);
    tmpl_raise(rt, exc, "%s", tmp);
}

/* ---- construction ------------------------------------------------------ */

tv tv_str_copy(tmpl_rt *rt, str s)
{
    return tv_str_checked(rt, arena_strdup(rt->a, s));
}

static tv list_of_kind(tmpl_rt *rt, iz n, tv_kind k)
{
    tv_list *l = NEW_NZ(rt->a, tv_list, 1);
    *l = (tv_list){.v = n ? NEW(rt->a, tv, n) : NULL, .n = n};
    tv v = {.kind = (u8)k};
    v.u.list = l;
    return v;
}

/* A list of n items the caller sets, all of them (not zeroed). */
static tv list_uninit(tmpl_rt *rt, iz n)
{
    tv_list *l = NEW_NZ(rt->a, tv_list, 1);
    *l = (tv_list){.v = n ? NEW_NZ(rt->a, tv, n) : NULL, .n = n};
    tv v = {.kind = TV_LIST};
    v.u.list = l;
    return v;
}

tv tv_list_new(tmpl_rt *rt, iz n)  { return list_of_kind(rt, n, TV_LIST); }
tv tv_tuple_new(tmpl_rt *rt, iz n) { return list_of_kind(rt, n, TV_TUPLE); }

tv tv_pair(tmpl_rt *rt, tv a, tv b)
{
    tv t = tv_tuple_new(rt, 2);
    t.u.list->v[0] = a;
    t.u.list->v[1] = b;
    return t;
}

/* An array of lists with room for `cap` items. */
static tv_arr *arr_new(tmpl_rt *rt, iz cap)
{
    if (cap > (PTRDIFF_MAX - (iz)sizeof(tv_arr)) / (iz)sizeof(tv))
        tmpl_fail(rt, ERR_NOMEM, "a list of %td items", cap);
    tv_arr *r = arena_alloc_nz(rt->a, (iz)sizeof(tv_arr) + cap * (iz)sizeof(tv), (iz)_Alignof(tv_arr), 1);
    r->used = 0;
    r->cap = cap;
    return r;
}

static void copy_items(tv *dst, const tv *src, iz n)
{
    if (n > 0)
        memcpy(dst, src, sizeof *dst * (size_t)n);
}

tv tv_seq_concat(tmpl_rt *rt, tv a, tv b)
{
    ASSERT(!((a.flags | b.flags) & TVF_RANGE));   /* tv_list.arr is a range's bounds */
    const tv_list *x = a.u.list, *y = b.u.list;
    iz n = x->n + y->n;
    tmpl_work(rt, 1 + y->n);
    tv_list *l = NEW_NZ(rt->a, tv_list, 1);
    *l = (tv_list){0};
    tv_arr *arr = x->arr;
    if (arr && x->v + x->n == arr->items + arr->used && y->n <= arr->cap - arr->used) {
        /* y's items go after x's, where no list looks: x and every other
         * list on the array see what they saw */
        copy_items(arr->items + arr->used, y->v, y->n);
        arr->used += y->n;
        l->v = x->v;
    } else if (n > 0) {
        tmpl_work(rt, x->n);
        arr = arr_new(rt, n < 4 ? 4 : n * 2);
        copy_items(arr->items, x->v, x->n);
        copy_items(arr->items + x->n, y->v, y->n);
        arr->used = n;
        l->v = arr->items;
    } else {
        arr = NULL;
    }
    l->n = n;
    l->arr = arr;
    tv r = {.kind = a.kind};
    r.u.list = l;
    return r;
}

static tv_sbuf *sbuf_of(tv s)
{
    return (tv_sbuf *)((uintptr_t)s.u.s - offsetof(tv_sbuf, bytes));
}

enum { SUM_ROOM_MIN = 64 };   /* sums shorter than this get no room */

tv tv_str_sum(tmpl_rt *rt, const tv *parts, int n, iz total)
{
    tv a = parts[0];
    iz more = total - (iz)a.len;
    ASSERT(more >= 0 && total <= TMPL_MAX_OUTPUT);
    tmpl_work(rt, n + tmpl_bytes_steps(more));
    if (a.id == TVS_ROOM) {
        tv_sbuf *h = sbuf_of(a);
        if (h->used == (iz)a.len && more <= h->cap - h->used) {
            /* the other parts after a's bytes, where no string looks
             * (they may be a's own bytes: those lie before `used`) */
            u8 *p = h->bytes + h->used;
            for (int i = 1; i < n; i++) {
                if (parts[i].len)
                    memcpy(p, parts[i].u.s, parts[i].len);
                p += parts[i].len;
            }
            h->used = total;
            tv r = tv_str(str_from(h->bytes, total));
            r.id = TVS_ROOM;
            return r;
        }
    }
    if (total == 0)
        return tv_str(S(""));
    tmpl_work(rt, tmpl_bytes_steps((iz)a.len));
    u8 *p;
    tv r;
    if (a.id && total >= SUM_ROOM_MIN) {
        /* a sum grown again: with room, so that the next one appends */
        iz cap = MIN(total * 2, (iz)TMPL_MAX_OUTPUT);
        tv_sbuf *h = arena_alloc_nz(rt->a, (iz)sizeof(tv_sbuf) + cap, (iz)_Alignof(tv_sbuf), 1);
        h->used = total;
        h->cap = cap;
        p = h->bytes;
        r = tv_str(str_from(p, total));
        r.id = TVS_ROOM;
    } else {
        p = NEW_NZ(rt->a, u8, total);
        r = tv_str(str_from(p, total));
        r.id = TVS_SUM;
    }
    for (int i = 0; i < n; i++) {
        if (parts[i].len)
            memcpy(p, parts[i].u.s, parts[i].len);
        p += parts[i].len;
    }
    return r;
}

tv tv_dict_new(tmpl_rt *rt, iz cap)
{
    tv_dict *d = NEW_NZ(rt->a, tv_dict, 1);
    *d = (tv_dict){0};
    if (cap > 0) {
        d->ent = NEW_NZ(rt->a, tv_entry, cap);
        d->cap = cap;
    }
    tv v = {.kind = TV_DICT};
    v.u.dict = d;
    return v;
}

/* Dicts of up to this many entries are searched linearly. */
enum { DICT_LINEAR = 8 };

static u64 hash_i64(i64 i) { return hash_mix((u64)i ^ 0x9e3779b97f4a7c15ull); }

/* Values nested deeper than this are refused where Python would raise
 * RecursionError (comparisons, hashes; repr and json.dumps have their own
 * checks at PYFMT_MAX_DEPTH): a template can nest a list a million deep in a
 * loop, and recursing that far would overflow the C stack. */
enum { TV_MAX_DEPTH = PYFMT_MAX_DEPTH };

/* A hash for a key that never raises: unhashables give 0 (callers that
 * need the TypeError use tv_hash). Equal keys hash equal across int,
 * float and bool, as Python requires. Past TV_MAX_DEPTH the items are not
 * looked at (no key that deep gets into a dict: tv_hash refuses it). */
static u64 key_hash_at(tv v, int depth)
{
    switch ((tv_kind)v.kind) {
    case TV_STR:    return hash_str(tv_s(v));
    case TV_INT:    return hash_i64(v.u.i);
    case TV_BOOL:   return hash_i64(v.u.b);
    case TV_FLOAT: {
        double f = v.u.f;
        if (f == floor(f) && fabs(f) < 9.2e18)
            return hash_i64((i64)f);
        u64 bits;
        memcpy(&bits, &f, 8);
        return hash_mix(bits);
    }
    case TV_BIGINT: return hash_str(tv_s(v)) ^ 0x5bd1e995u;
    case TV_NONE:   return 0x1234567u;
    case TV_UNDEF:  return 0x7654321u;
    case TV_TUPLE: {
        u64 h = 0x345678u;
        for (iz i = 0; i < v.u.list->n && depth < TV_MAX_DEPTH; i++)
            h = hash_mix(h ^ key_hash_at(v.u.list->v[i], depth + 1));
        return h;
    }
    default:        return hash_mix((u64)(uintptr_t)v.u.list);
    }
}

static u64 key_hash(tv v) { return key_hash_at(v, 0); }

/* tv_hash at `depth`: the TypeError of an unhashable item anywhere in v. */
static u64 hash_at(tmpl_rt *rt, tv v, int depth)
{
    if (depth > TV_MAX_DEPTH)
        tmpl_raise(rt, "RecursionError", "maximum recursion depth exceeded while calling a Python object");
    switch ((tv_kind)v.kind) {
    case TV_LIST:
        if (v.flags & TVF_ITER)
            break;   /* iterators hash by identity */
        if (v.flags & TVF_RANGE) {   /* equal ranges are the same sequence */
            u64 h = hash_mix((u64)v.u.list->n);
            if (v.u.list->n)
                h = hash_mix(h ^ (u64)v.u.list->v[0].u.i);
            if (v.u.list->n > 1)
                h = hash_mix(h ^ (u64)v.u.list->range[2]);
            return h;
        }
        tmpl_raise(rt, "TypeError", "unhashable type: '%s'", tv_type_name(v));
    case TV_DICT:
        tmpl_raise(rt, "TypeError", "unhashable type: '%s'", tv_type_name(v));
    case TV_TUPLE:
        for (iz i = 0; i < v.u.list->n; i++)
            hash_at(rt, v.u.list->v[i], depth + 1);
        break;
    default:
        break;
    }
    return key_hash(v);
}

u64 tv_hash(tmpl_rt *rt, tv v) { return hash_at(rt, v, 0); }

/* Keys of a small dict are compared directly; hashes are computed only
 * when the dict grows past DICT_LINEAR and gets its index (tv_entry.hash is
 * meaningless before that). */
static void dict_index_build(tmpl_rt *rt, tv_dict *d, iz icap)
{
    if (!d->index)
        for (iz k = 0; k < d->cnt; k++)
            d->ent[k].hash = key_hash(d->ent[k].key);
    d->index = NEW(rt->a, i32, icap);
    d->icap = icap;
    for (iz k = 0; k < d->cnt; k++) {
        iz j = (iz)(d->ent[k].hash & (u64)(icap - 1));
        while (d->index[j])
            j = (j + 1) & (icap - 1);
        d->index[j] = (i32)(k + 1);
    }
}

/* The position of key in d, or -1. A str key is matched by its bytes. */
static iz dict_find(const tv_dict *d, tv key)
{
    if (!d->index) {
        if (key.kind == TV_STR) {
            for (iz k = 0; k < d->cnt; k++) {
                const tv *ek = &d->ent[k].key;
                if (ek->kind == TV_STR && str_eq(tv_s(*ek), tv_s(key)))
                    return k;
            }
            return -1;
        }
        for (iz k = 0; k < d->cnt; k++)
            if (tv_eq(d->ent[k].key, key))
                return k;
        return -1;
    }
    u64 h = key_hash(key);
    for (iz j = (iz)(h & (u64)(d->icap - 1));; j = (j + 1) & (d->icap - 1)) {
        i32 slot = d->index[j];
        if (!slot)
            return -1;
        const tv_entry *en = &d->ent[slot - 1];
        if (en->hash == h && tv_eq(en->key, key))
            return slot - 1;
    }
}

/* Appends a key known to be absent. */
static void dict_append(tmpl_rt *rt, tv_dict *d, tv key, tv val)
{
    if (d->cnt == d->cap)
        d->ent = arena_grow(rt->a, d->ent, (iz)sizeof(tv_entry), (iz)_Alignof(tv_entry),
                          d->cnt, &d->cap, d->cnt + 1);
    d->ent[d->cnt] = (tv_entry){key, val, 0};
    d->cnt++;
    if (d->index) {
        u64 h = key_hash(key);
        d->ent[d->cnt - 1].hash = h;
        if (d->cnt * 2 > d->icap) {
            dict_index_build(rt, d, d->icap * 2);
        } else {
            iz j = (iz)(h & (u64)(d->icap - 1));
            while (d->index[j])
                j = (j + 1) & (d->icap - 1);
            d->index[j] = (i32)d->cnt;
        }
    } else if (d->cnt > DICT_LINEAR) {
        iz icap = 32;
        while (icap < d->cnt * 4)
            icap *= 2;
        dict_index_build(rt, d, icap);
    }
}

void tv_dict_set(tmpl_rt *rt, tv_dict *d, tv key, tv val)
{
    ASSERT(!d->lazy);   /* only the template's own dicts and namespaces change */
    if (key.kind != TV_STR)
        tv_hash(rt, key);   /* TypeError for unhashable keys */
    iz k = dict_find(d, key);
    if (k >= 0) {
        d->ent[k].val = val;
        return;
    }
    dict_append(rt, d, key, val);
}

bool tv_dict_get(const tv_dict *d, tv key, tv *out)
{
    switch ((tv_kind)key.kind) {
    case TV_LIST:
        if (!(key.flags & (TVF_ITER | TVF_RANGE)))   /* iterators and ranges hash */
            return false;
        break;
    case TV_DICT:
        return false;
    default:
        break;
    }
    if (d->lazy)   /* a context's keys are all str, and no other kind equals a str */
        return key.kind == TV_STR && tv_dict_lazy_get(d, tv_s(key), out);
    iz k = dict_find(d, key);
    if (k < 0)
        return false;
    *out = d->ent[k].val;
    return true;
}

static NOINLINE tv json_bigint(tmpl_rt *rt, const json *j)
{
    buf b = {0};
    bool ok = pyfmt_int_text(&b, j->u.num);
    tv v = {.kind = TV_BIGINT};
    if (ok && !b.failed)
        tv_set_s(&v, arena_strdup(rt->a, buf_view(&b)));
    buf_free(&b);
    if (!ok)
        tmpl_fail(rt, ERR_LIMIT, "an integer of more digits than Python converts");
    return v;
}

static tv from_json(tmpl_rt *rt, const json *j, int depth);

/* A member or item at `depth`: scalars here, containers by from_json. */
static ALWAYS_INLINE tv from_json_at(tmpl_rt *rt, const json *j, int depth)
{
    switch ((json_type)j->type) {
    case JSON_NULL:  return tv_none();
    case JSON_BOOL:  return tv_bool(j->u.b);
    case JSON_FLOAT: return tv_float(j->u.f);
    case JSON_STR:   return tv_str_checked(rt, j->u.s);   /* nothing bounds the context's strings */
    case JSON_INT:   return j->big ? json_bigint(rt, j) : tv_int(j->u.i);
    case JSON_ARR:
    case JSON_OBJ:   return from_json(rt, j, depth);
    }
    return tv_none();
}

/* Prefetching while a list of objects (a chat history) is converted: the
 * conversion waits on memory far more than it computes, so it asks for
 * the memory of the items ahead of the one it converts: their members, and
 * their keys and string values (at most PREFETCH_MEMBERS members and the
 * first PREFETCH_STR bytes of a string). The render that follows finds a
 * history of up to several hundred KB in cache, the message texts it
 * copies to the output among it. */
/* PREFETCH_STR: 1 KB against 4 KB, the render of the histories that fail
 * early (most of `agentic`) 6% faster cold, the others the same (A/B).
 * Since the chat layer streams the history's whole tree in first
 * (json_prefetch_tree: the escaped strings, which the parser copies
 * there, are 94% of the agentic histories' text), 256 bytes
 * (docs/performance.md, session 10). */
enum { PREFETCH_AHEAD = 4, PREFETCH_MEMBERS = 8, PREFETCH_STR = 256 };

static ALWAYS_INLINE void prefetch_members(const json *it)
{
    if (it->type != JSON_OBJ)
        return;
    const json_member *m = it->u.obj.members;
    iz n = it->u.obj.n < PREFETCH_MEMBERS ? it->u.obj.n : PREFETCH_MEMBERS;
    for (iz q = 0; q < n; q++)   /* a member (48 bytes) may straddle two lines */
        PREFETCH((const char *)(m + q) + sizeof *m - 1);
    PREFETCH(m);
}

static ALWAYS_INLINE void prefetch_member_data(const json *it)
{
    if (it->type != JSON_OBJ)
        return;
    const json_member *m = it->u.obj.members;
    iz n = it->u.obj.n < PREFETCH_MEMBERS ? it->u.obj.n : PREFETCH_MEMBERS;
    for (iz q = 0; q < n; q++) {
        PREFETCH(m[q].key.s);
        if (m[q].val.type == JSON_STR) {   /* the render copies it out later */
            iz len = m[q].val.u.s.len < PREFETCH_STR ? m[q].val.u.s.len : PREFETCH_STR;
            for (iz o = 0; o < len; o += 64)
                PREFETCH(m[q].val.u.s.s + o);
        }
        else if (m[q].val.type == JSON_ARR)
            PREFETCH(m[q].val.u.arr.items);
    }
}

/* Fails when a container at `depth` has members past the deepest level
 * (any value below PYFMT_MAX_DEPTH). */
static void check_depth(tmpl_rt *rt, int depth, iz n)
{
    if (depth > PYFMT_MAX_DEPTH || (depth == PYFMT_MAX_DEPTH && n > 0))
        tmpl_fail(rt, ERR_LIMIT, "JSON nested deeper than %d", PYFMT_MAX_DEPTH);
}

static tv from_json(tmpl_rt *rt, const json *j, int depth)
{
    switch ((json_type)j->type) {
    case JSON_ARR: {
        iz n = j->u.arr.n;
        check_depth(rt, depth, n);
        tv v = list_uninit(rt, n);   /* every item set below */
        const json *items = j->u.arr.items;
        for (iz i = 0; i < n; i++) {
            /* a long history's tree and text are far out of cache: the
             * members of the item PREFETCH_AHEAD on, and the keys and
             * values of the next one (its members are there by now) */
            if (i + PREFETCH_AHEAD < n)
                prefetch_members(&items[i + PREFETCH_AHEAD]);
            if (i + 1 < n)
                prefetch_member_data(&items[i + 1]);
            v.u.list->v[i] = from_json_at(rt, &items[i], depth + 1);
        }
        v.u.list->origin = j;
        return v;
    }
    case JSON_OBJ: {
        /* lazy: its members are looked up in the JSON until something
         * needs the entries (tv_dict_convert) */
        check_depth(rt, depth, j->u.obj.n);
        tv_dict *d = NEW_NZ(rt->a, tv_dict, 1);
        *d = (tv_dict){.origin = j, .lazy = j, .rt = rt, .depth = depth};
        tv v = {.kind = TV_DICT};
        v.u.dict = d;
        return v;
    }
    default:
        return from_json_at(rt, j, depth);
    }
}

/* The value of member i of a lazy dict: a container converted once. */
static tv lazy_member(tv_dict *d, iz i)
{
    const json *j = &d->lazy->u.obj.members[i].val;
    if (j->type != JSON_ARR && j->type != JSON_OBJ && !(j->type == JSON_INT && j->big))
        return from_json_at(d->rt, j, d->depth + 1);
    if (d->memo && d->memo[i].kind != TV_UNDEF)
        return d->memo[i];
    /* new values stored into an object made earlier (tmpl_rt.escapes) */
    d->rt->escapes++;
    if (!d->memo) {
        iz n = d->lazy->u.obj.n;
        d->memo = NEW_NZ(d->rt->a, tv, n);
        for (iz k = 0; k < n; k++)
            d->memo[k] = tv_undef_plain();   /* not yet */
    }
    return d->memo[i] = from_json_at(d->rt, j, d->depth + 1);
}

/* A lazy dict is logically immutable: converting it only caches what it
 * already is, so the const of its readers is cast away here, and only
 * here. */
static tv_dict *lazy_self(const tv_dict *d) { return (tv_dict *)(uintptr_t)d; }

tv tv_dict_lazy_member(const tv_dict *d, iz i)
{
    return lazy_member(lazy_self(d), i);
}

void tv_dict_convert(const tv_dict *cd)
{
    tv_dict *d = lazy_self(cd);
    const json *j = d->lazy;
    tmpl_rt *rt = d->rt;
    /* A repeated key keeps its first place and takes its last value, as
     * json.loads builds the dict; pyfmt_json_dumps writes a tree with
     * repeated keys the same way, so the tree stays the origin. */
    iz n = j->u.obj.n;
    rt->escapes++;   /* new entries stored into an object made earlier */
    d->ent = n ? NEW_NZ(rt->a, tv_entry, n) : NULL;
    d->cap = n;
    d->cnt = 0;
    for (iz i = 0; i < n; i++) {
        const json_member *m = &j->u.obj.members[i];
        tv key = tv_str_checked(rt, m->key), val = lazy_member(d, i);
        if (!d->index && d->cnt < DICT_LINEAR) {   /* dict_find and dict_append's small case */
            iz k = 0;
            while (k < d->cnt && !str_eq(tv_s(d->ent[k].key), m->key))
                k++;
            if (k < d->cnt)
                d->ent[k].val = val;
            else
                d->ent[d->cnt++] = (tv_entry){key, val, 0};
            continue;
        }
        iz k = dict_find(d, key);
        if (k >= 0)
            d->ent[k].val = val;
        else
            dict_append(rt, d, key, val);
    }
    d->lazy = NULL;
}

tv tv_from_json(tmpl_rt *rt, const json *j)
{
    return from_json(rt, j, 0);
}

/* ---- protocols --------------------------------------------------------- */

const char *tv_type_name(tv v)
{
    switch ((tv_kind)v.kind) {
    case TV_UNDEF:  return "Undefined";
    case TV_NONE:   return "NoneType";
    case TV_BOOL:   return "bool";
    case TV_INT:
    case TV_BIGINT: return "int";
    case TV_FLOAT:  return "float";
    case TV_STR:    return v.flags & TVF_SAFE ? "Markup" : "str";
    case TV_LIST:
        if (v.flags & TVF_ITER)
            return v.id == TVI_LIST_REVERSE    ? "list_reverseiterator"
                 : v.id == TVI_REVERSED        ? "reversed"
                 : v.id == TVI_DICT_REVERSEKEY ? "dict_reversekeyiterator"
                                               : "generator";
        return v.flags & TVF_RANGE ? "range" : "list";
    case TV_TUPLE:  return v.flags & TVF_GROUP ? "_GroupTuple" : "tuple";
    case TV_DICT:   return "dict";
    case TV_NS:     return "Namespace";
    case TV_LOOP:   return "LoopContext";
    case TV_MACRO:  return "Macro";
    case TV_FUNC:
        switch (v.id) {
        /* the sandbox's range is a function (safe_range); the others are classes */
        case TVFN_DICT: case TVFN_CYCLER: case TVFN_JOINER: case TVFN_NAMESPACE: return "type";
        default: return "function";
        }
    case TV_METHOD:
        return v.u.method->self.kind == TV_LOOP || v.u.method->self.kind == TV_CYCLER
                   ? "method" : "builtin_function_or_method";
    case TV_CYCLER: return "Cycler";
    case TV_JOINER: return "Joiner";
    case TV_MISSING: return "MissingType";
    case TV_KIND_COUNT: break;
    }
    return "object";
}

void tv_concat_error(tmpl_rt *rt, tv a, tv b)
{
    if (a.kind == TV_STR && (a.flags & TVF_SAFE))
        tmpl_raise(rt, "TypeError", "unsupported operand type(s) for +: 'Markup' and '%s'", tv_type_name(b));
    const char *t = a.kind == TV_STR ? "str" : a.kind == TV_LIST ? "list" : "tuple";
    tmpl_raise(rt, "TypeError", "can only concatenate %s (not \"%s\") to %s", t, tv_type_name(b), t);
}

/* The containers being written, outermost first (Python's Py_ReprEnter):
 * one met again inside itself is written "[...]", "(...)" or "{...}". */
typedef struct repr_open { const void *p[PYFMT_MAX_DEPTH + 2]; } repr_open;

static void write_seq(tmpl_rt *rt, buf *b, const tv_list *l, bool tuple, int depth, repr_open *o);
static void write_dict(tmpl_rt *rt, buf *b, const tv_dict *d, int depth, repr_open *o);

static bool repr_entered(repr_open *o, const void *p, int depth, buf *b, const char *again)
{
    for (int i = 0; i < depth; i++)
        if (o->p[i] == p) {
            buf_cstr(b, again);
            return true;
        }
    o->p[depth] = p;
    return false;
}

static void write_repr_depth(tmpl_rt *rt, buf *b, tv v, int depth, repr_open *o)
{
    if (depth > PYFMT_MAX_DEPTH)
        tmpl_raise(rt, "RecursionError", "maximum recursion depth exceeded while getting the repr of an object");
    tmpl_work(rt, 1);
    switch ((tv_kind)v.kind) {
    case TV_STR: {
        tmpl_work(rt, tv_steps(v));
        arena_mark m = arena_save(rt->a);
        if (v.flags & TVF_SAFE)
            buf_cstr(b, "Markup(");
        buf_str(b, pystr_repr(rt->a, tv_s(v)));
        if (v.flags & TVF_SAFE)
            buf_byte(b, ')');
        arena_restore(rt->a, m);
        break;
    }
    case TV_UNDEF:
        /* Undefined.__repr__ */
        buf_cstr(b, "Undefined");
        break;
    case TV_LIST:
    case TV_TUPLE:
        if (v.flags & TVF_ITER)
            tmpl_fail(rt, ERR_UNSUPPORTED, "printing a %s object (Python prints its address)",
                      tv_type_name(v));
        if (v.kind == TV_LIST && (v.flags & TVF_RANGE)) {
            const i64 *r = v.u.list->range;
            if (r[2] == 1)
                buf_printf(b, "range(%lld, %lld)", (long long)r[0], (long long)r[1]);
            else
                buf_printf(b, "range(%lld, %lld, %lld)", (long long)r[0], (long long)r[1], (long long)r[2]);
            break;
        }
        write_seq(rt, b, v.u.list, v.kind == TV_TUPLE, depth, o);
        break;
    case TV_DICT:
        write_dict(rt, b, v.u.dict, depth, o);
        break;
    case TV_NS:
        buf_cstr(b, "<Namespace ");
        write_dict(rt, b, v.u.dict, depth, o);
        buf_byte(b, '>');
        break;
    case TV_LOOP:
        buf_printf(b, "<LoopContext %lld/%lld>", (long long)(v.u.loop->i + 1),
                   (long long)tv_loop_length(rt, v.u.loop));
        break;
    case TV_MACRO:
        buf_cstr(b, "<Macro ");
        if (v.u.macro->name.len) {
            arena_mark m = arena_save(rt->a);
            buf_str(b, pystr_repr(rt->a, v.u.macro->name));
            arena_restore(rt->a, m);
        } else {
            buf_cstr(b, "anonymous");
        }
        buf_byte(b, '>');
        break;
    case TV_MISSING:
        buf_cstr(b, "missing");   /* its __repr__, which str() uses too */
        break;
    case TV_FUNC:
    case TV_METHOD:
    case TV_CYCLER:
    case TV_JOINER:
        /* Python prints an object address here. */
        tmpl_fail(rt, ERR_UNSUPPORTED, "printing a %s object (Python prints its address)",
                  tv_type_name(v));
    default:
        tv_write_str(rt, b, v);
        return;
    }
    check_buf(rt, b);
}

static void write_seq(tmpl_rt *rt, buf *b, const tv_list *l, bool tuple, int depth, repr_open *o)
{
    if (repr_entered(o, l, depth, b, tuple ? "(...)" : "[...]"))
        return;
    buf_byte(b, tuple ? '(' : '[');
    for (iz i = 0; i < l->n; i++) {
        if (i)
            buf_cstr(b, ", ");
        write_repr_depth(rt, b, l->v[i], depth + 1, o);
    }
    if (tuple && l->n == 1)
        buf_byte(b, ',');
    buf_byte(b, tuple ? ')' : ']');
}

static void write_dict(tmpl_rt *rt, buf *b, const tv_dict *d, int depth, repr_open *o)
{
    if (repr_entered(o, d, depth, b, "{...}"))
        return;
    buf_byte(b, '{');
    for (iz i = 0; i < tv_dict_n(d); i++) {
        if (i)
            buf_cstr(b, ", ");
        write_repr_depth(rt, b, tv_dict_e(d)[i].key, depth + 1, o);
        buf_cstr(b, ": ");
        write_repr_depth(rt, b, tv_dict_e(d)[i].val, depth + 1, o);
    }
    buf_byte(b, '}');
}

void tv_write_repr(tmpl_rt *rt, buf *b, tv v)
{
    repr_open o;
    write_repr_depth(rt, b, v, 0, &o);
}

void tv_write_str(tmpl_rt *rt, buf *b, tv v)
{
    switch ((tv_kind)v.kind) {
    case TV_UNDEF:  return;
    case TV_NONE:   buf_cstr(b, "None"); break;
    case TV_BOOL:   buf_cstr(b, v.u.b ? "True" : "False"); break;
    case TV_INT:    pyfmt_int(b, v.u.i); break;
    case TV_BIGINT: buf_str(b, tv_s(v)); break;
    case TV_FLOAT:  pyfmt_float_repr(b, v.u.f); break;
    case TV_STR:    buf_str(b, tv_s(v)); break;
    default:        tv_write_repr(rt, b, v); return;
    }
    check_buf(rt, b);
}

tv tv_str_from_buf(tmpl_rt *rt, const buf *b)
{
    if (b->failed)
        tmpl_fail(rt, ERR_NOMEM, "out of memory building a string");
    tmpl_work(rt, tmpl_bytes_steps(b->len));
    return tv_str_checked(rt, arena_strdup(rt->a, buf_view(b)));
}

tv tv_to_str(tmpl_rt *rt, tv v)
{
    if (v.kind == TV_STR)
        return v;
    if (v.kind == TV_UNDEF)
        return tv_str(S(""));
    if (v.kind == TV_BIGINT)
        return tv_str(tv_s(v));
    iz mark = rt->tmp.len;
    tv_write_str(rt, &rt->tmp, v);
    tv r = rt->tmp.len == mark ? tv_str(S(""))
                               : tv_str(arena_strdup(rt->a, str_from(rt->tmp.data + mark, rt->tmp.len - mark)));
    rt->tmp.len = mark;
    return r;
}

/* ---- comparison -------------------------------------------------------- */

/* Sign of a canonical decimal big int, and comparison of two of them. */
static int big_cmp(str a, str b)
{
    bool na = a.len && a.s[0] == '-', nb = b.len && b.s[0] == '-';
    if (na != nb)
        return na ? -1 : 1;
    int sign = na ? -1 : 1;
    if (a.len != b.len)
        return a.len < b.len ? -sign : sign;
    int c = memcmp(a.s, b.s, (size_t)a.len);
    return c < 0 ? -sign : c > 0 ? sign : 0;
}

/* Numeric comparison of two numbers; *ok false when not both numbers. */
static int num_cmp(tv a, tv b, bool *ok)
{
    *ok = true;
    if (a.kind == TV_BIGINT || b.kind == TV_BIGINT) {
        if (a.kind == TV_BIGINT && b.kind == TV_BIGINT)
            return big_cmp(tv_s(a), tv_s(b));
        tv big = a.kind == TV_BIGINT ? a : b, other = a.kind == TV_BIGINT ? b : a;
        str digits = tv_s(big);
        int sign = digits.s[0] == '-' ? -1 : 1;
        int r = sign;   /* |big| exceeds every i64; floats compare by magnitude below */
        if (other.kind == TV_FLOAT) {
            char tmp[400];
            iz n = MIN(digits.len, (iz)sizeof tmp - 1);
            memcpy(tmp, digits.s, (size_t)n);
            tmp[n] = 0;
            double bf = strtod(tmp, NULL);
            double of = other.u.f;
            if (isnan(of)) {
                *ok = false;   /* unordered: every comparison false */
                return 0;
            }
            r = bf < of ? -1 : bf > of ? 1 : 0;
        }
        return a.kind == TV_BIGINT ? r : -r;
    }
    if (a.kind == TV_FLOAT || b.kind == TV_FLOAT) {
        double x = a.kind == TV_FLOAT ? a.u.f : (double)(a.kind == TV_BOOL ? a.u.b : a.u.i);
        double y = b.kind == TV_FLOAT ? b.u.f : (double)(b.kind == TV_BOOL ? b.u.b : b.u.i);
        if (isnan(x) || isnan(y)) {
            *ok = false;   /* unordered: every comparison false */
            return 0;
        }
        return x < y ? -1 : x > y ? 1 : 0;
    }
    i64 x = a.kind == TV_BOOL ? a.u.b : a.u.i;
    i64 y = b.kind == TV_BOOL ? b.u.b : b.u.i;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* a == b; with rt, the steps counted (the bytes and items compared) and
 * RecursionError past TV_MAX_DEPTH; without, false there (tv_eq compares
 * dict keys and literals, none of which is nested that deep). */
static bool eq(tmpl_rt *rt, tv a, tv b, int depth)
{
    if (depth > TV_MAX_DEPTH) {
        if (rt)
            tmpl_raise(rt, "RecursionError", "maximum recursion depth exceeded in comparison");
        return false;
    }
    if (tv_is_number(a) && tv_is_number(b)) {
        bool ok;
        int c = num_cmp(a, b, &ok);
        return ok && c == 0;
    }
    if (a.kind != b.kind)
        return false;
    switch ((tv_kind)a.kind) {
    case TV_UNDEF:
    case TV_NONE:
        return true;
    case TV_STR:
        if (a.len != b.len)
            return false;
        if (a.u.s == b.u.s)
            return true;   /* the same bytes: a list repeated with * holds them many times */
        if (rt)
            tmpl_work(rt, tmpl_bytes_steps((iz)a.len));
        return str_eq(tv_s(a), tv_s(b));
    case TV_LIST:
    case TV_TUPLE:
        if (a.u.list == b.u.list)
            return (a.flags & TVF_RANGE) == (b.flags & TVF_RANGE);
        if ((a.flags | b.flags) & TVF_ITER)
            return false;   /* iterators are equal only to themselves */
        if ((a.flags & TVF_RANGE) != (b.flags & TVF_RANGE))
            return false;   /* a range equals ranges (of the same items) only */
        if (a.u.list->n != b.u.list->n)
            return false;
        if (rt)
            tmpl_work(rt, a.u.list->n);
        for (iz i = 0; i < a.u.list->n; i++)
            if (!eq(rt, a.u.list->v[i], b.u.list->v[i], depth + 1))
                return false;
        return true;
    case TV_DICT:
        if (a.u.dict == b.u.dict)
            return true;
        if (tv_dict_n(a.u.dict) != tv_dict_n(b.u.dict))
            return false;
        if (rt)
            tmpl_work(rt, tv_dict_n(a.u.dict));
        for (iz i = 0; i < tv_dict_n(a.u.dict); i++) {
            tv other;
            if (!tv_dict_get(b.u.dict, tv_dict_e(a.u.dict)[i].key, &other) ||
                !eq(rt, tv_dict_e(a.u.dict)[i].val, other, depth + 1))
                return false;
        }
        return true;
    case TV_FUNC:
        return a.id == b.id;
    case TV_METHOD:
        return a.u.method->meth == b.u.method->meth && eq(rt, a.u.method->self, b.u.method->self, depth + 1);
    default:
        return a.u.list == b.u.list;   /* identity of the pointed-to object */
    }
}

bool tv_eq(tv a, tv b) { return eq(NULL, a, b, 0); }
bool tv_equal(tmpl_rt *rt, tv a, tv b) { return eq(rt, a, b, 0); }

static const char *op_text(int op)
{
    switch (op) {
    case TMPL_OP_LT: return "<";
    case TMPL_OP_LE: return "<=";
    case TMPL_OP_GT: return ">";
    case TMPL_OP_GE: return ">=";
    default: return "<";
    }
}

/* <0, 0, >0, or 2 for "unordered" (NaN); raises TypeError for types Python
 * does not order. `op` only names the operator in the message. */
static int order(tmpl_rt *rt, int op, tv a, tv b, int depth)
{
    if (depth > TV_MAX_DEPTH)
        tmpl_raise(rt, "RecursionError", "maximum recursion depth exceeded in comparison");
    if (tv_is_number(a) && tv_is_number(b)) {
        bool ok;
        int c = num_cmp(a, b, &ok);
        return ok ? c : 2;
    }
    if (a.kind == TV_UNDEF)
        tv_undef_raise(rt, a);
    if (b.kind == TV_UNDEF)
        tv_undef_raise(rt, b);
    if (a.kind == TV_STR && b.kind == TV_STR) {
        str x = tv_s(a), y = tv_s(b);
        iz n = MIN(x.len, y.len);
        tmpl_work(rt, tmpl_bytes_steps(n));
        int c = n ? memcmp(x.s, y.s, (size_t)n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return x.len < y.len ? -1 : x.len > y.len ? 1 : 0;
    }
    if ((a.kind == TV_LIST || a.kind == TV_TUPLE) && a.kind == b.kind &&
        !((a.flags | b.flags) & (TVF_ITER | TVF_RANGE))) {   /* ranges do not order */
        const tv_list *x = a.u.list, *y = b.u.list;
        tmpl_work(rt, MIN(x->n, y->n));
        for (iz i = 0; i < x->n && i < y->n; i++) {
            if (eq(rt, x->v[i], y->v[i], depth + 1))
                continue;
            return order(rt, op, x->v[i], y->v[i], depth + 1);
        }
        return x->n < y->n ? -1 : x->n > y->n ? 1 : 0;
    }
    tmpl_raise(rt, "TypeError", "'%s' not supported between instances of '%s' and '%s'",
               op_text(op), tv_type_name(a), tv_type_name(b));
}

bool tv_compare(tmpl_rt *rt, int op, tv a, tv b)
{
    int c = order(rt, op, a, b, 0);
    if (c == 2)
        return false;
    switch (op) {
    case TMPL_OP_LT: return c < 0;
    case TMPL_OP_LE: return c <= 0;
    case TMPL_OP_GT: return c > 0;
    case TMPL_OP_GE: return c >= 0;
    default: return false;
    }
}

int tv_cmp3(tmpl_rt *rt, tv a, tv b)
{
    int c = order(rt, TMPL_OP_LT, a, b, 0);
    return c == 2 ? 0 : c;
}

bool tv_contains(tmpl_rt *rt, tv hay, tv needle)
{
    switch ((tv_kind)hay.kind) {
    case TV_STR: {
        if (needle.kind != TV_STR)   /* an Undefined too: str.__contains__ checks the type first */
            tmpl_raise(rt, "TypeError", "'in <string>' requires string as left operand, not %s",
                       tv_type_name(needle));
        /* a byte search: valid UTF-8 matches only at character starts */
        str h = tv_s(hay), sub = tv_s(needle);
        if (sub.len == 0)
            return true;
        tmpl_work(rt, tmpl_bytes_steps(h.len));
        return sub.len <= h.len && memmem(h.s, (size_t)h.len, sub.s, (size_t)sub.len) != NULL;
    }
    case TV_LIST:
    case TV_TUPLE: {
        iz n;
        const tv *items = tv_iterate(rt, hay, &n);   /* consumes an iterator */
        tmpl_work(rt, n);
        for (iz i = 0; i < n; i++)
            if (tv_equal(rt, items[i], needle))
                return true;
        return false;
    }
    case TV_DICT: {
        if (needle.kind != TV_STR)
            tv_hash(rt, needle);   /* TypeError for an unhashable needle */
        tv out;
        return tv_dict_get(hay.u.dict, needle, &out);
    }
    case TV_UNDEF:
        /* Undefined iterates as empty: `x in undefined` is false. */
        return false;
    default:
        tmpl_raise(rt, "TypeError", "argument of type '%s' is not iterable", tv_type_name(hay));
    }
}

iz tv_len(tmpl_rt *rt, tv v)
{
    switch ((tv_kind)v.kind) {
    case TV_STR:   return pystr_len(tv_s(v));
    case TV_LIST:
        if (v.flags & TVF_ITER)
            tmpl_raise(rt, "TypeError", "object of type '%s' has no len()", tv_type_name(v));
        return v.u.list->n;
    case TV_TUPLE: return v.u.list->n;
    case TV_DICT:  return tv_dict_n(v.u.dict);
    case TV_UNDEF: return 0;
    case TV_LOOP:  return tv_loop_length(rt, v.u.loop);
    default:
        tmpl_raise(rt, "TypeError", "object of type '%s' has no len()", tv_type_name(v));
    }
}

const tv *tv_iterate(tmpl_rt *rt, tv v, iz *n)
{
    switch ((tv_kind)v.kind) {
    case TV_LIST:
        if (v.flags & TVF_ITER) {
            /* an iterator yields its items once */
            if (v.u.list->consumed) {
                *n = 0;
                return NULL;
            }
            v.u.list->consumed = true;
        }
        *n = v.u.list->n;
        return v.u.list->v;
    case TV_TUPLE:
        *n = v.u.list->n;
        return v.u.list->v;
    case TV_DICT: {
        const tv_dict *d = v.u.dict;
        tmpl_work(rt, tv_dict_n(d));
        tv *keys = tv_dict_n(d) ? NEW_NZ(rt->a, tv, tv_dict_n(d)) : NULL;
        for (iz i = 0; i < tv_dict_n(d); i++)
            keys[i] = tv_dict_e(d)[i].key;
        *n = tv_dict_n(d);
        return keys;
    }
    case TV_STR: {
        str s = tv_s(v);
        iz cnt = pystr_len(s);
        tmpl_work(rt, cnt);
        tv *chars = cnt ? NEW_NZ(rt->a, tv, cnt) : NULL;
        iz i = 0, k = 0;
        while (i < s.len) {
            iz j = i + utf8_len(s.s[i]);
            chars[k++] = tv_str(str_cut(s, i, j));
            i = j;
        }
        *n = cnt;
        return chars;
    }
    case TV_UNDEF:
        *n = 0;
        return NULL;
    default:
        tmpl_raise(rt, "TypeError", "'%s' object is not iterable", tv_type_name(v));
    }
}

/* ---- attribute and item access ----------------------------------------- */

static tv bound(tmpl_rt *rt, tv self, tv_meth m)
{
    tv_method *bm = NEW(rt->a, tv_method, 1);
    bm->self = self;
    bm->meth = (u16)m;
    tv v = {.kind = TV_METHOD};
    v.u.method = bm;
    return v;
}

/* Mutating methods the immutable sandbox refuses (jinja2.sandbox
 * _mutable_spec for list and dict; tuples and strings have none). */
static bool unsafe_method(tv_kind k, str name)
{
    /* jinja2.sandbox._mutable_spec: MutableSequence's list leaves out
     * pop and clear, which the sandbox lets a template call */
    static const char *const list_m[] = {"append", "extend", "insert", "remove", "reverse",
                                         "sort", NULL};
    static const char *const dict_m[] = {"clear", "pop", "popitem", "setdefault",
                                         "update", NULL};
    const char *const *m = k == TV_LIST ? list_m : k == TV_DICT ? dict_m : NULL;
    for (; m && *m; m++)
        if (str_eq(name, str_cstr(*m)))
            return true;
    return false;
}

static tv unsafe_undef(tmpl_rt *rt, tv obj, str name)
{
    buf b = {0};
    buf_cstr(&b, "access to attribute ");
    arena_mark m = arena_save(rt->a);
    str r = pystr_repr(rt->a, name);
    buf_str(&b, r);
    arena_restore(rt->a, m);
    buf_printf(&b, " of '%s' object is unsafe.", tv_type_name(obj));
    const char *hint = NULL;
    if (!b.failed)
        hint = (const char *)arena_strdup(rt->a, buf_view(&b)).s;
    buf_free(&b);
    if (!hint)
        tmpl_fail(rt, ERR_NOMEM, "out of memory");
    return tv_undef_hint(rt, "SecurityError", hint);
}

/* Could `name` be an attribute of a dict (a method)? A quick filter on
 * the hot path of message.role, message.content: most names are keys. */
static bool dict_attr_candidate(str name)
{
    switch (name.len) {
    case 3:  return str_eq(name, S("get")) || str_eq(name, S("pop"));
    case 4:  return str_eq(name, S("copy")) || str_eq(name, S("keys"));
    case 5:  return str_eq(name, S("items")) || str_eq(name, S("clear"));
    case 6:  return str_eq(name, S("values")) || str_eq(name, S("update"));
    case 7:  return str_eq(name, S("popitem"));
    case 10: return str_eq(name, S("setdefault"));
    default: return name.len >= 2 && name.s[0] == '_' && name.s[1] == '_';
    }
}

static tv_loop_attr loop_attr_of(str name)
{
    static const char *const names[] = {
        [TVL_INDEX] = "index", [TVL_INDEX0] = "index0", [TVL_REVINDEX] = "revindex",
        [TVL_REVINDEX0] = "revindex0", [TVL_FIRST] = "first", [TVL_LAST] = "last",
        [TVL_LENGTH] = "length", [TVL_DEPTH] = "depth", [TVL_DEPTH0] = "depth0",
        [TVL_PREVITEM] = "previtem", [TVL_NEXTITEM] = "nextitem",
    };
    for (int a = 1; a < (int)countof(names); a++)
        if (str_eq(name, str_cstr(names[a])))
            return (tv_loop_attr)a;
    return TVL_NONE;
}

tv tv_loop_attr_value(tmpl_rt *rt, tv_loop *l, tv_loop_attr a)
{
    switch (a) {
    case TVL_INDEX:     return tv_int(l->i + 1);
    case TVL_INDEX0:    return tv_int(l->i);
    case TVL_REVINDEX:  return tv_int(tv_loop_length(rt, l) - l->i);
    case TVL_REVINDEX0: return tv_int(tv_loop_length(rt, l) - l->i - 1);
    case TVL_FIRST:     return tv_bool(l->i == 0);
    case TVL_LAST:      return tv_bool(!tv_loop_has_next(rt, l));
    case TVL_LENGTH:    return tv_int(tv_loop_length(rt, l));
    case TVL_DEPTH:     return tv_int(l->depth0 + 1);
    case TVL_DEPTH0:    return tv_int(l->depth0);
    case TVL_PREVITEM:
        return l->i > 0 ? l->items[l->i - 1] : tv_undef_hint(rt, "UndefinedError", "there is no previous item");
    case TVL_NEXTITEM:
        return tv_loop_has_next(rt, l) ? l->items[l->i + 1]
                                       : tv_undef_hint(rt, "UndefinedError", "there is no next item");
    case TVL_NONE:
        break;
    }
    return tv_undef_plain();
}

_Static_assert(TVM_COUNT <= 256, "tmpl_attr_meths holds a tv_meth in a byte");

tmpl_attr_meths tmpl_getattr_meths(str name)
{
    return (tmpl_attr_meths){
        (u8)tmpl_method_lookup(TV_STR, name), (u8)tmpl_method_lookup(TV_DICT, name),
        (u8)tmpl_method_lookup(TV_LIST, name), (u8)tmpl_method_lookup(TV_TUPLE, name),
        (u8)!dict_attr_candidate(name), (u8)loop_attr_of(name),
    };
}

static bool is_dunder(str name) { return name.len >= 2 && name.s[0] == '_' && name.s[1] == '_'; }

/* Whether `name` (a dunder) is an attribute of obj's Python type, from
 * CPython 3.11's dir(): object's own, and those of int, bool and float,
 * NoneType and jinja2's Undefined; str, list, dict and tuple are taken to
 * have them all. The sandbox refuses every one of them (SecurityError when
 * used); a dunder the type lacks is a plain Undefined. */
static bool has_dunder(tv obj, str name)
{
    static const char *const object_d[] = {
        "__class__", "__delattr__", "__dir__", "__doc__", "__eq__", "__format__", "__ge__",
        "__getattribute__", "__getstate__", "__gt__", "__hash__", "__init__", "__init_subclass__",
        "__le__", "__lt__", "__ne__", "__new__", "__reduce__", "__reduce_ex__", "__repr__",
        "__setattr__", "__sizeof__", "__str__", "__subclasshook__", NULL};
    static const char *const number_d[] = {   /* float's; int and bool add int_d */
        "__abs__", "__add__", "__bool__", "__ceil__", "__divmod__", "__float__", "__floor__",
        "__floordiv__", "__getnewargs__", "__int__", "__mod__", "__mul__", "__neg__", "__pos__",
        "__pow__", "__radd__", "__rdivmod__", "__rfloordiv__", "__rmod__", "__rmul__", "__round__",
        "__rpow__", "__rsub__", "__rtruediv__", "__sub__", "__truediv__", "__trunc__", NULL};
    static const char *const int_d[] = {
        "__and__", "__index__", "__invert__", "__lshift__", "__or__", "__rand__", "__rlshift__",
        "__ror__", "__rrshift__", "__rshift__", "__rxor__", "__xor__", NULL};
    static const char *const float_d[] = {"__getformat__", NULL};
    static const char *const none_d[] = {"__bool__", NULL};
    static const char *const undef_d[] = {
        "__add__", "__aiter__", "__bool__", "__call__", "__complex__", "__div__", "__float__",
        "__floordiv__", "__getattr__", "__getitem__", "__int__", "__iter__", "__len__", "__mod__",
        "__module__", "__mul__", "__neg__", "__pos__", "__pow__", "__radd__", "__rdiv__",
        "__rfloordiv__", "__rmod__", "__rmul__", "__rpow__", "__rsub__", "__rtruediv__",
        "__slots__", "__sub__", "__truediv__", NULL};
    const char *const *sets[3] = {object_d, NULL, NULL};
    switch ((tv_kind)obj.kind) {
    case TV_STR: case TV_LIST: case TV_DICT: case TV_TUPLE: return true;
    case TV_INT: case TV_BIGINT: case TV_BOOL: sets[1] = number_d; sets[2] = int_d; break;
    case TV_FLOAT: sets[1] = number_d; sets[2] = float_d; break;
    case TV_NONE:  sets[1] = none_d; break;
    case TV_UNDEF: sets[1] = undef_d; break;
    default: break;
    }
    for (int k = 0; k < 3; k++)
        for (const char *const *p = sets[k]; p && *p; p++)
            if (str_eq(name, str_cstr(*p)))
                return true;
    return false;
}

/* A Python attribute of obj that exists, or false. Sets *out. */
static bool python_attr(tmpl_rt *rt, tv obj, str name, const tmpl_attr_meths *known, tv *out)
{
    if (obj.kind == TV_DICT && !dict_attr_candidate(name))
        return false;
    if (obj.kind == TV_NS && name.len && name.s[0] == '_') {
        /* Namespace.__getattribute__ has its keys and __class__, and the
         * sandbox refuses every name starting with '_' */
        tv v;
        if (!tv_dict_get_str(obj.u.dict, name, &v) && !str_eq(name, S("__class__")) &&
            !str_eq(name, S("_Namespace__attrs")))
            return false;
        *out = unsafe_undef(rt, obj, name);
        return true;
    }
    if (is_dunder(name)) {
        if (!has_dunder(obj, name))
            return false;
        *out = unsafe_undef(rt, obj, name);
        return true;
    }
    if (obj.kind == TV_LIST && (obj.flags & TVF_RANGE)) {
        /* a range: start, stop, step, and the methods of a sequence */
        static const char *const fields[] = {"start", "stop", "step"};
        for (int k = 0; k < 3; k++)
            if (str_eq(name, str_cstr(fields[k]))) {
                *out = tv_int(obj.u.list->range[k]);
                return true;
            }
        if (!str_eq(name, S("index")) && !str_eq(name, S("count")))
            return false;
    }
    if (obj.kind == TV_LIST && (obj.flags & TVF_ITER))
        return false;   /* no attribute a template can use */
    if (obj.kind == TV_TUPLE && (obj.flags & TVF_GROUP)) {
        /* the named tuple's fields, and its _-prefixed helpers (unsafe) */
        if (str_eq(name, S("grouper")) || str_eq(name, S("list"))) {
            *out = obj.u.list->v[name.s[0] == 'l'];
            return true;
        }
        if (str_eq(name, S("_fields")) || str_eq(name, S("_field_defaults")) || str_eq(name, S("_asdict")) ||
            str_eq(name, S("_replace")) || str_eq(name, S("_make"))) {
            *out = unsafe_undef(rt, obj, name);
            return true;
        }
    }
    switch ((tv_kind)obj.kind) {
    case TV_STR: case TV_DICT: case TV_LIST: case TV_TUPLE: case TV_CYCLER: {
        if (unsafe_method((tv_kind)obj.kind, name)) {
            *out = unsafe_undef(rt, obj, name);
            return true;
        }
        tv_meth m;
        switch (known ? obj.kind : TV_UNDEF) {
        case TV_STR:   m = (tv_meth)known->str; break;
        case TV_DICT:  m = (tv_meth)known->dict; break;
        case TV_LIST:  m = (tv_meth)known->list; break;
        case TV_TUPLE: m = (tv_meth)known->tuple; break;
        default:       m = tmpl_method_lookup(obj.kind, name); break;
        }
        if (m == TVM_NONE)
            return false;
        if (m == TVM_CYCLER_CURRENT) {
            const tv_cycler *c = obj.u.cycler;
            *out = c->n ? c->items[c->pos] : tv_none();
            return true;
        }
        *out = bound(rt, obj, m);
        return true;
    }
    case TV_NS:
        return tv_dict_get_str(obj.u.dict, name, out);
    case TV_LOOP: {
        tv_loop_attr la = known ? (tv_loop_attr)known->loop : loop_attr_of(name);
        if (la != TVL_NONE) {
            *out = tv_loop_attr_value(rt, obj.u.loop, la);
            return true;
        }
        tv_meth m = tmpl_method_lookup(TV_LOOP, name);
        if (m == TVM_NONE)
            return false;
        *out = bound(rt, obj, m);
        return true;
    }
    case TV_MACRO:
        if (str_eq(name, S("name"))) {
            *out = obj.u.macro->name.len ? tv_str(obj.u.macro->name) : tv_none();
            return true;
        }
        return false;
    default:
        return false;
    }
}

tv tv_getattr_known(tmpl_rt *rt, tv obj, str name, const tmpl_attr_meths *known)
{
    if (obj.kind == TV_UNDEF) {
        /* the dunders Undefined has are there, and unsafe; for any other
         * name the sandbox ends in Undefined.__getattr__ or __getitem__,
         * which raise */
        if (is_dunder(name) && has_dunder(obj, name))
            return unsafe_undef(rt, obj, name);
        tv_undef_raise(rt, obj);
    }
    tv out;
    if (python_attr(rt, obj, name, known, &out))
        return out;
    if (obj.kind == TV_DICT && tv_dict_get_str(obj.u.dict, name, &out))
        return out;
    return tv_undef_attr(rt, obj, tv_str(name));
}

tv tv_getattr(tmpl_rt *rt, tv obj, str name) { return tv_getattr_known(rt, obj, name, NULL); }

/* Python's index normalization for obj[i]: -1 when out of range. */
static iz norm_index(i64 i, iz n)
{
    if (i < 0)
        i += n;
    return i < 0 || i >= n ? -1 : (iz)i;
}

tv tv_getitem(tmpl_rt *rt, tv obj, tv key)
{
    if (obj.kind == TV_UNDEF)
        tv_undef_raise(rt, obj);
    bool int_key = key.kind == TV_INT || key.kind == TV_BOOL;
    i64 ik = key.kind == TV_BOOL ? key.u.b : key.u.i;
    tv out;
    switch ((tv_kind)obj.kind) {
    case TV_DICT:
        if (tv_dict_get(obj.u.dict, key, &out))
            return out;
        break;
    case TV_LIST:
    case TV_TUPLE:
        if (int_key && !(obj.flags & TVF_ITER)) {
            iz k = norm_index(ik, obj.u.list->n);
            if (k >= 0)
                return obj.u.list->v[k];
        }
        break;
    case TV_STR:
        if (int_key) {
            tmpl_work(rt, tv_steps(obj));   /* pystr_len, pystr_offset */
            iz n = pystr_len(tv_s(obj));
            iz k = norm_index(ik, n);
            if (k >= 0) {
                iz b0 = pystr_offset(tv_s(obj), k);
                iz b1 = b0 + utf8_len(tv_s(obj).s[b0]);
                tv c = tv_str(str_cut(tv_s(obj), b0, b1));
                c.flags = obj.flags;
                return c;
            }
        }
        break;
    default:
        break;
    }
    if (key.kind == TV_STR && python_attr(rt, obj, tv_s(key), NULL, &out))
        return out;
    return tv_undef_attr(rt, obj, key);
}

/* A slice bound: None for an absent part, ints and bools taken,
 * anything else Python's TypeError. *has false when absent. */
static i64 slice_part(tmpl_rt *rt, tv v, bool *has)
{
    *has = false;
    if (v.kind == TV_NONE)
        return 0;
    if (v.kind == TV_INT) { *has = true; return v.u.i; }
    if (v.kind == TV_BOOL) { *has = true; return v.u.b; }
    if (v.kind == TV_BIGINT) {   /* _PyEval_SliceIndex clamps */
        *has = true;
        return tv_s(v).s[0] == '-' ? INT64_MIN : INT64_MAX;
    }
    tmpl_raise(rt, "TypeError",
               "slice indices must be integers or None or have an __index__ method");
}

/* A slice of a range is a range (compute_slice): start + lo * step, stop
 * + hi * step (the adjusted bounds, not the item count), step * st. */
static tv range_slice(tmpl_rt *rt, tv obj, i64 lo, i64 hi, i64 st, iz cnt)
{
    const tv_list *l = obj.u.list;
    i64 start = l->range[0], step = l->range[2];
    tv r = tv_list_new(rt, cnt);
    for (iz i = 0; i < cnt; i++)
        r.u.list->v[i] = l->v[lo + i * st];
    r.flags = TVF_RANGE;
    /* the range's own values are small (MAX_RANGE items of 64-bit ints),
     * so these products fit unless the bounds were near the extremes */
    i64 a, b, c;
    if (__builtin_mul_overflow(lo, step, &a) || __builtin_add_overflow(start, a, &a) ||
        __builtin_mul_overflow(hi, step, &b) || __builtin_add_overflow(start, b, &b) ||
        __builtin_mul_overflow(step, st, &c))
        tmpl_fail(rt, ERR_UNSUPPORTED, "a range slice beyond 64 bits");
    r.u.list->range[0] = a;
    r.u.list->range[1] = b;
    r.u.list->range[2] = c;
    return r;
}

tv tv_slice(tmpl_rt *rt, tv obj, tv start, tv stop, tv step)
{
    if (obj.kind == TV_UNDEF)
        tv_undef_raise(rt, obj);
    /* The object first: Python builds the slice without looking at its
     * bounds, and only a sequence's subscript checks them. */
    if ((obj.kind != TV_LIST && obj.kind != TV_TUPLE && obj.kind != TV_STR) ||
        (obj.flags & TVF_ITER)) {
        /* Jinja compiles x[a:b] to Python's own subscript, not to the
         * sandbox's getitem, so nothing turns this into an Undefined. */
        if (obj.kind == TV_DICT)
            tmpl_raise(rt, "TypeError", "unhashable type: 'slice'");
        tmpl_raise(rt, "TypeError", "'%s' object is not subscriptable", tv_type_name(obj));
    }
    bool hs, he, hp;
    i64 st = slice_part(rt, step, &hp);
    if (!hp)
        st = 1;
    if (st == 0)
        tmpl_raise(rt, "ValueError", "slice step cannot be zero");
    if (st < -INT64_MAX)
        st = -INT64_MAX;   /* PySlice_Unpack: -step must not overflow */
    i64 a = slice_part(rt, start, &hs), e = slice_part(rt, stop, &he);
    iz n = obj.kind == TV_STR ? pystr_len(tv_s(obj)) : obj.u.list->n;
    /* PySlice_AdjustIndices */
    i64 lo, hi;
    if (st > 0) {
        lo = hs ? (a < 0 ? MAX(a + n, 0) : MIN(a, (i64)n)) : 0;
        hi = he ? (e < 0 ? MAX(e + n, 0) : MIN(e, (i64)n)) : n;
    } else {
        lo = hs ? (a < 0 ? MAX(a + n, -1) : MIN(a, (i64)n - 1)) : n - 1;
        hi = he ? (e < 0 ? MAX(e + n, -1) : MIN(e, (i64)n - 1)) : -1;
    }
    iz cnt = 0;
    if (st > 0 && lo < hi)
        cnt = (iz)((hi - lo - 1) / st + 1);
    else if (st < 0 && lo > hi)
        cnt = (iz)((lo - hi - 1) / (-st) + 1);
    tmpl_work(rt, cnt + tv_steps(obj));
    if (obj.kind == TV_LIST && (obj.flags & TVF_RANGE))
        return range_slice(rt, obj, lo, hi, st, cnt);
    if (obj.kind == TV_STR) {
        str s = tv_s(obj);
        if (st == 1) {
            tv r = tv_str(str_cut(s, pystr_offset(s, (iz)lo), pystr_offset(s, (iz)(lo + cnt))));
            r.flags = obj.flags;
            return r;
        }
        /* Offsets of every code point, then pick. */
        iz *off = NEW_NZ(rt->a, iz, n + 1);
        for (iz i = 0, k = 0; k <= n; k++) {
            off[k] = i;
            if (i < s.len)
                i += utf8_len(s.s[i]);
        }
        u8 *out = NEW_NZ(rt->a, u8, s.len + 1);
        iz len = 0;
        for (iz k = 0; k < cnt; k++) {
            iz c = (iz)(lo + k * st);
            iz w = off[c + 1] - off[c];
            memcpy(out + len, s.s + off[c], (size_t)w);
            len += w;
        }
        tv r = tv_str(str_from(out, len));
        r.flags = obj.flags;
        return r;
    }
    tv r = list_of_kind(rt, cnt, (tv_kind)obj.kind);
    for (iz k = 0; k < cnt; k++)
        r.u.list->v[k] = obj.u.list->v[lo + k * st];
    return r;
}
