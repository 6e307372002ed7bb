/* FF7 battle bit coder: random animations round-trip exactly; the coder is never larger
 * than Kimera's (its size rule re-implemented here from the note, §7.1); hand-computed
 * sizes and code bits (Qhimm's examples). */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS, sysconf: the guard pages of the lanes' test */
#endif
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#define FF7_TEST_GUARD_PAGES 1
#else
#define FF7_TEST_GUARD_PAGES 0
#endif

#include "formats/ff7/ff7.h"
#include "test.h"
#if FF7_HAVE_AVX
#include <cpuid.h>
#endif

/* xorshift64*: deterministic */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}
static int32_t rnd_range(int32_t lo, int32_t hi) { return lo + (int32_t)(rnd() % (uint32_t)(hi - lo + 1)); }

/* Kimera's size rule (note §7.1, items 3-5): frame 0 as ours; position deltas 8 or 17
 * bits; a rotation delta in reduced units is masked to 12-bKey bits (unsigned): 0 -> 1
 * bit, else the smallest n in 1..6 with v < 2^n -> 4+n bits, else raw 4+12-bKey bits
 * (type 0 never, every negative delta raw). */
static size_t kimera_bits(unsigned key, uint32_t slots, uint32_t frames, const int32_t *pos, const uint16_t *rot)
{
    size_t per = (size_t)slots * 3, bits = 48 + per * (12 - key);
    uint32_t mask = (1u << (12 - key)) - 1;
    for (size_t f = 1; f < frames; f++) {
        for (int i = 0; i < 3; i++) {
            int32_t d = pos[f * 3 + i] - pos[(f - 1) * 3 + i];
            bits += d >= -64 && d <= 63 ? 8 : 17;
        }
        for (size_t i = 0; i < per; i++) {
            int32_t d = (int32_t)(rot[f * per + i] >> key) - (int32_t)(rot[(f - 1) * per + i] >> key);
            uint32_t v = (uint32_t)d & mask;
            if (v == 0) {
                bits += 1;
                continue;
            }
            unsigned n = 1;
            while (n <= 6 && v >= (1u << n)) n++;
            bits += n <= 6 ? 4 + n : 4 + 12 - key;
        }
    }
    return bits;
}

static ganim_buffer encode(unsigned key, uint32_t slots, uint32_t frames, const int32_t *pos, const uint16_t *rot)
{
    ganim_buffer b;
    memset(&b, 0, sizeof b);
    ganim_writer w = gw_init(&b, NULL);
    ganim_bitwriter bw = gbw_init(&w);
    ff7_encode_stream(&bw, key, slots, frames, pos, rot);
    CHECK(gw_ok(&w));
    return b;
}

/* An entry's stream of random walks: positions by -100..100 a frame, each rotation by
 * 0..40 steps of 2^key (12 bits), drawn positions first, then rotations frame by frame. */
static ganim_buffer random_walk_stream(unsigned key, uint32_t slots, uint32_t frames)
{
    size_t per = (size_t)slots * 3;
    int32_t *pos = malloc(frames * 3 * sizeof *pos);
    uint16_t *rot = malloc(frames * per * sizeof *rot);
    for (size_t i = 0; i < (size_t)frames * 3; i++) pos[i] = (i < 3 ? 0 : pos[i - 3]) + rnd_range(-100, 100);
    for (size_t i = 0; i < frames * per; i++)
        rot[i] = (uint16_t)((((i < per ? 0 : rot[i - per]) + (uint32_t)rnd_range(0, 40) * (1u << key)) & 0xFFFu));
    ganim_buffer st = encode(key, slots, frames, pos, rot);
    free(pos);
    free(rot);
    return st;
}

TEST(random_animations_roundtrip)
{
    int cases = 0;
    for (int iter = 0; iter < 3000; iter++) {
        unsigned key = (unsigned)(rnd() % 3) * 2;
        uint32_t slots = (uint32_t)rnd_range(1, 24), frames = (uint32_t)rnd_range(1, 40);
        int style = iter % 4; /* small deltas, large deltas, wrap-around spins, mixed */
        size_t per = (size_t)slots * 3;
        int32_t *pos = malloc(frames * 3 * sizeof *pos);
        uint16_t *rot = malloc(frames * per * sizeof *rot);
        for (int i = 0; i < 3; i++) pos[i] = rnd_range(-32768, 32767);
        for (size_t i = 0; i < per; i++) rot[i] = (uint16_t)(rnd() & 4095 & ~((1u << key) - 1));
        for (uint32_t f = 1; f < frames; f++) {
            for (int i = 0; i < 3; i++) {
                int32_t prev = pos[(f - 1) * 3 + i], d;
                int kind = rnd_range(0, 5);
                if (kind < 3) d = rnd_range(-64, 63);
                else if (kind == 3) d = rnd_range(-70, 70);
                else d = rnd_range(-32768, 32767);
                /* keep positions within int16 so frame 0 of any re-encoding fits */
                if (prev + d > 32767 || prev + d < -32768) d = -d / 2;
                if (prev + d > 32767 || prev + d < -32768) d = 0;
                pos[f * 3 + i] = prev + d;
            }
            for (size_t i = 0; i < per; i++) {
                int32_t prev = rot[(f - 1) * per + i], d;
                int kind = style == 3 ? rnd_range(0, 2) : style;
                if (kind == 0) d = rnd_range(-70, 70);
                else if (kind == 1) d = rnd_range(-2048, 2047);
                else d = rnd_range(-1, 1) * 2000 + rnd_range(-3, 3);
                d *= (int32_t)(rnd() % 4 == 0 ? 1 : 1u << key);
                rot[f * per + i] = (uint16_t)((uint32_t)(prev + d) & 4095 & ~((1u << key) - 1));
            }
        }
        size_t bits = ff7_stream_bits(key, slots, frames, pos, rot);
        ganim_buffer b = encode(key, slots, frames, pos, rot);
        CHECK_EQ_INT(b.size, (bits + 7) / 8);
        int32_t *dp = malloc(frames * 3 * sizeof *dp);
        uint16_t *dr = malloc(frames * per * sizeof *dr);
        size_t used = 0;
        bool shortest = false;
        uint32_t n = ff7_decode_stream(b.data, b.size, key, slots, frames, dp, dr, &used, &shortest);
        CHECK_EQ_INT(n, frames);
        CHECK_EQ_INT(used, bits);
        CHECK(shortest);
        CHECK(memcmp(dp, pos, frames * 3 * sizeof *dp) == 0);
        CHECK(memcmp(dr, rot, frames * per * sizeof *dr) == 0);
        /* a decoder asked for more frames than there are never invents one */
        uint32_t n2 = ff7_decode_stream(b.data, b.size, key, slots, frames, dp, dr, &used, NULL);
        CHECK_EQ_INT(n2, frames);
        size_t kb = kimera_bits(key, slots, frames, pos, rot);
        CHECK_MSG(bits <= kb, "iteration %d: %zu bits, Kimera %zu", iter, bits, kb);
        free(dp);
        free(dr);
        free(pos);
        free(rot);
        ganim_buffer_free(&b);
        cases++;
    }
    CHECK_EQ_INT(cases, 3000);
}

/* Every rotation delta of every bKey decodes back, with the code length the note gives. */
TEST(every_delta_every_bkey)
{
    for (unsigned key = 0; key <= 4; key += 2) {
        for (int32_t v = -(2048 >> key); v < (2048 >> key); v++) {
            uint16_t rot[6] = { 0, 0, 0, 0, 0, 0 };
            int32_t pos[6] = { 0, 0, 0, 0, 0, 0 };
            rot[3] = (uint16_t)((uint32_t)(v * (1 << key)) & 4095);
            ganim_buffer b = encode(key, 1, 2, pos, rot);
            int32_t dp[6];
            uint16_t dr[6];
            size_t used;
            CHECK_EQ_INT(ff7_decode_stream(b.data, b.size, key, 1, 2, dp, dr, &used, NULL), 2);
            CHECK_EQ_INT(dr[3], rot[3]);
            unsigned want = v == 0 ? 1 : v == -1 ? 4 : 0;
            for (unsigned n = 1; n <= 6 && !want; n++)
                if ((v >= (1 << (n - 1)) && v <= (1 << n) - 1) || (v >= -(1 << n) && v <= -(1 << (n - 1)) - 1))
                    want = 4 + n;
            if (!want) want = 16 - key;
            CHECK_EQ_INT(used, 48 + 3 * (12 - key) + 24 + want + 2);
            ganim_buffer_free(&b);
        }
    }
    /* ff7_rot_code_bits against the same rule, for every bKey a stream can have and
     * deltas beyond the raw code's range on both sides */
    for (unsigned key = 0; key < 12; key++) {
        for (int32_t v = -5000; v <= 5000; v++) {
            unsigned want = v == 0 ? 1 : v == -1 ? 4 : 0;
            for (unsigned n = 1; n <= 6 && !want; n++)
                if ((v >= (1 << (n - 1)) && v <= (1 << n) - 1) || (v >= -(1 << n) && v <= -(1 << (n - 1)) - 1))
                    want = 4 + n;
            if (!want) want = 16 - key;
            if (ff7_rot_code_bits(v, key) != want) {
                CHECK_MSG(0, "bKey %u, delta %d: %u bits, the rule says %u", key, v, ff7_rot_code_bits(v, key), want);
                return;
            }
        }
    }
    /* the decoding loops' test of a raw (type-7) code, ff7_raw_is_shortest, against
     * ff7_rot_code_bits for every bKey and every value the raw code of 12 - bKey bits
     * holds: shortest exactly when no shorter code holds the value */
    unsigned shortest = 0;
    for (unsigned key = 0; key < 12; key++) {
        int32_t half = 2048 >> key;
        for (int32_t v = -half; v < half; v++) {
            bool want = ff7_rot_code_bits(v, key) == 16 - key;
            shortest += want;
            if (ff7_raw_is_shortest(v) != want) {
                CHECK_MSG(0, "bKey %u, raw delta %d: ff7_raw_is_shortest %d, the code's rule %d", key, v,
                          ff7_raw_is_shortest(v), want);
                return;
            }
        }
    }
    /* bKey 0..5 (raw codes of 12..7 bits) hold 4096 - 128, ..., 128 - 128 values that
     * need them; bKey 6..11 none */
    CHECK_EQ_INT(shortest, 3968 + 1920 + 896 + 384 + 128 + 0);
}

