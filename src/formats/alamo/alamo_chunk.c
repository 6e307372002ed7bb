/* Petroglyph chunk reader and writer (see chunk.h). */
#include "formats/alamo/alamo_chunk.h"

#include "core/internal.h"

ganim_code gc_fail(ganim_error *err, const char *fmt, const char *what, const ganim_reader *parent,
                   const ganim_chunk *c)
{
    uint64_t end = parent->base + parent->size;
    if (end - c->offset < 8)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, c->offset,
                          "%s: %s: chunk header at byte %llu is cut off (%llu bytes left before byte %llu)", fmt, what,
                          (unsigned long long)c->offset, (unsigned long long)(end - c->offset),
                          (unsigned long long)end);
    ganim_reader r = gr_init(parent->data + (c->offset - parent->base), 8, c->offset);
    uint32_t type = 0, size = 0;
    (void)gr_u32le(&r, &type);
    (void)gr_u32le(&r, &size);
    return ganim_fail(err, GANIM_ERR_TRUNCATED, c->offset,
                      "%s: %s: chunk 0x%x at byte %llu announces %u bytes but its parent ends at byte %llu", fmt, what,
                      type, (unsigned long long)c->offset, size & 0x7FFFFFFFu, (unsigned long long)end);
}

ganim_code gc_fail_mini(ganim_error *err, const char *fmt, const char *what, const ganim_reader *parent,
                        const ganim_mini *m)
{
    uint64_t end = parent->base + parent->size;
    if (end - m->offset < 2)
        return ganim_fail(err, GANIM_ERR_TRUNCATED, m->offset, "%s: %s: mini-chunk header at byte %llu is cut off", fmt,
                          what, (unsigned long long)m->offset);
    const uint8_t *p = parent->data + (m->offset - parent->base);
    return ganim_fail(err, GANIM_ERR_TRUNCATED, m->offset,
                      "%s: %s: mini-chunk %u at byte %llu announces %u bytes but its chunk ends at byte %llu", fmt,
                      what, p[0], (unsigned long long)m->offset, p[1], (unsigned long long)end);
}

ganim_chunk_writer gcw_init(ganim_writer *w)
{
    ganim_chunk_writer cw;
    memset(&cw, 0, sizeof cw);
    cw.w = w;
    return cw;
}

void gcw_begin(ganim_chunk_writer *cw, uint32_t type)
{
    if (cw->depth >= GC_MAX_DEPTH) {
        cw->failed = true;
        return;
    }
    if (cw->depth) cw->has_children[cw->depth - 1] = true;
    cw->start[cw->depth] = gw_pos(cw->w);
    cw->has_children[cw->depth] = false;
    cw->depth++;
    gw_u32le(cw->w, type);
    gw_u32le(cw->w, 0); /* patched by gcw_end */
}

void gcw_end(ganim_chunk_writer *cw)
{
    if (cw->depth == 0) {
        cw->failed = true;
        return;
    }
    cw->depth--;
    if (!gw_ok(cw->w)) return;
    size_t start = cw->start[cw->depth];
    size_t len = gw_pos(cw->w) - start - 8;
    if (len > 0x7FFFFFFFu) {
        cw->failed = true;
        return;
    }
    uint32_t size = (uint32_t)len | (cw->has_children[cw->depth] ? 0x80000000u : 0u);
    gw_patch_u32le(cw->w, start + 4, size);
}

void gcw_data(ganim_chunk_writer *cw, uint32_t type, const void *body, size_t n)
{
    gcw_begin(cw, type);
    if (n) gw_bytes(cw->w, body, n);
    gcw_end(cw);
}

void gcw_mini(ganim_chunk_writer *cw, uint8_t type, const void *body, size_t n)
{
    if (n > 255) {
        cw->failed = true;
        return;
    }
    gw_u8(cw->w, type);
    gw_u8(cw->w, (uint8_t)n);
    if (n) gw_bytes(cw->w, body, n);
}

void gcw_mini_u32(ganim_chunk_writer *cw, uint8_t type, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    gcw_mini(cw, type, b, 4);
}
