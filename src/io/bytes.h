/* Bit casts between float32 and its IEEE-754 bits, and little-endian stores into a
 * caller's array (for records and headers built in memory). Loads from untrusted bytes
 * go through reader.h instead. */
#ifndef GANIM_IO_BYTES_H
#define GANIM_IO_BYTES_H

#include <stdint.h>
#include <string.h>

static inline float ganim_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint32_t ganim_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline void ganim_st_u16le(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void ganim_st_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#endif
