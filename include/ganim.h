/*
 * ganim — read, convert and re-encode skeletal animations from game files.
 *
 * This header is the whole public API. Data is plain structs the caller may walk
 * directly; every fallible call takes a `ganim_error *` (may be NULL) and returns a
 * `ganim_code` (GANIM_OK == 0). The library never prints, aborts or exits.
 *
 * Conventions
 *   - Quaternions are unit (x, y, z, w), Hamilton product, column vectors.
 *   - Transforms are parent-local, in the file's own units and axes; `ganim_doc.axes`
 *     says which way is up and exporters convert once, naming the conversion.
 *   - A local transform applies scale, then rotation, then translation: M = T * R * S.
 *   - Frames are numbered from 0; time in seconds is frame / fps.
 *   - Zero-initialised option structs give the defaults: `ganim_read_opts o = {0};`.
 *   - File paths are UTF-8 on every system (on Windows the library opens them through
 *     the wide-character calls; a path that is not UTF-8 fails to open there), and
 *     the library splits paths on '/' and on '\' alike.
 *
 * Lifetime and ownership
 *   - A document owns everything reachable from it: skeleton, bones, names, clips,
 *     tracks, channel arrays, native records, warnings. All of it lives until
 *     ganim_doc_free, which releases it at once. Values may be changed in place
 *     (ganim_doc_validate checks the result); arrays must not be freed or resized.
 *   - Documents are built and edited with ganim_doc_new, ganim_doc_set_skeleton,
 *     ganim_doc_add_clip, ganim_doc_add_track, ganim_doc_set_channel, ... : they copy
 *     everything they are given, so the caller keeps its own memory.
 *   - Readers copy what they keep: the input bytes may be freed as soon as
 *     ganim_read_memory returns (unless ganim_read_opts.input_outlives_doc says they
 *     outlive the document: then it may point into them, never writes or frees them).
 *     A skeleton given in the read options is copied in.
 *   - Option structs, and the strings and arrays they point to, are only read during
 *     the call they are passed to.
 *   - A ganim_buffer the library fills is the caller's: release it with
 *     ganim_buffer_free (it remembers the allocator). ganim_details are a copy,
 *     released with ganim_details_free.
 *   - Format descriptors, option tables and the strings the library returns
 *     (ganim_code_name, ganim_axes_name, ...) are static.
 *
 * Threads
 *   - The library has no global mutable state. Different documents may be read,
 *     exported and written on different threads at once; so may one document, as long
 *     as no thread changes it meanwhile.
 *   - Allocators and warning callbacks are called on the thread that made the call.
 */
#ifndef GANIM_H
#define GANIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Only the functions declared here are exported from the shared library. Building a
 * Windows DLL defines GANIM_BUILD_DLL; programs using the DLL may define GANIM_DLL. */
#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(GANIM_BUILD_DLL)
#define GANIM_API __declspec(dllexport)
#elif defined(GANIM_DLL)
#define GANIM_API __declspec(dllimport)
#else
#define GANIM_API
#endif
#elif defined(__GNUC__) && __GNUC__ >= 4
#define GANIM_API __attribute__((visibility("default")))
#else
#define GANIM_API
#endif

#define GANIM_VERSION_MAJOR 0
#define GANIM_VERSION_MINOR 1
#define GANIM_VERSION_PATCH 0
#define GANIM_VERSION_STRING "0.1.0"
/* The version a program was built with, as one number (10000 * major + 100 * minor +
 * patch): compare with ganim_version(), the version of the library actually loaded. */
#define GANIM_VERSION_NUMBER (GANIM_VERSION_MAJOR * 10000 + GANIM_VERSION_MINOR * 100 + GANIM_VERSION_PATCH)

/* The loaded library's version: GANIM_VERSION_NUMBER and GANIM_VERSION_STRING as it was
 * built. */
GANIM_API unsigned ganim_version(void);
GANIM_API const char *ganim_version_string(void);

/* ------------------------------------------------------------------------------------ */
/* Errors                                                                               */
/* ------------------------------------------------------------------------------------ */

typedef enum ganim_code {
    GANIM_OK = 0,
    GANIM_ERR_NOMEM,          /* the allocator failed or the memory limit was reached */
    GANIM_ERR_TRUNCATED,      /* the data ends before a structure it announces */
    GANIM_ERR_CORRUPT,        /* a value is impossible (bad size, bad index, bad magic) */
    GANIM_ERR_UNSUPPORTED,    /* valid but not handled (e.g. ACL database buffers) */
    GANIM_ERR_UNKNOWN_FORMAT, /* no reader recognised the data */
    GANIM_ERR_LIMIT,          /* a size exceeds a documented library limit */
    GANIM_ERR_INVALID_ARG,    /* the caller passed something wrong */
    GANIM_ERR_IO,             /* the operating system refused a file operation */
    GANIM_ERR_MISMATCH        /* two inputs do not fit together (animation vs skeleton) */
} ganim_code;

#define GANIM_NO_OFFSET UINT64_MAX

typedef struct ganim_error {
    ganim_code code;   /* GANIM_OK when nothing failed */
    uint64_t offset;   /* byte offset in the input where it happened, or GANIM_NO_OFFSET */
    char message[512]; /* one sentence, "format: where: what", no trailing newline */
} ganim_error;

/* A short English name for a code ("truncated input", ...). */
GANIM_API const char *ganim_code_name(ganim_code code);

/* ------------------------------------------------------------------------------------ */
/* Memory                                                                               */
/* ------------------------------------------------------------------------------------ */

/* Caller-replaceable allocator. All three functions must be set, or the whole struct
 * left zeroed (then malloc/realloc/free are used). `free` receives NULL-safe pointers. */
typedef struct ganim_allocator {
    void *(*alloc)(void *user, size_t size);
    void *(*realloc)(void *user, void *ptr, size_t old_size, size_t new_size);
    void (*free)(void *user, void *ptr, size_t size);
    void *user;
} ganim_allocator;

/* A growable byte buffer, used for everything the library writes. */
typedef struct ganim_buffer {
    uint8_t *data;
    size_t size;
    size_t capacity;
    ganim_allocator allocator; /* copied from the options of the call that filled it */
} ganim_buffer;

GANIM_API void ganim_buffer_free(ganim_buffer *buf);

