/* Pieces shared by the exporters (export_gltf*.c, export_bvh.c, export_json.c): option defaults, the one
 * axis/unit conversion applied to root bones, clip selection, child lists, warnings to the
 * caller and the unique [A-Za-z0-9_-] names that glTF viewers and BVH readers need.
 * Everything here is static inline: no exporter file calls another exporter's file for
 * it (the glTF exporter's own shared insides are in export_gltf.h). */
#ifndef GANIM_EXPORT_EXPORT_H
#define GANIM_EXPORT_EXPORT_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/dquat.h"
#include "core/internal.h"
#include "io/numtext.h"
#include "io/writer.h"

/* Joint indices are written as u16 in glTF; BVH and the dump share the limit. */
#define GX_MAX_BONES 65535u

static inline const char *gx_generator(const ganim_export_opts *o)
{
    return o->generator ? o->generator : "ganim " GANIM_VERSION_STRING;
}

/* ---- conversion to the exporter's axes and units ------------------------------------ */
/* Root bones get q' = C*q and t' = C*t*unit; every other translation only t*unit. The
 * children are untouched because they live in their parent's (already turned) frame. */
typedef struct gx_conv {
    double c[4];             /* C as x, y, z, w */
    int identity;            /* C is the identity: skip the products */
    double unit;             /* translation multiplier */
    const char *description; /* written into the output's metadata */
} gx_conv;

static inline gx_conv gx_conv_make(const ganim_doc *doc, const ganim_export_opts *o)
{
    gx_conv cv;
    ganim_axes axes = o->keep_axes ? GANIM_AXES_Y_UP : doc->axes;
    ganim_quat c = ganim_axes_to_y_up(axes);
    cv.c[0] = c.x, cv.c[1] = c.y, cv.c[2] = c.z, cv.c[3] = c.w;
    if (axes == GANIM_AXES_Z_UP) { /* exact values, not the float32 ones */
        cv.c[0] = -0.70710678118654752440, cv.c[3] = 0.70710678118654752440;
    }
    cv.identity = c.x == 0 && c.y == 0 && c.z == 0;
    cv.unit = o->unit_scale != 0 ? (double)o->unit_scale : 1.0;
    cv.description = axes == GANIM_AXES_Z_UP     ? "rotate -90 deg about X"
                     : axes == GANIM_AXES_Y_DOWN ? "rotate 180 deg about X"
                                                 : "identity";
    return cv;
}

/* A rotation whose squared length is within GX_UNIT_LEN2 (2^-21) of 1 is unit to float
 * precision: it is written as it is (turned by C for roots), not divided by its length
 * again. Dividing a float quaternion that is already unit by its length in double
 * arithmetic moves a component by one float step now and then, and for some of the
 * results no float quaternion divides to them: exporting a rotation read back from
 * ganim's own file would not give the same bits. Rotations further from unit length
 * (Alamo's 16-bit components are up to 1e-4 off) are normalised as before. The glTF
 * reader repeats this arithmetic to undo it (src/formats/gltf/gltf_exact.c). */
#define GX_UNIT_LEN2 4.76837158203125e-7

/* A model rotation as the exporter writes it: unit length, turned by C for roots.
 * Returns 0 when the result is not a finite unit quaternion. */
static inline int gx_rotation(const gx_conv *cv, int root, const float *q, float *out)
{
    double d[4] = { q[0], q[1], q[2], q[3] };
    if (root && !cv->identity) ganim_dq_mul(cv->c, d, d);
    double len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + d[3] * d[3];
    if (!(len2 > 1e-12) || !isfinite(len2)) return 0;
    int unit = fabs(len2 - 1) <= GX_UNIT_LEN2;
    double len = sqrt(len2);
    for (int i = 0; i < 4; i++) out[i] = (float)(unit ? d[i] : d[i] / len);
    return 1;
}

static inline int gx_finite3(const float *v) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

