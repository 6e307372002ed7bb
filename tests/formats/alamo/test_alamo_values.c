/* The .ALA reader's whole-channel decoders (alamo_ala_values.c, four lanes at a time with
 * SSE2) against the per-value reference the writer also uses: every value must have the
 * bits ala_dec_rot_unit / ala_plan_value give, signed zeros and non-finite results
 * included, and the first repaired rotation and the finiteness verdict must agree. The
 * streams sit in buffers of exactly their size (the sanitizer build catches a read past
 * them), laid out as format 1 (a chunk per track) and format 2 (a track's values inside a
 * shared frame, last in the frame). Also the LSB-first bit unpacking against the bits. */
#include <stdio.h>
#include <stdlib.h>

#include "formats/alamo/alamo_ala.h"
#include "io/bits.h"
#include "support/tbuild.h"
#include "test.h"

static uint64_t g_rng = 0x9E3779B97F4A7C15u;
static uint32_t rnd(void)
{
    g_rng = g_rng * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(g_rng >> 32);
}

/* A stream of `count` frames of `comps` 16-bit values: format 1 (stride 2*comps) or
 * format 2 (frame of `fs` values, the track's last in it); buffer of exactly that size. */
typedef struct stream_buf {
    uint8_t *mem;
    ala_stream s;
} stream_buf;

static stream_buf make_stream(uint32_t count, unsigned comps, uint32_t fs, const uint16_t *vals)
{
    stream_buf b;
    uint32_t frame = fs ? fs : comps, idx = fs ? fs - comps : 0;
    size_t size = (size_t)count * frame * 2u;
    b.mem = malloc(size ? size : 1);
    for (size_t i = 0; i < size; i++) b.mem[i] = (uint8_t)rnd(); /* the other tracks' values */
    for (uint32_t f = 0; f < count; f++)
        for (unsigned k = 0; k < comps; k++)
            ganim_st_u16le(b.mem + ((size_t)f * frame + idx + k) * 2u, vals[f * comps + k]);
    b.s.base = b.mem + 2u * idx;
    b.s.stride = 2u * frame;
    return b;
}

/* Rotations: each path's results (ala_dec_rots_on: the SSE2 or scalar base, and AVX2 where
 * this machine has it) against ala_dec_rot_unit, for every frame. */
static int check_rots(const uint16_t *vals, uint32_t count, uint32_t fs, const char *what)
{
    stream_buf b = make_stream(count, 4, fs, vals);
    float *got = malloc((size_t)count * 16u), want[4];
    int ok = 1;
    for (int path = ALA_PATH_BASE; ok && path <= ALA_PATH_AVX2; path++) {
        const char *name = path == ALA_PATH_AVX2 ? "AVX2" : "base";
        uint32_t bad = UINT32_MAX, want_bad = UINT32_MAX;
        if (!ala_dec_rots_on(path, &b.s, count, got, &bad)) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__)
            CHECK_MSG(!__builtin_cpu_supports("avx2"), "%s: this machine has AVX2: the path must run", what);
#endif
            continue;
        }
        for (uint32_t f = 0; f < count && ok; f++) {
            int16_t raw[4];
            for (unsigned k = 0; k < 4; k++) raw[k] = (int16_t)vals[f * 4 + k];
            if (!ala_dec_rot_unit(raw, want) && want_bad == UINT32_MAX) want_bad = f;
            if (memcmp(got + 4 * f, want, sizeof want) != 0) {
                const float *g = got + 4 * f;
                CHECK_MSG(0, "%s, %s path: frame %u of %u (%d %d %d %d): (%a %a %a %a) instead of (%a %a %a %a)", what,
                          name, f, count, raw[0], raw[1], raw[2], raw[3], g[0], g[1], g[2], g[3], want[0], want[1],
                          want[2], want[3]);
                ok = 0;
            }
        }
        if (ok && bad != want_bad) {
            CHECK_MSG(0, "%s, %s path: first repaired frame %u instead of %u", what, name, bad, want_bad);
            ok = 0;
        }
    }
    free(got);
    free(b.mem);
    return ok;
}

/* Stored components whose length (in units of 1/32767) is as near as the integers allow to
 * the edge of the tolerance: the float length rounds to 1 + 8388 or 8389 x 2^-23 (unit or
 * not) or 1 - 16777 or 16778 x 2^-24, where the order of the sum of squares decides. */