/* ------------------------------------------------------------------------------------ */
/* The model                                                                            */
/* ------------------------------------------------------------------------------------ */

typedef struct ganim_vec3 {
    float x, y, z;
} ganim_vec3;
typedef struct ganim_quat {
    float x, y, z, w;
} ganim_quat;

typedef struct ganim_transform {
    ganim_quat rotation; /* unit quaternion */
    ganim_vec3 translation;
    ganim_vec3 scale;
} ganim_transform;

/* Which way the file's axes point. Exporters turn this into glTF's right-handed +Y up. */
typedef enum ganim_axes {
    GANIM_AXES_Y_UP = 0, /* already +Y up, right-handed (also: unknown) */
    GANIM_AXES_Z_UP,     /* +Z up, right-handed (3ds Max, Blender): rotate -90° about X */
    GANIM_AXES_Y_DOWN    /* +Y down (PlayStation, FF7): rotate 180° about X */
} ganim_axes;

typedef struct ganim_bone {
    const char *name;     /* never NULL; may be "" */
    int32_t parent;       /* -1 for a root; always lower than the bone's own index */
    ganim_transform rest; /* rest (bind) pose, local to the parent */
    uint32_t flags;       /* GANIM_BONE_* */
} ganim_bone;

#define GANIM_BONE_HIDDEN 1u /* not visible by default (ALO `visible` = 0) */
#define GANIM_BONE_SYNTH 2u  /* made up by a reader: no skeleton was given */

typedef struct ganim_skeleton {
    const char *name; /* never NULL; may be "" */
    uint32_t bone_count;
    ganim_bone *bones;
    /* Format-owned record for lossless rewriting (FF7 header words, ALO matrices...). */
    const char *native_format; /* NULL when absent */
    const uint8_t *native;
    size_t native_size;
} ganim_skeleton;

typedef enum ganim_channel_kind {
    GANIM_CHANNEL_ABSENT = 0, /* the bone keeps its rest value */
    GANIM_CHANNEL_CONSTANT,   /* one value for every frame */
    GANIM_CHANNEL_PER_FRAME,  /* one value per frame of the clip */
    GANIM_CHANNEL_KEYED       /* values at explicit, strictly increasing frame times */
} ganim_channel_kind;

typedef struct ganim_channel {
    ganim_channel_kind kind;
    uint32_t count;      /* values: 0 absent, 1 constant, frame_count per-frame, keys keyed */
    const float *times;  /* keyed only: `count` frame numbers (may be fractional), ascending */
    const float *values; /* count * 4 (rotation x,y,z,w) or count * 3 (translation, scale) */
} ganim_channel;

typedef struct ganim_track {
    uint32_t bone;    /* index into the skeleton */
    const char *name; /* the name the file gives this track ("" if none) */
    ganim_channel rotation;
    ganim_channel translation;
    ganim_channel scale;
    const uint8_t *visibility; /* NULL, or frame_count bytes: 1 visible, 0 hidden */
    const uint8_t *step;       /* NULL, or frame_count bytes: 1 = do not interpolate
                                  from this frame into the next */
} ganim_track;

typedef enum ganim_clip_kind {
    GANIM_CLIP_ANIMATION = 0,
    GANIM_CLIP_OPAQUE /* a slot that is not an animation: raw bytes kept */
} ganim_clip_kind;

typedef enum ganim_rotation_interp {
    GANIM_INTERP_SLERP = 0, /* shortest-arc spherical interpolation */
    GANIM_INTERP_NLERP      /* shortest-arc linear interpolation, then normalise (ACL) */
} ganim_rotation_interp;

/* Something that happens at a frame of a clip (Argonaut's triggers: a sound, a script
 * hook): the frame (may be fractional, may lie beyond the last frame) and the id the file
 * gives it. */
typedef struct ganim_event {
    float frame;
    uint32_t id;
} ganim_event;

typedef struct ganim_clip {
    const char *name; /* never NULL */
    ganim_clip_kind kind;
    double fps;           /* samples per second (> 0 for animations) */
    uint32_t frame_count; /* samples, both ends included; duration = (n-1)/fps */
    uint32_t track_count;
    ganim_track *tracks; /* at most one track per bone */
    ganim_rotation_interp rotation_interp;
    const uint8_t *opaque; /* GANIM_CLIP_OPAQUE: the slot's bytes */
    size_t opaque_size;
    /* Format-owned record for lossless round trips (raw integers, quantisation, ...). */
    const char *native_format; /* NULL when absent; equals the writer's format name */
    const uint8_t *native;
    size_t native_size;
    uint32_t event_count;      /* events of the clip, in the file's order (most clips: none) */
    const ganim_event *events; /* event_count entries, or NULL */
    /* Another animation clip of the document that plays at the same time as this one and
     * moves other bones (FF7: weapon animation i with body animation i): 0 for none, else
     * 1 + its index. It has no partner of its own and no other clip names it. The glTF
     * and BVH exporters write the two as one animation; the partner on its own only when
     * it is the clip asked for. Readers and writers keep the clips apart. */
    uint32_t partner;
} ganim_clip;

/* What kind of oddity a warning reports, for a program that filters or groups them. */
typedef enum ganim_warning_code {
    GANIM_WARN_OTHER = 0,
    GANIM_WARN_INCONSISTENT, /* a count or size in the file disagrees with its data */
    GANIM_WARN_REPAIRED,     /* values that were not finite, not unit or out of range were fixed */
    GANIM_WARN_EXTRA_BYTES,  /* bytes the format does not describe (kept or ignored) */
    GANIM_WARN_LAYOUT,       /* an unusual layout: writing back will not give the same bytes */
    GANIM_WARN_CHECKSUM,     /* a stored checksum does not match the data */
    GANIM_WARN_SKELETON,     /* a track does not fit the skeleton (name, index, second track) */
    GANIM_WARN_COMPANION,    /* the companion skeleton file could not be used */
    GANIM_WARN_IGNORED,      /* data or flags ganim does not interpret were ignored */
    GANIM_WARN_EXPORT_LOSS   /* an exporter or writer could not carry something (BVH:
                                  translations; a format without a frame rate) */
} ganim_warning_code;

