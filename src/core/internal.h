/* Library-internal helpers shared by readers, writers and exporters. */
#ifndef GANIM_CORE_INTERNAL_H
#define GANIM_CORE_INTERNAL_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ganim.h"

/* MinGW builds use MinGW's C99 printf (__USE_MINGW_ANSI_STDIO), whose checks are
 * gnu_printf's; plain printf there means msvcrt's. */
#if defined(__MINGW32__)
#define GANIM_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define GANIM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GANIM_PRINTF(a, b)
#endif

/* A function always inlined into its callers (a hot helper gcc would otherwise call), and
 * one kept out of line (its loop gets the registers to itself, or a rare path stays out
 * of its caller's). Each use says why. */
#if defined(__GNUC__)
#define GANIM_ALWAYS_INLINE inline __attribute__((always_inline))
#define GANIM_OUT_OF_LINE __attribute__((noinline))
#else
#define GANIM_ALWAYS_INLINE inline
#define GANIM_OUT_OF_LINE
#endif

/* MinGW's isfinite, isinf and isnan pick a function by the argument's type in branches
 * that convert it to float even when not taken, which -Wconversion reports for every
 * double: GCC's builtins say the same without the conversions. */
#if defined(__MINGW32__) && defined(__GNUC__)
#include <math.h>
#undef isfinite
#undef isinf
#undef isnan
#define isfinite(x) __builtin_isfinite(x)
#define isinf(x) __builtin_isinf(x)
#define isnan(x) __builtin_isnan(x)
#endif

/* ---- math ---------------------------------------------------------------------- */
/* The rotation matrix of the quaternion (x, y, z, w) in double, row-major (m[r * 3 + c]),
 * scaled by 2 / length^2 (a zero quaternion gives the identity). ganim_quat_to_euler and
 * the BVH export's middle sines both take it from here, so they get the same doubles. */
static inline void ganim_quat_to_mat3d(double x, double y, double z, double w, double m[9])
{
    double n = x * x + y * y + z * z + w * w;
    double s = n > 0 ? 2.0 / n : 0.0;
    m[0] = 1 - s * (y * y + z * z);
    m[1] = s * (x * y - z * w);
    m[2] = s * (x * z + y * w);
    m[3] = s * (x * y + z * w);
    m[4] = 1 - s * (x * x + z * z);
    m[5] = s * (y * z - x * w);
    m[6] = s * (x * z - y * w);
    m[7] = s * (y * z + x * w);
    m[8] = 1 - s * (x * x + y * y);
}

/* ganim_quat_to_euler for the order whose axes are a, b, c (a permutation of 0, 1, 2 for X,
 * Y, Z: R = R_a(ta) R_b(tb) R_c(tc)) with parity p (+1.0 when a -> b -> c is cyclic X -> Y
 * -> Z): the one body of the public call (math.c, axes from its table) and of callers whose
 * order is a constant (the FF7 writer's YXZ: 1, 0, 2, -1.0), so every caller gets the same
 * doubles. The middle angle is tb = asin(p R[a][c]), the outer two from the remaining
 * entries; in gimbal lock everything goes into the first angle. */
static inline void ganim_quat_to_euler_axes(ganim_quat q, int a, int b, int c, double p, double xyz[3])
{
    double m[9];
    ganim_quat_to_mat3d(q.x, q.y, q.z, q.w, m);
#define GANIM_M(r, k) m[(r)*3 + (k)]
    double sb = p * GANIM_M(a, c);
    if (sb > 1) sb = 1;
    if (sb < -1) sb = -1;
    double tb = asin(sb), ta, tc;
    if (fabs(sb) < 0.9999999) {
        ta = atan2(-p * GANIM_M(b, c), GANIM_M(c, c));
        tc = atan2(-p * GANIM_M(a, b), GANIM_M(a, a));
    } else {
        tc = 0;
        ta = atan2(p * GANIM_M(c, b), GANIM_M(b, b));
    }
#undef GANIM_M
    xyz[a] = ta;
    xyz[b] = tb;
    xyz[c] = tc;
}

