/* arena.h - bump allocation in chained blocks, the only allocator of the
 * library. Three lifetimes use it: the loaded model (perm, built before any
 * fork and then read-only), per-item scratch (reset after each item), and
 * short-lived helpers that take a scratch arena by value.
 *
 * Out of memory is one path: when the arena's limit is reached, arena_alloc
 * longjmps to `a->oom` if it is set, else returns NULL. Entry points that take
 * untrusted input set `oom` and turn the jump into an error result. */
#ifndef TALLY_ARENA_H
#define TALLY_ARENA_H

#include <setjmp.h>
#include "base.h"

typedef struct arena_block   arena_block;
typedef struct arena_cleanup arena_cleanup;

typedef struct arena {
    arena_block *head;      /* newest block; older ones follow ->prev */
    u8          *beg, *end; /* free space of the newest block */
    iz           used;      /* bytes of all blocks, for the limit */
    iz           limit;     /* 0 = unlimited */
    jmp_buf     *oom;       /* where to jump when out of memory, or NULL */
    arena_cleanup *cleanups;/* newest first; run by arena_fini / arena_restore */
} arena;

/* A point to roll back to; everything allocated after it is released. */
typedef struct {
    arena_block *head;
    u8          *beg, *end;
    iz           used;
    arena_cleanup *cleanups;
} arena_mark;

void  arena_init(arena *a, iz limit);
void  arena_fini(arena *a);               /* frees every block */
void *arena_alloc(arena *a, iz size, iz align, iz count);     /* zeroed */
/* arena_alloc_nz (below, inline): the same, not zeroed */
static inline arena_mark arena_save(const arena *a)
{
    return (arena_mark){a->head, a->beg, a->end, a->used, a->cleanups};
}
/* Makes sure `size` free bytes exist in one block and returns a mark of the
 * current position: restoring it later keeps that block (scratch reuse). */
arena_mark arena_reserve(arena *a, iz size);
/* The slow path of arena_restore: cleanups to run or blocks to free. */
void  arena_restore_slow(arena *a, arena_mark m);
/* Inline: the template evaluator restores a mark after every loop
 * iteration, most often within one block and with no cleanup. */
static inline void arena_restore(arena *a, arena_mark m)
{
    if (a->head == m.head && a->cleanups == m.cleanups) {
        a->beg = m.beg;
        a->end = m.end;
        a->used = m.used;
        return;
    }
    arena_restore_slow(a, m);
}
iz    arena_bytes(const arena *a);        /* bytes reserved from the OS */

/* The slow path of arena_alloc_nz: a new block, or the out-of-memory exit. */
void *arena_alloc_slow(arena *a, iz size, iz align, iz count);

/* Inline so that the bump of the common case (size and align constants of
 * NEW_NZ) compiles to a few instructions. */
static inline void *arena_alloc_nz(arena *a, iz size, iz align, iz count)
{
    iz pad = (iz)(-(uintptr_t)a->beg & (uintptr_t)(align - 1));
    iz avail = a->end - a->beg - pad;
    if (likely(size > 0 && count >= 0 && avail >= 0 && count <= avail / size)) {
        void *p = a->beg + pad;
        a->beg += pad + size * count;
        return p;
    }
    return arena_alloc_slow(a, size, align, count);
}

#define NEW(a, t, n)    ((t *)arena_alloc((a), (iz)sizeof(t), (iz)_Alignof(t), (n)))
#define NEW_NZ(a, t, n) ((t *)arena_alloc_nz((a), (iz)sizeof(t), (iz)_Alignof(t), (n)))

/* Registers fn(p) to run when the arena is finalized (or restored to a mark
 * taken before this call), newest first: for resources that live outside
 * the arena but belong to it (PCRE2 codes, say). */
void arena_on_free(arena *a, void (*fn)(void *), void *p);

/* Copies `s` into the arena (with a trailing NUL, not counted in len). */
str arena_strdup(arena *a, str s);
/* Grows an array allocated in `a` from n to at least need elements; returns
 * the new array (contents copied), updating *cap. */
void *arena_grow(arena *a, void *p, iz size, iz align, iz n, iz *cap, iz need);

#endif
