/* FF7 battle animations: the frame stream's bit code, both directions (the stream and its
 * delta codes: docs/formats/ff7-battle.md, "What the decoder relies on").
 * Every delta the encoder writes gets its shortest code (unique per value), so
 * re-encoding a stream the game or its tools coded optimally gives back its bytes. */
#include <string.h>

#include "formats/ff7/ff7.h"

/* ---- decoding ---------------------------------------------------------------------- */

/* Types 1..6 hold v in [2^(n-1), 2^n - 1] or [-2^n, -2^(n-1) - 1], i.e. n is the bit
 * length of v, or of -v - 1 (= ~v) below zero; from 64 (or below -64) the raw code. */
unsigned ff7_rot_code_bits(int32_t v, unsigned bkey)
{
    static const uint8_t bit_length[64] = { 0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5,
                                            5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6,
                                            6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6 };
    if (v == 0) return 1;
    if (v == -1) return 4;
    uint32_t m = v > 0 ? (uint32_t)v : ~(uint32_t)v;
    return m < 64 ? 4u + bit_length[m] : 4 + 12 - bkey;
}

/* One rotation delta in units of 2^bkey from the stream bits at the top of w (bits past
 * the end of the stream read as zero); returns the code's length in bits. The code is 1
 * bit (0: delta 0), or a 1 and a 3-bit type t: 0 is -1, 1..6 a t-bit value v (stored as
 * v - 2^(t-1), or v + 2^(t-1) below zero), 7 a raw `kraw` = (12 - bkey)-bit value (kraw in
 * 1..12). Only a type-7 code can be longer than the delta's shortest (every other code is
 * the only one of its length for its values), so *best is cleared only there. */
unsigned ff7_rot_delta(uint64_t w, unsigned kraw, unsigned bkey, int32_t *v, bool *best)
{
    if (!(w >> 63)) {
        *v = 0;
        return 1;
    }
    unsigned t = (unsigned)(w >> 60) & 7u;
    if (t == 0) {
        *v = -1;
        return 4;
    }
    unsigned k = t == 7 ? kraw : t;
    int32_t u = (int32_t)((w << 4) >> (64u - k)), neg = (int32_t)(u >> (k - 1)); /* k-bit two's complement */
    if (t == 7) {
        *v = u - (neg << k);
        if (ff7_rot_code_bits(*v, bkey) != 4 + k) *best = false;
    } else { /* s = u - neg * 2^t; v = s + 2^(t-1), or s - 2^(t-1) below zero */
        *v = u + ((int32_t)1 << (t - 1)) - (neg << (t + 1));
    }
    return 4 + k;
}

/* The codes of at most 10 bits (every type but 7), by the first 10 stream bits: the
 * delta and the code's length (0: a type-7 code, decoded by ff7_rot_delta). Built by the
 * compiler from the rules above; test_ff7_angles compares it with ff7_rot_delta. */
#define FF7_CT(i) (((i) >> 6) & 7)
#define FF7_CU(i) (((i) >> ((6 - FF7_CT(i)) & 7)) & ((1 << FF7_CT(i)) - 1))
#define FF7_CV(i)          \
    (!((i) >> 9)      ? 0  \
     : FF7_CT(i) == 0 ? -1 \
     : FF7_CT(i) == 7      \
         ? 0               \
         : FF7_CU(i) + (1 << ((FF7_CT(i) + 7) & 7)) - ((FF7_CU(i) >> ((FF7_CT(i) + 7) & 7)) << (FF7_CT(i) + 1)))
#define FF7_CL(i) (!((i) >> 9) ? 1 : FF7_CT(i) == 0 ? 4 : FF7_CT(i) == 7 ? 0 : 4 + FF7_CT(i))
#define FF7_C1(i)                               \
    {                                           \
        (int16_t) FF7_CV(i), (uint8_t)FF7_CL(i) \
    }