/* ---- allocator ---------------------------------------------------------------- */
/* A complete allocator: fills in malloc/realloc/free when `a` is NULL or zeroed. */
ganim_allocator ganim_allocator_resolve(const ganim_allocator *a);
/* 1 when a (resolved) is the library's default, malloc and free */
int ganim_allocator_is_default(const ganim_allocator *a);
void *ganim_alloc(const ganim_allocator *a, size_t size);
void *ganim_realloc(const ganim_allocator *a, void *p, size_t old_size, size_t new_size);
void ganim_free(const ganim_allocator *a, void *p, size_t size);
/* a*b without overflow; false if it would overflow SIZE_MAX. */
static inline bool ganim_mul_size(size_t a, size_t b, size_t *out)
{
    if (b && a > SIZE_MAX / b) return false;
    *out = a * b;
    return true;
}
/* a+b without overflow; false if it would overflow SIZE_MAX. */
static inline bool ganim_add_size(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b) return false;
    *out = a + b;
    return true;
}

/* ---- errors ------------------------------------------------------------------- */
/* Fill `err` (if not NULL) and return `code`. Message: printf format. */
ganim_code ganim_fail(ganim_error *err, ganim_code code, uint64_t offset, const char *fmt, ...) GANIM_PRINTF(4, 5);
#ifdef __clang_analyzer__
/* For clang-tidy's static analyzer only (make tidy): ganim_fail returns its `code`, which
 * the analyzer cannot see across files; without this it follows paths where a failure
 * returned GANIM_OK. Real builds call the function above unchanged. */
#define ganim_fail(err, code, ...) ((void)(ganim_fail)((err), (code), __VA_ARGS__), (code))
#endif
ganim_code ganim_failv(ganim_error *err, ganim_code code, uint64_t offset, const char *fmt, va_list ap);
void ganim_error_clear(ganim_error *err);

/* ---- documents ---------------------------------------------------------------- */
/* A new empty document. Everything in it is allocated from its arena with
 * ganim_doc_alloc and released at once by ganim_doc_free. */
ganim_doc *ganim_doc_create(const ganim_allocator *alloc, size_t memory_limit);
/* A reader's scratch document for `doc`: the same allocator and memory limit, freed by
 * ganim_doc_free before or after `doc`; while both live, the memory of both counts
 * against the limit (a read takes at most the limit, temporaries included). One scratch
 * at a time is linked so; another counts against the limit alone. NULL when out of
 * memory. */
ganim_doc *ganim_doc_scratch(ganim_doc *doc);
/* Sizes the arena's blocks for a read of `input_bytes` (a reader's first call, before
 * anything is allocated from the document; the BVH reader's): a small input's document
 * and its scratch document start with a small block (a scratch document's inside its own
 * allocation) instead of a 64 KiB one, so a small read makes fewer and smaller
 * allocations. Larger inputs change nothing. A reader that reserves its document's
 * block (ganim_doc_reserve) does not call it: its first block would be spare. */
void ganim_doc_size_for_input(ganim_doc *doc, size_t input_bytes);
/* A new empty document sized as ganim_doc_size_for_input sizes it, a small input's first
 * block inside the document's own allocation (one allocation and one free fewer a read;
 * counted against the limit as new_block would count it, and none when the limit refuses
 * it), and after it room for the first scratch (ganim_doc_scratch) with a block of the
 * same size (counted only when the scratch is made, as before; one more allocation and
 * free fewer). For a reader that calls ganim_doc_size_for_input (the format's
 * `sized_for_input`). */
ganim_doc *ganim_doc_create_for_input(const ganim_allocator *alloc, size_t memory_limit, size_t input_bytes);
/* Zeroed memory from the document's arena, 16-byte aligned, or NULL (allocator failed
 * or memory limit reached). */
void *ganim_doc_alloc(ganim_doc *doc, size_t size);
/* count*size with an overflow check; NULL on overflow. */
void *ganim_doc_alloc_array(ganim_doc *doc, size_t count, size_t size);
/* Like ganim_doc_alloc_array but NOT zeroed: only for arrays the caller fills whole
 * before anything reads them (hot decoders: zeroing large per-frame arrays costs as
 * much as filling them). */
void *ganim_doc_alloc_array_raw(ganim_doc *doc, size_t count, size_t size);
/* Makes the arena's current block hold at least `size` more bytes (a new block if
 * not), so that a reader that knows its document's size from a header gets it in one
 * allocation (one region the allocator reuses whole; no page faults from many blocks).
 * Each allocation takes its size rounded up to 16 bytes. Returns 0 when the block could
 * not be made (allocator or memory limit): nothing changes, allocations go on as before. */
int ganim_doc_reserve(ganim_doc *doc, size_t size);
/* The bytes of the arena an allocation of n bytes (n > 0) takes: n rounded up to 16. A
 * reader sums these to size its ganim_doc_reserve. */
