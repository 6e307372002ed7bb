/* glTF animations -> clips.
 *
 * Each glTF animation becomes one clip. Its channels that move a bone's translation,
 * rotation or scale become the bone's track; channels on other nodes, morph weights and
 * extension targets are skipped with a warning.
 *
 * The frame rate: the rate ganim's exporter recorded (extras.ganim.fps), else the
 * caller's (ganim_read_opts.fps), else the first common rate that puts every key on a
 * whole frame, else 30. Key times become frames: with ganim's rate the float frame the
 * exporter divided (an integer whenever one maps to the same time); otherwise time x rate,
 * snapped to the whole frame when within 1/1000 of one (and float rounding).
 *
 * Interpolation: LINEAR keys are kept as they are; STEP keys, and the "hold keys" ganim's
 * exporter inserts one float step before a key, become the track's step bits when every
 * channel of the track agrees on them, else explicit hold keys one float step before the
 * next key; CUBICSPLINE is evaluated at its keys and at every whole frame between them.
 * A channel is constant when its values are all the same (for ganim's own files: exactly
 * the two keys the exporter writes for a constant), and one value per frame when it has a
 * key on every frame. ganim's visibility (STEP scale keys of 0) comes back as visibility.
 * Values of ganim's own files are converted back exactly (gltf_exact.c); transforms of
 * nodes above a bone are folded in. */
#include <float.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/gltf/gltf.h"

/* read_channel and convert_values always inline (GANIM_ALWAYS_INLINE), in their one caller's loop, as before read_channel had
 * the record paths: gcc then stopped inlining them, a few instructions a channel more on
 * the trees' read (the FF7 pack's) */

/* chan.steps: per key, whether it holds its value until the next key */
#define STEP_NO 0
#define STEP_YES 1
#define STEP_ANY 2 /* either: the next key has the same value */

typedef struct chan {
    uint32_t bone, sampler, index;
    int path, interp, comps;
    uint32_t n;     /* keys */
    float *t;       /* seconds; shared with other channels of the same accessor until t_own */
    int t_own;      /* t is this channel's own copy (own_times), which it may change */
    float *f;       /* frames */
    float *v;       /* n * comps values (CUBICSPLINE: 3n * comps, in, value, out) */
    int v_borrowed; /* v is the file's own bytes (gltf_use.borrow): copied (own_values) before
                     * anything writes into it */
    float *doc_v;   /* the values as read when they are in the document (else NULL) */
    uint8_t *steps; /* per key: holds its value until the next key */
    int any_step;   /* some key steps */
    int visibility; /* ganim visibility written as STEP scale */
    int constant, per_frame;
    int group; /* the clip of the animation it belongs to (gltf_carry.c); -1: left out */
    int fill;  /* not among the channels ganim's exporter listed for its clip */
    int kind;  /* the ganim_channel_kind the exporter listed it with (0: none) */
    uint64_t offset;
} chan;

/* A few arrays of times (or frames) and what was found for them; nothing writes into
 * the arrays while they are here. */
#define MEMO_SLOTS 4
typedef struct times_memo {
    const float *t[MEMO_SLOTS], *f[MEMO_SLOTS];
    uint32_t n[MEMO_SLOTS];
    unsigned next;
} times_memo;

/* The slot whose times are t[0..n) (the same array or the same values), or -1. */
static int memo_find(const times_memo *m, const float *t, uint32_t n)
{
    for (int i = 0; i < MEMO_SLOTS; i++)
        if (m->t[i] && m->n[i] == n && (m->t[i] == t || !memcmp(m->t[i], t, (size_t)n * sizeof(float)))) return i;
    return -1;
}

static void memo_add(times_memo *m, const float *t, const float *f, uint32_t n)
{
    unsigned i = m->next++ % MEMO_SLOTS;
    m->t[i] = t;
    m->f[i] = f;
    m->n[i] = n;
}

typedef struct anim {
    gltf_file *f;
    uint32_t index;
    const gj_value *v, *samplers;
    chan *ch;
    uint32_t nch;
    double fps;
    uint32_t frames;
    uint32_t span;  /* frames of the whole animation (frames: of the clip being built) */
    int ganim_rate; /* fps and frames from extras.ganim */
    gltf_clip_stats st;
    uint32_t dropped, repaired, nudged;
    /* Work done on the key times of a channel, kept for the next channels with the same
     * times (an animation's samplers share a few input accessors): */
    times_memo kf; /* key_frames: times t whose frames f needed no repair */
    times_memo tk; /* check_keys: times t, valid and without hold keys */
    times_memo pf; /* classify: frames t that count 0, 1, 2, ... (f NULL) or not (f = t) */
} anim;

/* ---- channels --------------------------------------------------------------------------- */

static int interp_of(const char *s)
{
    if (gltf_is(s, "LINEAR")) return GLTF_LINEAR; /* (the usual one first) */
    if (gltf_is(s, "STEP")) return GLTF_STEP;
    return gltf_is(s, "CUBICSPLINE") ? GLTF_CUBIC : -1;
}

/* The channel's values as its own array, before anything writes into them: values read
 * where they are in the file (gltf_use.borrow) are its bytes. */
static ganim_code own_values(anim *a, chan *c)
{
    if (!c->v_borrowed) return GANIM_OK;
    size_t k = (size_t)c->n * (size_t)c->comps * (c->interp == GLTF_CUBIC ? 3u : 1u);
    float *v = gltf_scratch_raw(a->f, k, sizeof(float)); /* copied over whole */
    if (!v) return GANIM_ERR_NOMEM;
    memcpy(v, c->v, k * sizeof(float));
    c->v = v;
    c->v_borrowed = 0;
    return GANIM_OK;
}

/* The channel's key times as its own array, and its values, before it changes them (it
 * moves both): the times read are shared by the channels that read the same accessor
 * (gltf_use.shared), the values may be the file's bytes (gltf_use.borrow). */
static ganim_code own_times(anim *a, chan *c)
{
    ganim_code code = own_values(a, c);
    if (code != GANIM_OK || c->t_own) return code;
    float *t = gltf_scratch_raw(a->f, c->n ? c->n : 1, sizeof(float)); /* copied over whole */
    if (!t) return GANIM_ERR_NOMEM;
    memcpy(t, c->t, (size_t)c->n * sizeof(float));
    c->t = t;
    c->t_own = 1;
    return GANIM_OK;
}

/* extras.ganim.keys of a sampler: ascending ranges [first, last] of the keys the channel
 * stores (the exporter baked the frames between them, export_gltf_anim.c bake_keys); the
 * channel keeps only those. Ranges that do not fit are a warning, and every key stays. */
static ganim_code keep_stored(anim *a, chan *c, const gj_value *keys)
{
    uint64_t next = 0, kept = 0;
    if (!keys->count) {
        ganim_doc_warn(a->f->doc, GANIM_WARN_IGNORED, keys->offset,
                       "gltf: animation %u sampler %u: extras.ganim.keys names no key; every key is kept", a->index,
                       c->sampler);
        return GANIM_OK;
    }
    for (uint32_t r = 0; r < keys->count; r++) {
        const gj_value *pair = &keys->items[r];
        uint64_t lo, hi;
        if (pair->type != GJ_ARRAY || pair->count != 2 || !gj_uint(&pair->items[0], c->n, &lo) ||
            !gj_uint(&pair->items[1], c->n, &hi) || lo < next || lo > hi || hi >= c->n) {
            ganim_doc_warn(a->f->doc, GANIM_WARN_IGNORED, pair->offset,
                           "gltf: animation %u sampler %u: extras.ganim.keys entry %u is not a range of keys after "
                           "the last; every key is kept",
                           a->index, c->sampler, r);
            return GANIM_OK;
        }
        next = hi + 1;
        kept += hi - lo + 1;
    }
    if (kept == c->n) return GANIM_OK; /* every key (the ranges ascend without overlap) */
    ganim_code code = own_times(a, c);
    if (code != GANIM_OK) return code;
    uint32_t m = 0;
    size_t w = (size_t)c->comps;
    for (uint32_t r = 0; r < keys->count; r++) {
        uint64_t lo = 0, hi = 0;
        gj_uint(&keys->items[r].items[0], c->n, &lo);
        gj_uint(&keys->items[r].items[1], c->n, &hi);
        for (uint64_t k = lo; k <= hi; k++, m++) {
            c->t[m] = c->t[k];
            memmove(c->v + m * w, c->v + k * w, w * sizeof(float));
        }
    }
    c->n = m;
    return GANIM_OK;
}

/* Channel ci of `chans` (a tree's array, or GJ_RECORDS): its object (or a stand-in: its
 * offset, no members) and target, sampler, target.path and target.node (NULL: absent) in
 * m (in tmp when read as records). */
static const gj_value *channel_members(anim *a, const gj_value *chans, uint32_t ci, gj_value *tmp, gj_value *obj,
                                       const gj_value **m)
{
    gltf_file *f = a->f;
    if (chans->type == GJ_RECORDS) {
        static const char *const paths[] = { "rotation", "translation", "scale", "weights", NULL };
        return gltf_record_object(f, &f->recs[GLTF_CHANNELS], chans->set, ci, paths, tmp, obj, m);
    }
    static const char *const cnames[] = { "target", "sampler" }, *const tnames[] = { "path", "node" };
    const gj_value *cv = &chans->items[ci];
    gltf_members(cv, cnames, m, 2, &f->memo_channel);
    gltf_members(m[0], tnames, m + 2, 2, &f->memo_target);
    return cv;
}