/* The bits after frame 0 and the position deltas of frame 1 (1 slot, bKey 0). */
static uint32_t code_bits(const ganim_buffer *b, size_t at, unsigned n)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < n; i++, at++) v = v << 1 | ((b->data[at / 8] >> (7 - at % 8)) & 1u);
    return v;
}

TEST(qhimm_examples)
{
    /* 0 -> "0", -1 -> "1 000", -5 -> "1 011 111", 15 -> "1 100 0111",
     * 128 -> "1 111 000010000000" (bKey 0, the note §2) */
    const int32_t v[5] = { 0, -1, -5, 15, 128 };
    const uint32_t code[5] = { 0, 0x8, 0x5F, 0xC7, 0xF080 };
    const unsigned len[5] = { 1, 4, 7, 8, 16 };
    for (int i = 0; i < 5; i++) {
        int32_t pos[6] = { 0, -466, 0, 0, -466, 0 };
        uint16_t rot[6] = { 100, 0, 0, (uint16_t)((100 + v[i]) & 4095), 0, 0 };
        ganim_buffer b = encode(0, 1, 2, pos, rot);
        size_t at = 48 + 36 + 24; /* frame 0, three 8-bit position deltas */
        CHECK_EQ_INT(code_bits(&b, at, len[i]), code[i]);
        /* frame 0 position y = -466 = 0xFE2E, big-endian (the seed's 00 00 FE 2E 00 00) */
        CHECK(b.data[0] == 0 && b.data[1] == 0 && b.data[2] == 0xFE && b.data[3] == 0x2E);
        ganim_buffer_free(&b);
    }
}

/* Sizes computed by hand. */
TEST(hand_computed_sizes)
{
    /* 1 slot, 2 frames, bKey 0: frame 0 = 48 + 36 = 84 bits; frame 1: positions
     * 0, 0, +100 -> 8 + 8 + 17; rotations 0, -1, +5 -> 1 + 4 + 7 (type 3) = 12.
     * Ours: 84 + 33 + 12 = 129. Kimera: -1 is raw (16) -> 84 + 33 + 1 + 16 + 7 = 141. */
    int32_t pos[6] = { 0, 0, 0, 0, 0, 100 };
    uint16_t rot[6] = { 10, 20, 30, 10, 19, 35 };
    CHECK_EQ_INT(ff7_stream_bits(0, 1, 2, pos, rot), 129);
    CHECK_EQ_INT(kimera_bits(0, 1, 2, pos, rot), 141);
    ganim_buffer b = encode(0, 1, 2, pos, rot);
    CHECK_EQ_INT(b.size, 17);
    ganim_buffer_free(&b);
    /* bKey 4, 2 slots, 3 frames: frame 0 = 48 + 6*8 = 96; frames 1 and 2: positions
     * 3 x 8, rotations: -16 (v=-1: 4), +32 (v=2: type 2, 6), -48 (v=-3: type 2, 6),
     * 0,0,0 (3) = 19 -> 43 each -> 182; frame 2 same deltas again. Kimera: -1 raw (4+8),
     * -3 raw (12), 2 -> 6 -> 1+... = 12 + 6 + 12 + 3 = 33 -> 96 + 2*(24+33) = 210. */
    int32_t p3[9] = { 0, 0, 0, 1, 1, 1, 2, 2, 2 };
    uint16_t r3[18] = { 1600, 1600, 1600, 0, 0, 0, 1584, 1632, 1552, 0, 0, 0, 1568, 1664, 1504, 0, 0, 0 };
    CHECK_EQ_INT(ff7_stream_bits(4, 2, 3, p3, r3), 182);
    CHECK_EQ_INT(kimera_bits(4, 2, 3, p3, r3), 210);
    /* wrap-around: 4095 -> 1 is +2 (type 2, 6 bits), not a raw jump */
    int32_t p2[6] = { 0, 0, 0, 0, 0, 0 };
    uint16_t w2[6] = { 4095, 0, 0, 1, 0, 0 };
    CHECK_EQ_INT(ff7_stream_bits(0, 1, 2, p2, w2), 84 + 24 + 6 + 1 + 1);
    /* a 16-bit position step and an out-of-range one */
    int32_t big[6] = { -32768, 0, 0, 32767, 0, 0 };
    CHECK_EQ_INT(ff7_stream_bits(0, 1, 2, big, w2), SIZE_MAX);
    int32_t ok16[6] = { -100, 0, 0, 32667, 0, 0 };
    CHECK_EQ_INT(ff7_stream_bits(0, 1, 2, ok16, w2), 84 + 17 + 8 + 8 + 6 + 1 + 1);
    /* bKey 11, the last the encoder takes: frame 0 = 48 + 3 x 1; frame 1 = 3 x 8 and
     * rotations 2048 -> 0 and 0 -> 2048 (each -2048 modulo 4096, v = -1: 4 bits), 0 -> 0
     * (1 bit): 84 bits, 11 bytes */
    uint16_t h11[6] = { 2048, 0, 0, 0, 0, 2048 };
    CHECK_EQ_INT(ff7_stream_bits(11, 1, 2, p2, h11), 51 + 24 + 4 + 1 + 4);
    b = encode(11, 1, 2, p2, h11);
    CHECK_EQ_INT(b.size, 11);
    ganim_buffer_free(&b);
    /* above bKey 11 nothing can be coded (the writer never asks: its bKeys are 0, 2 and
     * 4): no size, and nothing written, not even the bit writer's pending bits */
    for (unsigned key = 12; key < 40; key++) {
        CHECK_EQ_INT(ff7_stream_bits(key, 1, 2, p2, h11), SIZE_MAX);
        ganim_buffer e;
        memset(&e, 0, sizeof e);
        ganim_writer w = gw_init(&e, NULL);
        ganim_bitwriter bw = gbw_init(&w);
        gbw_put(&bw, 3, 5);
        ff7_encode_stream(&bw, key, 1, 2, p2, h11);
        CHECK_EQ_INT(e.size, 0);
        CHECK_EQ_INT(bw.bits, 3);
        CHECK_EQ_INT(bw.nacc, 3);
        ganim_buffer_free(&e);
    }
}

/* The stream decoder, written bit by bit from the code's definition (the note, §2;
 * docs/formats/ff7-battle.md): what ff7_decode_stream's fast paths (one 64-bit window per
 * slot, whole frames without a bound check) must give on any bytes. */
static uint32_t reference_decode(const uint8_t *s, size_t size, unsigned key, uint32_t slots, uint32_t max_frames,
                                 int32_t *pos, uint16_t *rot, size_t *bits, bool *shortest)
{
    ganim_bits b = gb_init(s, size);
    size_t per = (size_t)slots * 3;
    bool best = true;
    *bits = 0;
    for (int i = 0; i < 3; i++)
        if (!gb_msb_s(&b, 16, &pos[i])) return 0;
    for (size_t i = 0; i < per; i++) {
        int32_t v;
        if (!gb_msb_s(&b, 12 - key, &v)) return 0;
        rot[i] = (uint16_t)((uint32_t)v * (1u << key) & 0xFFFu);
    }
    *bits = b.pos;
    uint32_t n = 1;
    for (; n < max_frames; n++) {
        bool ok = true, frame_best = true;
        for (uint32_t i = 0; i < 3 && ok; i++) {
            uint32_t f;
            int32_t d;
            ok = gb_msb_u(&b, 1, &f) && gb_msb_s(&b, f ? 16 : 7, &d);
            if (ok) pos[n * 3 + i] = pos[(n - 1) * 3 + i] + d;
            if (ok && f && d >= -64 && d <= 63) frame_best = false;
        }
        for (size_t i = 0; i < per && ok; i++) {
            uint32_t one, t = 0, u = 0;
            int32_t v = 0;
            ok = gb_msb_u(&b, 1, &one);
            if (ok && !one) v = 0;
            else if (ok) ok = gb_msb_u(&b, 3, &t);
            if (ok && one && t == 0) v = -1;
            else if (ok && one && t < 7) {
                ok = gb_msb_u(&b, t, &u); /* t-bit two's complement s; v = s + 2^(t-1), or s - 2^(t-1) below 0 */
                int32_t sv = (int32_t)u - (u >> (t - 1) ? (int32_t)1 << t : 0);
                v = sv >= 0 ? sv + ((int32_t)1 << (t - 1)) : sv - ((int32_t)1 << (t - 1));
            } else if (ok && one) {
                ok = gb_msb_s(&b, 12 - key, &v);
                if (ok && ff7_rot_code_bits(v, key) != 16 - key) frame_best = false;
            }
            if (ok) rot[n * per + i] = (uint16_t)((rot[(n - 1) * per + i] + (uint32_t)v * (1u << key)) & 0xFFFu);
        }
        if (!ok) break;
        best = best && frame_best;
        *bits = b.pos;
    }
    *shortest = best;
    return n;
}