typedef struct ganim_warning {
    uint64_t offset;     /* byte offset or GANIM_NO_OFFSET */
    const char *message; /* one sentence, "format: where: what" */
    ganim_warning_code code;
} ganim_warning;

/* A mesh a file holds (Argonaut models): triangles whose vertices each follow one bone
 * rigidly. Positions and normals are in the skeleton's model space at the rest pose. */
typedef struct ganim_mesh {
    const char *name; /* never NULL; may be "" */
    uint32_t vertex_count;
    const float *positions; /* vertex_count * 3 */
    const float *normals;   /* vertex_count * 3 (unit length), or NULL */
    const uint32_t *bones;  /* vertex_count: the skeleton bone each vertex follows */
    uint32_t triangle_count;
    const uint32_t *triangles; /* triangle_count * 3 vertex indices, front faces counter-clockwise */
} ganim_mesh;

struct ganim_format;

typedef struct ganim_doc {
    const struct ganim_format *format; /* the reader that made it */
    ganim_axes axes;
    ganim_skeleton *skeleton; /* NULL when the file has none and none was given */
    uint32_t clip_count;
    ganim_clip *clips;
    uint32_t mesh_count; /* meshes skinned to the skeleton (most formats hold none) */
    ganim_mesh *meshes;
    uint32_t warning_count;
    ganim_warning *warnings;
    uint32_t warnings_dropped; /* warnings beyond the stored maximum (1000) */
    /* Document-level format record (e.g. FF7 pack header, trailing bytes). */
    const char *native_format;
    const uint8_t *native;
    size_t native_size;
    int probe_score;           /* how sure the format's probe was of the bytes, 0..100 */
    const char *skeleton_file; /* ganim_read_file: the companion file the skeleton was read
                                  from, or NULL (none, or given by the caller) */
    /* ganim_read_file: every other file the read took bytes from, as paths: the archive of
     * an ARCHIVE:MEMBER path, the companion skeleton, the files the format loaded through
     * the library's folder loader (an archive's data file, a glTF's buffers). A program
     * that writes files should not replace them. NULL when none. */
    uint32_t used_file_count;
    const char *const *used_files;
    struct ganim_doc_internal *internal; /* allocator and arena: not for callers */
} ganim_doc;

/* ------------------------------------------------------------------------------------ */
/* Formats                                                                              */
/* ------------------------------------------------------------------------------------ */

/* Options a format declares for its reader or writer (ganim formats lists them). They
 * are given as name/value text pairs (ganim_setting) in the read and write options, and
 * the library checks each against the format's table. */
typedef enum ganim_option_type {
    GANIM_OPTION_CHOICE = 0, /* one of the '|'-separated `values` */
    GANIM_OPTION_INT,        /* a decimal integer in the range `values` gives: "MIN..MAX" */
    GANIM_OPTION_TEXT        /* any non-empty text (a name, a number); `values` names what it
                                is in words for help texts, e.g. "NAME|INDEX" */
} ganim_option_type;

#define GANIM_OPTION_READ 1u  /* the option changes how files are read */
#define GANIM_OPTION_WRITE 2u /* the option changes how files are written */

typedef struct ganim_option {
    const char *name;  /* "<family>.<option>", e.g. "ff7.bkey" (or "<format>.<option>": "civ7.version") */
    const char *alias; /* another name the tool accepts as --ALIAS VALUE, or NULL: "<family>-..."
                          (ganim's own options are never an alias) */
    ganim_option_type type;
    uint32_t flags;               /* GANIM_OPTION_READ and/or GANIM_OPTION_WRITE */
    const char *values;           /* GANIM_OPTION_CHOICE: "0|2|4"; GANIM_OPTION_INT: "0..65535";
                               GANIM_OPTION_TEXT: what it takes, in words ("NAME|INDEX") */
    const char *help;             /* one line: what it does */
    const char *when_unset;       /* one line: what the format does without it */
    const char *deprecated_alias; /* an earlier spelling of `alias` the tool still accepts,
                                     with a note naming the new one; NULL when none */
} ganim_option;

/* One option setting, e.g. { "ff7.bkey", "2" }. Both strings are the caller's. */
typedef struct ganim_setting {
    const char *name;
    const char *value;
} ganim_setting;

/* ganim_read_file: when no skeleton is given, an animation whose format names a companion
 * skeleton file (ganim_format.companion) reads it from the same folder: MODEL_ANIM_NN.ala
 * uses MODEL.alo, an FF7 pack xxda uses xxaa. A companion that cannot be read, or does
 * not fit the animation (GANIM_ERR_MISMATCH), is dropped with a GANIM_WARN_COMPANION
 * warning and the file is read without it. */
typedef enum ganim_companion_mode {
    GANIM_COMPANION_FIND = 0, /* look for the companion (the default) */
    GANIM_COMPANION_NONE      /* read the file alone */
} ganim_companion_mode;

/* Declares the axes of a file whose format stores none (ACL buffers): the document's
 * `axes` are set after reading. */
typedef enum ganim_up {
    GANIM_UP_AS_READ = 0, /* what the reader says (the default) */
    GANIM_UP_Y,           /* GANIM_AXES_Y_UP */
    GANIM_UP_Z,           /* GANIM_AXES_Z_UP */
    GANIM_UP_Y_DOWN       /* GANIM_AXES_Y_DOWN */
} ganim_up;

/* What a read may take in and make. Every size a file announces is checked against these
 * before anything is allocated for it; past one, the read fails with GANIM_ERR_LIMIT and a
 * sentence naming the limit. A zero field takes the default; none may exceed the
 * library's own maximum (GANIM_MAX_FRAMES, GANIM_MAX_FRAME_SAMPLES). */
typedef struct ganim_limits {
    uint64_t input_bytes; /* bytes of a file read (the input, a companion, a file the format
                             loads; also standard input and endless devices: reading stops
                             as soon as there are more); 0: GANIM_DEFAULT_INPUT_BYTES */
    uint32_t frames;      /* frames of a clip; 0: GANIM_MAX_FRAMES */
    uint32_t bones;       /* bones of a skeleton; 0: GANIM_DEFAULT_BONES */
    uint32_t clips;       /* clips of a document; 0: GANIM_DEFAULT_CLIPS */
    uint32_t keys;        /* keys of a keyed channel; 0: GANIM_MAX_FRAMES */
    uint64_t samples;     /* frames times bones of a clip (what decoders fill and exporters
                             sample); 0: GANIM_MAX_FRAME_SAMPLES */
} ganim_limits;