static void edge_quat(uint16_t out[4])
{
    double len = rnd() & 1 ? 1.0 + 8388.5 / 8388608.0 : 1.0 - 16777.5 / 16777216.0;
    double target = len * len * 32767.0 * 32767.0;
    for (;;) {
        int32_t a = (int32_t)(rnd() % 40001u) - 20000, b = (int32_t)(rnd() % 40001u) - 20000;
        int32_t c = (int32_t)(rnd() % 40001u) - 20000;
        double rem = target - (double)a * a - (double)b * b - (double)c * c;
        if (rem < 0 || rem > 32767.0 * 32767.0) continue;
        int32_t d = (int32_t)lround(sqrt(rem)) * (rnd() & 1 ? 1 : -1);
        int32_t v[4] = { a, b, c, d };
        unsigned rot = rnd() % 4; /* the largest component anywhere */
        for (unsigned k = 0; k < 4; k++) out[k] = (uint16_t)(int16_t)v[(k + rot) % 4];
        return;
    }
}

/* A quaternion's stored components: a random unit one quantised (what real files hold),
 * one scaled to a length near the 1e-3 tolerance, a random one, special values, or one at
 * the tolerance's very edge. */
static void quat_case(uint16_t out[4], unsigned kind)
{
    if (kind == 5) {
        edge_quat(out);
        return;
    }
    static const int16_t special[] = { 0, 1, -1, 32767, -32767, -32768, 23170, -23170, 16384, 18918 };
    double q[4], n = 0;
    for (unsigned k = 0; k < 4; k++) {
        q[k] = (double)(int32_t)rnd() / 2147483648.0;
        n += q[k] * q[k];
    }
    n = n > 0 ? sqrt(n) : 1;
    double len = kind == 1 ? 0.9985 + (rnd() % 3001) * 1e-6 : 1.0; /* 0.9985 .. 1.0015 */
    for (unsigned k = 0; k < 4; k++) {
        int32_t v = (int32_t)lround(q[k] / n * len * 32767.0);
        if (kind == 2) v = (int16_t)rnd();
        if (kind == 3) v = special[rnd() % (sizeof special / sizeof special[0])];
        out[k] = (uint16_t)(int16_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v);
    }
}

TEST(rotations_match_the_reference)
{
    uint32_t rounds = test_full() ? 4000u : 300u;
    for (uint32_t r = 0; r < rounds; r++) {
        uint32_t count = r < 40 ? 1 + r % 13 : 1 + rnd() % 700;
        unsigned kind = r % 6; /* 0: unit, 1: near the tolerance, 2: random, 3: special, 4: mixed, 5: edge */
        uint16_t *v = malloc((size_t)count * 8u);
        for (uint32_t f = 0; f < count; f++) quat_case(v + 4 * f, kind == 4 ? rnd() % 6 : kind);
        uint32_t fs = r & 1 ? 4 + rnd() % 40 : 0;
        int ok = check_rots(v, count, fs, fs ? "format 2" : "format 1");
        free(v);
        if (!ok) return;
    }
    /* every lane position of the first repaired frame, inside and after a group of four
     * (SSE2) and of eight (AVX2), one or two repaired in a group */
    for (uint32_t at = 0; at < 19; at++) {
        uint16_t v[19 * 4];
        for (uint32_t f = 0; f < 19; f++) quat_case(v + 4 * f, 0);
        memset(v + 4 * at, 0, 8); /* a zero quaternion: the identity, repaired */
        if (!check_rots(v, 19, 0, "zero quaternion")) return;
        memset(v + 4 * ((at * 7u + 3u) % 19u), 0, 8);
        if (!check_rots(v, 19, 0, "two zero quaternions")) return;
    }
}

/* Every stored 16-bit value in every component of every lane of a group of eight (the AVX2
 * path divides half of its pairs and sums three exact products for the others): unit
 * quaternions (x, y, 0, 0) turned, y = sqrt(32767^2 - x^2) rounded, so that each is kept as
 * decoded, not repaired, and its bits are the lanes'. */