/* ff7_decode_stream against the bit-by-bit reference on random bytes (every code type,
 * cut frames, non-shortest raw codes) and on random encoded animations cut short. */
TEST(decoder_matches_reference)
{
    int compared = 0;
    for (int iter = 0; iter < 4000; iter++) {
        unsigned key = (unsigned)(rnd() % 3) * 2;
        uint32_t slots = (uint32_t)rnd_range(1, 30), frames = (uint32_t)rnd_range(1, 60);
        size_t size = (size_t)rnd_range(0, 2000), per = (size_t)slots * 3;
        uint8_t *s = malloc(size + 1);
        int bias = iter % 4; /* 0: uniform bytes; 1-3: mostly zero bits (short codes, still slots) */
        for (size_t i = 0; i < size; i++) {
            uint8_t x = (uint8_t)rnd();
            for (int k = 0; k < bias; k++) x &= (uint8_t)rnd();
            s[i] = x;
        }
        int32_t *p1 = malloc(frames * 3 * sizeof *p1), *p2 = malloc(frames * 3 * sizeof *p2);
        uint16_t *r1 = malloc(frames * per * sizeof *r1), *r2 = malloc(frames * per * sizeof *r2);
        size_t b1 = 0, b2 = 0;
        bool s1 = false, s2 = false;
        uint32_t n1 = ff7_decode_stream(s, size, key, slots, frames, p1, r1, &b1, &s1);
        uint32_t n2 = reference_decode(s, size, key, slots, frames, p2, r2, &b2, &s2);
        CHECK_MSG(n1 == n2, "iteration %d: %u frames, reference %u", iter, n1, n2);
        if (n1 == n2 && n1) {
            CHECK_EQ_INT(b1, b2);
            CHECK(s1 == s2);
            CHECK(memcmp(p1, p2, (size_t)n1 * 3 * sizeof *p1) == 0);
            CHECK(memcmp(r1, r2, (size_t)n1 * per * sizeof *r1) == 0);
            compared += n1 > 1;
        }
        free(s);
        free(p1);
        free(p2);
        free(r1);
        free(r2);
    }
    CHECK_MSG(compared > 1000, "only %d streams decoded past frame 0", compared);
}

/* A random stream for the pair test: random bytes (uniform or biased to short codes), or
 * an encoded animation, whole or cut anywhere, of `slots` slots at bKey `key` (kinds 6
 * and 7: frames of small deltas, of 10-bit codes only and of raw codes, for the AVX2
 * forms' two-slot groups, their run-out count and their slot-at-a-time frames). */
static uint8_t *pair_stream(int kind, unsigned key, uint32_t slots, size_t *size)
{
    size_t per = (size_t)slots * 3;
    if (kind < 4) {
        size_t n = (size_t)rnd_range(0, kind ? 3000 : 600);
        uint8_t *s = malloc(n + 1);
        for (size_t i = 0; i < n; i++) {
            uint8_t x = (uint8_t)rnd();
            for (int k = 0; k < kind; k++) x &= (uint8_t)rnd();
            s[i] = x;
        }
        *size = n;
        return s;
    }
    uint32_t frames = (uint32_t)rnd_range(1, 80);
    int32_t *pos = malloc(frames * 3 * sizeof *pos);
    uint16_t *rot = malloc(frames * per * sizeof *rot);
    for (size_t i = 0; i < (size_t)frames * 3; i++) pos[i] = (i < 3 ? 0 : pos[i - 3]) + rnd_range(-100, 100);
    int mode = 0;
    for (size_t i = 0; i < frames * per; i++) {
        int32_t d;
        if (kind < 6) {
            d = rnd() % 8 == 0 ? rnd_range(-2048, 2047) : rnd_range(-40, 40);
        } else { /* the AVX2 forms' two-slot groups: frames of small deltas (groups), of 10-bit
                  * codes only (six take 60 bits: the count runs out), of many raw codes
                  * (a slot at a time), a raw code now and then */
            if (i % per == 0) mode = rnd_range(0, 9);
            int32_t m = rnd_range(32, 63);
            d = mode < 5 ? rnd_range(-31, 31) : mode < 8 ? (rnd() % 2 ? m : -m - 1) : rnd_range(-2048, 2047);
            if (rnd() % 100 == 0) d = rnd_range(-2048, 2047);
        }
        rot[i] = (uint16_t)((uint32_t)((i < per ? 0 : rot[i - per]) + (uint32_t)d * (1u << key)) & 0xFFFu);
    }
    ganim_buffer b = encode(key, slots, frames, pos, rot);
    free(pos);
    free(rot);
    size_t n = kind == 4 || kind == 6 ? b.size : (size_t)rnd_range(0, (int32_t)b.size); /* 5, 7: cut */
    uint8_t *s = malloc(n + 1);
    if (n) memcpy(s, b.data, n);
    ganim_buffer_free(&b);
    *size = n;
    return s;
}

/* A job's arrays for max_frames + 1 frames, and a second pair of the same size (*p, *r)
 * for what it is compared with. */
static void job_arrays(ff7_stream_job *j, int32_t **p, uint16_t **r, size_t *npos, size_t *nrot)
{
    *npos = (size_t)j->max_frames * 3 + 3;
    *nrot = *npos * j->slots;
    j->pos = malloc(*npos * sizeof *j->pos);
    j->rot = malloc(*nrot * sizeof *j->rot);
    *p = malloc(*npos * sizeof **p);
    *r = malloc(*nrot * sizeof **r);
}

/* ff7_decode_stream_list on two streams (two side by side) against
 * ff7_decode_stream on each stream alone: random streams of random lengths, slots and
 * bKeys (the same slot count in half the pairs), random bytes and encoded animations,
 * whole or cut, so the two end or fail at different frames; frames, bits, the shortest
 * flag (left as it was when no frame decodes) and every byte of the arrays equal (filled
 * alike beforehand: nothing written past the frames either way); through the dispatcher
 * and through each form of the pair loop (plain, and BMI2 and AVX2 where the CPU has
 * them); every bKey 0-11 (the AVX2 form's shift by 20 - bKey), frames of 3-90 codes (its
 * pass 16 at a time with an overlapping last 16, one at a time under 16; both streams
 * under 16, the BMI2 loop) and of over 768 (the BMI2 loop again). */
