/* The FF7 writer's faster pieces (twenty-seventh session) against the frozen ones they
 * replace (ff7_write_ref.h): lround and its cut-and-fraction form; the YXZ angles and
 * ganim_quat_to_euler, bit for bit; ff7_quat_to_raw for every bKey; the stream's size and
 * bytes; the raw values of random documents and of every FF7 sample; a whole entry's
 * choice of bKey and stream. Counts are printed; GANIM_FULL=1 runs ten times as many. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "ff7_write_ref.h"
#include "formats/ff7/ff7.h"
#include "support/tbuild.h"
#include "test.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}
static uint32_t rnd(void) { return (uint32_t)(rnd64() >> 32); }
static double rnd_unit(void) { return (double)(rnd64() >> 11) * 0x1p-53; } /* [0, 1) */
static double rnd_between(double lo, double hi) { return lo + (hi - lo) * rnd_unit(); }
static uint64_t scaled(uint64_t n) { return test_full() ? 10 * n : n; }

/* ff7_round_units(u) against C's lround: the integer reference (ref_lround), and the C
 * library's lround where it conforms (glibc; Wine's msvcrt rounds the double below a half
 * up, which the library does not follow) */
static int same_long(double u)
{
    volatile double vu = u, below_half = 0.49999999999999994; /* run time, not folded */
    static int conforms = -1;
    if (conforms < 0) conforms = lround(below_half) == 0 && lround(-below_half) == 0;
    long a = ff7_round_units(u), b = ref_lround(u), c = conforms ? lround(vu) : b;
    if (a != b || a != c) printf("  %a: %ld, reference %ld, lround %ld\n", u, a, b, c);
    return a == b && a == c;
}

TEST(round_units_is_lround)
{
    uint64_t n = 0, bad = 0;
    /* every half and whole number of the units' range and past it, and their neighbours */
    for (int32_t k = -20000; k <= 20000; k++) {
        double xs[3] = { (double)k, k + 0.5, k - 0.5 };
        for (int j = 0; j < 3; j++) {
            double x = xs[j], up = nextafter(x, INFINITY), down = nextafter(x, -INFINITY);
            bad += !same_long(x) + !same_long(up) + !same_long(down);
            n += 3;
        }
    }
    /* the edges of the fast form's range and beyond, the specials */
    static const double special[] = { 0x1p30,
                                      0x1p31,
                                      0x1p52,
                                      0x1p53,
                                      0x1p62,
                                      0x1p63,
                                      1e300,
                                      DBL_MAX,
                                      DBL_MIN,
                                      4.9e-324,
                                      0.49999999999999994,
                                      0.5,
                                      1.5,
                                      2.5,
                                      1e-300,
                                      0x1p30 - 0.5,
                                      0x1p30 - 1.5 };
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        for (int s = -1; s <= 1; s += 2) {
            double x = s * special[i];
            double set[3] = { x, nextafter(x, INFINITY), nextafter(x, -INFINITY) };
            for (int j = 0; j < 3; j++) bad += !same_long(set[j]), n++;
        }
    bad += !same_long(0.0) + !same_long(-0.0) + !same_long(INFINITY) + !same_long(-INFINITY) + !same_long(NAN) +
           !same_long(-NAN);
    n += 6;
    uint64_t rounds = scaled(1000000);
    for (uint64_t i = 0; i < rounds; i++) {
        double a = rnd_between(-9000, 9000);
        uint64_t bits = rnd64();
        double b;
        memcpy(&b, &bits, sizeof b);
        double h = floor(rnd_between(-9000, 9000)) + 0.5 + (double)((int)(rnd() % 5) - 2) * 0x1p-40;
        bad += !same_long(a) + !same_long(b) + !same_long(h);
        n += 3;
    }
    CHECK_EQ_INT(bad, 0);
    printf("  round_units: %llu values, %llu differ\n", (unsigned long long)n, (unsigned long long)bad);
}