/* The default input size: 256 MiB, about 300 times the largest real animation file of any
 * format ganim reads (a 760 KB Alamo death animation of 97 bones and 1301 frames; FF7
 * packs and Civilization VII files are under 1 MB), and room for a whole level archive. */
#define GANIM_DEFAULT_INPUT_BYTES ((uint64_t)256 << 20)
#define GANIM_DEFAULT_BONES 65536u
#define GANIM_DEFAULT_CLIPS 65536u

typedef struct ganim_read_opts {
    ganim_allocator allocator;      /* zeroed: malloc */
    size_t memory_limit;            /* bytes a document may hold; 0: 1 GiB */
    ganim_limits limits;            /* sizes a file may announce and bytes it may have */
    const char *format;             /* force this reader by name; NULL: probe */
    const ganim_skeleton *skeleton; /* companion skeleton (ALO, ??aa), copied in */
    int skeleton_must_fit;          /* 1: a track that does not fit `skeleton` (a
                                       GANIM_WARN_SKELETON warning) fails the read with
                                       GANIM_ERR_MISMATCH instead of being skipped */
    const ganim_setting *settings;  /* reader options (GANIM_OPTION_READ); settings of
                                        other formats are ignored, unknown names refused */
    uint32_t setting_count;
    ganim_companion_mode companion; /* ganim_read_file, when no skeleton is given */
    ganim_up up;                    /* which way is up, for files that do not say */
    /* Reads another file the format needs (a glTF's external buffer, an archive's data
     * file), by the name the file being read gives it. NULL: ganim_read_file reads it from
     * the folder of the file being read (relative names without ".." only, and only
     * regular files: not links, folders, pipes or devices), and
     * ganim_read_memory cannot. `out` is filled with the read's allocator; the library
     * frees it. */
    ganim_code (*load)(void *user, const char *name, ganim_buffer *out, ganim_error *err);
    void *load_user;
    /* The name of the file being read, without its folder (an archive names its data file
     * after it: CROCII.DIR reads CROCII.DAT). NULL: ganim_read_file sets it, and
     * ganim_read_memory reads nameless bytes. */
    const char *name;
    /* For formats that store times rather than frames (glTF): the frame rate their key
     * times are put on. 0: the format's choice (the rate the file records, else one that
     * puts every key on a whole frame, else 30). Formats that store frames ignore it. */
    double fps;
    /* The entries of the folder of the file being read, as ganim_find_companion_in takes
     * them, when the caller has listed that folder once for many files (a batch):
     * ganim_read_file looks for the companion among them instead of listing the folder
     * again for each file. NULL: it lists the folder. */
    const char *const *folder_names;
    size_t folder_name_count;
    /* ganim_read_memory only: 1 says the input bytes outlive the document and stay
     * unchanged while it lives, so a reader may keep them as a native record instead of
     * a copy (an ALA, an FF7 skeleton, an Argonaut archive keep their whole input). The
     * document never writes into the bytes nor frees them, and they do not count against
     * memory_limit. 0: the bytes are copied and may be freed when the call returns.
     * ganim_read_file ignores it (the buffer it loads is the document's). */
    int input_outlives_doc;
} ganim_read_opts;

typedef struct ganim_write_opts {
    ganim_allocator allocator;     /* zeroed: malloc */
    const ganim_setting *settings; /* writer options of the format written
                                        (GANIM_OPTION_WRITE); any other is refused */
    uint32_t setting_count;
    /* Called with what the format cannot store (an FF7 pack has no frame rate, ...);
     * NULL: not told. The warning lives until the call returns. */
    void (*warn)(void *user, const ganim_warning *warning);
    void *warn_user;
    /* Writing into an original (a modder's edit going back into the game): the document
     * as read from the original file (its native records, opaque slots, events). NULL:
     * `doc` is written whole. Otherwise the output is `into` with the animation clips of
     * `doc` put in their places, in `into`'s format (format_name must be NULL or name
     * it); every clip, slot and field the edit does not replace is written as `into` has
     * it. A clip of `doc` goes into the clip of `into` it is named after, as ganim's
     * exporters name them: the clip's own name; "A+B" for clip A played with its partner
     * B (the tracks of the bones B animates go into B, the rest into A); "<stem>_<index>"
     * or "clip_<index>" for an unnamed clip; and when both hold one animation (a partner
     * not counted), that one. An edited clip keeps the original clip's bones, channels,
     * name, record and events, and takes the edited values (bones matched by name: the
     * original's names, then the names an export gave them, then both ignoring case),
     * sampled at the original clip's rate over the edited clip's own duration (`fps`
     * overrides). A value within 1e-5 of the original's at its frame (the rounding of an
     * export and its reading back) keeps the original's bits; a keyed channel that comes
     * back with the original's key times stays keyed; where the original track has
     * visibility and the edit none, a zero scale (how exports show a hidden frame) is a
     * hidden frame. A bone the original clip animates that the edited clip lacks, an
     * edited bone that moves but is not in the original's skeleton, a clip that names no
     * clip of `into`, are errors that say what differs; motion the original clip has no
     * channel for is dropped with a warning. */
    const ganim_doc *into;
    /* With `into`: the clip of `into` (its index "3" or its name) that the one animation
     * of `doc` goes into, with its partner when it has one; NULL: matched by name. */
    const char *slot;
    /* The rate clips are written at, in frames per second: clips at another rate are
     * sampled at this one over the same duration. 0: with `into`, each original clip's
     * rate; else the format's own rate when its files have one (FF7 battle: 15), else
     * each clip's. GANIM_WRITE_KEEP_RATE: each clip as it is (a format that stores no
     * rate then plays it at its own: slow or fast motion, which the writer warns of). */
    double fps;
} ganim_write_opts;

#define GANIM_WRITE_KEEP_RATE (-1.0)

/* What a format can do (ganim_format.flags). */
#define GANIM_FORMAT_READ 1u      /* files can be read */
#define GANIM_FORMAT_WRITE 2u     /* documents can be written as this format */
#define GANIM_FORMAT_COMPANION 4u /* holds the skeleton other files need (no animation) */
#define GANIM_FORMAT_RESAMPLE 8u  /* has its own resampler (integer formats re-quantise) */