static inline uint64_t ganim_doc_room(uint64_t n) { return (n + 15u) & ~(uint64_t)15u; }
/* Where a document's arena stands (ganim_doc_mark), to give back everything allocated
 * after it at once (ganim_doc_release): a reader's temporaries of one part of a file
 * (a glTF animation's channels) freed before the next part instead of at the end. */
typedef struct ganim_doc_mark_t {
    void *head;      /* the current block then (NULL: none) */
    size_t used;     /* its bytes in use then */
    uint64_t blocks; /* blocks made until then */
} ganim_doc_mark_t;
ganim_doc_mark_t ganim_doc_mark(const ganim_doc *doc);
/* Frees every block made after the mark and gives back what the mark's block handed out
 * since: nothing allocated after the mark may be used again. */
void ganim_doc_release(ganim_doc *doc, ganim_doc_mark_t mark);
/* A NUL-terminated copy of n bytes (stops early at a NUL inside). */
char *ganim_doc_strndup(ganim_doc *doc, const char *s, size_t n);
char *ganim_doc_strdup(ganim_doc *doc, const char *s);
/* `prefix` followed by n in decimal ("bone_12"): the names readers make up, as
 * ganim_doc_printf(doc, "%s%u", prefix, n) gives them, without vsnprintf (the bench's
 * FF7 pack of 60 animations: 78,000 instructions fewer a read). */
char *ganim_doc_name_u32(ganim_doc *doc, const char *prefix, uint32_t n);
/* A copy of n bytes (n may be 0: returns a valid non-NULL pointer). */
uint8_t *ganim_doc_memdup(ganim_doc *doc, const void *p, size_t n);
/* The document's record of the whole input it is read from (a format whose native
 * record is the file itself): the input's own bytes when the read lent them
 * (ganim_doc_lend_input, no copy) or the caller's when they outlive the document
 * (ganim_doc_borrow_input), else a copy; NULL when out of memory. Read-only. */
const uint8_t *ganim_doc_keep_input(ganim_doc *doc, const uint8_t *data, size_t size);
/* A read lends the buffer it loaded the input into (ganim_read_file): a reader may keep
 * it whole (above). ganim_doc_lend_end(doc, ok) ends the loan: with ok, a buffer kept is
 * the document's from then on (`buf` left empty) and freed with it; without, it stays
 * the caller's. */
void ganim_doc_lend_input(ganim_doc *doc, ganim_buffer *buf);
void ganim_doc_lend_end(ganim_doc *doc, int ok);
/* A read of bytes the caller says outlive the document (ganim_read_opts.input_outlives_doc):
 * ganim_doc_keep_input returns them as they are, never to be written or freed by the
 * document, and not counted against its memory limit. Ended by ganim_doc_lend_end. */
void ganim_doc_borrow_input(ganim_doc *doc, const uint8_t *data, size_t size);
/* A reader that built every rotation channel of the document from values it proves to
 * be unit quaternions (FF7's exact angle table, ff7.h) vouches for them: the validation
 * that follows the read (read.c) skips their unit-length check, and only that check of
 * only that validation: read.c ends the vouch right after it, so every later validation
 * checks them again. */
void ganim_doc_vouch_rotations(ganim_doc *doc);
/* Likewise for translation and scale values: a reader that proved every one of them
 * finite (the .ALA reader: ala_dec_vecs's verdict) vouches, and the validation after the
 * read skips their finiteness check (not their kinds and counts). */
void ganim_doc_vouch_vectors(ganim_doc *doc);
int ganim_doc_vectors_vouched(const ganim_doc *doc);
/* The validation's unit test of a quaternion q: q0*q0 + q1*q1 + q2*q2 + q3*q3, summed in
 * that order in float, within [GANIM_UNIT_LEN2_MIN, GANIM_UNIT_LEN2_MAX] (|length - 1| <=
 * 1e-3); a reader that vouches proves its rotations pass it. */
#define GANIM_UNIT_LEN2_MIN 0.998001f
#define GANIM_UNIT_LEN2_MAX 1.002001f
int ganim_doc_rotations_vouched(const ganim_doc *doc);
void ganim_doc_vouch_end(ganim_doc *doc);
char *ganim_doc_printf(ganim_doc *doc, const char *fmt, ...) GANIM_PRINTF(2, 3);
/* vsnprintf in the "C" locale whatever the program's (messages' numbers keep '.'). */
int ganim_vformat(char *buf, size_t size, const char *fmt, va_list ap);
char *ganim_doc_vprintf(ganim_doc *doc, const char *fmt, va_list ap);
/* Hands a caller's warning callback (ganim_write_opts.warn, ganim_export_opts.warn) one
 * warning with no offset; nothing when `warn` is NULL. The text lives until it returns. */
