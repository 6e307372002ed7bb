/* ganim_clip_sample on hand-built clips: per-frame, constant, keyed, step, clamp, visibility. */
#include <math.h>

#include "support/tbuild.h"
#include "test.h"

static const double PI = 3.14159265358979323846;

/* Skeleton: root (rest translation 1,2,3) and child (rest rotation 90° about X). */
static ganim_doc *make_doc(uint32_t frames)
{
    ganim_doc *doc = tb_doc(2, NULL);
    doc->skeleton->bones[0].rest.translation = (ganim_vec3){ 1, 2, 3 };
    doc->skeleton->bones[1].parent = 0;
    ganim_vec3 x = { 1, 0, 0 };
    doc->skeleton->bones[1].rest.rotation = ganim_quat_axis_angle(x, PI / 2);
    tb_clip(doc, "test", 10, frames);
    return doc;
}

TEST(per_frame_and_rest)
{
    ganim_doc *doc = make_doc(3);
    tb_track(doc, 0, 1, NULL, NULL);
    float tr[9] = { 0 };
    for (int f = 0; f < 3; f++) tr[f * 3] = (float)(f * 10); /* x = 0, 10, 20 */
    tb_channel(doc, 0, 0, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 3, NULL, tr);
    float rot[12];
    ganim_vec3 z = { 0, 0, 1 };
    for (int f = 0; f < 3; f++) {
        ganim_quat q = ganim_quat_axis_angle(z, f * 0.5);
        if (f == 1) q = (ganim_quat){ -q.x, -q.y, -q.z, -q.w }; /* sign flip: shortest arc still */
        memcpy(rot + f * 4, &q, sizeof q);
    }
    tb_channel(doc, 0, 0, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 3, NULL, rot);
    CHECK_OK(ganim_doc_validate(doc, NULL));
    const ganim_clip *c = &doc->clips[0];

    ganim_transform out[2];
    CHECK_OK(ganim_clip_sample(c, doc->skeleton, 0.05, out, NULL, NULL)); /* frame 0.5 */
    CHECK_NEAR(out[1].translation.x, 5, 1e-6);
    CHECK_NEAR(out[0].translation.y, 2, 0); /* untracked bone keeps rest */
    ganim_quat e = ganim_quat_axis_angle(z, 0.25);
    CHECK_NEAR(fabs(ganim_quat_dot(out[1].rotation, e)), 1, 1e-6);
    CHECK_NEAR(out[1].scale.x, 1, 0); /* absent scale: rest */
    /* clamping at both ends */
    CHECK_OK(ganim_clip_sample(c, doc->skeleton, -4, out, NULL, NULL));
    CHECK_NEAR(out[1].translation.x, 0, 0);
    CHECK_OK(ganim_clip_sample(c, doc->skeleton, 99, out, NULL, NULL));
    CHECK_NEAR(out[1].translation.x, 20, 0);
    CHECK_OK(ganim_clip_sample(c, doc->skeleton, NAN, out, NULL, NULL));
    CHECK_NEAR(out[1].translation.x, 0, 0);
    ganim_doc_free(doc);
}

TEST(step_bits_hold_value)
{
    ganim_doc *doc = make_doc(3);
    static const uint8_t step[3] = { 1, 0, 0 };
    tb_track(doc, 0, 0, NULL, step);
    float tr[9] = { 0 };
    for (int f = 0; f < 3; f++) tr[f * 3 + 1] = (float)(f * 10);
    tb_channel(doc, 0, 0, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 3, NULL, tr);
    const ganim_clip *c = &doc->clips[0];
    ganim_transform out[2];
    CHECK_OK(ganim_clip_sample(c, doc->skeleton, 0.09, out, NULL, NULL)); /* frame 0.9: held */
    CHECK_NEAR(out[0].translation.y, 0, 0);
    CHECK_OK(ganim_clip_sample(c, doc->skeleton, 0.15, out, NULL, NULL)); /* frame 1.5: lerp */
    CHECK_NEAR(out[0].translation.y, 15, 1e-5);
    ganim_doc_free(doc);
}

TEST(keyed_constant_and_visibility)
{
    ganim_doc *doc = make_doc(11);
    static const uint8_t vis[11] = { 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1 };
    tb_track(doc, 0, 0, vis, NULL);
    static const float times[3] = { 0, 2, 10 };
    static const float vals[9] = { 0, 0, 0, 4, 0, 0, 20, 0, 0 };
    tb_channel(doc, 0, 0, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_KEYED, 3, times, vals);
    static const float sc[3] = { 2, 3, 4 };
    tb_channel(doc, 0, 0, GANIM_TARGET_SCALE, GANIM_CHANNEL_CONSTANT, 1, NULL, sc);
    tb_track(doc, 0, 1, NULL, NULL);
    doc->skeleton->bones[1].flags |= GANIM_BONE_HIDDEN;
    const ganim_clip *c = &doc->clips[0];
    CHECK_OK(ganim_doc_validate(doc, NULL));
    ganim_transform out[2];
    uint8_t visible[2];
    CHECK_OK(ganim_clip_sample(c, doc->skeleton, 0.1, out, visible, NULL)); /* frame 1 */
    CHECK_NEAR(out[0].translation.x, 2, 1e-6);
    CHECK_NEAR(out[0].scale.z, 4, 0);
    CHECK_EQ_INT(visible[0], 1);
    CHECK_EQ_INT(visible[1], 0);                                            /* hidden bone with no visibility data */
    CHECK_OK(ganim_clip_sample(c, doc->skeleton, 0.6, out, visible, NULL)); /* frame 6 */
    CHECK_NEAR(out[0].translation.x, 12, 1e-5);                             /* 4 + (20 - 4) * (6 - 2) / 8 */
    CHECK_EQ_INT(visible[0], 0);
    ganim_doc_free(doc);
}

TEST(generic_resample_keeps_original_frames)
{
    ganim_doc *doc = make_doc(3);
    tb_track(doc, 0, 0, NULL, NULL);
    float tr[9] = { 0 };
    for (int f = 0; f < 3; f++) tr[f * 3 + 2] = (float)(f * f);
    tb_channel(doc, 0, 0, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 3, NULL, tr);
    const ganim_clip *c = &doc->clips[0];
    CHECK_OK(ganim_doc_resample(doc, 4, NULL));
    CHECK_EQ_INT(c->frame_count, 9);
    CHECK_NEAR(c->fps, 40, 0);
    CHECK_EQ_INT(c->tracks[0].translation.count, 9);
    CHECK_NEAR(c->tracks[0].translation.values[4 * 3 + 2], 1, 0);
    CHECK_NEAR(c->tracks[0].translation.values[8 * 3 + 2], 4, 0);
    CHECK_NEAR(c->tracks[0].translation.values[6 * 3 + 2], 2.5, 1e-6);
    CHECK_OK(ganim_doc_validate(doc, NULL));
    ganim_doc_free(doc);
}

int main(void)
{
    RUN(per_frame_and_rest);
    RUN(step_bits_hold_value);
    RUN(keyed_constant_and_visibility);
    RUN(generic_resample_keeps_original_frames);
    return test_finish();
}
