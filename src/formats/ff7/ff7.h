/* FF7 PC battle animations: what the files of src/formats/ff7 share.
 *   ff7_records.c    the native records (layouts below)  ff7_skeleton.c  ??aa skeletons
 *   ff7_bitcode.c    the frame stream, both directions   ff7_angles.c    12-bit Euler angles
 *   ff7_model.c      slots <-> bones, raw <-> model      ff7_pack_read.c ??da packs: reader
 *   ff7_pack_write.c the writer                          ff7_resample.c  resampling
 *   ff7_details.c    info and dump details               ff7.c           the format descriptors
 * docs/formats/ff7-battle.md tells the format; this header tells how ganim keeps it. */
#ifndef GANIM_FORMATS_FF7_FF7_H
#define GANIM_FORMATS_FF7_FF7_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* The AVX path (ff7_slot_rotations): gcc or clang on x86, chosen at run time. */
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define FF7_HAVE_AVX 1
#include <immintrin.h>
#else
#define FF7_HAVE_AVX 0
#endif

#include "core/internal.h"
#include "formats/format.h"
#include "io/bits.h"
#include "io/reader.h"

#define FF7_FPS 15.0
#define FF7_MAX_STREAM 65535u /* sSize is a u16 */
#define FF7_MAX_FRAMES 65535u /* sFrames is a u16 */
#define FF7_SKELETON_HEADER 52u
#define FF7_SKELETON_BONE 12u

enum { FF7_ROLE_BODY = 0, FF7_ROLE_WEAPON, FF7_ROLE_EXTRA, FF7_ROLE_UNKNOWN };
enum { FF7_LAYOUT_NORMAL = 0, FF7_LAYOUT_FROG, FF7_LAYOUT_SPECIAL };

/* ---- the clip native record ("ff7-battle"), little-endian, 64-byte header ----------
 *   0 u32 magic 'F7C1'       4 u8 role, u8 layout, u8 bKey, u8 flags (FF7_FLAG_*)
 *   8 u32 dwBones           12 u32 dwFrames          16 u32 dwChunkSize
 *  20 u32 sFrames (stored)  24 u32 sSize             28 u32 slots
 *  32 u32 frames            36 u32 stream_bits (bits of the decoded frames)
 *  40 u32 trailer_size      44 u32 stream_size (original stream bytes kept, 0 if none)
 *  48 u32 entry offset in the source file            52..63 zero
 *  64 i32 positions[frames*3], u16 rotations[frames*slots*3] (0..4095),
 *     u8 trailer[trailer_size], u8 stream[stream_size]
 * Special slots use the same header (layout SPECIAL, frames 0); their bytes are the
 * clip's opaque bytes. */
#define FF7_CLIP_MAGIC 0x31433746u /* "F7C1" */
#define FF7_DOC_MAGIC 0x31443746u  /* "F7D1" */
#define FF7_CLIP_HEADER 64u
#define FF7_FLAG_SHORTEST 1u /* every decoded delta used its shortest code */

typedef struct ff7_clip_info {
    uint8_t role, layout, bkey, flags;
    uint32_t dw_bones, dw_frames, dw_chunk;
    uint32_t s_frames, s_size;
    uint32_t slots, frames;
    uint32_t stream_bits;
    uint32_t trailer_size, stream_size;
    uint32_t entry_offset;
    const uint8_t *pos; /* frames*3 LE i32 */
    const uint8_t *rot; /* frames*slots*3 LE u16 */
    const uint8_t *trailer;
    const uint8_t *stream;
    const uint8_t *record; /* the whole native record (set by parse) */
    size_t record_size;
} ff7_clip_info;

/* ---- the document native record ("ff7-battle") ------------------------------------
 *   0 u32 magic 'F7D1'   4 u32 nEntries as stored   8 u32 input size in bytes
 *  12 u32 body entries (skeleton nsSkeletonAnims, or UINT32_MAX without a skeleton)
 *  16 u32 weapon entries  20 u32 tail size   24..31 zero   32 tail bytes (after the
 *  last entry) */
#define FF7_DOC_HEADER 32u
typedef struct ff7_doc_info {
    uint32_t n_entries, input_size, n_body, n_weapon, tail_size;
    const uint8_t *tail;
} ff7_doc_info;

