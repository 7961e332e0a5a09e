/* prefix.c - the prefix memory of a work area: long texts counted before,
 * with checkpoints, so that a text which begins as one of them is counted
 * from the last checkpoint inside the common prefix (tok_model.h). */
#include <stdlib.h>
#include <string.h>
#include "tok_model.h"
#include "../base/hash.h"

/* A record in the ring: the text, then its checkpoints (8-byte aligned). */
typedef struct {
    u64 key;       /* 0: empty way */
    u64 at;        /* virtual offset of the record in the ring */
    iz  len;       /* bytes of text */
    iz  nmarks;
    i64 total;     /* the text's count */
} pfx_entry;

enum {
    PFX_SETS  = 256,             /* a power of two */
    PFX_WAYS  = 8,
    PFX_RING  = 32 << 20,        /* bytes of text and checkpoints */
};

struct pfx_store {
    u8       *ring;
    u64       end;               /* virtual end of the last record */
    pfx_entry sets[PFX_SETS][PFX_WAYS];
    pfx_mark *marks;             /* the text being counted: its checkpoints */
    iz        nmarks, capmarks;
    pfx_entry *from;             /* the entry it started from, or NULL */
    i64       resumed;           /* pfx_resumed */
};

pfx_store *pfx_new(void)
{
    pfx_store *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ring = malloc(PFX_RING);
    if (!p->ring) {
        free(p);
        return NULL;
    }
    return p;
}

void pfx_free(pfx_store *p)
{
    if (!p)
        return;
    free(p->ring);
    free(p->marks);
    free(p);
}

void pfx_clear(pfx_store *p)
{
    if (p)
        memset(p->sets, 0, sizeof p->sets);
}

/* A record is whole while nothing written after it has wrapped onto it. */
static bool live(const pfx_store *p, const pfx_entry *en)
{
    return en->key && p->end - en->at <= PFX_RING;
}

static const u8 *text_of(const pfx_store *p, const pfx_entry *en)
{
    return p->ring + en->at % PFX_RING;
}

static const pfx_mark *marks_of(const pfx_store *p, const pfx_entry *en)
{
    return (const pfx_mark *)(p->ring + en->at % PFX_RING + ((en->len + 7) & ~(iz)7));
}

static u64 key_of(str text, int digits)
{
    return (hash_bytes(text.s, PFX_KEY) ^ (u64)digits * 0x9e3779b97f4a7c15u) | 1;
}

/* Length of the common prefix of a and b (n bytes each at most). */
static iz common_prefix(const u8 *a, const u8 *b, iz n)
{
    enum { BLOCK = 4096 };
    iz i = 0;
    while (i + BLOCK <= n && !memcmp(a + i, b + i, BLOCK))
        i += BLOCK;
    while (i + 8 <= n && hash_load8(a + i) == hash_load8(b + i))
        i += 8;
    while (i < n && a[i] == b[i])
        i++;
    return i;
}

