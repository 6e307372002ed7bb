/* The .ALA writer's rotation quantiser (ala_rot16, alamo_ala_write.c) against the search
 * it replaced, kept here verbatim (ref_rot16: every one of the 81 candidates measured with
 * a square root and four divisions): the same four integers and the same `how` for both
 * ways of rounding, on random unit quaternions, on quaternions at the edges (components at
 * 0 and +-1, ties between neighbours, the file's own integers' directions and their
 * neighbouring floats, lengths far from 1) and on every rotation of every sample. Also
 * the integer range that stands for the old length test. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/alamo/alamo_ala.h"
#include "support/tbuild.h"
#include "test.h"

/* ---- the old search, as alamo_ala_write.c had it before the twenty-sixth session ---- */
static int16_t ref_q16(double v)
{
    double r = floor(v * 32767.0 + 0.5);
    if (r > 32767.0) r = 32767.0;
    if (r < -32767.0) r = -32767.0;
    return (int16_t)r;
}

static void ref_rot16(const float q[4], int trunc, int16_t out[4], int *how)
{
    double n = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
    double u[4];
    int model[2][4];
    for (int k = 0; k < 4; k++) {
        u[k] = n > 0 ? q[k] / n : k == 3;
        model[0][k] = ref_q16(u[k]);
        double t = (double)q[k] * 32767.0; /* the exporter's float, truncated toward zero */
        model[1][k] = t >= 32767.0 ? 32767 : t <= -32767.0 ? -32767 : (int)t;
    }
    int16_t base[4];
    for (int k = 0; k < 4; k++) out[k] = base[k] = (int16_t)model[0][k];
    double dist[81];
    int best = -1;
    for (int c = 0; c < 81; c++) {
        int code = c, r[4];
        double len2 = 0, d2 = 0;
        for (int k = 0; k < 4; k++, code /= 3) {
            r[k] = base[k] + code % 3 - 1;
            if (r[k] > 32767 || r[k] < -32767) r[k] = base[k];
            len2 += (double)r[k] * r[k];
        }
        double len = sqrt(len2);
        dist[c] = -1;
        if (!(len > 0) || fabs(len - 32767.0) > 1.5) continue;
        for (int k = 0; k < 4; k++) d2 += (r[k] / len - u[k]) * (r[k] / len - u[k]);
        dist[c] = sqrt(d2);
        if (best < 0 || dist[c] < dist[best]) best = c;
    }
    if (best < 0) {
        if (how) *how = 0;
        return;
    }
    int pick = -1, ties = 0;
    for (int c = 0; c < 81; c++) {
        if (dist[c] < 0 || dist[c] > dist[best] + 1e-7) continue;
        ties++;
        int code = c, same[2] = { 1, 1 };
        for (int k = 0; k < 4; k++, code /= 3) {
            int v = base[k] + code % 3 - 1;
            same[0] &= v == model[0][k];
            same[1] &= v == model[1][k];
        }
        if (same[trunc] || (pick < 0 && c == 40)) pick = c;
    }
    if (pick < 0) pick = best;
    int code = pick, r[4], h = 0;
    for (int k = 0; k < 4; k++, code /= 3) {
        r[k] = base[k] + code % 3 - 1;
        if (r[k] > 32767 || r[k] < -32767) r[k] = base[k];
        out[k] = (int16_t)r[k];
    }
    if (how) {
        int same0 = 1, same1 = 1;
        for (int k = 0; k < 4; k++) same0 &= r[k] == model[0][k], same1 &= r[k] == model[1][k];
        h = ties == 1 ? same0 | same1 << 1 : 0;
        *how = h;
    }
}
/* ---- end of the old search ---- */

static uint64_t g_rng = 0x2545F4914F6CDD1Du;
static uint64_t rnd64(void)
{
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}
static double rnd01(void) { return (double)(rnd64() >> 11) * (1.0 / 9007199254740992.0); }
static double gauss(void)
{
    double a = rnd01(), b = rnd01();
    return sqrt(-2.0 * log(a + 1e-300)) * cos(6.283185307179586 * b);
}

/* Tallies over every comparison: the answers seen (how 0..3), to show the cases reached. */
static uint64_t g_compared, g_how[4], g_failed;

