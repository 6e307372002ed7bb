/* The caller-replaceable allocator, with malloc as the default. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* madvise's MADV_HUGEPAGE */
#endif
#include <stdint.h>
#include <stdlib.h>

#include "core/internal.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Large blocks of the default allocator (an output buffer, a file read whole, a model
 * that takes one arena block) are offered transparent huge pages on Linux: where the
 * system leaves them to madvise (the "madvise" mode), the 2 MiB-aligned inside of the
 * block is marked MADV_HUGEPAGE, so fresh memory comes 2 MiB a fault instead of 4 KB
 * (an 80 MB output: ~20,000 faults a call -> ~100). glibc still owns and reuses the
 * block; a refusal changes nothing. Not on other systems, nor with a caller's allocator. */
#define HUGE_BLOCK ((size_t)4 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

static void *offer_huge(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p && size >= HUGE_BLOCK) {
        uintptr_t from = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        uintptr_t to = ((uintptr_t)p + size) & ~(HUGE_PAGE - 1);
        if (to > from) (void)madvise((void *)from, (size_t)(to - from), MADV_HUGEPAGE);
    }
#else
    (void)size;
#endif
    return p;
}

static void *std_alloc(void *user, size_t size)
{
    (void)user;
    return offer_huge(malloc(size ? size : 1), size);
}
static void *std_realloc(void *user, void *p, size_t old_size, size_t new_size)
{
    (void)user;
    (void)old_size;
    return offer_huge(realloc(p, new_size ? new_size : 1), new_size);
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
