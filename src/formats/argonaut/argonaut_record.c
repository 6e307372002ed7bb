/* Argonaut animation records: the layout of one record (every region's offset and size,
 * computed from its counts and checked against the bytes present before anything is
 * read), what about it is implausible, and a walk over a block of chained records. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/argonaut/argonaut.h"

size_t ag_frame_at(const ag_rec *r, uint32_t f)
{
    if (f == 0) return r->o_frames;
    return r->o_frames + r->morph0 + r->bones + (size_t)(f - 1) * (r->morphn + r->bones);
}

/* a * b + c within `limit`, or false. */
static bool fits(uint64_t a, uint64_t b, uint64_t *sum, uint64_t limit)
{
    if (a && b > limit / a) return false;
    uint64_t ab = a * b;
    if (ab > limit - *sum) return false;
    *sum += ab;
    return true;
}

bool ag_rec_parse(const uint8_t *data, size_t pos, size_t end, uint64_t base, int hp, ag_rec *r, char *why,
                  size_t why_size)
{
    memset(r, 0, sizeof *r);
    size_t left = pos <= end ? end - pos : 0, h = ag_header_size(hp);
    r->p = data + pos;
    r->offset = base + pos;
    r->hp = hp;
    if (left < h) {
        snprintf(why, why_size, "the %zu-byte record header needs %zu bytes, %zu remain", h, h, left);
        return false;
    }
    const uint8_t *p = r->p;
    r->tc = ganim_ld_u32le(p);
    r->slot[0] = ganim_ld_u32le(p + 0x04);
    r->fc = ganim_ld_u32le(p + 0x08);
    r->flag = ganim_ld_u32le(p + 0x0C);
    r->mc = (int32_t)ganim_ld_u32le(p + 0x10);
    r->slot[1] = ganim_ld_u32le(p + 0x14);
    r->bc = ganim_ld_u32le(p + 0x18);
    r->slot[2] = ganim_ld_u32le(p + 0x1C);
    if (hp) {
        r->kc = ganim_ld_u32le(p + 0x20);
        r->slot[3] = ganim_ld_u32le(p + 0x24);
        r->slot[4] = ganim_ld_u32le(p + 0x28);
        r->slot[5] = ganim_ld_u32le(p + 0x2C);
    }
    if (r->mc < -1) {
        snprintf(why, why_size, "its morph count %d is negative", (int)r->mc);
        return false;
    }
    uint64_t lim = left, at = h, fc = r->fc, mc = r->mc > 0 ? (uint64_t)r->mc : 0;
    bool ok = true;
    r->o_trig = (size_t)at;
    ok = ok && fits(4, r->tc, &at, lim);
    r->o_delta = (size_t)at;
    if (ok && r->flag == 0) ok = fits(8, fc, &at, lim);
    r->o_mslots = (size_t)at;
    if (ok && r->mc != 0) ok = fits(4, fc, &at, lim);
    r->o_bslots = (size_t)at;
    ok = ok && fits(4, fc, &at, lim);
    r->o_kslots = (size_t)at;
    if (ok && ag_keyed(r)) ok = fits(4, r->kc, &at, lim);
    r->o_frames = (size_t)at;
    if (ok) {
        r->morph0 = (size_t)(8 * mc);
        r->morphn = (size_t)(4 * ((mc + 1) / 2));
        uint64_t bones = 0;
        if (!ag_keyed(r)) ok = fits(24, r->bc, &bones, lim);
        r->bones = (size_t)bones;
        if (ok && fc) { /* frame 0, then fc - 1 later frames */
            ok = fits(1, r->morph0, &at, lim) && fits(1, bones, &at, lim) &&
                 fits(fc - 1, (uint64_t)r->morphn + bones, &at, lim);
        }
    }
    r->o_keys = (size_t)at;
    if (ok && ag_keyed(r)) {
        uint64_t keys = 0;
        ok = fits(16, r->kc, &keys, lim) && fits(keys, r->bc, &at, lim);
    }
    if (!ok) {
        char keys[32] = "";
        if (hp) snprintf(keys, sizeof keys, ", %u keys", r->kc);
        snprintf(why, why_size,
                 "its counts (%u triggers, %u frames, %d morphs, %u bones%s) need more than the %zu bytes that remain",
                 r->tc, r->fc, (int)r->mc, r->bc, keys, left);
        return false;
    }
    r->size = (size_t)at;
    return true;
}

/* sqrt(sum of squares) of n s16 values / 4096 */
static double norm16(const uint8_t *p, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        double v = ag_s16(p + 2 * i) / 4096.0;
        s += v * v;
    }
    return sqrt(s);
}

unsigned ag_rec_oddities(const ag_rec *r, char *why, size_t why_size)
{
    unsigned odd = 0;
#define ODD(...)                                                 \
    do {                                                         \
        if (!odd++ && why) snprintf(why, why_size, __VA_ARGS__); \
    } while (0)
    for (int i = 0; i < (r->hp ? 6 : 3); i++)
        if (r->slot[i]) ODD("a pointer slot holds 0x%x", r->slot[i]);
    if (r->flag > 1) ODD("its flag is %u (0 or 1 expected)", r->flag);
    if (r->fc == 0 || r->fc > AG_PLAUSIBLE_FRAMES) ODD("it has %u frames", r->fc);
    if (r->bc == 0 || r->bc > 256) ODD("it has %u bones", r->bc);
    if (r->hp && r->mc != 0) ODD("its morph count is %d in a Harry Potter record", (int)r->mc);
    if (r->mc == -1) ODD("its morph count is -1");
    /* the rotations: rows of matrices and quaternions about 4096 long (within 25 %) */
    uint32_t bad = 0;
    if (ag_keyed(r)) {
        for (uint32_t k = 0; k < r->kc; k++)
            for (uint32_t b = 0; b < r->bc; b++) {
                double n = norm16(r->p + ag_key_at(r, k, b), 4);
                bad += n < 0.75 || n > 1.25;
            }
    } else {
        for (uint32_t f = 0; f < r->fc; f++)
            for (uint32_t b = 0; b < r->bc; b++)
                for (int row = 0; row < 3; row++) {
                    double n = norm16(r->p + ag_matrix_at(r, f, b) + 6 * row, 3);
                    bad += n < 0.75 || n > 1.25;
                }
    }
    if (bad) ODD("%u of its %s are not about 4096 long", bad, ag_keyed(r) ? "quaternions" : "matrix rows");
#undef ODD
    return odd;
}

void ag_walk_block(const uint8_t *data, size_t pos, size_t end, uint64_t base, int hp, uint32_t count, ag_rec *out,
                   ag_walk *w)
{
    memset(w, 0, sizeof *w);
    w->end = pos;
    for (uint32_t i = 0; i < count; i++) {
        ag_rec r;
        char why[160];
        if (!ag_rec_parse(data, w->end, end, base, hp, &r, why, sizeof why)) {
            w->bad_offset = base + w->end;
            snprintf(w->why, sizeof w->why, "animation %u at byte %llu: %s", i, (unsigned long long)base + w->end, why);
            return;
        }
        unsigned odd = ag_rec_oddities(&r, why, sizeof why);
        if (odd && !w->oddities)
            snprintf(w->why, sizeof w->why, "animation %u at byte %llu: %s", i, (unsigned long long)r.offset, why);
        w->oddities += odd;
        if (out) out[i] = r;
        w->parsed++;
        w->end += r.size;
    }
    w->complete = true;
}
