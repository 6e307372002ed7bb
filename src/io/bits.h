/* Bounded bit readers (MSB-first and LSB-first) and an MSB-first bit writer.
 * Readers never touch a byte beyond `nbits`; a failed read does not advance. */
#ifndef GANIM_IO_BITS_H
#define GANIM_IO_BITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "writer.h"

typedef struct ganim_bits {
    const uint8_t *data;
    size_t nbits; /* readable bits from data[0] bit 0 of the order in use */
    size_t pos;   /* next bit */
} ganim_bits;

static inline ganim_bits gb_init(const uint8_t *data, size_t nbytes)
{
    ganim_bits b = { data, nbytes * 8u, 0 };
    return b;
}
static inline size_t gb_left(const ganim_bits *b) { return b->nbits - b->pos; }

/* MSB-first: bit 0 of the stream is bit 7 of byte 0. n in 0..32. */
static inline bool gb_msb_u(ganim_bits *b, unsigned n, uint32_t *out)
{
    if (n > 32 || n > b->nbits - b->pos) return false;
    uint64_t v = 0;
    size_t pos = b->pos;
    unsigned left = n;
    while (left) {
        unsigned bit = (unsigned)(pos & 7u);
        unsigned take = 8u - bit;
        if (take > left) take = left;
        unsigned byte = b->data[pos >> 3];
        unsigned chunk = (byte >> (8u - bit - take)) & ((1u << take) - 1u);
        v = (v << take) | chunk;
        pos += take;
        left -= take;
    }
    b->pos = pos;
    *out = (uint32_t)v;
    return true;
}
/* MSB-first two's complement, n in 1..32, sign-extended. */
static inline bool gb_msb_s(ganim_bits *b, unsigned n, int32_t *out)
{
    uint32_t u;
    if (n == 0 || !gb_msb_u(b, n, &u)) return false;
    if (n < 32 && (u & (1u << (n - 1)))) *out = (int32_t)((int64_t)u - ((int64_t)1 << n));
    else *out = (int32_t)u;
    return true;
}
/* LSB-first: bit 0 of the stream is bit 0 of byte 0. n in 0..32. */
static inline bool gb_lsb_u(ganim_bits *b, unsigned n, uint32_t *out)
{
    if (n > 32 || n > b->nbits - b->pos) return false;
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        size_t p = b->pos + i;
        v |= (uint64_t)((unsigned)(b->data[p >> 3] >> (p & 7u)) & 1u) << i;
    }
    b->pos += n;
    *out = (uint32_t)v;
    return true;
}

/* LSB-first, one byte (0 or 1) per bit: the first `count` bits of data[0..nbytes) into
 * out[0..count). false (nothing written) when count > nbytes * 8. */
static inline bool gb_lsb_unpack(const uint8_t *data, size_t nbytes, size_t count, uint8_t *out)
{
    if (nbytes > SIZE_MAX / 8u ? false : count > nbytes * 8u) return false;
    size_t whole = count >> 3;
    for (size_t j = 0; j < whole; j++, out += 8) {
        /* bit k of the byte alone in byte k (value 1 << k), then each byte to 0 or 1:
         * adding 0x7f to a byte of at most 0x80 sets its top bit iff it was not 0 */
        uint64_t v = ((uint64_t)data[j] * 0x0101010101010101u) & 0x8040201008040201u;
        v = ((v + 0x7F7F7F7F7F7F7F7Fu) >> 7) & 0x0101010101010101u;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(out, &v, 8); /* byte k of v to out[k] */
#else
        for (unsigned k = 0; k < 8; k++) out[k] = (uint8_t)(v >> (8u * k));
#endif
    }
    for (size_t i = whole * 8u; i < count; i++) *out++ = (uint8_t)((unsigned)(data[i >> 3] >> (i & 7u)) & 1u);
    return true;
}

/* Random-access MSB-first window (added for the ACL decoder's hot loop): the 64 bits of
 * data[0..nbytes) starting at bit `pos`, first bit in bit 63, bytes past the end read as
 * zero. At least 57 bits are meaningful. The caller has proven pos < nbytes*8. One 8-byte
 * load when it fits inside the data, else a byte-wise tail. */
static inline uint64_t gb_msb_window64(const uint8_t *data, size_t nbytes, size_t pos)
{
    size_t at = pos >> 3;
    const uint8_t *p = data + at;
    uint64_t v;
    if (nbytes - at >= 8) {
        v = ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) | ((uint64_t)p[3] << 32) |
            ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) | ((uint64_t)p[6] << 8) | (uint64_t)p[7];
    } else {
        v = 0;
        for (size_t i = 0; i < 8; i++) v = (v << 8) | (at + i < nbytes ? p[i] : 0u);
    }
    return v << (pos & 7u);
}

/* Block form of gb_msb_window64 for hot loops: the caller proves ONCE, for a whole
 * block of positions, that every `pos` it passes satisfies (pos >> 3) + 8 <= nbytes
 * (gb_msb_proven_limit gives the bound), then reads with one 8-byte load each. */
static inline uint64_t gb_msb_proven_limit(size_t nbytes)
{
    /* positions p with (p >> 3) + 8 <= nbytes are exactly p < limit */
    return nbytes < 8 ? 0 : ((uint64_t)nbytes - 7u) * 8u;
}
/* Always in line: the FF7 and ACL decoders call it from several forms of their loops, and
 * past some size of a file gcc made it a call (~1,700 instructions on wrap_rotation.da's
 * FF7 read). */
static GANIM_ALWAYS_INLINE uint64_t gb_msb_window64_proven(const uint8_t *data, size_t pos)
{
    const uint8_t *p = data + (pos >> 3);
    uint64_t v = ((uint64_t)p[0] << 56) | ((uint64_t)p[1] << 48) | ((uint64_t)p[2] << 40) | ((uint64_t)p[3] << 32) |
                 ((uint64_t)p[4] << 24) | ((uint64_t)p[5] << 16) | ((uint64_t)p[6] << 8) | (uint64_t)p[7];
    return v << (pos & 7u);
}

/* MSB-first bit writer appending to a byte writer; the last byte is zero-padded. */
typedef struct ganim_bitwriter {
    ganim_writer *w;
    uint32_t acc;  /* pending bits, right-aligned */
    unsigned nacc; /* 0..7 */
    size_t bits;   /* total bits written */
} ganim_bitwriter;

static inline ganim_bitwriter gbw_init(ganim_writer *w)
{
    ganim_bitwriter bw = { w, 0, 0, 0 };
    return bw;
}
/* Write the low n bits of v (n in 0..32), most significant first. */
static inline void gbw_put(ganim_bitwriter *bw, unsigned n, uint32_t v)
{
    for (unsigned i = n; i-- > 0;) {
        bw->acc = (bw->acc << 1) | ((v >> i) & 1u);
        if (++bw->nacc == 8) {
            gw_u8(bw->w, (uint8_t)bw->acc);
            bw->acc = 0;
            bw->nacc = 0;
        }
    }
    bw->bits += n;
}
/* Pad the last byte with zero bits. */
static inline void gbw_flush(ganim_bitwriter *bw)
{
    if (bw->nacc) {
        gw_u8(bw->w, (uint8_t)(bw->acc << (8 - bw->nacc)));
        bw->acc = 0;
        bw->nacc = 0;
    }
}

#endif