void ganim_warn_callback(void (*warn)(void *user, const ganim_warning *warning), void *user, ganim_warning_code code,
                         const char *fmt, va_list ap);
/* Tells a writer's caller (opts->warn) what the file written cannot store. Here, not in
 * src/formats/write.c, so that any file of the formats layer may call it without a call
 * circle through write.c. */
void ganim_write_warn(const ganim_write_opts *opts, ganim_warning_code code, const char *fmt, ...) GANIM_PRINTF(3, 4);
/* Record a warning on the document (silently counted when over 1000 or out of memory). */
void ganim_doc_warn(ganim_doc *doc, ganim_warning_code code, uint64_t offset, const char *fmt, ...) GANIM_PRINTF(4, 5);
const ganim_allocator *ganim_doc_allocator(const ganim_doc *doc);
/* What the building functions (build.c) know of the arrays they grew: the clip array and
 * each clip's track array they allocated, with room for `capacity` entries. An array that
 * is not the one recorded (a reader's, or one a caller put in) is copied before it grows. */
typedef struct ganim_array_room {
    const void *array;
    uint32_t capacity;
} ganim_array_room;
typedef struct ganim_doc_growth {
    ganim_array_room clips;
    ganim_array_room *tracks; /* clips.capacity entries, one per clip */
} ganim_doc_growth;
ganim_doc_growth *ganim_doc_growth_of(ganim_doc *doc);
/* The limits with every default filled in and the library's maxima applied. */
ganim_limits ganim_limits_resolve(const ganim_limits *limits);
/* ganim_limits_resolve(NULL): what a new document starts with (test_read_fixed checks it). */
extern const ganim_limits ganim_default_limits;
/* The limits a document was read under (set by the read; the defaults otherwise). */
void ganim_doc_set_limits(ganim_doc *doc, const ganim_limits *limits);
/* The same with limits ganim_limits_resolve already gave (resolving them again changes
 * nothing): a read resolves its limits once. */
void ganim_doc_put_limits(ganim_doc *doc, const ganim_limits *resolved);
const ganim_limits *ganim_doc_limits(const ganim_doc *doc);
/* A frame rate as the float32 a file stores, kept inside GANIM_MIN_FPS..GANIM_MAX_FPS:
 * the nearest float to 1e-4 lies below it, and a reader would refuse what was written. */
float ganim_fps_f32(double fps);
/* GANIM_OK when a file's announced counts fit the document's limits, else GANIM_ERR_LIMIT
 * with a sentence naming the limit, at byte `offset`. `what` names the thing counted
 * ("the pack"); a count of 0 is not checked. Readers call it before allocating. */
ganim_code ganim_check_counts(const ganim_doc *doc, uint64_t offset, const char *what, uint64_t frames, uint64_t bones,
                              uint64_t clips, ganim_error *err);

/* Copies of what a caller gives (build.c), their counts checked against each other:
 * a channel of `comps` floats per value in a clip of `frames` frames, a track, a
 * skeleton (native record and its format name copied too). `what` names the place in
 * errors ("clip 2 track 5: rotation"). */
ganim_code ganim_channel_copy(ganim_doc *doc, ganim_channel *dst, const ganim_channel *src, uint32_t frames, int comps,
                              const char *what, ganim_error *err);
ganim_code ganim_track_copy(ganim_doc *doc, ganim_track *dst, const ganim_track *src, uint32_t frames, const char *what,
                            ganim_error *err);
ganim_skeleton *ganim_skeleton_dup(ganim_doc *doc, const ganim_skeleton *src, ganim_error *err);
/* A copy of `clip` (tracks, channels, events, opaque bytes, native record) into `out`;
 * clip `index` in errors. */
ganim_code ganim_clip_copy(ganim_doc *doc, uint32_t ci, const ganim_clip *clip, ganim_clip *out, ganim_error *err);
/* A deep copy of `src` in a new document of the same allocator, memory limit and limits
 * (format, axes, skeleton, clips, meshes, document record; not warnings or file names).
 * axes.c. */
ganim_doc *ganim_doc_clone(const ganim_doc *src, ganim_error *err);
/* Turns a document whose arrays are its own (a clone) to `to` axes: root bones' rest poses
 * and channels, and meshes, rotated by C(to)^-1 C(from) in double arithmetic. axes.c. */
