/* ACL encoder, second half: what the decoder will rebuild from a choice of bit widths,
 * the error metric (ACL's qvvf: the points at the shell distance on a bone's three axes,
 * carried to object space through the hierarchy, compared with the input's), and the
 * search for the narrowest widths that keep every bone within the precision. */
#include <stdlib.h>

#include "formats/acl/acl_encode.h"

/* ---- what the decoder rebuilds -------------------------------------------------------- */

static const unsigned enc_at[3] = { 0, 4, 7 };

uint32_t acl_enc_quant(const acl_enc *e, uint32_t g, uint32_t t, unsigned kind, uint32_t s, const acl_sub *sub,
                       unsigned c)
{
    float n = enc_norm(e, s, t, kind)[c];
    if (e->nseg > 1) {
        float smin = (float)sub->smin[c] * (1.0f / 255.0f), sext = (float)sub->sext[c] * (1.0f / 255.0f);
        n = sext > 0.0f ? (n - smin) / sext : 0.0f;
        n = n < 0.0f ? 0.0f : n > 1.0f ? 1.0f : n;
    }
    (void)g;
    float top = (float)((1u << sub->width) - 1u);
    return (uint32_t)(n * top + 0.5f);
}

void acl_enc_value(const acl_enc *e, uint32_t g, uint32_t t, unsigned kind, uint32_t s, const acl_sub *sub, float o[4])
{
    size_t i = (size_t)t * 3u + kind;
    if (e->type[i] != T_ANIM) {
        memcpy(o, e->cval + i * 4u, 4 * sizeof(float));
        return;
    }
    const float *mn = e->cmin + i * 3u, *ex = e->cext + i * 3u;
    if (kind == K_ROT && e->p.fmt[K_ROT] == 0) { /* quatf_full: four floats */
        memcpy(o, enc_raw(e, s, t), 4 * sizeof(float));
        quat_normalise(o);
        return;
    }
    if (sub->width == ACL_ENC_RAW) {
        memcpy(o, enc_raw(e, s, t) + enc_at[kind], 3 * sizeof(float));
    } else if (sub->width == 0) {
        for (unsigned c = 0; c < 3; c++) {
            float v = (float)sub->cq[c] * (1.0f / 65535.0f);
            v = v * ex[c];
            o[c] = v + mn[c];
        }
    } else {
        float inv = 1.0f / (float)((1u << sub->width) - 1u);
        for (unsigned c = 0; c < 3; c++) {
            float v = (float)acl_enc_quant(e, g, t, kind, s, sub, c) * inv;
            if (e->nseg > 1) {
                v = v * ((float)sub->sext[c] * (1.0f / 255.0f));
                v = v + (float)sub->smin[c] * (1.0f / 255.0f);
            }
            v = v * ex[c];
            o[c] = v + mn[c];
        }
    }
    if (kind == K_ROT) {
        o[3] = rebuild_w(o[0], o[1], o[2]);
        quat_normalise(o);
    } else {
        o[3] = 0.0f;
    }
}

/* ---- affine transforms and the error metric ---------------------------------------------- */

/* A transform as ACL's qvvf metric composes them: rotation, translation, scale (the
 * object-space scale is the product of the local ones, as rtm::qvv_mul makes it). */
typedef struct aff {
    double q[4], t[3], s[3];
} aff;

static aff aff_from(const float q[4], const float tr[3], const float sc[3])
{
    aff a;
    for (unsigned i = 0; i < 4; i++) a.q[i] = q[i];
    for (unsigned i = 0; i < 3; i++) {
        a.t[i] = tr[i];
        a.s[i] = sc[i];
    }
    return a;
}

/* v rotated by unit quaternion q */
static void rotate(const double q[4], const double v[3], double o[3])
{
    double c1[3] = { q[1] * v[2] - q[2] * v[1] + q[3] * v[0], q[2] * v[0] - q[0] * v[2] + q[3] * v[1],
                     q[0] * v[1] - q[1] * v[0] + q[3] * v[2] };
    o[0] = v[0] + 2.0 * (q[1] * c1[2] - q[2] * c1[1]);
    o[1] = v[1] + 2.0 * (q[2] * c1[0] - q[0] * c1[2]);
    o[2] = v[2] + 2.0 * (q[0] * c1[1] - q[1] * c1[0]);
}

/* parent then child: the child's transform carried into the parent's space */
static aff aff_mul(const aff *p, const aff *c)
{
    aff o;
    const double *a = c->q, *b = p->q; /* the child's rotation first, then the parent's */
    o.q[0] = b[3] * a[0] + b[0] * a[3] + b[1] * a[2] - b[2] * a[1];
    o.q[1] = b[3] * a[1] - b[0] * a[2] + b[1] * a[3] + b[2] * a[0];
    o.q[2] = b[3] * a[2] + b[0] * a[1] - b[1] * a[0] + b[2] * a[3];
    o.q[3] = b[3] * a[3] - b[0] * a[0] - b[1] * a[1] - b[2] * a[2];
    double ts[3] = { c->t[0] * p->s[0], c->t[1] * p->s[1], c->t[2] * p->s[2] };
    rotate(p->q, ts, o.t);
    for (unsigned i = 0; i < 3; i++) {
        o.t[i] += p->t[i];
        o.s[i] = c->s[i] * p->s[i];
    }
    return o;
}

/* The shell points of transform a: column k of its rotation matrix times shell * s[k],
 * plus its translation. */
static void shell_images(const aff *a, double shell, double p[3][3])
{
    double x = a->q[0], y = a->q[1], z = a->q[2], w = a->q[3];
    double c[3][3] = {
        { 1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w) },
        { 2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w) },
        { 2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y) },
    };
    for (unsigned k = 0; k < 3; k++) {
        double f = shell * a->s[k];
        for (unsigned i = 0; i < 3; i++) p[k][i] = c[k][i] * f + a->t[i];
    }
}

/* Largest distance between the images of the three shell points through a and the
 * points pb (shell_images of the other transform). */
static double pts_error(const aff *a, const double pb[3][3], double shell)
{
    double pa[3][3], worst = 0;
    shell_images(a, shell, pa);
    for (unsigned k = 0; k < 3; k++) {
        double dx = pa[k][0] - pb[k][0], dy = pa[k][1] - pb[k][1], dz = pa[k][2] - pb[k][2];
        double d2 = dx * dx + dy * dy + dz * dz;
        if (d2 > worst) worst = d2;
    }
    return sqrt(worst);
}

static aff raw_local(const acl_enc *e, uint32_t s, uint32_t t)
{
    const float *x = enc_raw(e, s, t);
    return aff_from(x, x + 4, x + 7);
}

/* Bone t's local transform at sample s as decoded with sub-tracks subs[0..2]. */
static aff lossy_local(const acl_enc *e, uint32_t g, uint32_t t, uint32_t s, const acl_sub *subs)
{
    float v[3][4];
    for (unsigned k = 0; k < 3; k++) acl_enc_value(e, g, t, k, s, &subs[k], v[k]);
    return aff_from(v[0], v[1], v[2]);
}

/* ---- the search -------------------------------------------------------------------------- */

