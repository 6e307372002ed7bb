/* glTF export: each animation clip as one glTF animation, one sampler per present channel
 * (time accessors shared between channels, step bits as hold keys, visibility as STEP
 * scale keys). */
#include "export/export_gltf.h"

/* put_model_keys takes four rotation keys a turn with SSE2 where the compiler has it. */
#if defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define GL_QUADS_SSE2 1
#include <emmintrin.h>
#else
#define GL_QUADS_SSE2 0
#endif

/* ---- animations ------------------------------------------------------------------------- */

static const char *const path_name[3] = { "rotation", "translation", "scale" };

static ganim_code key_space(gl *g, size_t n)
{
    if (n <= g->keys_cap) return GANIM_OK;
    size_t cap = g->keys_cap ? g->keys_cap : 64;
    while (cap < n) cap *= 2;
    uint32_t *map = ganim_alloc(&g->alloc, cap * sizeof *map);
    float *times = ganim_alloc(&g->alloc, cap * sizeof *times);
    double *at = ganim_alloc(&g->alloc, cap * sizeof *at);
    if (!map || !times || !at) {
        ganim_free(&g->alloc, map, cap * sizeof *map);
        ganim_free(&g->alloc, times, cap * sizeof *times);
        ganim_free(&g->alloc, at, cap * sizeof *at);
        return GANIM_NOMEM(g->err);
    }
    ganim_free(&g->alloc, g->map, g->keys_cap * sizeof *g->map);
    ganim_free(&g->alloc, g->times, g->keys_cap * sizeof *g->times);
    ganim_free(&g->alloc, g->at, g->keys_cap * sizeof *g->at);
    g->map = map, g->times = times, g->at = at, g->keys_cap = cap;
    return GANIM_OK;
}

static float frame_time(const ganim_clip *c, double frame) { return (float)(frame / c->fps); }

/* The largest float32 time not after the frame's: the keys of STEP samplers and of tracks
 * with hold keys. A client evaluates the frame at its exact time, in double (three.js's
 * mixer), and where the nearest float32 lies after it, it would still see the frame
 * before: a hidden part shown, a held value not yet let go. */
static float frame_time_down(const ganim_clip *c, double frame)
{
    double x = frame / c->fps;
    float f = (float)x;
    return (double)f > x ? nextafterf(f, -INFINITY) : f;
}

/* Writes g->times[0..n) as an input accessor (strictly increasing, with min/max). */
static ganim_code time_accessor(gl *g, uint32_t n, uint32_t *acc)
{
    for (uint32_t k = 1; k < n; k++) {
        if (!(g->times[k] > g->times[k - 1])) {
            char t[GX_GTEXT_CHARS];
            return ganim_fail(g->err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "gltf: clip '%s': keys %u and %u fall on the same float32 time (%s s)", g->clip_name,
                              k - 1, k, gx_gtext(t, (double)g->times[k], 9));
        }
    }
    fstat fs;
    gl_fs_begin(&fs, 1);
    size_t start = gl_bin_align(g);
    for (uint32_t k = 0; k < n; k++) gl_fs_put(g, &fs, &g->times[k]);
    *acc = gl_accessor(g, start, GL_FLOAT, n, "SCALAR", 0, &fs);
    return GANIM_OK;
}

static void put_ranges(gl *g, const char *name, const uint32_t *ranges, uint32_t n)
{
    ganim_writer *w = &g->samps;
    gw_u8(w, '"');
    gw_str(w, name);
    gw_str(w, "\":[");
    for (uint32_t i = 0; i < n; i++) {
        gw_str(w, i ? ",[" : "[");
        gw_dec(w, ranges[2 * i]);
        gw_u8(w, ',');
        gw_dec(w, ranges[2 * i + 1]);
        gw_u8(w, ']');
    }
    gw_u8(w, ']');
}

/* `negated`: `nneg` ranges (first, last) of keys written with their sign flipped for
 * continuity, recorded so that ganim's reader gives the model's own signs back (a
 * rotation and its negation are the same turn, but formats that store quaternions keep
 * the sign they were given). `stored`: `nstored` ranges of the keys a baked channel
 * stores (plan_keys: the others are the clip's interpolation between them), so that
 * ganim's reader gives the keyed channel back. */
static void add_sampler(gl *g, uint32_t bone, const char *path, uint32_t in, uint32_t out, const char *interp,
                        const uint32_t *negated, uint32_t nneg, const uint32_t *stored, uint32_t nstored)
{
    /* each entry's fixed part built in a local array, one append each (path and interp
     * are this file's short names) */
    char tc[128], ts[128], *p = tc, *q = ts;
    size_t lp = strlen(path), li = strlen(interp);
    if (g->sampler_count) *p++ = ',', *q++ = ',';
    p = GL_LIT(p, "{\"sampler\":");
    p = gl_dec(p, g->sampler_count);
    p = GL_LIT(p, ",\"target\":{\"node\":");
    p = gl_dec(p, bone);
    p = GL_LIT(p, ",\"path\":\"");
    memcpy(p, path, lp), p += lp;
    p = GL_LIT(p, "\"}}");
    gw_bytes(&g->chans, tc, (size_t)(p - tc));
    q = GL_LIT(q, "{\"input\":");
    q = gl_dec(q, in);
    q = GL_LIT(q, ",\"output\":");
    q = gl_dec(q, out);
    q = GL_LIT(q, ",\"interpolation\":\"");
    memcpy(q, interp, li), q += li;
    *q++ = '"';
    gw_bytes(&g->samps, ts, (size_t)(q - ts));
    if (nneg || nstored) {
        gw_str(&g->samps, ",\"extras\":{\"ganim\":{");
        if (nneg) put_ranges(g, "negated", negated, nneg);
        if (nstored) {
            if (nneg) gw_u8(&g->samps, ',');
            put_ranges(g, "keys", stored, nstored);
        }
        gw_str(&g->samps, "}}");
    }
    gw_u8(&g->samps, '}');
    g->sampler_count++;
}