/* One quaternion, both ways of rounding: the integers and `how` of the two searches. */
static void compare(const float q[4], const char *what)
{
    for (int trunc = 0; trunc <= 1; trunc++) {
        int16_t want[4], got[4], got_null[4];
        int want_how = -1, got_how = -2;
        ref_rot16(q, trunc, want, &want_how);
        ala_rot16(q, trunc, got, &got_how);
        ala_rot16(q, trunc, got_null, NULL);
        g_compared++;
        if (want_how >= 0 && want_how <= 3) g_how[want_how]++;
        int same = !memcmp(want, got, sizeof want) && !memcmp(want, got_null, sizeof want) && want_how == got_how;
        if (!same && g_failed++ < 10)
            CHECK_MSG(0,
                      "%s: q (%a, %a, %a, %a) trunc %d: old (%d, %d, %d, %d) how %d, new (%d, %d, %d, %d) how %d "
                      "(without how: %d, %d, %d, %d)",
                      what, (double)q[0], (double)q[1], (double)q[2], (double)q[3], trunc, want[0], want[1], want[2],
                      want[3], want_how, got[0], got[1], got[2], got[3], got_how, got_null[0], got_null[1], got_null[2],
                      got_null[3]);
    }
}

static void random_unit(float q[4])
{
    double g[4], n = 0;
    for (int k = 0; k < 4; k++) g[k] = gauss(), n += g[k] * g[k];
    n = sqrt(n);
    for (int k = 0; k < 4; k++) q[k] = (float)(g[k] / n);
}

/* Uniformly random unit quaternions (as floats, as a clip holds them). */
TEST(random_unit_quaternions)
{
    uint64_t n = test_full() ? 4000000u : 250000u, before = g_compared, failed = g_failed;
    for (uint64_t i = 0; i < n; i++) {
        float q[4];
        random_unit(q);
        compare(q, "random");
        if ((i & 3) == 0) { /* and not unit: the same direction, any length */
            double s = exp((rnd01() - 0.5) * 120.0);
            for (int k = 0; k < 4; k++) q[k] = (float)(q[k] * s);
            compare(q, "random, scaled");
        }
    }
    printf("  random: %llu comparisons\n", (unsigned long long)(g_compared - before));
    CHECK(g_failed == failed); /* compare reports only the first ten of the whole run */
}

/* Quaternions whose components 0-1 or 2-3 hold about 1e-6 of the squared length, the cut
 * below which ala_rot16_both gives that pair no bound (its bound's rounding error is shown
 * small only from 1e-6 up): shares spread over a factor of 16 either side, and shares whose
 * double, as the search computes it from the float q, lands within a few steps of 1e-6. */
TEST(pair_share_across_the_cutoff)
{
    uint64_t n = test_full() ? 1000000u : 60000u, before = g_compared, failed = g_failed;
    uint64_t below = 0, above = 0, near = 0;
    for (uint64_t i = 0; i < n; i++) {
        double share = 1e-6 * exp((rnd01() - 0.5) * 2.0 * log(16.0));
        if (i & 1) share = 1e-6 * (1.0 + (rnd01() - 0.5) * 1e-6); /* next to the cut */
        double a = 6.283185307179586 * rnd01(), b = 6.283185307179586 * rnd01();
        double small = sqrt(share), large = sqrt(1.0 - share);
        int lo = (int)(rnd64() & 1) * 2; /* the small pair: components 0-1 or 2-3 */
        double g[4];
        g[lo] = small * cos(a), g[lo + 1] = small * sin(a);
        g[2 - lo] = large * cos(b), g[3 - lo] = large * sin(b);
        float q[4];
        for (int k = 0; k < 4; k++) q[k] = (float)g[k];
        /* the pair's |u|^2 as the search has it */
        double nn = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
        double u0 = q[lo] / nn, u1 = q[lo + 1] / nn, s2 = u0 * u0 + u1 * u1;
        if (s2 < 1e-6) below++;
        else above++;
        if (fabs(s2 - 1e-6) < 1e-12) near++;
        compare(q, "pair share near 1e-6");
        if ((i & 7) == 0) { /* the same direction at another length */
            double sc = exp((rnd01() - 0.5) * 40.0);
            for (int k = 0; k < 4; k++) q[k] = (float)(g[k] * sc);
            compare(q, "pair share near 1e-6, scaled");
        }
    }
    printf("  pair shares: %llu comparisons; the pair's |u|^2 below 1e-6 %llu, from it up %llu, within 1e-12 "
           "of it %llu\n",
           (unsigned long long)(g_compared - before), (unsigned long long)below, (unsigned long long)above,
           (unsigned long long)near);
    CHECK(below > n / 8 && above > n / 8 && near > n / 8);
    CHECK(g_failed == failed);
}

