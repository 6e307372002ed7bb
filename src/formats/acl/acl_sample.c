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

static void pose_between(const ganim_acl *h, uint32_t k0, uint32_t k1, float alpha, int fast, ganim_transform *out);

static void sample_pose(const ganim_acl *h, float t, int fast, ganim_transform *out)
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
    pose_between(h, k0, k1, alpha, fast, out);
}

void ganim_acl_sample_pose(const ganim_acl *h, float t, ganim_transform *out) { sample_pose(h, t, 1, out); }
void ganim_acl_sample_pose_ref(const ganim_acl *h, float t, ganim_transform *out) { sample_pose(h, t, 0, out); }

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
    pose_between(h, k, k, 0.0f, 1, out);
}

#if defined(__SSE2__)
/* Sub-track r at pose bit `bit` as (x, y, z, w) in one vector: the M_VAR chain with one
 * component per lane (the scalar path's IEEE operations in the same order, so the values
 * are bit-identical to rec_decode), raw floats through acl_raw_vec, constants loaded
 * (rec_decode's copy of r->v); only raw values near the buffer's end or not finite go
 * through rec_decode. Rotations get W. */
static GANIM_ALWAYS_INLINE __m128 rec_vec(const acl_rec *r, const uint8_t *ani, size_t room, uint64_t lim, size_t bit)
{
    if (r->mode != M_VAR) {
        if (r->mode == M_CONST) return _mm_loadu_ps(r->v);
        __m128 v;
        if (bit + r->bit + 96u < lim && acl_raw_vec(r, ani, bit, &v)) return v;
        float o[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        (void)rec_decode(r, ani, room, bit, o);
        return _mm_set_ps(o[3], o[2], o[1], o[0]); /* not one 16-byte load: no store-forwarding stall */
    }
    bit += r->bit;
    unsigned nb = r->nb, sh = 64u - nb; /* 1..23 (acl_open) */
    uint32_t qx, qy, qz;
    if (nb <= 19) {
        uint64_t w = gb_msb_window64(ani, room, bit);
        qx = (uint32_t)(w >> sh);
        qy = (uint32_t)((w << nb) >> sh);
        qz = (uint32_t)((w << (2u * nb)) >> sh);
    } else if (bit + 2u * nb < lim) { /* both windows inside the buffer: x and y from the first */
        uint64_t w = gb_msb_window64_proven(ani, bit);
        qx = (uint32_t)(w >> sh);
        qy = (uint32_t)((w << nb) >> sh); /* 2 x 23 bits of the window's 57 or more */
        qz = (uint32_t)(gb_msb_window64_proven(ani, bit + 2u * nb) >> sh);
    } else {
        qx = (uint32_t)(gb_msb_window64(ani, room, bit) >> sh);
        qy = (uint32_t)(gb_msb_window64(ani, room, bit + nb) >> sh);
        qz = (uint32_t)(gb_msb_window64(ani, room, bit + 2u * nb) >> sh);
    }
    /* lane 3 carries 0 through the chain (the ranges' [3] are 0) and is replaced
     * (rotations) or never stored */
    __m128 v = _mm_mul_ps(_mm_cvtepi32_ps(_mm_set_epi32(0, (int)qz, (int)qy, (int)qx)), _mm_set1_ps(r->inv));
    if (r->segrange) v = _mm_add_ps(_mm_mul_ps(v, _mm_loadu_ps(r->sext)), _mm_loadu_ps(r->smin));
    v = _mm_add_ps(_mm_mul_ps(v, _mm_loadu_ps(r->cext)), _mm_loadu_ps(r->cmin));
    return r->kind == K_ROT ? acl_vec_with_w(v) : v;
}

/* (p0 + p2) + (p1 + p3) of p = a * b in lane 0, the scalar dot's order */
static inline float dot4(__m128 a, __m128 b)
{
    __m128 p = _mm_mul_ps(a, b);
    __m128 s = _mm_add_ps(p, _mm_movehl_ps(p, p));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, _MM_SHUFFLE(1, 1, 1, 1))));
}
#endif