/* ---- the skeleton native record ("ff7-skeleton"): the file bytes, 52 + 12 n -------- */
typedef struct ff7_skel_info {
    uint32_t words[13];
    uint32_t n_bones, n_body_anims, n_weapon_anims;
} ff7_skel_info;

static inline uint32_t ff7_ld32(const uint8_t *p) { return ganim_ld_u32le(p); }

/* Parse / check records; false when the record is not ours or inconsistent. */
bool ff7_clip_info_parse(const ganim_clip *clip, ff7_clip_info *info);
bool ff7_doc_info_parse(const ganim_doc *doc, ff7_doc_info *info);
bool ff7_skel_info_parse(const ganim_skeleton *sk, ff7_skel_info *info);
static inline int32_t ff7_info_pos(const ff7_clip_info *in, size_t i)
{
    return (int32_t)ganim_ld_u32le(in->pos + 4 * i);
}
static inline uint16_t ff7_info_rot(const ff7_clip_info *in, size_t i)
{
    return (uint16_t)(in->rot[2 * i] | (in->rot[2 * i + 1] << 8));
}
/* A new clip record in `doc`'s arena with every field of `info` and the given arrays
 * (trailer and stream copied from info's pointers). */
uint8_t *ff7_clip_native_build(ganim_doc *doc, const ff7_clip_info *info, const int32_t *pos, const uint16_t *rot,
                               size_t *size);
/* On a little-endian host the record's arrays are int32 and uint16 arrays as they lie in
 * memory, so a reader decodes straight into them: ff7_clip_native_room makes a record
 * with room for max_frames frames and points *pos and *rot at its arrays;
 * ff7_clip_native_seal(p, info, max_frames) then writes the header of `info` (frames <=
 * max_frames), moves the rotations of fewer frames down to their place, copies trailer
 * and stream, and returns the record's size. */
bool ff7_host_little_endian(void);
uint8_t *ff7_clip_native_room(ganim_doc *doc, uint32_t max_frames, uint32_t slots, size_t trailer_size,
                              size_t stream_size, int32_t **pos, uint16_t **rot);
size_t ff7_clip_native_seal(uint8_t *p, const ff7_clip_info *info, uint32_t max_frames);

/* ---- bit stream -------------------------------------------------------------------- */
/* Decodes frame 0 and up to max_frames-1 delta frames that fit wholly in the stream.
 * pos: max_frames*3, rot: max_frames*slots*3. Returns frames decoded (0 if frame 0
 * does not fit); *bits = bits used by them; *shortest = every delta used its
 * shortest code (may be NULL). */
uint32_t ff7_decode_stream(const uint8_t *stream, size_t size, unsigned bkey, uint32_t slots, uint32_t max_frames,
                           int32_t *pos, uint16_t *rot, size_t *bits, bool *shortest);
/* A stream to decode beside others (ff7_decode_stream_list: a pack's entries): each
 * job's frames, bits and shortest flag are what ff7_decode_stream gives for it alone
 * (shortest left as it was when no frame is decoded), its arrays filled alike; two chains
 * of look-ups run interleaved, which the core overlaps. The jobs' arrays must not
 * overlap. */
typedef struct ff7_stream_job {
    const uint8_t *stream; /* in: as ff7_decode_stream's arguments */
    size_t size;
    unsigned bkey;
    uint32_t slots, max_frames;
    int32_t *pos;
    uint16_t *rot;
    uint32_t frames; /* out: ff7_decode_stream's result, *bits and *shortest */
    size_t bits;
    bool shortest;
} ff7_stream_job;
/* The streams of n jobs, two at a time: each of two lanes takes the next job when its
 * stream ends, so streams of different lengths still run side by side; every job's
 * results are ff7_decode_stream's for its stream alone. */
void ff7_decode_stream_list(ff7_stream_job *const *jobs, size_t n);
/* The same on a given path of its inner loop: FF7_PAIR_PLAIN (any CPU), FF7_PAIR_BMI2
 * (where the compiler and the CPU have BMI2) or FF7_PAIR_AVX2 (BMI2 and AVX2: the
 * codes' table entries stored, made angles 16 at a time after each frame; what
 * ff7_decode_stream_list takes where it runs, else BMI2's, else the plain one); false,
 * nothing done, when that path cannot run here (the tests run each against one stream). */
