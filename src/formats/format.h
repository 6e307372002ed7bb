/* The formats layer: how the library calls into a format, and what formats share.
 *
 * A format is one `ganim_format` descriptor (include/ganim.h: name, description,
 * family, extensions, flags, option table, companion rule in words) whose `impl`
 * points at a `ganim_format_impl` with its entry points. Each family lives in its own
 * folder, src/formats/<family>/, and registry.c lists the descriptors (one line each).
 * Only this layer calls the entry points: reading (read.c), writing and resampling
 * (write.c). */
#ifndef GANIM_FORMATS_FORMAT_H
#define GANIM_FORMATS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "ganim.h"

typedef struct gd_builder gd_builder;

/* A probe score from this up means the bytes carry the format's own mark (a magic
 * number, a header that cannot be chance): the file's name does not overrule it. Below
 * it, when two formats take the bytes, the one the file's extension names wins. */
#define GANIM_PROBE_CERTAIN 90

/* The entries of an array whose size the compiler knows (a format's option table): a
 * descriptor's option_count is never typed by hand. */
#define GANIM_COUNT_OF(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))

struct ganim_format_impl {
    /* 0..100: how sure the format is that these bytes are its own. Pure and cheap, never
     * from the file name. */
    int (*probe)(const uint8_t *data, size_t size);
    /* Fill `doc` (already created, empty). The caller validates the result. */
    ganim_code (*read)(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts, ganim_error *err);
    /* Append the format's bytes for `doc` to `out`. NULL when not supported. */
    ganim_code (*write)(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err);
    /* Insert factor-1 interpolated frames between frames. NULL: the generic resampler. */
    ganim_code (*resample)(ganim_doc *doc, unsigned factor, ganim_error *err);
    /* The companion skeleton file of the file named `base` (no folder) among the names
     * in its folder: an index into `names`, or -1. NULL: the format's files need none. */
    int (*companion)(const char *base, const char *const *names, size_t count);
    /* What the format knows of the document (clip < 0) or of clip `clip` beyond the
     * model, as typed details added to `b` (nothing added: nothing to say). NULL: none. */
    ganim_code (*details)(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err);
    /* An archive format: the bytes of its member `member` (names compared without case)
     * into `out` (allocated with opts->allocator), reading the archive's other files
     * through ganim_read_load. NULL: the format's files hold no members. */
    ganim_code (*member)(const uint8_t *data, size_t size, const char *member, const ganim_read_opts *opts,
                         ganim_buffer *out, ganim_error *err);
    /* 1: the reader sizes its document from its input (ganim_doc_size_for_input): the
     * document is made so (ganim_doc_create_for_input), a small input's first block in
     * the document's allocation. */
    int sized_for_input;
    /* The axes the format's files are in, as 1 + ganim_axes (0: files of no fixed axes):
     * ganim_write turns a document in other axes to them before `write` sees it. */
    int axes;
    /* A format of the same family whose writer options this format's writer takes too
     * (civ7: acl, whose acl.* options shape a V1 body). NULL: none. */
    const ganim_format *writer_options_of;
    /* The one frame rate the format's files play at (FF7 battle: 15), 0 when its files
     * store their own: ganim_write samples clips at another rate at this one, over the
     * same duration (unless the caller's ganim_write_opts.fps says otherwise). */
    double fps;
};

/* ---- details (details.c) ----------------------------------------------------------------
 * A format's details hook adds typed values to the builder: scalars to the open group or
 * list, groups and lists with begin/end. Keys, strings, bytes and integers are copied.
 * Failures (memory) are sticky and reported when the tree is finished. */
void gd_group(gd_builder *b, const char *key); /* begin a group */
void gd_list(gd_builder *b, const char *key);  /* begin a list */
void gd_end(gd_builder *b);                    /* end the open group or list */
void gd_null(gd_builder *b, const char *key);
void gd_bool(gd_builder *b, const char *key, int v);
void gd_int(gd_builder *b, const char *key, int64_t v);
void gd_uint(gd_builder *b, const char *key, uint64_t v);
void gd_float(gd_builder *b, const char *key, float v);
void gd_double(gd_builder *b, const char *key, double v);
void gd_string(gd_builder *b, const char *key, const char *v);
void gd_bytes(gd_builder *b, const char *key, const uint8_t *data, size_t size);
/* Integers in rows of `width` (0: one flat list). */
void gd_ints(gd_builder *b, const char *key, const int32_t *v, size_t count, uint32_t width);
/* Words for people on the value added last (or the group or list ended last): its label
 * (default: the key) and what the value means. Static strings. */
