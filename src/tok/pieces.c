/* pieces.c - the piece list the pre-tokenizers fill (tok_internal.h). */
#include "tok_internal.h"

void tok_pieces_push(tok_work *w, tok_pieces *p, str s)
{
    if (p->n == p->cap)
        p->v = arena_grow(&w->scratch, p->v, (iz)sizeof(str), (iz)_Alignof(str), p->n, &p->cap, p->n + 1);
    p->v[p->n++] = s;
}
