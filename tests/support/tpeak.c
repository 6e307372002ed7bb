/* The counting allocator of tpeak.h. */
#include "support/tpeak.h"

#include <stdlib.h>

static void *pk_alloc(void *user, size_t size)
{
    peak_alloc *c = user;
    void *p = malloc(size);
    if (p && (c->live += size) > c->peak) c->peak = c->live;
    return p;
}

static void *pk_realloc(void *user, void *p, size_t old, size_t size)
{
    peak_alloc *c = user;
    void *q = realloc(p, size);
    if (q && (c->live = c->live - old + size) > c->peak) c->peak = c->live;
    return q;
}

static void pk_free(void *user, void *p, size_t size)
{
    peak_alloc *c = user;
    if (p) c->live -= size;
    free(p);
}

ganim_allocator peak_allocator(peak_alloc *pk) { return (ganim_allocator){ pk_alloc, pk_realloc, pk_free, pk }; }
