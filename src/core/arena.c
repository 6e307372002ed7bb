/* Documents and their arena: a document is made, everything a reader or a building
 * function puts in it is allocated from its arena (strings, bytes, arrays), and all of it
 * is freed at once. */
#include <stdio.h>
#include <string.h>

#include "core/document.h"

#define ARENA_BLOCK (64u * 1024u)
#define DEFAULT_MEMORY_LIMIT ((size_t)1 << 30)

#define HEADER_SIZE ((sizeof(arena_block) + 15u) & ~(size_t)15u)

/* Bytes counted against the limit: the document's blocks and its peer's. */
static size_t counted(const struct ganim_doc_internal *in)
{
    size_t peer = in->peer ? in->peer->total : 0;
    return in->total > SIZE_MAX - peer ? SIZE_MAX : in->total + peer;
}

#define DOC_BYTES (sizeof(ganim_doc) + sizeof(struct ganim_doc_internal))
#define DOC_SIZE ((DOC_BYTES + 15u) & ~(size_t)15u) /* where an embedded block starts */

/* Sets up a document at `doc` (DOC_BYTES, then an embedded first block of `embed` bytes
 * when `block`, HEADER_SIZE + embed, is not 0). */
static GANIM_ALWAYS_INLINE void doc_init(ganim_doc *doc, const ganim_allocator *a, size_t limit, size_t embed,
                                         size_t block)
{
    memset(doc, 0, DOC_BYTES);
    struct ganim_doc_internal *in = (struct ganim_doc_internal *)(doc + 1);
    doc->internal = in;
    in->alloc = *a;
    in->limit = limit;
    in->limits = ganim_default_limits;
    in->first_block = ARENA_BLOCK;
    if (block) {
        arena_block *b = (arena_block *)((uint8_t *)doc + DOC_SIZE);
        b->next = NULL;
        b->size = embed;
        b->used = 0;
        b->serial = in->blocks++;
        in->head = b;
        in->embedded = 1;
        in->total = block; /* counted against the limit like any block */
    }
}

/* The document, and after it an embedded first block of `embed` bytes (0: none); with
 * `slot`, after that block room for a scratch document with a first block of the same
 * size (ganim_doc_scratch). */
static GANIM_ALWAYS_INLINE ganim_doc *doc_create(const ganim_allocator *alloc, size_t memory_limit, size_t embed,
                                                 int slot)
{
    ganim_allocator a = ganim_allocator_resolve(alloc);
    size_t limit = memory_limit ? memory_limit : DEFAULT_MEMORY_LIMIT;
    size_t block = embed ? HEADER_SIZE + embed : 0;
    if (block > limit) block = embed = 0; /* a block that the limit refuses: none, as new_block would */
    if (!block) slot = 0;
    size_t bytes = block ? DOC_SIZE + block : DOC_BYTES;
    if (slot) bytes += DOC_SIZE + block; /* block: a multiple of 16 (embed one of 4 KiB) */
    ganim_doc *doc = ganim_alloc(&a, bytes);
    if (!doc) return NULL;
    doc_init(doc, &a, limit, embed, block);
    doc->internal->slot = (uint8_t)slot;
    doc->internal->bytes = bytes;
    return doc;
}

ganim_doc *ganim_doc_create(const ganim_allocator *alloc, size_t memory_limit)
{
    return doc_create(alloc, memory_limit, 0, 0);
}

/* A first block for a read of n input bytes: 4 n + 4 KiB in whole 4 KiB (a BVH read's
 * document and scratch, the parse's joints among them, take under that), at most the
 * usual block. */
static size_t first_block_for(size_t n)
{
    if (n >= ARENA_BLOCK / 4) return ARENA_BLOCK;
    size_t b = (4u * n + 4096u + 4095u) & ~(size_t)4095u;
    return b < ARENA_BLOCK ? b : ARENA_BLOCK;
}

