/* An allocator for tests that counts the bytes live and their peak (the sizes the library
 * hands back on realloc and free). Not for library code. */
#ifndef GANIM_TESTS_TPEAK_H
#define GANIM_TESTS_TPEAK_H

#include <stddef.h>

#include "ganim.h"

typedef struct peak_alloc {
    size_t live, peak;
} peak_alloc;

/* malloc, realloc and free, counted in *pk. */
ganim_allocator peak_allocator(peak_alloc *pk);

#endif