/* Sampler si of the animation (a tree's array, or GJ_RECORDS): as channel_members, with
 * interpolation, input, output and extras in m, and the interpolation's text in `interp`
 * (at most 40 bytes: what messages show) when it is a string. */
static const gj_value *sampler_members(anim *a, uint32_t si, gj_value *tmp, gj_value *obj, const gj_value **m,
                                       char *interp)
{
    gltf_file *f = a->f;
    const gj_value *samplers = a->samplers;
    if (samplers->type == GJ_RECORDS) {
        static const char *const interps[] = { "LINEAR", "STEP", "CUBICSPLINE", NULL };
        const gj_records *r = &f->recs[GLTF_SAMPLERS];
        const gj_field *fl = &samplers->set->field[(size_t)si * r->fields];
        gltf_record_object(f, r, samplers->set, si, interps, tmp, obj, m);
        if (fl->type == GJ_STRING && !tmp[0].text[0]) { /* (not one of them: its bytes, for the message) */
            size_t len = fl->count < 40 ? fl->count : 40;
            memcpy(interp, f->json_text + fl->at + 1, len);
            interp[len] = 0;
            tmp[0].text = interp;
        }
        return obj;
    }
    static const char *const names[] = { "interpolation", "input", "output", "extras" };
    const gj_value *sv = &samplers->items[si];
    gltf_members(sv, names, m, 4, &f->memo_sampler);
    return sv;
}

/* A record's field as an index below `count` (gltf_index_of's answer when it is 1): 0 when
 * it is absent, not a whole number or not below count (the values then say which). */
static int field_index(const gltf_file *f, const gj_field *fl, uint32_t count, uint32_t *out)
{
    uint64_t u;
    if (!gltf_field_uint(f, fl, UINT32_MAX, &u) || u >= count) return 0;
    *out = (uint32_t)u;
    return 1;
}

/* Channel ci straight from its record's fields (target, sampler, target.path, target.node:
 * gltf.c's channel_names), when chans were read as records and the channel is the usual
 * one: target an object, its path rotation, translation or scale, its node and the sampler
 * valid indices. Then *at is the object's offset and *path the path's name (as the values
 * give it); 0: read it from the values (every message and skip there). */
static int channel_record(const anim *a, const gj_value *chans, uint32_t ci, int *p, const char **path, uint32_t *node,
                          uint32_t *sampler, uint64_t *at)
{
    const gltf_file *f = a->f;
    if (chans->type != GJ_RECORDS) return 0;
    const gj_field *fl = &chans->set->field[(size_t)ci * f->recs[GLTF_CHANNELS].fields];
    if (fl[0].type != GJ_OBJECT || fl[2].type != GJ_STRING) return 0;
    const char *s = (const char *)f->json_text + fl[2].at + 1;
    if (fl[2].count == 8 && memcmp(s, "rotation", 8) == 0) *p = GLTF_ROT, *path = "rotation";
    else if (fl[2].count == 11 && memcmp(s, "translation", 11) == 0) *p = GLTF_TRANS, *path = "translation";
    else if (fl[2].count == 5 && memcmp(s, "scale", 5) == 0) *p = GLTF_SCALE, *path = "scale";
    else return 0;
    if (!field_index(f, &fl[3], f->node_count, node) || !field_index(f, &fl[1], a->samplers->count, sampler)) return 0;
    *at = f->json_offset + chans->set->at[ci];
    return 1;
}

/* Sampler si straight from its record's fields (interpolation, input, output, extras:
 * gltf.c's sampler_names), when the samplers were read as records and the sampler is the
 * usual one: interpolation absent or LINEAR, STEP or CUBICSPLINE, input and output valid
 * accessors. A record's extras is an object or an array only as its text (a span field,
 * GJ_LATER: read_channel's span_extras). Its fields (the caller reads the extras field
 * from them); NULL: read it from the values. */
static const gj_field *sampler_record(const anim *a, uint32_t si, const char **interp, uint32_t *in, uint32_t *out,
                                      uint64_t *at)
{
    const gltf_file *f = a->f;
    if (a->samplers->type != GJ_RECORDS) return NULL;
    const gj_field *fl = &a->samplers->set->field[(size_t)si * f->recs[GLTF_SAMPLERS].fields];
    if (fl[3].type == GJ_OBJECT) return NULL;
    if (fl[0].type != GJ_ABSENT) {
        const char *s = (const char *)f->json_text + fl[0].at + 1;
        if (fl[0].type != GJ_STRING) return NULL;
        if (fl[0].count == 6 && memcmp(s, "LINEAR", 6) == 0) *interp = "LINEAR";
        else if (fl[0].count == 4 && memcmp(s, "STEP", 4) == 0) *interp = "STEP";
        else if (fl[0].count == 11 && memcmp(s, "CUBICSPLINE", 11) == 0) *interp = "CUBICSPLINE";
        else return NULL;
    }
    if (!field_index(f, &fl[1], f->accessor_count, in) || !field_index(f, &fl[2], f->accessor_count, out)) return NULL;
    *at = f->json_offset + a->samplers->set->at[si];
    return fl;
}

/* A sampler's extras the records kept as its text (GJ_LATER: json.h's span field) made
 * the tree the parse would have stored, in *out (else *out is ex). Its bytes were charged
 * against the JSON's bound by the records' read (a bound of this tree's): not again. */
static ganim_code extras_tree(gltf_file *f, const gj_value *ex, const gj_value **out)
{
    *out = ex;
    if (!ex || ex->type != GJ_LATER) return GANIM_OK;
    gj_parser p = f->json;
    p.max_bytes = 0;
    p.used = 0;
    p.charged = NULL;
    return gj_parse_later(&p, ex, out, f->err);
}

/* The whole number of 1 to 9 digits at t[*i] as gj_uint takes it (no sign, no leading
 * zero but a lone 0, nothing of a fraction or an exponent after it: the caller checks
 * the byte after), *i past it; 0: not one. The run of digits ends at a byte that is not
 * one, the caller's ']' at t[end] at the latest (negated_span checks it first): no read
 * past it. */
static inline int span_uint(const char *t, uint32_t *i, uint32_t *u)
{
    uint64_t v; /* (a tenth digit scanned: refused; at most 999,999,999: a uint32_t) */
    const uint32_t d = gj_digit_run(t + *i, 10, &v);
    if (!d || d > 9 || (d > 1 && t[*i] == '0')) return 0;
    *i += d;
    *u = (uint32_t)v;
    return 1;
}

/* The extras text t[0..len) of a sampler read as records when it is exactly what ganim's
 * exporter writes of negated ranges, {"ganim":{"negated":[[lo,hi],...]}} (no spaces, no
 * other member, lo <= hi < keys): the number of ranges (at least 1), each flipped in v
 * (keys x 4 floats) when v is not NULL; 0: anything else (then the tree's way, with its
 * warnings: nothing changed). */
static uint32_t negated_span(const char *t, uint32_t len, uint32_t keys, float *v)
{
    static const char head[] = "{\"ganim\":{\"negated\":[";
    const uint32_t hl = (uint32_t)sizeof head - 1;
    if (len < hl + 3 || memcmp(t, head, hl) != 0 || memcmp(t + len - 3, "]}}", 3) != 0) return 0;
    uint32_t i = hl, end = len - 3, ranges = 0;
    for (;;) {
        uint32_t lo, hi;
        if (i >= end || t[i] != '[') return 0;
        i++;
        if (!span_uint(t, &i, &lo) || i >= end || t[i] != ',') return 0;
        i++;
        if (!span_uint(t, &i, &hi) || i >= end || t[i] != ']' || lo > hi || hi >= keys) return 0;
        i++;
        ranges++;
        if (v) {
            float *x = v + (size_t)lo * 4, *stop = v + ((size_t)hi + 1) * 4;
            for (; x < stop; x++) *x = -*x;
        }
        if (i == end) return ranges;
        if (t[i] != ',') return 0;
        i++;
    }
}