/* A keyed channel (without step bits) baked: a key on every frame of the clip, and on
 * each stored key that falls between frames, the frames between stored keys holding the
 * clip's own interpolation (ganim_clip_sample's). glTF asks for slerp between keys and
 * Blender interpolates quaternions component by component: over a gap of many frames
 * they would show another motion than the game's (up to 0.1 of the pose in Harry Potter's
 * keyed records; ACL's nlerp between stripped keys). g->map holds GL_BAKED for the frames
 * that are not stored keys, g->at the frame of every output key. */
static ganim_code bake_keys(gl *g, const float *kt, uint32_t n, uint32_t *nout, uint32_t *in)
{
    const ganim_clip *c = g->clip;
    uint32_t fc = c->frame_count, m = 0, k = 0, f = 0;
    ganim_code code = key_space(g, (size_t)n + fc);
    if (code != GANIM_OK) return code;
    while (f < fc || k < n) {
        double kf = k < n ? (double)kt[k] : INFINITY;
        if (f < fc && (double)f < kf) {
            float tf = frame_time(c, (double)f);
            /* a stored key at the same float32 time takes its place */
            if (!(k < n && tf == frame_time(c, kf)) && !(m && tf == g->times[m - 1])) {
                g->map[m] = GL_BAKED;
                g->at[m] = (double)f;
                g->times[m++] = tf;
            }
            f++;
            continue;
        }
        g->map[m] = k;
        g->at[m] = kf;
        g->times[m++] = frame_time(c, kf);
        if ((double)f == kf) f++;
        k++;
    }
    *nout = m;
    int frames = m == fc; /* the clip's frames and nothing else: the shared accessor */
    for (uint32_t i = 0; i < m && frames; i++) frames = g->at[i] == (double)i;
    if (frames && g->frames_acc != NO_ACC) {
        *in = g->frames_acc;
        return GANIM_OK;
    }
    for (uint32_t i = 0; !frames && i < g->cache_n; i++) {
        const time_key *e = &g->cache[i];
        if (e->baked && e->count == n && (e->times == kt || !memcmp(e->times, kt, n * sizeof *kt))) {
            *in = e->acc;
            return GANIM_OK;
        }
    }
    code = time_accessor(g, m, in);
    if (code != GANIM_OK) return code;
    if (frames) {
        g->frames_acc = *in;
    } else {
        time_key e = { kt, n, NULL, 1, 0, *in };
        g->cache[g->cache_next] = e;
        g->cache_next = (g->cache_next + 1) % TIME_CACHE;
        if (g->cache_n < TIME_CACHE) g->cache_n++;
    }
    return GANIM_OK;
}

/* g->times[0..m) as a new input accessor of the clip, kept for later channels: the
 * clip's frames (frames_acc), or the n keyed times kt (the cache). */
static ganim_code new_time_accessor(gl *g, uint32_t m, uint32_t n, const float *kt, const uint8_t *hk, int down,
                                    uint32_t *in)
{
    ganim_code code = time_accessor(g, m, in);
    if (code != GANIM_OK) return code;
    if (!kt && !hk && !down) {
        g->frames_acc = *in;
    } else {
        time_key e = { kt, n, hk, 0, down, *in };
        g->cache[g->cache_next] = e;
        g->cache_next = (g->cache_next + 1) % TIME_CACHE;
        if (g->cache_n < TIME_CACHE) g->cache_n++;
    }
    return GANIM_OK;
}

/* The keys a channel is written with: g->map / g->times, their count, the interpolation
 * and the input accessor (shared with earlier channels of the clip when possible).
 * Step bits: when every key but the last steps, the sampler is STEP; when only some do,
 * a hold key (previous value) is inserted one float32 ulp before the next key. */