TEST(pair_matches_single)
{
    int compared = 0, both_long = 0, paths_run = 0;
    for (int iter = 0; iter < 3000; iter++) {
        ff7_stream_job job[2];
        uint8_t *s[2];
        int32_t *p1[2];
        uint16_t *r1[2];
        uint32_t n1[2];
        size_t b1[2], npos[2], nrot[2];
        bool s1[2];
        uint32_t same = iter % 2 ? (uint32_t)rnd_range(1, 30) : 0;
        for (int k = 0; k < 2; k++) {
            ff7_stream_job *j = &job[k];
            memset(j, 0, sizeof *j);
            j->bkey = iter % 97 == 0 ? 12u + (unsigned)k : (unsigned)(rnd() % 12);
            /* now and then over 256 slots: the AVX2 form hands such frames to BMI2's */
            j->slots = same ? same : (uint32_t)(iter % 23 == 0 ? rnd_range(240, 300) : rnd_range(1, 30));
            j->max_frames = iter % 89 == 0 ? 0 : (uint32_t)rnd_range(1, 90);
            /* (a whole encoded animation when over 256 slots: frames whose codes lie inside) */
            s[k] = pair_stream(j->slots > 30 ? 4 : rnd_range(0, 7), j->bkey > 11 ? 0 : j->bkey, j->slots, &j->size);
            j->stream = s[k];
            job_arrays(j, &p1[k], &r1[k], &npos[k], &nrot[k]);
            memset(j->pos, 0x5A, npos[k] * sizeof *j->pos);
            memset(j->rot, 0x5A, nrot[k] * sizeof *j->rot);
            memset(p1[k], 0x5A, npos[k] * sizeof *p1[k]);
            memset(r1[k], 0x5A, nrot[k] * sizeof *r1[k]);
            s1[k] = j->shortest = rnd() % 2;
            b1[k] = 12345;
            n1[k] =
                ff7_decode_stream(j->stream, j->size, j->bkey, j->slots, j->max_frames, p1[k], r1[k], &b1[k], &s1[k]);
        }
        bool given[2] = { job[0].shortest, job[1].shortest };
        ff7_stream_job *const pair[2] = { &job[0], &job[1] };
        /* the dispatcher, then each path of the pair loop (BMI2 where it runs) */
        for (int path = -1; path <= FF7_PAIR_AVX2; path++) {
            for (int k = 0; k < 2; k++) {
                memset(job[k].pos, 0x5A, npos[k] * sizeof *job[k].pos);
                memset(job[k].rot, 0x5A, nrot[k] * sizeof *job[k].rot);
                job[k].shortest = given[k];
            }
            if (path < 0) ff7_decode_stream_list(pair, 2);
            else if (!ff7_decode_stream_list_on(path, pair, 2)) continue;
            for (int k = 0; k < 2; k++) {
                ff7_stream_job *j = &job[k];
                CHECK_MSG(j->frames == n1[k] && j->bits == b1[k] && j->shortest == s1[k],
                          "iteration %d, path %d, stream %d: %u frames, %zu bits, shortest %d; alone %u, %zu, %d", iter,
                          path, k, j->frames, j->bits, (int)j->shortest, n1[k], b1[k], (int)s1[k]);
                CHECK_MSG(memcmp(j->pos, p1[k], npos[k] * sizeof *p1[k]) == 0,
                          "iteration %d, path %d, stream %d: positions", iter, path, k);
                CHECK_MSG(memcmp(j->rot, r1[k], nrot[k] * sizeof *r1[k]) == 0,
                          "iteration %d, path %d, stream %d: rotations", iter, path, k);
            }
            paths_run += path == FF7_PAIR_AVX2;
        }
        for (int k = 0; k < 2; k++) {
            ff7_stream_job *j = &job[k];
            compared += n1[k] > 1;
            free(s[k]);
            free(j->pos);
            free(j->rot);
            free(p1[k]);
            free(r1[k]);
        }
        both_long += n1[0] > 20 && n1[1] > 20 && n1[0] != n1[1];
    }
    CHECK_MSG(compared > 2000 && both_long > 200, "only %d streams past frame 0, %d long pairs", compared, both_long);
    /* on a CPU with BMI2 (the one the dispatcher takes) its path must have run */
    ff7_stream_job none[2];
    memset(none, 0, sizeof none);
    ff7_stream_job *const none_pair[2] = { &none[0], &none[1] };
    if (ff7_decode_stream_list_on(FF7_PAIR_AVX2, none_pair, 2)) CHECK_EQ_INT(paths_run, 3000);
}

/* The AVX2 pair loop's frames (frames2_avx2) take their positions from one window and
 * their codes through the unchecked loop with no test: the tail's copy keeps every frame
 * of a stream of at most 768 codes a frame inside (the proof is at frames2_avx2). Here a
 * pair of encoded animations (6 to 256 slots, bKey 0, 2 or 4), stream a cut at every
 * length from 400 bytes short of its end (a cut at every bit of its last frames: frames
 * that end inside, on, or past the cut) and stream b whole or cut, each in a block of
 * exactly its size (the sanitized build sees a byte read past it): frames, bits, the
 * shortest flag, positions and angles as ff7_decode_stream's on each stream alone. */
TEST(avx2_pairs_cut_at_every_length)
{
    ff7_stream_job none[2];
    memset(none, 0, sizeof none);
    ff7_stream_job *const none_pair[2] = { &none[0], &none[1] };
    if (!ff7_decode_stream_list_on(FF7_PAIR_AVX2, none_pair, 2)) {
        printf("  (no AVX2 path on this CPU: nothing to compare)\n");
        return;
    }
    static const uint32_t slot_counts[] = { 6, 8, 23, 40, 256 };
    long pairs = 0, cut_frames = 0, bad = 0;
    for (size_t sc = 0; sc < sizeof slot_counts / sizeof slot_counts[0]; sc++) {
        for (unsigned key = 0; key <= 4; key += 2) {
            uint32_t slots = slot_counts[sc], frames = (uint32_t)rnd_range(20, 40);
            uint32_t slots_b = (uint32_t)rnd_range(6, 30);
            ganim_buffer ea = random_walk_stream(key, slots, frames), eb = random_walk_stream(key, slots_b, frames);
            size_t lo = ea.size > 400 ? ea.size - 400 : 0;
            for (size_t cut = lo; cut <= ea.size; cut++) {
                size_t cut_b = rnd() % 2 ? eb.size : (size_t)rnd_range(0, (int32_t)eb.size);
                ff7_stream_job job[2];
                uint8_t *blk[2] = { malloc(cut ? cut : 1), malloc(cut_b ? cut_b : 1) };
                memcpy(blk[0], ea.data, cut);
                memcpy(blk[1], eb.data, cut_b);
                int32_t *p1[2];
                uint16_t *r1[2];
                size_t npos[2], nrot[2];
                for (int k = 0; k < 2; k++) {
                    ff7_stream_job *j = &job[k];
                    memset(j, 0, sizeof *j);
                    j->stream = blk[k];
                    j->size = k ? cut_b : cut;
                    j->bkey = key;
                    j->slots = k ? slots_b : slots;
                    j->max_frames = frames + 2; /* more than the stream holds: it ends at its cut */
                    job_arrays(j, &p1[k], &r1[k], &npos[k], &nrot[k]);
                    memset(j->pos, 0x5A, npos[k] * sizeof *j->pos);
                    memset(j->rot, 0x5A, nrot[k] * sizeof *j->rot);
                    memset(p1[k], 0x5A, npos[k] * sizeof *p1[k]);
                    memset(r1[k], 0x5A, nrot[k] * sizeof *r1[k]);
                }
                uint32_t n1[2];
                size_t b1[2];
                bool s1[2] = { true, true };
                for (int k = 0; k < 2; k++)
                    n1[k] = ff7_decode_stream(job[k].stream, job[k].size, key, job[k].slots, job[k].max_frames, p1[k],
                                              r1[k], &b1[k], &s1[k]);
                job[0].shortest = job[1].shortest = true;
                ff7_stream_job *const pair[2] = { &job[0], &job[1] };
                CHECK(ff7_decode_stream_list_on(FF7_PAIR_AVX2, pair, 2));
                for (int k = 0; k < 2; k++) {
                    ff7_stream_job *j = &job[k];
                    bool same = j->frames == n1[k] && j->bits == b1[k] && j->shortest == s1[k] &&
                                memcmp(j->pos, p1[k], npos[k] * sizeof *p1[k]) == 0 &&
                                memcmp(j->rot, r1[k], nrot[k] * sizeof *r1[k]) == 0;
                    if (!same && bad++ < 5)
                        CHECK_MSG(0, "slots %u, bKey %u, cut %zu of %zu, stream %d: %u frames, %zu bits; alone %u, %zu",
                                  j->slots, key, cut, ea.size, k, j->frames, j->bits, n1[k], b1[k]);
                    free(j->pos);
                    free(j->rot);
                    free(p1[k]);
                    free(r1[k]);
                    free(blk[k]);
                }
                cut_frames += n1[0] < frames;
                pairs++;
            }
            ganim_buffer_free(&ea);
            ganim_buffer_free(&eb);
        }
    }
    CHECK_EQ_INT(bad, 0);
    /* most cuts end stream a early (a cut inside its last frames); a few (none short) keep them all */
    CHECK_MSG(pairs > 5000 && cut_frames > pairs * 9 / 10, "%ld pairs, %ld cut short", pairs, cut_frames);
    printf("  %ld pairs, %ld with stream a cut short: all as alone\n", pairs, cut_frames);
}

/* The AVX2 path runs wherever the CPU has what it is compiled for (AVX2, BMI1, BMI2 and
 * MOVBE, asked here apart from the library: cpuid.h's bit_MOVBE), so that the tests above
 * and below compare it and do not pass it by. */
TEST(avx2_path_runs_where_the_cpu_has_it)
{
#if FF7_HAVE_AVX
    unsigned a = 0, b = 0, c = 0, d = 0;
    bool movbe = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_MOVBE);
    bool cpu =
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && movbe;
    ff7_stream_job none[2];
    memset(none, 0, sizeof none);
    ff7_stream_job *const none_pair[2] = { &none[0], &none[1] };
    CHECK_EQ_INT(ff7_decode_stream_list_on(FF7_PAIR_AVX2, none_pair, 2), cpu);
    CHECK_EQ_INT(ff7_decode_stream_list_on(FF7_PAIR_BMI2, none_pair, 2), __builtin_cpu_supports("bmi2") != 0);
#endif
}

/* The reference's results for a list of up to LIST_MAX jobs (list_paths_match). */
enum { LIST_MAX = 40 };
typedef struct list_ref {
    int32_t *p2[LIST_MAX];
    uint16_t *r2[LIST_MAX];
    uint32_t n2[LIST_MAX];
    size_t b2[LIST_MAX], npos[LIST_MAX], nrot[LIST_MAX];
    bool s2[LIST_MAX], given[LIST_MAX];
} list_ref;

/* Job k's arrays and its reference results: the shortest flag it is given (at random),
 * then the reference's frames, bits and flag (a job of no frames: none, its flag as given). */