/* A record's extras kept as text (`span`) of channel c (its n keys read): ganim's usual
 * negated ranges flipped from the text when `flip` (the tree's way would flip them), else
 * its tree made, and its ganim member in *ours. Out of read_channel's line. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static ganim_code
span_extras(anim *a, chan *c, const gj_field *span, int flip, const gj_value **ours)
{
    gltf_file *f = a->f;
    const char *t = (const char *)f->json_text + span->at;
    ganim_code code = GANIM_OK;
    if (negated_span(t, span->count, c->n, NULL)) {
        if (flip && (code = own_values(a, c)) == GANIM_OK) negated_span(t, span->count, c->n, c->v);
        return code;
    }
    gj_value later;
    memset(&later, 0, sizeof later);
    later.key = "extras";
    later.text = t;
    later.offset = f->json_offset + span->at;
    later.count = span->count;
    later.type = GJ_LATER;
    later.depth = (uint8_t)(f->recs[GLTF_SAMPLERS].depth + 3);
    const gj_value *ex;
    if ((code = extras_tree(f, &later, &ex)) != GANIM_OK) return code;
    *ours = gj_get(ex, "ganim");
    return GANIM_OK;
}

static GANIM_ALWAYS_INLINE ganim_code read_channel(anim *a, const gj_value *chans, uint32_t ci, uint8_t *seen,
                                                   const char **outside)
{
    gltf_file *f = a->f;
    const char *path = NULL;
    uint32_t node, sampler;
    uint64_t at;
    int p;
    if (!channel_record(a, chans, ci, &p, &path, &node, &sampler, &at)) {
        const gj_value *m4[4];
        gj_value tmp[4], obj;
        const gj_value *cv = channel_members(a, chans, ci, tmp, &obj, m4);
        if (!gj_is(cv, GJ_OBJECT))
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, cv->offset, "gltf: animation %u channel %u is not an object",
                              a->index, ci);
        const gj_value *const *cm = m4, *const *tm = m4 + 2;
        const gj_value *target = cm[0];
        if (!gj_is(target, GJ_OBJECT) || !gj_string(tm[0], &path))
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, cv->offset, "gltf: animation %u channel %u: no target path",
                              a->index, ci);
        int has_node = gltf_index_of(f, tm[1], "node", f->node_count, "animation channel target", &node);
        if (has_node < 0) return GANIM_ERR_CORRUPT;
        p = gltf_is(path, "rotation")      ? GLTF_ROT
            : gltf_is(path, "translation") ? GLTF_TRANS
            : gltf_is(path, "scale")       ? GLTF_SCALE
                                           : -1;
        if (!has_node || p < 0) {
            if (!strcmp(path, "weights")) a->st.skipped_weights++;
            else a->st.skipped_other++;
            return GANIM_OK;
        }
        if (f->nodes[node].bone >= 0 &&
            gltf_index_of(f, cm[1], "sampler", a->samplers->count, "animation channel", &sampler) != 1)
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, cv->offset, "gltf: animation %u channel %u: no valid sampler",
                              a->index, ci);
        at = cv->offset;
    }
    if (f->nodes[node].bone < 0) {
        if (!*outside) *outside = f->nodes[node].name;
        a->st.skipped_outside++;
        return GANIM_OK;
    }
    uint32_t bone = (uint32_t)f->nodes[node].bone;
    if (seen[(size_t)bone * 3 + (size_t)p]) {
        ganim_doc_warn(f->doc, GANIM_WARN_INCONSISTENT, at,
                       "gltf: animation %u channel %u: a second channel on the %s of node %u; it is skipped", a->index,
                       ci, path, node);
        a->st.skipped_other++;
        return GANIM_OK;
    }
    seen[(size_t)bone * 3 + (size_t)p] = 1;
    const char *interp = "LINEAR";
    uint32_t in, out;
    uint64_t sat;
    const gj_value *ours = NULL; /* the sampler's extras.ganim */
    const gj_field *const recorded = sampler_record(a, sampler, &interp, &in, &out, &sat);
    if (!recorded) {
        const gj_value *sm[4], *const *m = sm;
        gj_value stmp[4], sobj;
        char itext[41];
        /* the sampler's members in one pass (the first of a repeated name, as gj_get) */
        const gj_value *sv = sampler_members(a, sampler, stmp, &sobj, sm, itext);
        const gj_value *iv = m[0];
        if ((iv && !gj_string(iv, &interp)) || interp_of(interp) < 0)
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, sv->offset,
                              "gltf: animation %u sampler %u: interpolation '%.40s' is not LINEAR, STEP or CUBICSPLINE",
                              a->index, sampler, iv && iv->type == GJ_STRING ? interp : "?");
        if (gltf_index_of(f, m[1], "input", f->accessor_count, "animation sampler", &in) != 1 ||
            gltf_index_of(f, m[2], "output", f->accessor_count, "animation sampler", &out) != 1)
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, sv->offset,
                              "gltf: animation %u sampler %u: no input or output", a->index, sampler);
        sat = sv->offset;
        const gj_value *ex = m[3];
        if (ex && ex->type == GJ_LATER) { /* (records' extras as text: its tree) */
            ganim_code code = extras_tree(f, m[3], &ex);
            if (code != GANIM_OK) return code;
        }
        ours = gj_get(ex, "ganim");
    }
    chan *c = &a->ch[a->nch];
    memset(c, 0, sizeof *c);
    c->bone = bone;
    c->sampler = sampler;
    c->index = ci;
    c->path = p;
    c->interp = interp_of(interp);
    c->comps = p == GLTF_ROT ? 4 : 3;
    c->offset = at;
    /* the LINEAR values of ganim's own files usually become the model's channel as they
     * are (model_channel keeps the array): they go in the document; its STEP channels
     * are visibility, made into other arrays, and other files' constant channels often
     * hold a key on every frame: those would stay in the document unused */
    gltf_use use_in = { a->index, sampler, "input", 0, 1, 1, 0 };
    gltf_use use_out = { a->index, sampler, "output", f->ganim && c->interp == GLTF_LINEAR, 0, 1, 0 };
    uint32_t nin, nout;
    ganim_code code = gltf_accessor_floats(f, in, 1, 0, &use_in, &c->t, &nin);
    if (code != GANIM_OK) return code;
    if ((code = gltf_accessor_floats(f, out, c->comps, 1, &use_out, &c->v, &nout)) != GANIM_OK) return code;
    if (use_out.doc) c->doc_v = c->v;
    c->v_borrowed = use_out.borrowed;
    uint64_t need = c->interp == GLTF_CUBIC ? 3 * (uint64_t)nin : nin;
    if (nout < need)
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, sat,
                          "gltf: animation %u sampler %u: %u output values for %u %s keys (%llu needed)", a->index,
                          sampler, nout, nin, interp, (unsigned long long)need);
    if (nout > need)
        ganim_doc_warn(f->doc, GANIM_WARN_INCONSISTENT, sat,
                       "gltf: animation %u sampler %u: %u output values for %u keys; the extra ones are ignored",
                       a->index, sampler, nout, nin);
    c->n = nin;
    /* ganim's exporter flips the sign of some rotation keys for continuity and records
     * which ([first, last] key ranges): the model's own signs come back */
    /* (a record's extras as text: ganim's usual ranges read from it, else its tree) */
    if (recorded && recorded[3].type == GJ_LATER &&
        (code = span_extras(a, c, &recorded[3], f->undo && p == GLTF_ROT && c->interp != GLTF_CUBIC, &ours)) !=
            GANIM_OK)
        return code;
    const gj_value *neg = ours ? gj_get(ours, "negated") : NULL;
    if (f->undo && p == GLTF_ROT && c->interp != GLTF_CUBIC && neg && neg->type == GJ_ARRAY) {
        if ((code = own_values(a, c)) != GANIM_OK) return code;
        for (uint32_t r = 0; r < neg->count; r++) {
            const gj_value *pair = &neg->items[r];
            uint64_t lo, hi;
            if (pair->type != GJ_ARRAY || pair->count != 2 || !gj_uint(&pair->items[0], nin, &lo) ||
                !gj_uint(&pair->items[1], nin, &hi) || lo > hi || hi >= nin) {
                ganim_doc_warn(f->doc, GANIM_WARN_IGNORED, pair->offset,
                               "gltf: animation %u sampler %u: extras.ganim.negated entry %u is not a range of keys; "
                               "ignored",
                               a->index, sampler, r);
                continue;
            }
            float *x = c->v + lo * 4, *end = c->v + (hi + 1) * 4;
#if defined(__SSE2__)
            /* a key's four signs flipped at once (the same bits as -x: the sign bit) */
            for (const __m128 sign = _mm_set1_ps(-0.0f); x < end; x += 4)
                _mm_storeu_ps(x, _mm_xor_ps(_mm_loadu_ps(x), sign));
#endif
            for (; x < end; x++) *x = -*x;
        }
    }
    /* a keyed channel ganim's exporter baked on every frame: its stored keys come back */
    const gj_value *keys = ours ? gj_get(ours, "keys") : NULL;
    if (f->ganim && c->interp == GLTF_LINEAR && keys && keys->type == GJ_ARRAY &&
        (code = keep_stored(a, c, keys)) != GANIM_OK)
        return code;
    a->st.interp[c->interp]++;
    a->nch++;
    return GANIM_OK;
}

/* Times must be finite and not negative; keys that do not come after the previous one
 * are dropped (the validator calls them an error; some exporters write them). */
static ganim_code check_times(anim *a, chan *c, int *clean)
{
    /* the usual case: every time finite, not negative and after the one before */
    uint32_t m = 0;
    for (float prev = -1.0f; m < c->n; m++) {
        float t = c->t[m];
        if (!(t >= 0 && t <= FLT_MAX && t > prev)) break;
        prev = t;
    }
    *clean = m == c->n;
    if (m == c->n) return GANIM_OK;
    size_t per = (size_t)c->comps * (c->interp == GLTF_CUBIC ? 3u : 1u);
    for (uint32_t k = m; k < c->n; k++) {
        float t = c->t[k];
        if (!isfinite(t) || t < 0)
            return ganim_fail(a->f->err, GANIM_ERR_CORRUPT, c->offset,
                              "gltf: animation %u sampler %u: key %u is at %g s (times must be finite, not negative)",
                              a->index, c->sampler, k, (double)t);
        if (m && !(t > c->t[m - 1])) {
            a->dropped++;
            continue;
        }
        if (m != k) {
            ganim_code code = own_times(a, c);
            if (code != GANIM_OK) return code;
            c->t[m] = t;
            memmove(c->v + m * per, c->v + k * per, per * sizeof(float));
        }
        m++;
    }
    c->n = m;
    return GANIM_OK;
}