static ganim_code plan_keys(gl *g, const ganim_track *t, const ganim_channel *ch, uint32_t *nout, const char **interp,
                            uint32_t *in)
{
    const ganim_clip *c = g->clip;
    uint32_t fc = c->frame_count;
    *interp = "LINEAR";
    g->map_ident = 0;
    if (ch->kind == GANIM_CHANNEL_CONSTANT) {
        ganim_code code = key_space(g, 2);
        if (code != GANIM_OK) return code;
        /* over the whole animation (a partner may be longer) */
        *nout = g->span > 1 ? 2 : 1;
        g->map[0] = g->map[1] = 0;
        g->times[0] = 0;
        g->times[1] = frame_time(c, g->span - 1.0);
        if (g->ends_acc == NO_ACC) {
            code = time_accessor(g, *nout, &g->ends_acc);
            if (code != GANIM_OK) return code;
        }
        *in = g->ends_acc;
        return GANIM_OK;
    }
    uint32_t n = ch->count, stepped = 0;
    const float *kt = ch->kind == GANIM_CHANNEL_KEYED ? ch->times : NULL;
    if (kt && !t->step && !g->o.sparse_keys) return bake_keys(g, kt, n, nout, in);
    ganim_code code = key_space(g, (size_t)n * 2);
    if (code != GANIM_OK) return code;
    if (t->step) {
        for (uint32_t k = 0; k + 1 < n; k++) {
            double f = kt ? floor((double)kt[k]) : (double)k;
            if (f >= 0 && f < (double)fc && t->step[(uint32_t)f]) stepped++;
        }
    }
    int holds = stepped && stepped + 1 < n, down = stepped || g->step_keys;
    if (stepped && !holds) *interp = "STEP";
    const uint8_t *hk = holds ? t->step : NULL;
    if (!holds) { /* one output key per key: the identity map, times only for a new accessor */
        g->map_ident = 1;
        *nout = n;
        if (!kt && !down && g->frames_acc != NO_ACC) {
            *in = g->frames_acc;
            return GANIM_OK;
        }
        for (uint32_t i = 0; i < g->cache_n; i++) {
            const time_key *e = &g->cache[i];
            if (e->count == n && !e->hold && !e->baked && e->down == down &&
                (e->times == kt || (e->times && kt && !memcmp(e->times, kt, n * sizeof *kt)))) {
                *in = e->acc;
                return GANIM_OK;
            }
        }
        for (uint32_t k = 0; k < n; k++) {
            double fk = kt ? (double)kt[k] : (double)k;
            g->times[k] = down ? frame_time_down(c, fk) : frame_time(c, fk);
        }
        return new_time_accessor(g, n, n, kt, NULL, down, in);
    }
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        double fk = kt ? (double)kt[k] : (double)k;
        g->map[m] = k;
        g->times[m++] = down ? frame_time_down(c, fk) : frame_time(c, fk);
        if (holds && k + 1 < n) {
            double f = kt ? floor((double)kt[k]) : (double)k;
            if (f >= 0 && f < (double)fc && t->step[(uint32_t)f]) {
                g->map[m] = k;
                g->times[m++] = nextafterf(frame_time_down(c, kt ? (double)kt[k + 1] : (double)(k + 1)), -INFINITY);
            }
        }
    }
    *nout = m;
    if (!kt && !hk && !down && g->frames_acc != NO_ACC) {
        *in = g->frames_acc;
        return GANIM_OK;
    }
    for (uint32_t i = 0; i < g->cache_n; i++) {
        const time_key *e = &g->cache[i];
        if (e->count == n && e->hold == hk && !e->baked && e->down == down &&
            (e->times == kt || (e->times && kt && !memcmp(e->times, kt, n * sizeof *kt)))) {
            *in = e->acc;
            return GANIM_OK;
        }
    }
    return new_time_accessor(g, m, n, kt, hk, down, in);
}

static ganim_code bad_value(gl *g, const ganim_track *t, const char *what, uint32_t key)
{
    return ganim_fail(g->err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                      "gltf: clip '%s', track '%s' (bone %u '%s'): %s key %u is not a finite number after conversion",
                      g->clip_name, t->name ? t->name : "", t->bone, g->sk->bones[t->bone].name, what, key);
}

/* A model value of channel `path` in the export's axes and units; 0 when not finite. */
static int convert_key(const gl *g, int root, int path, const float *src, float *v)
{
    if (path == 0) return gx_rotation(&g->cv, root, src, v);
    if (path == 1) return gx_translation(&g->cv, root, src, v);
    memcpy(v, src, 3 * sizeof *v);
    return gx_finite3(v);
}

/* A baked frame of keyed channel `ch` (bake_keys) at `frame`, after `passed` stored keys:
 * the clip's interpolation between the two stored keys around it, converted (held before
 * the first and after the last). Interpolated between the converted keys, so that a glb
 * read back (its stored keys converted back) exports the same bytes again. */
static int bake_value(const gl *g, int root, int path, const ganim_channel *ch, uint32_t passed, double frame, float *v)
{
    size_t comps = path == 0 ? 4 : 3;
    if (passed == 0 || passed >= ch->count)
        return convert_key(g, root, path, ch->values + (size_t)(passed ? ch->count - 1 : 0) * comps, v);
    float times[2] = { ch->times[passed - 1], ch->times[passed] }, values[8];
    if (!convert_key(g, root, path, ch->values + (size_t)(passed - 1) * comps, values) ||
        !convert_key(g, root, path, ch->values + (size_t)passed * comps, values + comps))
        return 0;
    ganim_channel two = { GANIM_CHANNEL_KEYED, 2, times, values };
    ganim_channel_eval(&two, g->clip->frame_count, NULL, g->clip->rotation_interp, (int)comps, frame, values, v);
    return 1;
}

/* n floats stored little-endian at p (one copy on little-endian hosts). */
static inline void put_f32s(uint8_t *p, const float *v, int n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(p, v, (size_t)n * 4u);
#else
    for (int i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        p[4 * i] = (uint8_t)u, p[4 * i + 1] = (uint8_t)(u >> 8), p[4 * i + 2] = (uint8_t)(u >> 16);
        p[4 * i + 3] = (uint8_t)(u >> 24);
    }
#endif
}

/* Adds output keys first..last to the ranges of negated keys (allocated at the first). */
static int note_run(gl *g, uint32_t n, uint32_t first, uint32_t last, uint32_t **neg, size_t *neg_size, uint32_t *nneg)
{
    if (!*neg) {
        *neg_size = (size_t)n * 2 * sizeof **neg;
        if (!(*neg = ganim_alloc(&g->alloc, *neg_size))) return 0;
    }
    uint32_t *r = *neg, m = *nneg;
    if (m && r[2 * m - 1] == first - 1) r[2 * m - 1] = last;
    else r[2 * m] = first, r[2 * m + 1] = last, *nneg = m + 1;
    return 1;
}

/* Adds output key k to the ranges of negated keys. */
static int note_negated(gl *g, uint32_t n, uint32_t k, uint32_t **neg, size_t *neg_size, uint32_t *nneg)
{
    return note_run(g, n, k, k, neg, neg_size, nneg);
}

/* The model's dot product of two rotations, in double, in the order the exporter has
 * always taken it. */
static inline double dot4(const float *p, const float *m)
{
    double p0 = p[0], p1 = p[1], p2 = p[2], p3 = p[3], m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3];
    return p0 * m0 + p1 * m1 + p2 * m2 + p3 * m3;
}