typedef struct seg_work {
    const acl_enc *e;
    uint32_t g, s0, n;
    aff *raw_obj, *loc, *obj; /* n * nt, sample-major */
    double (*raw_pts)[3][3];  /* n * nt: the shell points of raw_obj */
    double (*lpts)[3][3];     /* n: local_points */
    aff *suf;                 /* nt * n: chain_suffixes */
    uint32_t *path;           /* nt */
    uint8_t lo, hi;           /* narrowest and widest quantised width */
    /* The object pass's moves (acl_enc_level_steps: 1 at medium, 2 high, 3 highest): for
     * chain position d and c = 1..steps, the best way to raise bone path[d]'s widths by c
     * steps alone (bone_moves). */
    unsigned steps;
    uint8_t *mw;     /* nt * 3 * 3: the move's widths */
    double *merr;    /* nt * 3: bone t's error with that move alone (INFINITY: none) */
    unsigned *mcost; /* nt * 3: its bits per sample */
    aff *mloc;       /* nt * 3 * n (steps > 1): the bone's locals with the move, to combine */
    uint8_t *cnt;    /* nt: the steps a combination gives each chain position */
    /* The search computes obj[t] = obj[parent] * loc[t] (update_object) when it reads it
     * (ensure_object): stale[t] is 0 only while obj[t] is what update_object gives with the
     * present locals (a move or a refused narrowing marks the bones it changed and those
     * below them); down: nt scratch, the bones below the ones a move changed; chain: nt
     * scratch. */
    uint8_t *stale, *down;
    uint32_t *chain;
    aff *kloc; /* n: a bone's locals kept while narrow_pass tries a narrower width */
} seg_work;

static uint8_t next_width(const seg_work *w, uint8_t width)
{
    if (width == ACL_ENC_RAW) return ACL_ENC_RAW;
    if (width == 0) return w->lo;
    if (width >= w->hi) return ACL_ENC_RAW;
    return (uint8_t)(width + 1u);
}

static uint8_t prev_width(const seg_work *w, uint8_t width)
{
    if (width == ACL_ENC_RAW) return w->hi;
    if (width == 0) return 0;
    if (width <= w->lo) return w->e->nseg > 1 ? 0 : width;
    return (uint8_t)(width - 1u);
}

static unsigned width_cost(uint8_t from, uint8_t to) { return 3u * (enc_bits(to) - enc_bits(from)); }

/* Bone t's local error at its rigid shell with sub-tracks subs (others as they are);
 * stops early once above `stop`. Needs local_points. */
static double local_err(const seg_work *w, uint32_t t, const acl_sub *subs, double stop)
{
    const acl_enc *e = w->e;
    double worst = 0;
    for (uint32_t i = 0; i < w->n && worst <= stop; i++) {
        double d;
        if (e->flat) {
            float v[3][4], y[10];
            for (unsigned k = 0; k < 3; k++) acl_enc_value(e, w->g, t, k, w->s0 + i, &subs[k], v[k]);
            memcpy(y, v[0], 4 * sizeof(float));
            memcpy(y + 4, v[1], 3 * sizeof(float));
            memcpy(y + 7, v[2], 3 * sizeof(float));
            d = acl_enc_flat_bound(e, t, enc_raw(e, w->s0 + i, t), y);
        } else {
            aff l = lossy_local(e, w->g, t, w->s0 + i, subs);
            d = pts_error(&l, (const double(*)[3])w->lpts[i], e->rigid[t]) * e->pscale[t];
        }
        if (d > worst) worst = d;
    }
    return worst;
}

/* The shell points of bone t's raw locals at its rigid shell, for local_err. */
static void local_points(seg_work *w, uint32_t t)
{
    const acl_enc *e = w->e;
    for (uint32_t i = 0; i < w->n && !e->flat; i++) {
        aff r = raw_local(e, w->s0 + i, t);
        shell_images(&r, e->rigid[t], w->lpts[i]);
    }
}

/* First pass, bone by bone in its own space: the narrowest width of each sub-track with
 * the others exact, then one step at a time on the sub-track that helps most until the
 * three together fit. */
static void local_pass(seg_work *w, uint32_t t, double prec)
{
    const acl_enc *e = w->e;
    acl_sub *cur = enc_sub(e, w->g, t, 0);
    uint8_t first = e->nseg > 1 ? 0 : w->lo;
    if (e->exact[t]) { /* the metric cannot decide it: raw */
        for (unsigned k = 0; k < 3; k++)
            if (e->type[3u * t + k] == T_ANIM) cur[k].width = ACL_ENC_RAW;
        return;
    }
    local_points(w, t);
    for (unsigned k = 0; k < 3; k++) {
        if (e->type[3u * t + k] != T_ANIM) continue;
        if (!enc_variable(&e->p, k)) { /* a full format: raw floats, nothing to choose */
            cur[k].width = ACL_ENC_RAW;
            continue;
        }
        acl_sub trial[3];
        for (unsigned j = 0; j < 3; j++) {
            trial[j] = cur[j];
            trial[j].width = ACL_ENC_RAW;
        }
        /* the ladder first, 1..hi, raw: the error falls as the width grows, so a binary
         * search finds the narrowest that fits (0, constant in the segment, is tried
         * first on its own) */
        trial[k].width = 0;
        if (first == 0 && local_err(w, t, trial, prec) <= prec) {
            cur[k].width = 0;
            continue;
        }
        uint8_t lo = w->lo, hi = w->hi;
        trial[k].width = hi;
        if (local_err(w, t, trial, prec) > prec) {
            cur[k].width = ACL_ENC_RAW;
            continue;
        }
        while (lo < hi) {
            uint8_t mid = (uint8_t)((lo + hi) / 2u);
            trial[k].width = mid;
            if (local_err(w, t, trial, prec) <= prec) hi = mid;
            else lo = (uint8_t)(mid + 1u);
        }
        cur[k].width = hi;
    }
    for (;;) {
        double now = local_err(w, t, cur, INFINITY);
        if (now <= prec) break;
        int best = -1;
        double best_err = now;
        for (unsigned k = 0; k < 3; k++) {
            if (e->type[3u * t + k] != T_ANIM || cur[k].width == ACL_ENC_RAW) continue;
            uint8_t keep = cur[k].width;
            cur[k].width = next_width(w, keep);
            double d = local_err(w, t, cur, best < 0 ? INFINITY : best_err);
            cur[k].width = keep;
            if (best < 0 || d < best_err) {
                best = (int)k;
                best_err = d;
            }
        }
        if (best < 0) break;
        cur[best].width = next_width(w, cur[best].width);
    }
}

static void update_local(seg_work *w, uint32_t t)
{
    const acl_sub *subs = enc_sub(w->e, w->g, t, 0);
    for (uint32_t i = 0; i < w->n; i++) w->loc[(size_t)i * w->e->nt + t] = lossy_local(w->e, w->g, t, w->s0 + i, subs);
}

static void update_object(seg_work *w, uint32_t t)
{
    uint32_t nt = w->e->nt;
    int32_t p = w->e->parent[t];
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * nt;
        w->obj[at + t] = p < 0 ? w->loc[at + t] : aff_mul(&w->obj[at + (uint32_t)p], &w->loc[at + t]);
    }
}

/* Makes obj[u] what update_object gives with the present locals: its stale ancestors
 * first, top down (an ancestor that is not stale holds that already, bit for bit). */
