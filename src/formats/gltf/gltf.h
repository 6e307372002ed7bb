/* glTF 2.0 (.glb, .gltf): what the files of src/formats/gltf share. Read only: ganim
 * writes glTF with its exporter (src/export/export_gltf*.c).
 *
 *   gltf.c           the descriptor, options, probe, and the read in order: container,
 *                    JSON, ganim's own metadata, skeleton, animations, details record
 *   gltf_file.c      what every part uses on the file read: scratch memory, checked indices
 *   gltf_data.c      buffers (GLB chunk, data URIs, other files), views and accessors
 *   gltf_skeleton.c  nodes, the skin that becomes the skeleton, rest poses, the nodes
 *                    above the joints whose transforms are folded into them
 *   gltf_anim.c      animations -> clips: the frame rate, key times -> frames, LINEAR,
 *                    STEP, CUBICSPLINE, step bits and hold keys, visibility
 *   gltf_exact.c     undoing ganim's export conversion so that values come back exactly
 *   gltf_carry.c     what ganim's exporter carried in extras.ganim (native records, opaque
 *                    clips, partners split back, clip indices and names, events)
 *   gltf_details.c   the details record and what `ganim info` shows
 * Conventions and evidence: docs/formats/gltf.md. */
#ifndef GANIM_FORMATS_GLTF_GLTF_H
#define GANIM_FORMATS_GLTF_GLTF_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "formats/format.h"
#include "io/json.h"
#include "io/reader.h"

#define GLTF_FORMAT "gltf"
#define GLTF_MAX_DEPTH 64 /* JSON nesting */
/* The JSON tree (with the parser's stack) may take this many bytes per byte of text, plus
 * GLTF_JSON_FLOOR for any text, and never more than the read's memory limit. */
#define GLTF_JSON_BYTES_PER_BYTE 8u
#define GLTF_JSON_FLOOR ((size_t)64 << 10)
/* JSON texts up to this size hold their animations' samplers in the tree from the start
 * (gltf.c's read_json); longer ones parse each animation's when it is read, so that the
 * tree does not hold them all at once. */
#define GLTF_SAMPLERS_TOGETHER ((size_t)256 << 10)
#define GLTF_NONE UINT32_MAX
/* gltf_file.recs: the root's accessors, bufferViews, nodes, meshes and skins (the first
 * GLTF_ROOT_RECORD_KINDS, depth 0; of the meshes the read uses only their count), the
 * animations' samplers and channels (depth 2) */
enum {
    GLTF_ACCESSORS = 0,
    GLTF_VIEWS = 1,
    GLTF_NODES = 2,
    GLTF_MESHES = 3,
    GLTF_SKINS = 4,
    GLTF_SAMPLERS = 5,
    GLTF_CHANNELS = 6,
    GLTF_RECORD_KINDS = 7,
    GLTF_ROOT_RECORD_KINDS = GLTF_SKINS + 1
};
/* A skin's fields when the skins are records (gltf.c's skin_names, in this order) */
enum { GLTF_SKIN_NAME = 0, GLTF_SKIN_JOINTS, GLTF_SKIN_EXTRAS, GLTF_SKIN_FIELDS };
/* The root's members the read looks up (gltf_top_names, in this order), found in one walk
 * by gltf_top_members: top[j] is gj_get(root, gltf_top_names[j]) (the first one when the
 * text repeats a name; NULL when absent or root is not an object). */
enum {
    GLTF_TOP_ASSET = 0,
    GLTF_TOP_NODES,
    GLTF_TOP_SKINS,
    GLTF_TOP_ANIMATIONS,
    GLTF_TOP_ACCESSORS,
    GLTF_TOP_VIEWS,
    GLTF_TOP_BUFFERS,
    GLTF_TOP_MESHES,
    GLTF_TOP_REQUIRED,
    GLTF_TOP_USED,
    GLTF_TOP_MEMBERS
};
extern const char *const gltf_top_names[GLTF_TOP_MEMBERS];
void gltf_top_members(const gj_value *root, const gj_value **top);
/* For tests: 1 reads the accessors, bufferViews, nodes, meshes, samplers and channels as trees
 * always (the same outcome). A global, not a field as gj_parser.no_shapes is: its tests read through
 * ganim_read_memory, which reaches the parser by no field but a public option. */
