/* table.c - the rows in flight and the tracking state (table.h). Rows live
 * in one allocation each (the row and its uuid), found through an open-
 * addressing hash table with linear probing and backward-shift deletion,
 * so a run of millions of samples keeps only those in flight. */
#include "table.h"

#include <stdlib.h>

#include "../base/hash.h"

typedef struct slot {
    u64      h;
    agg_row *row;     /* NULL: empty */
} slot;

typedef struct block {
    i64 start_ns, last_complete_ns;
    i64 completed;
} block;

struct agg_table {
    slot  *s;
    iz     cap, n;           /* cap a power of two; n rows */
    bool   tracking;
    block *b;
    iz     nb, cb;
    i64    max_issued;       /* _loadgen_max_issued_ns (-1) */
    bool   has_start, has_end;
    i64    window_start, window_end;
};

agg_table *agg_table_new(err *e)
{
    agg_table *t = calloc(1, sizeof *t);
    if (t) {
        t->cap = 1024;
        t->s = calloc((size_t)t->cap, sizeof *t->s);
    }
    if (!t || !t->s) {
        free(t);
        err_set(e, ERR_NOMEM, -1, "out of memory");
        return NULL;
    }
    t->max_issued = -1;
    return t;
}

void agg_table_free(agg_table *t)
{
    if (!t)
        return;
    for (iz k = 0; k < t->cap; k++)
        free(t->s[k].row);
    free(t->s);
    free(t->b);
    free(t);
}

static iz find(const agg_table *t, str uuid, u64 h)
{
    iz mask = t->cap - 1;
    for (iz i = (iz)(h & (u64)mask);; i = (i + 1) & mask) {
        const slot *x = &t->s[i];
        if (!x->row || (x->h == h && str_eq(x->row->uuid, uuid)))
            return i;
    }
}

agg_row *agg_table_get(agg_table *t, str uuid)
{
    return t->s[find(t, uuid, hash_str(uuid))].row;
}

static bool grow(agg_table *t)
{
    iz cap = t->cap * 2;
    slot *s = calloc((size_t)cap, sizeof *s);
    if (!s)
        return false;
    for (iz k = 0; k < t->cap; k++) {
        if (!t->s[k].row)
            continue;
        iz i = (iz)(t->s[k].h & (u64)(cap - 1));
        while (s[i].row)
            i = (i + 1) & (cap - 1);
        s[i] = t->s[k];
    }
    free(t->s);
    t->s = s;
    t->cap = cap;
    return true;
}

agg_row *agg_table_add(agg_table *t, str uuid, bool *existed)
{
    u64 h = hash_str(uuid);
    iz i = find(t, uuid, h);
    *existed = t->s[i].row != NULL;
    if (*existed)
        return t->s[i].row;
    if ((t->n + 1) * 4 > t->cap * 3) {   /* at most 3/4 full */
        if (!grow(t))
            return NULL;
        i = find(t, uuid, h);
    }
    agg_row *r = malloc(sizeof *r + (size_t)uuid.len + 1);
    if (!r)
        return NULL;
    u8 *key = (u8 *)(r + 1);
    if (uuid.len)
        memcpy(key, uuid.s, (size_t)uuid.len);
    key[uuid.len] = 0;
    *r = (agg_row){.uuid = str_from(key, uuid.len), .block = -1};
    t->s[i] = (slot){h, r};
    t->n++;
    return r;
}

iz agg_table_len(const agg_table *t)
{
    return t->n;
}

/* Removes the row at slot i, moving later rows of its probe run back. */
static void remove_at(agg_table *t, iz i)
{
    free(t->s[i].row);
    t->s[i] = (slot){0};
    t->n--;
    iz mask = t->cap - 1;
    for (iz j = (i + 1) & mask; t->s[j].row; j = (j + 1) & mask) {
        iz home = (iz)(t->s[j].h & (u64)mask);
        /* the row at j may move to i when i lies on its probe path */
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            t->s[i] = t->s[j];
            t->s[j] = (slot){0};
            i = j;
        }
    }
}

bool agg_table_start_tracking(agg_table *t, i64 ts)
{
    if (t->tracking)
        return true;   /* a START while tracking does nothing */
    if (t->nb == t->cb) {
        iz c = t->cb ? t->cb * 2 : 8;
        block *b = realloc(t->b, (size_t)c * sizeof *b);
        if (!b)
            return false;
        t->b = b;
        t->cb = c;
    }
    t->b[t->nb++] = (block){ts, ts, 0};
    t->tracking = true;
    return true;
}

void agg_table_stop_tracking(agg_table *t)
{
    t->tracking = false;
}

bool agg_table_tracking(const agg_table *t)
{
    return t->tracking;
}

i64 agg_table_current_block(const agg_table *t)
{
    return (i64)t->nb - 1;
}

void agg_table_issued(agg_table *t, i64 ts)
{
    if (!t->has_start) {
        t->has_start = true;
        t->window_start = ts;
    }
}

void agg_table_complete(agg_table *t, agg_row *row, i64 ts)
{
    if (row->block >= 0 && row->block < (i64)t->nb) {
        block *b = &t->b[row->block];
        if (ts > b->last_complete_ns)
            b->last_complete_ns = ts;
        b->completed++;
    }
    /* the legacy window ends at the completion of the last-issued request */
    if (row->has_issued && row->issued_ns > t->max_issued) {
        t->max_issued = row->issued_ns;
        t->has_end = true;
        t->window_end = ts;
    }
    remove_at(t, find(t, row->uuid, hash_str(row->uuid)));
}

agg_i128 agg_table_tracked_duration(const agg_table *t)
{
    agg_i128 sum = 0;
    for (iz k = 0; k < t->nb; k++)
        sum += (agg_i128)t->b[k].last_complete_ns - t->b[k].start_ns;
    return sum;
}

agg_i128 agg_table_loadgen_window(const agg_table *t)
{
    if (!t->has_start || !t->has_end)
        return 0;
    agg_i128 w = (agg_i128)t->window_end - t->window_start;
    return w > 0 ? w : 0;
}