/* A model translation as written: scaled by the unit, turned by C for roots. */
static inline int gx_translation(const gx_conv *cv, int root, const float *t, float *out)
{
    double d[3] = { t[0] * cv->unit, t[1] * cv->unit, t[2] * cv->unit };
    if (root && !cv->identity) ganim_dq_rot(cv->c, d, d);
    for (int i = 0; i < 3; i++) out[i] = (float)d[i];
    return gx_finite3(out);
}

/* ---- clip selection ------------------------------------------------------------------ */
/* With only_clip: 1 + an existing clip's index (an animation's when `need_anim`). */
static inline ganim_code gx_check_clip(const ganim_doc *doc, const ganim_export_opts *o, const char *who, int need_anim,
                                       ganim_error *err)
{
    if (!o->only_clip) return GANIM_OK;
    uint32_t ci = o->only_clip - 1;
    if (ci >= doc->clip_count) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "%s: clip %u does not exist (the file has %u clips)", who, ci, doc->clip_count);
    }
    if (need_anim && doc->clips[ci].kind != GANIM_CLIP_ANIMATION) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "%s: clip %u ('%s') is not an animation", who,
                          ci, doc->clips[ci].name);
    }
    return GANIM_OK;
}

/* Is clip `i` part of the export? */
static inline int gx_clip_selected(const ganim_doc *doc, const ganim_export_opts *o, uint32_t i, int need_anim)
{
    if (o->only_clip) return o->only_clip - 1 == i;
    return !need_anim || doc->clips[i].kind == GANIM_CLIP_ANIMATION;
}

/* ---- partners (ganim_clip.partner: two clips that play as one) ---------------------- */
/* The clip exported inside clip ci's animation, or NULL: none, or one at another frame
 * rate (the two are then exported apart; gx_partner_warn says so). */
static inline const ganim_clip *gx_partner(const ganim_doc *doc, uint32_t ci)
{
    const ganim_clip *c = &doc->clips[ci];
    if (!c->partner || c->kind != GANIM_CLIP_ANIMATION || c->partner > doc->clip_count) return NULL;
    const ganim_clip *p = &doc->clips[c->partner - 1];
    return p->kind == GANIM_CLIP_ANIMATION && p->fps == c->fps ? p : NULL;
}

/* absorbed[i] = 1 when clip i is written inside another exported clip's animation (and
 * so not on its own). NULL `*out` when no clip is; free with ganim_free(a, *out, *size). */
static inline int gx_absorbed_make(const ganim_allocator *a, const ganim_doc *doc, const ganim_export_opts *o,
                                   uint8_t **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    if (o->only_clip) return 1; /* the clip asked for is written, with its partner if any */
    uint32_t any = 0;
    for (uint32_t i = 0; i < doc->clip_count && !any; i++) any = gx_partner(doc, i) != NULL;
    if (!any) return 1;
    if (!(*out = ganim_alloc(a, doc->clip_count))) return 0;
    *size = doc->clip_count;
    memset(*out, 0, doc->clip_count);
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (gx_partner(doc, i)) (*out)[doc->clips[i].partner - 1] = 1;
    return 1;
}

/* Frames of clip ci's animation with its partner: the longer of the two (the shorter one
 * holds its last frame, as every glTF client and ganim_clip_sample do). */
static inline uint32_t gx_span(const ganim_doc *doc, uint32_t ci)
{
    const ganim_clip *c = &doc->clips[ci], *p = gx_partner(doc, ci);
    return p && p->frame_count > c->frame_count ? p->frame_count : c->frame_count;
}

/* Common entry checks: a valid model and a skeleton small enough for every exporter. */
static inline ganim_code gx_check_doc(const ganim_doc *doc, const char *who, ganim_error *err)
{
    if (!doc) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "%s: no document", who);
    ganim_code code = ganim_doc_validate(doc, err);
    if (code != GANIM_OK) return code;
    if (doc->skeleton && doc->skeleton->bone_count > GX_MAX_BONES) {
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, "%s: %u bones; at most %u can be exported", who,
                          doc->skeleton->bone_count, GX_MAX_BONES);
    }
    return GANIM_OK;
}

/* ---- children of every bone ------------------------------------------------------------ */
/* children of bone b: list[first[b] .. first[b+1]), ascending; roots: parent -1 ignored.
 * One allocation of 2n+1 u32 (`first` then `list`), freed with gx_children_free. */
