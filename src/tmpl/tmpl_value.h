/* tmpl_value.h - the values a chat template computes with: Python's object
 * model as far as Jinja2 templates reach it, and the per-render runtime
 * (scratch arena, error exit) every operation on values takes.
 * Internal to src/tmpl/: the value model (tmpl_value.c), the evaluator
 * (tmpl_eval.c) and the library (tmpl_lib.h: filters, tests, methods,
 * numbers, formatting, sorting, json.dumps) use it.
 *
 * Values are 16-byte structs passed by value (in two registers on x86-64
 * and arm64). Strings, lists, tuples and dicts point into the render's
 * arena (or into the context's JSON tree, or the program's source) and are
 * immutable once built, as the immutable sandbox guarantees, with two
 * exceptions: a namespace(), and a list shortened by list.pop or
 * list.clear, the two mutating methods the sandbox leaves to lists (see
 * tv_list).
 *
 * Errors: every operation that Python or Jinja would make raise calls
 * tmpl_raise, which records the exception class, message and template line
 * in the runtime and longjmps to the render's exit. Nothing is to be freed
 * on that path: everything lives in the arena. */
#ifndef TALLY_TMPL_VALUE_H
#define TALLY_TMPL_VALUE_H

#include <setjmp.h>

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/err.h"
#include "../json/json.h"
#include "tmpl.h"
#include "tmpl_ast.h"

typedef enum tv_kind {
    TV_UNDEF = 0,  /* jinja2.Undefined: u.undef (NULL: a plain undefined with no name) */
    TV_NONE,
    TV_BOOL,       /* u.b */
    TV_INT,        /* u.i */
    TV_BIGINT,     /* tv_s: decimal text of an int beyond i64 ("-123...", canonical) */
    TV_FLOAT,      /* u.f */
    TV_STR,        /* tv_s: valid UTF-8; flags TVF_SAFE for markupsafe.Markup */
    TV_LIST,       /* u.list */
    TV_TUPLE,      /* u.list */
    TV_DICT,       /* u.dict */
    TV_NS,         /* u.dict: jinja2's Namespace (mutable attributes) */
    TV_LOOP,       /* u.loop: jinja2's LoopContext */
    TV_MACRO,      /* u.macro: a template macro (or a call block's caller) */
    TV_FUNC,       /* id: a global function (tv_func) */
    TV_METHOD,     /* u.method: a bound method of a value (tv_meth) */
    TV_CYCLER,     /* u.cycler: jinja2's Cycler (mutable position) */
    TV_JOINER,     /* u.joiner: jinja2's Joiner */
    TV_MISSING,    /* jinja2.utils.missing: a variable of Jinja's generated code
                      not set (yet, or any more); reads as an Undefined where
                      Jinja's code checks for it, else is this object
                      (printed "missing") */
    TV_KIND_COUNT
} tv_kind;

enum {
    TVF_SAFE = 1,  /* TV_STR: a Markup string */
    TVF_ITER = 2,  /* TV_LIST: a Python iterator (the generators that map,
                      select, ... return; reversed()); tv.id says which
                      (tv_iter_kind). Truthy even when empty, no len(), no
                      subscripts, printed with an address (unsupported),
                      emptied by the first iteration. */
    TVF_GROUP = 4, /* TV_TUPLE: a (grouper, list) of the groupby filter,
                      jinja2.filters._GroupTuple: a named tuple, its items
                      also the attributes `grouper` and `list` */
    TVF_RANGE = 8, /* TV_LIST: a range object (range(), its slices): its
                      items are there, and tv_list.range holds start, stop
                      and step, for its repr, its attributes and its slices;
                      no list operator or method applies to it */
};

/* Python types of TVF_ITER lists, for messages. */
typedef enum tv_iter_kind {
    TVI_GENERATOR = 0,     /* "generator" */
    TVI_LIST_REVERSE,      /* "list_reverseiterator": reversed(list) */
    TVI_REVERSED,          /* "reversed": reversed(tuple) and others */
    TVI_DICT_REVERSEKEY,   /* "dict_reversekeyiterator": reversed(dict) */
} tv_iter_kind;

typedef struct tv         tv;
typedef struct tv_list    tv_list;
typedef struct tv_dict    tv_dict;
typedef struct tv_undef   tv_undef;
typedef struct tv_loop    tv_loop;
typedef struct tv_macro   tv_macro;
typedef struct tv_method  tv_method;
typedef struct tv_cycler  tv_cycler;
typedef struct tv_joiner  tv_joiner;