/* The direction of an integer vector of length near 32767 (a file's own integers, as
 * a reader decodes them or as glTF keeps them), and its float neighbours. */
static void integer_direction(const int r[4], int ulps)
{
    double len = sqrt((double)r[0] * r[0] + (double)r[1] * r[1] + (double)r[2] * r[2] + (double)r[3] * r[3]);
    if (!(len > 0)) return;
    float q[4];
    for (int k = 0; k < 4; k++) q[k] = (float)(r[k] / len);
    compare(q, "integer direction");
    for (int m = 0; m < ulps; m++) {
        float p[4];
        for (int k = 0; k < 4; k++) {
            p[k] = q[k];
            int steps = (int)(rnd64() % 5) - 2;
            for (; steps > 0; steps--) p[k] = nextafterf(p[k], 2.0f);
            for (; steps < 0; steps++) p[k] = nextafterf(p[k], -2.0f);
        }
        compare(p, "integer direction, nudged");
    }
    /* as the exporter's float of the integers: r / 32767, not normalised */
    for (int k = 0; k < 4; k++) q[k] = (float)(r[k] / 32767.0);
    compare(q, "integers / 32767");
}

TEST(edges_and_ties)
{
    uint64_t before = g_compared;
    /* components from a set of edge values, in every position */
    const float edge[] = { 0.0f,
                           -0.0f,
                           1.0f,
                           -1.0f,
                           0.5f,
                           -0.5f,
                           0.70710677f,
                           -0.70710677f,
                           0.70710683f,
                           1e-6f,
                           -1e-6f,
                           1.0f / 32767.0f,
                           0.5f / 32767.0f,
                           1.5f / 32767.0f,
                           0.99999994f,
                           1e-30f,
                           1e-45f,
                           3.0f,
                           65535.0f,
                           1e30f };
    const int ne = (int)(sizeof edge / sizeof edge[0]);
    for (int a = 0; a < ne; a++)
        for (int b = 0; b < ne; b++)
            for (int c = 0; c < ne; c++)
                for (int d = 0; d < ne; d++) {
                    float q[4] = { edge[a], edge[b], edge[c], edge[d] };
                    if (test_sampled((uint64_t)((a * ne + b) * ne + c) * (uint64_t)ne + (uint64_t)d, 4))
                        compare(q, "edge set");
                }
    const float zero[4] = { 0, 0, 0, 0 };
    compare(zero, "zero");
    /* quarter and half turns, whose integers tie: (23169..23171, 23169..23171, 0, 0) */
    for (int a = 23160; a <= 23180; a++)
        for (int b = 23160; b <= 23180; b++)
            for (int perm = 0; perm < 6; perm++) {
                int r[4] = { 0, 0, 0, 0 };
                int i0 = perm % 4, i1 = (perm + 1 + perm / 4) % 4;
                r[i0] = a, r[i1] = (perm & 1) ? -b : b;
                integer_direction(r, 4);
            }
    /* integers at +-32767 and next to it (the clamp) */
    for (int a = 32760; a <= 32767; a++)
        for (int b = -3; b <= 3; b++)
            for (int k = 0; k < 4; k++) {
                int r[4] = { b, -b, b / 2, 1 };
                r[k] = (b & 1) ? -a : a;
                integer_direction(r, 8);
            }
    /* random integers of every length from 32764 to 32770 (inside and outside the 1.5) */
    uint64_t n = test_full() ? 1000000u : 60000u;
    for (uint64_t i = 0; i < n; i++) {
        float q[4];
        random_unit(q);
        double want = 32764.0 + 6.0 * rnd01(), r2 = 0;
        int r[4];
        for (int k = 0; k < 4; k++) r[k] = (int)lrint(q[k] * want), r2 += (double)r[k] * r[k];
        integer_direction(r, 2);
        /* a rounding tie in a component: (k + 0.5) / 32767, the rest unit */
        int k = (int)(rnd64() % 4);
        float t[4] = { q[0], q[1], q[2], q[3] };
        t[k] = (float)((floor(q[k] * 32767.0) + 0.5) / 32767.0);
        compare(t, "component tie");
        /* one component near 0 or near +-1 */
        t[k] = (float)((rnd01() - 0.5) * 4e-5);
        compare(t, "component near 0");
        float big[4] = { q[0] * 1e-3f, q[1] * 1e-3f, q[2] * 1e-3f, q[3] * 1e-3f };
        big[k] = (rnd64() & 1) ? 1.0f : -1.0f;
        compare(big, "component near 1");
    }
    printf("  edges: %llu comparisons\n", (unsigned long long)(g_compared - before));
}