extern int gltf_no_records;

enum { GLTF_ROT = 0, GLTF_TRANS = 1, GLTF_SCALE = 2 };                             /* channel paths */
enum { GLTF_LINEAR = 0, GLTF_STEP = 1, GLTF_CUBIC = 2 };                           /* interpolations */
enum { GLTF_BUF_GLB = 0, GLTF_BUF_DATA_URI, GLTF_BUF_EXTERNAL, GLTF_BUF_KINDS };   /* buffer storage */
enum { GLTF_RATE_GANIM = 0, GLTF_RATE_OPTION, GLTF_RATE_KEYS, GLTF_RATE_DEFAULT }; /* where fps came from */

/* ganim's export conversion as the exporter applies it (src/export/export.h, gx_conv):
 * root rotations q' = C q, root translations t' = C (t unit), other translations t unit. */
typedef struct gltf_conv {
    double c[4]; /* C, x y z w */
    int identity;
    double unit;
} gltf_conv;

typedef struct gltf_node {
    const char *name;       /* "" when the node has none */
    const char *ganim_name; /* extras.ganim.name (ganim's original bone name), or NULL */
    uint32_t ganim_flags;   /* extras.ganim.flags */
    int32_t parent;         /* -1: a root of the node forest */
    ganim_transform local;  /* its TRS, or the decomposed matrix */
    int32_t bone;           /* the bone it became, or -1 */
    uint64_t offset;        /* of its JSON object */
} gltf_node;

typedef struct gltf_buf {
    const uint8_t *data; /* NULL until needed */
    size_t size;
    ganim_buffer owned; /* another file's bytes, freed when the read ends */
    int kind;           /* GLTF_BUF_* */
    int loaded;
} gltf_buf;

/* The transform of the nodes between a bone and its parent bone (or the scene) that are
 * not bones: folded into the bone's rest pose and keys. Exact for uniform scales. */
typedef struct gltf_fold {
    double r[4], t[3], s[3];
} gltf_fold;

/* The last SCALAR float accessors (key times) read (gltf_data.c): their checked bytes,
 * for a read again, and the floats made of them for a use that shares them */
#define GLTF_ACC_MEMO 4
/* gltf_members' memo for one kind of object (zeroed before the first call): the tree's
 * names last found equal to each of the n names (name[j]), and the last object's member
 * names in order (seq, when it had at most GLTF_MEMO_SEQ members: seq_valid) with the
 * name each was found to be (at[i]: its j, or GLTF_MEMO_SEQ for none or a repeat). */
#define GLTF_MEMO_SEQ 8u
typedef struct gltf_memo {
    const char *name[GLTF_MEMO_SEQ];
    const char *seq[GLTF_MEMO_SEQ];
    uint8_t at[GLTF_MEMO_SEQ];
    uint8_t seq_valid;
    uint32_t seq_count;
} gltf_memo;

typedef struct gltf_acc_memo {
    const uint8_t *src;  /* NULL: none */
    const float *floats; /* in scratch, written by no one; NULL: none yet */
    uint64_t n, stride;
    uint32_t index;
    int comps, ints;
} gltf_acc_memo;