/* One quaternion of a kind: 0 random unit, 1 random components, 2 random bits, 3 from
 * random raw angles, 4 near gimbal lock (x near +-90 degrees), 5 from Euler angles on a
 * quantisation boundary (a half unit), 6 from raw angles near the atan2 branch cut and the
 * special angles, negated or not. */
static ganim_quat quat_of_kind(int kind)
{
    static const uint16_t special[] = { 0, 1, 1023, 1024, 1025, 2047, 2048, 2049, 3071, 3072, 3073, 4095 };
    ganim_quat q = { 0, 0, 0, 1 };
    switch (kind) {
    case 0: {
        ganim_quat r = { (float)rnd_between(-1, 1), (float)rnd_between(-1, 1), (float)rnd_between(-1, 1),
                         (float)rnd_between(-1, 1) };
        return ganim_quat_normalize(r);
    }
    case 1: {
        ganim_quat r = { (float)rnd_between(-2, 2), (float)rnd_between(-2, 2), (float)rnd_between(-2, 2),
                         (float)rnd_between(-2, 2) };
        return r;
    }
    case 2: {
        uint32_t b[4] = { rnd(), rnd(), rnd(), rnd() };
        memcpy(&q, b, sizeof q);
        return q;
    }
    case 3: {
        uint16_t raw[3] = { (uint16_t)(rnd() & 4095u), (uint16_t)(rnd() & 4095u), (uint16_t)(rnd() & 4095u) };
        return ff7_raw_to_quat(raw);
    }
    case 4: {
        double e[3] = { (rnd() & 1 ? 1 : -1) * REF_FF7_TAU / 4 + rnd_between(-1, 1) * pow(10, -(double)(rnd() % 12)),
                        rnd_between(-4, 4), rnd_between(-4, 4) };
        q = ganim_quat_from_euler(e, GANIM_EULER_YXZ);
        return rnd() & 1 ? ganim_quat_normalize(q) : q;
    }
    case 5: {
        double e[3];
        for (int i = 0; i < 3; i++)
            e[i] = ((double)((int)(rnd() % 8192) - 4096) + 0.5) * REF_FF7_TAU / 4096.0 / (double)(1u << (rnd() % 5));
        return ganim_quat_from_euler(e, GANIM_EULER_YXZ);
    }
    default: {
        uint16_t raw[3];
        for (int i = 0; i < 3; i++)
            raw[i] = rnd() & 1 ? special[rnd() % 12] : (uint16_t)((special[rnd() % 12] + rnd() % 5 - 2) & 4095u);
        q = ff7_raw_to_quat(raw);
        if (rnd() & 1) q.x = -q.x, q.y = -q.y, q.z = -q.z, q.w = -q.w;
        return q;
    }
    }
}

static bool same_angles(const double a[3], const double b[3])
{
    for (int i = 0; i < 3; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0 && !(isnan(a[i]) && isnan(b[i]))) return false;
    return true;
}