typedef struct gx_children {
    uint32_t *first, *list;
    size_t bytes;
} gx_children;

static inline int gx_children_make(const ganim_allocator *a, const ganim_skeleton *sk, gx_children *c)
{
    uint32_t n = sk->bone_count;
    c->bytes = ((size_t)n * 2 + 1) * sizeof(uint32_t);
    c->first = ganim_alloc(a, c->bytes);
    if (!c->first) return 0;
    c->list = c->first + n + 1;
    memset(c->first, 0, c->bytes);
    for (uint32_t i = 0; i < n; i++)
        if (sk->bones[i].parent >= 0) c->first[sk->bones[i].parent + 1]++;
    for (uint32_t i = 0; i < n; i++) c->first[i + 1] += c->first[i];
    /* first[p] serves as the fill cursor (bones come in index order, so lists stay
     * sorted) and ends at the start of p+1: shift back by one afterwards. */
    for (uint32_t i = 0; i < n; i++) {
        int32_t p = sk->bones[i].parent;
        if (p >= 0) c->list[c->first[p]++] = i;
    }
    for (uint32_t i = n; i > 0; i--) c->first[i] = c->first[i - 1];
    c->first[0] = 0;
    return 1;
}

static inline void gx_children_free(const ganim_allocator *a, gx_children *c)
{
    ganim_free(a, c->first, c->bytes);
    c->first = c->list = NULL;
}

/* ---- unique names ---------------------------------------------------------------------- */
/* Bone names restricted to [A-Za-z0-9_-] (three.js strips or rewrites anything else),
 * empty names become bone_<i>, duplicates get _<i> (then _<i>_<k>). `extra` names (the
 * synthetic root, the mesh node) are made unique the same way after the bones. The rule
 * lives in core (ganim_names_make) because putting a clip into a game file matches the
 * names an export gave (Blender's files keep them, not the originals). */
typedef ganim_names gx_names;

static inline int gx_names_make(const ganim_allocator *a, const ganim_skeleton *sk, const char *const *extra,
                                uint32_t extra_count, gx_names *out)
{
    return ganim_names_make(a, sk, extra, extra_count, out);
}

static inline void gx_names_free(const ganim_allocator *a, gx_names *nm) { ganim_names_free(a, nm); }

/* ---- warnings and names ------------------------------------------------------------------ */
/* Tells the caller (opts->warn) what an export could not carry or chose for it. */
static inline void gx_warn(const ganim_export_opts *o, ganim_warning_code code, const char *fmt, ...)
    GANIM_PRINTF(3, 4);
static inline void gx_warn(const ganim_export_opts *o, ganim_warning_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ganim_warn_callback(o->warn, o->warn_user, code, fmt, ap);
    va_end(ap);
}

/* printf's "%.*g" of v (precision 1..17) as a string in buf, with '.' whatever LC_NUMERIC
 * says: messages write "%s" of it where they would write "%g". */
#define GX_GTEXT_CHARS (GNUM_DOUBLE_CHARS + 1)
static inline const char *gx_gtext(char buf[GX_GTEXT_CHARS], double v, int prec)
{
    if (isnan(v)) return copysign(1.0, v) < 0 ? "-nan" : "nan"; /* (not signbit: mingw's warns of a float conversion) */
    if (isinf(v)) return v < 0 ? "-inf" : "inf";
    buf[gnum_double_prec(buf, v, prec)] = 0;
    return buf;
}

/* The name an exporter gives clip ci: its own; unnamed animations take
 * o->default_clip_name (alone, or NAME_<index> when there are several animations);
 * "" when neither says anything. `buf` holds a made-up name. */
static inline const char *gx_clip_name(const ganim_doc *doc, const ganim_export_opts *o, uint32_t ci, char *buf,
                                       size_t size)
{
    const ganim_clip *c = &doc->clips[ci];
    if (c->name[0] || !o->default_clip_name || c->kind != GANIM_CLIP_ANIMATION) return c->name;
    uint32_t anims = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) anims += doc->clips[i].kind == GANIM_CLIP_ANIMATION;
    if (anims == 1) snprintf(buf, size, "%s", o->default_clip_name);
    else snprintf(buf, size, "%s_%u", o->default_clip_name, ci);
    return buf;
}