enum { FF7_PAIR_PLAIN, FF7_PAIR_BMI2, FF7_PAIR_AVX2 };
bool ff7_decode_stream_list_on(int path, ff7_stream_job *const *jobs, size_t n);
/* Bits of the optimal (shortest) coding; SIZE_MAX if a position delta or a frame-0
 * position leaves int16, or bkey is above 11. Rotations must be multiples of 2^bkey. */
size_t ff7_stream_bits(unsigned bkey, uint32_t slots, uint32_t frames, const int32_t *pos, const uint16_t *rot);
/* Appends the optimal coding (zero-padded to a byte). Same preconditions; nothing for a
 * bkey above 11. */
void ff7_encode_stream(ganim_bitwriter *bw, unsigned bkey, uint32_t slots, uint32_t frames, const int32_t *pos,
                       const uint16_t *rot);
/* Bits of the shortest code of one rotation delta v (in units of 2^bkey). */
unsigned ff7_rot_code_bits(int32_t v, unsigned bkey);
/* Whether the raw (type-7) code is the shortest for its delta v (a value of the raw
 * code's 12 - bkey bits): the other codes hold exactly -64..63, each in fewer bits than
 * any raw code that can hold it (ff7_rot_code_bits; test_ff7_codec checks every bKey and
 * every raw value against it). */
static inline bool ff7_raw_is_shortest(int32_t v) { return (uint32_t)v + 64u >= 128u; }
/* One rotation delta from the stream bits at the top of w: the delta in *v, the code's
 * length returned; *best cleared when the code is longer than the delta's shortest.
 * kraw = 12 - bkey, in 1..12. */
unsigned ff7_rot_delta(uint64_t w, unsigned kraw, unsigned bkey, int32_t *v, bool *best);
/* The codes of at most 10 bits by the first 10 stream bits, one 32-bit entry each: the
 * code's length in bits 0..5 (0: a longer code, type 7) and its delta, a 12-bit two's
 * complement value, in bits 20..31 (bits 6..19 zero). The decoders take the length as a
 * shift count as it stands (x << (e & 63)), subtract whole entries from a count whose low
 * 16 bits the deltas never reach, and the delta times 2^bKey modulo 4096 as e >> (20 -
 * bKey) (the bits below 20 - bKey are the length's, shifted out: bKey <= 11 < 14). A
 * type-7 prefix's entry is FF7_RAW_ENTRY: length 0 (the decoders test it), delta 0, bit 16
 * set (the AVX2 pair loop counts type-7 entries in the count's bits 16..19). */
#define FF7_RAW_ENTRY (1u << 16)
extern const uint32_t ff7_short_codes[1024];
static inline unsigned ff7_code_len(uint32_t e) { return e & 63u; }
static inline int32_t ff7_code_delta(uint32_t e) { return (int32_t)(e >> 20) - (int32_t)((e >> 31) << 12); }

/* ---- model <-> raw ----------------------------------------------------------------- */
/* sin and cos of half of angle r (ff7_angle_table.c, made by tools/make_ff7_angles.c):
 * ganim_quat_axis_angle's float values for the angle r * 2pi / 4096, as {sin, cos}
 * pairs (one 8-byte load gives both): sc; zd: the same values as doubles (exact), {cos, cos, sin, -sin} per
 * angle: the SSE2 product's last step multiplies by the two halves straight from the
 * table; y4: the same floats as {cos, sin, -sin, cos} (the AVX product's Qy, one 16-byte
 * load; -sin is the sign flipped, as the xor with -0 gives it). One object, so a loop
 * that reads the three addresses them from one base register (each table at a constant
 * displacement). */
struct ff7_half_tables {
    float sc[4096][2];
    _Alignas(16) double zd[4096][4];
    _Alignas(16) float y4[4096][4];
};
extern const struct ff7_half_tables ff7_half;
#define ff7_half_sc (ff7_half.sc)
#define ff7_half_zd (ff7_half.zd)
#define ff7_half_y4 (ff7_half.y4)
#define FF7_HALF_SIN(r) (ff7_half_sc[(r)][0])
#define FF7_HALF_COS(r) (ff7_half_sc[(r)][1])
/* ((1 * Qy) * Qx) * Qz through ganim_quat_mul, as ganim_quat_from_euler forms it. */
ganim_quat ff7_raw_to_quat_generic(float sx, float cx, float sy, float cy, float sz, float cz);
/* The same product of the three 12-bit angles (each < 4096), stored at out[0..4). */
void ff7_raw_to_quat_store_generic(unsigned ix, unsigned iy, unsigned iz, float *out);
/* The same from a slot's 6 record bytes (three LE u16 angles, low 12 bits used); out of
 * line, for the rare fallback of a hot loop. */