static void list_ref_job(list_ref *ref, size_t k, ff7_stream_job *j)
{
    job_arrays(j, &ref->p2[k], &ref->r2[k], &ref->npos[k], &ref->nrot[k]);
    ref->given[k] = rnd() % 2;
    ref->s2[k] = ref->given[k];
    ref->n2[k] = 0;
    ref->b2[k] = 0;
    if (j->max_frames)
        ref->n2[k] = reference_decode(j->stream, j->size, j->bkey, j->slots, j->max_frames, ref->p2[k], ref->r2[k],
                                      &ref->b2[k], &ref->s2[k]);
    if (!ref->n2[k]) ref->b2[k] = 0, ref->s2[k] = ref->given[k];
}

/* ff7_decode_stream_list through the dispatcher and the paths FF7_PAIR_PLAIN, +step, ...
 * up to FF7_PAIR_AVX2 (those this CPU runs), each job's results against the reference's
 * (frames, bits, shortest flag, positions and angles); the number of lists run. */
static int list_paths_match(ff7_stream_job *job, ff7_stream_job *const *jobs, size_t nj, const list_ref *ref, int iter,
                            int step)
{
    int run = 0;
    for (int path = -1; path <= FF7_PAIR_AVX2; path = path < 0 ? 0 : path + step) {
        for (size_t k = 0; k < nj; k++) {
            memset(job[k].pos, 0x5A, ref->npos[k] * sizeof *job[k].pos);
            memset(job[k].rot, 0x5A, ref->nrot[k] * sizeof *job[k].rot);
            job[k].shortest = ref->given[k];
            job[k].frames = 12345;
            job[k].bits = 12345;
        }
        if (path < 0) ff7_decode_stream_list(jobs, nj);
        else if (!ff7_decode_stream_list_on(path, jobs, nj)) continue;
        run++;
        for (size_t k = 0; k < nj; k++) {
            const ff7_stream_job *j = &job[k];
            size_t per = (size_t)j->slots * 3;
            uint32_t n2 = ref->n2[k];
            CHECK_MSG(j->frames == n2 && j->bits == ref->b2[k] && j->shortest == ref->s2[k],
                      "iteration %d, path %d, stream %zu of %zu: %u frames, %zu bits, shortest %d; reference %u, "
                      "%zu, %d",
                      iter, path, k, nj, j->frames, j->bits, (int)j->shortest, n2, ref->b2[k], (int)ref->s2[k]);
            if (j->frames != n2) continue;
            CHECK_MSG(memcmp(j->pos, ref->p2[k], (size_t)n2 * 3 * sizeof *ref->p2[k]) == 0,
                      "iteration %d, path %d, stream %zu: positions", iter, path, k);
            CHECK_MSG(memcmp(j->rot, ref->r2[k], (size_t)n2 * per * sizeof *ref->r2[k]) == 0,
                      "iteration %d, path %d, stream %zu: rotations", iter, path, k);
        }
    }
    return run;
}

/* A list's streams and arrays freed. */
static void list_free(ff7_stream_job *job, uint8_t *const *s, size_t nj, list_ref *ref)
{
    for (size_t k = 0; k < nj; k++) {
        free(s[k]);
        free(job[k].pos);
        free(job[k].rot);
        free(ref->p2[k]);
        free(ref->r2[k]);
    }
}

/* ff7_decode_stream_list (the pack reader's streams, two lanes each taking the next
 * stream when its own ends) against the bit-by-bit reference: lists of 1 to 12 random
 * streams (random bytes, uniform or biased to short codes, and encoded animations whole
 * or cut anywhere: streams end, or fail in the middle of a frame, at different frames),
 * 1 to 30 slots and now and then 257 to 300 (no copy of the tail: the checked decoder),
 * every bKey (12 and 13 now and then: no frame 0), 0 to 90 frames wanted; through the
 * dispatcher and each form of the pair loop. Frames, bits, the shortest flag (left as
 * it was when frame 0 does not fit) and the decoded positions and angles equal. This
 * also checks what each stream's last frames take: the copy of the stream's tail with
 * zeros after it (dec_to_tail), the frame that runs past the stream's end, and frame 0
 * read from one window a value. */
TEST(list_matches_reference)
{
    int compared = 0, cut = 0, lists_run = 0;
    for (int iter = 0; iter < 1500; iter++) {
        enum { MAXJ = 12 };
        ff7_stream_job job[MAXJ], *jobs[MAXJ];
        uint8_t *s[MAXJ];
        list_ref ref;
        size_t nj = (size_t)rnd_range(1, MAXJ);
        for (size_t k = 0; k < nj; k++) {
            ff7_stream_job *j = &job[k];
            memset(j, 0, sizeof *j);
            jobs[k] = j;
            j->bkey = rnd() % 50 == 0 ? 12u + (unsigned)(rnd() % 2) : (unsigned)(rnd() % 12);
            j->slots = (uint32_t)(rnd() % 20 == 0 ? rnd_range(257, 300) : rnd_range(1, 30));
            j->max_frames = rnd() % 40 == 0 ? 0 : (uint32_t)rnd_range(1, 90);
            s[k] = pair_stream(j->slots > 30 ? rnd_range(4, 7) : rnd_range(0, 7), j->bkey > 11 ? 0 : j->bkey, j->slots,
                               &j->size);
            j->stream = s[k];
            list_ref_job(&ref, k, j);
            compared += ref.n2[k] > 1;
            cut += ref.n2[k] > 1 && ref.n2[k] < j->max_frames;
        }
        lists_run += list_paths_match(job, jobs, nj, &ref, iter, 1);
        list_free(job, s, nj, &ref);
    }
    CHECK_MSG(compared > 3000 && cut > 1000, "only %d streams past frame 0, %d cut", compared, cut);
    CHECK(lists_run >= 3000);
}

/* The streams of one slot (a pack's weapon entries: slot1_frame, two side by side and
 * one alone) against the bit-by-bit reference: lists of 1 to 10 streams, most of one
 * slot, some of 2 to 30 (a 1-slot stream beside a wider one, then beside another 1-slot
 * one when the wide one ends), random bytes and encoded animations whole or cut, every
 * bKey, 0 to 90 frames wanted (half the lists: 2 to 4 streams of long random bytes, so
 * that streams end at their frames wanted, inside); through the dispatcher and each form
 * of the pair loop. Frames, bits, the shortest flag and every position and angle equal,
 * and the frames run up to the tail's copy, through it and past the stream's end. */
TEST(slot1_lists_match_reference)
{
    int compared = 0, cut = 0, lists_run = 0, ones = 0;
    for (int iter = 0; iter < 2500; iter++) {
        enum { MAXJ = 10 };
        ff7_stream_job job[MAXJ], *jobs[MAXJ];
        uint8_t *s[MAXJ];
        list_ref ref;
        /* half the lists of 2 to 4 streams of long random bytes: streams that end at
         * their frames wanted well before their end, beside one that goes on */
        bool longer = iter % 2;
        size_t nj = (size_t)(longer ? rnd_range(2, 4) : rnd_range(1, MAXJ));
        for (size_t k = 0; k < nj; k++) {
            ff7_stream_job *j = &job[k];
            memset(j, 0, sizeof *j);
            jobs[k] = j;
            j->bkey = rnd() % 60 == 0 ? 12u : (unsigned)(rnd() % 12);
            j->slots = rnd() % 5 == 0 ? (uint32_t)rnd_range(2, 30) : 1u;
            j->max_frames = rnd() % 40 == 0 ? 0 : (uint32_t)rnd_range(1, 90);
            s[k] =
                pair_stream(longer ? rnd_range(1, 3) : rnd_range(0, 7), j->bkey > 11 ? 0 : j->bkey, j->slots, &j->size);
            j->stream = s[k];
            list_ref_job(&ref, k, j);
            compared += ref.n2[k] > 1;
            ones += j->slots == 1 && ref.n2[k] > 20;
            cut += ref.n2[k] > 1 && ref.n2[k] < j->max_frames;
        }
        lists_run += list_paths_match(job, jobs, nj, &ref, iter, 1);
        list_free(job, s, nj, &ref);
    }
    CHECK_MSG(compared > 5000 && cut > 1500 && ones > 2000, "only %d streams past frame 0, %d cut, %d of one slot",
              compared, cut, ones);
    CHECK(lists_run >= 5000);
}

/* A stream for the vector lanes' test: an encoded animation of `frames` frames at bKey
 * `key` (deltas small, of 10-bit codes, raw, and positions of 8 and 17 bits), now and
 * then with random bits flipped (any code: non-shortest raw codes, type-7 codes in any
 * lane) or cut anywhere, or random bytes with mostly zero bits (17-bit positions of
 * values that 8 bits hold); damage 4: every frame as long as a frame can be (17-bit
 * positions, raw codes: at bKey 0, lane_frame_max's bits exactly), cut in its second
 * half one byte after a frame that ends on a byte boundary (frame 0: 16-bit positions and
 * 12-bit raw angles). */
