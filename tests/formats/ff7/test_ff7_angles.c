/* The FF7 decoder's tables: the short rotation codes, and the angle table and short product against what it replaced: every
 * quaternion ff7_raw_to_quat gives must have the bits ganim_quat_from_euler gives for the
 * angles r * 2pi / 4096 (order YXZ), signed zeros included; so must the scalar form that
 * builds without SSE2 use. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/ff7/ff7.h"
#include "support/tbuild.h"
#include "test.h"

static ganim_quat reference(const uint16_t raw[3])
{
    double xyz[3];
    for (int i = 0; i < 3; i++) xyz[i] = (double)(raw[i] & 0xFFFu) * 6.283185307179586476925286766559 / 4096.0;
    return ganim_quat_from_euler(xyz, GANIM_EULER_YXZ);
}

static int same_bits(ganim_quat a, ganim_quat b) { return memcmp(&a, &b, sizeof a) == 0; }

/* |length^2 - 1| of a quaternion, in double from its floats. */
static double len2_error(ganim_quat q)
{
    double l = (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w;
    return fabs(l - 1.0);
}
/* The bound the FF7 reader vouches for (ff7.h, "Unit length"; the core accepts 2e-3). */
#define FF7_UNIT_BOUND 0x1p-18

static int check_raw(uint16_t x, uint16_t y, uint16_t z)
{
    uint16_t raw[3] = { x, y, z };
    ganim_quat a = ff7_raw_to_quat(raw), b = reference(raw), c = ff7_raw_to_quat_scalar(raw);
    if (!(len2_error(a) <= FF7_UNIT_BOUND)) {
        CHECK_MSG(0, "angles (%u %u %u): length^2 off by %g", x, y, z, len2_error(a));
        return 0;
    }
    if (same_bits(a, b) && same_bits(c, b)) return 1;
    if (!same_bits(c, b)) a = c;
    CHECK_MSG(0, "angles (%u %u %u): (%a %a %a %a) instead of (%a %a %a %a)", x, y, z, a.x, a.y, a.z, a.w, b.x, b.y,
              b.z, b.w);
    return 0;
}

/* The table holds ganim_quat_axis_angle's values on every axis, zeros +0. */
TEST(table_is_axis_angle)
{
    static const ganim_vec3 axes[3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
    for (int r = 0; r < 4096; r++) {
        for (int a = 0; a < 3; a++) {
            ganim_quat q = ganim_quat_axis_angle(axes[a], (double)r * 6.283185307179586476925286766559 / 4096.0);
            ganim_quat t = { a == 0 ? FF7_HALF_SIN(r) : 0.0f, a == 1 ? FF7_HALF_SIN(r) : 0.0f,
                             a == 2 ? FF7_HALF_SIN(r) : 0.0f, FF7_HALF_COS(r) };
            if (!same_bits(q, t)) {
                CHECK_MSG(0, "angle %d axis %d: table (%a, %a), axis_angle (%a %a %a %a)", r, a,
                          (double)FF7_HALF_SIN(r), (double)FF7_HALF_COS(r), q.x, q.y, q.z, q.w);
                return;
            }
        }
    }
    /* the double table holds the same values, {cos, cos, sin, -sin} */
    for (int r = 0; r < 4096; r++) {
        const double *d = ff7_half_zd[r];
        double c = FF7_HALF_COS(r), sn = FF7_HALF_SIN(r);
        if (memcmp(&d[0], &c, 8) || memcmp(&d[1], &c, 8) || memcmp(&d[2], &sn, 8) || d[3] != -sn ||
            signbit(d[3]) == signbit(sn)) {
            CHECK_MSG(0, "angle %d: double row (%a %a %a %a), floats (%a, %a)", r, d[0], d[1], d[2], d[3], sn, c);
            return;
        }
    }
    /* the AVX product's Qy table holds the same floats, {cos, sin, -sin, cos}, -sin the sign
     * flipped bit for bit (what the xor with -0 gives) */
    for (int r = 0; r < 4096; r++) {
        const float *y = ff7_half_y4[r];
        float c = FF7_HALF_COS(r), sn = FF7_HALF_SIN(r);
        uint32_t bs, bn;
        memcpy(&bs, &sn, 4);
        memcpy(&bn, &y[2], 4);
        if (memcmp(&y[0], &c, 4) || memcmp(&y[1], &sn, 4) || bn != (bs ^ 0x80000000u) || memcmp(&y[3], &c, 4)) {
            CHECK_MSG(0, "angle %d: Qy row (%a %a %a %a), floats (%a, %a)", r, (double)y[0], (double)y[1], (double)y[2],
                      (double)y[3], (double)sn, (double)c);
            return;
        }
    }
    /* every row {sin, cos} has s^2 + c^2 within 2^-22 of 1 (what the unit bound starts from) */
    for (int r = 0; r < 4096; r++) {
        double l = (double)FF7_HALF_SIN(r) * FF7_HALF_SIN(r) + (double)FF7_HALF_COS(r) * FF7_HALF_COS(r);
        CHECK_MSG(fabs(l - 1.0) <= 0x1p-22, "angle %d: s^2 + c^2 = %.17g", r, l);
    }
    /* known values: a quarter turn's half angle is 45 degrees */
    CHECK_NEAR(FF7_HALF_SIN(1024), sqrt(0.5), 1e-7);
    CHECK_NEAR(FF7_HALF_COS(1024), sqrt(0.5), 1e-7);
    CHECK(FF7_HALF_SIN(0) == 0.0f && FF7_HALF_COS(0) == 1.0f);
    /* what the AVX generic path rests on to leave out 1 * Qy: no sine of -0, no cosine 0 */
    for (int r = 0; r < 4096; r++)
        CHECK_MSG(!(FF7_HALF_SIN(r) == 0.0f && signbit(FF7_HALF_SIN(r))) && FF7_HALF_COS(r) != 0.0f,
                  "angle %d: sin %a, cos %a", r, (double)FF7_HALF_SIN(r), (double)FF7_HALF_COS(r));
}

/* Every angle of each axis against the others at the values where zeros and signs turn
 * (0, quarter turns, half a turn and their neighbours). */
TEST(every_angle_of_each_axis)
{
    static const uint16_t special[] = { 0, 1, 2, 1023, 1024, 1025, 2047, 2048, 2049, 3071, 3072, 3073, 4094, 4095 };
    const size_t ns = sizeof special / sizeof special[0];
    for (uint32_t r = 0; r < 4096; r++)
        for (size_t i = 0; i < ns; i++)
            for (size_t j = 0; j < ns; j++) {
                uint16_t a = (uint16_t)r, b = special[i], c = special[j];
                if (!check_raw(a, b, c) || !check_raw(b, a, c) || !check_raw(b, c, a)) return;
            }
}

/* Triples: a grid of every 32nd angle (every 16th under GANIM_FULL=1 / CI), and random ones
 * (bits above the 12 included: the decoder masks them). */
TEST(grids_and_random_triples)
{
    uint32_t step = test_full() ? 16 : 32;
    for (uint32_t x = 0; x < 4096; x += step)
        for (uint32_t y = 0; y < 4096; y += step)
            for (uint32_t z = 0; z < 4096; z += step)
                if (!check_raw((uint16_t)x, (uint16_t)(y + 3u * (x & 1u)), (uint16_t)z)) return;
    uint64_t s = 0x9E3779B97F4A7C15u;
    uint32_t n = test_full() ? 20000000u : 300000u;
    for (uint32_t i = 0; i < n; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        if (!check_raw((uint16_t)(s >> 16), (uint16_t)(s >> 32), (uint16_t)(s >> 48))) return;
    }
}

/* One slot (of two per frame: stride 12; at byte 0 or 6 of each frame's 12, `at`) over
 * `frames` frames of `angles` (x, y, z per frame) through every path of
 * ff7_slot_rotations: bit for bit the generic product (signed zeros included), each
 * quaternion the reference's. At byte 6 the last frame's slot ends the array: a read past
 * it is the sanitized build's error. */
static int check_slot_paths_at(const uint16_t *angles, uint32_t frames, unsigned at)
{
    uint8_t *rec = malloc((size_t)frames * 12u);
    float *out[5] = { malloc((size_t)frames * 16u), malloc((size_t)frames * 16u), malloc((size_t)frames * 16u),
                      malloc((size_t)frames * 16u), malloc((size_t)frames * 16u) };
    float *best = malloc((size_t)frames * 16u);
    int ok = rec && out[0] && out[1] && out[2] && out[3] && out[4] && best;
    CHECK(ok);
    for (uint32_t f = 0; ok && f < frames; f++) {
        for (int k = 0; k < 3; k++) {
            uint16_t a = angles[f * 3u + (unsigned)k];
            rec[f * 12u + at + (unsigned)k * 2u] = (uint8_t)a;
            rec[f * 12u + at + (unsigned)k * 2u + 1u] = (uint8_t)(a >> 8);
        }
        for (unsigned k = 0; k < 6; k++) rec[f * 12u + (6u - at) + k] = (uint8_t)(f * 7u + k + 6u); /* the other slot */
    }
#if FF7_HAVE_AVX
    int avx = __builtin_cpu_supports("avx"), bmi2 = avx && __builtin_cpu_supports("bmi2");
    int fma = bmi2 && __builtin_cpu_supports("fma");
#else
    int avx = 0, bmi2 = 0, fma = 0;
#endif
    for (int path = FF7_PATH_GENERIC; ok && path <= FF7_PATH_AVX_FMA; path++) {
        float *o = out[path];
        bool ran = ff7_slot_rotations_on(path, rec + at, 12, frames, o);
        if (path >= FF7_PATH_AVX && !ran) {
            CHECK(!(path == FF7_PATH_AVX        ? avx
                    : path == FF7_PATH_AVX_BMI2 ? bmi2
                                                : fma)); /* this machine has it: it must run */
            memcpy(o, out[0], (size_t)frames * 16u);
        } else {
            CHECK(ran);
        }
    }
    ff7_slot_rotations(rec + at, 12, frames, best);
    for (uint32_t f = 0; ok && f < frames; f++) {
        uint16_t raw[3] = { angles[f * 3u], angles[f * 3u + 1u], angles[f * 3u + 2u] };
        ganim_quat r = reference(raw);
        for (int p = 0; p < 6 && ok; p++) {
            const float *q = p < 5 ? out[p] + f * 4u : best + f * 4u;
            if (memcmp(q, &r, sizeof r) != 0) {
                CHECK_MSG(0, "path %d, frame %u, angles (%u %u %u): (%a %a %a %a) instead of (%a %a %a %a)", p, f,
                          raw[0], raw[1], raw[2], (double)q[0], (double)q[1], (double)q[2], (double)q[3], r.x, r.y, r.z,
                          r.w);
                ok = 0;
            }
        }
    }
    free(rec), free(out[0]), free(out[1]), free(out[2]), free(out[3]), free(out[4]), free(best);
    return ok;
}

static int check_slot_paths(const uint16_t *angles, uint32_t frames)
{
    return check_slot_paths_at(angles, frames, 0) && check_slot_paths_at(angles, frames, 6);
}

/* ff7_slots_rotations (a clip's driven slots, the path chosen once) against the generic
 * path slot by slot, bit for bit: records of 1 to 40 slots a frame and 0 to 70 frames
 * (odd and even, 1 and 2 among them), 0 to all slots driven, angles random, from a few
 * values (so frames repeat their slot) or with the special angles, and 16 bits each (the
 * top 4 ignored). The record is exactly its frames' bytes: a read past it is the
 * sanitized build's error, and the floats past the last slot's must stay as they were. */
TEST(slots_rotations_match_generic)
{
    uint64_t s = 0x2545F4914F6CDD1Du;
    static const uint16_t special[] = { 0, 1, 1024, 2048, 3072, 4095, 2047, 2049 };
    for (int iter = 0; iter < 3000; iter++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint32_t slots = 1u + (uint32_t)(s >> 40) % 40u;
        uint32_t frames = iter < 8 ? (uint32_t)iter : (uint32_t)(s >> 20) % 71u;
        uint32_t count = iter % 5 == 0 ? slots : (uint32_t)(s >> 50) % (slots + 1u);
        int kind = iter % 3;
        size_t stride = (size_t)slots * 6u, nrec = stride * frames, nq = (size_t)frames * 4u * count;
        uint8_t *rec = malloc(nrec ? nrec : 1);
        float *got = malloc((nq + 8) * sizeof *got), *want = malloc((nq ? nq : 1) * sizeof *want);
        CHECK(rec && got && want);
        if (!rec || !got || !want) return;
        for (size_t i = 0; i < nrec; i += 2) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            uint16_t a = kind == 0   ? (uint16_t)(s >> 48)
                         : kind == 1 ? special[(s >> 33) % 8u]
                                     : (uint16_t)((s >> 40) % 3u);
            rec[i] = (uint8_t)a;
            rec[i + 1] = (uint8_t)(a >> 8);
        }
        for (size_t i = 0; i < nq + 8; i++) got[i] = -1.5f;
        ff7_slots_rotations(rec, stride, frames, count, got);
        for (uint32_t t = 0; t < count; t++)
            CHECK(ff7_slot_rotations_on(FF7_PATH_GENERIC, rec + (size_t)t * 6u, stride, frames,
                                        want + (size_t)t * frames * 4u));
        if (nq)
            CHECK_MSG(memcmp(got, want, nq * sizeof *got) == 0, "iteration %d: %u slots, %u frames, %u driven", iter,
                      slots, frames, count);
        for (size_t i = nq; i < nq + 8; i++) CHECK(got[i] == -1.5f);
        free(rec), free(got), free(want);
    }
}

/* ff7_slot_rotations' paths (generic, short, AVX and AVX with BMI2 where this machine has them) agree bit for
 * bit: every angle of each axis with the other two at special angles, random triples,
 * and runs of repeated frames (the path that copies the quaternion before). */

/* Every angle of each axis with the other two at each pair of the ns special angles, one
 * frame of three codes each, from a[0]; returns the frames written (3 x 4096 x ns x ns). */
static uint32_t fill_every_angle(uint16_t *a, const uint16_t *special, uint32_t ns)
{
    uint32_t f = 0;
    for (uint32_t axis = 0; axis < 3; axis++)
        for (uint32_t r = 0; r < 4096; r++)
            for (uint32_t i = 0; i < ns; i++)
                for (uint32_t j = 0; j < ns; j++, f++) {
                    uint16_t *t = a + f * 3u;
                    t[axis] = (uint16_t)r, t[(axis + 1) % 3] = special[i], t[(axis + 2) % 3] = special[j];
                }
    return f;
}

TEST(slot_paths_agree)
{
    static const uint16_t special[] = { 0, 1, 2, 1023, 1024, 1025, 2047, 2048, 2049, 3071, 3072, 3073, 4094, 4095 };
    const uint32_t ns = sizeof special / sizeof special[0];
    uint32_t frames = 3u * 4096u * ns * ns;
    uint16_t *a = malloc((size_t)frames * 3u * sizeof *a);
    CHECK(a != NULL);
    if (!a) return;
    uint32_t f = fill_every_angle(a, special, ns);
    if (!check_slot_paths(a, frames)) goto done;
    /* random triples (bits above the 12 included), each repeated 0 to 3 times */
    uint64_t s = 0x2545F4914F6CDD1Du;
    uint32_t rounds = test_full() ? 10u : 2u;
    for (uint32_t round = 0; round < rounds; round++) {
        for (f = 0; f < frames;) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            uint32_t rep = 1u + (uint32_t)(s >> 62);
            for (uint32_t k = 0; k < rep && f < frames; k++, f++) {
                a[f * 3u] = (uint16_t)(s >> 16), a[f * 3u + 1u] = (uint16_t)(s >> 32),
                      a[f * 3u + 2u] = (uint16_t)(s >> 48);
            }
        }
        if (!check_slot_paths(a, frames)) break;
    }
    /* the AVX path takes two frames a turn: short runs of every length to 17, odd ones
     * included (the last frame alone), from the random triples and from the sweep's
     * special angles (zero components in either frame of a pair) */
    for (uint32_t n = 1; n <= 17; n++)
        for (uint32_t at = 0; at < 40u * n; at += 3u * n + 1u)
            if (!check_slot_paths(a + (size_t)at * 3u, n)) goto done;
    /* frames drawn from three triples, so that a triple comes back after another (A B A
     * A: the copy must take the frame just before, not an older one) */
    for (f = 0; f < 200000u; f++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint32_t k = (uint32_t)(s >> 62) % 3u;
        a[f * 3u] = (uint16_t)(100u + k), a[f * 3u + 1u] = (uint16_t)(2000u + 7u * k), a[f * 3u + 2u] = 3000u;
    }
    if (!check_slot_paths(a, 200000u) || !check_slot_paths(a + 3, 199999u)) goto done;
    f = fill_every_angle(a, special, ns);
    for (uint32_t n = 1; n <= 17; n += 2)
        for (uint32_t at = 0; at < 2000u; at += 7u * n + 1u)
            if (!check_slot_paths(a + (size_t)at * 3u, n)) goto done;
done:
    free(a);
}