TEST(every_stored_value_in_every_lane)
{
    uint32_t count = 65536u + 7u;
    uint16_t *v = malloc((size_t)count * 8u);
    for (unsigned shift = 0; shift < 8; shift++)
        for (unsigned k = 0; k < 4; k++) {
            for (uint32_t f = 0; f < count; f++) {
                int32_t x = (int32_t)((f + 65536u - shift) % 65536u) - 32768;
                double rest = 32767.0 * 32767.0 - (double)x * x;
                int32_t y = rest > 0 ? (int32_t)lround(sqrt(rest)) : 0;
                uint16_t q[4] = { 0, 0, 0, 0 };
                q[k] = (uint16_t)(int16_t)x;
                q[(k + 1) % 4] = (uint16_t)(int16_t)y;
                memcpy(v + 4 * f, q, sizeof q);
                int16_t raw[4];
                float out[4];
                memcpy(raw, q, sizeof raw);
                if (!ala_dec_rot_unit(raw, out)) { /* repaired: its lanes' bits untested */
                    CHECK_MSG(0, "stored %d, %d: not unit", x, y);
                    free(v);
                    return;
                }
            }
            if (!check_rots(v, count, 0, "every stored value")) {
                free(v);
                return;
            }
        }
    free(v);
}

/* Translation / scale: ala_dec_vecs against ala_plan_value of a track holding the stream. */
static int check_vecs(const uint16_t *vals, uint32_t count, uint32_t fs, const uint32_t off[3], const uint32_t scl[3],
                      int constant, const char *what)
{
    stream_buf b = make_stream(count, 3, fs, vals);
    ala_ptrack t;
    memset(&t, 0, sizeof t);
    if (!constant) t.trans = b.s;
    memcpy(t.vec[V_TOFF], off, 12);
    memcpy(t.vec[V_TSCALE], scl, 12);
    uint32_t n = constant ? 1 : count;
    float *got = malloc((size_t)n * 12u);
    bool finite = ala_dec_vecs(&t.trans, off, scl, n, got), want_finite = true;
    int ok = 1;
    for (uint32_t f = 0; f < n && ok; f++) {
        float want[3];
        ala_plan_value(&t, 1, f, want);
        for (unsigned k = 0; k < 3; k++) want_finite &= isfinite(want[k]) != 0;
        if (memcmp(got + 3 * f, want, sizeof want) != 0) {
            const float *g = got + 3 * f;
            CHECK_MSG(0, "%s: frame %u of %u: (%a %a %a) instead of (%a %a %a)", what, f, n, g[0], g[1], g[2], want[0],
                      want[1], want[2]);
            ok = 0;
        }
    }
    if (ok && finite != want_finite) {
        CHECK_MSG(0, "%s: finite %d instead of %d", what, finite, want_finite);
        ok = 0;
    }
    free(got);
    free(b.mem);
    return ok;
}

/* Offsets and scales: typical ones, huge ones near the float range (some sums overflow),
 * tiny and subnormal ones, signed zeros, infinities and NaN. */
static uint32_t float_case(unsigned kind)
{
    static const uint32_t special[] = { 0x00000000u, 0x80000000u, 0x00000001u, 0x80800000u, 0x7F7FFFFFu,
                                        0xFF7FFFFFu, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0x3F800000u,
                                        0x477FFF00u, 0x737FFFFFu, 0x7B000000u, 0xFB000000u };
    switch (kind) {
    case 0: return ganim_f32_bits((float)((double)(int32_t)rnd() / 2147483648.0 * 500.0));
    case 1: return ganim_f32_bits((float)((double)(rnd() % 100000u) * 1e-7));
    case 2: return rnd();
    default: return special[rnd() % (sizeof special / sizeof special[0])];
    }
}