#define FF7_C4(i) FF7_C1(i), FF7_C1((i) + 1), FF7_C1((i) + 2), FF7_C1((i) + 3)
#define FF7_C16(i) FF7_C4(i), FF7_C4((i) + 4), FF7_C4((i) + 8), FF7_C4((i) + 12)
#define FF7_C64(i) FF7_C16(i), FF7_C16((i) + 16), FF7_C16((i) + 32), FF7_C16((i) + 48)
#define FF7_C256(i) FF7_C64(i), FF7_C64((i) + 64), FF7_C64((i) + 128), FF7_C64((i) + 192)
const ff7_short_code ff7_short_codes[1024] = { FF7_C256(0), FF7_C256(256), FF7_C256(512), FF7_C256(768) };

/* One rotation code from the top of x: the delta added to the previous frame's angle, x
 * shifted past the code, its length added to `used`. The table gives the codes of at
 * most 10 bits; a type-7 code (len 0 in the table) goes through locals, so that v and
 * frame_best stay in registers. */
#define FF7_ONE_CODE(k)                                                                  \
    do {                                                                                 \
        ff7_short_code c = ff7_short_codes[x >> 54];                                     \
        int32_t v = c.delta;                                                             \
        unsigned len = c.len;                                                            \
        if (!len) { /* type 7 */                                                         \
            int32_t t;                                                                   \
            bool fb = frame_best;                                                        \
            len = ff7_rot_delta(x, kraw, bkey, &t, &fb);                                 \
            frame_best = fb;                                                             \
            v = t;                                                                       \
        }                                                                                \
        x <<= len;                                                                       \
        used += len;                                                                     \
        cr[i + (k)] = (uint16_t)(((uint32_t)pr[i + (k)] + (uint32_t)v * step) & 0xFFFu); \
    } while (0)

/* The rotation codes of one frame (per of them, a multiple of 3) from bit `pos` on, when
 * the frame's codes end before pos + per * 16 and a window at pos + per * 16 + 64 lies
 * inside the stream; returns the position after them. x holds the stream from the
 * position on, left-aligned, `valid` bits of it (57 or more at a slot's start; a slot's
 * three codes take 48 at most), up to the byte at np. After a slot the 8 bytes at np,
 * loaded one slot ahead, fill it again: as many whole bytes as fit. Bits below `valid` are
 * stream bits too (the bytes of a load that did not fit), so the next fill ORs them with
 * themselves. So the next slot's bits wait on a shift and an OR, not on a load whose
 * address depends on the slot's codes (a chain of loads that held the decoder to ~30
 * cycles a slot). Every load lies inside: np stays within 8 bytes of the position. */
static size_t frame_codes_inside(const uint8_t *stream, size_t pos, size_t per, const uint16_t *pr, uint16_t *cr,
                                 uint32_t step, unsigned kraw, unsigned bkey, bool *best)
{
    const uint8_t *np = stream + (pos >> 3) + 8u;
    unsigned valid = 64u - (unsigned)(pos & 7u);
    uint64_t x = gb_msb_window64_proven(stream, pos), fresh = gb_msb_window64_proven(np, 0);
    bool frame_best = *best;
    size_t i = 0;
    do {
        unsigned used = 0;
        FF7_ONE_CODE(0);
        FF7_ONE_CODE(1);
        FF7_ONE_CODE(2);
        valid -= used; /* 9 or more */
        x |= fresh >> valid;
        unsigned bytes = (64u - valid) >> 3;
        np += bytes;
        valid += bytes * 8u;
        fresh = gb_msb_window64_proven(np, 0);
        i += 3;
    } while (i < per);
    *best = frame_best;
    return (size_t)(np - stream) * 8u - valid;
}

