/* Argonaut's PlayStation engine (Croc 2, Harry Potter 1 and 2): what the files of
 * src/formats/argonaut share.
 *   argonaut_record.c   one animation record: its layout (sizes, regions) and sanity, a block walk
 *   argonaut_wad.c      level WADs: sections, the XSPD (DPSX) section, model records, the variant
 *   argonaut_clip.c     a record as a clip: matrices and quaternions to rotations, keys, triggers
 *   argonaut_read.c     the reader: WAD or bare block, the skeleton, the clips, the meshes
 *   argonaut_encode.c   a clip as a record (either variant, matrices or keys)
 *   argonaut_write.c    the writer: records back into their block, the block into its WAD
 *   argonaut_details.c  info and dump details
 *   argonaut_dir.c      DAT/DIR archives
 *   argonaut.c          the format descriptors and their options
 * docs/formats/argonaut.md tells the format and the evidence; this header tells how ganim
 * keeps it. Everything is little-endian. */
#ifndef GANIM_FORMATS_ARGONAUT_ARGONAUT_H
#define GANIM_FORMATS_ARGONAUT_ARGONAUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "formats/format.h"
#include "io/reader.h"

#define AG "argonaut"
#define AG_DIR "argonaut-dir"
#define AG_FPS 30.0              /* not stored: 30 (NTSC) is typical, 25 for PAL */
#define AG_MAX_BONES 1024u       /* vertex groups a record may animate in the model */
#define AG_PLAUSIBLE_FRAMES 500u /* both public readers warn above this */

enum { AG_CROC2 = 0, AG_HP = 1 };  /* record header 0x20 / 0x30, model header 0x64 / 0x68 */
enum { AG_SV = 0, AG_VS = 1 };     /* v' = S v + t, R(q)^T (default) / v' = S^T v + t, R(q) */
enum { AG_BLOCK = 0, AG_WAD = 1 }; /* a bare animations block, a level WAD */
enum { AG_FROM_PROBE = 0, AG_FROM_OPTION = 1 };

/* ---- one animation record (argonaut_record.c) ---------------------------------------------------
 * Header (0x20 Croc 2, 0x30 HP): u32 TriggerCount, slot, FrameCount, Flag (0: position
 * deltas present), s32 MorphCount, slot, BoneCount, slot; HP: KeyframeCount, three slots.
 * Body: triggers {u16 frame, u16 id}, deltas FC x s16[4] (Flag 0), morph slots FC x u32
 * (MC != 0), bone slots FC x u32 (FC != 0), key slots KC x u32 (HP, KC != 0); then per
 * frame the morph data (frame 0: 4 MC s16, later: MC s16 padded to 4 bytes; none when MC
 * is 0 or -1) and, unless keyed, BC matrices {s16 m[9] row-major, s16 t[3]}; then, keyed
 * (HP with KC != 0), KC x BC keys {s16 w, x, y, z, tx, ty, tz; u16 frame}. */
typedef struct ag_rec {
    const uint8_t *p; /* the record's first byte */
    size_t size;
    uint64_t offset; /* in the file */
    int hp;
    uint32_t tc, fc, flag, bc, kc;
    int32_t mc;
    uint32_t slot[6]; /* the slots at 0x04, 0x14, 0x1C and (HP) 0x24, 0x28, 0x2C */
    size_t o_trig, o_delta, o_mslots, o_bslots, o_kslots, o_frames, o_keys; /* from p */
    size_t morph0, morphn, bones; /* bytes: frame-0 morphs, a later frame's morphs,
                                     the matrices of one frame (0 when keyed) */
} ag_rec;

static inline bool ag_keyed(const ag_rec *r) { return r->hp && r->kc != 0; }
static inline size_t ag_header_size(int hp) { return hp ? 0x30u : 0x20u; }
/* Offset (from p) of frame f's morph data, and of matrix b of frame f. */
size_t ag_frame_at(const ag_rec *r, uint32_t f);
static inline size_t ag_matrix_at(const ag_rec *r, uint32_t f, uint32_t b)
{
    return ag_frame_at(r, f) + (f == 0 ? r->morph0 : r->morphn) + 24u * (size_t)b;
}
static inline size_t ag_key_at(const ag_rec *r, uint32_t k, uint32_t b)
{
    return r->o_keys + 16u * ((size_t)k * r->bc + b);
}
static inline int16_t ag_s16(const uint8_t *p) { return (int16_t)ganim_ld_u16le(p); }