static void ensure_object(seg_work *w, uint32_t u)
{
    uint32_t n = 0;
    for (int32_t a = (int32_t)u; a >= 0 && w->stale[a]; a = w->e->parent[a]) w->chain[n++] = (uint32_t)a;
    while (n-- > 0) {
        update_object(w, w->chain[n]);
        w->stale[w->chain[n]] = 0;
    }
}

static double object_err(const seg_work *w, uint32_t t)
{
    double worst = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * w->e->nt + t;
        double d = pts_error(&w->obj[at], (const double(*)[3])w->raw_pts[at], w->e->p.shell);
        if (d > worst) worst = d;
    }
    return worst;
}

/* update_object and object_err <= target together: stops at the first sample off (the
 * caller then updates the bone again). */
static int object_within(seg_work *w, uint32_t t)
{
    uint32_t nt = w->e->nt;
    int32_t p = w->e->parent[t];
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * nt;
        w->obj[at + t] = p < 0 ? w->loc[at + t] : aff_mul(&w->obj[at + (uint32_t)p], &w->loc[at + t]);
        if (pts_error(&w->obj[at + t], (const double(*)[3])w->raw_pts[at + t], w->e->p.shell) > w->e->target) return 0;
    }
    return 1;
}

/* The locals of the chain below path[d] composed, for every sample: suf[d] =
 * path[d-1] .. path[0] (= t). */
static void chain_suffixes(seg_work *w, uint32_t depth)
{
    uint32_t nt = w->e->nt;
    for (uint32_t d = 1; d < depth; d++)
        for (uint32_t i = 0; i < w->n; i++) {
            const aff *l = &w->loc[(size_t)i * nt + w->path[d - 1u]];
            w->suf[(size_t)d * w->n + i] = d == 1 ? *l : aff_mul(l, &w->suf[(size_t)(d - 1u) * w->n + i]);
        }
}

/* Bone t's object error if ancestor path[depth] took sub-tracks `subs`. Without scale
 * the chain below is one transform (chain_suffixes: the composition is associative
 * then); with scales (rtm's qvv product is not associative when they differ per axis)
 * the chain is composed bone by bone, as object_err measures it. */
static double chain_err(seg_work *w, uint32_t t, uint32_t depth, const acl_sub *subs, double stop)
{
    const acl_enc *e = w->e;
    uint32_t nt = e->nt, c = w->path[depth];
    int32_t p = e->parent[c];
    double worst = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * nt;
        aff l = lossy_local(e, w->g, c, w->s0 + i, subs);
        aff o = p < 0 ? l : aff_mul(&w->obj[at + (uint32_t)p], &l);
        if (depth > 0 && !e->has_scale) o = aff_mul(&o, &w->suf[(size_t)depth * w->n + i]);
        else
            for (uint32_t d = depth; d-- > 0;) o = aff_mul(&o, &w->loc[at + w->path[d]]);
        double err = pts_error(&o, (const double(*)[3])w->raw_pts[at + t], e->p.shell);
        if (err > worst) worst = err;
        if (worst > stop) break; /* it cannot win: the rest of the samples would not help */
    }
    return worst;
}

/* The best way to raise bone path[d]'s widths by c steps in all (c = 1..steps, spread over
 * its animated sub-tracks), judged by bone t's object error with only that bone changed
 * (the cheaper one on a tie): into mw, merr, mcost and, to combine moves of several bones,
 * mloc. */
static void bone_moves(seg_work *w, uint32_t t, uint32_t d)
{
    const acl_enc *e = w->e;
    uint32_t b = w->path[d];
    const acl_sub *cur = enc_sub(e, w->g, b, 0);
    unsigned S = w->steps, lim[3];
    for (unsigned c = 0; c < 3; c++) {
        w->merr[(size_t)d * 3u + c] = INFINITY;
        w->mcost[(size_t)d * 3u + c] = 0;
    }
    for (unsigned k = 0; k < 3; k++)
        lim[k] = e->type[3u * b + k] == T_ANIM && enc_variable(&e->p, k) && cur[k].width != ACL_ENC_RAW ? S : 0;
    for (unsigned a = 0; a <= lim[0]; a++)
        for (unsigned b2 = 0; b2 <= lim[1] && a + b2 <= S; b2++)
            for (unsigned c3 = 0; c3 <= lim[2] && a + b2 + c3 <= S; c3++) {
                unsigned inc[3] = { a, b2, c3 }, c = a + b2 + c3, cost = 0;
                if (c == 0) continue;
                acl_sub trial[3] = { cur[0], cur[1], cur[2] };
                int ok = 1;
                for (unsigned k = 0; k < 3; k++) {
                    for (unsigned j = 0; j < inc[k]; j++) {
                        if (trial[k].width == ACL_ENC_RAW) ok = 0; /* the same as fewer steps */
                        trial[k].width = next_width(w, trial[k].width);
                    }
                    cost += width_cost(cur[k].width, trial[k].width);
                }
                if (!ok) continue;
                size_t m = (size_t)d * 3u + c - 1u;
                double err = chain_err(w, t, d, trial, w->merr[m]);
                if (err < w->merr[m] || (err == w->merr[m] && cost < w->mcost[m])) {
                    w->merr[m] = err;
                    w->mcost[m] = cost;
                    for (unsigned k = 0; k < 3; k++) w->mw[m * 3u + k] = trial[k].width;
                }
            }
    for (unsigned c = 0; S > 1 && c < S; c++) {
        size_t m = (size_t)d * 3u + c;
        if (!(w->merr[m] < INFINITY)) continue;
        acl_sub trial[3] = { cur[0], cur[1], cur[2] };
        for (unsigned k = 0; k < 3; k++) trial[k].width = w->mw[m * 3u + k];
        for (uint32_t i = 0; i < w->n; i++) w->mloc[m * w->n + i] = lossy_local(e, w->g, b, w->s0 + i, trial);
    }
}

/* Bone t's object error with the moves cnt[d] (0: none) of bone_moves on the chain's
 * bones together; stops early once above `stop`. */
static double combo_err(seg_work *w, uint32_t t, uint32_t depth, double stop)
{
    const acl_enc *e = w->e;
    uint32_t top = 0, low = depth;
    for (uint32_t d = 0; d < depth; d++)
        if (w->cnt[d]) {
            top = d;
            if (low == depth) low = d;
        }
    if (low == depth) return INFINITY;                   /* no move */
    uint32_t until = !e->has_scale && low > 0 ? low : 0; /* below it: chain_suffixes */
    int32_t p = e->parent[w->path[top]];
    double worst = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * e->nt;
        const aff *l = &w->mloc[((size_t)top * 3u + w->cnt[top] - 1u) * w->n + i];
        aff o = p < 0 ? *l : aff_mul(&w->obj[at + (uint32_t)p], l);
        for (uint32_t d = top; d-- > until;) {
            l = w->cnt[d] ? &w->mloc[((size_t)d * 3u + w->cnt[d] - 1u) * w->n + i] : &w->loc[at + w->path[d]];
            o = aff_mul(&o, l);
        }
        if (until > 0) o = aff_mul(&o, &w->suf[(size_t)until * w->n + i]);
        double err = pts_error(&o, (const double(*)[3])w->raw_pts[at + t], e->p.shell);
        if (err > worst) worst = err;
        if (worst > stop) break;
    }
    return worst;
}

