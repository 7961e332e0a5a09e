/* json.h - JSON reader and writer on a value model that keeps what Python's
 * json module keeps: int vs float (and ints beyond 64 bits, as source text),
 * object key order and duplicate keys (lookups take the last, as Python's
 * dict does). Depends on base/ only.
 *
 * Lifetime: a parsed tree lives in the arena it was parsed into, and its
 * unescaped strings point into the source buffer, so the source must outlive
 * the tree. Past a document's first 16 keys, equal object keys share the
 * bytes of their first occurrence, so a key's pointer says nothing about
 * where in the source its member is: use `off`. Nothing here is global;
 * trees are read-only after parsing and can be shared between threads and
 * forked processes. */
#ifndef TALLY_JSON_H
#define TALLY_JSON_H

#include "../base/arena.h"
#include "../base/buf.h"
#include "../base/err.h"

typedef enum {
    JSON_NULL,
    JSON_BOOL,
    JSON_INT,     /* i holds the value unless big */
    JSON_FLOAT,
    JSON_STR,
    JSON_ARR,
    JSON_OBJ,
} json_type;

typedef struct json        json;
typedef struct json_member json_member;

/* A node is 32 bytes (on 64-bit targets), a member 48: a render of a long
 * chat history out of cache waits on the tree's memory, so the node keeps
 * only what some reader needs. `type` holds a json_type in one byte (a
 * switch over it casts it back, to keep the compiler's check that every
 * type is handled); `off` fits in 32 bits because json_parse refuses a
 * text over JSON_MAX_TEXT bytes. */
struct json {
    u8        type;  /* a json_type */
    bool      big;   /* JSON_INT that does not fit i64: see u.num */
    i32       off;   /* byte offset of the value in the source; -1 for
                      * a node built by hand */
    union {
        bool   b;
        struct {     /* JSON_INT and JSON_FLOAT only */
            union {
                i64    i;
                double f;
            };
            str num; /* source text of the number */
        };
        str    s;    /* valid UTF-8 */
        /* tree: how many bytes just before the block hold its nested
         * containers' blocks and its copied strings, for
         * json_prefetch_tree (json_parse allocates a container's block
         * when it closes; 0 when unknown) */
        struct { json *items; iz n; u32 tree; } arr;
        struct { json_member *members; iz n; u32 tree; } obj;
    } u;
};

struct json_member {
    str  key;
    json val;
};

_Static_assert(sizeof(json) <= 32, "a JSON node grew past 32 bytes");
_Static_assert(sizeof(json_member) <= 48, "a JSON object member grew past 48 bytes");

enum {
    JSON_MAX_DEPTH = 512,         /* default nesting limit */
    JSON_MAX_TEXT  = INT32_MAX,   /* the longest text json_parse reads (json.off) */
};

typedef struct {
    int max_depth;   /* 0 = JSON_MAX_DEPTH */
} json_opts;

/* Parses exactly one JSON value (surrounded by optional whitespace).
 * Returns NULL on error and fills `e` (offset, line, column, and a message
 * naming what was found). Out of memory in `a` is reported the same way,
 * and so is a text longer than JSON_MAX_TEXT (ERR_LIMIT). */
json *json_parse(arena *a, str src, const json_opts *opt, err *e);

/* Object member lookup (the last member with that key), or NULL. */
const json *json_get(const json *obj, str key);
/* Typed lookups: NULL when absent or of another type. */
const json *json_get_type(const json *obj, str key, json_type t);
const char *json_type_name(json_type t);
/* Python's view of a parsed value (json.loads): bool(v) (NULL: False; NaN
 * is true) and type(v).__name__ ("NoneType", "int", "str", "list", ...). */
bool        json_truthy(const json *v);
const char *json_pytype(const json *v);
/* Asks for the memory of a parsed container's tree ahead of a reader that
 * will walk it out of cache: its block, then its nested blocks and copied
 * strings (u.arr.tree) in ascending order (a stream the hardware
 * prefetchers follow), at most `max` bytes of each. A hint: it reads
 * nothing but v, and does nothing for a scalar or an empty container. */
void json_prefetch_tree(const json *v, iz max);
static inline bool json_is(const json *v, json_type t) { return v && v->type == t; }

/* Flags the bytes among the 8 of w (as loaded from memory) that are '"',
 * '\\', a control character, DEL or not ASCII, the bytes a JSON string
 * reader or writer must look at, with their high bit (and may flag more
 * above the first, see json_swar_first); 0 when there is none. Scanners
 * go 8 bytes at a time with it. */
static inline u64 json_swar_mask(u64 w)
{
    const u64 ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    u64 q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    u64 has_q = (q - ones) & ~q;          /* a zero byte in q: a quote */
    u64 has_b = (b - ones) & ~b;          /* a backslash */
    u64 has_c = w - ones * 0x20;          /* a byte below 0x20 borrows */
    u64 has_d = w + ones;                 /* DEL (0x7f) carries into the high bit */
    return (has_q | has_b | has_c | has_d | w) & high;
}

/* Where the first byte to look at is among the 8 bytes loaded into w (w
 * as memcpy loads it), given json_swar_mask(w) != 0: a flag can be false
 * only above a true one (each test's borrow or carry runs upwards from a
 * byte it rightly flags), so the lowest flag is right. 0 where the byte
 * order is not known: the scan goes on from the first byte then. */
static inline int json_swar_first(u64 mask)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return __builtin_ctzll(mask) >> 3;
#else
    (void)mask;
    return 0;
#endif
}

/* Writes s as a JSON string literal (UTF-8 kept, control characters and
 * quotes escaped as Python's json.dumps(ensure_ascii=False) does). */
void json_write_str(buf *b, str s);
/* Compact writer (separators "," and ":"); numbers as in the source. */
void json_write(buf *b, const json *v);

#endif