TEST(vectors_match_the_reference)
{
    uint32_t rounds = test_full() ? 6000u : 600u;
    for (uint32_t r = 0; r < rounds; r++) {
        uint32_t count = r < 40 ? 1 + r % 9 : 1 + rnd() % 500;
        uint16_t *v = malloc((size_t)count * 6u);
        for (uint32_t i = 0; i < count * 3u; i++)
            v[i] = (uint16_t)(r % 3 == 0 ? rnd() : r % 3 == 1 ? (rnd() & 1 ? 65535u : 0u) : rnd() % 4096u);
        uint32_t off[3], scl[3];
        unsigned kind = r % 8 < 4 ? r % 2 : r % 8 - 2; /* mostly typical, then large, random, special */
        for (unsigned k = 0; k < 3; k++) {
            off[k] = float_case(kind == 1 ? 0 : kind);
            scl[k] = float_case(kind);
        }
        uint32_t fs = r & 1 ? 3 + rnd() % 40 : 0;
        int ok = check_vecs(v, count, fs, off, scl, r % 17 == 5, fs ? "format 2" : "format 1");
        free(v);
        if (!ok) return;
    }
    /* just inside and outside the proof that no sum overflows: the fast and checked loops */
    static const uint32_t edge[] = { 0x73000000u, 0x737FFFFFu, 0x73800000u, 0x7F000000u, 0x7F7FFFFFu };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        uint16_t v[5 * 3];
        for (unsigned k = 0; k < 15; k++) v[k] = (uint16_t)(k * 5000u);
        const uint32_t off[3] = { edge[i], edge[i] | 0x80000000u, 0 }, scl[3] = { edge[i], 0x3F800000u, edge[i] };
        if (!check_vecs(v, 5, 0, off, scl, 0, "near the float range")) return;
    }
}

TEST(bits_unpack_lsb_first)
{
    uint8_t data[40], out[320];
    for (unsigned i = 0; i < 256; i++) data[i % 40] = (uint8_t)i, data[(i + 7) % 40] = (uint8_t)(i * 37u);
    for (size_t count = 0; count <= 320; count++) {
        memset(out, 0xAA, sizeof out);
        CHECK(gb_lsb_unpack(data, 40, count, out));
        for (size_t i = 0; i < count; i++)
            if (out[i] != ((data[i / 8] >> (i % 8)) & 1)) {
                CHECK_MSG(0, "count %zu: bit %zu is %u", count, i, out[i]);
                return;
            }
        for (size_t i = count; i < 320; i++)
            if (out[i] != 0xAA) {
                CHECK_MSG(0, "count %zu: byte %zu written", count, i);
                return;
            }
    }
    for (unsigned b = 0; b < 256; b++) { /* every byte value */
        uint8_t one = (uint8_t)b;
        CHECK(gb_lsb_unpack(&one, 1, 8, out));
        for (unsigned k = 0; k < 8; k++) CHECK_EQ_INT(out[k], (b >> k) & 1u);
    }
    CHECK(!gb_lsb_unpack(data, 2, 17, out)); /* more bits than bytes hold */
}

/* The reader's unpacking (ala_unpack_bits: 32 bits a turn with SSE2, the rest by
 * gb_lsb_unpack) against the bits themselves, for every count to 700 over random bytes and
 * over the bytes 0x00, 0xFF and single bits; input and output in buffers of exactly their
 * size (the sanitizer build catches a read or write past them). */
TEST(reader_bits_match_the_bits)
{
    for (unsigned fill = 0; fill < 4; fill++)
        for (uint32_t count = 0; count <= 700; count++) {
            size_t nbytes = ((size_t)count + 7u) / 8u;
            uint8_t *data = malloc(nbytes ? nbytes : 1), *out = malloc(count ? count : 1);
            for (size_t i = 0; i < nbytes; i++)
                data[i] = fill == 0 ? (uint8_t)rnd() : fill == 1 ? 0xFF : fill == 2 ? 0 : (uint8_t)(1u << (i % 8));
            CHECK(ala_unpack_bits(data, nbytes, count, out));
            int ok = 1;
            for (uint32_t i = 0; i < count && ok; i++)
                if (out[i] != ((data[i / 8] >> (i % 8)) & 1)) {
                    CHECK_MSG(0, "fill %u, count %u: frame %u is %u", fill, count, i, out[i]);
                    ok = 0;
                }
            if (count) CHECK(!ala_unpack_bits(data, nbytes, count + 8u, out)); /* more bits than bytes hold */
            free(data);
            free(out);
            if (!ok) return;
        }
}

/* The reader vouches for its rotations (ganim_doc_vouch_rotations): the validation after
 * the read skips their unit test, so every quaternion ala_dec_rot_unit gives must pass it:
 * q0*q0 + q1*q1 + q2*q2 + q3*q3 in that order within [GANIM_UNIT_LEN2_MIN,
 * GANIM_UNIT_LEN2_MAX]. One kept is one whose float sum n2 (the same sum: 0 + a is a)
 * passed |sqrtf(n2) - 1| <= 1e-3; one repaired was normalised. */