/* The float below x, for x > 0 (+inf included): nextafterf(x, -INFINITY) without the call. */
static float float_below(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u--;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* LINEAR keys that hold the previous key's value one float step before the next key
 * (ganim's hold keys) become step marks on the previous key; STEP marks every key. */
static ganim_code find_steps(anim *a, chan *c, int known, int *none)
{
    *none = 0;
    if (!(c->steps = gltf_scratch(a->f, c->n, 1))) return GANIM_ERR_NOMEM;
    size_t w = (size_t)c->comps;
    if (c->interp == GLTF_STEP) {
        for (uint32_t k = 0; k + 1 < c->n; k++) c->steps[k] = 1;
        c->any_step = c->n > 1;
        return GANIM_OK;
    }
    if (c->interp != GLTF_LINEAR || known) return GANIM_OK;
    /* the first key one float step before the next (times are increasing from 0 or
     * more, check_times: t[k + 1] > 0); none, and no key is a hold key */
    uint32_t m = 1;
    while (m + 1 < c->n && c->t[m] != float_below(c->t[m + 1])) m++;
    if (m + 1 >= c->n) {
        *none = 1;
        return GANIM_OK;
    }
    for (uint32_t k = m; k < c->n; k++) {
        if (k + 1 < c->n && c->t[k] == float_below(c->t[k + 1]) &&
            !memcmp(c->v + k * w, c->v + (m - 1) * w, w * sizeof(float))) {
            c->steps[m - 1] = 1;
            c->any_step = 1;
            a->st.holds++;
            continue;
        }
        if (m != k) {
            ganim_code code = own_times(a, c);
            if (code != GANIM_OK) return code;
            c->t[m] = c->t[k];
            memmove(c->v + m * w, c->v + k * w, w * sizeof(float));
        }
        m++;
    }
    c->n = m;
    return GANIM_OK;
}

/* check_times and find_steps; the times of the channel before, when they were valid and
 * no key was one float step before the next, need neither (samplers usually share one
 * input accessor). */
static ganim_code check_keys(anim *a, chan *c)
{
    int known = memo_find(&a->tk, c->t, c->n) >= 0, clean = 0, none;
    ganim_code code = known ? GANIM_OK : check_times(a, c, &clean);
    if (code == GANIM_OK) code = find_steps(a, c, known, &none);
    if (code == GANIM_OK && !known && clean && none) { /* c->t was not moved */
        memo_add(&a->tk, c->t, NULL, c->n);
    }
    return code;
}

/* ---- the frame rate ------------------------------------------------------------------------- */

static int snaps(double r, double *k)
{
    *k = floor(r + 0.5);
    return fabs(r - *k) <= 1e-3 + fabs(r) * 4.8e-7;
}

/* Does `fps` put every key of the animation on its own whole frame? */
static int rate_fits(const anim *a, double fps)
{
    for (uint32_t i = 0; i < a->nch; i++) {
        const chan *c = &a->ch[i];
        double prev = -1, k;
        for (uint32_t j = 0; j < c->n; j++) {
            double r = (double)c->t[j] * fps;
            if (r > (double)GANIM_MAX_FRAMES || !snaps(r, &k) || !(k > prev)) return 0;
            prev = k;
        }
    }
    return 1;
}

static void choose_rate(anim *a)
{
    gltf_file *f = a->f;
    const gj_value *ex = gj_get(gj_get(a->v, "extras"), "ganim");
    double fps = 0;
    uint64_t frames = 0, ci;
    if (f->ganim && gj_number(gj_get(ex, "fps"), &fps) && fps >= GANIM_MIN_FPS && fps <= GANIM_MAX_FPS &&
        gj_uint(gj_get(ex, "frame_count"), GANIM_MAX_FRAMES, &frames) && frames) {
        a->fps = fps;
        a->frames = (uint32_t)frames;
        a->ganim_rate = 1;
        a->st.rate_source = GLTF_RATE_GANIM;
        if (gj_uint(gj_get(ex, "clip_index"), UINT32_MAX, &ci)) a->st.clip_index = (uint32_t)ci;
        return;
    }
    if (f->ganim && ex)
        ganim_doc_warn(f->doc, GANIM_WARN_INCONSISTENT, ex->offset,
                       "gltf: animation %u: extras.ganim has no usable fps and frame_count; the rate is chosen anew",
                       a->index);
    if (f->opts->fps >= GANIM_MIN_FPS && f->opts->fps <= GANIM_MAX_FPS) {
        a->fps = f->opts->fps;
        a->st.rate_source = GLTF_RATE_OPTION;
        return;
    }
    static const double common[] = { 24, 25, 30, 48, 50, 60, 100, 120, 24000.0 / 1001, 30000.0 / 1001, 60000.0 / 1001 };
    int any = 0;
    for (uint32_t i = 0; i < a->nch; i++) any |= a->ch[i].n > 1 || (a->ch[i].n == 1 && a->ch[i].t[0] > 0);
    if (any) {
        for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
            if (rate_fits(a, common[i])) {
                a->fps = common[i];
                a->st.rate_source = GLTF_RATE_KEYS;
                return;
            }
        double gap = INFINITY; /* one key per smallest step: 1 / gap, if whole */
        for (uint32_t i = 0; i < a->nch; i++)
            for (uint32_t j = 1; j < a->ch[i].n; j++) gap = fmin(gap, (double)a->ch[i].t[j] - a->ch[i].t[j - 1]);
        double r = 1 / gap, k;
        if (isfinite(r) && r >= 1 && r <= 1000 && snaps(r, &k) && rate_fits(a, k)) {
            a->fps = k;
            a->st.rate_source = GLTF_RATE_KEYS;
            return;
        }
    }
    a->fps = 30;
    a->st.rate_source = GLTF_RATE_DEFAULT;
}

/* Does frame k give time t, as the exporter writes it: the nearest float32, or (keys of
 * STEP samplers and of tracks with hold keys) the largest not after the frame's time? */
static int gives(double k, double fps, float t)
{
    double x = k / fps;
    float f = (float)x;
    return f == t || ((double)f > x && (f > 0 ? float_below(f) : nextafterf(f, -INFINITY)) == t);
}

/* The frame ganim's exporter divided by the rate to write time t (an integer when one
 * gives the same float time). */
static float frame_exact(float t, double fps)
{
    double r = (double)t * fps, k = floor(r + 0.5);
    if (k <= 16777216.0 && gives(k, fps, t)) return (float)k;
    float c = (float)r, up = c, down = c;
    if (gives((double)c, fps, t)) return c;
    for (int i = 0; i < 4; i++) {
        up = nextafterf(up, INFINITY);
        down = nextafterf(down, -INFINITY);
        if (gives((double)up, fps, t)) return up;
        if (gives((double)down, fps, t)) return down;
    }
    return c;
}

static float frame_snap(float t, double fps)
{
    double r = (double)t * fps, k;
    return snaps(r, &k) ? (float)k : (float)r;
}

/* Frames of every key, strictly increasing (a key that float rounding put on the previous
 * one moves a float step later, or is dropped when there is no room). */
static ganim_code key_frames(anim *a, chan *c)
{
    /* the frames of the same times as the last channel's are the same frames (nothing
     * writes into a channel's frames after this) */
    int hit = memo_find(&a->kf, c->t, c->n);
    if (hit >= 0) {
        c->f = (float *)(uintptr_t)a->kf.f[hit];
        return GANIM_OK;
    }
    if (!(c->f = gltf_scratch_raw(a->f, c->n, sizeof(float)))) return GANIM_ERR_NOMEM;
    size_t per = (size_t)c->comps * (c->interp == GLTF_CUBIC ? 3u : 1u);
    uint32_t m = c->n ? 1 : 0, up = 1;
    if (a->ganim_rate)
        for (uint32_t k = 0; k < c->n; k++) c->f[k] = frame_exact(c->t[k], a->fps);
    else
        for (uint32_t k = 0; k < c->n; k++) c->f[k] = frame_snap(c->t[k], a->fps);
    for (uint32_t k = 1; k < c->n && up; k++) up = c->f[k] > c->f[k - 1];
    if (up) { /* strictly increasing: nothing to repair */
        memo_add(&a->kf, c->t, c->f, c->n);
        return GANIM_OK;
    }
    for (uint32_t k = 1; k < c->n; k++) {
        float fk = c->f[k];
        if (!(fk > c->f[m - 1])) {
            fk = nextafterf(c->f[m - 1], INFINITY);
            if (k + 1 < c->n && !(fk < c->f[k + 1])) {
                a->dropped++;
                continue;
            }
            a->nudged++;
        }
        c->f[m] = fk;
        c->steps[m] = c->steps[k];
        if (m != k) {
            ganim_code code = own_times(a, c);
            if (code != GANIM_OK) return code;
            c->t[m] = c->t[k];
            memmove(c->v + m * per, c->v + k * per, per * sizeof(float));
        }
        m++;
    }
    c->n = m;
    return GANIM_OK;
}

/* ---- CUBICSPLINE ---------------------------------------------------------------------------- */

/* The spline at its keys and at every whole frame between them. */
static ganim_code sample_cubic(anim *a, chan *c)
{
    uint32_t cap = c->n;
    for (uint32_t k = 0; k + 1 < c->n; k++) {
        double lo = floor((double)c->f[k]) + 1, hi = ceil((double)c->f[k + 1]) - 1;
        if (hi >= lo) cap += (uint32_t)(hi - lo + 1);
    }
    size_t w = (size_t)c->comps;
    float *f = gltf_scratch(a->f, cap, sizeof(float)), *v = gltf_scratch(a->f, (size_t)cap * w, sizeof(float));
    uint8_t *steps = gltf_scratch(a->f, cap, 1);
    if (!f || !v || !steps) return GANIM_ERR_NOMEM;
    uint32_t m = 0;
    for (uint32_t k = 0; k < c->n; k++) {
        const float *val = c->v + (3 * (size_t)k + 1) * w;
        f[m] = c->f[k];
        memcpy(v + (size_t)m * w, val, w * sizeof(float));
        m++;
        if (k + 1 == c->n) break;
        const float *b = c->v + (3 * (size_t)k + 2) * w, *a1 = c->v + (3 * (size_t)k + 3) * w;
        const float *v1 = c->v + (3 * (size_t)k + 4) * w;
        double t0 = c->t[k], td = (double)c->t[k + 1] - t0;
        double lo = floor((double)c->f[k]) + 1, hi = ceil((double)c->f[k + 1]) - 1;
        for (double fr = lo; fr <= hi && m < cap; fr++) {
            if (!(fr > (double)c->f[k] && fr < (double)c->f[k + 1])) continue;
            double s = (fr / a->fps - t0) / td;
            s = s < 0 ? 0 : s > 1 ? 1 : s;
            double s2 = s * s, s3 = s2 * s;
            double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
            f[m] = (float)fr;
            for (size_t i = 0; i < w; i++)
                v[(size_t)m * w + i] = (float)(h00 * val[i] + h10 * td * b[i] + h01 * v1[i] + h11 * td * a1[i]);
            m++;
        }
    }
    a->st.cubic_samples += m;
    c->f = f;
    c->v = v;
    c->v_borrowed = 0;
    c->steps = steps;
    c->n = m;
    c->any_step = 0;
    return GANIM_OK;
}

/* ---- values ----------------------------------------------------------------------------------- */

/* How many keys from the first have 4 components whose squares add up to within 4.7e-7
 * of 1 (a few may be left to the caller's own test; v NULL: none). In double, two keys at
 * a time: the sum in another order than the caller's differs by a few units of 2^-53,
 * far inside the margin the caller leaves to the exporter's 2^-21. */
static uint32_t unit_keys(const float *v, uint32_t n)
{
    uint32_t k = 0;
#if defined(__SSE2__)
    if (!v) return 0;
    const __m128d one = _mm_set1_pd(1.0), bound = _mm_set1_pd(4.7e-7),
                  abs = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
    for (; k + 2 <= n; k += 2) {
        __m128 a = _mm_loadu_ps(v + 4 * (size_t)k), b = _mm_loadu_ps(v + 4 * (size_t)k + 4);
        __m128d a01 = _mm_cvtps_pd(a), a23 = _mm_cvtps_pd(_mm_movehl_ps(a, a));
        __m128d b01 = _mm_cvtps_pd(b), b23 = _mm_cvtps_pd(_mm_movehl_ps(b, b));
        __m128d sa = _mm_add_pd(_mm_mul_pd(a01, a01), _mm_mul_pd(a23, a23)); /* x2 + z2, y2 + w2 */
        __m128d sb = _mm_add_pd(_mm_mul_pd(b01, b01), _mm_mul_pd(b23, b23));
        __m128d len2 = _mm_add_pd(_mm_unpacklo_pd(sa, sb), _mm_unpackhi_pd(sa, sb));
        __m128d off = _mm_and_pd(_mm_sub_pd(len2, one), abs);
        if (_mm_movemask_pd(_mm_cmple_pd(off, bound)) != 3) break;
    }
#else
    (void)v;
    (void)n;
#endif
    return k;
}

/* ganim's conversion undone, or foreign values made valid (unit quaternions, finite
 * vectors); then the transforms of the nodes above the bone folded in. */
static GANIM_ALWAYS_INLINE ganim_code convert_values(anim *a, chan *c)
{
    gltf_file *f = a->f;
    ganim_code code = own_values(a, c); /* (converted where they are) */
    if (code != GANIM_OK) return code;
    const ganim_bone *bone = &f->doc->skeleton->bones[c->bone];
    int root = bone->parent < 0;
    size_t w = (size_t)c->comps;
    const gltf_fold *fd = f->folded && f->folded[c->bone] ? &f->fold[c->bone] : NULL;
    /* The exporter wrote a rotation that C does not turn (any but a root's, or C the
     * identity) as it was when it was unit to float precision: such a key is its own
     * model value (gltf_undo_rotation gives it back unchanged); the bound is a little
     * inside the exporter's 2^-21 so that the reader's rounding never matters. */
    int as_is = !root || f->conv.identity;
    uint32_t k = unit_keys(c->path == GLTF_ROT && f->undo && as_is && !fd ? c->v : NULL, c->n);
    if (c->path == GLTF_ROT && f->undo && as_is && !fd) /* (a key with inf or NaN fails the test) */
        for (; k < c->n; k++) {
            const float *v = c->v + 4 * (size_t)k;
            double len2 = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3];
            if (!(fabs(len2 - 1) <= 4.7e-7)) break;
        }
    /* likewise a translation that neither C nor the unit scale changed */
    if (c->path == GLTF_TRANS && f->undo && !root && f->conv.unit == 1 && !fd)
        for (; k < c->n; k++) {
            const float *v = c->v + 3 * (size_t)k;
            if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) break;
        }
    for (; k < c->n; k++) {
        float *v = c->v + k * w, in[4];
        int bad = !isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]) || (w == 4 && !isfinite(v[3]));
        if (c->path == GLTF_ROT) {
            if (f->undo && !bad) {
                memcpy(in, v, sizeof in);
                gltf_undo_rotation(&f->conv, root, in, v);
            } else {
                double len2 = (double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2] + (double)v[3] * v[3];
                /* a spline between unit keys is normalised by definition, not repaired */
                if (bad || (fabs(len2 - 1) > 2e-3 && c->interp != GLTF_CUBIC)) a->repaired++;
                if (bad) v[0] = v[1] = v[2] = 0, v[3] = 1;
                if (!gltf_normalize_quat(v)) a->repaired += !bad;
            }
            if (fd) gltf_fold_rotation(fd, v);
        } else {
            if (bad) {
                const float *rest = c->path == GLTF_TRANS ? &bone->rest.translation.x : &bone->rest.scale.x;
                const float *prev = k ? v - w : NULL;
                for (size_t i = 0; i < 3; i++) v[i] = prev ? prev[i] : rest[i];
                a->repaired++;
                continue; /* the rest (and the previous key) are converted already */
            }
            if (c->path == GLTF_TRANS && f->undo) {
                memcpy(in, v, 3 * sizeof *in);
                gltf_undo_translation(&f->conv, root, in, v);
            }
            if (fd && c->path == GLTF_TRANS) gltf_fold_translation(fd, v);
            if (fd && c->path == GLTF_SCALE) gltf_fold_scale(fd, v);
        }
    }
    return GANIM_OK;
}

