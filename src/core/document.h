/* What a document keeps beside its public fields (ganim_doc.internal): its allocator, the
 * limits it was read under, its arena and the room of its growing arrays. Only the files
 * that make and feed documents see it: arena.c, limits.c, warnings.c. */
#ifndef GANIM_CORE_DOCUMENT_H
#define GANIM_CORE_DOCUMENT_H

#include "core/internal.h"

typedef struct arena_block {
    struct arena_block *next;
    size_t size; /* bytes after the header */
    size_t used;
    uint64_t serial; /* blocks made before it (ganim_doc_release frees the newer) */
} arena_block;

struct ganim_doc_internal {
    ganim_allocator alloc;
    ganim_limits limits; /* resolved */
    size_t limit;
    size_t total;      /* bytes obtained from the allocator for blocks */
    arena_block *head; /* current small-allocation block first */
    uint64_t blocks;   /* blocks made so far (the next one's serial) */
    /* A reader's scratch document and the document it reads into (ganim_doc_scratch):
     * each one's blocks count against the limit of both while both live. */
    struct ganim_doc_internal *peer;
    uint32_t warning_capacity;
    /* The size of the first small-allocation block when none is made yet (ARENA_BLOCK
     * but for a read of a small input: ganim_doc_size_for_input). */
    uint32_t first_block;
    /* The input a read lends (ganim_doc_lend_input): kept whole as a record instead of a
     * copy of it (ganim_doc_keep_input), then owned and freed with the document. */
    ganim_buffer *lent;
    int lent_kept;
    /* The document's allocation holds its first block (a small read's scratch): that
     * block, serial 0, is never given to the allocator alone. */
    int embedded;
    /* A small read's document (ganim_doc_create_for_input) holds, after its first block,
     * room for its scratch document and the scratch's first block (ganim_doc_scratch):
     * the parent's `slot` 0 none, 1 free, 2 a scratch there (`home` the scratch's
     * internals); the scratch's `nested` 1 (`home` its parent's internals). A scratch there
     * frees no allocation of its own: the parent's is freed by whichever of the two is
     * freed last (the scratch's `home_freed`: the parent was freed first). */
    uint8_t slot, nested, home_freed;
    struct ganim_doc_internal *home;
    size_t bytes; /* the document's allocation */
    ganim_buffer owned;
    const uint8_t *borrowed; /* ganim_doc_borrow_input: the caller's, never freed here */
    size_t borrowed_size;
    ganim_doc_growth growth; /* arrays the building functions grow (build.c) */
    int rotations_vouched;   /* ganim_doc_vouch_rotations, until ganim_doc_vouch_end */
    int vectors_vouched;     /* ganim_doc_vouch_vectors, likewise */
};

#endif