void ff7_slot_to_quat_generic(const uint8_t *slot, float *out);
/* R = Ry * Rx * Rz of the three 12-bit angles (x, y, z), bit for bit what
 * ganim_quat_from_euler(angles * 2pi / 4096, GANIM_EULER_YXZ) gives, without its sin/cos
 * and without the products that are zero. Why the short form gives the same bits: every product of two floats is
 * exact in double; ganim_quat_mul's other terms here are products with a zero, i.e. +0 or
 * -0, and adding a zero to a non-zero double changes nothing. So each component of the
 * short form equals the generic one whenever it is not zero; only the sign of a zero
 * result depends on the dropped terms, and then the generic product is formed instead.
 * tests/formats/ff7/test_ff7_angles.c compares both over every angle of each axis and millions
 * of triples.
 * Unit length (what the reader vouches for, ganim_doc_vouch_rotations): every table row
 * has s^2 + c^2 within 2^-22 of 1 (tested for all 4096); Qy * Qx rounds each exact product
 * once to float (relative error 2^-24 each), and ... * Qz forms each component as one
 * double sum of two exact products rounded to float, a rotation of the pairs (x, y) and
 * (z, w) by the row of z: length^2 stays within about 2^-20 of 1, far inside the 2^-18
 * the test checks on every quaternion it forms, and the core's 2e-3. The generic product
 * (ganim_quat_mul's three roundings to float) stays within the same bound. */
static inline ganim_quat ff7_raw_to_quat_scalar(const uint16_t raw[3])
{
    unsigned ix = raw[0] & 0xFFFu, iy = raw[1] & 0xFFFu, iz = raw[2] & 0xFFFu;
    float sx = FF7_HALF_SIN(ix), cx = FF7_HALF_COS(ix);
    float sy = FF7_HALF_SIN(iy), cy = FF7_HALF_COS(iy);
    float sz = FF7_HALF_SIN(iz), cz = FF7_HALF_COS(iz);
    /* Qy * Qx */
    double x = (float)((double)cy * sx), y = (float)((double)sy * cx);
    double z = (float)-((double)sy * sx), w = (float)((double)cy * cx);
    /* ... * Qz */
    double dsz = sz, dcz = cz;
    ganim_quat q = { (float)(x * dcz + y * dsz), (float)(y * dcz - x * dsz), (float)(w * dsz + z * dcz),
                     (float)(w * dcz - z * dsz) };
    if (q.x == 0.0f || q.y == 0.0f || q.z == 0.0f || q.w == 0.0f)
        return ff7_raw_to_quat_generic(sx, cx, sy, cy, sz, cz);
    return q;
}

#if defined(__SSE2__)
/* The {sin, cos} pair of angle r in the low two float lanes (one 8-byte load). */
static inline __m128 ff7_half_sc_ps(unsigned r)
{
    return _mm_castsi128_ps(_mm_loadl_epi64((const __m128i *)(const void *)ff7_half_sc[r]));
}
/* The short product of the three angles (each < 4096) stored at out[0..4) (x, y, z, w),
 * and true; false, nothing stored, when a component is zero (then
 * ff7_raw_to_quat_store_generic). SSE2: Qy * Qx in four float lanes: each of its
 * components is (float) of a product of two floats formed in double, and that product is
 * exact in double (24 + 24 significant bits), so rounding it to float once is exactly the
 * float multiplication of the two (IEEE rounds the exact product). Then ... * Qz two lanes
 * at a time in double (per-lane IEEE arithmetic, no fused multiply-add; a - b is a + (-b),
 * and a * b is b * a, exactly): the bits of ff7_raw_to_quat_scalar. */