/* A candidate of the object pass: its error, its bits and what it does (cnt per chain
 * position). */
typedef struct move_pick {
    double err;
    unsigned cost;
    uint32_t d[3];
    uint8_t c[3];
} move_pick;

static void pick_consider(move_pick *best, move_pick *fit, double prec, double err, unsigned cost, const uint32_t *d,
                          const uint8_t *c)
{
    move_pick m = { err, cost, { d[0], d[1], d[2] }, { c[0], c[1], c[2] } };
    if (best->c[0] == 0 || err < best->err || (err == best->err && cost < best->cost)) *best = m;
    if (err <= prec && (fit->c[0] == 0 || cost < fit->cost || (cost == fit->cost && err < fit->err))) *fit = m;
}

/* Bone t's error with the moves cc[j] on chain positions dd[j] (j < n) together, weighed. */
static void try_combo(seg_work *w, uint32_t t, uint32_t depth, double prec, unsigned n, const uint32_t *dd,
                      const uint8_t *cc, move_pick *best, move_pick *fit)
{
    unsigned cost = 0;
    for (unsigned j = 0; j < n; j++) {
        size_t m = (size_t)dd[j] * 3u + cc[j] - 1u;
        if (!(w->merr[m] < INFINITY)) return;
        cost += w->mcost[m];
    }
    for (unsigned j = 0; j < n; j++) w->cnt[dd[j]] = cc[j];
    double err = combo_err(w, t, depth, best->err > prec ? best->err : prec);
    for (unsigned j = 0; j < n; j++) w->cnt[dd[j]] = 0;
    uint32_t d3[3] = { dd[0], dd[1], n > 2 ? dd[2] : 0 };
    uint8_t c3[3] = { cc[0], cc[1], n > 2 ? cc[2] : 0 };
    pick_consider(best, fit, prec, err, cost, d3, c3);
}

/* Moves of s steps in all spread over several bones of the chain (one bone taking all s
 * is bone_moves' own): 1 + 1 on every pair; 2 + 1 on every ordered pair and 1 + 1 + 1 on
 * every three bones, among the bone and its nearest ancestors (COMBO_BONES in all: the
 * combinations grow as the cube of the chain, and a chain longer than that is medium's
 * under ACL's automatic choice). */
#define COMBO_BONES 24u
static void combos(seg_work *w, uint32_t t, uint32_t depth, unsigned s, double prec, move_pick *best, move_pick *fit)
{
    uint32_t near = depth < COMBO_BONES ? depth : COMBO_BONES;
    for (uint32_t a = 0; a < near; a++)
        for (uint32_t b = 0; b < near; b++) {
            if (a == b) continue;
            if (s == 2) {
                if (b > a) continue;
                uint32_t dd[2] = { a, b };
                uint8_t cc[2] = { 1, 1 };
                try_combo(w, t, depth, prec, 2, dd, cc, best, fit);
                continue;
            }
            uint32_t dd[3] = { a, b, 0 };
            uint8_t cc[3] = { 2, 1, 1 };
            try_combo(w, t, depth, prec, 2, dd, cc, best, fit);
            if (b > a) continue;
            cc[0] = 1;
            for (dd[2] = 0; dd[2] < b; dd[2]++) try_combo(w, t, depth, prec, 3, dd, cc, best, fit);
        }
}

/* At most this many object passes per segment: the shared clips need up to 5 at highest. */
#define OBJECT_PASSES 16u

/* Second pass, in object space, parents first: while a bone is off by more than the
 * precision, raise the widths of the bone or of its ancestors. A move is one step on one
 * sub-track (medium), or up to two or three steps spread over the chain's bones and their
 * sub-tracks (high, highest: as ACL's permutations). The fewest steps that bring the bone
 * within the precision win (the cheapest in bits, then the lowest error); when none does,
 * the move that leaves its error lowest. Returns 1 when a width changed. */
static int object_pass(seg_work *w)
{
    const acl_enc *e = w->e;
    double prec = e->target;
    int changed = 0;
    for (uint32_t t = 0; t < e->nt; t++) {
        ensure_object(w, t);
        if (e->exact[t]) continue; /* raw with its ancestors: nothing to raise */
        double now = object_err(w, t);
        while (now > prec) {
            uint32_t depth = 0;
            for (int32_t c = (int32_t)t; c >= 0; c = e->parent[c]) w->path[depth++] = (uint32_t)c;
            if (!e->has_scale) chain_suffixes(w, depth);
            for (uint32_t d = 0; d < depth; d++) bone_moves(w, t, d);
            move_pick best = { INFINITY, 0, { 0, 0, 0 }, { 0, 0, 0 } }, fit = best;
            for (unsigned s = 1; s <= w->steps && fit.c[0] == 0; s++) {
                for (uint32_t d = 0; d < depth; d++) {
                    size_t m = (size_t)d * 3u + s - 1u;
                    uint32_t dd[3] = { d, 0, 0 };
                    uint8_t cc[3] = { (uint8_t)s, 0, 0 };
                    if (w->merr[m] < INFINITY) pick_consider(&best, &fit, prec, w->merr[m], w->mcost[m], dd, cc);
                }
                if (s > 1 && fit.c[0] == 0) combos(w, t, depth, s, prec, &best, &fit);
            }
            const move_pick *go = fit.c[0] ? &fit : &best;
            if (go->c[0] == 0) break;
            uint32_t first = t;
            for (unsigned j = 0; j < 3 && go->c[j]; j++) {
                uint32_t d = go->d[j], c = w->path[d];
                size_t m = (size_t)d * 3u + go->c[j] - 1u;
                acl_sub *sub = enc_sub(e, w->g, c, 0);
                for (unsigned k = 0; k < 3; k++) sub[k].width = w->mw[m * 3u + k];
                update_local(w, c);
                w->down[c] = 1;
                if (c < first) first = c;
            }
            /* only the changed bones and those below them move: stale until read */
            for (uint32_t u = first; u < e->nt; u++) {
                int32_t p = e->parent[u];
                if (!w->down[u] && p >= (int32_t)first && w->down[p]) w->down[u] = 1;
                if (w->down[u]) w->stale[u] = 1;
            }
            memset(w->down + first, 0, e->nt - first);
            ensure_object(w, t);
            changed = 1;
            now = object_err(w, t);
        }
    }
    return changed;
}

/* Last, parents first: each animated sub-track narrows by one step while the bone and
 * every bone below it stay within the target. The raising overshoots (a step taken for a
 * child may make an ancestor's earlier step unneeded, and the steps are greedy); a parent
 * goes first, while its descendants still hold their wider widths. mark: nt scratch. A
 * bone's obj is made again when read after a refused step (stale, ensure_object). */