/* Rotation key k (model values q, the key before pq) as gx_rotation writes it, stored at
 * out; its sign follows the model's dot product with the key before (write_channel).
 * Returns 0 when it does not convert, 2 when stored negated, else 1. */
static inline int rot_key(const gx_conv *cv, int root, const float *q, const float *pq, uint32_t k, int *flipped,
                          uint8_t *out)
{
    float v[4];
    if (!gx_rotation(cv, root, q, v)) return 0;
    int flip = k ? *flipped ^ (dot4(pq, q) < 0) : 0;
    *flipped = flip;
    if (flip) v[0] = -v[0], v[1] = -v[1], v[2] = -v[2], v[3] = -v[3];
    put_f32s(out, v, 4);
    return flip ? 2 : 1;
}

/* write_channel's keys when none is baked (every output key a model key: g->map, or the
 * identity when g->map_ident) and their bytes are reserved: converted straight into the
 * binary buffer, with no per-key call. The same values and signs as the general loop:
 * every key's model values are at hand, so a rotation's sign follows the model's dot
 * product with the key before; a converted key is finite (a rotation's parts are at most
 * 1 once its squared length is finite and not 0; translations and scales are checked), so
 * nothing is left for the non-finite note. *bad: the key that does not convert, or
 * UINT32_MAX. Returns 0 when the negated ranges cannot be allocated. */
static int put_model_keys(gl *g, const ganim_channel *ch, int path, int root, uint32_t n, uint32_t **neg,
                          size_t *neg_size, uint32_t *nneg, uint32_t *bad)
{
    ganim_buffer *buf = g->bin.buf;
    uint8_t *out = buf->data + buf->size;
    const uint32_t *map = g->map_ident ? NULL : g->map;
    const float *vals = ch->values;
    *bad = UINT32_MAX;
    if (path == 0) {
        int flipped = 0;
        const float *pq = NULL; /* the model's key before */
        uint32_t k = 0;
#if GL_QUADS_SSE2
        int pq_unit = 0; /* the key before passed the float test below */
#endif
        while (k < n && *bad == UINT32_MAX) { /* four a turn, then a group or the tail the one-key way */
#if GL_QUADS_SSE2
            /* Four keys a turn where no key is turned by the axes (each key then goes out as it
             * is, or negated), decided in float where float decides as the double rule does:
             * - unit: the float squared length (x x + y y) + (z z + w w) is within 3 roundings,
             *   3 * 2^-24 relative (1.8e-7 near 1), of the exact one, and the double rule's is
             *   within 2^-51 of it; a float value within 2^-22 (2.4e-7) of 1 leaves the exact
             *   one within 4.2e-7, under the rule's 2^-21 (4.77e-7): unit by the rule too;
             * - sign: the float dot product is within 3 roundings, 1.8e-7 times |p| |q|, of the
             *   exact one (|p| and |q| unit as above, the key before tested the same way), and
             *   the double one within 2^-51 of it; a float value beyond 2^-21 from 0 has the
             *   exact and the double value's sign.
             * Any group with a key outside those (a key to normalise or refuse, a dot product
             * near 0, a non-finite value: the comparisons are false) goes the one-key way. */
            if (!root || g->cv.identity) {
                const __m128 one = _mm_set1_ps(1.0f), tol = _mm_set1_ps(0x1p-22f), near0 = _mm_set1_ps(0x1p-21f);
                const __m128 mag = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)), zero = _mm_setzero_ps();
                for (; k + 3 < n; k += 4) {
                    const float *q0, *q1, *q2, *q3;
                    if (map) {
                        q0 = vals + (size_t)map[k] * 4, q1 = vals + (size_t)map[k + 1] * 4;
                        q2 = vals + (size_t)map[k + 2] * 4, q3 = vals + (size_t)map[k + 3] * 4;
                    } else {
                        q0 = vals + (size_t)k * 4, q1 = q0 + 4, q2 = q0 + 8, q3 = q0 + 12;
                    }
                    __m128 a0 = _mm_loadu_ps(q0), a1 = _mm_loadu_ps(q1), a2 = _mm_loadu_ps(q2), a3 = _mm_loadu_ps(q3);
                    __m128 ap = _mm_loadu_ps(pq ? pq : q0);
                    if (pq && !pq_unit) {
                        float lp = (pq[0] * pq[0] + pq[1] * pq[1]) + (pq[2] * pq[2] + pq[3] * pq[3]);
                        pq_unit = fabsf(lp - 1.0f) <= 0x1p-22f;
                    }
                    __m128 t0 = _mm_unpacklo_ps(a0, a1), t1 = _mm_unpacklo_ps(a2, a3); /* x0 x1 y0 y1, x2 x3 y2 y3 */
                    __m128 t2 = _mm_unpackhi_ps(a0, a1), t3 = _mm_unpackhi_ps(a2, a3); /* z0 z1 w0 w1, z2 z3 w2 w3 */
                    __m128 x = _mm_movelh_ps(t0, t1), y = _mm_movehl_ps(t1, t0);
                    __m128 z = _mm_movelh_ps(t2, t3), w = _mm_movehl_ps(t3, t2);
                    __m128 len2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)),
                                             _mm_add_ps(_mm_mul_ps(z, z), _mm_mul_ps(w, w)));
                    int unit = _mm_movemask_ps(_mm_cmple_ps(_mm_and_ps(_mm_sub_ps(len2, one), mag), tol));
                    /* each lane's key before: the key before the four, then keys 0, 1, 2 */
                    __m128 px = _mm_move_ss(_mm_shuffle_ps(x, x, _MM_SHUFFLE(2, 1, 0, 3)), ap);
                    __m128 py = _mm_move_ss(_mm_shuffle_ps(y, y, _MM_SHUFFLE(2, 1, 0, 3)),
                                            _mm_shuffle_ps(ap, ap, _MM_SHUFFLE(1, 1, 1, 1)));
                    __m128 pz = _mm_move_ss(_mm_shuffle_ps(z, z, _MM_SHUFFLE(2, 1, 0, 3)),
                                            _mm_shuffle_ps(ap, ap, _MM_SHUFFLE(2, 2, 2, 2)));
                    __m128 pw = _mm_move_ss(_mm_shuffle_ps(w, w, _MM_SHUFFLE(2, 1, 0, 3)),
                                            _mm_shuffle_ps(ap, ap, _MM_SHUFFLE(3, 3, 3, 3)));
                    __m128 dot = _mm_add_ps(_mm_add_ps(_mm_mul_ps(px, x), _mm_mul_ps(py, y)),
                                            _mm_add_ps(_mm_mul_ps(pz, z), _mm_mul_ps(pw, w)));
                    int clear = _mm_movemask_ps(_mm_cmpgt_ps(_mm_and_ps(dot, mag), near0)) | (k ? 0 : 1);
                    if (unit != 15 || clear != 15 || (k && !pq_unit)) break; /* these four the one-key way */
                    /* key i is negated when an odd number of the dot products up to it are below 0
                 * (with the state carried in), the first key of the channel never */
                    unsigned below = (unsigned)_mm_movemask_ps(_mm_cmplt_ps(dot, zero)) & (k ? 15u : 14u);
                    below ^= below << 1;
                    below ^= below << 2;
                    unsigned neg4 = (below ^ (flipped ? 15u : 0u)) & 15u;
                    flipped = (int)(neg4 >> 3);
                    const __m128i sign = _mm_set1_epi32(INT32_MIN);
                    _mm_storeu_ps(
                        (float *)(void *)out,
                        _mm_xor_ps(a0, _mm_castsi128_ps(_mm_and_si128(sign, _mm_set1_epi32(-(int)(neg4 & 1))))));
                    _mm_storeu_ps(
                        (float *)(void *)(out + 16),
                        _mm_xor_ps(a1, _mm_castsi128_ps(_mm_and_si128(sign, _mm_set1_epi32(-(int)(neg4 >> 1 & 1))))));
                    _mm_storeu_ps(
                        (float *)(void *)(out + 32),
                        _mm_xor_ps(a2, _mm_castsi128_ps(_mm_and_si128(sign, _mm_set1_epi32(-(int)(neg4 >> 2 & 1))))));
                    _mm_storeu_ps(
                        (float *)(void *)(out + 48),
                        _mm_xor_ps(a3, _mm_castsi128_ps(_mm_and_si128(sign, _mm_set1_epi32(-(int)(neg4 >> 3))))));
                    out += 64;
                    for (unsigned b = neg4; b;) { /* each run of negated keys among the four */
                        unsigned at = (unsigned)__builtin_ctz(b), len = (unsigned)__builtin_ctz(~(b >> at));
                        if (!note_run(g, n, k + at, k + at + len - 1, neg, neg_size, nneg)) return 0;
                        b &= ~(((1u << len) - 1u) << at);
                    }
                    pq = q3;
                    pq_unit = 1;
                }
            }
            uint32_t end = k + 3 < n && (!root || g->cv.identity) ? k + 4 : n; /* the group stopped at, or the tail */