/* Quaternions with one component whose rounding is +-32765, +-32766 or +-32767 (or two
 * such components): ala_rot16_both builds its pair tables two lanes at a time only when
 * every rounded component is within +-32766 (no candidate clamped), else one component
 * at a time with the clamps; both sides of that gate against the old search. */
TEST(clamp_gate_both_sides)
{
    uint64_t n = test_full() ? 400000u : 40000u, before = g_compared, failed = g_failed;
    for (uint64_t i = 0; i < n; i++) {
        int k = (int)(rnd64() % 4), target = 32765 + (int)(rnd64() % 3);
        /* u_k anywhere in the interval that rounds to target, and at its edges */
        double f = rnd01();
        if ((i & 7) == 1) f = 0.0;
        if ((i & 7) == 2) f = 0.9999999;
        double uk = (target - 0.5 + f) / 32767.0, rest = sqrt(fmax(0.0, 1.0 - uk * uk));
        double g[4], n2 = 0;
        for (int m = 0; m < 4; m++) g[m] = gauss(), n2 += m == k ? 0.0 : g[m] * g[m];
        for (int m = 0; m < 4; m++) g[m] = m == k ? ((rnd64() & 1) ? -uk : uk) : g[m] * rest / sqrt(n2);
        float q[4];
        for (int m = 0; m < 4; m++) q[m] = (float)g[m];
        compare(q, "clamp gate");
        float p[4] = { q[0], q[1], q[2], q[3] };
        p[k] = nextafterf(p[k], (i & 1) ? 2.0f : -2.0f);
        compare(p, "clamp gate, nudged");
    }
    printf("  clamp gate: %llu comparisons\n", (unsigned long long)(g_compared - before));
    CHECK(g_compared - before == 4 * n);
    CHECK(g_failed == failed);
}

/* A channel without keys of its own (absent: the bone's rest; constant: its one key) is
 * evaluated once for all frames by the writer (channel_fixed): the same document with
 * each such channel given per frame instead, its value repeated, writes the same bytes.
 * 27 tracks, every mix of absent, constant and animated rotation, translation and scale,
 * on bones whose rest is not the identity; the vote's path (no native record). */