/* The scalar path: records [a0, a1) one by one (rec_decode, quat_normalise). */
static void recs_scalar(const acl_seg *g0, const acl_seg *g1, size_t b0, size_t b1, int lerp, float alpha, uint32_t a0,
                        uint32_t a1, ganim_transform *out)
{
    for (uint32_t a = a0; a < a1; a++) {
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

#if defined(__SSE2__)
/* What every sub-track of one pose shares: both keys' segments and bit offsets. */
typedef struct acl_keys {
    const acl_seg *g0, *g1;
    size_t b0, b1;
    uint64_t lim0, lim1; /* gb_msb_proven_limit of each segment's bitstream */
    __m128 va;           /* alpha in every lane */
    float alpha;
    int lerp;
} acl_keys;

/* Records [a0, a0 + n) one by one, or list[0..n-1] when list is not NULL, each
 * sub-track's x, y, z (and W) in one vector (rec_vec): clips without groups
 * (full-precision formats) and groups that cannot go together. */
static GANIM_ALWAYS_INLINE void recs_vec_as(const acl_seg *g0, const acl_seg *g1, size_t b0, size_t b1, int lerp,
                                            float alpha, const uint32_t *list, uint32_t a0, uint32_t n,
                                            ganim_transform *out)
{
    const __m128 va = _mm_set1_ps(alpha), sign = _mm_castsi128_ps(_mm_set1_epi32((int)0x80000000u));
    const uint64_t lim0 = gb_msb_proven_limit(g0->ani_room), lim1 = gb_msb_proven_limit(g1->ani_room);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t a = list ? list[i] : a0 + i;
        const acl_rec *r = &g0->recs[a];
        __m128 v = rec_vec(r, g0->ani, g0->ani_room, lim0, b0);
        if (lerp) {
            __m128 w = rec_vec(&g1->recs[a], g1->ani, g1->ani_room, lim1, b1);
            if (r->kind == K_ROT) {
                if (dot4(v, w) < 0.0f) w = _mm_xor_ps(w, sign);
                v = _mm_add_ps(_mm_sub_ps(v, _mm_mul_ps(v, va)), _mm_mul_ps(w, va));
            } else {
                v = _mm_add_ps(_mm_mul_ps(_mm_sub_ps(w, v), va), v);
            }
        }
        float o[4];
        ganim_transform *t = &out[r->track];
        if (r->kind == K_ROT) {
            float len2 = dot4(v, v);
            if (!(len2 >= 1e-12f && len2 <= 1e30f)) {
                t->rotation = (ganim_quat){ 0.0f, 0.0f, 0.0f, 1.0f };
                continue;
            }
            _mm_storeu_ps(o, _mm_div_ps(v, _mm_set1_ps(sqrtf(len2))));
            t->rotation = (ganim_quat){ o[0], o[1], o[2], o[3] };
        } else {
            _mm_storeu_ps(o, v);
            if (r->kind == K_TRANS) t->translation = (ganim_vec3){ o[0], o[1], o[2] };
            else t->scale = (ganim_vec3){ o[0], o[1], o[2] };
        }
    }
}

static void recs_vec(const acl_seg *g0, const acl_seg *g1, size_t b0, size_t b1, int lerp, float alpha, uint32_t a0,
                     uint32_t n, ganim_transform *out)
{
    recs_vec_as(g0, g1, b0, b1, lerp, alpha, NULL, a0, n, out);
}
static void recs_list(const acl_seg *g0, const acl_seg *g1, size_t b0, size_t b1, int lerp, float alpha,
                      const uint32_t *list, uint32_t n, ganim_transform *out)
{
    recs_vec_as(g0, g1, b0, b1, lerp, alpha, list, 0, n, out);
}

/* Lane j's quantised x, y, z of an M_VAR group g at pose bit `bit`; proven: every window
 * of the group is inside the buffer (bit + g->last < gb_msb_proven_limit). */
static GANIM_ALWAYS_INLINE void grp_lane(const acl_grp *g, unsigned j, const uint8_t *ani, size_t room, int proven,
                                         size_t bit, uint32_t *qx, uint32_t *qy, uint32_t *qz)
{
    size_t p = bit + g->bit[j];
    unsigned nb = g->nb[j], sh = 64u - nb; /* 1..23 */
    if (proven) {
        uint64_t w = gb_msb_window64_proven(ani, p);
        *qx = (uint32_t)(w >> sh);
        *qy = (uint32_t)((w << nb) >> sh); /* 2 x 23 bits of the window's 57 or more */
        *qz =
            nb <= 19 ? (uint32_t)((w << (2u * nb)) >> sh) : (uint32_t)(gb_msb_window64_proven(ani, p + 2u * nb) >> sh);
    } else if (nb <= 19) {
        uint64_t w = gb_msb_window64(ani, room, p);
        *qx = (uint32_t)(w >> sh);
        *qy = (uint32_t)((w << nb) >> sh);
        *qz = (uint32_t)((w << (2u * nb)) >> sh);
    } else {
        *qx = (uint32_t)(gb_msb_window64(ani, room, p) >> sh);
        *qy = (uint32_t)(gb_msb_window64(ani, room, p + nb) >> sh);
        *qz = (uint32_t)(gb_msb_window64(ani, room, p + 2u * nb) >> sh);
    }
}

/* The four lanes' integers as three vectors (built from registers: four 4-byte stores
 * read back as one 16-byte load would stall on store forwarding). */
static GANIM_ALWAYS_INLINE void grp_ints(const acl_grp *g, const uint8_t *ani, size_t room, int proven, size_t bit,
                                         __m128i q[3])
{
    uint32_t x0, y0, z0, x1, y1, z1, x2, y2, z2, x3, y3, z3;
    grp_lane(g, 0, ani, room, proven, bit, &x0, &y0, &z0);
    grp_lane(g, 1, ani, room, proven, bit, &x1, &y1, &z1);
    grp_lane(g, 2, ani, room, proven, bit, &x2, &y2, &z2);
    grp_lane(g, 3, ani, room, proven, bit, &x3, &y3, &z3);
    q[0] = _mm_set_epi32((int)x3, (int)x2, (int)x1, (int)x0);
    q[1] = _mm_set_epi32((int)y3, (int)y2, (int)y1, (int)y0);
    q[2] = _mm_set_epi32((int)z3, (int)z2, (int)z1, (int)z0);
}

/* The bits of an M_RAW group's three floats a lane as three vectors: one 16-byte load a
 * lane and a transpose when proven, else checked windows (the buffer's last bytes). */
static GANIM_ALWAYS_INLINE void grp_raw_ints(const acl_grp *g, const uint8_t *ani, size_t room, uint64_t lim,
                                             size_t bit, __m128i q[3])
{
    if (bit + g->last < lim) {
        __m128 r0 = _mm_castsi128_ps(acl_raw16(ani, bit + g->bit[0]));
        __m128 r1 = _mm_castsi128_ps(acl_raw16(ani, bit + g->bit[1]));
        __m128 r2 = _mm_castsi128_ps(acl_raw16(ani, bit + g->bit[2]));
        __m128 r3 = _mm_castsi128_ps(acl_raw16(ani, bit + g->bit[3]));
        _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
        q[0] = _mm_castps_si128(r0);
        q[1] = _mm_castps_si128(r1);
        q[2] = _mm_castps_si128(r2);
        return;
    }
    uint32_t v[3][4];
    for (unsigned j = 0; j < 4; j++)
        for (unsigned c = 0; c < 3; c++)
            v[c][j] = (uint32_t)(gb_msb_window64(ani, room, bit + g->bit[j] + 32u * c) >> 32);
    for (unsigned c = 0; c < 3; c++) q[c] = _mm_loadu_si128((const __m128i *)(const void *)v[c]);
}

static inline __m128 sel(__m128 m, __m128 a, __m128 b) { return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b)); }