/* ---- visibility, constants, step bits ------------------------------------------------------- */

/* ganim's visibility: a STEP scale with a key on every frame, some of them exactly 0. */
static int is_visibility(const anim *a, const chan *c)
{
    if (!a->f->vis_scale || !a->ganim_rate || c->path != GLTF_SCALE || c->interp != GLTF_STEP || c->n != a->frames)
        return 0;
    int zero = 0;
    for (uint32_t k = 0; k < c->n; k++) {
        if (c->f[k] != (float)k) return 0;
        const float *v = c->v + 3 * (size_t)k;
        zero |= v[0] == 0 && v[1] == 0 && v[2] == 0;
    }
    return zero;
}

/* A key at frame 0 holding the first key's value, for channels of other writers that
 * start later (Blender's start at its frame 1): the same values (the model, like glTF,
 * holds the first key before it), and a channel keyed on every frame from 1 becomes one
 * value per frame. Not in ganim's own files, whose second export must write the same keys. */
static ganim_code lead_in(anim *a, chan *c)
{
    if (a->f->ganim || !c->n || !(c->f[0] > 0)) return GANIM_OK;
    size_t w = (size_t)c->comps;
    float *f = gltf_scratch(a->f, (size_t)c->n + 1, sizeof(float));
    float *v = gltf_scratch(a->f, ((size_t)c->n + 1) * w, sizeof(float));
    uint8_t *st = gltf_scratch(a->f, (size_t)c->n + 1, 1);
    if (!f || !v || !st) return GANIM_ERR_NOMEM;
    f[0] = 0;
    memcpy(f + 1, c->f, c->n * sizeof(float));
    memcpy(v, c->v, w * sizeof(float));
    memcpy(v + w, c->v, (size_t)c->n * w * sizeof(float));
    st[0] = STEP_ANY;
    memcpy(st + 1, c->steps, c->n);
    c->f = f;
    c->v = v;
    c->v_borrowed = 0;
    c->steps = st;
    c->n++;
    return GANIM_OK;
}

