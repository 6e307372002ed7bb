/* Bounded little/big-endian cursor over a byte range. The only way src/formats reads
 * file bytes: every read checks the bounds first and never advances on failure. */
#ifndef GANIM_IO_READER_H
#define GANIM_IO_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct ganim_reader {
    const uint8_t *data; /* first byte of the range */
    size_t size;         /* bytes in the range */
    size_t pos;          /* cursor, 0..size */
    uint64_t base;       /* file offset of data[0], for error messages */
} ganim_reader;

static inline ganim_reader gr_init(const uint8_t *data, size_t size, uint64_t base)
{
    ganim_reader r = { data, size, 0, base };
    return r;
}
/* File offset of the cursor. */
static inline uint64_t gr_offset(const ganim_reader *r) { return r->base + r->pos; }
static inline size_t gr_left(const ganim_reader *r) { return r->size - r->pos; }
static inline bool gr_has(const ganim_reader *r, size_t n) { return n <= r->size - r->pos; }

static inline bool gr_skip(ganim_reader *r, size_t n)
{
    if (!gr_has(r, n)) return false;
    r->pos += n;
    return true;
}
static inline bool gr_seek(ganim_reader *r, size_t pos)
{
    if (pos > r->size) return false;
    r->pos = pos;
    return true;
}
/* Points *p at the next n bytes and advances. */
static inline bool gr_bytes(ganim_reader *r, size_t n, const uint8_t **p)
{
    if (!gr_has(r, n)) return false;
    *p = r->data + r->pos;
    r->pos += n;
    return true;
}
static inline bool gr_copy(ganim_reader *r, void *dst, size_t n)
{
    if (!gr_has(r, n)) return false;
    if (n) memcpy(dst, r->data + r->pos, n);
    r->pos += n;
    return true;
}
/* A reader over the next n bytes (its base is the absolute offset); advances past them. */
static inline bool gr_sub(ganim_reader *r, size_t n, ganim_reader *sub)
{
    if (!gr_has(r, n)) return false;
    *sub = gr_init(r->data + r->pos, n, r->base + r->pos);
    r->pos += n;
    return true;
}

static inline bool gr_u8(ganim_reader *r, uint8_t *v)
{
    if (!gr_has(r, 1)) return false;
    *v = r->data[r->pos++];
    return true;
}
static inline bool gr_u16le(ganim_reader *r, uint16_t *v)
{
    if (!gr_has(r, 2)) return false;
    const uint8_t *p = r->data + r->pos;
    *v = (uint16_t)(p[0] | (p[1] << 8));
    r->pos += 2;
    return true;
}
static inline bool gr_u16be(ganim_reader *r, uint16_t *v)
{
    if (!gr_has(r, 2)) return false;
    const uint8_t *p = r->data + r->pos;
    *v = (uint16_t)((p[0] << 8) | p[1]);
    r->pos += 2;
    return true;
}
static inline bool gr_u32le(ganim_reader *r, uint32_t *v)
{
    if (!gr_has(r, 4)) return false;
    const uint8_t *p = r->data + r->pos;
    *v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    r->pos += 4;
    return true;
}
static inline bool gr_u32be(ganim_reader *r, uint32_t *v)
{
    if (!gr_has(r, 4)) return false;
    const uint8_t *p = r->data + r->pos;
    *v = ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
    r->pos += 4;
    return true;
}
static inline bool gr_i16le(ganim_reader *r, int16_t *v)
{
    uint16_t u;
    if (!gr_u16le(r, &u)) return false;
    *v = (int16_t)u; /* implementation-defined in C11, two's complement on every target */
    return true;
}
static inline bool gr_i16be(ganim_reader *r, int16_t *v)
{
    uint16_t u;
    if (!gr_u16be(r, &u)) return false;
    *v = (int16_t)u;
    return true;
}
static inline bool gr_i32le(ganim_reader *r, int32_t *v)
{
    uint32_t u;
    if (!gr_u32le(r, &u)) return false;
    *v = (int32_t)u;
    return true;
}
static inline bool gr_f32le(ganim_reader *r, float *v)
{
    uint32_t u;
    if (!gr_u32le(r, &u)) return false;
    memcpy(v, &u, 4);
    return true;
}
static inline bool gr_f32be(ganim_reader *r, float *v)
{
    uint32_t u;
    if (!gr_u32be(r, &u)) return false;
    memcpy(v, &u, 4);
    return true;
}

/* Unchecked loads for code that has already proven the range with gr_has/gr_bytes. */
static inline uint16_t ganim_ld_u16le(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t ganim_ld_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline float ganim_ld_f32le(const uint8_t *p)
{
    uint32_t u = ganim_ld_u32le(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

#endif
