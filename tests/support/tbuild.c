/* Building documents in tests through the public API (see tbuild.h). */
#include "support/tbuild.h"

#include <stdio.h>
#include <stdlib.h>

#include "test.h"

ganim_doc *tb_doc(uint32_t bones, const char *const *names)
{
    ganim_bone *b = calloc(bones ? bones : 1, sizeof *b);
    char(*made)[32] = calloc(bones ? bones : 1, sizeof *made);
    for (uint32_t i = 0; i < bones; i++) {
        snprintf(made[i], sizeof made[i], "bone_%u", i);
        b[i].name = names && names[i] ? names[i] : made[i];
        b[i].parent = -1;
        b[i].rest = ganim_transform_identity();
    }
    ganim_skeleton sk = { "", bones, b, NULL, NULL, 0 };
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    if (ganim_doc_new(NULL, &doc, &err) != GANIM_OK || ganim_doc_set_skeleton(doc, &sk, &err) != GANIM_OK)
        test_fail(__FILE__, __LINE__, "tb_doc: %s", err.message);
    free(b);
    free(made);
    return doc;
}

uint32_t tb_clip(ganim_doc *doc, const char *name, double fps, uint32_t frames)
{
    ganim_clip c = { 0 };
    c.name = name;
    c.fps = fps;
    c.frame_count = frames;
    uint32_t index = 0;
    ganim_error err = { 0 };
    if (ganim_doc_add_clip(doc, &c, &index, &err) != GANIM_OK)
        test_fail(__FILE__, __LINE__, "tb_clip: %s", err.message);
    return index;
}

uint32_t tb_track(ganim_doc *doc, uint32_t clip, uint32_t bone, const uint8_t *visibility, const uint8_t *step)
{
    ganim_track t = { 0 };
    t.bone = bone;
    t.visibility = visibility;
    t.step = step;
    uint32_t index = 0;
    ganim_error err = { 0 };
    if (ganim_doc_add_track(doc, clip, &t, &index, &err) != GANIM_OK)
        test_fail(__FILE__, __LINE__, "tb_track: %s", err.message);
    return index;
}

void tb_channel(ganim_doc *doc, uint32_t clip, uint32_t track, ganim_channel_target target, ganim_channel_kind kind,
                uint32_t count, const float *times, const float *values)
{
    ganim_channel ch = { kind, count, times, values };
    ganim_error err = { 0 };
    if (ganim_doc_set_channel(doc, clip, track, target, &ch, &err) != GANIM_OK)
        test_fail(__FILE__, __LINE__, "tb_channel: %s", err.message);
}
