/* arena.c - chained-block bump allocator (see arena.h for the contract). */
#include <stdlib.h>
#include "arena.h"

struct arena_block {
    arena_block *prev;
    iz           size;   /* bytes after the header */
    _Alignas(16) u8 data[];
};

struct arena_cleanup {
    void         (*fn)(void *);
    void          *p;
    arena_cleanup *next;
};

enum { ARENA_MIN_BLOCK = 64 * 1024 };

static void run_cleanups(arena *a, arena_cleanup *until)
{
    while (a->cleanups && a->cleanups != until) {
        arena_cleanup *c = a->cleanups;
        a->cleanups = c->next;
        c->fn(c->p);
    }
}

void arena_on_free(arena *a, void (*fn)(void *), void *p)
{
    arena_cleanup *c = arena_alloc_nz(a, (iz)sizeof(*c), (iz)_Alignof(arena_cleanup), 1);
    if (!c) {
        fn(p);   /* cannot keep it: release now rather than leak */
        return;
    }
    c->fn = fn;
    c->p = p;
    c->next = a->cleanups;
    a->cleanups = c;
}

void arena_init(arena *a, iz limit)
{
    memset(a, 0, sizeof(*a));
    a->limit = limit;
}

void arena_fini(arena *a)
{
    run_cleanups(a, NULL);
    arena_block *b = a->head;
    while (b) {
        arena_block *prev = b->prev;
        free(b);
        b = prev;
    }
    a->head = NULL;
    a->beg = a->end = NULL;
    a->used = 0;
}

static void *oom(arena *a)
{
    if (a->oom)
        longjmp(*a->oom, 1);
    return NULL;
}

static bool add_block(arena *a, iz need)
{
    iz size = ARENA_MIN_BLOCK;
    if (a->head && a->head->size * 2 > size)
        size = a->head->size * 2;        /* geometric growth keeps blocks few */
    if (size > (iz)1 << 30)
        size = (iz)1 << 30;
    if (size < need)
        size = need;
    if (a->limit && a->used + size > a->limit) {
        size = need;                     /* near the limit, take only what is needed */
        if (a->used + size > a->limit)
            return false;
    }
    arena_block *b = malloc(sizeof(*b) + (size_t)size);
    if (!b)
        return false;
    b->prev = a->head;
    b->size = size;
    a->head = b;
    a->beg = b->data;
    a->end = b->data + size;
    a->used += size;
    return true;
}

void *arena_alloc_slow(arena *a, iz size, iz align, iz count)
{
    if (count < 0 || size <= 0)
        return oom(a);
    for (int tries = 0; tries < 2; tries++) {
        iz pad = a->beg ? (iz)(-(uintptr_t)a->beg & (uintptr_t)(align - 1)) : 0;
        iz avail = a->beg ? a->end - a->beg - pad : 0;
        if (avail >= 0 && count <= avail / size) {
            void *p = a->beg + pad;
            a->beg += pad + size * count;
            return p;
        }
        if (tries || count > (PTRDIFF_MAX - 64) / size)
            break;
        if (!add_block(a, size * count + align))
            break;
    }
    return oom(a);
}

void *arena_alloc(arena *a, iz size, iz align, iz count)
{
    void *p = arena_alloc_nz(a, size, align, count);
    if (p)
        memset(p, 0, (size_t)(size * count));
    return p;
}

void arena_restore_slow(arena *a, arena_mark m)
{
    run_cleanups(a, m.cleanups);
    while (a->head != m.head) {
        arena_block *prev = a->head->prev;
        free(a->head);
        a->head = prev;
    }
    a->beg = m.beg;
    a->end = m.end;
    a->used = m.used;
}

arena_mark arena_reserve(arena *a, iz size)
{
    if (!a->beg || a->end - a->beg < size)
        add_block(a, size);
    return arena_save(a);
}

iz arena_bytes(const arena *a) { return a->used; }

str arena_strdup(arena *a, str s)
{
    u8 *p = arena_alloc_nz(a, 1, 1, s.len + 1);
    if (!p)
        return (str){0};
    if (s.len)
        memcpy(p, s.s, (size_t)s.len);
    p[s.len] = 0;
    return (str){p, s.len};
}

void *arena_grow(arena *a, void *p, iz size, iz align, iz n, iz *cap, iz need)
{
    if (need <= *cap)
        return p;
    iz c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    void *q = arena_alloc_nz(a, size, align, c);
    if (!q)
        return NULL;
    if (n)
        memcpy(q, p, (size_t)(n * size));
    *cap = c;
    return q;
}