static void narrow_pass(seg_work *w, uint8_t *mark)
{
    const acl_enc *e = w->e;
    uint32_t nt = e->nt;
    for (uint32_t t = 0; t < nt; t++) {
        acl_sub *cur = enc_sub(e, w->g, t, 0);
        for (unsigned k = 0; k < 3 && !e->exact[t]; k++) {
            if (e->type[3u * t + k] != T_ANIM || !enc_variable(&e->p, k)) continue;
            uint8_t keep = cur[k].width, lower = prev_width(w, keep);
            if (lower == keep) continue;
            if (e->parent[t] >= 0) ensure_object(w, (uint32_t)e->parent[t]); /* object_within reads it */
            for (uint32_t i = 0; i < w->n; i++) w->kloc[i] = w->loc[(size_t)i * nt + t];
            cur[k].width = lower;
            update_local(w, t);
            int ok = 1;
            uint32_t u = t;
            for (; u < nt; u++) {
                mark[u] = u == t || (e->parent[u] >= (int32_t)t && mark[e->parent[u]]); /* below t */
                if (mark[u] && !object_within(w, u)) {
                    ok = 0;
                    break;
                }
            }
            if (ok) { /* every bone below t made with the new locals */
                for (uint32_t v = t; v < nt; v++)
                    if (mark[v]) w->stale[v] = 0;
                continue;
            }
            cur[k].width = keep;
            for (uint32_t i = 0; i < w->n; i++) w->loc[(size_t)i * nt + t] = w->kloc[i]; /* update_local's */
            for (uint32_t v = t; v <= u; v++) /* made with the narrower one: again when read */
                if (mark[v]) w->stale[v] = 1;
        }
    }
}

static void raw_objects(seg_work *w)
{
    const acl_enc *e = w->e;
    for (uint32_t i = 0; i < w->n; i++) {
        size_t at = (size_t)i * e->nt;
        for (uint32_t t = 0; t < e->nt; t++) {
            aff l = raw_local(e, w->s0 + i, t);
            int32_t p = e->parent[t];
            w->raw_obj[at + t] = p < 0 ? l : aff_mul(&w->raw_obj[at + (uint32_t)p], &l);
            shell_images(&w->raw_obj[at + t], e->p.shell, w->raw_pts[at + t]);
        }
    }
}

/* ---- unknown hierarchy ------------------------------------------------------------------ */

static int desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

double acl_enc_depth_products(double *sc, uint32_t n, double shell, double *tl)
{
    qsort(sc, n, sizeof(double), desc);
    double p = 1.0;
    for (uint32_t k = 0; k < n; k++) { /* depth k: the product of the k largest scales */
        double v = sc[k];
        sc[k] = p;
        p = p * v > 1e30 ? 1e30 : p * v;
    }
    qsort(sc, n, sizeof(double), desc);
    double lever = shell * sc[0];
    if (tl) {
        qsort(tl, n, sizeof(double), desc);
        for (uint32_t k = 0; k < n; k++) lever += sc[k] * tl[k];
    }
    return lever;
}

void acl_enc_flat_terms(const float *x, const float *y, double *r, double *d, double *sm)
{
    /* the chord 2 sin(a/2) of the rotation between x and y, from the vector part of
     * conj(x) y (the difference of dot products near 1 would lose it to rounding) */
    double nx = 0, ny = 0;
    for (unsigned c = 0; c < 4; c++) {
        nx += (double)x[c] * x[c];
        ny += (double)y[c] * y[c];
    }
    nx = nx > 0 ? 1.0 / sqrt(nx) : 0.0;
    ny = ny > 0 ? 1.0 / sqrt(ny) : 0.0;
    double xv[3] = { x[0] * nx, x[1] * nx, x[2] * nx }, yv[3] = { y[0] * ny, y[1] * ny, y[2] * ny };
    double xw = x[3] * nx, yw = y[3] * ny, vec2 = 0;
    double cr[3] = { xv[1] * yv[2] - xv[2] * yv[1], xv[2] * yv[0] - xv[0] * yv[2], xv[0] * yv[1] - xv[1] * yv[0] };
    for (unsigned c = 0; c < 3; c++) {
        double v = xw * yv[c] - yw * xv[c] - cr[c];
        vec2 += v * v;
    }
    double chord = 2.0 * sqrt(vec2 < 1.0 ? vec2 : 1.0), dt = 0, smax = 0, ds = 0;
    for (unsigned c = 0; c < 3; c++) {
        double dd = (double)x[4 + c] - y[4 + c];
        dt += dd * dd;
        double a = fabs(x[7 + c]), b = fabs(y[7 + c]);
        if (a > smax) smax = a;
        if (b > smax) smax = b;
        if (fabs((double)x[7 + c] - y[7 + c]) > ds) ds = fabs((double)x[7 + c] - y[7 + c]);
    }
    *r = chord * smax + ds;
    *d = sqrt(dt);
    *sm = smax;
}

double acl_enc_flat_bound(const acl_enc *e, uint32_t t, const float *x, const float *y)
{
    /* In any chain, ACL's object shell point is the sum over the chain's bones b of their
     * translation rotated and scaled by everything above b, plus the shell point carried
     * by the whole chain (rtm's qvv product). Changing bone t's local transform moves it
     * by at most: its translation change, plus its rotation change (the chord 2 sin(a/2))
     * times its scale and its scale change, both applied to what is below it (at most
     * the shell plus every other bone's largest translation), everything times the
     * largest scales the other bones can apply. Summed over the chain's bones, this
     * bounds the error whatever the order. */
    double r, d, sm;
    acl_enc_flat_terms(x, y, &r, &d, &sm);
    if (e->geo) return d + r * e->lever_geo;
    return e->gscale * (d + r * e->reach[t]);
}

/* Per sample and bone, what bone t's decoded local adds in any chain (acl_enc_flat_bound
 * split): r, its rotation and scale change per unit of what hangs below it; d, its
 * translation change; tl, its own raw translation length (what it adds below others); sm,
 * its largest scale (raw or decoded) or 1 (what it multiplies the others' changes by). */
typedef struct flat_work {
    double *r, *d, *tl, *sm; /* n * nt, sample-major */
    double *rr, *dd;         /* nt: r and d times the other bones' scales, at one sample */
    double *tt, *pp;         /* nt: the geometric bound's terms and scale products */
    uint32_t *order;         /* n * nt: the worst chain at each sample, top first */
} flat_work;

static double *flat_alloc(const seg_work *w, flat_work *f, size_t *size)
{
    size_t per = (size_t)w->n * w->e->nt, nt = w->e->nt;
    *size = (4u * per + 4u * nt) * sizeof(double) + per * sizeof(uint32_t);
    ganim_allocator A = w->e->A;
    double *blk = ganim_alloc(&A, *size);
    if (!blk) return NULL;
    f->r = blk;
    f->d = blk + per;
    f->tl = blk + 2u * per;
    f->sm = blk + 3u * per;
    f->rr = blk + 4u * per;
    f->dd = f->rr + nt;
    f->tt = f->dd + nt;
    f->pp = f->tt + nt;
    f->order = (uint32_t *)(f->pp + nt);
    for (size_t i = 0; i < per; i++) f->order[i] = (uint32_t)(i % nt);
    return blk;
}

static void flat_terms(const seg_work *w, flat_work *f, uint32_t t, const acl_sub *subs)
{
    const acl_enc *e = w->e;
    for (uint32_t i = 0; i < w->n; i++) {
        const float *x = enc_raw(e, w->s0 + i, t);
        float v[3][4];
        for (unsigned k = 0; k < 3; k++) acl_enc_value(e, w->g, t, k, w->s0 + i, &subs[k], v[k]);
        float y[10];
        memcpy(y, v[0], 4 * sizeof(float));
        memcpy(y + 4, v[1], 3 * sizeof(float));
        memcpy(y + 7, v[2], 3 * sizeof(float));
        size_t at = (size_t)i * e->nt + t;
        acl_enc_flat_terms(x, y, &f->r[at], &f->d[at], &f->sm[at]);
        double tl = (double)x[4] * x[4] + (double)x[5] * x[5] + (double)x[6] * x[6];
        f->tl[at] = sqrt(tl);
    }
}