static int passes_validation(const float q[4])
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    return len2 >= GANIM_UNIT_LEN2_MIN && len2 <= GANIM_UNIT_LEN2_MAX;
}

static int decoded_passes(int32_t a, int32_t b, int32_t c, int32_t d)
{
    int16_t raw[4] = { (int16_t)a, (int16_t)b, (int16_t)c, (int16_t)d };
    float q[4];
    (void)ala_dec_rot_unit(raw, q);
    if (passes_validation(q)) return 1;
    CHECK_MSG(0, "(%d %d %d %d) decodes to (%a %a %a %a), which the validation refuses", a, b, c, d, q[0], q[1], q[2],
              q[3]);
    return 0;
}

static int32_t clamp16(double v) { return v > 32767.0 ? 32767 : v < -32768.0 ? -32768 : (int32_t)lround(v); }

TEST(decoded_rotations_pass_the_validation)
{
    /* Every float n2 the reader's test keeps is inside the validation's bounds: all floats
     * of [0.99, 1.01] (sqrtf is correctly rounded, so monotone: none outside is kept). */
    uint32_t kept = 0;
    CHECK(fabsf(sqrtf(0.99f) - 1.0f) > 1e-3f);
    CHECK(fabsf(sqrtf(1.01f) - 1.0f) > 1e-3f);
    for (float x = 0.99f; x <= 1.01f; x = nextafterf(x, 2.0f)) {
        if (!(fabsf(sqrtf(x) - 1.0f) <= 1e-3f)) continue;
        kept++;
        if (!(x >= GANIM_UNIT_LEN2_MIN && x <= GANIM_UNIT_LEN2_MAX)) {
            CHECK_MSG(0, "n2 = %a is kept by the reader but refused by the validation", (double)x);
            return;
        }
    }
    CHECK(kept > 30000u); /* the band 0.998..1.002 holds ~50,000 floats */
    /* The decoder itself at the tolerance's two edges (kept on one side, normalised on the
     * other), the large components in every pair of positions; then corners and random. */
    static const int pos[6][2] = { { 0, 1 }, { 0, 3 }, { 1, 2 }, { 2, 3 }, { 3, 0 }, { 2, 1 } };
    const double edge[2] = { 0.999 * 32767.0, 1.001 * 32767.0 };
    uint32_t step = test_full() ? 1u : 7u;
    for (int e = 0; e < 2; e++)
        for (int32_t a = 0; a <= 32767; a += (int32_t)step) {
            double rest = edge[e] * edge[e] - (double)a * a;
            if (rest < 0) continue;
            int32_t b0 = clamp16(sqrt(rest));
            for (int32_t db = -3; db <= 3; db++) {
                int32_t v[4] = { 0, 0, 0, 0 }, b = b0 + db > 32767 ? 32767 : b0 + db;
                int p = (int)((uint32_t)(a + db + 3) % 6u);
                v[pos[p][0]] = (a & 1) ? -a : a;
                v[pos[p][1]] = (b & 2) ? -b : b;
                if (!decoded_passes(v[0], v[1], v[2], v[3])) return;
            }
        }
    static const int32_t corner[6] = { -32768, -32767, -1, 0, 1, 32767 };
    for (uint32_t i = 0; i < 6u * 6u * 6u * 6u; i++)
        if (!decoded_passes(corner[i % 6], corner[i / 6 % 6], corner[i / 36 % 6], corner[i / 216])) return;
    for (uint32_t i = 0; i < (test_full() ? 2000000u : 200000u); i++) {
        uint16_t v[4];
        quat_case(v, i % 4);
        if (!decoded_passes((int16_t)v[0], (int16_t)v[1], (int16_t)v[2], (int16_t)v[3])) return;
    }
}

/* The reader's values against the plan's, bit for bit: format 2 translations and scales
 * are decoded a run of frames at a time for all tracks (alamo_ala_read.c, decode_late; runs
 * of 65,536 / stride bytes' frames), format 1 track by track. A document of 40 bones x 700
 * frames (format 2: 240-byte frames, runs of 273 frames, the last one short) whose every
 * translation and scale moves on every frame, written in both versions, read back, and
 * each value compared with ala_plan_value of the parsed file. */