void gd_label(gd_builder *b, const char *label);
/* Marks the tree as failed (out of memory in a format's own scratch allocation). */
void gd_fail(gd_builder *b);
/* The allocator of the tree being built, for a format's scratch memory. */
const ganim_allocator *gd_allocator(gd_builder *b);
void gd_meaning(gd_builder *b, const char *meaning);
/* ganim_doc_details of a document the caller has just validated (ganim_doc_validate), which
 * it does not validate again (the glTF export's conventions, in each of its runs). */
ganim_code gd_doc_details_valid(const ganim_doc *doc, int clip, ganim_details_level level,
                                const ganim_allocator *allocator, ganim_details **out, ganim_error *err);

/* ---- other files (read_folder.c) ---------------------------------------------------------------
 * A reader that needs another file (an external buffer, an archive's data) asks for it by
 * the name its file gives; the caller's loader (or ganim_read_file's, which reads from the
 * file's folder) answers. The buffer is the caller's to free (ganim_buffer_free). */
ganim_code ganim_read_load(const ganim_read_opts *opts, const char *name, ganim_buffer *out, ganim_error *err);
/* `size` bytes at `offset` of such a file (an archive's member in its data file): the
 * library's own loader reads only them; a caller's loader gives the whole file, which is
 * then cut. GANIM_ERR_TRUNCATED when the file is shorter. */
ganim_code ganim_read_load_range(const ganim_read_opts *opts, const char *name, uint64_t offset, size_t size,
                                 ganim_buffer *out, ganim_error *err);

/* ---- writing: ganim_write_warn (core/internal.h) tells the caller what a file cannot store */

/* ---- putting clips into an original (put.c) ----------------------------------------------
 * The animation clips of `input` put into `target` (a clone of the original, arrays its
 * own), as ganim_write_opts.into describes: matched by name or into clip `slot`, bones by
 * name, turned to the target's axes, sampled at `fps` (0: each target clip's own rate;
 * GANIM_WRITE_KEEP_RATE: the input clip's)
 * over the input's duration. Only the channels and bones the target clip has are set; its
 * name, record, events and partner stay. Losses go to wo->warn. */
ganim_code ganim_doc_put(ganim_doc *target, const ganim_doc *input, const char *slot, double fps,
                         const ganim_write_opts *wo, ganim_error *err);

/* ---- companion rules (companion.c) ---------------------------------------------------- */
/* The entry of `names` equal to `want` ignoring ASCII case (an exact match first), or -1. */
int ganim_name_match(const char *const *names, size_t count, const char *want);
/* ".ala" of "MODEL_DIE_00.ala", "" when the name has none (a leading dot is no
 * extension). Points into `base`. */
const char *ganim_name_extension(const char *base);

/* ---- options (options.c) --------------------------------------------------------------- */
/* The value set for option `name`, or NULL. Values were checked against the format's
 * table before the format is called, so a format may trust them. */
const char *ganim_setting_get(const ganim_setting *settings, uint32_t count, const char *name);
/* The index of the set value in the option's choice list, or -1 when it is not set (or
 * the option takes text: read it with ganim_setting_get). */
int ganim_setting_choice(const ganim_setting *settings, uint32_t count, const ganim_option *option);
/* GANIM_OPTION_INT: 1 and the value in *value when the option is set, else 0. */
int ganim_setting_int(const ganim_setting *settings, uint32_t count, const ganim_option *option, int64_t *value);
/* The format's option called `name` (NULL if it has none). */
const ganim_option *ganim_format_option(const ganim_format *format, const char *name);
/* Checks settings for a read or write with `format`: unknown names, values outside the
 * option's choices, and (writes) options of other formats are refused. */
ganim_code ganim_settings_check(const ganim_format *format, const ganim_setting *settings, uint32_t count,
                                uint32_t applies, ganim_error *err);

#endif
