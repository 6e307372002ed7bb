/* The caller-replaceable allocator, with malloc as the default. */
#include <stdlib.h>

#include "core/internal.h"

static void *std_alloc(void *user, size_t size)
{
    (void)user;
    return malloc(size ? size : 1);
}
static void *std_realloc(void *user, void *p, size_t old_size, size_t new_size)
{
    (void)user;
    (void)old_size;
    return realloc(p, new_size ? new_size : 1);
}
static void std_free(void *user, void *p, size_t size)
{
    (void)user;
    (void)size;
    free(p);
}

ganim_allocator ganim_allocator_resolve(const ganim_allocator *a)
{
    if (a && a->alloc && a->realloc && a->free) return *a;
    ganim_allocator d = { std_alloc, std_realloc, std_free, NULL };
    return d;
}

int ganim_allocator_is_default(const ganim_allocator *a) { return a->alloc == std_alloc && a->free == std_free; }

void *ganim_alloc(const ganim_allocator *a, size_t size) { return a->alloc(a->user, size); }

void *ganim_realloc(const ganim_allocator *a, void *p, size_t old_size, size_t new_size)
{
    if (!p) return a->alloc(a->user, new_size);
    return a->realloc(a->user, p, old_size, new_size);
}

void ganim_free(const ganim_allocator *a, void *p, size_t size)
{
    if (p) a->free(a->user, p, size);
}

void ganim_buffer_free(ganim_buffer *buf)
{
    if (!buf) return;
    if (buf->data) {
        ganim_allocator a = ganim_allocator_resolve(&buf->allocator);
        ganim_free(&a, buf->data, buf->capacity);
    }
    buf->data = NULL;
    buf->size = buf->capacity = 0;
}