static void classify(anim *a, chan *c)
{
    size_t w = (size_t)c->comps;
    /* every key the bits of the first: each key those of the one before it, that is the
     * keys after the first, byte for byte, the keys before the last (one memcmp) */
    int same = c->n < 2 || memcmp(c->v, c->v + w, ((size_t)c->n - 1) * w * sizeof(float)) == 0;
    if (a->f->ganim && a->ganim_rate)
        c->constant = c->n == 1 || (c->n == 2 && same && c->interp == GLTF_LINEAR && !c->any_step && c->f[0] == 0 &&
                                    c->f[1] == (float)(a->span - 1));
    else c->constant = same && c->interp != GLTF_CUBIC;
    if (c->constant) return;
    /* channels that share their frames (key_frames) share the answer */
    int hit = memo_find(&a->pf, c->f, c->n), counting; /* the frames are 0, 1, 2, ... */
    if (hit >= 0) {
        counting = !a->pf.f[hit];
    } else {
        uint32_t k = 0;
        while (k < c->n && c->f[k] == (float)k) k++;
        counting = k == c->n;
        memo_add(&a->pf, c->f, counting ? NULL : c->f, c->n);
    }
    c->per_frame = c->n == a->frames && counting;
}

/* Hold keys in the model: key k's value again one float step before key k+1. */
static ganim_code model_holds(anim *a, chan *c)
{
    size_t w = (size_t)c->comps;
    uint32_t extra = 0;
    for (uint32_t k = 0; k + 1 < c->n; k++) extra += c->steps[k] == STEP_YES;
    float *f = gltf_scratch(a->f, (size_t)c->n + extra, sizeof(float));
    float *v = gltf_scratch(a->f, ((size_t)c->n + extra) * w, sizeof(float));
    if (!f || !v) return GANIM_ERR_NOMEM;
    uint32_t m = 0;
    for (uint32_t k = 0; k < c->n; k++) {
        f[m] = c->f[k];
        memcpy(v + (size_t)m * w, c->v + k * w, w * sizeof(float));
        m++;
        if (k + 1 < c->n && c->steps[k] == STEP_YES) {
            float g = nextafterf(c->f[k + 1], -INFINITY);
            if (!(g > c->f[k])) continue;
            f[m] = g;
            memcpy(v + (size_t)m * w, c->v + k * w, w * sizeof(float));
            m++;
        }
    }
    c->f = f;
    c->v = v;
    c->v_borrowed = 0;
    c->n = m;
    c->per_frame = 0;
    return GANIM_OK;
}

/* Step bits of one track (its channels at indices `idx`), when its channels agree on
 * them; else hold keys in the channels that step. *out: NULL when nothing steps. */
static ganim_code track_steps(anim *a, const uint32_t *idx, uint32_t count, int8_t *want, uint32_t *touched,
                              uint8_t **out)
{
    uint32_t nt = 0;
    int conflict = 0, any = 0;
    *out = NULL;
    /* no key of any channel steps (STEP_YES comes only with any_step): no bits, no holds */
    for (uint32_t i = 0; i < count; i++) {
        const chan *c = &a->ch[idx[i]];
        any |= !c->constant && !c->visibility && c->any_step;
    }
    if (!any) return GANIM_OK;
    any = 0;
    for (uint32_t i = 0; i < count; i++) {
        const chan *c = &a->ch[idx[i]];
        if (c->constant || c->visibility) continue;
        for (uint32_t k = 0; k + 1 < c->n; k++) {
            double fl = floor((double)c->f[k]);
            if (!(fl >= 0 && fl < (double)a->frames)) continue;
            uint32_t fr = (uint32_t)fl;
            if (c->steps[k] == STEP_ANY) continue;
            int8_t s = (int8_t)(c->steps[k] == STEP_YES ? 1 : -1);
            if (!want[fr]) {
                want[fr] = s;
                touched[nt++] = fr;
            } else if (want[fr] != s) {
                conflict = 1;
            }
            any |= s > 0;
        }
    }
    uint8_t *bits = NULL;
    if (any && !conflict && !(bits = ganim_doc_alloc(a->f->doc, a->frames))) return GANIM_NOMEM(a->f->err);
    for (uint32_t k = 0; k < nt; k++) {
        if (bits && want[touched[k]] > 0) bits[touched[k]] = 1;
        want[touched[k]] = 0;
    }
    if (bits) a->st.step_tracks++;
    *out = bits;
    if (!conflict) return GANIM_OK;
    for (uint32_t i = 0; i < count; i++) {
        chan *c = &a->ch[idx[i]];
        if (c->constant || c->visibility || !c->any_step) continue;
        ganim_code code = model_holds(a, c);
        if (code != GANIM_OK) return code;
    }
    return GANIM_OK;
}

/* ---- the model ------------------------------------------------------------------------------ */

static ganim_code model_channel(anim *a, const chan *c, ganim_channel *out)
{
    size_t w = (size_t)c->comps;
    uint32_t n = c->constant ? 1 : c->n;
    float *v = c->v; /* the document's already unless replaced since the read */
    if (c->v != c->doc_v || c->constant) {
        if (!(v = ganim_doc_alloc_array_raw(a->f->doc, (size_t)n * w, sizeof(float)))) return GANIM_NOMEM(a->f->err);
        memcpy(v, c->v, (size_t)n * w * sizeof(float)); /* over the whole array */
    }
    out->values = v;
    out->count = n;
    if (c->constant) {
        out->kind = GANIM_CHANNEL_CONSTANT;
    } else if (c->per_frame) {
        out->kind = GANIM_CHANNEL_PER_FRAME;
    } else {
        float *t = ganim_doc_alloc_array_raw(a->f->doc, n, sizeof(float)); /* copied over whole */
        if (!t) return GANIM_NOMEM(a->f->err);
        memcpy(t, c->f, (size_t)n * sizeof(float));
        out->kind = GANIM_CHANNEL_KEYED;
        out->times = t;
    }
    return GANIM_OK;
}

/* ganim's visibility: the track's visibility bytes, and its scale from the visible frames
 * (absent when they all show the rest scale, constant when they agree, else one value per
 * frame with hidden frames holding the previous visible value). */
static ganim_code model_visibility(anim *a, const chan *c, ganim_track *tr)
{
    const float *rest = &a->f->doc->skeleton->bones[c->bone].rest.scale.x;
    uint8_t *vis = ganim_doc_alloc_array_raw(a->f->doc, a->frames, 1); /* written whole below */
    if (!vis) return GANIM_NOMEM(a->f->err);
    int first = -1;
    uint32_t rest_bits[3], first_bits[3] = { 0, 0, 0 }, diff_rest = 0, diff_first = 0;
    memcpy(rest_bits, rest, sizeof rest_bits);
    for (uint32_t k = 0; k < a->frames; k++) {
        const float *v = c->v + 3 * (size_t)k;
        vis[k] = !(v[0] == 0 && v[1] == 0 && v[2] == 0);
        if (!vis[k]) continue;
        uint32_t b[3]; /* (bit for bit, a word a float: -0 is not 0, a NaN is its own bits) */
        memcpy(b, v, sizeof b);
        if (first < 0) first = (int)k, memcpy(first_bits, b, sizeof b);
        diff_rest |= (b[0] ^ rest_bits[0]) | (b[1] ^ rest_bits[1]) | (b[2] ^ rest_bits[2]);
        diff_first |= (b[0] ^ first_bits[0]) | (b[1] ^ first_bits[1]) | (b[2] ^ first_bits[2]);
    }
    int all_rest = diff_rest == 0, all_same = diff_first == 0;
    tr->visibility = vis;
    a->st.visibility_tracks++;
    if (first < 0 || all_rest) return GANIM_OK; /* every frame hidden, or the rest scale */
    /* the scale only when the model keeps it: one value, or one per frame */
    size_t n = all_same ? 1 : a->frames;
    float *s = ganim_doc_alloc_array_raw(a->f->doc, n * 3, sizeof(float)); /* written whole below */
    if (!s) return GANIM_NOMEM(a->f->err);
    const float *fill = c->v + 3 * (size_t)first;
    for (size_t k = 0; k < n; k++) {
        if (vis[k]) fill = c->v + 3 * k;
        memcpy(s + 3 * k, fill, 3 * sizeof(float));
    }
    tr->scale.values = s;
    tr->scale.kind = all_same ? GANIM_CHANNEL_CONSTANT : GANIM_CHANNEL_PER_FRAME;
    tr->scale.count = all_same ? 1 : a->frames;
    return GANIM_OK;
}

/* Hidden frames from other writers: Blender keeps ganim's visibility (scale 0 on hidden
 * frames) as keys of scale 0 on every frame, but it decomposes the zero-scale matrix, so
 * the rotation and translation of those frames come back wrong (up to 173 degrees and
 * 1,500 units for VCCo_IPV1_D_DIE_00). In a file ganim did not write, a frame whose scale
 * is exactly 0 is a hidden frame, and it takes the rotation, translation and scale of the
 * nearest visible frame (the earlier one on a tie). Channels with one value per frame only;
 * a track hidden in every frame keeps its values. */