static ganim_doc *fixed_channels_doc(int per_frame)
{
    enum { BONES = 27, FRAMES = 90 };
    ganim_doc *d = tb_doc(BONES, NULL);
    d->axes = GANIM_AXES_Z_UP;
    for (uint32_t b = 0; b < BONES; b++) {
        ganim_transform *r = &d->skeleton->bones[b].rest;
        double a = 0.3 + 0.17 * b, c = 0.7 + 0.11 * b; /* (0.6 sin a, 0.6 cos a, 0.8 sin c, 0.8 cos c): unit */
        r->rotation =
            (ganim_quat){ (float)(0.6 * sin(a)), (float)(0.6 * cos(a)), (float)(0.8 * sin(c)), (float)(0.8 * cos(c)) };
        r->translation = (ganim_vec3){ (float)(b * 1.5), (float)(2.0 - b), 0.25f };
        r->scale = (ganim_vec3){ 1.0f, (float)(1.0 + 0.01 * b), 0.5f };
    }
    uint32_t ci = tb_clip(d, "c", 30, FRAMES);
    static float rot[4 * FRAMES], vec[3 * FRAMES];
    for (uint32_t b = 0; b < BONES; b++) {
        uint32_t t = tb_track(d, ci, b, NULL, NULL);
        const ganim_transform *rest = &d->skeleton->bones[b].rest;
        for (int c = 0; c < 3; c++) {
            int kind = c == 0   ? (int)(b % 3)
                       : c == 1 ? (int)(b / 3 % 3)
                                : (int)(b / 9); /* 0 absent, 1 constant, 2 moving */
            int comps = c == 0 ? 4 : 3;
            float *v = c == 0 ? rot : vec;
            const float *fixed = c == 0 ? &rest->rotation.x : c == 1 ? &rest->translation.x : &rest->scale.x;
            float key[4] = { 0.48f, -0.6f, 0.64f, 0.0f }; /* 0.48^2 + 0.6^2 + 0.64^2 = 1 */
            if (c > 0) key[0] = 0.1f * (float)b;
            if (kind == 1) fixed = key;
            for (int f = 0; f < FRAMES; f++) {
                double w = 0.05 * f + b, w2 = 0.08 * f - b; /* moving: a unit rotation, a path, scales near 1 */
                double m[4] = { 0.6 * sin(w), 0.6 * cos(w), 0.8 * sin(w2), 0.8 * cos(w2) };
                if (c) m[0] = sin(w) * (c == 2 ? 0.2 : 3.0) + (c == 2), m[1] = cos(w2) + 2.0, m[2] = 0.5 * sin(w2);
                for (int k = 0; k < comps; k++) v[comps * f + k] = kind == 2 ? (float)m[k] : fixed[k];
            }
            ganim_channel_target tg = c == 0   ? GANIM_TARGET_ROTATION
                                      : c == 1 ? GANIM_TARGET_TRANSLATION
                                               : GANIM_TARGET_SCALE;
            if (kind == 2 || per_frame) tb_channel(d, ci, t, tg, GANIM_CHANNEL_PER_FRAME, FRAMES, NULL, v);
            else if (kind == 1) tb_channel(d, ci, t, tg, GANIM_CHANNEL_CONSTANT, 1, NULL, v);
        }
    }
    return d;
}