/* A second bound at sample i, for scales below 1 (they shrink what hangs below them): a
 * bone at depth k is scaled by its k ancestors, at most the product of the k largest scales
 * of all the bones (acl_enc_depth_products); its own change is at most d + r times that
 * lever. The largest sum pairs the largest terms with the largest products. */
static double flat_shrinking(const seg_work *w, flat_work *f, uint32_t i)
{
    uint32_t nt = w->e->nt;
    const double *sm = f->sm + (size_t)i * nt;
    memcpy(f->pp, sm, nt * sizeof(double));
    memcpy(f->tt, f->tl + (size_t)i * nt, nt * sizeof(double));
    double lever = acl_enc_depth_products(f->pp, nt, w->e->p.shell, f->tt);
    for (uint32_t a = 0; a < nt; a++) f->tt[a] = f->d[(size_t)i * nt + a] + f->r[(size_t)i * nt + a] * lever;
    qsort(f->tt, nt, sizeof(double), desc);
    double sum = 0;
    for (uint32_t k = 0; k < nt; k++) sum += f->tt[k] * f->pp[k];
    return sum;
}

/* The bound at sample i for the worst chain of all the bones: each bone's translation
 * change and its rotation/scale change at the shell, plus r_a * t_b for every a above b.
 * The order that makes the sum largest puts a above b when r_a t_b >= r_b t_a (swapping
 * two neighbours changes nothing else), so the bones are kept sorted that way. */
static double flat_sample(const seg_work *w, flat_work *f, uint32_t i)
{
    const acl_enc *e = w->e;
    uint32_t nt = e->nt, *o = f->order + (size_t)i * nt;
    const double *tl = f->tl + (size_t)i * nt, *sm = f->sm + (size_t)i * nt;
    double *r = f->rr, *d = f->dd, g = 1.0, least = INFINITY;
    for (uint32_t a = 0; a < nt; a++) {
        double m = sm[a] > 1.0 ? sm[a] : 1.0;
        g = g * m > 1e30 ? 1e30 : g * m;
        if (sm[a] < least) least = sm[a];
    }
    for (uint32_t a = 0; a < nt; a++) { /* the scales of every other bone */
        double m = sm[a] > 1.0 ? sm[a] : 1.0;
        r[a] = f->r[(size_t)i * nt + a] * (g / m);
        d[a] = f->d[(size_t)i * nt + a] * (g / m);
    }
    for (uint32_t j = 1; j < nt; j++) { /* insertion sort: nearly sorted from the last call */
        uint32_t v = o[j], k = j;
        for (; k > 0 && r[v] * tl[o[k - 1u]] > r[o[k - 1u]] * tl[v]; k--) o[k] = o[k - 1u];
        o[k] = v;
    }
    double sum = 0, below = 0;
    for (uint32_t j = nt; j-- > 0;) {
        uint32_t a = o[j];
        sum += d[a] + r[a] * (e->p.shell + below);
        below += tl[a];
    }
    return least < 0.999 ? fmin(sum, flat_shrinking(w, f, i)) : sum;
}

static double flat_total(const seg_work *w, flat_work *f)
{
    double worst = 0;
    for (uint32_t i = 0; i < w->n; i++) {
        double v = flat_sample(w, f, i);
        if (v > worst) worst = v;
    }
    return worst;
}

static int has_anim(const acl_enc *e, uint32_t t)
{
    return e->type[3u * t] == T_ANIM || e->type[3u * t + 1u] == T_ANIM || e->type[3u * t + 2u] == T_ANIM;
}

/* Unknown hierarchy, one segment. Every bone first gets an equal share of the target (the
 * sum of acl_enc_flat_bound over all the bones bounds any chain, less under scales below 1:
 * flat_reach); then, round after round,
 * every sub-track in turn narrows by one step while the exact worst chain of all the bones
 * stays within the target. */
static ganim_code flat_search(seg_work *w, ganim_error *err)
{
    const acl_enc *e = w->e;
    uint32_t nt = e->nt;
    double share = e->share;
    for (uint32_t t = 0; t < nt; t++)
        if (has_anim(e, t)) local_pass(w, t, share);
    flat_work f;
    size_t size;
    double *blk = flat_alloc(w, &f, &size);
    if (!blk) return GANIM_NOMEM(err);
    ganim_allocator A = e->A;
    for (uint32_t t = 0; t < nt; t++) flat_terms(w, &f, t, enc_sub(e, w->g, t, 0));
    /* each round costs about 3 n nt^2 steps: at most 32 rounds, none on skeletons so large
     * that one would take seconds (the equal shares are already within the target) */
    int changed = (double)nt * (double)nt * (double)w->n <= ACL_ENC_FLAT_WORK;
    for (unsigned round = 0; changed && round < 32; round++) {
        changed = 0;
        for (uint32_t t = 0; t < nt; t++)
            for (unsigned k = 0; k < 3; k++) {
                acl_sub *cur = enc_sub(e, w->g, t, 0);
                if (e->type[3u * t + k] != T_ANIM || !enc_variable(&e->p, k)) continue;
                uint8_t keep = cur[k].width, lower = prev_width(w, keep);
                if (lower == keep) continue;
                cur[k].width = lower;
                flat_terms(w, &f, t, cur);
                if (flat_total(w, &f) <= e->target) {
                    changed = 1;
                    continue;
                }
                cur[k].width = keep;
                flat_terms(w, &f, t, cur);
            }
    }
    ganim_free(&A, blk, size);
    return GANIM_OK;
}

/* Unknown hierarchy: the worst chain's bound over the clip. */
static double flat_max_error(seg_work *w, uint32_t *track, ganim_error *err)
{
    const acl_enc *e = w->e;
    flat_work f;
    size_t size;
    double *blk = flat_alloc(w, &f, &size);
    if (!blk) {
        (void)GANIM_NOMEM(err);
        return INFINITY;
    }
    ganim_allocator A = e->A;
    double worst = 0, most = -1;
    for (uint32_t t = 0; t < e->nt; t++) {
        flat_terms(w, &f, t, enc_sub(e, w->g, t, 0));
        for (uint32_t i = 0; i < w->n; i++) {
            size_t at = (size_t)i * e->nt + t;
            double v = f.r[at] * e->reach[t] + f.d[at];
            if (v > most && track) {
                most = v;
                *track = t;
            }
        }
    }
    worst = flat_total(w, &f);
    ganim_free(&A, blk, size);
    return worst;
}

/* How many width steps one move of the object pass may spread over a chain: 1 at medium,
 * 2 at high, 3 at highest; automatic picks as ACL 2.1 does: medium for clips of more than
 * 500 frames, else highest when the longest chain of bones is shorter than 18, high when
 * shorter than 25, medium otherwise. depth: nt scratch. */