/* A string's bytes are u.s and its length is len (tv_s and tv_set_s read
 * and write them): a whole str beside the tag would make the value 24 bytes,
 * which x86-64 passes on the stack. So a string value holds at most
 * TV_MAX_STR bytes. Strings that TMPL_MAX_OUTPUT or TMPL_MAX_SOURCE bound
 * are made with tv_str; the others (the context's, and what case mapping or
 * escaping makes of them) with tv_str_checked, which fails with ERR_LIMIT
 * rather than cutting them. */
struct tv {
    u8  kind;      /* tv_kind */
    u8  flags;     /* TVF_* */
    u16 id;        /* TV_FUNC: tv_func; TV_LIST with TVF_ITER: tv_iter_kind;
                      TV_STR: TVS_* */
    u32 len;       /* TV_STR, TV_BIGINT: bytes at u.s */
    union {
        bool       b;
        i64        i;
        double     f;
        const u8  *s;
        tv_list   *list;
        tv_dict   *dict;
        tv_undef  *undef;
        tv_loop   *loop;
        tv_macro  *macro;
        tv_method *method;
        tv_cycler *cycler;
        tv_joiner *joiner;
    } u;
};
_Static_assert(sizeof(tv) == 16, "a tv is passed and returned in two registers");

/* Bytes of one string value (what tv.len holds; all of iz where that is
 * narrower). */
#define TV_MAX_STR ((iz)(PTRDIFF_MAX > UINT32_MAX ? UINT32_MAX : PTRDIFF_MAX))

/* How a string's bytes were made (tv.id of a TV_STR), so that `+` and `~`
 * can append to a string that a loop keeps growing ({% set ns.s = ns.s +
 * x %}) instead of copying it every time (tv_str_sum): TVS_SUM, by one of
 * them; TVS_ROOM, by one of them into a tv_sbuf, with room after the
 * bytes. Every other string is made by tv_str (0); nothing changes a
 * string value's bytes or length in place, so a copy of the value keeps
 * the mark true. */
enum { TVS_SUM = 1, TVS_ROOM = 2 };

/* The buffer of a TVS_ROOM string: `used` of its `cap` bytes belong to
 * strings, the rest to none yet. A string whose bytes end at `used` may
 * append there: no other string can see those bytes. */
typedef struct tv_sbuf {
    iz used, cap;
    u8 bytes[];
} tv_sbuf;

/* Lists and tuples: n items. `origin` is the JSON array the list was made
 * from (so tojson can write the source's tree directly), or NULL. */
/* Lists change only by list.pop and list.clear (the immutable sandbox
 * allows those two): they give the list a new `v` or a smaller `n`, never
 * writing into `v`, which other lists (copies, slices) may share; `origin`
 * is cleared then. `loops` counts the for loops running over the list,
 * during which it may not change (Python's loop would see the change; this
 * one iterates what it started with). `arr` is the tv_arr that `v` points
 * into when + made the list, or NULL; it shares its bytes with a range's
 * bounds (a range is never added to, popped or cleared), which keeps the
 * struct at 56 bytes. */
struct tv_list {
    tv         *v;
    iz          n;
    const json *origin;
    bool        consumed;  /* TVF_ITER: iterated once already */
    u16         loops;
    union {
        i64            range[3];  /* TVF_RANGE: start, stop, step as given */
        struct tv_arr *arr;       /* other lists (a range is not added to) */
    };
};

/* The items array of lists that + made, with room to grow (Go's slices):
 * `used` of its `cap` items belong to lists, the rest to none yet. A list
 * whose items end at `used` may append there (tv_seq_concat): no other
 * list can see those items, and none is ever written twice. */
typedef struct tv_arr {
    iz used, cap;
    tv items[];
} tv_arr;

/* Dicts (and namespaces): entries in insertion order, Python's dict.
 * Keys are hashable values (str, int, float, bool, none, tuple of those);
 * 1, 1.0 and True are the same key, as in Python. `index` is an open
 * addressing table of entry positions + 1 (0 = empty), built once the dict
 * has more than a few entries. `origin` as for lists; cleared when a
 * namespace changes. */
typedef struct tv_entry {
    tv  key, val;
    u64 hash;
} tv_entry;

struct tv_dict {
    tv_entry   *ent;    /* read through tv_dict_e and tv_dict_n: a lazy dict has none yet */
    iz          cnt, cap;
    i32        *index;
    iz          icap;   /* a power of two, or 0 */
    const json *origin;
    /* A dict of the context is lazy until something needs its entries:
     * `lazy` is its JSON object, whose members are looked up directly by
     * key (tv_dict_get_str); the containers among them are converted once,
     * into memo (by member position), so that a value keeps its identity. */
    const json     *lazy;
    tv             *memo;
    struct tmpl_rt *rt;
    int             depth;
};