TEST(yxz_is_quat_to_euler)
{
    uint64_t n = 0, bad = 0;
    /* every quaternion of the special components: 17^4 */
    static const float comp[] = { 0.0f,        -0.0f,        1.0f,      -1.0f,   0.5f,  -0.5f,
                                  0.70710677f, -0.70710677f, 1e-20f,    -1e-20f, 1e20f, FLT_MAX,
                                  FLT_MIN,     INFINITY,     -INFINITY, NAN,     1e-45f };
    const int nc = (int)(sizeof comp / sizeof *comp);
    for (int a = 0; a < nc; a++)
        for (int b = 0; b < nc; b++)
            for (int c = 0; c < nc; c++)
                for (int d = 0; d < nc; d++) {
                    ganim_quat q = { comp[a], comp[b], comp[c], comp[d] };
                    double e0[3], e1[3];
                    ganim_quat_to_euler(q, GANIM_EULER_YXZ, e0);
                    ff7_quat_yxz(q, e1);
                    bad += !same_angles(e0, e1);
                    n++;
                }
    uint64_t rounds = scaled(1000000);
    for (uint64_t i = 0; i < rounds; i++) {
        for (int kind = 0; kind < 7; kind++) {
            ganim_quat q = quat_of_kind(kind);
            double e0[3], e1[3];
            ganim_quat_to_euler(q, GANIM_EULER_YXZ, e0);
            ff7_quat_yxz(q, e1);
            bad += !same_angles(e0, e1);
            n++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    printf("  yxz angles: %llu quaternions, %llu differ\n", (unsigned long long)n, (unsigned long long)bad);
}

TEST(quat_to_raw_matches_reference)
{
    uint64_t n = 0, bad = 0;
    uint64_t rounds = scaled(100000);
    for (uint64_t i = 0; i < rounds; i++) {
        for (int kind = 0; kind < 7; kind++) {
            ganim_quat q = quat_of_kind(kind);
            for (unsigned bkey = 0; bkey <= 4; bkey++) {
                uint16_t r0[3], r1[3];
                ref_quat_to_raw(q, bkey, NULL, r0);
                ff7_quat_to_raw(q, bkey, NULL, r1);
                bad += memcmp(r0, r1, sizeof r0) != 0;
                /* a previous frame: random, the first solution's, or near the second's */
                uint16_t prev[3];
                int how = (int)(rnd() % 3);
                for (int k = 0; k < 3; k++)
                    prev[k] = how == 0   ? (uint16_t)(rnd() & 4095u)
                              : how == 1 ? r0[k]
                                         : (uint16_t)((r0[k] + 2048u + rnd() % 9u - 4u) & 4095u);
                uint16_t s0[3], s1[3];
                ref_quat_to_raw(q, bkey, prev, s0);
                ff7_quat_to_raw(q, bkey, prev, s1);
                bad += memcmp(s0, s1, sizeof s0) != 0;
                n += 2;
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    printf("  quat_to_raw: %llu quaternion x bKey x previous, %llu differ\n", (unsigned long long)n,
           (unsigned long long)bad);
}

/* The bound ff7_quat_to_raw skips the second solution by: for a finite angle e, y's (and
 * z's) second value quantises e + pi, and is the first's plus half a turn give or take one
 * step 2^bkey (mod 4096). Checked on the doubles where that step happens, those next to
 * each rounding boundary (64 on each side of every half unit, every bKey 0..11), and on
 * random angles; the steps seen are counted (they must occur: the allowance is needed). */
TEST(second_solution_bound)
{
    uint64_t n = 0, bad = 0, steps = 0;
    const double pi = REF_FF7_TAU / 2;
    double last_short[12] = { 0 };
    for (unsigned bkey = 0; bkey <= 11; bkey++) {
        int32_t half_turn = 2048 >> bkey;
        for (int32_t k = -half_turn - 1; k <= half_turn; k++) {
            double e0 = ((double)k + 0.5) * (double)(1u << bkey) * REF_FF7_TAU / 4096.0;
            double e = e0;
            for (int j = 0; j < 64; j++) e = nextafter(e, -INFINITY);
            for (int j = 0; j < 129; j++, e = nextafter(e, INFINITY)) {
                if (e < -pi || e > pi) continue;
                int32_t d = (ref_quantise(e + pi, bkey) - ref_quantise(e, bkey) - 2048) & 4095;
                bool ok = d == 0 || d == (int32_t)(1u << bkey) || d == 4096 - (int32_t)(1u << bkey);
                bad += !ok;
                steps += d != 0;
                n++;
                /* the whole choice on these angles as y and as z, previous frames near
                 * the bound (the second solution one step nearer or not) */
                double ang[3] = { rnd_between(-pi / 2, pi / 2), e, rnd_between(-pi, pi) };
                if (j & 1) ang[1] = ang[2], ang[2] = e;
                uint16_t a[3], b[3];
                const double bs[3] = { pi - ang[0], ang[1] + pi, ang[2] + pi };
                for (int c = 0; c < 3; c++) a[c] = ref_quantise(ang[c], bkey), b[c] = ref_quantise(bs[c], bkey);
                /* where the step happens: x at 90 degrees (its two solutions the same),
                 * the previous frame at x's, and y and z about a quarter turn from a's,
                 * every pair of offsets that can put the choice on the bound */
                /* y and z both a step short of half a turn where one was seen before */
                if (d == 4096 - (int32_t)(1u << bkey)) {
                    if (last_short[bkey] != 0) ang[j & 1 ? 1 : 2] = last_short[bkey];
                    last_short[bkey] = e;
                }
                if (d != 0 && bkey <= 4 && (test_full() || steps % 8 == 1)) {
                    double g[3] = { pi / 2, ang[1], ang[2] };
                    int32_t w = (int32_t)(2u << bkey) + 2;
                    uint16_t ga[3];
                    for (int c = 0; c < 3; c++) ga[c] = ref_quantise(g[c], bkey);
                    for (int32_t s1 = 1024 - w; s1 <= 1024 + w; s1++)
                        for (int32_t s2 = 1024 - w; s2 <= 1024 + w; s2++) {
                            uint16_t prev[3] = { ga[0], (uint16_t)((ga[1] + (uint32_t)s1) & 4095u),
                                                 (uint16_t)((ga[2] + (uint32_t)s2) & 4095u) };
                            uint16_t r0[3], r1[3];
                            ref_angles_to_raw(g, bkey, prev, r0);
                            ff7_angles_to_raw(g, bkey, prev, r1);
                            bad += memcmp(r0, r1, sizeof r0) != 0;
                            n++;
                            /* and the other way round (the previous frame on the far side) */
                            prev[1] = (uint16_t)((ga[1] - (uint32_t)s1) & 4095u);
                            prev[2] = (uint16_t)((ga[2] - (uint32_t)s2) & 4095u);
                            ref_angles_to_raw(g, bkey, prev, r0);
                            ff7_angles_to_raw(g, bkey, prev, r1);
                            bad += memcmp(r0, r1, sizeof r0) != 0;
                            n++;
                        }
                }
                for (int t = 0; t < 4; t++) {
                    uint16_t prev[3], r0[3], r1[3];
                    for (int c = 0; c < 3; c++) /* between a and b, a little nearer one of them */
                        prev[c] = (uint16_t)((c == 0 ? b[0] : (a[c] + 1024u + (rnd() % 5) - 2u)) & 4095u);
                    if (t & 1) prev[1] = (uint16_t)((b[1] + (rnd() % 3) - 1u) & 4095u);
                    if (t & 2) prev[2] = (uint16_t)((b[2] + (rnd() % 3) - 1u) & 4095u);
                    ref_angles_to_raw(ang, bkey, prev, r0);
                    ff7_angles_to_raw(ang, bkey, prev, r1);
                    bad += memcmp(r0, r1, sizeof r0) != 0;
                    n++;
                }
            }
        }
    }
    uint64_t rounds = scaled(1000000);
    for (uint64_t i = 0; i < rounds; i++) {
        unsigned bkey = rnd() % 12;
        double e = rnd_between(-pi, pi);
        int32_t d = (ref_quantise(e + pi, bkey) - ref_quantise(e, bkey) - 2048) & 4095;
        bad += !(d == 0 || d == (int32_t)(1u << bkey) || d == 4096 - (int32_t)(1u << bkey));
        n++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(steps > 0);
    printf("  second solution: %llu angles, %llu a step off half a turn, %llu outside the bound\n",
           (unsigned long long)n, (unsigned long long)steps, (unsigned long long)bad);
}

/* Random raw streams: rotation deltas of every code (0, -1, each length, raw, the wrap at
 * +-2048), multiples of 2^bkey or not, positions in and out of range. */
static void random_stream(unsigned bkey, uint32_t slots, uint32_t frames, int32_t *pos, uint16_t *rot, bool aligned)
{
    size_t per = (size_t)slots * 3u;
    int pmode = (int)(rnd() % 4);
    for (uint32_t f = 0; f < frames; f++)
        for (int k = 0; k < 3; k++) {
            int32_t *p = &pos[(size_t)f * 3u + (size_t)k];
            int32_t before = f ? p[-3] : 0;
            switch (pmode) {
            case 0: *p = (int32_t)(rnd() % 129) - 64 + before; break;
            case 1: *p = (int32_t)(rnd() % 65536) - 32768; break;
            case 2: *p = rnd() % 50 ? before + (int32_t)(rnd() % 200) - 100 : (int32_t)(rnd() % 200001) - 100000; break;
            default: *p = f ? before + (rnd() & 1 ? 63 : -64) + (int32_t)(rnd() % 3) - 1 : 32767; break;
            }
            if (pmode != 1 && (*p < -40000 || *p > 40000)) *p = (int32_t)(rnd() % 1000);
        }
    for (uint32_t f = 0; f < frames; f++)
        for (size_t i = 0; i < per; i++) {
            uint16_t *r = &rot[(size_t)f * per + i];
            uint32_t before = f ? r[-(ptrdiff_t)per] : rnd() & 4095u;
            int32_t d;
            switch (rnd() % 6) {
            case 0: d = 0; break;
            case 1: d = -1; break;
            case 2: d = (int32_t)(rnd() % 129) - 64; break;
            case 3: d = 2048 + (int32_t)(rnd() % 5) - 2; break;
            case 4: d = (int32_t)(rnd() % 4096); break;
            default: d = ((int32_t)(rnd() % 9) - 4) * (1 << (rnd() % 7)); break;
            }
            uint32_t v = (before + (uint32_t)(d * (1 << (aligned ? bkey : 0)))) & 4095u;
            if (aligned) v = v >> bkey << bkey;
            *r = (uint16_t)v;
        }
}

TEST(stream_bits_and_bytes_match_reference)
{
    uint64_t n = 0, bad = 0;
    uint64_t rounds = scaled(5000);
    int32_t *pos = malloc(3 * 200 * sizeof *pos);
    uint16_t *rot = malloc(3 * 200 * 12 * sizeof *rot);
    for (uint64_t i = 0; i < rounds; i++) {
        unsigned bkey = (unsigned)(rnd() % 12);
        uint32_t slots = 1 + rnd() % 12, frames = rnd() % 8 ? 1 + rnd() % 200 : rnd() % 3;
        random_stream(bkey, slots, frames, pos, rot, rnd() % 4 != 0);
        size_t b0 = ref_stream_bits(bkey, slots, frames, pos, rot), b1 = ff7_stream_bits(bkey, slots, frames, pos, rot);
        bad += b0 != b1;
        if (b0 == SIZE_MAX) { /* the encoder's input is in range: positions brought in */
            for (size_t k = 0; k < (size_t)frames * 3u; k++) pos[k] = (int32_t)(rnd() % 129) - 64;
            b0 = ref_stream_bits(bkey, slots, frames, pos, rot);
            bad += b0 != ff7_stream_bits(bkey, slots, frames, pos, rot);
        }
        /* the bytes, after 0..7 bits already pending in the bit writer */
        ganim_buffer s0 = { 0 }, s1 = { 0 };
        ganim_writer w0 = gw_init(&s0, NULL), w1 = gw_init(&s1, NULL);
        ganim_bitwriter bw0 = gbw_init(&w0), bw1 = gbw_init(&w1);
        unsigned lead = rnd() % 8, lv = rnd() & 0x7Fu;
        gbw_put(&bw0, lead, lv & ((1u << lead) - 1u));
        gbw_put(&bw1, lead, lv & ((1u << lead) - 1u));
        ref_encode_stream(&bw0, bkey, slots, frames, pos, rot);
        ff7_encode_stream(&bw1, bkey, slots, frames, pos, rot);
        bool same = s0.size == s1.size && (s0.size == 0 || memcmp(s0.data, s1.data, s0.size) == 0) &&
                    bw0.bits == bw1.bits && bw0.nacc == bw1.nacc && bw0.acc == bw1.acc;
        if (frames) same = same && bw0.bits == lead + b0;
        bad += !same;
        n += 2;
        ganim_buffer_free(&s0);
        ganim_buffer_free(&s1);
    }
    free(pos);
    free(rot);
    CHECK_EQ_INT(bad, 0);
    printf("  streams: %llu sizes and encodings, %llu differ\n", (unsigned long long)n, (unsigned long long)bad);
}

/* One entry's pieces, reference and new, on a clip: the raw values (with or without the
 * record), the bKey chosen from `cands`, the stream's bytes. Returns false on a
 * difference. */
static bool entry_matches(const ganim_doc *doc, const ganim_clip *clip, const ff7_clip_info *in, int role,
                          uint32_t slots, const int *cands, int nc)
{
    uint32_t frames = clip->frame_count;
    size_t npos = (size_t)frames * 3u, nrot = npos * slots;
    int32_t *p0 = malloc(npos * sizeof *p0), *p1 = malloc(npos * sizeof *p1);
    uint16_t *r0 = malloc(nrot * sizeof *r0), *r1 = malloc(nrot * sizeof *r1);
    uint16_t *sc = malloc(nrot * sizeof *sc);
    bool pr0 = ref_raw_from_model(doc, clip, in, role, slots, frames, p0, r0);
    bool pr1 = ff7_raw_from_model(doc, clip, in, role, slots, frames, p1, r1);
    bool same = pr0 == pr1 && !memcmp(p0, p1, npos * sizeof *p0) && !memcmp(r0, r1, nrot * sizeof *r0);
    unsigned k0 = 99, k1 = 99;
    size_t b0 = 0, b1 = 0;
    int c0 = ref_choose_bkey(cands, nc, slots, frames, p0, r0, sc, &k0, &b0);
    ganim_error err;
    ganim_code c1 = ff7_choose_bkey(cands, nc, slots, frames, p1, r1, sc, &k1, &b1, 0, &err);
    same = same && (c0 == 0) == (c1 == GANIM_OK) && k0 == k1 && b0 == b1 && !memcmp(r0, r1, nrot * sizeof *r0);
    if (same && c0 == 0) {
        ganim_buffer s0 = { 0 }, s1 = { 0 };
        ganim_writer w0 = gw_init(&s0, NULL), w1 = gw_init(&s1, NULL);
        ganim_bitwriter bw0 = gbw_init(&w0), bw1 = gbw_init(&w1);
        ref_encode_stream(&bw0, k0, slots, frames, p0, r0);
        ff7_encode_stream(&bw1, k1, slots, frames, p1, r1);
        same = s0.size == s1.size && !memcmp(s0.data, s1.data, s0.size) && s0.size == (b0 + 7) / 8;
        ganim_buffer_free(&s0);
        ganim_buffer_free(&s1);
    }
    free(p0), free(p1), free(r0), free(r1), free(sc);
    return same;
}

static void random_values(float *v, uint32_t count, int n, int mode)
{
    for (uint32_t i = 0; i < count; i++) {
        float *x = v + (size_t)i * (size_t)n;
        if (n == 4) {
            ganim_quat q = quat_of_kind(mode == 7 ? (int)(rnd() % 7) : mode);
            x[0] = q.x, x[1] = q.y, x[2] = q.z, x[3] = q.w;
        } else {
            for (int k = 0; k < 3; k++)
                x[k] = mode == 0   ? (float)rnd_between(-100, 100)
                       : mode == 1 ? (float)((int)(rnd() % 1001) - 500) + (rnd() & 1 ? 0.5f : 0.0f)
                       : mode == 2 ? (float)rnd_between(-3e9, 3e9)
                                   : (rnd() % 10 ? (float)rnd_between(-40, 40) : NAN);
        }
    }
}

/* A channel of a random kind and values on track t of clip c. */
static void random_channel(ganim_doc *doc, uint32_t c, uint32_t t, ganim_channel_target target, int n, uint32_t frames)
{
    uint32_t kind = rnd() % 6;
    if (kind == 0) return; /* absent */
    /* kind 5: one value a frame but fewer than the frames (ganim_channel_eval holds the
     * last; a document ganim_doc_validate would refuse, which the function never asks) */
    uint32_t count = kind == 1 ? 1 : kind == 2 || kind == 5 ? frames : 1 + rnd() % (frames + 2);
    float *v = malloc((size_t)count * (size_t)n * sizeof *v);
    float *times = malloc((size_t)count * sizeof *times);
    random_values(v, count, n, n == 4 ? (int)(rnd() % 8) : (int)(rnd() % 4));
    float at = (float)(rnd() % 3) - 1;
    for (uint32_t i = 0; i < count; i++) { /* whole frames or between, rising */
        at += rnd() % 3 ? 1.0f : (float)rnd_between(0.1, 2.5);
        times[i] = at;
    }
    ganim_channel_kind k = kind == 1                ? GANIM_CHANNEL_CONSTANT
                           : kind == 2 || kind == 5 ? GANIM_CHANNEL_PER_FRAME
                                                    : GANIM_CHANNEL_KEYED;
    tb_channel(doc, c, t, target, k, count, k == GANIM_CHANNEL_KEYED ? times : NULL, v);
    if (kind == 5) { /* made shorter in place */
        ganim_track *tr = &doc->clips[c].tracks[t];
        (target == GANIM_TARGET_ROTATION ? &tr->rotation : &tr->translation)->count = 1 + rnd() % frames;
    }
    free(v);
    free(times);
}

TEST(random_documents_match_reference)
{
    uint64_t n = 0, bad = 0;
    uint64_t rounds = scaled(150);
    static const int cand_sets[6][3] = { { 0, 2, 4 }, { 2, 4, 0 }, { 4, 0, 0 }, { 0, 0, 0 }, { 2, 0, 0 }, { 1, 3, 0 } };
    static const int cand_n[6] = { 3, 2, 1, 1, 1, 2 };
    for (uint64_t i = 0; i < rounds; i++) {
        uint32_t bones = 1 + rnd() % 12, frames = rnd() % 5 ? 1 + rnd() % 120 : 1 + rnd() % 3;
        if (i % 50 == 0) bones = 60, frames = 700 + rnd() % 200; /* big enough for bKey 2 or 4 */
        ganim_doc *doc = tb_doc(bones, NULL);
        for (uint32_t b = 0; b < bones && rnd() % 3 == 0; b++) { /* rest poses */
            ganim_quat q = quat_of_kind((int)(rnd() % 7));
            doc->skeleton->bones[b].rest.rotation = q;
            doc->skeleton->bones[b].rest.translation.x = (float)rnd_between(-50, 50);
        }
        uint32_t c = tb_clip(doc, "c", 15, frames);
        for (uint32_t b = 0; b < bones; b++) {
            if (rnd() % 6 == 0) continue; /* no track */
            uint8_t *step = NULL;
            if (rnd() % 4 == 0) {
                step = malloc(frames);
                for (uint32_t f = 0; f < frames; f++) step[f] = (uint8_t)(rnd() & 1);
            }
            uint32_t t = tb_track(doc, c, b, NULL, step);
            free(step);
            random_channel(doc, c, t, GANIM_TARGET_ROTATION, 4, frames);
            random_channel(doc, c, t, GANIM_TARGET_TRANSLATION, 3, frames);
        }
        ganim_clip *clip = &doc->clips[c];
        clip->rotation_interp = rnd() & 1 ? GANIM_INTERP_SLERP : GANIM_INTERP_NLERP;
        int role = rnd() % 4 ? FF7_ROLE_BODY : FF7_ROLE_WEAPON;
        uint32_t slots = rnd() % 2 ? ff7_slots_for(doc, clip, role) : 1 + rnd() % (bones + 1);
        int set = (int)(rnd() % 6);
        bool same = entry_matches(doc, clip, NULL, role, slots, cand_sets[set], cand_n[set]);
        bad += !same;
        n++;
        ganim_doc_free(doc);
    }
    CHECK_EQ_INT(bad, 0);
    printf("  random documents: %llu entries, %llu differ\n", (unsigned long long)n, (unsigned long long)bad);
}

/* Every FF7 sample: each entry's pieces with its record (the values as read: the record's
 * integers), without it (every rotation through the angles), and with its rotations
 * nudged (the record's integers where they stay close, the angles elsewhere). */
TEST(samples_match_reference)
{
    const char *dir = test_testdata_optional();
    if (!dir) {
        test_note_skip("test_ff7_write_speed: samples_match_reference (no test data)");
        return;
    }
    const ganim_format *fmt = ganim_format_find("ff7-battle");
    char **files = fmt ? test_format_files(fmt, TEST_SAMPLES) : NULL;
    uint64_t n = 0, bad = 0, nfiles = 0;
    static const int cands[3] = { 0, 2, 4 };
    for (char **f = files; f && *f; f++) {
        ganim_doc *doc = NULL;
        ganim_error err;
        if (ganim_read_file(*f, NULL, &doc, &err) != GANIM_OK) continue;
        nfiles++;
        for (uint32_t i = 0; i < doc->clip_count; i++) {
            ganim_clip *clip = &doc->clips[i];
            ff7_clip_info in;
            if (clip->kind != GANIM_CLIP_ANIMATION || !ff7_clip_info_parse(clip, &in) ||
                in.layout == FF7_LAYOUT_SPECIAL)
                continue;
            int k0 = in.bkey;
            int own[3], nc = 0;
            for (int k = k0; k <= 4; k += 2) own[nc++] = k;
            bad += !entry_matches(doc, clip, &in, in.role, in.slots, own, nc);
            bad += !entry_matches(doc, clip, NULL, in.role, in.slots, cands, 3);
            n += 2;
            for (uint32_t t = 0; t < clip->track_count; t++) { /* nudged in place */
                ganim_channel *ch = &clip->tracks[t].rotation;
                if (ch->kind != GANIM_CHANNEL_PER_FRAME) continue;
                float *v = (float *)(uintptr_t)ch->values;
                for (uint32_t k = 0; k < ch->count * 4u; k++)
                    if (rnd() % 3 == 0) v[k] += (float)rnd_between(-1e-3, 1e-3);
            }
            bad += !entry_matches(doc, clip, &in, in.role, in.slots, own, nc);
            n++;
        }
        ganim_doc_free(doc);
    }
    test_free_list(files);
    CHECK(nfiles > 0);
    CHECK_EQ_INT(bad, 0);
    printf("  samples: %llu files, %llu entries, %llu differ\n", (unsigned long long)nfiles, (unsigned long long)n,
           (unsigned long long)bad);
}

int main(void)
{
    RUN(round_units_is_lround);
    RUN(yxz_is_quat_to_euler);
    RUN(quat_to_raw_matches_reference);
    RUN(second_solution_bound);
    RUN(stream_bits_and_bytes_match_reference);
    RUN(random_documents_match_reference);
    RUN(samples_match_reference);
    return test_finish();
}