#else
            uint32_t end = n;
#endif
            for (; k < end; k++, out += 16) {
                uint32_t key = map ? map[k] : k;
                const float *q = vals + (size_t)key * 4;
                int r = rot_key(&g->cv, root, q, pq, k, &flipped, out);
                if (!r) {
                    *bad = key;
                    break;
                }
                if (r == 2 && !note_negated(g, n, k, neg, neg_size, nneg)) return 0;
                pq = q;
            }
#if GL_QUADS_SSE2
            pq_unit = 0;
#endif
        }
    } else {
        for (uint32_t k = 0; k < n; k++, out += 12) {
            uint32_t key = map ? map[k] : k;
            const float *src = vals + (size_t)key * 3;
            float v[3];
            if (!(path == 1 ? gx_translation(&g->cv, root, src, v) : (memcpy(v, src, sizeof v), gx_finite3(v)))) {
                *bad = key;
                break;
            }
            put_f32s(out, v, 3);
        }
    }
    if (*bad == UINT32_MAX) buf->size = (size_t)(out - buf->data);
    return 1;
}

/* path: 0 rotation, 1 translation, 2 scale */
static ganim_code write_channel(gl *g, const ganim_track *t, const ganim_channel *ch, int path)
{
    uint32_t n, in;
    const char *interp;
    ganim_code code = plan_keys(g, t, ch, &n, &interp, &in);
    if (code != GANIM_OK) return code;
    int root = g->sk->bones[t->bone].parent < 0, comps = path == 0 ? 4 : 3;
    size_t start = gl_bin_align(g);
    uint32_t written = 0; /* keys written (or counted) before the general loop: all or none */
    if (!gw_drops(&g->bin)) gw_reserve(&g->bin, (size_t)n * (size_t)comps * 4u); /* the accessor's bytes, once */
    float prev[4] = { 0, 0, 0, 1 }, v[4];
    uint32_t *neg = NULL, nneg = 0; /* ranges of keys negated */
    size_t neg_size = 0;
    uint32_t *stored = NULL, nstored = 0, passed = 0; /* ranges of stored keys among baked ones */
    size_t stored_size = 0;
    if (ch->kind == GANIM_CHANNEL_KEYED && !t->step && !g->o.sparse_keys && n != ch->count) { /* baked */
        stored_size = (size_t)ch->count * 2 * sizeof *stored;
        if (!(stored = ganim_alloc(&g->alloc, stored_size))) return GANIM_NOMEM(g->err);
    }
    if (gw_drops(&g->bin) &&
        (path == 0 ? !stored : path == 2 || (fabs(g->cv.unit) <= 1 && (!root || g->cv.identity)))) {
        /* A measuring run, where a value cannot fail and goes into the JSON only by its
         * sign: the bytes are counted, not converted. Rotations with no key baked: the
         * document's validation (gx_check_doc) found each of unit length, so gx_rotation
         * takes it, turned or not; their signs follow the model's dot products
         * (put_model_keys, note_negated). Scales, and translations not turned and not
         * enlarged: the model's values are finite (validated), and so are they converted,
         * and baked between two of them (in double, between them); the stored keys'
         * ranges found as the loop below finds them. */
        const uint32_t *map = g->map_ident ? NULL : g->map;
        double p0 = 0, p1 = 0, p2 = 0, p3 = 0;
        int flipped = 0;
        for (uint32_t k = 0; path == 0 && k < n; k++) {
            const float *q = ch->values + (size_t)(map ? map[k] : k) * 4;
            double m0 = q[0], m1 = q[1], m2 = q[2], m3 = q[3];
            int flip = 0;
            if (k) flip = flipped ^ (p0 * m0 + p1 * m1 + p2 * m2 + p3 * m3 < 0);
            flipped = flip;
            p0 = m0, p1 = m1, p2 = m2, p3 = m3;
            if (flip && !note_negated(g, n, k, &neg, &neg_size, &nneg)) return GANIM_NOMEM(g->err);
        }
        for (uint32_t k = 0; stored && k < n; k++) {
            if (g->map[k] == GL_BAKED) continue;
            if (nstored && stored[2 * nstored - 1] == k - 1) stored[2 * nstored - 1] = k;
            else stored[2 * nstored] = stored[2 * nstored + 1] = k, nstored++;
        }
        gw_skip(&g->bin, (size_t)n * (size_t)comps * 4u);
        written = n;
    }
    ganim_buffer *buf = g->bin.buf;
    if (!written && !stored && !g->bin.failed && buf->capacity - buf->size >= (size_t)n * (size_t)comps * 4u) {
        uint32_t bad;
        written = n;
        if (!put_model_keys(g, ch, path, root, n, &neg, &neg_size, &nneg, &bad)) return GANIM_NOMEM(g->err);
        if (bad != UINT32_MAX) {
            ganim_free(&g->alloc, neg, neg_size);
            return bad_value(g, t, path_name[path], bad);
        }
    }
    const float *model = NULL, *prev_model = NULL; /* the model's values of this key and the last */
    int flipped = 0;                               /* the last key was written negated */
    for (uint32_t k = written; k < n; k++) {
        uint32_t key = g->map_ident ? k : g->map[k];
        int ok;
        prev_model = model;
        model = NULL;
        if (key != GL_BAKED) {
            model = ch->values + (size_t)key * (size_t)comps;
            ok = convert_key(g, root, path, model, v);
            passed = key + 1;
            if (stored && nstored && stored[2 * nstored - 1] == k - 1) stored[2 * nstored - 1] = k;
            else if (stored) stored[2 * nstored] = stored[2 * nstored + 1] = k, nstored++;
        } else {
            ok = bake_value(g, root, path, ch, passed, g->at[k], v);
            key = passed ? passed - 1 : 0;
        }
        if (!ok) {
            ganim_free(&g->alloc, neg, neg_size);
            ganim_free(&g->alloc, stored, stored_size);
            return bad_value(g, t, path_name[path], key);
        }
        /* Rotations sign-continuous, so that LINEAR (slerp) takes the way ganim_clip_sample
         * takes: the short way, and for a half turn (a dot product of 0: no way is shorter)
         * from the one to the other as the model's signs give them. Between two keys of
         * the model the sign follows the model's dot product (a client then sees the same
         * sign of it as ganim's sampler, where rounding in the conversion could change a
         * dot product of 0 into a tiny negative one); else the written values' (baked). */
        int flip = 0;
        if (path == 0 && k) {
            const float *a = model && prev_model ? prev_model : prev, *b = model && prev_model ? model : v;
            double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
            flip = model && prev_model ? flipped ^ (d < 0) : d < 0;
        }
        if (path == 0) flipped = flip;
        if (flip) {
            v[0] = -v[0], v[1] = -v[1], v[2] = -v[2], v[3] = -v[3];
            if (!neg) {
                neg_size = (size_t)n * 2 * sizeof *neg;
                if (!(neg = ganim_alloc(&g->alloc, neg_size))) {
                    ganim_free(&g->alloc, stored, stored_size);
                    return GANIM_NOMEM(g->err);
                }
            }
            if (nneg && neg[2 * nneg - 1] == k - 1) neg[2 * nneg - 1] = k;
            else neg[2 * nneg] = neg[2 * nneg + 1] = k, nneg++;
        }
        if (path == 0) memcpy(prev, v, sizeof v);
        gl_put_f32s(g, v, comps); /* no min/max: the output accessor has no bounds */
    }
    uint32_t out = gl_accessor(g, start, GL_FLOAT, n, comps == 4 ? "VEC4" : "VEC3", 0, NULL);
    add_sampler(g, t->bone, path_name[path], in, out, interp, neg, nneg, stored, nstored);
    ganim_free(&g->alloc, neg, neg_size);
    ganim_free(&g->alloc, stored, stored_size);
    return GANIM_OK;
}