/* The record at data[pos..end): its layout, or false with the reason in `why`. */
bool ag_rec_parse(const uint8_t *data, size_t pos, size_t end, uint64_t base, int hp, ag_rec *r, char *why,
                  size_t why_size);
/* How many things about a parsed record are implausible for the game's data (non-zero
 * slots, flags other than 0/1, no or too many frames or bones, matrices or quaternions
 * far from 4096): what tells the variants apart. The first one is described in `why`. */
unsigned ag_rec_oddities(const ag_rec *r, char *why, size_t why_size);

/* A walk over `count` records from data[pos..end). */
typedef struct ag_walk {
    uint32_t parsed;   /* records that parse */
    size_t end;        /* where the last of them ends */
    unsigned oddities; /* summed over the records */
    bool complete;     /* every record parsed */
    uint64_t bad_offset;
    char why[200]; /* the first record that does not parse, or the first oddity */
} ag_walk;
/* `out` (may be NULL) receives up to `count` records. */
void ag_walk_block(const uint8_t *data, size_t pos, size_t end, uint64_t base, int hp, uint32_t count, ag_rec *out,
                   ag_walk *w);

/* ---- level WADs (argonaut_wad.c) ------------------------------------------------------------------
 * u32 (file size + 0x800), then sections {char tag[4] stored reversed, u32 size, data}
 * until " DNE". XSPD (DPSX): u32 flags, u32, 0x800 bytes, u32 model count, the models,
 * u32 animation count and the records, then the rest of the level. A model: SVECTOR
 * bbox[9], u32 nvert, slot, slot, u32 nface, slot, u16 nfloor, u16 nceil, (HP: u16 nwall,
 * u16 pad,) slot; then nvert x {s16 x, y, z; u16 countdown} vertices, as many normals,
 * nface x 20-byte faces, (nfloor + nceil + nwall) collision faces of 44 (Croc 2) or 32
 * (HP) bytes. */
#define AG_MAX_SECTIONS 32u

typedef struct ag_section {
    char tag[5]; /* as stored */
    uint64_t offset;
    uint32_t size;
} ag_section;

typedef struct ag_model {
    const uint8_t *p;
    uint64_t offset;
    size_t size;
    uint32_t nvert, nface;
    uint16_t coll[3];                      /* floor, ceiling, wall (HP) */
    size_t o_vert, o_norm, o_face, o_coll; /* from p */
    uint32_t groups;
    bool countdowns_ok; /* vertex countdowns run down to 1 and normals repeat them */
} ag_model;

typedef struct ag_wad {
    uint32_t header_u32;
    uint32_t section_count; /* all of them; the first AG_MAX_SECTIONS kept */
    ag_section sections[AG_MAX_SECTIONS];
    size_t xspd; /* offset of the XSPD tag */
    size_t xspd_data, xspd_end;
    size_t end_of_sections; /* after " DNE" */
    uint32_t dpsx_flags;
    size_t models_at; /* the model count */
    uint32_t model_count;
    bool hp_sections; /* FINU, XSPL or TROP: only Harry Potter levels have them */
    size_t bad_at;    /* where the walk failed */
} ag_wad;

/* The section walk; false with the reason in `why`. */
bool ag_wad_sections(const uint8_t *data, size_t size, ag_wad *w, char *why, size_t why_size);
/* Walks the models under a variant: where they end (the animation count) in *block_at, the
 * models in `out` (may be NULL; wad->model_count of them), false with the reason. With
 * `strict`, inconsistent vertex countdowns fail the walk (probing). */
bool ag_wad_models(const uint8_t *data, const ag_wad *wad, int hp, bool strict, ag_model *out, size_t *block_at,
                   char *why, size_t why_size);
/* A WAD starts with its header u32 and the XSPT section. */
bool ag_looks_like_wad(const uint8_t *data, size_t size);

/* The variant of a WAD (wad != NULL) or of a bare block starting at data[pos]: the one
 * whose models and records fit, then the one with fewer oddities, then the sections'
 * word. Returns AG_CROC2 / AG_HP, or -1 with the reasons of both in `why`. `ambiguous`
 * (may be NULL) is set when both fit equally. */
int ag_detect(const uint8_t *data, size_t size, const ag_wad *wad, char *why, size_t why_size, bool *ambiguous,
              unsigned *oddities);