/* Group g's four sub-tracks at pose bit `bit`, component by component (v[0..2] = x, y,
 * z; v[3] = W for rotations, 0 otherwise): rec_decode's operations lane by lane.
 * raw: g->raw4 (a constant in each caller). Returns 0 when a raw float is not finite
 * (rec_decode then replaces it). */
static GANIM_ALWAYS_INLINE int grp_key_as(const acl_grp *g, int raw, const uint8_t *ani, size_t room, uint64_t lim,
                                          size_t bit, __m128 v[4])
{
    __m128i q[3];
    __m128 x, y, z;
    if (raw) { /* the floats themselves, if finite */
        grp_raw_ints(g, ani, room, lim, bit, q);
        __m128i e = _mm_set1_epi32(0x7F800000);
        __m128i inf = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi32(_mm_and_si128(q[0], e), e), _mm_cmpeq_epi32(_mm_and_si128(q[1], e), e)),
            _mm_cmpeq_epi32(_mm_and_si128(q[2], e), e));
        if (_mm_movemask_epi8(inf)) return 0;
        x = _mm_castsi128_ps(q[0]);
        y = _mm_castsi128_ps(q[1]);
        z = _mm_castsi128_ps(q[2]);
    } else {
        if (bit + g->last < lim) grp_ints(g, ani, room, 1, bit, q);
        else grp_ints(g, ani, room, 0, bit, q); /* the last 8 bytes of the buffer */
        const __m128 inv = _mm_loadu_ps(g->inv);
        x = _mm_mul_ps(_mm_cvtepi32_ps(q[0]), inv);
        y = _mm_mul_ps(_mm_cvtepi32_ps(q[1]), inv);
        z = _mm_mul_ps(_mm_cvtepi32_ps(q[2]), inv);
        if (g->segrange) {
            x = _mm_add_ps(_mm_mul_ps(x, _mm_loadu_ps(g->sext[0])), _mm_loadu_ps(g->smin[0]));
            y = _mm_add_ps(_mm_mul_ps(y, _mm_loadu_ps(g->sext[1])), _mm_loadu_ps(g->smin[1]));
            z = _mm_add_ps(_mm_mul_ps(z, _mm_loadu_ps(g->sext[2])), _mm_loadu_ps(g->smin[2]));
        }
        x = _mm_add_ps(_mm_mul_ps(x, _mm_loadu_ps(g->cext[0])), _mm_loadu_ps(g->cmin[0]));
        y = _mm_add_ps(_mm_mul_ps(y, _mm_loadu_ps(g->cext[1])), _mm_loadu_ps(g->cmin[1]));
        z = _mm_add_ps(_mm_mul_ps(z, _mm_loadu_ps(g->cext[2])), _mm_loadu_ps(g->cmin[2]));
    }
    __m128 w = _mm_setzero_ps();
    if (g->kind == K_ROT) {
        __m128 t = _mm_sub_ps(_mm_set1_ps(1.0f), _mm_mul_ps(x, x));
        t = _mm_sub_ps(t, _mm_mul_ps(y, y));
        t = _mm_sub_ps(t, _mm_mul_ps(z, z));
        w = _mm_sqrt_ps(_mm_and_ps(t, _mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF))));
    }
    v[0] = x;
    v[1] = y;
    v[2] = z;
    v[3] = w;
    return 1;
}

