/* Building documents in tests through the public API only (ganim_doc_new and friends),
 * as any program would: short helpers that fail the running test on an error. */
#ifndef GANIM_TEST_TBUILD_H
#define GANIM_TEST_TBUILD_H

#include "ganim.h"

/* A new document with a skeleton of `bones` root bones (identity rest poses, names from
 * `names` or bone_<i>, flags 0); its values may then be changed in place. */
ganim_doc *tb_doc(uint32_t bones, const char *const *names);
/* Appends an animation clip without tracks; returns its index. */
uint32_t tb_clip(ganim_doc *doc, const char *name, double fps, uint32_t frames);
/* Appends a track on `bone` to clip `clip` (no channels; visibility and step bytes
 * copied when not NULL); returns its index. */
uint32_t tb_track(ganim_doc *doc, uint32_t clip, uint32_t bone, const uint8_t *visibility, const uint8_t *step);
/* Sets a channel of track `track` of clip `clip` (copied): `count` values of 4 or 3
 * floats, `times` for keyed channels. */
void tb_channel(ganim_doc *doc, uint32_t clip, uint32_t track, ganim_channel_target target, ganim_channel_kind kind,
                uint32_t count, const float *times, const float *values);

#endif