static inline bool ff7_quat_short_store(unsigned ix, unsigned iy, unsigned iz, float *out)
{
    __m128 X = ff7_half_sc_ps(ix), Y = ff7_half_sc_ps(iy); /* (s, c, 0, 0) */
    /* (sx, cx, sx, cx) * (cy, sy, -sy, cy) = (x, y, z, w) of Qy * Qx */
    __m128 f = _mm_mul_ps(_mm_movelh_ps(X, X), _mm_xor_ps(_mm_shuffle_ps(Y, Y, _MM_SHUFFLE(1, 0, 0, 1)),
                                                          _mm_set_ps(0.0f, -0.0f, 0.0f, 0.0f)));
    __m128d xy = _mm_cvtps_pd(f), zw = _mm_cvtps_pd(_mm_movehl_ps(f, f));
    __m128d vcz = _mm_load_pd(ff7_half_zd[iz]), vsz = _mm_load_pd(ff7_half_zd[iz] + 2); /* (cz, cz), (sz, -sz) */
    /* x' = x cz + y sz, y' = y cz + x (-sz), z' = z cz + w sz, w' = w cz + z (-sz) */
    __m128d r01 = _mm_add_pd(_mm_mul_pd(xy, vcz), _mm_mul_pd(_mm_shuffle_pd(xy, xy, 1), vsz));
    __m128d r23 = _mm_add_pd(_mm_mul_pd(zw, vcz), _mm_mul_pd(_mm_shuffle_pd(zw, zw, 1), vsz));
    __m128 r = _mm_movelh_ps(_mm_cvtpd_ps(r01), _mm_cvtpd_ps(r23));
    if (_mm_movemask_ps(_mm_cmpeq_ps(r, _mm_setzero_ps()))) return false;
    _mm_storeu_ps(out, r);
    return true;
}
#else
static inline bool ff7_quat_short_store(unsigned ix, unsigned iy, unsigned iz, float *out)
{
    uint16_t raw[3] = { (uint16_t)ix, (uint16_t)iy, (uint16_t)iz };
    ganim_quat q = ff7_raw_to_quat_scalar(raw);
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
    return true;
}
#endif
static inline void ff7_raw_to_quat_store(unsigned ix, unsigned iy, unsigned iz, float *out)
{
    if (!ff7_quat_short_store(ix, iy, iz, out)) ff7_raw_to_quat_store_generic(ix, iy, iz, out);
}
/* The quaternions of one slot over `frames` frames: the slot's 6 record bytes (three LE
 * u16 angles, low 12 bits used) at r, r + stride, ...; quaternion f stored at v + 4 f. A
 * slot whose bytes are those of the frame before gets that frame's quaternion again (a
 * function of the three angles alone). Every path gives the bits of
 * ff7_raw_to_quat_store_generic: ff7_slot_rotations takes the fastest this CPU runs (AVX
 * where the compiler and the CPU have it: FF7_PATH_AVX, or FF7_PATH_AVX_BMI2 where the
 * CPU has BMI2 too, FF7_PATH_AVX_FMA where it has BMI2 and FMA), ff7_slot_rotations_on the one named (false, nothing written, when
 * this build or CPU lacks it; for the tests). */
enum { FF7_PATH_GENERIC, FF7_PATH_SHORT, FF7_PATH_AVX, FF7_PATH_AVX_BMI2, FF7_PATH_AVX_FMA };
void ff7_slot_rotations(const uint8_t *r, size_t stride, uint32_t frames, float *v);
bool ff7_slot_rotations_on(int path, const uint8_t *r, size_t stride, uint32_t frames, float *v);
/* ff7_slot_rotations of `count` slots side by side in a record (slot t's frames at
 * r + 6 t, r + 6 t + stride, ...), slot t's quaternions at v + 4 frames t: a clip's
 * driven slots, the path chosen once. */
void ff7_slots_rotations(const uint8_t *r, size_t stride, uint32_t frames, uint32_t count, float *v);
static inline ganim_quat ff7_raw_to_quat(const uint16_t raw[3])
{
    float v[4];
    ff7_raw_to_quat_store(raw[0] & 0xFFFu, raw[1] & 0xFFFu, raw[2] & 0xFFFu, v);
    ganim_quat q = { v[0], v[1], v[2], v[3] };
    return q;
}

/* YXZ Euler angles of q as 12-bit units rounded to multiples of 2^bkey; of the two
 * equivalent solutions the one nearest `prev` (may be NULL). */
