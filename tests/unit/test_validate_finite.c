/* ganim_doc_validate's finiteness check of translation and scale values (eight at a time
 * with SSE2, one by one after): an infinity or a NaN (quiet or signalling, either sign)
 * at every position of channels of 3 to 45 values is refused; the largest finite values,
 * subnormals and signed zeros are accepted. And its check of the bones (one pass over all
 * of them without early exits, then the bone-by-bone loop to name the first bad one)
 * against a bone-by-bone reference on many skeletons with faults planted here and there. */
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

/* The reference: the first bad bone in order, its first failed check (name and parent,
 * then finiteness, then unit length), as the message ganim_doc_validate gives. */
static int reference_bones(const ganim_bone *bones, uint32_t n, char *msg, size_t room)
{
    for (uint32_t i = 0; i < n; i++) {
        const ganim_bone *b = &bones[i];
        if (!b->name || b->parent < -1 || b->parent >= (int32_t)i) {
            snprintf(msg, room, "bone %u: parent %d is not an earlier bone", i, (int)b->parent);
            return 1;
        }
        const float *f = &b->rest.rotation.x;
        const float *v[10] = { f,
                               f + 1,
                               f + 2,
                               f + 3,
                               &b->rest.translation.x,
                               &b->rest.translation.y,
                               &b->rest.translation.z,
                               &b->rest.scale.x,
                               &b->rest.scale.y,
                               &b->rest.scale.z };
        for (int k = 0; k < 10; k++)
            if (!isfinite(*v[k])) {
                snprintf(msg, room, "bone %u: rest pose is not finite", i);
                return 1;
            }
        float len2 = f[0] * f[0] + f[1] * f[1] + f[2] * f[2] + f[3] * f[3];
        if (!(len2 >= 0.998001f && len2 <= 1.002001f)) {
            snprintf(msg, room, "bone %u: rest rotation is not a unit quaternion", i);
            return 1;
        }
    }
    return 0;
}

static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

TEST(bones_as_one_by_one)
{
    const float bad[] = { INFINITY, -INFINITY, NAN, from_bits(0x7F800001u), from_bits(0xFFC00000u) };
    const float fine[] = { FLT_MAX, -FLT_MAX, from_bits(1u), -0.0f, 1e30f };
    uint32_t seed = 12345u, failures = 0, refused = 0;
    ganim_bone bones[40];
    for (int round = 0; round < 4000 && failures < 5; round++) {
        uint32_t n = 1u + next(&seed) % 40u;
        for (uint32_t i = 0; i < n; i++) {
            ganim_bone *b = &bones[i];
            b->name = "b";
            b->parent = (int32_t)(next(&seed) % (i + 1u)) - 1;
            b->rest = ganim_transform_identity();
            float a = (float)(next(&seed) % 628u) * 0.01f; /* a unit rotation about z */
            b->rest.rotation.z = sinf(a * 0.5f);
            b->rest.rotation.w = cosf(a * 0.5f);
            b->rest.translation.x = (float)(next(&seed) % 2001u) - 1000.0f;
            b->rest.scale.y = (float)(next(&seed) % 100u) * 0.1f;
            b->flags = 0;
        }
        /* zero to three faults (or unusual good values) at random bones and places */
        uint32_t faults = next(&seed) % 4u;
        for (uint32_t f = 0; f < faults; f++) {
            ganim_bone *b = &bones[next(&seed) % n];
            uint32_t what = next(&seed) % 7u, k = next(&seed) % 10u;
            float *fl[10] = { &b->rest.rotation.x,    &b->rest.rotation.y,    &b->rest.rotation.z,
                              &b->rest.rotation.w,    &b->rest.translation.x, &b->rest.translation.y,
                              &b->rest.translation.z, &b->rest.scale.x,       &b->rest.scale.y,
                              &b->rest.scale.z };
            int32_t idx = (int32_t)(b - bones);
            switch (what) {
            case 0: b->name = NULL; break;
            case 1: b->parent = next(&seed) % 2u ? -2 : idx + (int32_t)(next(&seed) % 3u); break;
            case 2: *fl[k] = bad[next(&seed) % (sizeof bad / sizeof bad[0])]; break;
            case 3: *fl[4u + k % 6u] = fine[next(&seed) % (sizeof fine / sizeof fine[0])]; break;
            case 4: *fl[k % 4u] *= next(&seed) % 2u ? 1.0011f : 0.9989f; break; /* length^2 just outside */
            case 5: *fl[k % 4u] *= next(&seed) % 2u ? 1.0009f : 0.9991f; break; /* just inside */
            default: b->rest.rotation.w = -b->rest.rotation.w; break;           /* still unit */
            }
        }
        ganim_doc *doc = NULL;
        ganim_skeleton sk = { "s", n, bones, NULL, NULL, 0 };
        if (ganim_doc_new(NULL, &doc, NULL) != GANIM_OK) {
            CHECK_MSG(0, "document");
            return;
        }
        /* set_skeleton copies the bones (names and all): the faults go into the copy */
        const char *names[40];
        for (uint32_t i = 0; i < n; i++) names[i] = bones[i].name, bones[i].name = "b";
        ganim_bone *copy = NULL;
        if (ganim_doc_set_skeleton(doc, &sk, NULL) == GANIM_OK) copy = (ganim_bone *)(uintptr_t)doc->skeleton->bones;
        if (!copy) {
            CHECK_MSG(0, "round %d: skeleton not set", round);
            ganim_doc_free(doc);
            return;
        }
        for (uint32_t i = 0; i < n; i++)
            if (!names[i]) copy[i].name = NULL;
        char want[200];
        int expect_bad = reference_bones(copy, n, want, sizeof want);
        ganim_error err = { 0 };
        ganim_code rc = ganim_doc_validate(doc, &err);
        refused += rc != GANIM_OK;
        if (expect_bad ? rc != GANIM_ERR_CORRUPT || strcmp(err.message, want) != 0 : rc != GANIM_OK) {
            CHECK_MSG(0, "round %d, %u bones: validate %d (%s), the reference %s", round, n, (int)rc, err.message,
                      expect_bad ? want : "accepts");
            failures++;
        }
        ganim_doc_free(doc);
    }
    CHECK_MSG(refused > 1000 && refused < 3000, "%u skeletons of 4000 refused", refused);
}

int main(void)
{
    test_program_name = "test_validate_finite";
    RUN(every_position_of_a_non_finite_value);
    RUN(bones_as_one_by_one);
    return test_finish();
}