static ganim_code hidden_from_zero_scale(anim *a, ganim_track *tr)
{
    const ganim_channel *s = &tr->scale;
    uint32_t n = a->frames, hidden = 0;
    if (a->f->ganim || tr->visibility || s->kind != GANIM_CHANNEL_PER_FRAME || s->count != n) return GANIM_OK;
    for (uint32_t k = 0; k < n; k++) {
        const float *v = s->values + 3 * (size_t)k;
        hidden += v[0] == 0 && v[1] == 0 && v[2] == 0;
    }
    if (!hidden) return GANIM_OK;
    uint8_t *vis = ganim_doc_alloc(a->f->doc, n);
    uint32_t *from = gltf_scratch(a->f, n, sizeof *from);
    if (!vis) return GANIM_NOMEM(a->f->err);
    if (!from) return GANIM_ERR_NOMEM;
    for (uint32_t k = 0; k < n; k++) {
        const float *v = s->values + 3 * (size_t)k;
        vis[k] = !(v[0] == 0 && v[1] == 0 && v[2] == 0);
    }
    tr->visibility = vis;
    a->st.visibility_tracks++;
    if (hidden == n) return GANIM_OK;
    /* the nearest visible frame of each frame: a pass each way */
    uint32_t last = UINT32_MAX;
    for (uint32_t k = 0; k < n; k++) from[k] = vis[k] ? (last = k) : last;
    last = UINT32_MAX;
    for (uint32_t k = n; k-- > 0;) {
        if (vis[k]) last = k;
        else if (last != UINT32_MAX && (from[k] == UINT32_MAX || last - k < k - from[k])) from[k] = last;
    }
    ganim_channel *chans[3] = { &tr->rotation, &tr->translation, &tr->scale };
    for (int c = 0; c < 3; c++) {
        ganim_channel *ch = chans[c];
        size_t w = c ? 3 : 4;
        if (ch->kind != GANIM_CHANNEL_PER_FRAME || ch->count != n) continue;
        float *v = ganim_doc_alloc_array(a->f->doc, (size_t)n * w, sizeof(float));
        if (!v) return GANIM_NOMEM(a->f->err);
        for (uint32_t k = 0; k < n; k++) memcpy(v + k * w, ch->values + (size_t)from[k] * w, w * sizeof(float));
        ch->values = v;
    }
    return GANIM_OK;
}

static ganim_code build_clip(anim *a, ganim_clip *clip)
{
    gltf_file *f = a->f;
    const char *name = "";
    gj_string(gj_get(a->v, "name"), &name);
    if (!(clip->name = ganim_doc_strdup(f->doc, name))) return GANIM_NOMEM(f->err);
    const char *interp = NULL;
    if (f->ganim && gj_string(gj_get(gj_get(gj_get(a->v, "extras"), "ganim"), "rotation_interp"), &interp) &&
        !strcmp(interp, "nlerp"))
        clip->rotation_interp = GANIM_INTERP_NLERP;
    clip->kind = GANIM_CLIP_ANIMATION;
    clip->fps = a->fps;
    clip->frame_count = a->frames;
    /* tracks in the order their bones first appear among the channels */
    uint32_t nb = f->bone_count, nt = 0;
    uint32_t *track_of = gltf_scratch(f, nb, sizeof *track_of), *order = gltf_scratch(f, a->nch, sizeof *order);
    uint32_t *first = gltf_scratch(f, (size_t)nb + 1, sizeof *first);
    int8_t *want = gltf_scratch(f, a->frames, 1);
    uint32_t *touched = gltf_scratch(f, a->frames, sizeof *touched); /* a frame at most once per track */
    if (!track_of || !order || !first || !want || !touched) return GANIM_ERR_NOMEM;
    for (uint32_t b = 0; b < nb; b++) track_of[b] = GLTF_NONE;
    uint32_t *bone_of_track = gltf_scratch(f, a->nch, sizeof *bone_of_track);
    if (!bone_of_track) return GANIM_ERR_NOMEM;
    for (uint32_t i = 0; i < a->nch; i++)
        if (track_of[a->ch[i].bone] == GLTF_NONE) {
            track_of[a->ch[i].bone] = nt;
            bone_of_track[nt++] = a->ch[i].bone;
        }
    /* channels grouped by track: counting sort */
    for (uint32_t i = 0; i < a->nch; i++) first[track_of[a->ch[i].bone] + 1]++;
    for (uint32_t t = 0; t < nt; t++) first[t + 1] += first[t];
    uint32_t *fill = gltf_scratch(f, (size_t)nt + 1, sizeof *fill);
    if (!fill) return GANIM_ERR_NOMEM;
    memcpy(fill, first, ((size_t)nt + 1) * sizeof *fill);
    for (uint32_t i = 0; i < a->nch; i++) order[fill[track_of[a->ch[i].bone]]++] = i;
    ganim_track *tracks = ganim_doc_alloc_array(f->doc, nt, sizeof *tracks);
    if (nt && !tracks) return GANIM_NOMEM(f->err);
    for (uint32_t t = 0; t < nt; t++) {
        ganim_track *tr = &tracks[t];
        tr->bone = bone_of_track[t];
        tr->name = f->doc->skeleton->bones[tr->bone].name;
        uint8_t *bits;
        ganim_code code = track_steps(a, order + first[t], first[t + 1] - first[t], want, touched, &bits);
        if (code != GANIM_OK) return code;
        tr->step = bits;
        for (uint32_t k = first[t]; k < first[t + 1]; k++) {
            const chan *c = &a->ch[order[k]];
            ganim_channel *mc = c->path == GLTF_ROT     ? &tr->rotation
                                : c->path == GLTF_TRANS ? &tr->translation
                                                        : &tr->scale;
            code = c->visibility ? model_visibility(a, c, tr) : model_channel(a, c, mc);
            if (code != GANIM_OK) return code;
        }
        if ((code = hidden_from_zero_scale(a, tr)) != GANIM_OK) return code;
    }
    clip->tracks = tracks;
    clip->track_count = nt;
    return gltf_clip_record(f, clip, &a->st);
}

/* ---- one animation ---------------------------------------------------------------------------- */

/* The channels of group g (a clip of the animation, described by `d` or NULL) as a clip:
 * its own frame count, the channels' values converted and classified, and the constants
 * ganim's exporter added for what the clip does not animate (the rest value, on
 * channels the description does not list) left out. */
static ganim_code read_group(anim *a, uint32_t g, const gltf_carry_clip *d, ganim_clip *clip)
{
    gltf_file *f = a->f;
    anim sub = *a;
    sub.nch = 0;
    if (!(sub.ch = gltf_scratch_raw(f, a->nch, sizeof *sub.ch))) return GANIM_ERR_NOMEM; /* (copied into) */
    double last = 0;
    for (uint32_t i = 0; i < a->nch; i++) {
        const chan *c = &a->ch[i];
        if (c->group != (int)g) continue;
        sub.ch[sub.nch++] = *c;
        /* the exporter's rest keys span the whole animation, longer than a partner */
        int rest_keys = c->fill && c->n == 2 && c->interp == GLTF_LINEAR && c->f[0] == 0 &&
                        c->f[1] == (float)(a->span - 1) &&
                        !memcmp(c->v, c->v + c->comps, (size_t)c->comps * sizeof(float));
        if (c->n && !rest_keys) last = fmax(last, (double)c->f[c->n - 1]);
    }
    if (d) {
        sub.frames = d->frame_count;
        if (ceil(last) + 1 > (double)sub.frames) {
            ganim_doc_warn(f->doc, GANIM_WARN_INCONSISTENT, a->v->offset,
                           "gltf: animation %u: clip %u '%.100s' has keys up to frame %g beyond the %u frames "
                           "extras.ganim records; it grows to %.0f frames",
                           a->index, d->index, d->name ? d->name : "", last, d->frame_count, ceil(last) + 1);
            sub.frames = (uint32_t)(ceil(last) + 1);
        }
    }
    ganim_code code = GANIM_OK;
    uint32_t kept = 0;
    const ganim_bone *bones = f->doc->skeleton->bones;
    for (uint32_t i = 0; i < sub.nch && code == GANIM_OK; i++) {
        chan *c = &sub.ch[i];
        if (c->interp == GLTF_CUBIC) code = sample_cubic(&sub, c);
        if (code != GANIM_OK) break;
        c->visibility = is_visibility(&sub, c);
        if (!c->visibility && (code = convert_values(&sub, c)) != GANIM_OK) break;
        if ((code = lead_in(&sub, c)) != GANIM_OK) break;
        classify(&sub, c);
        /* a channel of one value per frame that happens to hold one value (2 frames) */
        if (c->kind == GANIM_CHANNEL_PER_FRAME && c->constant && !c->visibility && c->n == sub.frames) {
            c->per_frame = 1;
            for (uint32_t k = 0; k < c->n && c->per_frame; k++) c->per_frame = c->f[k] == (float)k;
            c->constant = !c->per_frame;
        }
        if (c->fill && c->constant && !c->visibility) { /* the exporter's rest key: not the clip's */
            const float *rest = c->path == GLTF_ROT     ? &bones[c->bone].rest.rotation.x
                                : c->path == GLTF_TRANS ? &bones[c->bone].rest.translation.x
                                                        : &bones[c->bone].rest.scale.x;
            /* or the scale of 0 it gives a bone the skeleton hides */
            int same = 1, zero = c->path == GLTF_SCALE && (bones[c->bone].flags & GANIM_BONE_HIDDEN);
            for (int k = 0; k < c->comps; k++) same &= c->v[k] == rest[k], zero &= c->v[k] == 0;
            if (same || zero) continue;
        }
        sub.ch[kept++] = *c;
    }
    sub.nch = kept;
    if (code == GANIM_OK) code = build_clip(&sub, clip);
    a->repaired += sub.repaired;
    a->st = sub.st;
    return code;
}

