/* The FF7 decoder's tables: the short rotation codes, and the angle table and short product against what it replaced: every
 * quaternion ff7_raw_to_quat gives must have the bits ganim_quat_from_euler gives for the
 * angles r * 2pi / 4096 (order YXZ), signed zeros included; so must the scalar form that
 * builds without SSE2 use. */
#include <stdlib.h>

#include "formats/ff7/ff7.h"
#include "test.h"

static ganim_quat reference(const uint16_t raw[3])
{
    double xyz[3];
    for (int i = 0; i < 3; i++) xyz[i] = (double)(raw[i] & 0xFFFu) * 6.283185307179586476925286766559 / 4096.0;
    return ganim_quat_from_euler(xyz, GANIM_EULER_YXZ);
}

static int same_bits(ganim_quat a, ganim_quat b) { return memcmp(&a, &b, sizeof a) == 0; }

static int check_raw(uint16_t x, uint16_t y, uint16_t z)
{
    uint16_t raw[3] = { x, y, z };
    ganim_quat a = ff7_raw_to_quat(raw), b = reference(raw), c = ff7_raw_to_quat_scalar(raw);
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
    /* known values: a quarter turn's half angle is 45 degrees */
    CHECK_NEAR(FF7_HALF_SIN(1024), sqrt(0.5), 1e-7);
    CHECK_NEAR(FF7_HALF_COS(1024), sqrt(0.5), 1e-7);
    CHECK(FF7_HALF_SIN(0) == 0.0f && FF7_HALF_COS(0) == 1.0f);
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

/* The short-code table against ff7_rot_delta, and against the code's definition on a
 * few hand-worked codes. */
TEST(short_code_table)
{
    for (uint32_t i = 0; i < 1024; i++) {
        uint64_t w = (uint64_t)i << 54;
        int32_t v = 99;
        bool best = true;
        unsigned len = ff7_rot_delta(w, 12, 0, &v, &best);
        ff7_short_code c = ff7_short_codes[i];
        if (len > 10) {
            CHECK_MSG(c.len == 0, "prefix %u: a %u-bit code but the table says %u", i, len, c.len);
        } else {
            CHECK_MSG(c.len == len && c.delta == v, "prefix %u: table (%d, %u), ff7_rot_delta (%d, %u)", i, c.delta,
                      c.len, v, len);
        }
    }
    /* 0 -> 0; 1 000 -> -1; type 1: 1 001 0 is s = 0 -> 0 + 1 = 1, 1 001 1 is s = -1 -> -2 */
    CHECK(ff7_short_codes[0].delta == 0 && ff7_short_codes[0].len == 1);
    CHECK(ff7_short_codes[0x200].delta == -1 && ff7_short_codes[0x200].len == 4);
    CHECK(ff7_short_codes[0x240].delta == 1 && ff7_short_codes[0x240].len == 5);
    CHECK(ff7_short_codes[0x260].delta == -2 && ff7_short_codes[0x260].len == 5);
    /* 1 110 011111 -> type 6, s = 31 -> 63; 1 110 100000 -> s = -32 -> -64 */
    CHECK(ff7_short_codes[0x39F].delta == 63 && ff7_short_codes[0x39F].len == 10);
    CHECK(ff7_short_codes[0x3A0].delta == -64 && ff7_short_codes[0x3A0].len == 10);
    CHECK(ff7_short_codes[0x3C0].len == 0); /* type 7 */
}

int main(void)
{
    test_program_name = "test_ff7_angles";
    RUN(table_is_axis_angle);
    RUN(every_angle_of_each_axis);
    RUN(grids_and_random_triples);
    RUN(short_code_table);
    return test_finish();
}
