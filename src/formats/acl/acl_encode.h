/* The ACL encoder's insides, shared by acl_encode.c (the clip's samples, constant and
 * default sub-tracks, ranges, segments), acl_encode_rate.c (the error metric and the
 * bit-rate search) and acl_encode_emit.c (the bytes of a compressed_tracks buffer).
 * acl_write.c is the "acl" format's writer and acl_civ7_write.c wraps the buffer in a
 * Civilization VII V1 container. Design: docs/formats/acl.md, "Writing". */
#ifndef GANIM_FORMATS_ACL_ENCODE_H
#define GANIM_FORMATS_ACL_ENCODE_H

#include "formats/acl/acl_internal.h"

/* The writer's settings (acl.* options). */
typedef struct acl_enc_params {
    uint16_t version; /* 7 (ACL 2.0) or 10 (ACL 2.1) */
    float precision;  /* object-space error allowed at the shell distance */
    float shell;      /* distance of the points the error is measured at */
    int level;        /* ACL_LEVEL_* */
    int metadata;     /* 1: track list name, track names and parents */
    int metadata_set; /* acl.metadata said yes or no (else chosen by acl_metadata_auto) */
    uint8_t fmt[3];   /* per kind, ACL's format number: rotation 3 (quatf_drop_w_variable),
                         2 (drop_w_full) or 0 (quatf_full); translation and scale 1
                         (vector3f_variable) or 0 (vector3f_full). Full: every animated
                         sub-track raw, no ranges. */
} acl_enc_params;

/* Is kind k stored with variable bit widths (else raw floats)? */
static inline int enc_variable(const acl_enc_params *p, unsigned k) { return p->fmt[k] == (k == K_ROT ? 3u : 1u); }

enum { ACL_LEVEL_MEDIUM = 0, ACL_LEVEL_HIGH, ACL_LEVEL_HIGHEST, ACL_LEVEL_AUTOMATIC };

/* The search aims this much under the precision, so that ACL's own float32 measure of
 * the same error (object space through the hierarchy) stays within it too. */
#define ACL_ENC_MARGIN 0.995
/* Searches run again after a held sub-track becomes animated (acl_encode.c) at most this
 * many times: a bound on the time a hostile clip can take. */
#define ACL_ENC_MAX_ROUNDS 32u
/* The metric, in double, resolves its points to a few units of 2^-52 of their magnitude
 * a level of the chain: it decides a bone only when the largest magnitude along the chain
 * times its depth times ACL_ENC_RESOLUTION stays within ACL_ENC_RESOLVE of the target
 * (under ACL_ENC_MARGIN's 1/200 below the precision). Else the bone is kept exact. */
#define ACL_ENC_RESOLUTION 0x1p-50
#define ACL_ENC_RESOLVE 0x1p-8
#define ACL_ENC_FLAT_WORK 1e7  /* unknown hierarchy: largest nt^2 * samples narrowed one by one */
#define ACL_ENC_RAW 31u        /* width index of a raw (three float32) sub-track */
#define ACL_SEG_IDEAL 16u      /* samples a segment aims at */
#define ACL_SEG_MAX 31u        /* most samples in one segment */
#define ACL_ENC_MAX_WIDTH 23u  /* widest quantised sub-track (ACL 2.1) */
#define ACL_ENC_MAX_WIDTH7 19u /* ACL 2.0's widest */
#define ACL_ENC_MIN_WIDTH7 3u  /* ACL 2.0's narrowest */

/* One animated sub-track in one segment. */
typedef struct acl_sub {
    uint8_t width;            /* 0 (constant in the segment), 1..23, or ACL_ENC_RAW */
    uint8_t smin[3], sext[3]; /* segment range (8 bits a component) */
    uint16_t cq[3];           /* width 0: the value, 16 bits a component of the clip range */
} acl_sub;