struct ganim_format_impl;

/* A file format. The library's formats are listed by ganim_formats(); their descriptors
 * live as long as the program. */
typedef struct ganim_format {
    const char *name;            /* short, stable: "alamo-ala", "ff7-battle", "acl", ... */
    const char *description;     /* one line for `ganim formats` */
    const char *family;          /* the games' family, shared by a game's formats ("alamo") */
    const char *extensions;      /* ';'-separated, lower case, with dot: ".ala" */
    uint32_t flags;              /* GANIM_FORMAT_* */
    const ganim_option *options; /* the format's reader and writer options */
    uint32_t option_count;
    const char *companion;                /* how the skeleton file its files need is found, in words
                                  (NULL: its files need none) */
    const struct ganim_format_impl *impl; /* the library's entry points: not for callers */
} ganim_format;

/* All registered formats, in registry order. */
GANIM_API const ganim_format *const *ganim_formats(size_t *count);
GANIM_API const ganim_format *ganim_format_find(const char *name);
/* 1 if `ext` (".ala", any case) is one of the format's extensions, else 0. */
GANIM_API int ganim_format_has_extension(const ganim_format *format, const char *ext);
/* The first format listing the extension of `path` (any case), or NULL. A hint only:
 * ganim_read_memory decides by probing the bytes unless a format is forced. */
GANIM_API const ganim_format *ganim_format_for_path(const char *path);
/* The format with the highest probe score (> 0), or NULL. `score` may be NULL. */
GANIM_API const ganim_format *ganim_probe(const void *data, size_t size, int *score);
/* How sure `format` is that the bytes are its own: 0..100. */
GANIM_API int ganim_format_probe(const ganim_format *format, const void *data, size_t size);
/* The option called `name` in any format (its format in *format when not NULL), or NULL. */
GANIM_API const ganim_option *ganim_option_find(const char *name, const ganim_format **format);
/* 1 when `format`'s reader (applies GANIM_OPTION_READ) or writer (GANIM_OPTION_WRITE)
 * takes `option`: the format's own options, and options another format of its family
 * lends it (the civ7 writer takes the acl writer's acl.* options for its V1 body). */
GANIM_API int ganim_format_takes_option(const ganim_format *format, const ganim_option *option, uint32_t applies);
/* GANIM_OK when `value` is one the option accepts, else GANIM_ERR_INVALID_ARG with a
 * sentence naming the accepted values. */
GANIM_API ganim_code ganim_option_check(const ganim_option *option, const char *value, ganim_error *err);

/* ------------------------------------------------------------------------------------ */
/* Documents                                                                            */
/* ------------------------------------------------------------------------------------ */

GANIM_API ganim_code ganim_read_memory(const void *data, size_t size, const ganim_read_opts *opts, ganim_doc **out,
                                       ganim_error *err);
/* Reads a file: the probe picks the format (unless opts->format names one; when no
 * format recognises the bytes, the one that claims the file's extension reads them, so a
 * damaged file gets its own reader's precise error; when the best probe is short of
 * certain (a score below 90: no magic number) and the extension's format recognises the
 * bytes too, the extension's format reads them), then the companion skeleton as
 * opts->companion says. A path ARCHIVE:MEMBER that does not exist as such names a member
 * of an archive (CROCII.DIR:LEVEL.WAD): the archive's format extracts it, and the member
 * is read as a file of that name. */
GANIM_API ganim_code ganim_read_file(const char *path, const ganim_read_opts *opts, ganim_doc **out, ganim_error *err);
/* The companion skeleton file of `path` by `format`'s rule (NULL: the format that claims
 * the path's extension, else the one that recognises its bytes), looked for in the same
 * folder, names compared without case (an exact match first). Writes the path to `out`
 * (`size` bytes) and returns 1, or returns 0 when there is none (or it does not fit). */
GANIM_API int ganim_find_companion(const char *path, const ganim_format *format, char *out, size_t size);
/* The same among `names`, the entries of path's folder (without "." and "..") sorted by
 * their bytes as strcmp orders them: for a caller that lists a folder once for many of
 * its files (a batch) rather than once for each. */
GANIM_API int ganim_find_companion_in(const char *path, const ganim_format *format, const char *const *names,
                                      size_t count, char *out, size_t size);
GANIM_API void ganim_doc_free(ganim_doc *doc);

/* The clip `spec` names: its index ("3"), else its name (exact, then ignoring case).
 * GANIM_ERR_INVALID_ARG with a sentence when there is no such clip; the document is
 * validated first (ganim_doc_validate). */
GANIM_API ganim_code ganim_doc_find_clip(const ganim_doc *doc, const char *spec, uint32_t *index, ganim_error *err);

/* Limits every document respects (ganim_doc_validate refuses more with GANIM_ERR_LIMIT):
 * frames per clip, and frames times skeleton bones per clip (what exporters sample). */
#define GANIM_MAX_FRAMES (1u << 20)
#define GANIM_MAX_FRAME_SAMPLES (1u << 27)
/* Frame rates an animation clip may have (frames per second). Beyond them durations and
 * key times overflow or lose all precision. */
#define GANIM_MIN_FPS 1e-4
#define GANIM_MAX_FPS 1e6

/* Checks every invariant of the model (parents before children, channel counts,
 * unit quaternions to 1e-3, finite values, track bones in range, the limits above).
 * ganim_read_memory runs it on every reader's output, and every public function that
 * takes a document to read it (ganim_write, ganim_doc_resample, ganim_doc_details,
 * ganim_doc_find_clip, the exporters) runs it first and refuses a document that fails
 * it with its code and sentence, before reading any of its arrays. It cannot see the
 * length of a track's `visibility` and `step` arrays: raising a clip's frame_count in
 * place is refused when the clip has a per-frame channel, not otherwise. */
GANIM_API ganim_code ganim_doc_validate(const ganim_doc *doc, ganim_error *err);

/* Write `doc` in a format that supports writing (GANIM_FORMAT_WRITE); NULL: the
 * document's own format (with opts->into: the original's, which is the only one allowed).
 * A format whose files are in fixed axes gets the document turned to them, one whose files
 * play at one rate gets its clips sampled at it (opts->fps); `doc` itself is not changed. */