static unsigned level_steps(const acl_enc *e, uint32_t *depth)
{
    if (e->p.level == ACL_LEVEL_HIGH) return 2;
    if (e->p.level == ACL_LEVEL_HIGHEST) return 3;
    if (e->p.level != ACL_LEVEL_AUTOMATIC || e->ns + (uint32_t)e->wrap > 500u) return 1;
    uint32_t longest = 0;
    for (uint32_t t = 0; t < e->nt; t++) { /* parents come before their children */
        depth[t] = e->parent[t] < 0 ? 1u : depth[e->parent[t]] + 1u;
        if (depth[t] > longest) longest = depth[t];
    }
    return longest < 18u ? 3 : longest < 25u ? 2 : 1;
}

/* Scratch for one segment at a time; steps > 0: room for the object pass's moves of that
 * many steps. */
static ganim_code work_alloc(const acl_enc *e, seg_work *w, void **blk, size_t *size, unsigned steps, ganim_error *err)
{
    uint32_t most = 0;
    for (uint32_t g = 0; g < e->nseg; g++)
        if (e->seg_start[g + 1u] - e->seg_start[g] > most) most = e->seg_start[g + 1u] - e->seg_start[g];
    size_t per = (size_t)most * e->nt, nt = e->nt;
    /* affs, then doubles, then 4-byte words, then bytes: each part aligned */
    size_t nmloc = steps > 1 ? 3u * per : 0u, naff = 4u * per + nmloc + (steps ? most : 0u);
    size_t ndbl = 9u * (per + most) + (steps ? 3u * nt : 0u);
    *size = naff * sizeof(aff) + ndbl * sizeof(double) + nt * sizeof(uint32_t);
    if (steps) *size += nt * 3u * (sizeof(unsigned) + 3u) + 3u * nt + nt * sizeof(uint32_t);
    ganim_allocator A = e->A;
    *blk = ganim_alloc(&A, *size);
    if (!*blk) return GANIM_NOMEM(err);
    aff *a = *blk;
    double *dbl = (double *)(void *)(a + naff);
    memset(w, 0, sizeof *w);
    w->e = e;
    w->raw_obj = a;
    w->loc = a + per;
    w->obj = a + 2u * per;
    w->suf = a + 3u * per;
    w->raw_pts = (double(*)[3][3])(void *)dbl;
    w->lpts = w->raw_pts + per;
    w->path = (uint32_t *)(void *)(dbl + ndbl);
    w->lo = e->p.version < 8 ? ACL_ENC_MIN_WIDTH7 : 1u;
    w->hi = e->p.version < 8 ? ACL_ENC_MAX_WIDTH7 : ACL_ENC_MAX_WIDTH;
    w->steps = steps ? steps : 1;
    if (steps) {
        w->mloc = steps > 1 ? a + 4u * per : NULL;
        w->merr = dbl + 9u * (per + most);
        w->mcost = (unsigned *)(void *)(w->path + nt);
        w->chain = (uint32_t *)(void *)(w->mcost + nt * 3u);
        w->mw = (uint8_t *)(void *)(w->chain + nt);
        w->cnt = w->mw + nt * 9u;
        w->stale = w->cnt + nt;
        w->down = w->stale + nt;
        w->kloc = a + 4u * per + nmloc;
        memset(w->cnt, 0, nt);
        memset(w->down, 0, nt);
    }
    return GANIM_OK;
}

static void work_segment(seg_work *w, uint32_t g)
{
    w->g = g;
    w->s0 = w->e->seg_start[g];
    w->n = w->e->seg_start[g + 1u] - w->s0;
}

ganim_code acl_enc_search(acl_enc *e, ganim_error *err)
{
    e->search_known = e->search_found = 0;
    e->search_worst = 0;
    e->search_track = 0;
    seg_work w;
    void *blk;
    size_t size;
    ganim_allocator A = e->A;
    unsigned steps = 1; /* an unknown hierarchy has no object pass */
    if (e->flat) {
    } else if (e->p.level == ACL_LEVEL_AUTOMATIC && e->nt) {
        uint32_t *depth = ganim_alloc(&A, (size_t)e->nt * sizeof(uint32_t));
        if (!depth) return GANIM_NOMEM(err);
        steps = level_steps(e, depth);
        ganim_free(&A, depth, (size_t)e->nt * sizeof(uint32_t));
    } else {
        steps = level_steps(e, NULL);
    }
    ganim_code rc = work_alloc(e, &w, &blk, &size, steps, err);
    if (rc) return rc;
    for (uint32_t g = 0; g < e->nseg; g++) {
        work_segment(&w, g);
        raw_objects(&w);
        if (e->flat) {
            rc = flat_search(&w, err);
            if (rc) break;
            continue;
        }
        for (uint32_t t = 0; t < e->nt; t++) {
            local_pass(&w, t, e->target);
            update_local(&w, t);
        }
        memset(w.stale, 1, e->nt);
        /* a move for one bone may raise an ancestor that others share and push one of them
         * out again: passes until nothing changes (widths only grow: it ends) */
        for (unsigned pass = 0; pass < OBJECT_PASSES && object_pass(&w); pass++) {}
        narrow_pass(&w, w.cnt);
        /* narrow_pass marked bones in cnt; combo_err reads it by chain position, all 0 but
         * the combination tried: cleared for the next segment's object pass */
        memset(w.cnt, 0, e->nt);
        /* every obj and loc now as acl_enc_max_error would remake them (update_local and
         * update_object of the final widths, bit for bit): its measure, in its order */
        for (uint32_t t = 0; t < e->nt; t++) {
            ensure_object(&w, t);
            if (e->exact[t]) continue;
            double d = object_err(&w, t);
            if (d > e->search_worst) {
                e->search_worst = d;
                e->search_track = t;
                e->search_found = 1;
            }
        }
    }
    e->search_known = rc == GANIM_OK && !e->flat;
    ganim_free(&A, blk, size);
    return rc;
}

double acl_enc_max_error(const acl_enc *e, uint32_t *track)
{
    if (e->search_known) { /* measured by the search itself, widths unchanged since */
        if (track && e->search_found) *track = e->search_track;
        return e->search_worst;
    }
    seg_work w;
    void *blk;
    size_t size;
    if (work_alloc(e, &w, &blk, &size, 0, NULL)) return INFINITY;
    double worst = 0;
    for (uint32_t g = 0; g < e->nseg && e->flat; g++) {
        work_segment(&w, g);
        uint32_t at = 0;
        double d = flat_max_error(&w, &at, NULL);
        if (d > worst) {
            worst = d;
            if (track) *track = at;
        }
    }
    for (uint32_t g = 0; g < e->nseg && !e->flat; g++) {
        work_segment(&w, g);
        raw_objects(&w);
        for (uint32_t t = 0; t < e->nt; t++) {
            update_local(&w, t);
            update_object(&w, t);
            if (e->exact[t]) continue; /* as exact as the format holds: not measurable */
            double d = object_err(&w, t);
            if (d > worst) {
                worst = d;
                if (track) *track = t;
            }
        }
    }
    ganim_allocator A = e->A;
    ganim_free(&A, blk, size);
    return worst;
}

/* ---- trivial key-frame stripping ---------------------------------------------------------- */

/* Bone t's local at segment sample i when only samples a < i < b around it are stored: the
 * decoder's interpolation of the two (rotations by the shorter way, then normalised), as
 * rotation xyzw, translation, scale in y[10]. */