typedef struct acl_enc {
    ganim_allocator A;
    acl_enc_params p;
    double target; /* the error aimed at: a little under the precision (ACL_ENC_MARGIN) */
    uint32_t nt, ns, nseg;
    float rate;
    int has_scale, wrap;
    int32_t *parent;    /* nt; -1 for roots, always lower than the child */
    const char **names; /* nt (metadata) */
    const char *list_name;
    float *raw;         /* ns * nt * 10: rotation xyzw (w >= 0), translation, scale */
    float *norm;        /* ns * nt * 9: animated values in their clip range, [0, 1] */
    uint8_t *type;      /* nt * 3: T_DEFAULT, T_CONST, T_ANIM */
    float *cval;        /* nt * 3 * 4: constant and default values as the decoder rebuilds them */
    float *cmin, *cext; /* nt * 3 * 3: clip range of animated sub-tracks */
    float *rigid;       /* nt: shell distance covering the bone's descendants (local search) */
    float *pscale;      /* nt: largest scale the ancestors apply to the bone's space */
    /* Unknown hierarchy (every bone a root, more than one bone: what a Civ VII V0 file or an
     * ACL buffer without metadata gives): the bones may form any hierarchy, so each bone's
     * error is bounded as if every other bone hung below it (acl_enc_flat_bound) and the
     * bounds of all the bones together must stay within the target. */
    int flat;
    double lever;     /* flat: shell + the sum of every bone's largest translation */
    double gscale;    /* flat: the product of every bone's largest scale above 1 */
    double *reach;    /* flat: nt, shell + every other bone's largest translation length */
    double *smax;     /* flat: 2 * nt, scratch for flat_reach */
    double share;     /* flat: what each bone may take of the bound at first */
    int geo;          /* flat: bound through the depths' scale products (scales below 1) */
    double lever_geo; /* flat, geo: the lever through those products */
    /* Known hierarchy: 1 where the metric, computed in double on positions as far out as
     * the bone's chain puts them, cannot resolve the target (acl_encode.c, exact_chains):
     * the bone and its ancestors are kept exact (no default or constant unless every
     * sample equals it, animated sub-tracks raw, no key frame stripped). */
    uint8_t *exact;      /* nt */
    int any_exact;       /* some bone is */
    uint32_t *seg_start; /* nseg + 1 */
    acl_sub *subs;       /* nseg * nt * 3 */
    /* Trivial key-frame stripping (acl_enc_strip): per segment, the samples stored, bit
     * (31 - i) for segment sample i; `stripped` when any segment stores fewer than all. */
    uint32_t *kept; /* nseg */
    int stripped;
    /* Known hierarchy: the largest object error acl_enc_search left (search_known: set by
     * the search, for acl_enc_max_error; search_found: some bone's error is above 0, at
     * search_track, the first bone at the largest in segment order). Cleared where what
     * it measured changes: a type promoted (promote_one), the samples stripped. */
    int search_known, search_found;
    double search_worst;
    uint32_t search_track;
} acl_enc;

static inline const float *enc_raw(const acl_enc *e, uint32_t s, uint32_t t)
{
    return e->raw + ((size_t)s * e->nt + t) * 10u;
}
static inline const float *enc_norm(const acl_enc *e, uint32_t s, uint32_t t, unsigned k)
{
    return e->norm + ((size_t)s * e->nt + t) * 9u + 3u * k;
}
static inline acl_sub *enc_sub(const acl_enc *e, uint32_t g, uint32_t t, unsigned k)
{
    return e->subs + ((size_t)g * e->nt + t) * 3u + k;
}
/* Bits a component at width w. */
static inline unsigned enc_bits(unsigned w) { return w == ACL_ENC_RAW ? 32u : w; }

/* acl_encode_rate.c: the value the decoder rebuilds for sub-track (t, kind) at sample s
 * (in segment g) with the settings in `sub`, bit for bit as acl_open.c / rec_decode do. */
void acl_enc_value(const acl_enc *e, uint32_t g, uint32_t t, unsigned kind, uint32_t s, const acl_sub *sub, float o[4]);
/* The quantised integer of component c (what the bitstream holds) at width w. */
uint32_t acl_enc_quant(const acl_enc *e, uint32_t g, uint32_t t, unsigned kind, uint32_t s, const acl_sub *sub,
                       unsigned c);