bool pfx_start(pfx_store *p, str text, int digits, pfx_mark *start)
{
    p->nmarks = 0;
    p->from = NULL;
    *start = (pfx_mark){0, 0};
    if (text.len < PFX_MIN)
        return false;
    pfx_entry *set = p->sets[key_of(text, digits) & (PFX_SETS - 1)];
    u64 key = key_of(text, digits);
    pfx_entry *best = NULL;
    iz best_l = 0;
    for (int k = 0; k < PFX_WAYS; k++) {
        pfx_entry *en = &set[k];
        if (en->key != key || !live(p, en))
            continue;
        iz n = en->len < text.len ? en->len : text.len;
        iz l = common_prefix(text_of(p, en), text.s, n);
        if (l > best_l) {
            best = en;
            best_l = l;
        }
    }
    if (!best)
        return false;
    /* The new text takes the old one's way when it holds most of it: the
     * next text of a conversation grows from the last one. */
    if (best_l >= best->len / 2)
        p->from = best;
    if (best_l == text.len && best_l == best->len) {   /* the same text */
        p->resumed++;
        *start = (pfx_mark){text.len, best->total};
        return true;
    }
    /* The last checkpoint strictly inside the common prefix: every byte the
     * matches before it looked at is shared (tok_model.h). */
    const pfx_mark *m = marks_of(p, best);
    iz lo = 0, hi = best->nmarks;   /* marks[0, lo) have at + 4 <= best_l */
    while (lo < hi) {
        iz mid = lo + (hi - lo) / 2;
        if (m[mid].at + 4 <= best_l)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return false;
    if (lo > p->capmarks) {
        iz cap = p->capmarks ? p->capmarks : 64;
        while (cap < lo)
            cap *= 2;
        pfx_mark *nm = realloc(p->marks, (size_t)cap * sizeof *nm);
        if (!nm)
            return false;
        p->marks = nm;
        p->capmarks = cap;
    }
    memcpy(p->marks, m, (size_t)lo * sizeof *m);
    p->nmarks = lo;
    *start = m[lo - 1];
    p->resumed++;
    return true;
}

void pfx_mark_at(pfx_store *p, iz at, i64 count)
{
    if (p->nmarks == p->capmarks) {
        iz cap = p->capmarks ? p->capmarks * 2 : 64;
        pfx_mark *nm = realloc(p->marks, (size_t)cap * sizeof *nm);
        if (!nm)
            return;   /* fewer checkpoints: still exact */
        p->marks = nm;
        p->capmarks = cap;
    }
    p->marks[p->nmarks++] = (pfx_mark){at, count};
}

void pfx_commit(pfx_store *p, str text, int digits, i64 total)
{
    if (text.len < PFX_MIN)
        return;
    iz size = ((text.len + 7) & ~(iz)7) + p->nmarks * (iz)sizeof(pfx_mark);
    if (size > PFX_RING / 4)
        return;
    if (p->end % PFX_RING + (u64)size > PFX_RING)   /* records do not wrap */
        p->end += PFX_RING - p->end % PFX_RING;
    u64 key = key_of(text, digits);
    pfx_entry *set = p->sets[key & (PFX_SETS - 1)];
    /* The way: the entry this text grew from (the next text of its
     * conversation will grow from this one), else an empty or stale way,
     * else the oldest. */
    pfx_entry *way = NULL;
    if (p->from && p->from >= &set[0] && p->from < &set[PFX_WAYS])
        way = p->from;
    for (int k = 0; !way && k < PFX_WAYS; k++)
        if (!live(p, &set[k]))
            way = &set[k];
    if (!way) {
        way = &set[0];
        for (int k = 1; k < PFX_WAYS; k++)
            if (set[k].at < way->at)
                way = &set[k];
    }
    u64 at = p->end;
    p->end += (u64)size;
    u8 *dst = p->ring + at % PFX_RING;
    memcpy(dst, text.s, (size_t)text.len);
    if (p->nmarks)
        memcpy(dst + ((text.len + 7) & ~(iz)7), p->marks, (size_t)p->nmarks * sizeof(pfx_mark));
    *way = (pfx_entry){key, at, text.len, p->nmarks, total};
    p->from = NULL;
}

i64 pfx_resumed(const pfx_store *p) { return p ? p->resumed : 0; }

iz pfx_marks_of(const pfx_store *p, str text, int digits, const pfx_mark **marks)
{
    *marks = NULL;
    if (!p || text.len < PFX_MIN)
        return 0;
    u64 key = key_of(text, digits);
    const pfx_entry *set = p->sets[key & (PFX_SETS - 1)];
    for (int k = 0; k < PFX_WAYS; k++)
        if (set[k].key == key && live(p, &set[k]) && set[k].len == text.len &&
            !memcmp(text_of(p, &set[k]), text.s, (size_t)text.len)) {
            *marks = marks_of(p, &set[k]);
            return set[k].nmarks;
        }
    return 0;
}