void ganim_doc_size_for_input(ganim_doc *doc, size_t input_bytes)
{
    doc->internal->first_block = (uint32_t)first_block_for(input_bytes);
}

ganim_doc *ganim_doc_create_for_input(const ganim_allocator *alloc, size_t memory_limit, size_t input_bytes)
{
    size_t first = first_block_for(input_bytes);
    ganim_doc *doc = doc_create(alloc, memory_limit, first < ARENA_BLOCK ? first : 0, 1);
    if (doc) doc->internal->first_block = (uint32_t)first;
    return doc;
}

ganim_doc *ganim_doc_scratch(ganim_doc *doc)
{
    struct ganim_doc_internal *in = doc->internal;
    /* a small read's scratch has its first block inside its own allocation, counted
     * against the limit with the document's blocks as new_block would count it */
    size_t first = in->first_block < ARENA_BLOCK ? in->first_block : 0, used = in->peer ? 0 : counted(in);
    if (first && (used > in->limit || HEADER_SIZE + first > in->limit - used)) first = 0;
    ganim_doc *s;
    size_t own = in->embedded ? ((arena_block *)((uint8_t *)doc + DOC_SIZE))->size : 0;
    if (first && in->slot == 1 && !in->peer && first == own) {
        /* the room in the document's allocation: the same document and block that
         * doc_create would make, without an allocation */
        s = (ganim_doc *)((uint8_t *)doc + DOC_SIZE + HEADER_SIZE + own);
        doc_init(s, &in->alloc, in->limit, first, HEADER_SIZE + first);
        s->internal->home = in;
        s->internal->nested = 1;
        in->home = s->internal;
        in->slot = 2;
    } else {
        s = doc_create(&in->alloc, in->limit, first, 0);
    }
    if (s) s->internal->first_block = in->first_block;
    if (!s || in->peer) return s; /* one scratch linked at a time; another counts alone */
    s->internal->peer = in;
    in->peer = s->internal;
    return s;
}

void ganim_doc_free(ganim_doc *doc)
{
    if (!doc) return;
    struct ganim_doc_internal *in = doc->internal;
    if (in->peer && in->peer->peer == in) in->peer->peer = NULL;
    ganim_allocator a = in->alloc;
    arena_block *b = in->head;
    arena_block *embedded = in->embedded ? (arena_block *)((uint8_t *)doc + DOC_SIZE) : NULL;
    while (b) {
        arena_block *next = b->next;
        if (b != embedded) ganim_free(&a, b, HEADER_SIZE + b->size);
        b = next;
    }
    ganim_buffer_free(&in->owned);
    if (in->nested) { /* a scratch in its parent's allocation */
        if (in->home_freed) ganim_free(&a, (ganim_doc *)in->home - 1, in->home->bytes);
        else in->home->slot = 1;
        return;
    }
    if (in->slot == 2) { /* its scratch lives on: the scratch frees the allocation */
        in->home->home_freed = 1;
        return;
    }
    ganim_free(&a, doc, in->bytes);
}

const ganim_allocator *ganim_doc_allocator(const ganim_doc *doc) { return &doc->internal->alloc; }

ganim_doc_growth *ganim_doc_growth_of(ganim_doc *doc) { return &doc->internal->growth; }

size_t ganim_doc_memory_limit(const ganim_doc *doc) { return doc->internal->limit; }

static arena_block *new_block(struct ganim_doc_internal *in, size_t size)
{
    if (size > SIZE_MAX - HEADER_SIZE) return NULL;
    size_t bytes = HEADER_SIZE + size;
    size_t used = counted(in);
    if (bytes > in->limit || used > in->limit - bytes) return NULL;
    arena_block *b = ganim_alloc(&in->alloc, bytes);
    if (!b) return NULL;
    in->total += bytes;
    b->size = size;
    b->used = 0;
    b->serial = in->blocks++;
    return b;
}