/* Why a value is undefined, for the message raised when it is used
 * (jinja2.Undefined._undefined_message):
 *   hint set:           the hint itself
 *   no obj:             "'name' is undefined"
 *   key not a str:      "<type of obj> has no element <repr(key)>"
 *   else:               "'<type of obj>' has no attribute 'key'"
 * where the type reads "None" for None and "dict object", "str object",
 * ... otherwise. `exc` is the class raised: "UndefinedError", or
 * "SecurityError" for the sandbox's unsafe attributes. */
struct tv_undef {
    bool        has_obj;
    tv          obj;
    tv          key;       /* a TV_STR name, or any value used as a key */
    const char *hint;      /* NULL or a complete message */
    const char *exc;
};

/* The attributes of `loop` that are values (not methods). */
typedef enum tv_loop_attr {
    TVL_NONE = 0, TVL_INDEX, TVL_INDEX0, TVL_REVINDEX, TVL_REVINDEX0, TVL_FIRST, TVL_LAST,
    TVL_LENGTH, TVL_DEPTH, TVL_DEPTH0, TVL_PREVITEM, TVL_NEXTITEM,
} tv_loop_attr;

/* A loop's state as the template sees it through `loop`. A filtered
 * loop's items come one at a time, when Jinja's generator would give them
 * (the next iteration, loop.last, loop.nextitem, loop.length): `more`
 * appends the next item that passes the filter, or clears itself at the
 * end; until then n counts the items so far. tv_loop_length and
 * tv_loop_has_next ask for them. */
struct tv_loop {
    const tv *items;       /* the items of the (filtered) iterable so far */
    iz        n;           /* loop.length once `more` is NULL */
    iz        i;           /* loop.index0 */
    i32       depth0;      /* loop.depth0 */
    const void *node;      /* the recursive FOR node, for loop(x); NULL if not recursive */
    void       *frame;     /* the evaluator's frame the loop runs in */
    tv          changed_last;  /* loop.changed(*args): the last arguments (a tuple) */
    bool        changed_set;   /* ... once it has been called */
    bool      (*more)(struct tmpl_rt *rt, tv_loop *l);
    void       *more_state;
};


/* A macro value: the node (TMPL_MACRO or the body of TMPL_CALL_BLOCK /
 * TMPL_GENERATION) and the scope it closes over (the evaluator's). */
struct tv_macro {
    const void *node;
    void       *closure;
    str         name;      /* "caller" for call blocks */
    u8          uses;      /* TVM_USES_*: names the body reads */
};
enum { TVM_USES_CALLER = 1, TVM_USES_VARARGS = 2, TVM_USES_KWARGS = 4 };

/* A bound method: Python's `receiver.name`, called later. */
struct tv_method {
    tv  self;
    u16 meth;              /* tv_meth */
};

struct tv_cycler { const tv *items; iz n, pos; };
struct tv_joiner { str sep; bool used; };

/* Global functions of the environment. */
typedef enum tv_func {
    TVFN_RANGE = 1, TVFN_DICT, TVFN_LIPSUM, TVFN_CYCLER, TVFN_JOINER,
    TVFN_NAMESPACE, TVFN_RAISE_EXCEPTION, TVFN_STRFTIME_NOW,
    TVFN_COUNT
} tv_func;

/* Methods reachable as attributes (tmpl_methods.c). The mutating methods
 * the sandbox refuses (list.append, dict.pop, ...) are not here: it answers
 * with an Undefined that raises SecurityError. */