void ff7_quat_to_raw(ganim_quat q, unsigned bkey, const uint16_t *prev, uint16_t out[3]);
/* The pieces ff7_quat_to_raw uses in line, for the tests: lround(u) (a cut and a test of
 * the fraction where |u| < 2^30), and ganim_quat_to_euler(q, GANIM_EULER_YXZ, e). */
long ff7_round_units(double u);
void ff7_quat_yxz(ganim_quat q, double e[3]);
/* ff7_quat_to_raw from ff7_quat_yxz's angles on (the tests give it angles next to the
 * rounding boundaries, which no quaternion can be chosen to give). */
void ff7_angles_to_raw(const double e[3], unsigned bkey, const uint16_t *prev, uint16_t out[3]);
/* Model bone of rotation slot `slot` of a clip of `role` in `doc`'s skeleton (-1:
 * none), and the bone that takes the positions. Body/extra slot s is bone s (bone 0 =
 * root); a weapon clip's slot 0 and positions belong to the bone named "weapon". */
int32_t ff7_slot_bone(const ganim_doc *doc, int role, uint32_t slot);
int32_t ff7_pos_bone(const ganim_doc *doc, int role);
/* (Re)builds the clip's tracks, frame count and native record from `info`. */
ganim_code ff7_clip_fill(ganim_doc *doc, ganim_clip *clip, const ff7_clip_info *info, ganim_error *err);

/* The name of a role: body, weapon, extra, anim. */
const char *ff7_role_name(int role);
/* Nearest multiple of 2^bkey, modulo 4096 (halves up). */
static inline uint16_t ff7_quantise_raw(uint16_t raw, unsigned bkey)
{
    if (!bkey) return raw;
    uint32_t half = 1u << (bkey - 1);
    return (uint16_t)(((raw + half) >> bkey << bkey) & 0xFFFu);
}
/* Role and rotation slot count of a clip that has no ff7 record (from another format). */
int ff7_guess_role(const ganim_doc *doc, const ganim_clip *clip);
uint32_t ff7_slots_for(const ganim_doc *doc, const ganim_clip *clip, int role);
/* The bone of the model's skeleton that weapon entries drive: a last root bone named
 * `weapon` (as ff7_skeleton.c makes it), or -1. */
int32_t ff7_weapon_bone(const ganim_doc *doc);
/* Does the clip move `bone` away from its rest pose (rotation or translation)? A clip from
 * a glTF that keys every joint has tracks holding the rest on bones it does not move. */
bool ff7_bone_moves(const ganim_doc *doc, const ganim_clip *clip, uint32_t bone);
/* Raw values (12-bit, bKey 0 precision) of the clip as the model has it. Where a value
 * still equals the native record's (`in`, may be NULL), the record's integer is taken
 * (no Euler round trip). Returns true when every value came from the record. */
bool ff7_raw_from_model(const ganim_doc *doc, const ganim_clip *clip, const ff7_clip_info *in, int role, uint32_t slots,
                        uint32_t frames, int32_t *pos, uint16_t *rot);
/* Smallest bKey of `cands` whose stream fits 65535 bytes; rot is quantised to it in place
 * (scratch: as large as rot). Sets *key and *bits, or fails naming clip `index`. */
ganim_code ff7_choose_bkey(const int *cands, int ncand, uint32_t slots, uint32_t frames, const int32_t *pos,
                           uint16_t *rot, uint16_t *scratch, unsigned *key, size_t *bits, uint32_t index,
                           ganim_error *err);

/* ---- the formats' entry points and options (ff7.c lists them) ---------------------- */
enum { FF7_OPT_BKEY = 0, FF7_OPT_COUNT }; /* ff7_options by name */
extern const ganim_option ff7_options[FF7_OPT_COUNT];
int ff7_battle_probe(const uint8_t *data, size_t size);
ganim_code ff7_battle_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                           ganim_error *err);
ganim_code ff7_battle_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err);
ganim_code ff7_battle_resample(ganim_doc *doc, unsigned factor, ganim_error *err);
int ff7_battle_companion(const char *base, const char *const *names, size_t count); /* companion.c */
ganim_code ff7_battle_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b,
                              ganim_error *err);
int ff7_skeleton_probe(const uint8_t *data, size_t size);
ganim_code ff7_skeleton_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                             ganim_error *err);
ganim_code ff7_skeleton_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b,
                                ganim_error *err);

#endif