/* The short-code table against ff7_rot_delta, and against the code's definition on a
 * few hand-worked codes; each entry's form (length in bits 0..5, bits 6..19 zero, the
 * delta in bits 20..31, a type-7 prefix FF7_RAW_ENTRY: length 0, bit 16, delta 0), and the delta times 2^bKey modulo 4096
 * the decoders take from it (e >> (20 - bKey)) for every bKey 0-11. */
TEST(short_code_table)
{
    for (uint32_t i = 0; i < 1024; i++) {
        uint64_t w = (uint64_t)i << 54;
        int32_t v = 99;
        bool best = true;
        unsigned len = ff7_rot_delta(w, 12, 0, &v, &best);
        uint32_t e = ff7_short_codes[i];
        if (len > 10) {
            CHECK_MSG(e == FF7_RAW_ENTRY && e == 1u << 16, "prefix %u: a %u-bit code but the table says %#x", i, len,
                      e);
            continue;
        }
        CHECK_MSG(ff7_code_len(e) == len && ff7_code_delta(e) == v && (e & 0xFFFC0u) == 0,
                  "prefix %u: table %#x (%d, %u), ff7_rot_delta (%d, %u)", i, e, ff7_code_delta(e), ff7_code_len(e), v,
                  len);
        for (unsigned key = 0; key < 12; key++) {
            uint32_t want = (uint32_t)(v * (1 << key)) & 0xFFFu;
            CHECK_MSG(((e >> (20 - key)) & 0xFFFu) == want, "prefix %u, bKey %u: scaled %u, want %u", i, key,
                      (e >> (20 - key)) & 0xFFFu, want);
        }
    }
    /* 0 -> 0; 1 000 -> -1; type 1: 1 001 0 is s = 0 -> 0 + 1 = 1, 1 001 1 is s = -1 -> -2 */
    CHECK(ff7_code_delta(ff7_short_codes[0]) == 0 && ff7_code_len(ff7_short_codes[0]) == 1);
    CHECK(ff7_code_delta(ff7_short_codes[0x200]) == -1 && ff7_code_len(ff7_short_codes[0x200]) == 4);
    CHECK(ff7_code_delta(ff7_short_codes[0x240]) == 1 && ff7_code_len(ff7_short_codes[0x240]) == 5);
    CHECK(ff7_code_delta(ff7_short_codes[0x260]) == -2 && ff7_code_len(ff7_short_codes[0x260]) == 5);
    /* 1 110 011111 -> type 6, s = 31 -> 63; 1 110 100000 -> s = -32 -> -64 */
    CHECK(ff7_code_delta(ff7_short_codes[0x39F]) == 63 && ff7_code_len(ff7_short_codes[0x39F]) == 10);
    CHECK(ff7_code_delta(ff7_short_codes[0x3A0]) == -64 && ff7_code_len(ff7_short_codes[0x3A0]) == 10);
    CHECK(ff7_short_codes[0x3C0] == 0x10000u);             /* type 7 */
    CHECK(ff7_short_codes[0x3A0] == (10u | 0xFC0u << 20)); /* -64: 1111 1100 0000 */
}