GANIM_API ganim_code ganim_write(const ganim_doc *doc, const char *format_name, const ganim_write_opts *opts,
                                 ganim_buffer *out, ganim_error *err);

/* Insert factor-1 interpolated frames between every pair of frames of every animation
 * (n frames -> factor*(n-1)+1), fps multiplied by factor. Uses the format's own
 * resampler when it has one (FF7 re-quantises to its integer angles). The document is
 * validated before and after (ganim_doc_validate). */
GANIM_API ganim_code ganim_doc_resample(ganim_doc *doc, unsigned factor, ganim_error *err);

/* Read a whole file into memory (allocator from `allocator`, may be NULL): at most
 * `max_bytes` (0: GANIM_DEFAULT_INPUT_BYTES); a longer file, pipe or device fails with
 * GANIM_ERR_LIMIT as soon as it has more, without reading on. */
GANIM_API ganim_code ganim_load_file(const char *path, const ganim_allocator *allocator, uint64_t max_bytes,
                                     ganim_buffer *out, ganim_error *err);

/* ------------------------------------------------------------------------------------ */
/* Building and editing documents                                                       */
/* ------------------------------------------------------------------------------------ */

/* A program makes a document from its own data (a tool's rig, an engine's clip) and hands
 * it to any writer or exporter, or edits a document it read. The functions below copy
 * everything they are given into the document (names, arrays, native records): the
 * caller's memory may be reused as soon as a call returns. Counts are checked against
 * each other when something is copied (a channel's count against its kind and the clip's
 * frame count, so that no array is read past the count it gives); the values themselves
 * (unit quaternions, finite numbers, bones in the skeleton, limits) are checked by
 * ganim_doc_validate, which ganim_write and every exporter run. Clips and tracks are
 * named by index: adding one may move the document's arrays, so pointers taken from
 * `doc->clips` or `clip->tracks` before the call must be taken again. Replaced arrays
 * stay in the document's memory until ganim_doc_free. */

/* A new, empty document: no format, Y up, no skeleton, no clips. Of `opts` (NULL: the
 * defaults) only `allocator`, `memory_limit` and `limits` apply, as for a read: the
 * document's memory comes from that allocator, within that limit, and ganim_doc_validate
 * checks the document against those limits. Set `axes` directly. */
GANIM_API ganim_code ganim_doc_new(const ganim_read_opts *opts, ganim_doc **out, ganim_error *err);

/* Gives the document a copy of `skeleton`: its name, bones (names, parents, rest poses,
 * flags) and native record, replacing the skeleton it had (NULL: none). The clips' tracks
 * keep their bone indices. */
GANIM_API ganim_code ganim_doc_set_skeleton(ganim_doc *doc, const ganim_skeleton *skeleton, ganim_error *err);

/* Appends a copy of `clip`: name (NULL: ""), kind, fps, frame count, rotation
 * interpolation, tracks (each with its name, channels, visibility and step bytes),
 * events, opaque bytes and native record. A clip may be added without tracks and given
 * them with ganim_doc_add_track. `index` (may be NULL) receives the new clip's index. */
GANIM_API ganim_code ganim_doc_add_clip(ganim_doc *doc, const ganim_clip *clip, uint32_t *index, ganim_error *err);

/* Replaces clip `index` with a copy of `clip`, as ganim_doc_add_clip copies it (the clip
 * keeps its place: an FF7 pack's slot, an Argonaut record). */
GANIM_API ganim_code ganim_doc_set_clip(ganim_doc *doc, uint32_t index, const ganim_clip *clip, ganim_error *err);

/* Appends a copy of `track` (name NULL: "") to clip `clip`; `index` (may be NULL)
 * receives its index in the clip. Its channels' counts must fit the clip's frame count;
 * visibility and step, when not NULL, are frame_count bytes. */
GANIM_API ganim_code ganim_doc_add_track(ganim_doc *doc, uint32_t clip, const ganim_track *track, uint32_t *index,
                                         ganim_error *err);

/* Which channel of a track ganim_doc_set_channel replaces. */
typedef enum ganim_channel_target {
    GANIM_TARGET_ROTATION = 0, /* 4 floats per value: x, y, z, w */
    GANIM_TARGET_TRANSLATION,  /* 3 floats per value */
    GANIM_TARGET_SCALE         /* 3 floats per value */
} ganim_channel_target;

/* Replaces one channel of track `track` of clip `clip` with a copy of `channel` (its
 * kind, count, values and, when keyed, times; GANIM_CHANNEL_ABSENT removes it). In a
 * document read from a file the clip keeps its native record: writers keep the file's own
 * integers wherever the values still match them, so only what changed is re-encoded. */
GANIM_API ganim_code ganim_doc_set_channel(ganim_doc *doc, uint32_t clip, uint32_t track, ganim_channel_target target,
                                           const ganim_channel *channel, ganim_error *err);

/* Replaces the events of clip `clip` with a copy of `count` events (0: none). */
GANIM_API ganim_code ganim_doc_set_events(ganim_doc *doc, uint32_t clip, const ganim_event *events, uint32_t count,
                                          ganim_error *err);

/* ------------------------------------------------------------------------------------ */
/* Details: what a format knows beyond the model                                        */
/* ------------------------------------------------------------------------------------ */

/* Formats report what they know of a file beyond the model (versions, flags, raw
 * integers, quantisation, unknown fields) as a tree of typed, named values. `ganim info`
 * shows them as text, `ganim info --json` and `ganim dump` as JSON (docs/dump-format.md
 * documents every format's members; they are a stable interface). */
typedef enum ganim_detail_type {
    GANIM_DETAIL_NULL = 0, /* no value (JSON null) */
    GANIM_DETAIL_BOOL,     /* value.b: 0 or 1 */
    GANIM_DETAIL_INT,      /* value.i */
    GANIM_DETAIL_UINT,     /* value.u */
    GANIM_DETAIL_FLOAT,    /* value.f, a float32 */
    GANIM_DETAIL_DOUBLE,   /* value.d */
    GANIM_DETAIL_STRING,   /* value.s */
    GANIM_DETAIL_BYTES,    /* value.bytes (JSON: a lower-case hex string) */
    GANIM_DETAIL_INTS,     /* value.ints: integers, in rows of `width` when width > 0 */
    GANIM_DETAIL_LIST,     /* items[0..count): values in order, their keys NULL */
    GANIM_DETAIL_GROUP     /* items[0..count): named values in order */
} ganim_detail_type;

