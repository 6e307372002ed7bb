/* ACL random access: one pose at a time straight from the compressed bytes, as ACL's
 * seek(t, none) + decompress_pose. */
#include "formats/acl/acl_internal.h"

static uint32_t seg_of(const ganim_acl *h, uint32_t k)
{
    uint32_t lo = 0, hi = h->nseg - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (h->segs[mid].start <= k) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Segment and stored index of retained key `key` (index into h->keys) or of sample k. */
static void locate(const ganim_acl *h, uint32_t k, uint32_t *s, uint32_t *i)
{
    *s = seg_of(h, k);
    const acl_seg *sg = &h->segs[*s];
    uint32_t r = k - sg->start;
    *i = h->stripped ? popcount32(sg->kept & ~(ACL_NONE >> r)) : r;
}

static void pose_between(const ganim_acl *h, uint32_t k0, uint32_t k1, float alpha, ganim_transform *out);

void ganim_acl_sample_pose(const ganim_acl *h, float t, ganim_transform *out)
{
    memcpy(out, h->pose, (size_t)h->nt * sizeof *out);
    if (!h->na) return;
    uint32_t nsx = h->ns + (uint32_t)h->wrap;
    float dur = (float)(nsx - 1u) / h->rate;
    if (!(t > 0.0f)) t = 0.0f;
    if (t > dur) t = dur;
    float f = t * h->rate;
    if (!(f < (float)nsx)) f = (float)(nsx - 1u); /* never convert beyond the clip (or inf) */
    uint32_t k0 = (uint32_t)f, k1;
    float alpha = f - (float)k0;
    if (h->wrap) {
        if (k0 > h->ns - 1u) {
            k0 = k1 = 0;
            alpha = 0.0f;
        } else k1 = k0 + 1u >= h->ns ? 0 : k0 + 1u;
    } else {
        if (k0 > h->ns - 1u) k0 = h->ns - 1u;
        k1 = k0 + 1u < h->ns ? k0 + 1u : h->ns - 1u;
    }
    if (h->stripped) {
        /* nearest retained samples at or before k0 and at or after k1 */
        uint32_t lo = 0, hi = h->nkeys;
        while (lo < hi) {
            uint32_t m = (lo + hi) / 2;
            if (h->keys[m] <= k0) lo = m + 1;
            else hi = m;
        }
        uint32_t a = lo ? lo - 1 : 0;
        lo = 0;
        hi = h->nkeys;
        while (lo < hi) {
            uint32_t m = (lo + hi) / 2;
            if (h->keys[m] < k1) lo = m + 1;
            else hi = m;
        }
        uint32_t b = lo < h->nkeys ? lo : h->nkeys - 1;
        float ka = (float)h->keys[a], kb = (float)h->keys[b];
        if (h->wrap && k1 < k0) kb = (float)(h->ns + h->keys[b]);
        alpha = kb > ka ? (f - ka) / (kb - ka) : 0.0f;
        if (alpha < 0.0f) alpha = 0.0f;
        if (alpha > 1.0f) alpha = 1.0f;
        k0 = h->keys[a];
        k1 = h->keys[b];
    }
    pose_between(h, k0, k1, alpha, out);
}

void ganim_acl_sample_key(const ganim_acl *h, uint32_t k, ganim_transform *out)
{
    memcpy(out, h->pose, (size_t)h->nt * sizeof *out);
    if (!h->na) return;
    if (k >= h->ns) k = h->wrap ? 0 : h->ns - 1u;
    if (h->stripped) { /* the retained key at or before k */
        uint32_t lo = 0, hi = h->nkeys;
        while (lo < hi) {
            uint32_t m = (lo + hi) / 2;
            if (h->keys[m] <= k) lo = m + 1;
            else hi = m;
        }
        k = h->keys[lo ? lo - 1 : 0];
    }
    pose_between(h, k, k, 0.0f, out);
}

/* The animated sub-tracks of `out` at samples k0..k1 (retained ones when stripped). */
static void pose_between(const ganim_acl *h, uint32_t k0, uint32_t k1, float alpha, ganim_transform *out)
{
    uint32_t s0, i0, s1, i1;
    locate(h, k0, &s0, &i0);
    locate(h, k1, &s1, &i1);
    const acl_seg *g0 = &h->segs[s0], *g1 = &h->segs[s1];
    size_t b0 = (size_t)i0 * g0->pose_bits, b1 = (size_t)i1 * g1->pose_bits;
    int lerp = alpha != 0.0f && (k0 != k1);
    for (uint32_t a = 0; a < h->na; a++) {
        const acl_rec *r = &g0->recs[a];
        float v[4], w[4];
        rec_decode(r, g0->ani, g0->ani_room, b0, v);
        if (lerp) {
            rec_decode(&g1->recs[a], g1->ani, g1->ani_room, b1, w);
            if (r->kind == K_ROT) {
                float dot = (v[0] * w[0] + v[2] * w[2]) + (v[1] * w[1] + v[3] * w[3]);
                if (dot < 0.0f) {
                    w[0] = -w[0];
                    w[1] = -w[1];
                    w[2] = -w[2];
                    w[3] = -w[3];
                }
                for (unsigned c = 0; c < 4; c++) {
                    float p = v[c] * alpha;
                    float q = w[c] * alpha;
                    v[c] = (v[c] - p) + q;
                }
            } else {
                for (unsigned c = 0; c < 3; c++) {
                    float dlt = (w[c] - v[c]) * alpha;
                    v[c] = dlt + v[c];
                }
            }
        }
        ganim_transform *o = &out[r->track];
        if (r->kind == K_ROT) {
            quat_normalise(v);
            o->rotation = (ganim_quat){ v[0], v[1], v[2], v[3] };
        } else if (r->kind == K_TRANS) {
            o->translation = (ganim_vec3){ v[0], v[1], v[2] };
        } else {
            o->scale = (ganim_vec3){ v[0], v[1], v[2] };
        }
    }
}