ganim_doc_mark_t ganim_doc_mark(const ganim_doc *doc)
{
    const struct ganim_doc_internal *in = doc->internal;
    ganim_doc_mark_t m = { in->head, in->head ? in->head->used : 0, in->blocks };
    return m;
}

/* Blocks only join the list in front of the current block or right behind it, and the
 * older ones keep their order: without the newer ones the list is as it was at the mark. */
void ganim_doc_release(ganim_doc *doc, ganim_doc_mark_t mark)
{
    struct ganim_doc_internal *in = doc->internal;
    arena_block **at = &in->head;
    while (*at) {
        arena_block *b = *at;
        if (b->serial < mark.blocks) {
            at = &b->next;
            continue;
        }
        *at = b->next;
        in->total -= HEADER_SIZE + b->size;
        ganim_free(&in->alloc, b, HEADER_SIZE + b->size);
    }
    if (in->head && in->head == mark.head) in->head->used = mark.used;
}

/* doc_alloc's way when the current block has no room (`size` already rounded): a new
 * block, or a large allocation's own. Out of line, so that the common case saves no
 * registers. */
static GANIM_OUT_OF_LINE void *doc_alloc_block(struct ganim_doc_internal *in, size_t size, int zero)
{
    arena_block *b = in->head;
    if (size > ARENA_BLOCK / 4) {
        /* Large: its own block, linked behind the current one so small allocations
         * keep filling the current block. */
        arena_block *big = new_block(in, size);
        if (!big) return NULL;
        big->used = size;
        if (b) {
            big->next = b->next;
            b->next = big;
        } else {
            big->next = NULL;
            in->head = big;
        }
        void *p = (uint8_t *)big + HEADER_SIZE;
        if (zero) memset(p, 0, size);
        return p;
    }
    /* the first block of a small read's document is smaller (ganim_doc_size_for_input) */
    size_t bsize = !in->blocks && size <= in->first_block ? in->first_block : ARENA_BLOCK;
    arena_block *nb = new_block(in, bsize);
    if (!nb) return NULL;
    nb->next = in->head;
    in->head = nb;
    nb->used = size;
    void *p = (uint8_t *)nb + HEADER_SIZE;
    if (zero) memset(p, 0, size);
    return p;
}

static GANIM_ALWAYS_INLINE void *doc_alloc(ganim_doc *doc, size_t size, int zero)
{
    struct ganim_doc_internal *in = doc->internal;
    if (size == 0) size = 1;
    if (size > SIZE_MAX - 15u) return NULL;
    size = (size + 15u) & ~(size_t)15u;
    arena_block *b = in->head;
    if (b && b->size - b->used >= size) {
        void *p = (uint8_t *)b + HEADER_SIZE + b->used;
        b->used += size;
        if (zero) memset(p, 0, size);
        return p;
    }
    return doc_alloc_block(in, size, zero);
}

void *ganim_doc_alloc(ganim_doc *doc, size_t size) { return doc_alloc(doc, size, 1); }

void *ganim_doc_alloc_array_raw(ganim_doc *doc, size_t count, size_t size)
{
    size_t total;
    if (!ganim_mul_size(count, size, &total)) return NULL;
    return doc_alloc(doc, total, 0);
}

int ganim_doc_reserve(ganim_doc *doc, size_t size)
{
    struct ganim_doc_internal *in = doc->internal;
    arena_block *b = in->head;
    if (b && b->size - b->used >= size) return 1;
    if (size < ARENA_BLOCK) size = ARENA_BLOCK;
    arena_block *nb = new_block(in, size);
    if (!nb) return 0;
    nb->next = in->head;
    in->head = nb;
    return 1;
}

void *ganim_doc_alloc_array(ganim_doc *doc, size_t count, size_t size)
{
    size_t total;
    if (!ganim_mul_size(count, size, &total)) return NULL;
    return ganim_doc_alloc(doc, total);
}