/* Unknown hierarchy: a bound on the object-space error that bone t with raw local x and
 * decoded local y adds to any bone of any chain it could be in. */
double acl_enc_flat_bound(const acl_enc *e, uint32_t t, const float *x, const float *y);
/* Its parts before the other bones' scales: r, the rotation and scale change per unit of
 * length below the bone; d, the translation change; sm, the bone's largest scale or 1. */
void acl_enc_flat_terms(const float *x, const float *y, double *r, double *d, double *sm);
/* sc[0..n-1], a bone's largest scale each, becomes the products of the k largest for k = 0..n-1,
 * sorted largest first (what the ancestors of a bone at depth k can multiply by at most);
 * returns shell * the largest product + the largest translations tl[] (sorted, largest
 * first; may be NULL) each times a product: the lever any bone's change can act on. */
double acl_enc_depth_products(double *sc, uint32_t n, double shell, double *tl);
/* Picks every segment's bit widths (the search); needs type, ranges and segments. */
ganim_code acl_enc_search(acl_enc *e, ganim_error *err);
/* Largest object-space error over every sample and track of the encoded clip, and the
 * track where it is (may be NULL); infinity when out of memory. Known hierarchy, right
 * after acl_enc_search: the search's own measure of the same (search_worst). */
double acl_enc_max_error(const acl_enc *e, uint32_t *track);

/* Drops the key frames that the decoder's interpolation of their stored neighbours
 * rebuilds within the target for every bone (ACL 2.1's strip_trivial); needs the search
 * done; unknown hierarchy: by the bound of the worst chain (acl_enc_flat_bound). Format
 * version 10 only (ACL 2.0 has no stripping); leaves every sample kept otherwise. */
void acl_enc_strip(acl_enc *e);
/* Samples stored in segment g. */
static inline uint32_t enc_kept_count(const acl_enc *e, uint32_t g)
{
    return e->stripped ? popcount32(e->kept[g]) : e->seg_start[g + 1u] - e->seg_start[g];
}

/* acl_encode_emit.c: the buffer's bytes, appended to `out`. */
ganim_code acl_enc_emit(const acl_enc *e, ganim_buffer *out, ganim_error *err);

/* acl_encode.c: encodes the document's first animation (its skeleton gives parents and
 * names) into an ACL compressed_tracks buffer appended to `out`. */
ganim_code acl_encode_doc(const ganim_doc *doc, const acl_enc_params *p, const ganim_allocator *alloc,
                          ganim_buffer *out, ganim_error *err);

/* acl_write.c: the "acl" writer, its options and the settings they give (also used by
 * the civ7 writer for V1 bodies). */
enum { ACL_OPT_VERSION, ACL_OPT_PRECISION, ACL_OPT_SHELL, ACL_OPT_LEVEL, ACL_OPT_METADATA, ACL_OPT_COUNT };
extern const ganim_option acl_options[ACL_OPT_COUNT];
/* acl.metadata=auto: 0 when the skeleton has several bones, every one a root (its
 * hierarchy unknown), and every name empty or made up by a reader ("track_<i>",
 * "bone_<i>" at its own index i): metadata would only declare a false hierarchy. Else 1. */
/* Several bones, every one a root: the hierarchy is unknown (a V0 file, a buffer without
 * metadata), so the encoder bounds the error for any hierarchy (acl_encode.c). */
int acl_hierarchy_unknown(const ganim_skeleton *sk);
int acl_metadata_auto(const ganim_skeleton *sk);
ganim_code acl_write_params(const ganim_doc *doc, const ganim_write_opts *opts, acl_enc_params *p, ganim_error *err);
/* Tells the caller (a write warning) that the document's skeleton has several bones, all
 * roots: the encoder then bounds the error for any hierarchy, at a cost in size. */
void acl_warn_unknown_hierarchy(const ganim_doc *doc, const ganim_write_opts *opts, const char *format);
ganim_code acl_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err);

/* acl_civ7_write.c: the civ7 writer's options. */
enum { CIV7_OPT_VERSION, CIV7_OPT_COUNT };
extern const ganim_option civ7_options[CIV7_OPT_COUNT];

#endif
