/* ganim_doc_validate's finiteness check of translation and scale values (eight at a time
 * with SSE2, one by one after): an infinity or a NaN (quiet or signalling, either sign)
 * at every position of channels of 3 to 45 values is refused; the largest finite values,
 * subnormals and signed zeros are accepted. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "test.h"

static ganim_doc *one_track_doc(uint32_t frames, const float *trans)
{
    ganim_doc *doc = NULL;
    if (ganim_doc_new(NULL, &doc, NULL) != GANIM_OK) return NULL;
    ganim_bone bone = { 0 };
    bone.name = "b";
    bone.parent = -1;
    bone.rest = ganim_transform_identity();
    ganim_skeleton sk = { "s", 1, &bone, NULL, NULL, 0 };
    ganim_clip cl = { 0 };
    cl.name = "c";
    cl.fps = 30;
    cl.frame_count = frames;
    ganim_track tr = { 0 };
    tr.name = "b";
    tr.translation.kind = GANIM_CHANNEL_PER_FRAME;
    tr.translation.count = frames;
    tr.translation.values = trans;
    uint32_t ci = 0;
    if (ganim_doc_set_skeleton(doc, &sk, NULL) != GANIM_OK || ganim_doc_add_clip(doc, &cl, &ci, NULL) != GANIM_OK ||
        ganim_doc_add_track(doc, ci, &tr, NULL, NULL) != GANIM_OK) {
        ganim_doc_free(doc);
        return NULL;
    }
    return doc;
}

static float from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

TEST(every_position_of_a_non_finite_value)
{
    const float bad[] = { INFINITY, -INFINITY, NAN, -NAN, from_bits(0x7F800001u), from_bits(0xFFFFFFFFu) };
    const float fine[] = { FLT_MAX, -FLT_MAX, from_bits(1u), -0.0f, 0.0f, from_bits(0x7F7FFFFFu) };
    for (uint32_t frames = 1; frames <= 15; frames++) {
        float *v = calloc((size_t)frames * 3u, sizeof *v);
        for (uint32_t i = 0; i < frames * 3u; i++) v[i] = (float)i * 0.25f - 3.0f;
        ganim_doc *doc = one_track_doc(frames, v);
        free(v);
        if (!doc) {
            CHECK_MSG(0, "document of %u frames", frames);
            return;
        }
        float *w = (float *)(uintptr_t)doc->clips[0].tracks[0].translation.values;
        CHECK_EQ_INT(ganim_doc_validate(doc, NULL), GANIM_OK);
        for (uint32_t p = 0; p < frames * 3u; p++) {
            float keep = w[p];
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
                w[p] = bad[b];
                ganim_error err = { 0 };
                if (ganim_doc_validate(doc, &err) != GANIM_ERR_CORRUPT || !strstr(err.message, "not a finite number")) {
                    CHECK_MSG(0, "%u frames: value %u = %a accepted (%s)", frames, p, (double)bad[b], err.message);
                    ganim_doc_free(doc);
                    return;
                }
            }
            for (size_t g = 0; g < sizeof fine / sizeof fine[0]; g++) {
                w[p] = fine[g];
                CHECK_MSG(ganim_doc_validate(doc, NULL) == GANIM_OK, "%u frames: value %u = %a refused", frames, p,
                          (double)fine[g]);
            }
            w[p] = keep;
        }
        ganim_doc_free(doc);
    }
}

int main(void)
{
    test_program_name = "test_validate_finite";
    RUN(every_position_of_a_non_finite_value);
    return test_finish();
}