/* ---- a record as a clip (argonaut_clip.c) --------------------------------------------------------- */
/* Fills `clip` from `r` decoded under `convention`: an animation with one track per bone
 * (matrices per frame, or keys at their frames), events from the triggers, the native
 * record; warnings on `doc` name the clip `index`. A record that cannot be an animation
 * (no frames, no bones, too large) becomes an opaque clip with its bytes, with a warning. */
ganim_code ag_clip_from_record(ganim_doc *doc, ganim_clip *clip, const ag_rec *r, int convention, uint32_t index,
                               ganim_error *err);
/* What the stored matrix at p (9 s16 row-major, 3 s16 translation) reads as under
 * `convention`: rotation (and, where it is not a rotation within 2 %, scale) and
 * translation; returns 1 when it is a rotation, with its row lengths and determinant. */
int ag_matrix_transform(const uint8_t *p, int convention, ganim_transform *t, double rows[3], double *det);
/* The model's rotation of the stored key at p (s16 w, x, y, z): normalised, conjugated
 * under sv; a zero quaternion reads as no rotation (*zero set). */
ganim_quat ag_key_rotation(const uint8_t *p, int convention, bool *zero);

/* ---- native records --------------------------------------------------------------------
 * Clip ("argonaut"): 16-byte header: u32 'AGC1', u8 variant, u8 convention, u16 0, u32
 * the record's offset in the file, u32 its size; then the record's bytes.
 * Document ("argonaut"): 48-byte header: u32 'AGD1', u8 container, u8 variant, u8
 * convention, u8 variant_from, u32 stored animation count, u32 records read, u32 prefix
 * size, u32 suffix size, u32 model shown (--argonaut-model) or UINT32_MAX, u32 XSPD tag offset
 * (WAD), u32 input size, 8 zero bytes; then the prefix (the file up to the animation
 * count: the WAD's sections, header and models; nothing for a block) and the suffix
 * (everything after the last record read). */
#define AG_CLIP_MAGIC 0x31434741u /* "AGC1" */
#define AG_DOC_MAGIC 0x31444741u  /* "AGD1" */
#define AG_CLIP_HEADER 16u
#define AG_DOC_HEADER 48u

typedef struct ag_clip_info {
    int variant, convention;
    uint32_t offset;
    const uint8_t *record;
    size_t size;
} ag_clip_info;

typedef struct ag_doc_info {
    int container, variant, convention, variant_from;
    uint32_t stored_count, parsed, model, xspd, input_size;
    const uint8_t *prefix, *suffix;
    size_t prefix_size, suffix_size;
} ag_doc_info;

bool ag_clip_info_parse(const ganim_clip *clip, ag_clip_info *info);
bool ag_doc_info_parse(const ganim_doc *doc, ag_doc_info *info);
/* The record of a clip's native info, parsed; false when it is not one. */
bool ag_clip_record(const ag_clip_info *info, ag_rec *r);

/* ---- writing (argonaut_encode.c) ------------------------------------------------------------------ */
/* Appends clip `ci` of `doc` as a record of `variant` under `convention`. Its native
 * record, when it has one, is the template: the record's bytes when the clip still
 * decodes to them; else what the model does not hold (header flags and slots, position
 * deltas, morph data, the bone count, matrices or keys) comes from it, and the record's
 * own integers are kept wherever the clip's values still read as them. What the writer
 * had to make up is told through opts->warn. */
ganim_code ag_encode_clip(const ganim_doc *doc, uint32_t ci, int variant, int convention, const ganim_write_opts *opts,
                          ganim_buffer *out, ganim_error *err);

/* ---- the formats' entry points and options (argonaut.c lists them) ---------------------- */
enum { AG_OPT_VARIANT = 0, AG_OPT_CONVENTION, AG_OPT_MODEL, AG_OPT_CONTAINER, AG_OPT_COUNT }; /* argonaut_options */
extern const ganim_option argonaut_options[AG_OPT_COUNT];
int argonaut_probe(const uint8_t *data, size_t size);
ganim_code argonaut_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                         ganim_error *err);
ganim_code argonaut_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err);
ganim_code argonaut_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err);
int argonaut_dir_probe(const uint8_t *data, size_t size);
ganim_code argonaut_dir_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                             ganim_error *err);
ganim_code argonaut_dir_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b,
                                ganim_error *err);
ganim_code argonaut_dir_member(const uint8_t *data, size_t size, const char *member, const ganim_read_opts *opts,
                               ganim_buffer *out, ganim_error *err);

#endif
