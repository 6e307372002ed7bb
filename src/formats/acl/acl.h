/* Internal interface of the ACL `compressed_tracks` decoder (src/formats/acl), shared with the
 * Civilization VII container (acl_civ7.c) and the benchmark. */
#ifndef GANIM_FORMATS_ACL_ACL_H
#define GANIM_FORMATS_ACL_ACL_H

#include <stddef.h>
#include <stdint.h>

#include "ganim.h"

#define GANIM_ACL_TAG 0xAC11AC11u

/* A parsed and fully validated buffer: after a successful open, sampling cannot fail
 * and never reads outside the buffer. Points into the caller's bytes (keep them). */
typedef struct ganim_acl ganim_acl;

/* Parse `data[0..size)` (the ACL buffer; `base` is its offset in the file, for error
 * messages). Warnings go to `wd` when not NULL (the hash is checked by
 * ganim_acl_read_doc, interleaved with its decode, not here). `bind` (may be
 * NULL) supplies default values for non-trivial default sub-tracks when the buffer has
 * no metadata descriptions; its bone_count must be the track count. The result lives in
 * one allocation from `alloc` (NULL: malloc); release it with ganim_acl_close. */
ganim_code ganim_acl_open(const uint8_t *data, size_t size, uint64_t base, const ganim_allocator *alloc,
                          const ganim_skeleton *bind, ganim_doc *wd, ganim_acl **out, ganim_error *err);
/* ganim_acl_open for a handle that decodes whole clips (ganim_acl_decode_clip): the same
 * checks, results, warnings and failures, without building the random-access groups
 * unless the decode uses them (segments of a few samples). ganim_acl_sample_pose and
 * ganim_acl_sample_key still work on it and give the same bits, decoding the sub-tracks
 * one by one instead of four at a time where groups were not built. */
ganim_code ganim_acl_open_clip(const uint8_t *data, size_t size, uint64_t base, const ganim_allocator *alloc,
                               const ganim_skeleton *bind, ganim_doc *wd, ganim_acl **out, ganim_error *err);
void ganim_acl_close(ganim_acl *acl);

uint32_t ganim_acl_track_count(const ganim_acl *acl);
uint32_t ganim_acl_frame_count(const ganim_acl *acl); /* num_samples (+1 when wrapped) */
float ganim_acl_sample_rate(const ganim_acl *acl);

/* Random access: the pose at `t` seconds straight from the compressed bytes, as ACL's
 * seek(t, none) + decompress_pose with normalised rotations. `out`: track_count entries. */
void ganim_acl_sample_pose(const ganim_acl *h, float t, ganim_transform *out);

/* The same pose by the scalar path, one sub-track at a time: the reference the SSE2
 * paths of ganim_acl_sample_pose must equal bit for bit (tests). */
void ganim_acl_sample_pose_ref(const ganim_acl *h, float t, ganim_transform *out);

/* The pose at integer sample k (clamped; wrapped clips: num_samples is sample 0;
 * stripped clips: the retained key at or before k) by the random-access path, without
 * going through a time: what the whole-clip decode must reproduce bit for bit. */
void ganim_acl_sample_key(const ganim_acl *h, uint32_t k, ganim_transform *out);

/* Every key of the clip (ganim_acl_frame_count frames) into `out`, frame-major: frame f's
 * track_count transforms at out[f * track_count], as ACL's decompress_tracks fills a
 * clip-sized array pose after pose. Bit-identical to ganim_acl_sample_key(h, f, ...) for
 * every f (stripped clips: the retained key at or before f; wrapped clips: the last frame
 * is the first), through the document read's whole-clip loops. Like the sampler it
 * cannot fail after a successful open, never allocates, reads only what the open
 * validated and does not check the hash. */
void ganim_acl_decode_clip(const ganim_acl *h, ganim_transform *out);

/* The same with each record's samples decoded `chunk` at a time (clamped to 1..64; the
 * fast path takes 64): for the tests, so that every clip of the test data, whose
 * segments hold 31 samples at most, also goes through slices that start inside a segment. */
void ganim_acl_decode_clip_chunked(const ganim_acl *h, ganim_transform *out, uint32_t chunk);

/* Whole-clip decode into `doc` (skeleton + one clip) from an ACL buffer at file offset
 * `base`. Used by the "acl" reader (base 0) and by civ7 (V1 body, base 0x60). */
ganim_code ganim_acl_read_doc(ganim_doc *doc, const uint8_t *data, size_t size, uint64_t base,
                              const ganim_read_opts *opts, ganim_error *err);

#endif