/* Visibility as STEP scale keys on every frame: the (sampled) scale when visible, 0 when
 * hidden. Hides the bone's subtree too, as a scaled-to-zero node does in every viewer. */
static ganim_code write_visibility(gl *g, const ganim_track *t)
{
    const ganim_clip *c = g->clip;
    ganim_channel frames = { GANIM_CHANNEL_PER_FRAME, c->frame_count, NULL, NULL };
    uint32_t n, in;
    const char *interp;
    ganim_track plain = *t;
    plain.step = NULL;
    g->step_keys = 1;
    ganim_code code = plan_keys(g, &plain, &frames, &n, &interp, &in);
    g->step_keys = 0;
    if (code != GANIM_OK) return code;
    size_t start = gl_bin_align(g);
    const float *rest = &g->sk->bones[t->bone].rest.scale.x;
    /* A measuring run (its binary buffer only counted) takes the bytes' length and no
     * value: every one is finite (0, or the scale channel's or the rest scale's values,
     * finite in a validated document, or interpolated between two of them: in double,
     * between them, so finite as a float too), and none goes into the JSON. */
    if (gw_drops(&g->bin)) gw_skip(&g->bin, (size_t)c->frame_count * 12u);
    else gw_reserve(&g->bin, (size_t)c->frame_count * 12u);
    for (uint32_t f = 0; !gw_drops(&g->bin) && f < c->frame_count; f++) {
        float v[3] = { 0, 0, 0 };
        if (t->visibility[f]) {
            ganim_channel_eval(&t->scale, c->frame_count, t->step, c->rotation_interp, 3, (double)f, rest, v);
            if (!gx_finite3(v)) return bad_value(g, t, "scale", f);
        }
        gl_put_f32s(g, v, 3);
    }
    uint32_t out = gl_accessor(g, start, GL_FLOAT, c->frame_count, "VEC3", 0, NULL);
    add_sampler(g, t->bone, "scale", in, out, "STEP", NULL, 0, NULL, 0);
    return GANIM_OK;
}