uint32_t ff7_decode_stream(const uint8_t *stream, size_t size, unsigned bkey, uint32_t slots, uint32_t max_frames,
                           int32_t *pos, uint16_t *rot, size_t *bits, bool *shortest)
{
    ganim_bits b = gb_init(stream, size);
    size_t per = (size_t)slots * 3u;
    bool best = true;
    *bits = 0;
    if (max_frames == 0 || bkey >= 12) return 0; /* bkey 12 and up: no first frame can be read */
    unsigned kraw = 12u - bkey;
    uint64_t proven = gb_msb_proven_limit(size);
    for (int i = 0; i < 3; i++) {
        if (!gb_msb_s(&b, 16, &pos[i])) return 0;
    }
    for (size_t i = 0; i < per; i++) {
        int32_t v;
        if (!gb_msb_s(&b, 12 - bkey, &v)) return 0;
        rot[i] = (uint16_t)((uint32_t)v * (1u << bkey) & 0xFFFu);
    }
    uint32_t n = 1;
    size_t good = b.pos;
    while (n < max_frames) {
        const int32_t *pp = pos + (size_t)(n - 1) * 3u;
        const uint16_t *pr = rot + (size_t)(n - 1) * per;
        int32_t *cp = pos + (size_t)n * 3u;
        uint16_t *cr = rot + (size_t)n * per;
        bool ok = true, frame_best = true;
        if (b.pos < proven) {
            /* the three position deltas (8 or 17 bits each, 51 at most) from one window */
            uint64_t w = gb_msb_window64_proven(stream, b.pos);
            unsigned used = 0;
            for (int k = 0; k < 3; k++) {
                uint64_t x = w << used;
                if (x >> 63) {
                    int32_t d = (int32_t)(int16_t)(uint16_t)(x >> 47);
                    cp[k] = pp[k] + d;
                    if (d >= -64 && d <= 63) frame_best = false;
                    used += 17;
                } else {
                    uint32_t u = (uint32_t)((x << 1) >> 57); /* 7-bit two's complement */
                    cp[k] = pp[k] + (int32_t)u - (int32_t)((u & 64u) << 1);
                    used += 8;
                }
            }
            b.pos += used;
        } else {
            for (int i = 0; i < 3 && ok; i++) {
                uint32_t f;
                int32_t d;
                ok = gb_msb_u(&b, 1, &f) && gb_msb_s(&b, f ? 16 : 7, &d);
                if (ok) {
                    cp[i] = pp[i] + d;
                    if (f && d >= -64 && d <= 63) frame_best = false;
                }
            }
        }
        /* Where the 8-byte window at the position lies inside the stream, one load gives
         * 57 stream bits: codes are at most 16 bits, so a slot's three codes (48 bits at
         * most) come from one load with no bound to check. When every window of the
         * frame lies inside, with 64 bits to spare (its codes take at most per * 16 bits),
         * the frame's slots run with no bound check at all (frame_codes_inside);
         * elsewhere each slot's window is checked, and at the end of the stream one code
         * at a time, each checked against the end. */
        size_t i = 0;
        uint32_t step = 1u << bkey;
        if (ok && b.pos < proven && proven - b.pos > per * 16u + 64u) {
            b.pos = frame_codes_inside(stream, b.pos, per, pr, cr, step, kraw, bkey, &frame_best);
            i = per;
        }
        while (ok && i < per && b.pos < proven) { /* per is a multiple of 3 */
            uint64_t x = gb_msb_window64_proven(stream, b.pos);
            unsigned used = 0;
            FF7_ONE_CODE(0);
            FF7_ONE_CODE(1);
            FF7_ONE_CODE(2);
            b.pos += used;
            i += 3;
        }
#undef FF7_ONE_CODE
        while (ok && i < per) {
            int32_t v;
            if (b.pos < b.nbits) {
                unsigned len = ff7_rot_delta(gb_msb_window64(stream, size, b.pos), kraw, bkey, &v, &frame_best);
                if (len > b.nbits - b.pos) {
                    ok = false;
                } else {
                    b.pos += len;
                    cr[i] = (uint16_t)(((uint32_t)pr[i] + (uint32_t)v * step) & 0xFFFu);
                    i++;
                }
            } else {
                ok = false;
            }
        }
        if (!ok) break; /* the frame does not fit: it is not part of the animation */
        best = best && frame_best;
        good = b.pos;
        n++;
    }
    *bits = good;
    if (shortest) *shortest = best;
    return n;
}