static GANIM_ALWAYS_INLINE int grp_key(const acl_grp *g, const uint8_t *ani, size_t room, uint64_t lim, size_t bit,
                                       __m128 v[4])
{
    return g->raw4 ? grp_key_as(g, 1, ani, room, lim, bit, v) : grp_key_as(g, 0, ani, room, lim, bit, v);
}

/* Group i (soa, and the same records in both segments) at both keys: four sub-tracks per vector operation,
 * each lane doing recs_scalar's IEEE operations in the same order. */
static GANIM_ALWAYS_INLINE void grp_pose(const acl_keys *K, const acl_grp *ga, const acl_grp *gb, ganim_transform *out)
{
    __m128 v[4], w[4];
    if (!grp_key(ga, K->g0->ani, K->g0->ani_room, K->lim0, K->b0, v) ||
        (K->lerp && !grp_key(gb, K->g1->ani, K->g1->ani_room, K->lim1, K->b1, w))) {
        recs_list(K->g0, K->g1, K->b0, K->b1, K->lerp, K->alpha, ga->rec, ga->n, out); /* not finite */
        return;
    }
    const __m128 va = K->va;
    if (ga->kind == K_ROT) {
        if (K->lerp) {
            __m128 dot = _mm_add_ps(_mm_add_ps(_mm_mul_ps(v[0], w[0]), _mm_mul_ps(v[2], w[2])),
                                    _mm_add_ps(_mm_mul_ps(v[1], w[1]), _mm_mul_ps(v[3], w[3])));
            __m128 flip =
                _mm_and_ps(_mm_cmplt_ps(dot, _mm_setzero_ps()), _mm_castsi128_ps(_mm_set1_epi32((int)0x80000000u)));
            for (unsigned c = 0; c < 4; c++) {
                __m128 q = _mm_xor_ps(w[c], flip);
                v[c] = _mm_add_ps(_mm_sub_ps(v[c], _mm_mul_ps(v[c], va)), _mm_mul_ps(q, va));
            }
        }
        __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(v[0], v[0]), _mm_mul_ps(v[2], v[2])),
                                 _mm_add_ps(_mm_mul_ps(v[1], v[1]), _mm_mul_ps(v[3], v[3])));
        __m128 ok = _mm_and_ps(_mm_cmpge_ps(len2, _mm_set1_ps(1e-12f)), _mm_cmple_ps(len2, _mm_set1_ps(1e30f)));
        __m128 len = _mm_sqrt_ps(len2);
        for (unsigned c = 0; c < 4; c++) v[c] = _mm_div_ps(v[c], len);
        if (_mm_movemask_ps(ok) != 0xF) { /* only from damaged data: the identity in those lanes */
            for (unsigned c = 0; c < 3; c++) v[c] = _mm_and_ps(v[c], ok);
            v[3] = sel(ok, v[3], _mm_set1_ps(1.0f));
        }
        _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
        for (unsigned j = 0; j < 4; j++) _mm_storeu_ps(&out[ga->track[j]].rotation.x, v[j]);
        return;
    }
    if (K->lerp)
        for (unsigned c = 0; c < 3; c++) v[c] = _mm_add_ps(_mm_mul_ps(_mm_sub_ps(w[c], v[c]), va), v[c]);
    _MM_TRANSPOSE4_PS(v[0], v[1], v[2], v[3]);
    for (unsigned j = 0; j < 4; j++) {
        ganim_transform *t = &out[ga->track[j]];
        float *d = ga->kind == K_TRANS ? &t->translation.x : &t->scale.x;
        _mm_storel_pi((__m64 *)(void *)d, v[j]);
        _mm_store_ss(d + 2, _mm_movehl_ps(v[j], v[j]));
    }
}
#endif