/* Is the track's bone hidden on some frame of its clip `c`, its visibility written as
 * scale keys? (A byte of 0 among the clip's frames: one memchr.) */
static int hides_some(const gl *g, const ganim_track *t, const ganim_clip *c)
{
    return g->o.visibility == GANIM_VIS_SCALE && t->visibility && c->frame_count &&
           memchr(t->visibility, 0, c->frame_count) != NULL;
}

/* Does the track's scale channel get written (its own, or visibility as scale)? */
static int writes_scale(const gl *g, const ganim_track *t, const ganim_clip *c)
{
    return hides_some(g, t, c) || t->scale.kind != GANIM_CHANNEL_ABSENT;
}

/* Every channel of the tracks of g->clip; tracks on bones already animated in this
 * animation (by the clip a partner plays with) are left out, with a warning. */
static ganim_code write_tracks(gl *g, const ganim_clip *c)
{
    g->clip = c;
    g->frames_acc = NO_ACC; /* frame times are the clip's own */
    g->cache_n = g->cache_next = 0;
    for (uint32_t ti = 0; ti < c->track_count; ti++) {
        const ganim_track *t = &c->tracks[ti];
        if (g->bone_track[t->bone]) {
            gx_warn(&g->o, GANIM_WARN_EXPORT_LOSS,
                    "gltf: animation '%s': clip '%s' and the clip it plays with both animate bone %u ('%s'); "
                    "the first clip's track is written",
                    g->clip_name, c->name, t->bone, g->sk->bones[t->bone].name);
            continue;
        }
        g->bone_track[t->bone] = t;
        ganim_code code = GANIM_OK;
        if (t->rotation.kind != GANIM_CHANNEL_ABSENT) code = write_channel(g, t, &t->rotation, 0);
        if (code == GANIM_OK && t->translation.kind != GANIM_CHANNEL_ABSENT)
            code = write_channel(g, t, &t->translation, 1);
        if (code != GANIM_OK) return code;
        if (hides_some(g, t, c)) code = write_visibility(g, t);
        else if (t->scale.kind != GANIM_CHANNEL_ABSENT) code = write_channel(g, t, &t->scale, 2);
        if (code != GANIM_OK) return code;
    }
    return GANIM_OK;
}

/* A constant key of the bone's rest value for channel `path` (0 rotation, 1 translation,
 * 2 scale) over the whole animation. */
static ganim_code write_rest(gl *g, uint32_t bone, int path)
{
    const ganim_transform *rest = &g->sk->bones[bone].rest;
    ganim_track t = { 0 };
    t.bone = bone;
    t.name = "";
    ganim_channel *ch = path == 0 ? &t.rotation : path == 1 ? &t.translation : &t.scale;
    ch->kind = GANIM_CHANNEL_CONSTANT;
    ch->count = 1;
    ch->values = path == 0 ? &rest->rotation.x : path == 1 ? &rest->translation.x : &rest->scale.x;
    return write_channel(g, &t, ch, path);
}

/* Where a glTF client's interpolation differs from the game's (once per export each). */
static void client_warnings(gl *g, const ganim_clip *c, const ganim_clip *p)
{
    if (!(g->warned & 1) &&
        (c->rotation_interp == GANIM_INTERP_NLERP || (p && p->rotation_interp == GANIM_INTERP_NLERP))) {
        g->warned |= 1;
        gx_warn(&g->o, GANIM_WARN_EXPORT_LOSS,
                "gltf: animation '%s' interpolates rotations by nlerp (ACL); glTF clients slerp between keys: "
                "every frame is the game's, the poses between frames differ slightly (up to 1e-4 of the pose)",
                g->clip_name);
    }
    int hides = 0;
    for (uint32_t b = 0; b < g->nb && !hides; b++) {
        const ganim_track *t = g->bone_track[b];
        for (uint32_t f = 0; t && t->visibility && g->o.visibility == GANIM_VIS_SCALE && f < g->span && !hides; f++) {
            const ganim_clip *owner = p && t >= p->tracks && t < p->tracks + p->track_count ? p : c;
            hides = f < owner->frame_count && !t->visibility[f];
        }
    }
    if (!(g->warned & 2) && hides) {
        g->warned |= 2;
        gx_warn(&g->o, GANIM_WARN_EXPORT_LOSS,
                "gltf: animation '%s' hides bones on some frames: written as a scale of 0 (STEP keys), which hides "
                "the bone's children too; Blender keeps it, but its exporter loses those frames' rotations and "
                "translations (docs/clients.md)",
                g->clip_name);
    }
}