typedef struct ganim_detail {
    const char *key;     /* member name inside a GROUP; NULL inside a LIST */
    const char *label;   /* words for people ("frame sizes"), or NULL: the key */
    const char *meaning; /* what the value stands for ("Forces of Corruption"), or NULL */
    ganim_detail_type type;
    union {
        int b;
        int64_t i;
        uint64_t u;
        float f;
        double d;
        const char *s;
        struct {
            const uint8_t *data;
            size_t size;
        } bytes;
        struct {
            const int32_t *data;
            size_t count;
            uint32_t width;
        } ints;
    } value;
    const struct ganim_detail *items; /* LIST, GROUP */
    uint32_t count;
} ganim_detail;

typedef enum ganim_details_level {
    GANIM_DETAILS_SUMMARY = 0, /* what `ganim info` shows */
    GANIM_DETAILS_FULL         /* everything, raw integers included (`ganim dump`) */
} ganim_details_level;

typedef struct ganim_details {
    const ganim_detail *root; /* a GROUP, or NULL when the format has nothing to say */
    struct ganim_details_internal *internal;
} ganim_details;

/* The details of the document (clip < 0) or of clip `clip`. The tree is a copy: it
 * stays valid after the document is freed, until ganim_details_free. `allocator` may
 * be NULL (malloc). The document is validated first (ganim_doc_validate). */
GANIM_API ganim_code ganim_doc_details(const ganim_doc *doc, int clip, ganim_details_level level,
                                       const ganim_allocator *allocator, ganim_details **out, ganim_error *err);
GANIM_API void ganim_details_free(ganim_details *details);
/* A detail as compact JSON, appended to `out` (NULL detail: "null"). */
GANIM_API ganim_code ganim_detail_json(const ganim_detail *detail, ganim_buffer *out, ganim_error *err);

/* ------------------------------------------------------------------------------------ */
/* Sampling                                                                             */
/* ------------------------------------------------------------------------------------ */

/* Local transforms of every skeleton bone at `time` seconds (clamped to the clip).
 * `out` has skeleton->bone_count entries; bones without a track keep their rest pose.
 * `visible` (may be NULL) gets one byte per bone: 1 visible, 0 hidden. Rotations are
 * interpolated per clip->rotation_interp (shortest arc), vectors linearly, frames
 * marked `step` hold their value until the next frame. */
/* A clip whose channel counts do not fit its frame count is refused (GANIM_ERR_CORRUPT);
 * the values are not checked (ganim_doc_validate does). */
GANIM_API ganim_code ganim_clip_sample(const ganim_clip *clip, const ganim_skeleton *skeleton, double time,
                                       ganim_transform *out, uint8_t *visible, ganim_error *err);

/* Value of one channel at a (fractional) frame, with the rest value for absent
 * channels. `components` is 4 for rotation, 3 otherwise. `step` may be NULL. */
GANIM_API void ganim_channel_eval(const ganim_channel *ch, uint32_t frame_count, const uint8_t *step,
                                  ganim_rotation_interp interp, int components, double frame, const float *rest,
                                  float *out);

/* ------------------------------------------------------------------------------------ */
/* Maths                                                                                */
/* ------------------------------------------------------------------------------------ */

/* Euler orders name the matrix product left to right (three.js convention):
 * GANIM_EULER_YXZ means R = Ry(y) * Rx(x) * Rz(z), i.e. Z is applied first.
 * Angles are always given as (x, y, z) in radians. */
typedef enum ganim_euler_order {
    GANIM_EULER_XYZ = 0,
    GANIM_EULER_XZY,
    GANIM_EULER_YXZ,
    GANIM_EULER_YZX,
    GANIM_EULER_ZXY,
    GANIM_EULER_ZYX
} ganim_euler_order;

GANIM_API ganim_quat ganim_quat_identity(void);
GANIM_API ganim_quat ganim_quat_mul(ganim_quat a, ganim_quat b); /* a then b: a*b */
GANIM_API ganim_quat ganim_quat_conj(ganim_quat q);
GANIM_API ganim_quat ganim_quat_normalize(ganim_quat q);
GANIM_API float ganim_quat_dot(ganim_quat a, ganim_quat b);
GANIM_API ganim_quat ganim_quat_axis_angle(ganim_vec3 axis, double radians);
GANIM_API ganim_quat ganim_quat_slerp(ganim_quat a, ganim_quat b, double t); /* shortest arc */
GANIM_API ganim_quat ganim_quat_nlerp(ganim_quat a, ganim_quat b, float t);  /* ACL's */
GANIM_API ganim_vec3 ganim_quat_rotate(ganim_quat q, ganim_vec3 v);
GANIM_API ganim_quat ganim_quat_from_euler(const double xyz[3], ganim_euler_order order);
GANIM_API void ganim_quat_to_euler(ganim_quat q, ganim_euler_order order, double xyz[3]);
/* 3x3 rotation <-> quaternion; matrices row-major, column-vector convention. */
GANIM_API void ganim_quat_to_mat3(ganim_quat q, float m[9]);
GANIM_API ganim_quat ganim_quat_from_mat3(const float m[9]);
/* 4x4 column-major (glTF layout) from a transform, and products / inverse. */
GANIM_API void ganim_mat4_from_transform(const ganim_transform *t, float m[16]);
GANIM_API void ganim_mat4_mul(const float a[16], const float b[16], float out[16]);
GANIM_API int ganim_mat4_invert(const float m[16], float out[16]); /* 0 if singular */
GANIM_API ganim_transform ganim_transform_identity(void);
/* A transform from a 3x4 row-major matrix (column vectors, translation in the last
 * column) and back: the columns' lengths become the scale (the first one negative when
 * the matrix mirrors), the rest the rotation. Returns 0, with the identity in `out`,
 * when the matrix holds a non-finite value or a column too long for a float. */
GANIM_API int ganim_transform_from_mat34(const float m[12], ganim_transform *out);
GANIM_API void ganim_transform_to_mat34(const ganim_transform *t, float m[12]);