static uint8_t *lanes_stream(unsigned key, uint32_t slots, uint32_t frames, int damage, size_t *size)
{
    size_t per = (size_t)slots * 3;
    if (damage == 3) { /* random bytes biased to zero bits: 17-bit positions of small values too */
        size_t n = (size_t)frames * per + 100u;
        uint8_t *s = malloc(n);
        int bias = rnd_range(1, 3);
        for (size_t i = 0; i < n; i++) {
            uint8_t x = (uint8_t)rnd();
            for (int k = 0; k < bias; k++) x &= (uint8_t)rnd();
            s[i] = x;
        }
        *size = n;
        return s;
    }
    int32_t *pos = malloc(frames * 3 * sizeof *pos);
    uint16_t *rot = malloc(frames * per * sizeof *rot);
    int mode = rnd_range(0, 3);
    for (size_t i = 0; i < (size_t)frames * 3; i++)
        pos[i] = (i < 3 ? rnd_range(-32768, 32767) : pos[i - 3]) +
                 (damage == 4 ? (i >= 3 && pos[i - 3] > 0 ? -1 : 1) * rnd_range(65, 3000)
                  : rnd() % 3 ? rnd_range(-64, 63)
                              : rnd_range(-3000, 3000));
    for (size_t i = 0; i < frames * per; i++) {
        int32_t m = rnd_range(32, 63);
        int32_t d = mode == 0 ? rnd_range(-31, 31) : mode == 1 ? (rnd() % 2 ? m : -m - 1) : rnd_range(-70, 70);
        if (rnd() % (mode == 3 ? 4 : 60) == 0) d = rnd_range(-2048, 2047);
        if (rnd() % 4 == 0) d = 0;
        if (damage == 4) d = (rnd() % 2 ? 1 : -1) * rnd_range(65, 2047); /* raw codes: -64 has a short one */
        rot[i] = (uint16_t)((uint32_t)((i < per ? 0 : rot[i - per]) + (uint32_t)d * (1u << key)) & 0xFFFu);
    }
    ganim_buffer b = encode(key, slots, frames, pos, rot);
    free(pos);
    free(rot);
    size_t n = damage == 1 ? (size_t)rnd_range(0, (int32_t)b.size) : b.size;
    if (damage == 4 && !key) { /* cut 8 bits after the end of a frame k (< the last) that ends on a
                                * byte boundary: a frame as long as any ends as near the end as any */
        size_t first = 48u + per * 12u, max = 51u + per * 16u, ends[8], m = 0;
        for (size_t k = frames / 2; k + 1 < frames && m < 8; k++) /* frame k ends at first + k max */
            if ((first + k * max) % 8 == 0) ends[m++] = (first + k * max) / 8;
        if (m) n = ends[rnd() % m] + 1;
        CHECK_MSG(n <= b.size && (m == 0 || b.size == (first + (frames - 1) * max + 7) / 8),
                  "%zu bytes of %zu, %u frames of %zu codes: not frames of the longest", n, b.size, frames, per);
    }
    uint8_t *s = malloc(n + 1);
    if (n) memcpy(s, b.data, n);
    ganim_buffer_free(&b);
    if (damage == 2 && n)
        for (int k = rnd_range(1, 20); k > 0; k--) s[rnd() % n] ^= (uint8_t)(1u << (rnd() % 8));
    *size = n;
    return s;
}

/* Where lanes_lists puts the streams: all in one buffer (as a pack's), or each in memory
 * of its own against a page that may not be read (FF7_TEST_GUARD_PAGES), the stream's
 * last byte the last before that page (a read past the stream faults) or its first byte
 * the first after it (a read before the stream faults). AddressSanitizer does not see
 * the AVX2 lanes' gathers, and in one buffer a gather past a stream's end reads the next
 * stream's bytes: only the page itself holds the lanes to their streams. */
enum { STREAMS_IN_ONE_BUFFER, STREAMS_END_AT_GUARD, STREAMS_START_AT_GUARD };

#if FF7_TEST_GUARD_PAGES
/* One mapping for a list's n streams (s[k], size[k] bytes): a page that may not be read,
 * then for each stream its pages and another such page, each stream against the page
 * after it (STREAMS_END_AT_GUARD) or before it (STREAMS_START_AT_GUARD); at[k] where
 * each went. One mapping keeps the streams close together, as the lanes need (their bit
 * positions count from the lowest stream). The mapping's length in *len; NULL when it
 * cannot be had. */
static uint8_t *guarded_streams(uint8_t *const *s, const ff7_stream_job *job, size_t n, int layout, const uint8_t **at,
                                size_t *len)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = 1;
    for (size_t k = 0; k < n; k++) pages += (job[k].size ? (job[k].size + page - 1) / page : 1) + 1;
    *len = pages * page;
    void *m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    uint8_t *map = m, *p = map;
    int ok = mprotect(p, page, PROT_NONE) == 0;
    p += page;
    for (size_t k = 0; k < n; k++) {
        size_t size = job[k].size, data = (size ? (size + page - 1) / page : 1) * page;
        uint8_t *d = layout == STREAMS_END_AT_GUARD ? p + data - size : p;
        if (size) memcpy(d, s[k], size);
        at[k] = d;
        p += data;
        ok &= mprotect(p, page, PROT_NONE) == 0;
        p += page;
    }
    if (!ok) {
        munmap(map, *len);
        return NULL;
    }
    return map;
}
#endif

/* ff7_decode_stream_list on `iters` lists of 16 to 40 streams, most of one slot count and
 * bKey, so that the AVX2 path's vector lanes (lanes_prepass: 2 to 4 vectors of 8 streams)
 * take them: every bKey, 3 to 32 slots, streams of different lengths (ending at different
 * frames, cut, with bits flipped, random bytes: every code kind, raw codes in some lanes
 * and not in others), 1 to 90 frames wanted, a few streams of other slot counts or bKeys
 * among them; the streams laid out as `layout` says. Frames, bits, the shortest flag,
 * positions and angles equal the bit-by-bit reference's; through the dispatcher and the
 * AVX2 path. Adds to *compared the streams decoded past frame 0, returns the lists run. */
static int lanes_lists(int layout, int iters, int *compared)
{
    int lists_run = 0;
    for (int iter = 0; iter < iters; iter++) {
        enum { MAXJ = LIST_MAX };
        ff7_stream_job job[MAXJ], *jobs[MAXJ];
        uint8_t *s[MAXJ], *all;
        size_t at[MAXJ], total = 0;
        list_ref ref;
        size_t nj = (size_t)rnd_range(16, MAXJ);
        unsigned key = (unsigned)(rnd() % 12);
        uint32_t slots = (uint32_t)rnd_range(3, 32), frames = (uint32_t)rnd_range(2, 70);
        bool longest = layout != STREAMS_IN_ONE_BUFFER && iter % 2; /* frames that end nearest the end */
        if (longest) key = 0;
        for (size_t k = 0; k < nj; k++) {
            ff7_stream_job *j = &job[k];
            memset(j, 0, sizeof *j);
            jobs[k] = j;
            bool other = rnd() % 12 == 0;
            j->bkey = other && rnd() % 2 ? (unsigned)(rnd() % 12) : key;
            j->slots = other ? (uint32_t)rnd_range(1, 33) : slots;
            j->max_frames = rnd() % 6 == 0 ? (uint32_t)rnd_range(1, 90) : 90;
            uint32_t fr = rnd() % 3 ? frames : (uint32_t)rnd_range(1, 80);
            int damage = rnd() % 8 == 0 ? 1 : rnd() % 8 == 0 ? 2 : rnd() % 10 == 0 ? 3 : 0;
            if (longest && !other) damage = 4;
            s[k] = lanes_stream(j->bkey, j->slots, fr, damage, &j->size);
            at[k] = total;
            total += j->size + (size_t)rnd_range(0, 9);
            job_arrays(j, &ref.p2[k], &ref.r2[k], &ref.npos[k], &ref.nrot[k]);
            ref.given[k] = rnd() % 2;
            ref.s2[k] = ref.given[k];
            ref.b2[k] = 0;
            ref.n2[k] = reference_decode(s[k], j->size, j->bkey, j->slots, j->max_frames, ref.p2[k], ref.r2[k],
                                         &ref.b2[k], &ref.s2[k]);
            if (!ref.n2[k]) ref.b2[k] = 0, ref.s2[k] = ref.given[k];
            *compared += ref.n2[k] > 1;
        }
        all = malloc(total + 1);
        memset(all, 0xA5, total + 1);
        for (size_t k = 0; k < nj; k++) {
            if (job[k].size) memcpy(all + at[k], s[k], job[k].size);
            job[k].stream = all + at[k];
        }
#if FF7_TEST_GUARD_PAGES
        uint8_t *map = NULL;
        size_t map_len = 0;
        if (layout != STREAMS_IN_ONE_BUFFER) {
            const uint8_t *where[MAXJ];
            map = guarded_streams(s, job, nj, layout, where, &map_len);
            CHECK_MSG(map != NULL, "iteration %d: no memory against guard pages", iter);
            if (map)
                for (size_t k = 0; k < nj; k++) job[k].stream = where[k];
        }
#endif
        lists_run += list_paths_match(job, jobs, nj, &ref, iter, FF7_PAIR_AVX2 + 1);
#if FF7_TEST_GUARD_PAGES
        if (map) munmap(map, map_len);
#endif
        list_free(job, s, nj, &ref);
        free(all);
    }
    return lists_run;
}

TEST(lanes_match_reference)
{
    int compared = 0, lists_run = lanes_lists(STREAMS_IN_ONE_BUFFER, 400, &compared);
    CHECK_MSG(compared > 8000, "only %d streams past frame 0", compared);
    CHECK(lists_run >= 400);
}