/* The reader vouches for its rotations to the validation that follows the read only:
 * a document read from an FF7 pack and then given a rotation that is not a unit
 * quaternion fails the next validation. Without the vouch the core checks them all. */
TEST(vouch_covers_the_read_only)
{
    static const char *const names[] = { "root", "bone_0" };
    ganim_doc *src = tb_doc(2, names);
    src->skeleton->bones[1].parent = 0;
    uint32_t ci = tb_clip(src, "c", 15, 4);
    float rot[16];
    for (int f = 0; f < 4; f++) {
        double xyz[3] = { 0.1 * f, 0.2, -0.3 * f };
        ganim_quat q = ganim_quat_from_euler(xyz, GANIM_EULER_YXZ);
        memcpy(rot + 4 * f, &q, sizeof q);
    }
    for (uint32_t b = 0; b < 2; b++) {
        ganim_track tr;
        memset(&tr, 0, sizeof tr);
        tr.bone = b;
        tr.rotation.kind = GANIM_CHANNEL_PER_FRAME;
        tr.rotation.count = 4;
        tr.rotation.values = rot;
        CHECK(ganim_doc_add_track(src, ci, &tr, NULL, NULL) == GANIM_OK);
    }
    ganim_buffer pack;
    memset(&pack, 0, sizeof pack);
    ganim_error e;
    CHECK(ganim_write(src, "ff7-battle", NULL, &pack, &e) == GANIM_OK);
    ganim_read_opts o;
    memset(&o, 0, sizeof o);
    o.format = "ff7-battle";
    ganim_doc *doc = NULL;
    CHECK(ganim_read_memory(pack.data, pack.size, &o, &doc, &e) == GANIM_OK);
    if (doc) {
        CHECK(!ganim_doc_rotations_vouched(doc)); /* ended by the read */
        CHECK(ganim_doc_validate(doc, &e) == GANIM_OK);
        const ganim_clip *c = &doc->clips[0];
        CHECK(c->track_count > 0 && c->tracks[0].rotation.count == 4);
        float *v = (float *)(uintptr_t)c->tracks[0].rotation.values; /* what a caller could do */
        float keep = v[4];
        v[4] = 2.0f; /* frame 1 no longer a unit quaternion */
        CHECK(ganim_doc_validate(doc, &e) == GANIM_ERR_CORRUPT);
        ganim_doc_vouch_rotations(doc); /* the mechanism: a vouch skips the unit check ... */
        CHECK(ganim_doc_validate(doc, &e) == GANIM_OK);
        ganim_doc_vouch_end(doc); /* ... until it ends */
        CHECK(ganim_doc_validate(doc, &e) == GANIM_ERR_CORRUPT);
        v[4] = keep;
        CHECK(ganim_doc_validate(doc, &e) == GANIM_OK);
    }
    ganim_doc_free(doc);
    ganim_doc_free(src);
    ganim_buffer_free(&pack);
}

int main(void)
{
    test_program_name = "test_ff7_angles";
    RUN(table_is_axis_angle);
    RUN(every_angle_of_each_axis);
    RUN(grids_and_random_triples);
    RUN(slot_paths_agree);
    RUN(slots_rotations_match_generic);
    RUN(short_code_table);
    RUN(vouch_covers_the_read_only);
    return test_finish();
}