typedef struct gltf_file {
    ganim_doc *doc;     /* the document being filled */
    ganim_doc *scratch; /* arena for the JSON tree and temporaries, freed at the end */
    const ganim_read_opts *opts;
    ganim_error *err;
    const uint8_t *data;
    size_t size;
    int glb;
    const uint8_t *bin; /* the GLB BIN chunk, or NULL */
    size_t bin_size;
    uint64_t bin_offset, json_offset;
    const gj_value *root, *nodes_v, *skins_v, *anims_v, *accessors_v, *views_v, *buffers_v;
    /* the root's asset, extensionsRequired and extensionsUsed, and asset.extras.ganim
     * (NULL: absent; found once, for every part that reads them) */
    const gj_value *asset_v, *required_v, *used_v, *meta_v;
    /* The parser as it read the tree, for what it left to parse later (an animation's
     * samplers: gltf_json_later); json_used: the bytes counted against its bound by the
     * trees still in use, json_later_used: that and the last tree parsed later. */
    gj_parser json;
    /* The accessors, bufferViews, nodes, meshes, skins, samplers and channels read as records
     * (gltf.c's read_json: GLTF_ACCESSORS ... GLTF_CHANNELS; done when they were, an animation's
     * samplers and channels: GJ_RECORDS values) from json_text, instead of as trees */
    gj_records recs[GLTF_RECORD_KINDS];
    const uint8_t *json_text;
    size_t json_size, json_limit; /* the JSON text's bound's figures, for its name (json_limit_name) */
    size_t json_used, json_later_used;
    /* gltf_members' memos for the tree's channels, targets, bufferViews, accessors, nodes
     * and nodes' extras.ganim, and for the samplers of the last tree parsed later */
    gltf_memo memo_channel, memo_target, memo_view, memo_accessor, memo_sampler, memo_node, memo_node_ex;
    uint32_t node_count, accessor_count, view_count, buf_count;
    gltf_node *nodes;
    gltf_buf *bufs;
    gltf_acc_memo acc_memo[GLTF_ACC_MEMO];
    unsigned acc_memo_next;
    /* Scratch memory an animation's read made that later parts use (a buffer decoded, the
     * per-bone arrays of gltf_carry.c): counted up, the animation's temporaries are kept
     * to the end of the read instead of given back (gltf_read_animations). */
    unsigned scratch_kept;
    /* ganim's own files (asset.extras.ganim) */
    int ganim;      /* the file says it was made by ganim's exporter */
    int undo;       /* its conversion is undone (gltf.conversion=undo and understood) */
    int vis_scale;  /* its visibility was written as STEP scale keys */
    gltf_conv conv; /* identity unless undone */
    /* skeleton */
    int32_t skin; /* the skin that became the skeleton, -1: nodes */
    uint32_t bone_count;
    uint32_t *bone_node; /* node of each bone */
    gltf_fold *fold;     /* per bone, NULL when no bone has nodes to fold */
    uint8_t *folded;     /* per bone: 1 when fold[] applies */
    /* gltf_carry.c: per bone, reused by every animation */
    uint8_t *carry_owner, *carry_mask;
    uint32_t *carry_at;
    /* counts for the details */
    uint32_t folded_bones, reordered, skins, meshes, joints_in_skin;
    uint32_t buffer_kinds[GLTF_BUF_KINDS];
    uint32_t skipped_total;
} gltf_file;

/* Whether the string s is `lit` (its first byte compared before the call). */
static inline int gltf_is(const char *s, const char *lit) { return s[0] == lit[0] && strcmp(s, lit) == 0; }

/* ---- gltf_file.c --------------------------------------------------------------------------- */
/* Zeroed scratch memory (NULL: out of memory, with the error set). */
void *gltf_scratch(gltf_file *f, size_t count, size_t size);
/* The same, not zeroed: only for arrays written whole before anything reads them. */
void *gltf_scratch_raw(gltf_file *f, size_t count, size_t size);
/* An object's member as an index below `count`: 1 found, 0 absent, -1 bad (error set). */
int gltf_index(gltf_file *f, const gj_value *obj, const char *key, uint32_t count, const char *what, uint32_t *out);
/* The same for the member v (NULL: absent) named `key`. */
int gltf_index_of(gltf_file *f, const gj_value *v, const char *key, uint32_t count, const char *what, uint32_t *out);
/* The members names[0..n) (n <= GLTF_MEMO_SEQ) of an object in one pass (gj_get of each:
 * the first one when the text repeats a name, NULL when absent or obj is not an object).
 * memo (NULL: none; zeroed before the first call): the names of the tree last found equal
 * to each, known again by their address (the parser stores a name once), and the last
 * object's names in order: an object whose names are those, at the same addresses, has
 * its members where that one had them. Only while the tree that holds those names lives
 * (a tree from gj_parse_later is given back, and its memory may hold other names at the
 * same addresses: gltf_json_later forgets memo_sampler). */