typedef enum tv_meth {
    TVM_NONE = 0,
    /* str */
    TVM_STR_CAPITALIZE, TVM_STR_CASEFOLD, TVM_STR_CENTER, TVM_STR_COUNT,
    TVM_STR_ENDSWITH, TVM_STR_EXPANDTABS, TVM_STR_FIND, TVM_STR_FORMAT,
    TVM_STR_FORMAT_MAP, TVM_STR_MAKETRANS, TVM_STR_TRANSLATE,
    TVM_STR_INDEX, TVM_STR_ISALNUM, TVM_STR_ISALPHA, TVM_STR_ISASCII,
    TVM_STR_ISDECIMAL, TVM_STR_ISDIGIT, TVM_STR_ISIDENTIFIER, TVM_STR_ISLOWER,
    TVM_STR_ISNUMERIC, TVM_STR_ISPRINTABLE, TVM_STR_ISSPACE, TVM_STR_ISTITLE,
    TVM_STR_ISUPPER, TVM_STR_JOIN, TVM_STR_LJUST, TVM_STR_LOWER, TVM_STR_LSTRIP,
    TVM_STR_PARTITION, TVM_STR_REMOVEPREFIX, TVM_STR_REMOVESUFFIX,
    TVM_STR_REPLACE, TVM_STR_RFIND, TVM_STR_RINDEX, TVM_STR_RJUST,
    TVM_STR_RPARTITION, TVM_STR_RSPLIT, TVM_STR_RSTRIP, TVM_STR_SPLIT,
    TVM_STR_SPLITLINES, TVM_STR_STARTSWITH, TVM_STR_STRIP, TVM_STR_SWAPCASE,
    TVM_STR_TITLE, TVM_STR_UPPER, TVM_STR_ZFILL,
    /* dict */
    TVM_DICT_GET, TVM_DICT_ITEMS, TVM_DICT_KEYS, TVM_DICT_VALUES, TVM_DICT_COPY,
    /* list and tuple */
    TVM_LIST_INDEX, TVM_LIST_COUNT, TVM_LIST_COPY, TVM_LIST_POP, TVM_LIST_CLEAR,
    /* jinja objects */
    TVM_LOOP_CYCLE, TVM_LOOP_CHANGED, TVM_CYCLER_NEXT, TVM_CYCLER_RESET,
    TVM_CYCLER_CURRENT,
    TVM_COUNT
} tv_meth;

/* ---- the runtime of one render ---------------------------------------- */

typedef struct tmpl_rt {
    arena   *a;            /* the render's scratch arena */
    jmp_buf *jb;           /* tmpl_raise jumps here */
    i32      line;         /* template line being evaluated (for errors) */
    i32      depth;        /* macro call depth */
    i64      iterations;   /* loop iterations so far */
    i64      now;          /* strftime_now's clock: seconds since the epoch, local = UTC */
    /* The time budget (tmpl_render_opts.deadline, 0: none) and the steps
     * of work left before the clock is read again (tmpl_work). */
    i64      steps;
    double   deadline;
    /* Counts the stores that can carry a value made inside a loop iteration
     * out of it (a namespace attribute, a macro definition, loop.changed's
     * memory): while it stays the same, the evaluator releases an
     * iteration's allocations at its end. Whoever stores a new value into
     * an object made earlier must increment it. */
    u64      escapes;
    /* a list.pop or list.clear ran: the JSON trees the context's lists
     * and dicts came from no longer print them (tojson's `origin` path) */
    bool     lists_changed;
    /* the error, once raised */
    const char *exc;       /* Python class: "UndefinedError", "TypeError", ... ;
                              NULL for our own failures (code says which) */
    int      code;         /* ERR_TEMPLATE for Python/Jinja exceptions, else ERR_* */
    char     msg[ERR_MSG_MAX];
    buf      tmp;          /* scratch for str()/repr() building */
} tmpl_rt;

/* ---- the time budget ----
 * Work is counted in steps: a statement, a loop iteration, a macro call,
 * an item a filter, method or operator goes through, or 64 bytes it copies
 * or scans (TMPL_STEP_BYTES). Whatever can grow with the input or repeat
 * counts its steps with tmpl_work before or while it does the work, so
 * that the render reads the clock every TMPL_CLOCK_STEPS steps (about a
 * millisecond) and stops soon after its deadline. Without a deadline
 * tmpl_clock makes the count last for ever and never reads the clock. */
enum { TMPL_CLOCK_STEPS = 1 << 12, TMPL_STEP_BYTES_SHIFT = 6 };

/* The clock check behind tmpl_work: ERR_LIMIT past the deadline. */
void tmpl_clock(tmpl_rt *rt);

static ALWAYS_INLINE void tmpl_work(tmpl_rt *rt, iz steps)
{
    if (unlikely((rt->steps -= steps) < 0))
        tmpl_clock(rt);
}

/* The steps of going through n bytes. */
static ALWAYS_INLINE iz tmpl_bytes_steps(iz n) { return n >> TMPL_STEP_BYTES_SHIFT; }

/* The steps of going once through v: a string's bytes, the items of a
 * list, tuple or dict (its outermost level only). */
static inline iz tv_steps(tv v)
{
    switch ((tv_kind)v.kind) {
    case TV_STR:   return tmpl_bytes_steps((iz)v.len);
    case TV_LIST:
    case TV_TUPLE: return v.u.list->n;
    case TV_DICT:
    case TV_NS:    return v.u.dict->lazy ? v.u.dict->lazy->u.obj.n : v.u.dict->cnt;
    default:       return 0;
    }
}