/* lanes_match_reference's lists with every stream against a page that may not be read,
 * after its last byte and before its first: the lanes read no byte outside their own
 * stream (a read there is a fault, SIGSEGV, which fails the test). Where there are no
 * guard pages (not Linux), the lists in one buffer again. */
TEST(lanes_stay_inside_their_streams)
{
    int compared = 0, lists_run = lanes_lists(STREAMS_END_AT_GUARD, 150, &compared);
    lists_run += lanes_lists(STREAMS_START_AT_GUARD, 150, &compared);
    CHECK_MSG(compared > 6000, "only %d streams past frame 0", compared);
    CHECK(lists_run >= 300);
}

static ganim_doc *ff7_read_pack_mem_plain(const uint8_t *data, size_t size, ganim_error *err)
{
    ganim_read_opts o;
    memset(&o, 0, sizeof o);
    o.format = "ff7-battle";
    ganim_doc *doc = NULL;
    if (ganim_read_memory(data, size, &o, &doc, err) != GANIM_OK) return NULL;
    return doc;
}

/* An animation entry's header (the words and bKey as given) and the stream st (freed). */
static void put_stream(ganim_writer *w, uint32_t dw_bones, uint32_t dw_frames, uint16_t sframes, uint8_t key,
                       ganim_buffer *st)
{
    gw_u32le(w, dw_bones), gw_u32le(w, dw_frames), gw_u32le(w, 5 + (uint32_t)st->size);
    gw_u16le(w, sframes), gw_u16le(w, (uint16_t)st->size), gw_u8(w, key);
    gw_bytes(w, st->data, st->size);
    ganim_buffer_free(st);
}

/* One animation entry of 1 slot whose stream holds `frames` frames (1..3: every position
 * delta 3, rotation deltas 16, 16 and -32, each frame 24 + 27 bits after frame 0's 84),
 * with the header's words and bKey byte as given (sframes is not the stream's size). */
static void put_entry(ganim_writer *w, uint32_t dw_bones, uint32_t dw_frames, uint16_t sframes, uint8_t key,
                      uint32_t frames)
{
    int32_t pos[9] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };
    uint16_t rot[9] = { 16, 32, 48, 32, 48, 16, 48, 16, 32 };
    ganim_buffer st = encode(0, 1, frames, pos, rot);
    CHECK_EQ_INT(st.size, (84 + 51 * (frames - 1) + 7) / 8);
    put_stream(w, dw_bones, dw_frames, sframes, key, &st);
}

/* A pack's writer on `pack` (emptied), its entry count written. */
static ganim_writer pack_start(ganim_buffer *pack, uint32_t entries)
{
    memset(pack, 0, sizeof *pack);
    ganim_writer w = gw_init(pack, NULL);
    gw_u32le(&w, entries);
    return w;
}

/* The reader decodes the streams of up to 8 entries together (read_entries): every
 * warning still comes in the order of one entry at a time, each entry's header warnings
 * before those of its decoding, a special slot between two animations included; an
 * entry's error, wherever it lies among the entries read together, is the one a read of
 * one entry at a time gives. */
TEST(pack_warnings_in_entry_order)
{
    /* entry: dwBones, dwFrames, sFrames, frames in the stream */
    static const uint32_t e[7][4] = { { 1, 9, 3, 3 }, { 0, 2, 5, 2 }, { 1, 7, 0, 2 }, { 0, 5, 3, 3 },
                                      { 0, 4, 2, 2 }, { 0, 0, 0, 0 }, { 0, 6, 3, 3 } };
    for (int bad = -1; bad < 7; bad++) {
        if (bad == 5) continue; /* the special slot */
        ganim_buffer pack;
        ganim_writer w = pack_start(&pack, 7);
        uint64_t at[7];
        for (int i = 0; i < 7; i++) {
            at[i] = pack.size;
            if (i == 5) { /* special: 8 bytes */
                gw_u32le(&w, 1), gw_u32le(&w, 0), gw_u32le(&w, 8);
                for (int k = 0; k < 8; k++) gw_u8(&w, (uint8_t)k);
                continue;
            }
            put_entry(&w, e[i][0], e[i][1], (uint16_t)e[i][2], i == bad ? 3 : 0, e[i][3]);
        }
        CHECK(gw_ok(&w));
        ganim_error err;
        memset(&err, 0, sizeof err);
        ganim_doc *doc = ff7_read_pack_mem_plain(pack.data, pack.size, &err);
        if (bad >= 0) {
            char want[96];
            snprintf(want, sizeof want, "ff7-battle: entry %d: bKey 3 is not 0, 2 or 4", bad);
            CHECK_MSG(!doc && strcmp(err.message, want) == 0 && err.offset == at[bad] + 16, "entry %d bad: %s at %llu",
                      bad, err.message, (unsigned long long)err.offset);
            ganim_doc_free(doc);
            ganim_buffer_free(&pack);
            continue;
        }
        CHECK_MSG(doc != NULL, "%s", err.message);
        if (!doc) continue;
        struct {
            int entry;
            const char *text;
            uint64_t offset;
        } want[] = {
            { 0, "dwFrames says 9, 3 frames decoded", at[0] + 4 },
            { 1, "dwBones is 0; decoded with 1 slot", at[1] },
            { 1, "sFrames says 5 but only 2 frames fit", at[1] + 17 + (84 + 24 + 27) / 8 },
            { 2, "sFrames is 0; frame 0 is decoded anyway", at[2] + 12 },
            { 2, "dwFrames says 7, 1 frames decoded", at[2] + 4 },
            { 3, "dwBones is 0; decoded with 1 slot", at[3] },
            { 3, "dwFrames says 5, 3 frames decoded", at[3] + 4 },
            { 4, "dwBones is 0; decoded with 1 slot", at[4] },
            { 4, "dwFrames says 4, 2 frames decoded", at[4] + 4 },
            { 6, "dwBones is 0; decoded with 1 slot", at[6] },
            { 6, "dwFrames says 6, 3 frames decoded", at[6] + 4 },
        };
        size_t nwant = sizeof want / sizeof *want;
        CHECK_EQ_INT(doc->warning_count, nwant);
        for (size_t i = 0; i < nwant && i < doc->warning_count; i++) {
            char text[128];
            snprintf(text, sizeof text, "ff7-battle: entry %d: %s", want[i].entry, want[i].text);
            const ganim_warning *wn = &doc->warnings[i];
            CHECK_MSG(strncmp(wn->message, text, strlen(text)) == 0 && wn->offset == want[i].offset,
                      "warning %zu: %s at %llu; want %s at %llu", i, wn->message, (unsigned long long)wn->offset, text,
                      (unsigned long long)want[i].offset);
        }
        CHECK_EQ_INT(doc->clip_count, 7);
        ganim_doc_free(doc);
        ganim_buffer_free(&pack);
    }
}

/* A position that leaves the 16-bit range (frame 0's are 16-bit values, the deltas are
 * 16-bit too, so the sum may leave it; each delta here fits them) is warned of once an
 * entry, at the first such frame
 * (read_entry_end looks for one over all positions first, with no branch, then for the
 * first): here in frames 2 (y, below -32768) and 3 of entry 1, frame 4 (z, 32768 exactly)
 * of entry 2; entry 0 and entry 3 (-32768 and 32767: inside) none. */
TEST(pack_position_out_of_range)
{
    enum { F = 5 };
    static const int32_t p[4][3 * F] = {
        { 0, 0, 0, 100, -100, 5, 200, -200, 10, 300, -300, 15, 400, -400, 20 },
        { 0, 0, 0, 1, -30000, 2, 3, -32769, 4, 30003, -60000, 0, 0, -30000, 0 },
        { 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 30000, 5, 5, 32768 },
        { -32768, 32767, 0, -10000, 10000, 32767, -32768, 32767, 32767, -1, 0, 0, -32768, 32767, -32768 },
    };
    uint16_t rot[3 * F];
    for (int i = 0; i < 3 * F; i++) rot[i] = (uint16_t)(16 * i);
    ganim_buffer pack;
    ganim_writer w = pack_start(&pack, 4);
    uint64_t at[4];
    for (int i = 0; i < 4; i++) {
        at[i] = pack.size;
        ganim_buffer st = encode(0, 1, F, p[i], rot);
        put_stream(&w, 1, F, F, 0, &st);
    }
    CHECK(gw_ok(&w));
    ganim_error err;
    memset(&err, 0, sizeof err);
    ganim_doc *doc = ff7_read_pack_mem_plain(pack.data, pack.size, &err);
    CHECK_MSG(doc != NULL, "%s", err.message);
    if (doc) {
        CHECK_EQ_INT(doc->warning_count, 2);
        static const char *const want[2] = { "ff7-battle: entry 1: frame 2: a position leaves the 16-bit range",
                                             "ff7-battle: entry 2: frame 4: a position leaves the 16-bit range" };
        const uint64_t want_at[2] = { at[1] + 17, at[2] + 17 };
        for (size_t i = 0; i < 2 && i < doc->warning_count; i++)
            CHECK_MSG(strcmp(doc->warnings[i].message, want[i]) == 0 && doc->warnings[i].offset == want_at[i],
                      "warning %zu: %s at %llu", i, doc->warnings[i].message,
                      (unsigned long long)doc->warnings[i].offset);
        CHECK_EQ_INT(doc->clip_count, 4);
    }
    ganim_doc_free(doc);
    ganim_buffer_free(&pack);
}