void gltf_members_walk(const gj_value *obj, const char *const *names, const gj_value **out, unsigned n,
                       gltf_memo *memo);
static inline void gltf_members(const gj_value *obj, const char *const *names, const gj_value **out, unsigned n,
                                gltf_memo *memo)
{
    /* (the memo's usual answer here, in the caller: n is known there and nothing is spilled;
     * gltf_members_walk, out of line, does the rest) */
    if (memo && memo->seq_valid && obj && obj->type == GJ_OBJECT && obj->count == memo->seq_count) {
        const gj_value *items = obj->items;
        const uint32_t count = obj->count;
        uint32_t i = 0;
        while (i < count && items[i].key == memo->seq[i]) i++;
        if (i == count) { /* the last object's names, in order */
            for (unsigned j = 0; j < n; j++) out[j] = NULL;
            for (i = 0; i < count; i++)
                if (memo->at[i] < n) out[memo->at[i]] = &items[i];
            return;
        }
    }
    gltf_members_walk(obj, names, out, n, memo);
}
/* *v, when the JSON parser left it to parse later (GJ_LATER), parsed into the scratch arena
 * (given back with the animation's temporaries); any other value is left as it is. */
ganim_code gltf_json_later(gltf_file *f, const gj_value **v);

/* The fields fl (of records r) as the tree would hold those members (out[j] NULL: absent,
 * else &tmp[j]; an object's: its type and offset, no members); a string's text is one of
 * `strings` (NULL-ended) when its bytes are, else "". */
void gltf_fields_as_values(const gltf_file *f, const gj_records *r, const gj_field *fl, const char *const *strings,
                           gj_value *tmp, const gj_value **out);
/* A record's field fl as the tree's value would read: gj_uint's whole number in 0..max
 * (1, in *u; 0: absent, not a number or not one of those), and whether it is the string
 * `lit` (a record's strings hold no escapes: their bytes in the text are the string's). */
static inline int gltf_field_uint(const gltf_file *f, const gj_field *fl, uint64_t max, uint64_t *u)
{
    if (fl->type != GJ_NUMBER) return 0;
    int r = gj_uint_digits((const char *)f->json_text + fl->at, fl->count, max, u);
    if (r >= 0) return r;
    gj_value v; /* (the tree's value for it: gj_uint reads a number's type, text and length) */
    memset(&v, 0, sizeof v);
    v.type = GJ_NUMBER;
    v.text = (const char *)f->json_text + fl->at;
    v.count = fl->count;
    return gj_uint(&v, max, u);
}
static inline int gltf_field_is(const gltf_file *f, const gj_field *fl, const char *lit)
{
    size_t n = strlen(lit);
    return fl->type == GJ_STRING && fl->count == n && memcmp(f->json_text + fl->at + 1, lit, n) == 0;
}
/* Object `index` of the records `set` (of kind r) as the tree would hold it: its members by
 * gltf_fields_as_values (out[j] NULL: absent, else &tmp[j]; a string's text one of
 * `strings` or ""), and *obj standing in for the object (GJ_OBJECT, its offset, no
 * members), which it returns. For the root's records (recs[kind].set) and an animation's
 * (a GJ_RECORDS value's set). */
static inline const gj_value *gltf_record_object(const gltf_file *f, const gj_records *r, const gj_recset *set,
                                                 uint32_t index, const char *const *strings, gj_value *tmp,
                                                 gj_value *obj, const gj_value **out)
{
    gltf_fields_as_values(f, r, &set->field[(size_t)index * r->fields], strings, tmp, out);
    memset(obj, 0, sizeof *obj);
    obj->type = GJ_OBJECT;
    obj->offset = f->json_offset + set->at[index];
    return obj;
}

/* A span field's value (gj_records.spans: a GJ_LATER value whose text the parse checked as
 * JSON without escapes) read without its tree. gltf_span_item: the items of its array one
 * at a time, from *pos (0 at the first call): 1 and *item as the tree's item reads through
 * gj_is, gj_uint and gj_float (its type and offset; a NUMBER's text and length; nothing
 * else), 0 past the last item or when the text is not an array. gltf_span_floats:
 * gj_floats of the tree gj_parse_later would make of it (the same answer; out's floats
 * are not defined when it is 0). Both answer 0 for a value that is not GJ_LATER. */