/* src written as .ala (write options wo, or NULL) into *ala and read back with its own
 * skeleton into *doc (NULL when either fails). */
static void write_and_read(const ganim_doc *src, const ganim_write_opts *wo, ganim_buffer *ala, ganim_doc **doc)
{
    memset(ala, 0, sizeof *ala);
    ganim_error e;
    *doc = NULL;
    CHECK(ganim_write(src, "alamo-ala", wo, ala, &e) == GANIM_OK);
    ganim_read_opts o;
    memset(&o, 0, sizeof o);
    o.format = "alamo-ala";
    o.skeleton = src->skeleton;
    CHECK(ganim_read_memory(ala->data, ala->size, &o, doc, &e) == GANIM_OK);
}

TEST(read_values_are_the_plans)
{
    enum { BONES = 40, FRAMES = 700 };
    const char *names[BONES];
    char buf[BONES][16];
    for (int b = 0; b < BONES; b++) snprintf(buf[b], sizeof buf[b], "b%d", b), names[b] = buf[b];
    ganim_doc *src = tb_doc(BONES, names);
    uint32_t ci = tb_clip(src, "c", 30, FRAMES);
    float *rot = malloc(sizeof(float) * 4u * FRAMES), *pos = malloc(sizeof(float) * 3u * FRAMES),
          *scl = malloc(sizeof(float) * 3u * FRAMES);
    for (uint32_t b = 0; b < BONES; b++) {
        for (int f = 0; f < FRAMES; f++) {
            double xyz[3] = { 0.01 * f + b, 0.2 * b, -0.003 * f };
            ganim_quat q = ganim_quat_from_euler(xyz, GANIM_EULER_YXZ);
            memcpy(rot + 4 * f, &q, sizeof q);
            for (int k = 0; k < 3; k++) {
                pos[3 * f + k] = (float)((double)rnd() / 4294967296.0 * 200.0 - 100.0) * (float)(b + 1);
                scl[3 * f + k] = 0.5f + (float)((double)rnd() / 4294967296.0 * 1.5);
            }
        }
        ganim_track tr;
        memset(&tr, 0, sizeof tr);
        tr.bone = b;
        tr.rotation = (ganim_channel){ .kind = GANIM_CHANNEL_PER_FRAME, .count = FRAMES, .values = rot };
        tr.translation = (ganim_channel){ .kind = GANIM_CHANNEL_PER_FRAME, .count = FRAMES, .values = pos };
        tr.scale = (ganim_channel){ .kind = GANIM_CHANNEL_PER_FRAME, .count = FRAMES, .values = scl };
        CHECK(ganim_doc_add_track(src, ci, &tr, NULL, NULL) == GANIM_OK); /* copies the values */
    }
    for (int version = 1; version <= 2; version++) {
        ganim_setting setting;
        ganim_write_opts wo = test_write_setting(&setting, "alamo.version", version == 1 ? "1" : "2");
        ganim_buffer ala;
        ganim_doc *doc;
        ganim_error e;
        write_and_read(src, &wo, &ala, &doc);
        ala_plan p;
        memset(&p, 0, sizeof p);
        ganim_allocator a = ganim_allocator_resolve(NULL);
        p.alloc = &a;
        CHECK(ala_parse(&p, ala.data, ala.size, &e) == GANIM_OK);
        CHECK_EQ_INT(p.version, version);
        size_t moving = 0, differ = 0;
        for (uint32_t i = 0; doc && i < p.track_count && i < doc->clips[0].track_count; i++) {
            const ganim_track *t = &doc->clips[0].tracks[i];
            const ganim_channel *ch[3] = { &t->rotation, &t->translation, &t->scale };
            for (int c = 0; c < 3; c++) {
                unsigned w = c ? 3u : 4u;
                if (!ala_plan_has_stream(&p.tracks[i], c)) continue;
                CHECK_EQ_INT(ch[c]->count, FRAMES);
                moving++;
                for (uint32_t f = 0; f < FRAMES; f++) {
                    float ref[4];
                    ala_plan_value(&p.tracks[i], c, f, ref);
                    if (memcmp(ref, ch[c]->values + (size_t)f * w, w * sizeof(float)) != 0 && differ++ == 0)
                        CHECK_MSG(0, "version %d, track %u, channel %d, frame %u differs", version, i, c, f);
                }
            }
        }
        CHECK_EQ_INT(differ, 0);
        CHECK_MSG(moving == 3u * BONES, "version %d: %zu moving channels", version, moving);
        ala_plan_free(&p);
        ganim_doc_free(doc);
        ganim_buffer_free(&ala);
    }
    free(rot);
    free(pos);
    free(scl);
    ganim_doc_free(src);
}