/* The animated sub-tracks of `out` between the stored samples at bits b0 of g0 and b1 of
 * g1 (lerp: by alpha; otherwise the first); fast: by the SSE2 paths (groups when built,
 * else records one by one), otherwise the scalar one (the reference they are tested
 * against). Inlined into each caller: pose_between keeps its code as before it was split. */
static GANIM_ALWAYS_INLINE void pose_at(const ganim_acl *h, const acl_seg *g0, const acl_seg *g1, size_t b0, size_t b1,
                                        float alpha, int lerp, int fast, ganim_transform *out)
{
#if defined(__SSE2__)
    if (fast) {
        acl_keys K = { g0,
                       g1,
                       b0,
                       b1,
                       gb_msb_proven_limit(g0->ani_room),
                       gb_msb_proven_limit(g1->ani_room),
                       _mm_set1_ps(alpha),
                       alpha,
                       lerp };
        if (g0->grps) {
            for (uint32_t i = 0; i < g0->ngrp; i++) {
                const acl_grp *ga = &g0->grps[i], *gb = &g1->grps[i];
                /* both keys' lanes the same records (segments may group them differently) */
                int same = ga == gb || (gb->soa && !memcmp(ga->rec, gb->rec, sizeof ga->rec));
                if (ga->soa && (!lerp || same)) grp_pose(&K, ga, gb, out);
                else recs_list(g0, g1, b0, b1, lerp, alpha, ga->rec, ga->n, out);
            }
        } else {
            recs_vec(g0, g1, b0, b1, lerp, alpha, 0, h->na, out);
        }
        return;
    }
#else
    (void)fast;
#endif
    recs_scalar(g0, g1, b0, b1, lerp, alpha, 0, h->na, out);
}

/* The animated sub-tracks of `out` at samples k0..k1 (retained ones when stripped). */
static void pose_between(const ganim_acl *h, uint32_t k0, uint32_t k1, float alpha, int fast, ganim_transform *out)
{
    uint32_t s0, i0, s1, i1;
    locate(h, k0, &s0, &i0);
    locate(h, k1, &s1, &i1);
    const acl_seg *g0 = &h->segs[s0], *g1 = &h->segs[s1];
    size_t b0 = (size_t)i0 * g0->pose_bits, b1 = (size_t)i1 * g1->pose_bits;
    pose_at(h, g0, g1, b0, b1, alpha, alpha != 0.0f && (k0 != k1), fast, out);
}

void acl_pose_key(const ganim_acl *h, const acl_seg *sg, uint32_t i, ganim_transform *out)
{
    size_t b = (size_t)i * sg->pose_bits;
    pose_at(h, sg, sg, b, b, 0.0f, 0, 1, out);
}