/* A clip whose partner runs at another rate is exported apart from it: says so. */
static inline void gx_partner_warn(const ganim_doc *doc, const ganim_export_opts *o, uint32_t ci)
{
    const ganim_clip *c = &doc->clips[ci];
    if (!c->partner || gx_partner(doc, ci) || c->partner > doc->clip_count) return;
    const ganim_clip *p = &doc->clips[c->partner - 1];
    char a[GX_GTEXT_CHARS], b[GX_GTEXT_CHARS];
    gx_warn(o, GANIM_WARN_EXPORT_LOSS,
            "clip %u ('%s') and its partner clip %u ('%s') run at different rates (%s and %s fps): exported as "
            "separate animations, not played together",
            ci, c->name, c->partner - 1, p->name, gx_gtext(a, c->fps, 6), gx_gtext(b, p->fps, 6));
}

/* The name of clip ci's animation: gx_clip_name, and "+" and its partner's name when the
 * partner plays in it ("body_0+weapon_6": both slots). */
static inline const char *gx_anim_name(const ganim_doc *doc, const ganim_export_opts *o, uint32_t ci, char *buf,
                                       size_t size)
{
    const ganim_clip *p = gx_partner(doc, ci);
    if (!p) return gx_clip_name(doc, o, ci, buf, size);
    char part[2][256];
    uint32_t idx[2] = { ci, doc->clips[ci].partner - 1 };
    for (int k = 0; k < 2; k++) {
        const char *n = gx_clip_name(doc, o, idx[k], part[k], sizeof part[k]);
        if (!n[0]) snprintf(part[k], sizeof part[k], "clip_%u", idx[k]);
        else if (n != part[k]) snprintf(part[k], sizeof part[k], "%.*s", (int)(sizeof part[k] - 1), n);
    }
    snprintf(buf, size, "%.*s+%.*s", (int)(size / 2 - 1), part[0], (int)(size / 2 - 1), part[1]);
    return buf;
}

/* ---- BVH -------------------------------------------------------------------------------- */
/* The poses the BVH export keeps between its two walks over the frames (the scan that
 * chooses the channels before the HIERARCHY, then the MOTION lines): at most this many
 * bytes (40 a bone a frame: 200 bones x 1,000 frames fit, about the export's own text);
 * the frames past it are sampled again. */
#define GX_BVH_KEEP ((size_t)8 << 20)
/* ganim_export_bvh keeping at most `keep` bytes of poses (GX_BVH_KEEP; tests take others:
 * the output does not depend on it). */
ganim_code gx_export_bvh_keep(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out, size_t keep,
                              ganim_error *err);

/* ---- text ------------------------------------------------------------------------------ */
/* Text then an unsigned integer (",\"count\":" 12): what gw_printf(w, "...%u", v) writes,
 * without printf, for text written per bone, clip, track or key. */
static inline void gx_text_dec(ganim_writer *w, const char *text, uint64_t v)
{
    gw_str(w, text);
    gw_dec(w, v);
}

/* printf("%.9g") that always uses '.', whatever LC_NUMERIC says. */
static inline void gx_g9(ganim_writer *w, double v) { gw_double_prec(w, v, 9); }

/* The base64 digits (RFC 4648, padded) of the n bytes at p, stored at o; returns the end.
 * gx_b64_digits takes AVX2, then SSSE3, where the processor has them; gx_b64_digits_upto
 * no further than `level` (0 scalar, 1 SSSE3, 2 AVX2); gx_b64_digits_scalar never (all give
 * the same digits: test_export_gltf). */
uint8_t *gx_b64_digits(uint8_t *o, const uint8_t *p, size_t n);
uint8_t *gx_b64_digits_upto(uint8_t *o, const uint8_t *p, size_t n, int level);
uint8_t *gx_b64_digits_scalar(uint8_t *o, const uint8_t *p, size_t n);

#endif