/* loop.length: every item, asked for. */
static inline iz tv_loop_length(tmpl_rt *rt, tv_loop *l)
{
    while (l->more && l->more(rt, l))
        ;
    return l->n;
}

/* Whether an item follows the current one (asked for if need be). */
static inline bool tv_loop_has_next(tmpl_rt *rt, tv_loop *l)
{
    return l->i + 1 < l->n || (l->more && l->more(rt, l));
}

/* Raises a Python/Jinja exception of class `exc` (a string literal) with a
 * printf message; never returns. */
_Noreturn void tmpl_raise(tmpl_rt *rt, const char *exc, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Fails with one of our own codes (ERR_LIMIT, ERR_UNSUPPORTED, ERR_NOMEM). */
_Noreturn void tmpl_fail(tmpl_rt *rt, int code, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Raises the error an Undefined stands for (its class and message). */
_Noreturn void tv_undef_raise(tmpl_rt *rt, tv v);

/* ---- construction ------------------------------------------------------ */

static inline tv tv_none(void)        { tv v = {.kind = TV_NONE}; return v; }
static inline tv tv_bool(bool b)      { tv v = {.kind = TV_BOOL}; v.u.b = b; return v; }
static inline tv tv_int(i64 i)        { tv v = {.kind = TV_INT}; v.u.i = i; return v; }
static inline tv tv_float(double f)   { tv v = {.kind = TV_FLOAT}; v.u.f = f; return v; }
/* The bytes of a TV_STR or TV_BIGINT, and setting them; s.len must be at
 * most TV_MAX_STR (see struct tv). */
static inline str  tv_s(tv v)             { return (str){v.u.s, (iz)v.len}; }
static inline void tv_set_s(tv *v, str s) { ASSERT(s.len <= TV_MAX_STR); v->u.s = s.s; v->len = (u32)s.len; }
static inline tv   tv_str(str s)          { tv v = {.kind = TV_STR}; tv_set_s(&v, s); return v; }
/* tv_str for a string that nothing bounds below TV_MAX_STR (see struct tv):
 * ERR_LIMIT past it. */
static inline tv tv_str_checked(tmpl_rt *rt, str s)
{
    if (s.len > TV_MAX_STR)
        tmpl_fail(rt, ERR_LIMIT, "a string of more than 4 GiB (%td bytes)", s.len);
    return tv_str(s);
}
static inline tv tv_undef_plain(void) { tv v = {.kind = TV_UNDEF}; return v; }
static inline tv tv_missing(void)      { tv v = {.kind = TV_MISSING}; return v; }
static inline bool tv_is_undef(tv v)  { return v.kind == TV_UNDEF; }
static inline bool tv_is_str(tv v)    { return v.kind == TV_STR; }
static inline bool tv_is_seq(tv v)    { return (v.kind == TV_LIST && !(v.flags & TVF_ITER)) || v.kind == TV_TUPLE; }
static inline bool tv_is_iter(tv v)   { return v.kind == TV_LIST && (v.flags & TVF_ITER); }
/* A str, list or tuple: what `*` repeats and `+` concatenates (a range or
 * an iterator does neither). */
static inline bool tv_repeatable(tv v)
{
    return v.kind == TV_STR || v.kind == TV_TUPLE || (v.kind == TV_LIST && !(v.flags & (TVF_RANGE | TVF_ITER)));
}
/* Marks a new list as an iterator of the given kind. */
static inline tv tv_as_iter(tv list, tv_iter_kind k) { list.flags |= TVF_ITER; list.id = (u16)k; return list; }
static inline bool tv_is_dict(tv v)   { return v.kind == TV_DICT; }
static inline bool tv_is_int(tv v)    { return v.kind == TV_INT || v.kind == TV_BIGINT || v.kind == TV_BOOL; }
static inline bool tv_is_number(tv v) { return tv_is_int(v) || v.kind == TV_FLOAT; }

/* Undefined values with their reason (see tv_undef). */
tv tv_undef_name(tmpl_rt *rt, str name);                 /* 'name' is undefined */
tv tv_undef_attr(tmpl_rt *rt, tv obj, tv key);           /* obj has no attribute/element key */
tv tv_undef_hint(tmpl_rt *rt, const char *exc, const char *hint);
/* The message an Undefined raises, written to `b`. */
void tv_undef_message(tmpl_rt *rt, buf *b, tv v);

/* A string copied into the arena (ERR_LIMIT past TV_MAX_STR). */
tv tv_str_copy(tmpl_rt *rt, str s);
/* A list or tuple of n items, zeroed (TV_UNDEF); fill v->u.list->v[i]. */
tv tv_list_new(tmpl_rt *rt, iz n);
tv tv_tuple_new(tmpl_rt *rt, iz n);
tv tv_pair(tmpl_rt *rt, tv a, tv b);                     /* the tuple (a, b) */
/* a + b of two lists or two tuples (checked by the caller): a new list,
 * which shares a's array and appends b's items to it when a's items end
 * where its array's used items do and there is room (a loop that keeps
 * adding to one list then takes amortized O(len(b)) time and memory);
 * else a copy into a new array with room for as many items again. */
tv tv_seq_concat(tmpl_rt *rt, tv a, tv b);
/* parts[0] + parts[1] + ... of n >= 1 plain strings (not Markup; checked by
 * the caller), `total` bytes together (at most TMPL_MAX_OUTPUT): appended
 * to parts[0]'s buffer when it is a TVS_ROOM string ending at the used
 * bytes, with room; else copied into a new string, with room for as many
 * bytes again when parts[0] was already a sum (TVS_SUM, TVS_ROOM) and the
 * result is not small. */
tv tv_str_sum(tmpl_rt *rt, const tv *parts, int n, iz total);
/* An empty dict with room for `cap` entries (it grows). */
tv tv_dict_new(tmpl_rt *rt, iz cap);
/* d[key] = val (key must be hashable: TypeError "unhashable type: 'list'"
 * otherwise); a new key goes last, an existing one keeps its place. */
void tv_dict_set(tmpl_rt *rt, tv_dict *d, tv key, tv val);
/* d[key]: true and *out set when present. A str key by its bytes. */
bool tv_dict_get(const tv_dict *d, tv key, tv *out);
/* A lazy dict (see tv_dict): its entries built, as tv_from_json would
 * have built them (its containers stay lazy). Once only; the dict stays
 * the same value. */
void tv_dict_convert(const tv_dict *d);
/* A dict's entries and their number, a lazy one's converted first. */
static ALWAYS_INLINE tv_entry *tv_dict_e(const tv_dict *d)
{
    if (d->lazy)
        tv_dict_convert(d);
    return d->ent;
}
static ALWAYS_INLINE iz tv_dict_n(const tv_dict *d)
{
    if (d->lazy)
        tv_dict_convert(d);
    return d->cnt;
}
/* Whether a dict is empty, a lazy one left as it is. */
static inline bool tv_dict_empty(const tv_dict *d)
{
    return d->lazy ? d->lazy->u.obj.n == 0 : d->cnt == 0;
}
/* The value of member i of a lazy dict (its containers converted once). */
tv tv_dict_lazy_member(const tv_dict *d, iz i);
/* d[key] of a lazy dict, from its JSON members (the last one of a
 * repeated key, as json.loads keeps it); a string inline. */
static ALWAYS_INLINE bool tv_dict_lazy_get(const tv_dict *d, str key, tv *out)
{
    const json_member *m = d->lazy->u.obj.members;
    for (iz i = d->lazy->u.obj.n - 1; i >= 0; i--)
        if (str_eq(m[i].key, key)) {
            const json *j = &m[i].val;
            if (j->type == JSON_STR && j->u.s.len <= TV_MAX_STR)
                *out = tv_str(j->u.s);
            else if (d->memo && d->memo[i].kind != TV_UNDEF)
                *out = d->memo[i];
            else
                *out = tv_dict_lazy_member(d, i);
            return true;
        }
    return false;
}
/* The same for a str key, a small dict's scan inline (attribute access
 * runs it on every `message.role`). */
static ALWAYS_INLINE bool tv_dict_get_str(const tv_dict *d, str key, tv *out)
{
    if (d->lazy)
        return tv_dict_lazy_get(d, key, out);
    if (d->index)
        return tv_dict_get(d, tv_str(key), out);
    for (iz k = 0; k < d->cnt; k++) {
        const tv *ek = &d->ent[k].key;
        if (ek->kind == TV_STR && str_eq(tv_s(*ek), key)) {
            *out = d->ent[k].val;
            return true;
        }
    }
    return false;
}
/* The values of a JSON tree: objects become dicts (a repeated key keeps its
 * first place and its last value), arrays lists, numbers int/bigint/float.
 * A dict is lazy (see tv_dict): a template that reads a message's role and
 * content does not convert its other members. The tree must outlive the
 * render. */
tv tv_from_json(tmpl_rt *rt, const json *j);

/* ---- Python's protocols ------------------------------------------------ */

/* type(v).__name__ as Python error messages print it: "str", "int",
 * "NoneType", "dict", "list", "tuple", "Undefined", "Namespace", ... */
const char *tv_type_name(tv v);
/* The TypeError of a + b where a is a str, list or tuple and b cannot be
 * added to it: CPython's "can only concatenate list (not "int") to list"
 * (the base type's name: a _GroupTuple adds as a tuple), or, for a Markup a
 * (whose __add__ declines), "unsupported operand type(s) for +". */
_Noreturn void tv_concat_error(tmpl_rt *rt, tv a, tv b);
/* bool(v). Undefined is false. Inline: every condition asks it. */
static inline bool tv_truthy(tv v)
{
    switch ((tv_kind)v.kind) {
    case TV_UNDEF:  return false;
    case TV_NONE:   return false;
    case TV_BOOL:   return v.u.b;
    case TV_INT:    return v.u.i != 0;
    case TV_BIGINT: return true;
    case TV_FLOAT:  return v.u.f != 0.0;
    case TV_STR:    return tv_s(v).len > 0;
    case TV_LIST:   return (v.flags & TVF_ITER) || v.u.list->n > 0;
    case TV_TUPLE:  return v.u.list->n > 0;
    case TV_DICT:   return !tv_dict_empty(v.u.dict);
    default:        return true;
    }
}
/* str(v) and repr(v), appended to b. str of an Undefined is "" (a plain
 * Undefined prints nothing; Jinja does not raise there). Big values fail
 * with ERR_LIMIT past TMPL_MAX_OUTPUT. */
void tv_write_str(tmpl_rt *rt, buf *b, tv v);
void tv_write_repr(tmpl_rt *rt, buf *b, tv v);
/* str(v) as a value: v itself for a string, else a new arena string. */
tv tv_to_str(tmpl_rt *rt, tv v);
/* Copies b's bytes into the arena as a string (b is left as is; ERR_LIMIT
 * past TV_MAX_STR). */
tv tv_str_from_buf(tmpl_rt *rt, const buf *b);

/* a == b (never raises; 1 == 1.0 == True; Undefined == Undefined). */
bool tv_eq(tv a, tv b);
/* The same, its work counted in the time budget (tmpl_work: it may fail
 * with ERR_LIMIT there): for values that may be large. */
bool tv_equal(tmpl_rt *rt, tv a, tv b);
/* a < b etc. with Python's rules (numbers with numbers, str with str by code
 * point, lists and tuples lexicographically); TypeError "'<' not supported
 * between instances of 'str' and 'int'" otherwise. op: TMPL_OP_LT/LE/GT/GE. */
bool tv_compare(tmpl_rt *rt, int op, tv a, tv b);
/* Three-way comparison used by sorting: <0, 0, >0; TypeError as above. */
int tv_cmp3(tmpl_rt *rt, tv a, tv b);
/* `needle in hay` (str in str by substring, else by ==; dict by key).
 * TypeError "argument of type 'NoneType' is not iterable",
 * "'in <string>' requires string as left operand, not int". An Undefined
 * hay iterates as empty: false. */
bool tv_contains(tmpl_rt *rt, tv hay, tv needle);
/* len(v): code points of a str; TypeError "object of type 'int' has no
 * len()"; Undefined has length 0. */
iz tv_len(tmpl_rt *rt, tv v);
/* hash for dict keys; TypeError "unhashable type: 'dict'" for unhashables. */
u64 tv_hash(tmpl_rt *rt, tv v);

/* The items iteration yields, as an array: list/tuple items, dict keys,
 * one-character strings of a str; an Undefined yields nothing. TypeError
 * "'NoneType' object is not iterable" for the rest. The array may alias
 * the value's own storage: do not write to it. The time budget counts the
 * array made for a dict or str; a caller that goes through the items of a
 * list counts them itself (a loop's iterations, a filter's value). */
const tv *tv_iterate(tmpl_rt *rt, tv v, iz *n);

/* Jinja's sandboxed attribute access obj.name: a Python attribute first
 * (a str/dict/list method as a bound method, loop.index, a namespace
 * attribute), then obj[name], else an Undefined for (obj, name); unsafe
 * attributes (mutating methods, names starting with '_') give an Undefined
 * raising SecurityError "access to attribute 'append' of 'list' object is
 * unsafe.". An Undefined obj raises its error. */
tv tv_getattr(tmpl_rt *rt, tv obj, str name);
/* The same with what the name is on the built-in types found beforehand
 * (tmpl_getattr_meths), or NULL. */
tv tv_getattr_known(tmpl_rt *rt, tv obj, str name, const tmpl_attr_meths *m);
/* Jinja's obj[key]: Python's subscript first (list/tuple/str by int with
 * negative indices, dict by key), then, for a str key, the attribute, else
 * an Undefined. Slicing is tv_slice. An Undefined obj raises. */
tv tv_getitem(tmpl_rt *rt, tv obj, tv key);
/* obj[start:stop:step] of a list, tuple or str (absent parts are
 * TV_NONE); ValueError "slice step cannot be zero"; TypeError "'NoneType' object
 * is not subscriptable" for what cannot be sliced (Jinja slices with Python's own
 * subscript, so no Undefined comes back). */
tv tv_slice(tmpl_rt *rt, tv obj, tv start, tv stop, tv step);

/* Arguments of a call as evaluated: positional then keyword. */
typedef struct tv_args {
    const tv  *pos;
    i32        npos;
    const str *kwname;
    const tv  *kw;
    i32        nkw;
} tv_args;

/* The steps of going through a call's arguments (their outermost level). */
static inline iz tv_args_steps(const tv_args *a)
{
    iz n = a->npos + a->nkw;
    for (i32 i = 0; i < a->npos; i++)
        n += tv_steps(a->pos[i]);
    for (i32 i = 0; i < a->nkw; i++)
        n += tv_steps(a->kw[i]);
    return n;
}

/* Binds a compiled program to the runtime (tmpl_globals.c), the
 * compiler's last step: the symbols of the global functions (sym_global)
 * and, for every constant attribute name, what it is on the built-in types
 * (tmpl_attr_meths) and the shapes the evaluator takes in their own
 * functions (GETATTR's op). */
void tmpl_runtime_bind(tmpl_prog *p);
/* Calls a global function (a TV_FUNC) or a joiner (tmpl_globals.c). */
tv tmpl_global_call(tmpl_rt *rt, tv callee, const tv_args *args);
/* a <op> b for the arithmetic operators TMPL_OP_ADD..TMPL_OP_POW
 * (tmpl_arith.c): Python's results and exceptions; `%` of a str formats. */
tv tmpl_binop(tmpl_rt *rt, int op, tv a, tv b);

/* Calls a bound method (tmpl_methods.c). */
tv tmpl_method_call(tmpl_rt *rt, const tv_method *m, const tv_args *args);
/* The method `name` of a value of kind `kind` (TV_STR, TV_DICT, TV_LIST,
 * TV_TUPLE, TV_LOOP, TV_CYCLER), or TVM_NONE. */
tv_meth tmpl_method_lookup(int kind, str name);
/* What `name` is on the built-in types (tmpl_attr_meths). */
tmpl_attr_meths tmpl_getattr_meths(str name);
/* loop.<attribute> (a TVL_* other than TVL_NONE). */
tv tv_loop_attr_value(tmpl_rt *rt, tv_loop *l, tv_loop_attr a);

/* Filters and tests (tmpl_filters.c, tmpl_tests.c). `v` is the filtered value; `id` a
 * tmpl_filter_id / tmpl_test_id (never UNKNOWN: the evaluator raises for
 * those). Argument errors raise TypeError as Python would. */
tv   tmpl_filter_apply(tmpl_rt *rt, int id, tv v, const tv_args *args);
bool tmpl_test_apply(tmpl_rt *rt, int id, tv v, const tv_args *args);
/* The tests of a value's kind, the ones most often asked, when they have
 * nothing to bind: true and *r set for those (tmpl_test_apply's first step,
 * inline for the evaluator). */
static ALWAYS_INLINE bool tmpl_test_kind(int id, tv v, bool *r)
{
    switch ((tmpl_test_id)id) {
    case TMPL_TEST_DEFINED:   *r = v.kind != TV_UNDEF; return true;
    case TMPL_TEST_UNDEFINED: *r = v.kind == TV_UNDEF; return true;
    case TMPL_TEST_NONE:      *r = v.kind == TV_NONE; return true;
    case TMPL_TEST_STRING:    *r = v.kind == TV_STR; return true;
    case TMPL_TEST_MAPPING:   *r = v.kind == TV_DICT; return true;
    default:                  return false;
    }
}

/* Python's `fmt % args` for a str (or Markup) fmt: a tuple spreads, a dict
 * serves %(key)s, anything else is the one argument (tmpl_format.c). */
tv tv_percent(tmpl_rt *rt, tv fmt, tv args);

/* json.dumps of a value as transformers' tojson does it (tmpl_json.c: ensure_ascii,
 * indent, separators, sort_keys as pyfmt_dumps_opts), appended to b.
 * TypeError "Object of type Undefined is not JSON serializable" etc. */
void tv_write_json(tmpl_rt *rt, buf *b, tv v, const void *pyfmt_opts);

#endif