int gltf_span_item(const gj_value *span, uint32_t *pos, gj_value *item);
int gltf_span_floats(const gj_value *span, float *out, uint32_t n);

/* ---- gltf_data.c --------------------------------------------------------------------------- */
/* What an accessor is read for, as messages name it: "animation 0 sampler 3 input". */
typedef struct gltf_use {
    uint32_t animation, sampler;
    const char *side; /* "input", "output" */
    int doc;          /* the floats go in the document (a channel may keep them), not scratch */
    int shared;       /* the caller writes nothing into them: the floats of an earlier read of
                       * the same accessor may be given (key times read by many channels) */
    int borrow;       /* the caller copies them before writing into them: the buffer's own
                       * float32 bytes may be given when they are packed, aligned and
                       * little-endian (no copy; they live as long as the read) */
    int borrowed;     /* set by the read: *out is the buffer's bytes (only with borrow) */
} gltf_use;
/* Accessor `index` as `comps` floats per element (1 SCALAR, 3 VEC3, 4 VEC4), from float
 * or (when `ints`) normalised integer components, sparse substitution applied. */
ganim_code gltf_accessor_floats(gltf_file *f, uint32_t index, int comps, int ints, gltf_use *use, float **out,
                                uint32_t *count);
/* Frees the other files' bytes. */
void gltf_buffers_free(gltf_file *f);

/* ---- gltf_skeleton.c ------------------------------------------------------------------------ */
ganim_code gltf_read_nodes(gltf_file *f);
ganim_code gltf_build_skeleton(gltf_file *f);
/* Skin s (below f->skins) as the tree's reads of it give, from the tree or (skins_v
 * GJ_LATER: the skins read as records) from its record. gltf_skin_name: the bytes of
 * gj_string of its "name" ("" when absent or not a string), *len of them (strlen of the
 * tree's; a record's string holds no escape, hence no NUL), not NUL-ended for a record.
 * gltf_skin_extras: gj_get of its "extras" (NULL: absent), a record's span parsed as its
 * tree, or in the shape ganim's exporter writes the values of it that gltf_carry.c reads
 * made in *x (which must live as long as they are read); a record's extras that is not an
 * object or array is given as NULL (its gj_get(, "ganim"), the one look the read takes, is
 * NULL either way). */
/* (gltf_skin_extras' values for the exporter's shape of a record's extras, read without a
 * tree: the extras, ganim, native_record, format, size and base64, and the format's copy) */
typedef struct gltf_skin_ex {
    gj_value v[6];
    char format[65];
} gltf_skin_ex;
const char *gltf_skin_name(const gltf_file *f, uint32_t s, uint32_t *len);
ganim_code gltf_skin_extras(gltf_file *f, uint32_t s, gltf_skin_ex *x, const gj_value **out);

/* ---- gltf_anim.c ---------------------------------------------------------------------------- */
ganim_code gltf_read_animations(gltf_file *f);

/* ---- gltf_exact.c --------------------------------------------------------------------------- */
/* ganim's conversion as written in asset.extras.ganim: 0 when the text is not one the
 * exporter writes. */
int gltf_conv_from_text(const char *axis_conversion, double unit, gltf_conv *cv);
/* The model value the exporter turned into `out`: the float nearest C^-1 out (/ unit),
 * nudged by a unit in the last place where that makes the exporter's own arithmetic
 * give `out` back bit for bit. `root`: the bone is a root (C applies). Returns the number
 * of searches made (1, or 2 when the negated key was searched too: only for a key with a
 * zero component that the first search could not find), for the test that watches the
 * cost of a key no search finds (a quantised clip on a flat skeleton: every bone a root). */
