/* Petroglyph chunk files (Alamo .ALA/.ALO): a tree of chunks, some data chunks being a
 * flat list of mini-chunks.
 *   chunk:      u32 type, u32 size; bit 31 of size = the body holds child chunks,
 *               body length = size & 0x7FFFFFFF (header not counted)
 *   mini-chunk: u8 type, u8 size (0..255), no nesting
 * Every length is checked against the end of the parent before anything is read. */
#ifndef GANIM_FORMATS_ALAMO_CHUNK_H
#define GANIM_FORMATS_ALAMO_CHUNK_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ganim.h"
#include "io/reader.h"
#include "io/writer.h"

typedef struct ganim_chunk {
    uint32_t type;
    uint32_t size;     /* body length in bytes */
    bool container;    /* bit 31 was set */
    uint64_t offset;   /* file offset of the 8-byte header */
    ganim_reader body; /* reader over the body (base = its file offset) */
} ganim_chunk;

typedef struct ganim_mini {
    uint8_t type;
    uint8_t size;
    uint64_t offset; /* file offset of the 2-byte header */
    ganim_reader body;
} ganim_mini;

/* Result of gc_next / gc_next_mini. */
enum { GC_BAD = -1, GC_END = 0, GC_OK = 1 };

/* Next chunk of `parent` (advancing past it). GC_END when the parent is exhausted,
 * GC_BAD when the header is cut off or the body runs past the parent's end; then
 * `c->offset` is where and gc_fail() turns it into an error. */
/* Inline: an ALA track header is ten mini-chunks, so the walk is per-track fixed cost.
 * Both walkers work on a copy of the parent's cursor, taken back only for a whole chunk,
 * and clear the result only when there is none (the hot path writes each field once). */
static inline int gc_next(ganim_reader *parent, ganim_chunk *c)
{
    uint64_t offset = gr_offset(parent);
    ganim_reader r = *parent;
    uint32_t type, size;
    if (!gr_u32le(&r, &type) || !gr_u32le(&r, &size) || !gr_sub(&r, size & 0x7FFFFFFFu, &c->body)) {
        memset(c, 0, sizeof *c);
        c->offset = offset;
        return gr_left(parent) == 0 ? GC_END : GC_BAD;
    }
    c->type = type;
    c->size = size & 0x7FFFFFFFu;
    c->container = (size & 0x80000000u) != 0;
    c->offset = offset;
    *parent = r;
    return GC_OK;
}

static inline int gc_next_mini(ganim_reader *parent, ganim_mini *m)
{
    uint64_t offset = gr_offset(parent);
    ganim_reader r = *parent;
    const uint8_t *h;
    if (!gr_bytes(&r, 2, &h) || !gr_sub(&r, h[1], &m->body)) {
        memset(m, 0, sizeof *m);
        m->offset = offset;
        return gr_left(parent) == 0 ? GC_END : GC_BAD;
    }
    m->type = h[0];
    m->size = h[1];
    m->offset = offset;
    *parent = r;
    return GC_OK;
}

/* Error for a GC_BAD result: "<fmt>: <what> at byte N: ...". */
ganim_code gc_fail(ganim_error *err, const char *fmt, const char *what, const ganim_reader *parent,
                   const ganim_chunk *c);
ganim_code gc_fail_mini(ganim_error *err, const char *fmt, const char *what, const ganim_reader *parent,
                        const ganim_mini *m);

/* Writer: begin/end nest; the size is patched at end, bit 31 set when a child chunk
 * was begun inside (as Petroglyph's own ChunkWriter does). */
#define GC_MAX_DEPTH 8
typedef struct ganim_chunk_writer {
    ganim_writer *w;
    size_t start[GC_MAX_DEPTH];
    bool has_children[GC_MAX_DEPTH];
    unsigned depth;
    bool failed; /* nesting too deep, end without begin, or a body over 2 GiB */
} ganim_chunk_writer;

ganim_chunk_writer gcw_init(ganim_writer *w);
void gcw_begin(ganim_chunk_writer *cw, uint32_t type);
void gcw_end(ganim_chunk_writer *cw);
/* A whole data chunk in one call. */
void gcw_data(ganim_chunk_writer *cw, uint32_t type, const void *body, size_t n);
/* A mini-chunk inside the current data chunk (n <= 255, else the writer fails). */
void gcw_mini(ganim_chunk_writer *cw, uint8_t type, const void *body, size_t n);
void gcw_mini_u32(ganim_chunk_writer *cw, uint8_t type, uint32_t v);
static inline bool gcw_ok(const ganim_chunk_writer *cw) { return !cw->failed && cw->depth == 0 && gw_ok(cw->w); }

#endif