static void between_local(const seg_work *w, uint32_t t, uint32_t a, uint32_t b, uint32_t i, float y[10])
{
    const acl_enc *e = w->e;
    const acl_sub *subs = enc_sub(e, w->g, t, 0);
    float alpha = (float)(i - a) / (float)(b - a), v[3][4], u[3][4];
    for (unsigned k = 0; k < 3; k++) {
        acl_enc_value(e, w->g, t, k, w->s0 + a, &subs[k], v[k]);
        acl_enc_value(e, w->g, t, k, w->s0 + b, &subs[k], u[k]);
    }
    float dot = (v[0][0] * u[0][0] + v[0][2] * u[0][2]) + (v[0][1] * u[0][1] + v[0][3] * u[0][3]);
    for (unsigned c = 0; c < 4; c++) {
        float q = dot < 0.0f ? -u[0][c] : u[0][c];
        y[c] = (v[0][c] - v[0][c] * alpha) + q * alpha;
    }
    quat_normalise(y);
    for (unsigned k = 1; k < 3; k++)
        for (unsigned c = 0; c < 3; c++) y[4u + 3u * (k - 1u) + c] = (u[k][c] - v[k][c]) * alpha + v[k][c];
}

/* The largest object-space error of any bone at the samples strictly between stored
 * samples a and b, each rebuilt by interpolating a and b: through the hierarchy, or
 * (unknown hierarchy) the bound of the worst chain of all the bones (flat_sample).
 * Through the hierarchy it stops at a running largest error of at least `best` or above
 * the target (returning that, a lower bound): strip_segment then picks the same sample
 * (one at least as bad as the best so far never becomes it; one above the target only
 * matters when every other is too, and then nothing is removed). The unknown hierarchy's
 * bound is measured whole (flat_sample keeps each sample's order of bones from call to
 * call). */
static double span_error(seg_work *w, flat_work *f, uint32_t a, uint32_t b, double best)
{
    const acl_enc *e = w->e;
    double worst = 0;
    for (uint32_t i = a + 1u; i < b; i++) {
        size_t at = (size_t)i * e->nt;
        for (uint32_t t = 0; t < e->nt; t++) {
            float y[10];
            between_local(w, t, a, b, i, y);
            if (f) {
                const float *x = enc_raw(e, w->s0 + i, t);
                acl_enc_flat_terms(x, y, &f->r[at + t], &f->d[at + t], &f->sm[at + t]);
                f->tl[at + t] = sqrt((double)x[4] * x[4] + (double)x[5] * x[5] + (double)x[6] * x[6]);
                continue;
            }
            int32_t p = e->parent[t];
            aff l = aff_from(y, y + 4, y + 7);
            w->obj[t] = p < 0 ? l : aff_mul(&w->obj[(uint32_t)p], &l);
            double d = pts_error(&w->obj[t], (const double(*)[3])w->raw_pts[at + t], e->p.shell);
            if (d > worst) worst = d;
            /* strip_segment cannot pick this removal any more (at least the best so far),
             * or takes none unless another one is within the target */
            if (worst >= best || worst > e->target) return worst;
        }
        if (f) {
            double d = flat_sample(w, f, i);
            if (d > worst) worst = d;
        }
    }
    return worst;
}

/* ACL's order of removal in one segment: each step drops the inner stored sample whose
 * removal costs the least error; it stops before the first one above the target. */
static uint32_t strip_segment(seg_work *w, flat_work *f)
{
    uint32_t n = w->n, kept = n >= 32u ? ACL_NONE : ~(ACL_NONE >> n);
    for (uint32_t step = 2; step < n; step++) {
        double best = INFINITY;
        uint32_t pick = 0;
        for (uint32_t c = 1; c + 1u < n; c++) {
            if (!(kept & (0x80000000u >> c))) continue;
            uint32_t a = c - 1u, b = c + 1u;
            while (a > 0 && !(kept & (0x80000000u >> a))) a--; /* the first and last stay stored */
            while (b + 1u < n && !(kept & (0x80000000u >> b))) b++;
            double d = span_error(w, f, a, b, best);
            if (d < best) {
                best = d;
                pick = c;
            }
        }
        if (!pick || !(best <= w->e->target)) break;
        kept &= ~(0x80000000u >> pick);
    }
    return kept;
}

/* Bits one stored sample of segment g takes. */
static uint32_t segment_pose_bits(const acl_enc *e, uint32_t g)
{
    uint32_t bits = 0;
    for (uint32_t t = 0; t < e->nt; t++)
        for (unsigned k = 0; k < 3; k++) {
            if (e->type[3u * t + k] != T_ANIM) continue;
            bits += k == K_ROT && e->p.fmt[K_ROT] == 0 ? 128u : 3u * enc_bits(enc_sub(e, g, t, k)->width);
        }
    return bits;
}

void acl_enc_strip(acl_enc *e)
{
    /* the search's measure vouches for the clip as the search left it: not carried past a
     * change of what is stored (acl_enc_max_error measures again; nothing calls it after) */
    e->search_known = 0;
    e->stripped = 0;
    for (uint32_t g = 0; g < e->nseg; g++) {
        uint32_t n = e->seg_start[g + 1u] - e->seg_start[g];
        e->kept[g] = n >= 32u ? ACL_NONE : ~(ACL_NONE >> n);
        if (n > 32u) return; /* a stripped segment describes at most 32 samples */
    }
    /* an exact bone keeps every sample (its error cannot be measured) */
    if (e->p.version < 10 || e->nt == 0 || e->any_exact) return;
    seg_work w;
    void *blk;
    size_t size;
    if (work_alloc(e, &w, &blk, &size, 0, NULL)) return; /* out of memory: keep every sample */
    uint64_t saved = 0;
    for (uint32_t g = 0; g < e->nseg; g++) {
        work_segment(&w, g);
        if (w.n < 3u || segment_pose_bits(e, g) == 0) continue;
        uint32_t full = e->kept[g];
        if (e->flat) {
            /* as the narrowing: none on skeletons so large that it would take seconds */
            if ((double)e->nt * (double)e->nt * (double)w.n > ACL_ENC_FLAT_WORK) continue;
            flat_work f;
            size_t fsize;
            double *fblk = flat_alloc(&w, &f, &fsize);
            if (!fblk) continue;
            e->kept[g] = strip_segment(&w, &f);
            ganim_allocator FA = e->A;
            ganim_free(&FA, fblk, fsize);
        } else {
            raw_objects(&w);
            e->kept[g] = strip_segment(&w, NULL);
        }
        saved += (uint64_t)(popcount32(full) - popcount32(e->kept[g])) * segment_pose_bits(e, g);
    }
    ganim_allocator A = e->A;
    ganim_free(&A, blk, size);
    /* as ACL: only when the bytes saved exceed the 4 more each segment header takes */
    e->stripped = saved / 8u > 4u * (uint64_t)e->nseg;
    if (!e->stripped)
        for (uint32_t g = 0; g < e->nseg; g++) {
            uint32_t n = e->seg_start[g + 1u] - e->seg_start[g];
            e->kept[g] = n >= 32u ? ACL_NONE : ~(ACL_NONE >> n);
        }
}