/* ---- encoding ---------------------------------------------------------------------- */

/* Difference cur - prev modulo 4096 in [-2048, 2047]. */
static int32_t wrap_delta(uint16_t cur, uint16_t prev)
{
    return (int32_t)(((uint32_t)cur - (uint32_t)prev + 2048u) & 4095u) - 2048;
}

/* Exact division of a multiple of 2^bkey (no shift of negative values). */
static int32_t units(int32_t d, unsigned bkey) { return d / (int32_t)(1u << bkey); }

size_t ff7_stream_bits(unsigned bkey, uint32_t slots, uint32_t frames, const int32_t *pos, const uint16_t *rot)
{
    size_t per = (size_t)slots * 3u;
    if (frames == 0) return 0;
    for (int i = 0; i < 3; i++)
        if (pos[i] < -32768 || pos[i] > 32767) return SIZE_MAX;
    size_t bits = 48u + per * (12u - bkey);
    for (size_t f = 1; f < frames; f++) {
        for (size_t i = 0; i < 3; i++) {
            int64_t d = (int64_t)pos[f * 3 + i] - pos[(f - 1) * 3 + i];
            if (d >= -64 && d <= 63) bits += 8;
            else if (d >= -32768 && d <= 32767) bits += 17;
            else return SIZE_MAX;
        }
        const uint16_t *c = rot + f * per, *p = c - per;
        for (size_t i = 0; i < per; i++) bits += ff7_rot_code_bits(units(wrap_delta(c[i], p[i]), bkey), bkey);
    }
    return bits;
}

static void put_rot_delta(ganim_bitwriter *bw, int32_t v, unsigned bkey)
{
    if (v == 0) {
        gbw_put(bw, 1, 0);
        return;
    }
    if (v == -1) {
        gbw_put(bw, 4, 8); /* 1 000 */
        return;
    }
    for (unsigned n = 1; n <= 6; n++) {
        int32_t lo = (int32_t)1 << (n - 1), hi = ((int32_t)1 << n) - 1;
        if (v >= lo && v <= hi) {
            gbw_put(bw, 4, 8u | n);
            gbw_put(bw, n, (uint32_t)(v - lo));
            return;
        }
        if (v >= -hi - 1 && v <= -lo - 1) {
            gbw_put(bw, 4, 8u | n);
            gbw_put(bw, n, (uint32_t)(v + lo) & ((1u << n) - 1u));
            return;
        }
    }
    gbw_put(bw, 4, 15);
    gbw_put(bw, 12 - bkey, (uint32_t)v & ((1u << (12 - bkey)) - 1u));
}

void ff7_encode_stream(ganim_bitwriter *bw, unsigned bkey, uint32_t slots, uint32_t frames, const int32_t *pos,
                       const uint16_t *rot)
{
    size_t per = (size_t)slots * 3u;
    uint32_t mask = (1u << (12 - bkey)) - 1u;
    if (frames == 0) return;
    for (int i = 0; i < 3; i++) gbw_put(bw, 16, (uint32_t)pos[i] & 0xFFFFu);
    for (size_t i = 0; i < per; i++) gbw_put(bw, 12 - bkey, ((uint32_t)rot[i] >> bkey) & mask);
    for (size_t f = 1; f < frames; f++) {
        for (size_t i = 0; i < 3; i++) {
            int32_t d = pos[f * 3 + i] - pos[(f - 1) * 3 + i];
            if (d >= -64 && d <= 63) {
                gbw_put(bw, 1, 0);
                gbw_put(bw, 7, (uint32_t)d & 0x7Fu);
            } else {
                gbw_put(bw, 1, 1);
                gbw_put(bw, 16, (uint32_t)d & 0xFFFFu);
            }
        }
        const uint16_t *c = rot + f * per, *p = c - per;
        for (size_t i = 0; i < per; i++) put_rot_delta(bw, units(wrap_delta(c[i], p[i]), bkey), bkey);
    }
    gbw_flush(bw);
}