/* A constant scale of 0 over the whole animation: a bone the skeleton hides. */
static ganim_code write_zero_scale(gl *g, uint32_t bone)
{
    static const float zero[3] = { 0, 0, 0 };
    ganim_track t = { 0 };
    t.bone = bone;
    t.name = "";
    t.scale.kind = GANIM_CHANNEL_CONSTANT;
    t.scale.count = 1;
    t.scale.values = zero;
    return write_channel(g, &t, &t.scale, 2);
}

ganim_code gl_write_clip(gl *g, uint32_t ci, int first)
{
    const ganim_clip *c = &g->doc->clips[ci], *p = gx_partner(g->doc, ci);
    g->clip = c;
    g->span = gx_span(g->doc, ci);
    g->clip_name = gx_anim_name(g->doc, &g->o, ci, g->clip_name_buf, sizeof g->clip_name_buf);
    g->sampler_count = 0;
    g->ends_acc = NO_ACC;
    g->chans_buf.size = g->samps_buf.size = 0;
    memset(g->bone_track, 0, (size_t)g->nb * sizeof *g->bone_track);
    gx_partner_warn(g->doc, &g->o, ci);
    ganim_code code = write_tracks(g, c);
    if (code == GANIM_OK && p) code = write_tracks(g, p);
    client_warnings(g, c, p);
    /* Every joint keyed (unless sparse_keys): what a clip does not move holds its rest
     * value, so a client that keeps the last pose (Blender) and one that resets to rest
     * (three.js) show the same. */
    /* A bone the skeleton hides (g->hide) gets a scale of 0, with sparse keys too. */
    for (uint32_t b = 0; code == GANIM_OK && b < g->nb; b++) {
        const ganim_track *t = g->bone_track[b];
        const ganim_clip *owner = t && p && t >= p->tracks && t < p->tracks + p->track_count ? p : c;
        int sparse = g->o.sparse_keys;
        g->clip = c;
        if (!sparse && (!t || t->rotation.kind == GANIM_CHANNEL_ABSENT)) code = write_rest(g, b, 0);
        if (code == GANIM_OK && !sparse && (!t || t->translation.kind == GANIM_CHANNEL_ABSENT))
            code = write_rest(g, b, 1);
        if (code == GANIM_OK && (!t || !writes_scale(g, t, owner))) {
            const ganim_vec3 *rs = &g->sk->bones[b].rest.scale;
            int scaled = g->o.unscaled_rest && (rs->x != 1 || rs->y != 1 || rs->z != 1);
            if (g->hide[b] == GL_HIDE_SCALE) code = write_zero_scale(g, b);
            else if (!sparse || scaled) code = write_rest(g, b, 2);
        }
    }
    g->clip = c;
    if (code != GANIM_OK) return code;
    if (!g->sampler_count) { /* glTF needs a channel: hold bone 0 at rest for the clip */
        code = write_rest(g, 0, 0);
        if (code != GANIM_OK) return code;
    }
    ganim_writer *w = &g->js;
    gw_str(w, first ? "{\"name\":" : ",{\"name\":");
    if (g->clip_name[0]) gw_json_string(w, g->clip_name);
    else {
        gx_text_dec(w, "\"clip_", ci);
        gw_u8(w, '"');
    }
    gw_str(w, ",\"channels\":[");
    gw_bytes(w, g->chans_buf.data, g->chans_buf.size);
    gw_str(w, "],\"samplers\":[");
    gw_bytes(w, g->samps_buf.data, g->samps_buf.size);
    gx_text_dec(w, "],\"extras\":{\"ganim\":{\"clip_index\":", ci);
    if (p) gx_text_dec(w, ",\"partner_clip_index\":", c->partner - 1);
    gw_str(w, ",\"fps\":");
    gw_double(w, c->fps);
    gx_text_dec(w, ",\"frame_count\":", g->span);
    gw_str(w, c->rotation_interp == GANIM_INTERP_NLERP ? ",\"rotation_interp\":\"nlerp\""
                                                       : ",\"rotation_interp\":\"slerp\"");
    if (c->event_count || (p && p->event_count)) { /* only clips that have events: the clip's, its partner's */
        gw_str(w, ",\"events\":[");
        for (uint32_t k = 0, n = 0; k < 2; k++) {
            const ganim_clip *e = k ? p : c;
            for (uint32_t i = 0; e && i < e->event_count; i++, n++) {
                gw_str(w, n ? ",{\"frame\":" : "{\"frame\":");
                gw_float(w, e->events[i].frame);
                gw_str(w, ",\"time\":");
                gw_double(w, (double)e->events[i].frame / e->fps);
                gx_text_dec(w, ",\"id\":", e->events[i].id);
                gw_u8(w, '}');
            }
        }
        gw_u8(w, ']');
    }
    gl_carry_clips(g, ci, p);
    gw_str(w, "}}}");
    return gw_ok(&g->chans) && gw_ok(&g->samps) ? GANIM_OK : GANIM_NOMEM(g->err);
}