void ganim_doc_turn_axes(ganim_doc *doc, ganim_axes to);
/* The rotation that turns `from` axes into `to` axes, C(to)^-1 C(from), exactly, as
 * doubles x y z w. */
void ganim_axes_turn(ganim_axes from, ganim_axes to, double q[4]);
/* The memory limit a document was made with. */
size_t ganim_doc_memory_limit(const ganim_doc *doc);

/* Deep copy of a skeleton into `doc`'s arena. */
ganim_skeleton *ganim_skeleton_copy(ganim_doc *doc, const ganim_skeleton *src);
/* A flat skeleton of `count` root bones named by `names` (NULL: "bone_<i>"),
 * identity rest poses, flagged GANIM_BONE_SYNTH. */
ganim_skeleton *ganim_skeleton_flat(ganim_doc *doc, uint32_t count, const char *const *names);
/* The same with made-up names <prefix><i> ("track_" for formats whose data are tracks). */
ganim_skeleton *ganim_skeleton_flat_named(ganim_doc *doc, uint32_t count, const char *const *names, const char *prefix);
/* For readers whose file stores no rest (bind) pose: every bone of `sk` takes the pose
 * of frame 0 of `clip` as its rest pose, so that exporters show the skeleton in a real
 * pose (an identity rest puts every joint at the origin: zero-length bones, zero BVH
 * offsets). The clip's values are unchanged. */
void ganim_skeleton_rest_from_frame0(ganim_skeleton *sk, const ganim_clip *clip);
/* The first clip of kind animation, or NULL (formats that hold one animation write it). */
const ganim_clip *ganim_doc_first_animation(const ganim_doc *doc);
/* Case-insensitive ASCII comparison (names.c). */
int ganim_strcasecmp(const char *a, const char *b);

/* The unique names ganim's exporters give the skeleton's bones (and `extra` names after
 * them): [A-Za-z0-9_-] only, bone_<i> for empty names, _<i> (then _<i>_<k>) added to a
 * name already given. `out->name` has bone_count + extra_count entries; 0 when out of
 * memory. names.c. */
typedef struct ganim_names {
    char **name;
    size_t bytes;
} ganim_names;
int ganim_names_make(const ganim_allocator *a, const ganim_skeleton *sk, const char *const *extra, uint32_t extra_count,
                     ganim_names *out);
void ganim_names_free(const ganim_allocator *a, ganim_names *names);

/* Generic resampler on the model (used when a format has no resample hook). */
ganim_code ganim_doc_resample_generic(ganim_doc *doc, unsigned factor, ganim_error *err);

/* ---- sampling at another rate (retime.c) ---------------------------------------------
 * A clip of `frames` frames at `from_fps` keeps its duration at `to_fps`: this many
 * frames, round(duration * to_fps) + 1 (at least 1). */
uint32_t ganim_retime_frames(uint32_t frames, double from_fps, double to_fps);
/* Channel `ch` of a clip of `frames` frames (its step bytes and interpolation) sampled at
 * `count` frames, output frame k at source frame k * ratio (ratio = source fps / new
 * fps), into a per-frame channel allocated in `doc` (`rest`: the value of an absent
 * channel). `keep_constant`: a constant or absent channel gives a constant one. Output
 * frames on a source frame get its values bit for bit. */
ganim_code ganim_channel_retime(ganim_doc *doc, const ganim_channel *ch, uint32_t frames, const uint8_t *step,
                                ganim_rotation_interp interp, int comps, const float *rest, double ratio,
                                uint32_t count, int keep_constant, ganim_channel *out, ganim_error *err);
/* Per-frame bytes (visibility, step) at `count` frames: each output frame takes the
 * source frame it falls in. NULL stays NULL. `*out` may be `bits`' own pointer. */
ganim_code ganim_bits_retime(ganim_doc *doc, const uint8_t *bits, uint32_t frames, double ratio, uint32_t count,
                             const uint8_t **out, ganim_error *err);
/* Clip `ci` of `doc` (arrays its own: a clone) played at `fps` over the same duration:
 * per-frame channels, visibility and step sampled anew, keyed channels and events keep
 * their times. Nothing to do when the clip is at that rate already. */
ganim_code ganim_clip_retime(ganim_doc *doc, uint32_t ci, double fps, ganim_error *err);

/* Fills `err` with an out-of-memory error and returns GANIM_ERR_NOMEM. */
#define GANIM_NOMEM(err) ganim_fail((err), GANIM_ERR_NOMEM, GANIM_NO_OFFSET, "out of memory")

#endif
