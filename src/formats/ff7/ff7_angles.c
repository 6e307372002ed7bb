/* FF7 rotations: three 12-bit angles (4096 = one turn), R = Ry * Rx * Rz, to and from
 * quaternions, and the rounding to a precision key. */
#include <math.h>
#include <string.h>

#include "formats/ff7/ff7.h"

static const double FF7_TAU = 6.283185307179586476925286766559;

/* The product ((1 * Qy) * Qx) * Qz as ganim_quat_from_euler forms it, from the table's
 * half-angle sines and cosines (each Q is what ganim_quat_axis_angle gives: its two
 * off-axis parts +0). */
ganim_quat ff7_raw_to_quat_generic(float sx, float cx, float sy, float cy, float sz, float cz)
{
    ganim_quat qx = { sx, 0.0f, 0.0f, cx }, qy = { 0.0f, sy, 0.0f, cy }, qz = { 0.0f, 0.0f, sz, cz };
    return ganim_quat_mul(ganim_quat_mul(ganim_quat_mul(ganim_quat_identity(), qy), qx), qz);
}

void ff7_raw_to_quat_store_generic(unsigned ix, unsigned iy, unsigned iz, float *out)
{
    ganim_quat q = ff7_raw_to_quat_generic(FF7_HALF_SIN(ix), FF7_HALF_COS(ix), FF7_HALF_SIN(iy), FF7_HALF_COS(iy),
                                           FF7_HALF_SIN(iz), FF7_HALF_COS(iz));
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
}

void ff7_slot_to_quat_generic(const uint8_t *slot, float *out)
{
    ff7_raw_to_quat_store_generic(ganim_ld_u16le(slot) & 0xFFFu, ganim_ld_u16le(slot + 2) & 0xFFFu,
                                  ganim_ld_u16le(slot + 4) & 0xFFFu, out);
}

static int32_t circ_dist(int32_t a, int32_t b)
{
    int32_t d = (a - b) & 4095;
    return d > 2048 ? 4096 - d : d;
}

static uint16_t quantise(double angle, unsigned bkey)
{
    double units = angle * 4096.0 / FF7_TAU / (double)(1u << bkey);
    long q = lround(units);
    return (uint16_t)(((uint32_t)q << bkey) & 0xFFFu);
}

void ff7_quat_to_raw(ganim_quat q, unsigned bkey, const uint16_t *prev, uint16_t out[3])
{
    double e[3];
    ganim_quat_to_euler(q, GANIM_EULER_YXZ, e);
    uint16_t a[3], b[3];
    for (int i = 0; i < 3; i++) a[i] = quantise(e[i], bkey);
    /* Ry(y)Rx(x)Rz(z) == Ry(y+pi)Rx(pi-x)Rz(z+pi): take the one nearer the previous frame,
     * so deltas stay small. */
    const double pi = FF7_TAU / 2;
    b[0] = quantise(pi - e[0], bkey);
    b[1] = quantise(e[1] + pi, bkey);
    b[2] = quantise(e[2] + pi, bkey);
    const uint16_t *pick = a;
    if (prev) {
        int32_t da = 0, db = 0;
        for (int i = 0; i < 3; i++) {
            da += circ_dist(a[i], prev[i]);
            db += circ_dist(b[i], prev[i]);
        }
        if (db < da) pick = b;
    }
    memcpy(out, pick, 3 * sizeof *out);
}

/* Nearest multiple of 2^bkey, modulo 4096. */
uint16_t ff7_quantise_raw(uint16_t raw, unsigned bkey)
{
    if (!bkey) return raw;
    uint32_t half = 1u << (bkey - 1);
    return (uint16_t)(((raw + half) >> bkey << bkey) & 0xFFFu);
}