/* A counting allocator: calls and bytes of the document's memory. */
typedef struct counted {
    int calls;
    size_t bytes, largest;
} counted;
static void *count_alloc(void *user, size_t size)
{
    counted *c = user;
    c->calls++;
    c->bytes += size;
    if (size > c->largest) c->largest = size;
    return malloc(size);
}
static void *count_realloc(void *user, void *p, size_t old_size, size_t size)
{
    counted *c = user;
    c->calls++;
    c->bytes += size - old_size;
    return realloc(p, size);
}
static void count_free(void *user, void *p, size_t size)
{
    (void)user, (void)size;
    free(p);
}

/* The reader makes a pack's document one block of the arena (pack_bytes in
 * ff7_pack_read.c): a pack of animations of every layout (normal with a trailer, frog) and
 * special slots takes two allocations (the document and the block), not much more than
 * the model and records it holds. A frog entry has no frame count: its record and its
 * model are counted for as many frames as its stream could hold (a delta frame takes 24 +
 * 3 slots bits or more). */
TEST(pack_document_is_one_block)
{
    for (int round = 0; round < 20; round++) {
        ganim_buffer pack;
        memset(&pack, 0, sizeof pack);
        ganim_writer w = gw_init(&pack, NULL);
        uint32_t entries = (uint32_t)rnd_range(1, 9);
        gw_u32le(&w, entries);
        size_t model = 0;
        for (uint32_t e = 0; e < entries; e++) {
            if (e % 4 == 2) { /* a special slot: 8 opaque bytes */
                gw_u32le(&w, 1), gw_u32le(&w, 0), gw_u32le(&w, 8);
                for (int k = 0; k < 8; k++) gw_u8(&w, (uint8_t)rnd());
                continue;
            }
            unsigned key = (unsigned)(rnd() % 3) * 2;
            uint32_t slots = (uint32_t)rnd_range(1, 30), frames = (uint32_t)rnd_range(1, 200);
            size_t per = (size_t)slots * 3;
            ganim_buffer st = random_walk_stream(key, slots, frames);
            bool frog = e % 4 == 3;
            uint32_t trailer = frog ? 2 : 3, hdr = frog ? 3 : 5;
            gw_u32le(&w, slots), gw_u32le(&w, frames), gw_u32le(&w, hdr + (uint32_t)st.size + trailer);
            if (!frog) gw_u16le(&w, (uint16_t)frames);
            gw_u16le(&w, (uint16_t)st.size);
            gw_u8(&w, (uint8_t)key);
            gw_bytes(&w, st.data, st.size);
            for (uint32_t k = 0; k < trailer; k++) gw_u8(&w, 0xA5);
            size_t room = frames;
            if (frog) room = 1 + (st.size * 8 - 48 - per * (12 - key)) / (24 + 3 * slots);
            model +=
                room * (slots * 16 + 12) + room * (slots * 6 + 12) + st.size + 64 + (slots + 1) * sizeof(ganim_track);
            ganim_buffer_free(&st);
        }
        CHECK(gw_ok(&w));
        counted c = { 0, 0, 0 };
        ganim_read_opts o;
        memset(&o, 0, sizeof o);
        o.format = "ff7-battle";
        o.allocator.alloc = count_alloc, o.allocator.realloc = count_realloc, o.allocator.free = count_free;
        o.allocator.user = &c;
        ganim_doc *doc = NULL;
        ganim_error err;
        ganim_code code = ganim_read_memory(pack.data, pack.size, &o, &doc, &err);
        CHECK_MSG(code == GANIM_OK, "round %d: %s", round, err.message);
        if (code == GANIM_OK) {
            CHECK_EQ_INT(doc->clip_count, entries);
            CHECK_EQ_INT(doc->warning_count, 0);
            CHECK_MSG(c.calls == 2, "round %d: %d allocations (%zu bytes), not the document and one block", round,
                      c.calls, c.bytes);
            CHECK_MSG(c.bytes >= model && c.bytes <= model + model / 16 + 65536,
                      "round %d: %zu bytes for %zu bytes of model and records", round, c.bytes, model);
        }
        ganim_doc_free(doc);
        ganim_buffer_free(&pack);
    }
}

/* The model ff7_clip_fill makes from each entry's record, read without a skeleton (a
 * flat one of the widest entry's slots, whichever entry of a batch that is): each clip
 * a track per slot, track t on bone t with its name, its quaternions those of
 * ff7_slot_rotations on slot t of the record bit for bit, the positions on bone 0 the
 * record's integers; every track's values apart from the others'. */
TEST(pack_model_tracks_from_records)
{
    for (int round = 0; round < 40; round++) {
        ganim_buffer pack;
        memset(&pack, 0, sizeof pack);
        ganim_writer w = gw_init(&pack, NULL);
        uint32_t entries = (uint32_t)rnd_range(1, 40), widest = 0;
        gw_u32le(&w, entries);
        for (uint32_t e = 0; e < entries; e++) {
            unsigned key = (unsigned)(rnd() % 3) * 2;
            /* the first entry of a batch (0, 32) the widest in one round of two */
            uint32_t slots = (e % 32 == 0 && round % 2) ? 30 : (uint32_t)rnd_range(1, 29);
            uint32_t frames = (uint32_t)rnd_range(1, 40);
            if (slots > widest) widest = slots;
            ganim_buffer st = random_walk_stream(key, slots, frames);
            gw_u32le(&w, slots), gw_u32le(&w, frames), gw_u32le(&w, 5 + (uint32_t)st.size);
            gw_u16le(&w, (uint16_t)frames);
            gw_u16le(&w, (uint16_t)st.size);
            gw_u8(&w, (uint8_t)key);
            gw_bytes(&w, st.data, st.size);
            ganim_buffer_free(&st);
        }
        CHECK(gw_ok(&w));
        ganim_read_opts o;
        memset(&o, 0, sizeof o);
        o.format = "ff7-battle";
        ganim_doc *doc = NULL;
        ganim_error err;
        ganim_code code = ganim_read_memory(pack.data, pack.size, &o, &doc, &err);
        CHECK_MSG(code == GANIM_OK, "round %d: %s", round, err.message);
        if (code == GANIM_OK) {
            const ganim_skeleton *sk = doc->skeleton;
            CHECK_EQ_INT(doc->clip_count, entries);
            CHECK_MSG(sk && sk->bone_count == widest, "round %d: %u bones for %u slots", round,
                      sk ? sk->bone_count : 0u, widest);
            int bad = 0;
            for (uint32_t e = 0; sk && e < doc->clip_count && bad < 5; e++) {
                const ganim_clip *clip = &doc->clips[e];
                ff7_clip_info in;
                CHECK(ff7_clip_info_parse(clip, &in));
                if (clip->track_count != in.slots) {
                    test_fail(__FILE__, __LINE__, "round %d entry %u: %u tracks for %u slots", round, e,
                              clip->track_count, in.slots);
                    bad++;
                    continue;
                }
                size_t per = (size_t)in.slots * 3u;
                float *want = malloc((size_t)in.frames * 4u * sizeof *want);
                for (uint32_t t = 0; t < clip->track_count; t++) {
                    const ganim_track *tr = &clip->tracks[t];
                    ff7_slot_rotations(in.rot + (size_t)t * 6u, per * 2u, in.frames, want);
                    bool ok = tr->bone == t && tr->name == sk->bones[t].name &&
                              tr->rotation.kind == GANIM_CHANNEL_PER_FRAME && tr->rotation.count == in.frames &&
                              memcmp(tr->rotation.values, want, (size_t)in.frames * 4u * sizeof *want) == 0;
                    if (t == 0) {
                        ok =
                            ok && tr->translation.kind == GANIM_CHANNEL_PER_FRAME && tr->translation.count == in.frames;
                        for (size_t k = 0; ok && k < (size_t)in.frames * 3u; k++)
                            ok = tr->translation.values[k] == (float)ff7_info_pos(&in, k);
                    } else ok = ok && tr->translation.kind == GANIM_CHANNEL_ABSENT && !tr->translation.values;
                    if (!ok) {
                        test_fail(__FILE__, __LINE__, "round %d entry %u track %u differs from the record", round, e,
                                  t);
                        bad++;
                        break;
                    }
                }
                free(want);
            }
        }
        ganim_doc_free(doc);
        ganim_buffer_free(&pack);
    }
}

int main(void)
{
    RUN(random_animations_roundtrip);
    RUN(every_delta_every_bkey);
    RUN(decoder_matches_reference);
    RUN(pair_matches_single);
    RUN(avx2_pairs_cut_at_every_length);
    RUN(avx2_path_runs_where_the_cpu_has_it);
    RUN(list_matches_reference);
    RUN(slot1_lists_match_reference);
    RUN(lanes_match_reference);
    RUN(lanes_stay_inside_their_streams);
    RUN(pack_warnings_in_entry_order);
    RUN(pack_position_out_of_range);
    RUN(qhimm_examples);
    RUN(hand_computed_sizes);
    RUN(pack_document_is_one_block);
    RUN(pack_model_tracks_from_records);
    return test_finish();
}