/* Rotation that turns the document's axes into +Y up (identity for GANIM_AXES_Y_UP). */
GANIM_API ganim_quat ganim_axes_to_y_up(ganim_axes axes);
GANIM_API const char *ganim_axes_name(ganim_axes axes);

/* ------------------------------------------------------------------------------------ */
/* Exporters                                                                            */
/* ------------------------------------------------------------------------------------ */

typedef enum ganim_visibility_mode {
    GANIM_VIS_SCALE = 0, /* hidden frames become STEP scale keys of 0 (default) */
    GANIM_VIS_IGNORE,    /* drop visibility */
} ganim_visibility_mode;

typedef struct ganim_export_opts {
    ganim_allocator allocator;
    uint32_t only_clip; /* 0: every animation clip (glTF) / the first (BVH, which warns when
                           there are several); else 1 + the index of the one clip exported
                           (with its partner) */
    int keep_axes;      /* 1: do not convert to Y-up */
    float unit_scale;   /* multiply translations; 0 means 1 */
    ganim_visibility_mode visibility;
    int sparse_keys;               /* glTF: 1 = key only the channels a clip animates (a client then
                        shows the others as the last animation played left them, or at
                        rest); 0 = every joint of the skin gets rotation, translation and
                        scale keys in every animation, its rest value where the clip does
                        not move it, so every client shows the same pose */
    const char *bin_uri;           /* .gltf: file name of the external buffer, as is (the
                                  exporter percent-encodes it); NULL: "buffer.bin" */
    const char *generator;         /* asset.generator; NULL: "ganim <version>" */
    const char *bvh_order;         /* BVH rotation channel order for every joint, e.g. "ZXY"
                                  (NULL: ZXY, or per joint an order clear of gimbal lock) */
    int bvh_joint_positions;       /* BVH: roots and every joint whose translation differs
                                  from its rest offset in some frame get position channels
                                  (with OFFSET 0 0 0, which Blender and three.js read
                                  alike); 1 = also every joint whose translation channel is
                                  animated, even where it stays at the rest offset */
    const char *default_clip_name; /* glTF: unnamed animation clips are called this (the
                                  input's file name without extension), or NAME_<index>
                                  when the document has several animations; NULL:
                                  clip_<index> */
    /* Called with what an export could not carry or chose for the caller (NULL: not told).
     * The warning and its message live until the call returns. */
    void (*warn)(void *user, const ganim_warning *warning);
    void *warn_user;
    int unscaled_rest; /* glTF: 1 = the skeleton's rest pose (nodes, bind matrices, bone mesh)
                          without its scales, every animation keying each joint's scale
                          (its rest scale where the clip does not move it, sparse keys
                          too): Blender's importer drops rest scales from its bones and
                          then deforms the mesh wrongly (docs/clients.md). A glb so written
                          reads back with unit rest scales and the rest scales as scale
                          channels. 0 = the rest as the document has it */
} ganim_export_opts;

/* Every exporter validates the document first (ganim_doc_validate) and refuses one that
 * fails with its code and sentence. */

/* glTF 2.0 binary (.glb). A large one (a binary chunk of about 2 MiB or more, guessed from
 * the clips' frames and tracks) is made in two runs, as ganim_export_glb_stream makes it,
 * into `out` grown once to its size; a smaller one in one run. The bytes are the same. */
GANIM_API ganim_code ganim_export_glb(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out,
                                      ganim_error *err);
/* The same .glb in two parts, for a caller that writes it to a file without holding it
 * whole: `head` gets the 12-byte header, the JSON chunk and the binary chunk's 8-byte
 * header, `bin` the binary chunk's bytes and their padding; `head` followed by `bin` is,
 * byte for byte, what ganim_export_glb gives. Both are appended to (as ganim_export_gltf's
 * buffers); after a failure both are as they were. */
GANIM_API ganim_code ganim_export_glb_parts(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *head,
                                            ganim_buffer *bin, ganim_error *err);
/* glTF 2.0 JSON (.gltf) and its external buffer (.bin, referenced by opts->bin_uri). */
GANIM_API ganim_code ganim_export_gltf(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *json,
                                       ganim_buffer *bin, ganim_error *err);
/* Streamed glTF: the export hands its bytes to `sink` as it makes them and holds neither
 * the file nor its binary buffer, only pieces of about 64 KiB (larger for a single larger
 * value, as a native record's base64). `part` is 0 for the .glb or the .gltf's JSON, 1 for
 * the .gltf's .bin; `offset` is where the `size` bytes go in that part. Every byte of a
 * part comes exactly once, but not in order of offset (the binary chunk's bytes come
 * while the JSON before them is still being written), so a caller writes them at their
 * offsets (a file: pwrite) and a part's size is the end of its last byte. The bytes are
 * exactly those of ganim_export_glb / ganim_export_gltf. A large export (a binary buffer
 * of about 2 MiB or more, as for ganim_export_glb) goes through the document twice: a
 * first run that measures and can fail on the document's values before a byte is handed
 * over, then the one that writes (warnings come from the first only); a smaller one is
 * made in one run, held (it is small), then handed over in order. A sink
 * returns 0, or non-zero to stop the export (GANIM_ERR_IO). After a failure some bytes
 * may have been handed over: the caller discards them (ganim's CLI writes to a temporary
 * file, renamed only on success). */
typedef int (*ganim_export_sink)(void *user, uint32_t part, uint64_t offset, const void *data, size_t size);
GANIM_API ganim_code ganim_export_glb_stream(const ganim_doc *doc, const ganim_export_opts *opts,
                                             ganim_export_sink sink, void *user, ganim_error *err);
GANIM_API ganim_code ganim_export_gltf_stream(const ganim_doc *doc, const ganim_export_opts *opts,
                                              ganim_export_sink sink, void *user, ganim_error *err);
/* BVH of one clip. */
GANIM_API ganim_code ganim_export_bvh(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out,
                                      ganim_error *err);
/* Lossless JSON dump (docs/dump-format.md). */
GANIM_API ganim_code ganim_export_json(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out,
                                       ganim_error *err);
/* The summary `ganim info --json` prints (docs/dump-format.md). */
GANIM_API ganim_code ganim_export_info_json(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out,
                                            ganim_error *err);

#ifdef __cplusplus
}
#endif
#endif /* GANIM_H */
