/* Petroglyph Alamo (Star Wars: Empire at War / Forces of Corruption): what the files of
 * src/formats/alamo share.
 *   .ALO  model; only its skeleton (chunk 0x200) is read and written (alamo_alo.c)
 *   .ALA  animation, format 1 (per-track data chunks) and format 2 (shared frame blocks)
 * Layouts and the evidence behind them: docs/formats/alamo.md.
 *
 * An .ALA is first parsed into a "plan": the file's content as raw integers
 * (quantisation offsets and scales, 16-bit values, indices), independent of the format
 * version (alamo_ala_parse.c). The reader turns a plan into a clip (alamo_ala_read.c); the encoder
 * turns a plan into bytes of either version (alamo_ala_encode.c); the writer either parses the
 * clip's native record (the .ALA file itself) back into a plan, when the clip still
 * decodes to exactly those values, or quantises the clip into a new plan like the
 * official exporter does (alamo_ala_write.c). */
#ifndef GANIM_FORMATS_ALAMO_ALA_H
#define GANIM_FORMATS_ALAMO_ALA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "formats/alamo/alamo_chunk.h"
#include "formats/format.h"
#include "io/bytes.h"
#include "io/reader.h"
#include "io/writer.h"

#define ALA "alamo-ala"
#define ALO "alamo-alo"

enum {
    ALA_ROOT = 0x1000,
    ALA_HEADER = 0x1001,
    ALA_TRACK = 0x1002,
    ALA_TRACK_HEADER = 0x1003,
    ALA_TRANS = 0x1004,
    ALA_SCALE = 0x1005,
    ALA_ROT = 0x1006,
    ALA_VIS = 0x1007,
    ALA_STEP = 0x1008,
    ALA_ROT_BLOCK = 0x1009,
    ALA_TRANS_BLOCK = 0x100a,
    ALA_SCALE_BLOCK = 0x100b,
    ALO_SKELETON = 0x200,
    ALO_SKEL_HEADER = 0x201,
    ALO_BONE = 0x202,
    ALO_BONE_NAME = 0x203,
    ALO_BONE_V1 = 0x205,
    ALO_BONE_V2 = 0x206
};

/* Mini-chunk 6..9 of a track header. */
enum { V_TOFF = 0, V_TSCALE, V_SOFF, V_SSCALE };

static const uint32_t ONE_F32 = 0x3F800000u;

/* Per-frame 16-bit values: frame f, component k at base + f*stride + 2k. base NULL: none. */
typedef struct ala_stream {
    const uint8_t *base;
    size_t stride;
} ala_stream;

typedef struct ala_ptrack {
    uint64_t offset;     /* file offset of the 0x1002 chunk (0 when built) */
    const uint8_t *name; /* mini-chunk 4 payload, NUL included when present */
    uint8_t name_size;
    uint32_t index; /* mini-chunk 5 */
    bool has_unk10;
    uint32_t unk10;
    uint32_t vec[4][3];       /* raw float bits of mini-chunks 6, 7, 8, 9 */
    int16_t tidx, sidx, ridx; /* format 2 element indices, -1 = none */
    int16_t defrot[4];        /* format 2 mini 17; format 1: the constant / first quat */
    ala_stream trans, scale, rot;
    const uint8_t *vis, *step; /* (frames+7)/8 bytes, LSB first */
    /* the reader's: a format-2 translation [0] or scale [1] channel's array, decoded after
     * the tracks (alamo_ala_read.c, decode_late), or NULL */
    float *late[2];
} ala_ptrack;

typedef struct ala_plan {
    int version; /* 1 or 2 */
    uint32_t frames;
    uint32_t fps_bits;
    uint32_t track_count;
    uint32_t rfs, tfs, sfs; /* format 2 frame sizes in 16-bit elements */
    const uint8_t *rblock, *tblock, *sblock;
    ala_ptrack *tracks;
    bool canonical;      /* layout is exactly what the encoder produces */
    uint64_t odd_offset; /* first thing that is not canonical */
    char odd[96];
    /* memory owned by the plan (built plans and track arrays) */
    const ganim_allocator *alloc;
    void *owned[4];
    size_t owned_size[4];
} ala_plan;

/* ---- ala_parse.c --------------------------------------------------------------------- */
/* Parse a whole .ALA into `p` (caller sets p->alloc; ala_plan_free afterwards). */
ganim_code ala_parse(ala_plan *p, const uint8_t *data, size_t size, ganim_error *err);
/* Zeroed memory owned by the plan (at most four blocks), freed by ala_plan_free. */
void *ala_plan_alloc(ala_plan *p, size_t count, size_t size);
void ala_plan_free(ala_plan *p);