TEST(fixed_channels_are_their_repeats)
{
    ganim_buffer out[2];
    memset(out, 0, sizeof out);
    ganim_error e;
    for (int per_frame = 0; per_frame < 2; per_frame++) {
        ganim_doc *d = fixed_channels_doc(per_frame);
        ganim_code rc = ganim_write(d, "alamo-ala", NULL, &out[per_frame], &e);
        CHECK_MSG(rc == GANIM_OK, "write: %s", e.message);
        ganim_doc_free(d);
    }
    /* the moving channels (and only they) are streams of the file, every track written */
    ganim_allocator a = ganim_allocator_resolve(NULL);
    ala_plan p;
    memset(&p, 0, sizeof p);
    p.alloc = &a;
    CHECK(ala_parse(&p, out[0].data, out[0].size, &e) == GANIM_OK);
    uint32_t seen = 0, moving = 0;
    for (uint32_t i = 0; i < p.track_count; i++) {
        const ala_ptrack *pt = &p.tracks[i];
        uint32_t b = pt->index;
        int streams = (pt->rot.base != NULL) + 2 * (pt->trans.base != NULL) + 4 * (pt->scale.base != NULL);
        int want = (b % 3 == 2) + 2 * (b / 3 % 3 == 2) + 4 * (b / 9 == 2);
        CHECK_MSG(streams == want, "bone %u: streams %d, want %d", b, streams, want);
        seen++, moving += streams != 0;
    }
    CHECK(seen >= 26u && moving == 19u);
    ala_plan_free(&p);

    /* With a native record that no longer matches (the file read back, one value moved):
     * the quantiser evaluates the rotations itself (no vote answers) */
    ganim_buffer again[2];
    memset(again, 0, sizeof again);
    uint32_t replaced = 0;
    for (int per_frame = 0; per_frame < 2; per_frame++) {
        ganim_doc *r = NULL;
        CHECK(ganim_read_memory(out[0].data, out[0].size, NULL, &r, &e) == GANIM_OK);
        if (!r) break;
        ganim_clip *c = &r->clips[0];
        uint32_t moved = 0; /* every track that moves (any rotation kind): re-quantised */
        for (uint32_t t = 0; t < c->track_count; t++) {
            ganim_track *tr = &c->tracks[t];
            if (tr->translation.kind == GANIM_CHANNEL_PER_FRAME && tr->translation.count > 5) {
                ((float *)(uintptr_t)tr->translation.values)[3 * 5] += 0.5f; /* frame 5's x */
                moved++;
            }
        }
        for (uint32_t t = 0; per_frame && t < c->track_count; t++) {
            for (int ch = 0; ch < 3; ch++) {
                const ganim_track *tr = &r->clips[0].tracks[t];
                const ganim_channel *k = ch == 0 ? &tr->rotation : ch == 1 ? &tr->translation : &tr->scale;
                if (k->kind != GANIM_CHANNEL_CONSTANT) continue;
                int comps = ch == 0 ? 4 : 3;
                float v[4 * 90];
                for (uint32_t f = 0; f < r->clips[0].frame_count && f < 90; f++)
                    memcpy(v + comps * (int)f, k->values, sizeof(float) * (size_t)comps);
                tb_channel(r, 0, t,
                           ch == 0   ? GANIM_TARGET_ROTATION
                           : ch == 1 ? GANIM_TARGET_TRANSLATION
                                     : GANIM_TARGET_SCALE,
                           GANIM_CHANNEL_PER_FRAME, r->clips[0].frame_count, NULL, v);
                replaced++;
            }
        }
        CHECK(moved == 9u && r->clips[0].native != NULL && r->clips[0].frame_count == 90);
        ganim_code rc = ganim_write(r, "alamo-ala", NULL, &again[per_frame], &e);
        CHECK_MSG(rc == GANIM_OK, "write back: %s", e.message);
        ganim_doc_free(r);
    }
    printf("  fixed channels: %u given per frame in the file read back\n", replaced);
    CHECK(replaced >= 10u);
    CHECK(again[0].size == again[1].size && !memcmp(again[0].data, again[1].data, again[0].size));
    CHECK(again[0].size != out[0].size || memcmp(again[0].data, out[0].data, out[0].size) != 0); /* not the native */
    memset(&p, 0, sizeof p);
    p.alloc = &a;
    CHECK(ala_parse(&p, again[0].data, again[0].size, &e) == GANIM_OK);
    for (uint32_t i = 0; i < p.track_count; i++) /* the moving rotations still move */
        CHECK_MSG((p.tracks[i].rot.base != NULL) == (p.tracks[i].index % 3 == 2),
                  "read back, bone %u: rotation stream %d", p.tracks[i].index, p.tracks[i].rot.base != NULL);
    CHECK(p.track_count >= 26u);
    ala_plan_free(&p);
    ganim_buffer_free(&again[0]);
    ganim_buffer_free(&again[1]);
    CHECK(out[0].size == out[1].size && !memcmp(out[0].data, out[1].data, out[0].size));
    ganim_buffer_free(&out[0]);
    ganim_buffer_free(&out[1]);
}

/* Every rotation of every sample (every track's value at every frame, as the writer
 * evaluates it, and every stored key), as read by ganim. */
static void sample_rotations(const char *path)
{
    ganim_doc *doc = NULL;
    ganim_error err;
    if (ganim_read_file(path, NULL, &doc, &err) != GANIM_OK) return;
    const ganim_skeleton *sk = doc->skeleton;
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
        const ganim_clip *c = &doc->clips[ci];
        for (uint32_t ti = 0; ti < c->track_count; ti++) {
            const ganim_track *t = &c->tracks[ti];
            ganim_transform rest =
                sk && t->bone < sk->bone_count ? sk->bones[t->bone].rest : ganim_transform_identity();
            for (uint32_t f = 0; f < c->frame_count; f++) {
                float q[4];
                ganim_channel_eval(&t->rotation, c->frame_count, t->step, c->rotation_interp, 4, (double)f,
                                   &rest.rotation.x, q);
                compare(q, path);
            }
        }
    }
    ganim_doc_free(doc);
}

TEST(every_sample_rotation)
{
    const char *root = test_testdata();
    const char *dirs[] = { "alamo", "ff7", "acl", "argonaut" };
    uint64_t before = g_compared;
    int files = 0;
    for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", root, dirs[d]);
        char **list = test_list_dir(dir, "");
        for (char **p = list; *p; p++) {
            if (strstr(*p, ".json") || strstr(*p, ".md") || strstr(*p, ".txt")) continue;
            sample_rotations(*p);
            files++;
        }
        test_free_list(list);
    }
    printf("  samples: %d files, %llu comparisons\n", files, (unsigned long long)(g_compared - before));
    CHECK(g_compared - before > 100000u);
}