int gltf_undo_rotation(const gltf_conv *cv, int root, const float out[4], float q[4]);
void gltf_undo_translation(const gltf_conv *cv, int root, const float out[3], float t[3]);
/* Folds the transform of the nodes above a bone into one of its values. */
void gltf_fold_rotation(const gltf_fold *fd, float q[4]);
void gltf_fold_translation(const gltf_fold *fd, float t[3]);
void gltf_fold_scale(const gltf_fold *fd, float s[3]);
/* Unit quaternion in place (doubles); 0 when it has no direction (then the identity). */
int gltf_normalize_quat(float q[4]);

/* ---- gltf_carry.c ---------------------------------------------------------------------------- */
/* One clip as ganim's exporter described it in an animation's extras.ganim.clips (or an
 * opaque clip in asset.extras.ganim.opaque_clips). Checked before use: a description that
 * does not fit the file is ignored with a warning, and the file reads as without it. */
typedef struct gltf_carry_track {
    uint32_t bone, mask; /* mask: GLTF_CARRY_* */
    const char *name;    /* the track's own name, or NULL: its bone's */
} gltf_carry_track;
/* mask: the kind (ganim_channel_kind) of channel path p in bits 2p..2p+1; visibility and
 * step bytes */
enum { GLTF_CARRY_VIS = 64, GLTF_CARRY_STEP = 128 };
#define GLTF_CARRY_KIND(mask, path) ((unsigned)(mask) >> (2 * (path)) & 3u)
typedef struct gltf_carry_clip {
    uint32_t index;   /* in the document ganim exported; GLTF_NONE: not described */
    const char *name; /* NULL: not said (the animation's name is the clip's) */
    double fps;
    uint32_t frame_count;
    ganim_rotation_interp interp;
    uint32_t track_count;
    gltf_carry_track *tracks;
    uint32_t event_count;
    ganim_event *events;
    const char *record_format; /* NULL: no native record */
    const uint8_t *record;
    size_t record_size;
    const uint8_t *opaque; /* opaque clips: the slot's bytes */
    size_t opaque_size;
} gltf_carry_clip;
/* What an animation says about its clips: nd = 0 (nothing usable), 1, or 2 (a clip and
 * the partner played with it). Per bone: owner[b] = 1 + the clip whose tracks list it
 * (0: none), mask[b] = its channels. */
typedef struct gltf_carry_anim {
    uint32_t nd;
    gltf_carry_clip d[2];
    uint8_t *owner, *mask;
} gltf_carry_anim;
ganim_code gltf_carry_read_anim(gltf_file *f, const gj_value *anim, uint32_t ai, uint32_t span, gltf_carry_anim *out);
/* Gives a clip read from an animation what its description says: name, native record,
 * events, rotation interpolation, the tracks' order, names, visibility and step bytes.
 * `partner`: the animation holds two clips. */
ganim_code gltf_carry_apply(gltf_file *f, ganim_clip *clip, const gltf_carry_clip *d, int partner);
/* The skeleton's native record from the skin's extras.ganim. */
ganim_code gltf_carry_skeleton(gltf_file *f);
/* The document's clips in their original order, with the opaque clips and the partner
 * links back, and the document's native record. clips[0..made): the clips read, desc[k]
 * the description of clips[k] (index GLTF_NONE: none), partner[k]: the made clip played
 * with it, or GLTF_NONE. */
ganim_code gltf_carry_finish(gltf_file *f, ganim_clip *clips, uint32_t made, const gltf_carry_clip *desc,
                             const uint32_t *partner);

/* ---- gltf_details.c ------------------------------------------------------------------------- */
/* The details records: the document's (after the skeleton) and a clip's. */
typedef struct gltf_clip_stats {
    uint32_t animation, channels, samplers, used;
    uint32_t skipped_weights, skipped_outside, skipped_other;
    uint32_t interp[3];
    uint32_t rate_source;
    uint32_t clip_index; /* extras.ganim.clip_index, or GLTF_NONE */
    uint32_t holds, step_tracks, visibility_tracks, cubic_samples;
    double fps, duration;
} gltf_clip_stats;
ganim_code gltf_doc_record(gltf_file *f);
ganim_code gltf_clip_record(gltf_file *f, ganim_clip *clip, const gltf_clip_stats *st);
ganim_code gltf_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err);

#endif