static inline uint16_t ala_st_get(const ala_stream *s, uint32_t f, unsigned k)
{
    return ganim_ld_u16le(s->base + (size_t)f * s->stride + 2u * k);
}
/* A stored rotation (x, y, z, w / 32767) as a unit quaternion; real files are unit to
 * 1e-3, anything else is normalised (a zero one becomes the identity). */
void ala_dec_rot(const int16_t raw[4], float out[4]);
/* The same, saying whether the stored one was unit (ala_rot_is_unit): false when repaired. */
bool ala_dec_rot_unit(const int16_t raw[4], float out[4]);
bool ala_rot_is_unit(const int16_t raw[4]);
/* Decoded value of one channel (0 rotation, 1 translation, 2 scale) at frame f (ignored
 * for constant channels), shared by the reader and by the writer's native check. */
void ala_plan_value(const ala_ptrack *t, int channel, uint32_t f, float *out);
bool ala_plan_has_stream(const ala_ptrack *t, int channel);

/* ---- ala_values.c: whole channels at once, each value as ala_plan_value gives it ------ */
/* Frames 0..count-1 of a rotation stream (s->base set) into out[4 * count]; returns the
 * first frame that was not unit (and was normalised), or UINT32_MAX. */
uint32_t ala_dec_rots(const ala_stream *s, uint32_t count, float *out);
/* ala_dec_rots by a chosen path, for tests: ALA_PATH_BASE (SSE2 where the compiler has it,
 * else the scalar reference) or ALA_PATH_AVX2 (eight quaternions a turn, the rest as the
 * base path; ala_dec_rots takes it where the CPU has AVX2). False when this build or CPU
 * lacks the path (nothing written); else *bad is ala_dec_rots' result. */
enum { ALA_PATH_BASE, ALA_PATH_AVX2 };
bool ala_dec_rots_on(int path, const ala_stream *s, uint32_t count, float *out, uint32_t *bad);
/* offset + stored * scale for frames 0..count-1 of a translation or scale stream into
 * out[3 * count] (s->base NULL: the offset alone, into out[3]); false when a value is not
 * finite. */
bool ala_dec_vecs(const ala_stream *s, const uint32_t off[3], const uint32_t scl[3], uint32_t count, float *out);
/* ala_dec_vecs of a stream (s->base set) whose offsets o and scales m passed
 * ala_vecs_surely_finite: no test, nothing to report (decode_late calls it for each run of
 * each channel). */
void ala_dec_vecs_sure(const ala_stream *s, const float o[3], const float m[3], uint32_t count, float *out);
/* True when offset + stored * scale is finite for every stored value 0..65535 (then
 * ala_dec_vecs of a stream with these returns true, whatever its values). */
bool ala_vecs_surely_finite(const uint32_t off[3], const uint32_t scl[3]);

/* Visibility or step bits (LSB first, count bits in nbytes) as one byte 0 or 1 per frame
 * into out[count], as gb_lsb_unpack gives them (with SSE2 32 at a time); false when count
 * bits do not fit in nbytes. */
bool ala_unpack_bits(const uint8_t *bits, size_t nbytes, uint32_t count, uint8_t *out);

/* ---- ala_encode.c -------------------------------------------------------------------- */
ganim_code ala_encode(ala_plan *p, int version, ganim_buffer *out, ganim_error *err);

/* ---- ala_write.c --------------------------------------------------------------------- */
/* The writer's 16-bit integers for rotation q (rounded, or truncated when trunc, as the
 * clip's other rotations went); *how (may be NULL): 1 rounded, 2 truncated, 3 both, 0
 * neither or tied. Exposed for test_alamo_rot16, which holds the old search. */
void ala_rot16(const float q[4], int trunc, int16_t out[4], int *how);
/* The same for both: out[0] rounded (trunc 0), out[1] truncated (trunc 1). */
void ala_rot16_both(const float q[4], int16_t out[2][4], int *how);
/* floor(x) (a -0 comes back +0), without a call where |x| < 2^52. */
double ala_floor(double x);

/* Is the stored name (n bytes, NUL-terminated or not) exactly `name`? */
bool ala_name_same(const uint8_t *raw, size_t n, const char *name);

/* ---- the formats' entry points and options (alamo.c lists them) ------------------------ */
enum { ALAMO_OPT_VERSION = 0, ALAMO_OPT_COUNT }; /* alamo_options by name */
extern const ganim_option alamo_options[ALAMO_OPT_COUNT];
int alamo_ala_probe(const uint8_t *data, size_t size);
ganim_code alamo_ala_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                          ganim_error *err);
ganim_code alamo_ala_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err);
ganim_code alamo_ala_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b,
                             ganim_error *err);
int alamo_ala_companion(const char *base, const char *const *names, size_t count); /* companion.c */
int alamo_alo_probe(const uint8_t *data, size_t size);
ganim_code alamo_alo_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                          ganim_error *err);
ganim_code alamo_alo_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err);

#endif