static ganim_code read_animation(gltf_file *f, uint32_t ai, ganim_clip *clips, uint32_t *made, uint8_t *seen,
                                 gltf_carry_anim *ca_out)
{
    anim a;
    memset(&a, 0, sizeof a);
    a.f = f;
    a.index = ai;
    a.v = &f->anims_v->items[ai];
    a.st.animation = ai;
    a.st.clip_index = GLTF_NONE;
    const gj_value *chans = gj_get(a.v, "channels");
    a.samplers = gj_get(a.v, "samplers");
    ganim_code code = gltf_json_later(f, &a.samplers); /* (parsed now, given back after) */
    if (code != GANIM_OK) return code;
    /* (GJ_RECORDS: read as records, gltf.c's read_json) */
    if (!gj_is(a.v, GJ_OBJECT) || !(gj_is(chans, GJ_ARRAY) || gj_is(chans, GJ_RECORDS)) ||
        !(gj_is(a.samplers, GJ_ARRAY) || gj_is(a.samplers, GJ_RECORDS)))
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, a.v->offset, "gltf: animation %u: no channels and samplers arrays",
                          ai);
    a.st.channels = chans->count;
    a.st.samplers = a.samplers->count;
    /* (read_channel zeroes each channel it fills; none past a.nch is read) */
    if (!(a.ch = gltf_scratch_raw(f, chans->count, sizeof *a.ch))) return GANIM_ERR_NOMEM;
    memset(seen, 0, (size_t)f->bone_count * 3);
    const char *outside = NULL;
    for (uint32_t c = 0; c < chans->count && code == GANIM_OK; c++) code = read_channel(&a, chans, c, seen, &outside);
    for (uint32_t i = 0; i < a.nch && code == GANIM_OK; i++) code = check_keys(&a, &a.ch[i]);
    memset(&a.tk, 0, sizeof a.tk); /* key_frames moves the times it keeps */
    if (code != GANIM_OK) return code;
    a.st.used = a.nch;
    choose_rate(&a);
    double last = 0;
    for (uint32_t i = 0; i < a.nch && code == GANIM_OK; i++) {
        chan *c = &a.ch[i];
        if ((code = key_frames(&a, c)) != GANIM_OK) break;
        if (c->n) last = fmax(last, (double)c->f[c->n - 1]);
        a.st.duration = fmax(a.st.duration, c->n ? (double)c->t[c->n - 1] : 0.0);
    }
    if (code != GANIM_OK) return code;
    double need = ceil(last) + 1;
    const ganim_limits *lim = ganim_doc_limits(f->doc);
    if (need > (double)lim->frames)
        return ganim_fail(f->err, GANIM_ERR_LIMIT, a.v->offset,
                          "gltf: animation %u lasts %g s: %.0f frames at %g fps, more than the limit of %u "
                          "(ganim_limits.frames); a lower rate (--fps) helps",
                          ai, a.st.duration, need, a.fps, lim->frames);
    if (!a.ganim_rate) {
        a.frames = (uint32_t)need;
    } else if (need > (double)a.frames) {
        ganim_doc_warn(f->doc, GANIM_WARN_INCONSISTENT, a.v->offset,
                       "gltf: animation %u: keys up to frame %g beyond the %u frames extras.ganim records; the clip "
                       "grows to %.0f frames",
                       ai, last, a.frames, need);
        a.frames = (uint32_t)need;
    }
    a.st.fps = a.fps;
    a.span = a.frames;
    gltf_carry_anim ca;
    if ((code = gltf_carry_read_anim(f, a.v, ai, a.span, &ca)) != GANIM_OK) return code;
    *ca_out = ca;
    uint32_t groups = ca.nd ? ca.nd : 1;
    for (uint32_t i = 0; i < a.nch; i++) {
        chan *c = &a.ch[i];
        uint8_t own = ca.nd ? ca.owner[c->bone] : 0;
        c->group = own ? own - 1 : 0;
        c->kind = own ? (int)GLTF_CARRY_KIND(ca.mask[c->bone], c->path) : 0;
        c->fill = ca.nd && !c->kind;
    }
    for (uint32_t g = 0; g < groups && code == GANIM_OK; g++) {
        code = read_group(&a, g, ca.nd ? &ca.d[g] : NULL, &clips[g]);
        if (code == GANIM_OK && ca.nd) code = gltf_carry_apply(f, &clips[g], &ca.d[g], ca.nd == 2);
    }
    if (code != GANIM_OK) return code;
    *made = groups;
    uint32_t skipped = a.st.skipped_weights + a.st.skipped_outside + a.st.skipped_other;
    f->skipped_total += skipped;
    if (a.st.skipped_outside)
        ganim_doc_warn(f->doc, GANIM_WARN_SKELETON, a.v->offset,
                       "gltf: animation %u: %u channels move nodes that are not bones of the skeleton (e.g. '%.100s'); "
                       "skipped",
                       ai, a.st.skipped_outside, outside ? outside : "");
    if (a.st.skipped_weights)
        ganim_doc_warn(f->doc, GANIM_WARN_IGNORED, a.v->offset,
                       "gltf: animation %u: %u channels of morph target weights skipped", ai, a.st.skipped_weights);
    if (a.st.skipped_other)
        ganim_doc_warn(f->doc, GANIM_WARN_IGNORED, a.v->offset,
                       "gltf: animation %u: %u channels with other targets (extensions, repeated targets) skipped", ai,
                       a.st.skipped_other);
    if (a.dropped)
        ganim_doc_warn(f->doc, GANIM_WARN_INCONSISTENT, a.v->offset,
                       "gltf: animation %u: %u keys not after the key before them were dropped", ai, a.dropped);
    if (a.nudged)
        ganim_doc_warn(f->doc, GANIM_WARN_REPAIRED, a.v->offset,
                       "gltf: animation %u: %u keys fell on the frame of the key before them at %g fps; moved a float "
                       "step later",
                       ai, a.nudged, a.fps);
    if (a.repaired)
        ganim_doc_warn(f->doc, GANIM_WARN_REPAIRED, a.v->offset,
                       "gltf: animation %u: %u values were not finite or not unit quaternions; repaired", ai,
                       a.repaired);
    return GANIM_OK;
}

ganim_code gltf_read_animations(gltf_file *f)
{
    uint32_t n = f->anims_v ? f->anims_v->count : 0;
    if (!n) return GANIM_OK;
    if (!f->doc->skeleton) {
        ganim_doc_warn(f->doc, GANIM_WARN_SKELETON, f->anims_v->offset,
                       "gltf: %u animations but no nodes to animate; skipped", n);
        return GANIM_OK;
    }
    /* an animation gives one clip, or two: a clip and the partner ganim played with it */
    ganim_clip *clips = ganim_doc_alloc_array(f->doc, (size_t)n * 2, sizeof *clips);
    gltf_carry_clip *desc = gltf_scratch(f, (size_t)n * 2, sizeof *desc);
    uint32_t *partner = gltf_scratch(f, (size_t)n * 2, sizeof *partner);
    uint8_t *seen = gltf_scratch(f, (size_t)f->bone_count * 3, 1);
    if (!clips) return GANIM_NOMEM(f->err);
    if (!seen || !desc || !partner) return GANIM_ERR_NOMEM;
    uint32_t made = 0;
    for (uint32_t i = 0; i < n; i++) {
        gltf_carry_anim ca;
        uint32_t k = 0;
        /* the animation's temporaries (its channels' arrays, key times, the clip's
         * descriptions) are given back after it: the peak holds one animation's, not all */
        ganim_doc_mark_t mark = ganim_doc_mark(f->scratch);
        unsigned kept = f->scratch_kept;
        f->json_later_used = f->json_used;
        ganim_code code = read_animation(f, i, &clips[made], &k, seen, &ca);
        if (code != GANIM_OK) return code;
        for (uint32_t j = 0; j < k; j++) {
            desc[made + j] = ca.nd ? ca.d[j] : (gltf_carry_clip){ .index = GLTF_NONE };
            desc[made + j].tracks = NULL; /* (in the temporaries; gltf_carry_finish reads no track) */
            desc[made + j].track_count = 0;
            partner[made + j] = k == 2 && j == 0 ? made + 1 : GLTF_NONE;
        }
        made += k;
        if (f->scratch_kept == kept) {
            ganim_doc_release(f->scratch, mark);
            memset(f->acc_memo, 0, sizeof f->acc_memo); /* (their floats may be among them) */
        } else {
            f->json_used = f->json_later_used; /* (the samplers' tree stays: still counted) */
        }
    }
    return gltf_carry_finish(f, clips, made, desc, partner);
}