/* The integers that stand for `fabs(sqrt(len2) - 32767) > 1.5` in ala_rot16 (its
 * ROT16_LEN2_LO and _HI): the same verdict between them and for a million either side
 * (sqrt is monotonic, so beyond that too). */
TEST(length_range_is_the_length_test)
{
    for (double len2 = 1073577991.0 - 1000000.0; len2 <= 1073774592.0 + 1000000.0; len2 += 1.0) {
        int old_ok = !(fabs(sqrt(len2) - 32767.0) > 1.5);
        int new_ok = len2 >= 1073577991.0 && len2 <= 1073774592.0;
        if (old_ok != new_ok) {
            CHECK_MSG(0, "len2 %.0f: old %d, range %d", len2, old_ok, new_ok);
            break;
        }
    }
}

/* The writer end to end (the vote over every rotation, its answers kept for the
 * quantiser, held rotations answered once): the integers of a written .ALA against the
 * old search's, with the vote done here by ref_rot16. Two documents: one whose
 * rotations are mostly truncated integers' directions (the vote says truncate) and one
 * of random rotations (round); each has held frames and a constant track. */
static void writer_case(int truncated_dirs)
{
    enum { BONES = 5, FRAMES = 240 };
    ganim_doc *src = tb_doc(BONES, NULL);
    src->axes = GANIM_AXES_Z_UP; /* the .ALA's own: the rotations go to the writer as they are */
    uint32_t ci = tb_clip(src, "c", 30, FRAMES);
    float *rot = malloc(sizeof(float) * 4u * FRAMES);
    for (uint32_t b = 0; b < BONES; b++) {
        for (int f = 0; f < FRAMES; f++) {
            float *q = rot + 4 * f;
            if (f % 7 == 3) { /* held from the previous frame */
                memcpy(q, q - 4, 4 * sizeof *q);
                continue;
            }
            if (f % 11 == 6) { /* the previous frame's x and y, z and w swapped: not held */
                memcpy(q, q - 4, 4 * sizeof *q);
                q[2] = q[-1], q[3] = q[-2];
                continue;
            }
            random_unit(q);
            if (truncated_dirs && f % 5 != 0) { /* the direction of the exporter's truncated integers */
                double r[4], len = 0;
                for (int k = 0; k < 4; k++) r[k] = (double)(int)(q[k] * 32767.0), len += r[k] * r[k];
                for (int k = 0; k < 4; k++) q[k] = (float)(r[k] / sqrt(len));
            }
        }
        ganim_track tr;
        memset(&tr, 0, sizeof tr);
        tr.bone = b;
        tr.rotation = (ganim_channel){ .kind = b == 2 ? GANIM_CHANNEL_CONSTANT : GANIM_CHANNEL_PER_FRAME,
                                       .count = b == 2 ? 1u : FRAMES,
                                       .values = rot };
        CHECK(ganim_doc_add_track(src, ci, &tr, NULL, NULL) == GANIM_OK);
    }
    free(rot);
    /* the vote, as the writer asks it (a constant channel once) */
    const ganim_clip *c = &src->clips[ci];
    size_t rounded = 0, truncated = 0;
    for (uint32_t ti = 0; ti < c->track_count; ti++) {
        const ganim_track *t = &c->tracks[ti];
        uint32_t count = t->rotation.kind == GANIM_CHANNEL_CONSTANT ? 1 : FRAMES;
        for (uint32_t f = 0; f < count; f++) {
            float q[4];
            int16_t r[4];
            int how = 0;
            const float rest[4] = { 0, 0, 0, 1 };
            ganim_channel_eval(&t->rotation, FRAMES, t->step, c->rotation_interp, 4, (double)f, rest, q);
            ref_rot16(q, 0, r, &how);
            rounded += how == 1, truncated += how == 2;
        }
    }
    int trunc = truncated > rounded;
    CHECK_EQ_INT(trunc, truncated_dirs);
    ganim_buffer ala;
    memset(&ala, 0, sizeof ala);
    ganim_error e;
    CHECK(ganim_write(src, "alamo-ala", NULL, &ala, &e) == GANIM_OK);
    ganim_allocator a = ganim_allocator_resolve(NULL);
    ala_plan p;
    memset(&p, 0, sizeof p);
    p.alloc = &a;
    CHECK(ala_parse(&p, ala.data, ala.size, &e) == GANIM_OK);
    CHECK_EQ_INT(p.track_count, BONES);
    int bad = 0;
    for (uint32_t i = 0; i < p.track_count && i < BONES; i++) {
        const ala_ptrack *pt = &p.tracks[i];
        const ganim_track *t = &c->tracks[pt->index];
        for (uint32_t f = 0; f < FRAMES; f++) {
            float q[4];
            int16_t want[4];
            const float rest[4] = { 0, 0, 0, 1 };
            ganim_channel_eval(&t->rotation, FRAMES, t->step, c->rotation_interp, 4, (double)f, rest, q);
            ref_rot16(q, trunc, want, NULL);
            for (unsigned k = 0; k < 4; k++) {
                int16_t got = pt->rot.base ? (int16_t)ala_st_get(&pt->rot, f, k) : pt->defrot[k];
                if (got != want[k] && bad++ < 5)
                    CHECK_MSG(0, "trunc %d, track %u frame %u component %u: written %d, the old search %d", trunc,
                              pt->index, f, k, got, want[k]);
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    ala_plan_free(&p);
    ganim_buffer_free(&ala);
    ganim_doc_free(src);
}

TEST(writer_integers_are_the_old_search)
{
    writer_case(1);
    writer_case(0);
}

/* ala_floor (the writer's floor for its roundings) against floor: the same value for
 * every double, the sign of a zero aside (a -0 comes back +0; the writer's arguments are
 * a + 0.5, never -0); edges, every power of two and its neighbours, and random bits. */
static void floor_one(double x)
{
    double want = floor(x), got = ala_floor(x);
    int same = isnan(want) ? isnan(got) : got == want;
    if (x == 0 && signbit(got)) same = 0; /* a zero comes back +0 */
    if (!same && g_failed++ < 10) CHECK_MSG(0, "ala_floor(%a) = %a, floor %a", x, got, want);
}

TEST(floor_is_floor)
{
    const double edge[] = { 0.0,
                            -0.0,
                            0.5,
                            -0.5,
                            1.0,
                            -1.0,
                            0.49999999999999994,
                            -0.49999999999999994,
                            4503599627370495.5,
                            -4503599627370495.5,
                            4503599627370496.0,
                            -4503599627370496.0,
                            9007199254740993.0,
                            1e300,
                            -1e300,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            5e-324,
                            -5e-324,
                            65535.5,
                            -65535.5,
                            32767.5,
                            -32767.5 };
    uint64_t before = g_failed;
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) floor_one(edge[i]);
    for (int e = -1074; e <= 1023; e++)
        for (int d = -3; d <= 3; d++) {
            double p = ldexp(1.0, e);
            for (int m = 0; m < (d < 0 ? -d : d); m++) p = nextafter(p, d < 0 ? 0.0 : INFINITY);
            floor_one(p), floor_one(-p), floor_one(p + 0.5), floor_one(-p + 0.5);
        }
    uint64_t n = test_full() ? 20000000u : 1000000u;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t bits = rnd64();
        double x;
        memcpy(&x, &bits, sizeof x);
        floor_one(x);
        floor_one((rnd01() - 0.5) * 140000.0); /* the range the writer rounds in */
    }
    CHECK(g_failed == before);
}

int main(void)
{
    test_program_name = "test_alamo_rot16";
    RUN(length_range_is_the_length_test);
    RUN(floor_is_floor);
    RUN(edges_and_ties);
    RUN(every_sample_rotation);
    RUN(random_unit_quaternions);
    RUN(pair_share_across_the_cutoff);
    RUN(clamp_gate_both_sides);
    RUN(writer_integers_are_the_old_search);
    RUN(fixed_channels_are_their_repeats);
    printf("  %llu comparisons in all, %llu failed; how 0: %llu, 1: %llu, 2: %llu, 3: %llu\n",
           (unsigned long long)g_compared, (unsigned long long)g_failed, (unsigned long long)g_how[0],
           (unsigned long long)g_how[1], (unsigned long long)g_how[2], (unsigned long long)g_how[3]);
    CHECK(g_failed == 0);
    return test_finish();
}