char *ganim_doc_strndup(ganim_doc *doc, const char *s, size_t n)
{
    const char *nul = n ? memchr(s, 0, n) : NULL; /* stops at the first NUL, like the copy */
    size_t len = nul ? (size_t)(nul - s) : n;
    char *p = ganim_doc_alloc_array_raw(doc, len + 1, 1); /* every byte written below */
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *ganim_doc_strdup(ganim_doc *doc, const char *s) { return ganim_doc_strndup(doc, s ? s : "", s ? strlen(s) : 0); }

char *ganim_doc_name_u32(ganim_doc *doc, const char *prefix, uint32_t n)
{
    char digits[10]; /* 4294967295: 10 digits */
    size_t k = 0, len = strlen(prefix);
    do {
        digits[k++] = (char)('0' + n % 10u);
        n /= 10u;
    } while (n);
    char *p = ganim_doc_alloc_array_raw(doc, len + k + 1, 1); /* every byte written below */
    if (!p) return NULL;
    memcpy(p, prefix, len);
    for (size_t i = 0; i < k; i++) p[len + i] = digits[k - 1 - i];
    p[len + k] = '\0';
    return p;
}

uint8_t *ganim_doc_memdup(ganim_doc *doc, const void *p, size_t n)
{
    uint8_t *d = ganim_doc_alloc_array_raw(doc, n, 1); /* not zeroed: the copy writes each byte */
    if (d && n) memcpy(d, p, n);
    return d;
}

void ganim_doc_lend_input(ganim_doc *doc, ganim_buffer *buf)
{
    doc->internal->lent = buf;
    doc->internal->lent_kept = 0;
}

const uint8_t *ganim_doc_keep_input(ganim_doc *doc, const uint8_t *data, size_t size)
{
    struct ganim_doc_internal *in = doc->internal;
    ganim_buffer *b = in->lent;
    if (in->borrowed && in->borrowed == data && in->borrowed_size == size) return data;
    size_t used = counted(in);
    if (b && b->data == data && b->size == size && size && !in->owned.data && used <= in->limit &&
        b->capacity <= in->limit - used) {
        in->lent_kept = 1;
        in->total += b->capacity; /* counted against the memory limit as a copy would be */
        return data;
    }
    return ganim_doc_memdup(doc, data, size);
}

void ganim_doc_lend_end(ganim_doc *doc, int ok)
{
    struct ganim_doc_internal *in = doc->internal;
    if (in->lent && in->lent_kept) {
        if (ok) {
            in->owned = *in->lent;
            memset(in->lent, 0, sizeof *in->lent);
        } else {
            in->total -= in->lent->capacity;
        }
    }
    in->lent = NULL;
    in->lent_kept = 0;
    in->borrowed = NULL;
    in->borrowed_size = 0;
}

void ganim_doc_borrow_input(ganim_doc *doc, const uint8_t *data, size_t size)
{
    doc->internal->borrowed = size ? data : NULL;
    doc->internal->borrowed_size = size;
}

void ganim_doc_vouch_rotations(ganim_doc *doc) { doc->internal->rotations_vouched = 1; }

int ganim_doc_rotations_vouched(const ganim_doc *doc) { return doc->internal && doc->internal->rotations_vouched; }

void ganim_doc_vouch_vectors(ganim_doc *doc) { doc->internal->vectors_vouched = 1; }

int ganim_doc_vectors_vouched(const ganim_doc *doc) { return doc->internal && doc->internal->vectors_vouched; }

void ganim_doc_vouch_end(ganim_doc *doc)
{
    if (doc->internal) doc->internal->rotations_vouched = doc->internal->vectors_vouched = 0;
}

char *ganim_doc_vprintf(ganim_doc *doc, const char *fmt, va_list ap)
{
    char tmp[1024];
    ganim_vformat(tmp, sizeof tmp, fmt, ap);
    return ganim_doc_strdup(doc, tmp);
}

char *ganim_doc_printf(ganim_doc *doc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = ganim_doc_vprintf(doc, fmt, ap);
    va_end(ap);
    return s;
}