/* The reader vouches for its rotations and its translations and scales to the validation
 * that follows the read only: a document read from an .ALA and then given a non-unit
 * rotation or a non-finite translation or scale fails the next validation. */
TEST(vouches_cover_the_read_only)
{
    static const char *const names[] = { "root", "arm" };
    ganim_doc *src = tb_doc(2, names);
    src->skeleton->bones[1].parent = 0;
    uint32_t ci = tb_clip(src, "c", 30, 4);
    float rot[16], pos[12], scl[12];
    for (int f = 0; f < 4; f++) {
        double xyz[3] = { 0.1 * f, 0.2, -0.3 * f };
        ganim_quat q = ganim_quat_from_euler(xyz, GANIM_EULER_YXZ);
        memcpy(rot + 4 * f, &q, sizeof q);
        for (int k = 0; k < 3; k++)
            pos[3 * f + k] = (float)(f * 3 + k) * 0.5f, scl[3 * f + k] = 1.0f + 0.125f * (float)f;
    }
    for (uint32_t b = 0; b < 2; b++) {
        ganim_track tr;
        memset(&tr, 0, sizeof tr);
        tr.bone = b;
        tr.rotation = (ganim_channel){ .kind = GANIM_CHANNEL_PER_FRAME, .count = 4, .values = rot };
        tr.translation = (ganim_channel){ .kind = GANIM_CHANNEL_PER_FRAME, .count = 4, .values = pos };
        tr.scale = (ganim_channel){ .kind = GANIM_CHANNEL_PER_FRAME, .count = 4, .values = scl };
        CHECK(ganim_doc_add_track(src, ci, &tr, NULL, NULL) == GANIM_OK);
    }
    ganim_buffer ala;
    ganim_doc *doc;
    ganim_error e;
    write_and_read(src, NULL, &ala, &doc);
    if (doc) {
        CHECK(!ganim_doc_rotations_vouched(doc) && !ganim_doc_vectors_vouched(doc)); /* ended by the read */
        CHECK(ganim_doc_validate(doc, &e) == GANIM_OK);
        const ganim_clip *c = &doc->clips[0];
        CHECK(c->track_count == 2 && c->tracks[1].rotation.count == 4 && c->tracks[1].translation.count == 4 &&
              c->tracks[1].scale.count == 4);
        float *channels[3] = { (float *)(uintptr_t)c->tracks[1].rotation.values, /* what a caller could do */
                               (float *)(uintptr_t)c->tracks[1].translation.values,
                               (float *)(uintptr_t)c->tracks[1].scale.values };
        const float wrong[3] = { 2.0f, INFINITY, NAN };
        for (int k = 0; k < 3; k++) {
            float keep = channels[k][4];
            channels[k][4] = wrong[k];
            CHECK(ganim_doc_validate(doc, &e) == GANIM_ERR_CORRUPT);
            if (k == 0) ganim_doc_vouch_rotations(doc); /* the mechanism: a vouch skips the check ... */
            else ganim_doc_vouch_vectors(doc);
            CHECK(ganim_doc_validate(doc, &e) == GANIM_OK);
            ganim_doc_vouch_end(doc); /* ... until it ends */
            CHECK(ganim_doc_validate(doc, &e) == GANIM_ERR_CORRUPT);
            channels[k][4] = keep;
            CHECK(ganim_doc_validate(doc, &e) == GANIM_OK);
        }
    }
    ganim_doc_free(doc);
    ganim_doc_free(src);
    ganim_buffer_free(&ala);
}

int main(void)
{
    test_program_name = "test_alamo_values";
    RUN(rotations_match_the_reference);
    RUN(every_stored_value_in_every_lane);
    RUN(vectors_match_the_reference);
    RUN(bits_unpack_lsb_first);
    RUN(reader_bits_match_the_bits);
    RUN(decoded_rotations_pass_the_validation);
    RUN(vouches_cover_the_read_only);
    RUN(read_values_are_the_plans);
    return test_finish();
}
