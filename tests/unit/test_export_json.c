/* JSON dump and info summary (docs/dump-format.md) on a hand-built document: every value
 * of the model must come back from the parsed text, floats bit for bit. A fake format
 * supplies details to check where they land. */
#include <math.h>
#include <stdlib.h>

#include "core/internal.h" /* warnings and a document record, which only readers make */
#include "formats/format.h"
#include "support/tbuild.h"
#include "support/tjson.h"
#include "test.h"

/* details: clip 1 and the document have something to say, clip 0 has not */
static ganim_code fake_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b,
                               ganim_error *err)
{
    (void)doc, (void)err;
    if (clip == 0) return GANIM_OK;
    gd_int(b, "clip", clip);
    gd_int(b, "mode", level);
    return GANIM_OK;
}

static const struct ganim_format_impl fake_impl = { .details = fake_details };
static const ganim_format fake = {
    .name = "fake-fmt", .description = "test format", .family = "fake", .extensions = ".fake", .impl = &fake_impl
};

static const float odd[] = { 0.1f, 1.0f / 3.0f, 1e-8f, -0.0f, 3.4e38f, -2.5f, 16777217.0f, 1.17549435e-38f };

static ganim_doc *make_doc(void)
{
    const char *names[2] = { "Bip01 \"Pelvis\"", "\xe9t\xe9" }; /* quote, code-page bytes */
    ganim_bone bones[2];
    for (int i = 0; i < 2; i++) {
        bones[i].name = names[i];
        bones[i].parent = i - 1;
        bones[i].rest = ganim_transform_identity();
        bones[i].flags = i ? GANIM_BONE_HIDDEN : GANIM_BONE_SYNTH;
    }
    bones[1].rest.translation = (ganim_vec3){ odd[0], odd[1], odd[2] };
    bones[1].rest.scale = (ganim_vec3){ odd[4], odd[5], odd[6] };
    float s = (float)sin(0.3), c = (float)cos(0.3);
    bones[1].rest.rotation = (ganim_quat){ 0, s, 0, c };
    ganim_skeleton sk = { "sk", 2, bones, "fake-fmt", (const uint8_t *)"\x01\x02", 2 };
    ganim_doc *doc = NULL;
    CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
    CHECK_OK(ganim_doc_set_skeleton(doc, &sk, NULL));
    doc->format = &fake;
    doc->axes = GANIM_AXES_Y_DOWN;
    doc->native_format = "fake-fmt";
    doc->native = ganim_doc_memdup(doc, "\xab", 1);
    doc->native_size = 1;
    ganim_clip op = { 0 };
    op.name = "special";
    op.kind = GANIM_CLIP_OPAQUE;
    op.opaque = (const uint8_t *)"\x00\xff\x10";
    op.opaque_size = 3;
    CHECK_OK(ganim_doc_add_clip(doc, &op, NULL, NULL));
    float rot[12] = { 0 };
    for (int f = 0; f < 3; f++) rot[f * 4 + 0] = (float)sin(0.1 * f), rot[f * 4 + 3] = (float)cos(0.1 * f);
    const float kt[2] = { 0.5f, 1.75f };
    const float sc[3] = { odd[7], 2, odd[3] };
    static const uint8_t vis[3] = { 1, 0, 1 }, step[3] = { 0, 1, 0 };
    ganim_track tracks[2];
    memset(tracks, 0, sizeof tracks);
    tracks[0].bone = 1;
    tracks[0].name = "t1";
    tracks[0].rotation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, 3, NULL, rot };
    tracks[0].translation = (ganim_channel){ GANIM_CHANNEL_KEYED, 2, kt, odd };
    tracks[0].visibility = vis;
    tracks[1].bone = 0;
    tracks[1].scale = (ganim_channel){ GANIM_CHANNEL_CONSTANT, 1, NULL, sc };
    tracks[1].step = step;
    ganim_clip cl = { 0 };
    cl.name = "walk";
    cl.fps = 15;
    cl.frame_count = 3;
    cl.rotation_interp = GANIM_INTERP_NLERP;
    cl.native_format = "fake-fmt";
    cl.native = (const uint8_t *)"\x7f";
    cl.native_size = 1;
    cl.track_count = 2;
    cl.tracks = tracks;
    CHECK_OK(ganim_doc_add_clip(doc, &cl, NULL, NULL));
    ganim_doc_warn(doc, GANIM_WARN_OTHER, 0x1234, "odd \"thing\"");
    ganim_doc_warn(doc, GANIM_WARN_REPAIRED, GANIM_NO_OFFSET, "no place");
    CHECK_OK(ganim_doc_validate(doc, NULL));
    return doc;
}

/* A JSON number must give back exactly the float32 (and its sign for -0). */
static void check_float(const tjson *v, float expect)
{
    CHECK_MSG(v && v->type == TJSON_NUMBER, "not a number");
    if (!v || v->type != TJSON_NUMBER) return;
    float got = (float)v->number;
    CHECK_MSG(got == expect && signbit(got) == signbit(expect), "%.9g != %.9g", (double)got, (double)expect);
}

static void check_floats(const tjson *arr, const float *expect, int n)
{
    CHECK_EQ_INT(arr ? (long long)arr->count : -1, n);
    for (int i = 0; arr && i < n && (size_t)i < arr->count; i++) check_float(tjson_at(arr, (size_t)i), expect[i]);
}

static int is_null(const tjson *v) { return v && v->type == TJSON_NULL; }

static tjson *parse(const ganim_buffer *b)
{
    char err[128] = "";
    tjson *j = tjson_parse((const char *)b->data, b->size, err, sizeof err);
    CHECK_MSG(j != NULL, "output does not parse: %s", err);
    return j;
}

static void check_channel(const tjson *ch, const char *kind, const ganim_channel *src, int comps)
{
    CHECK_EQ_STR(tjson_str(tjson_get(ch, "kind"), ""), kind);
    uint32_t n = src->kind == GANIM_CHANNEL_ABSENT ? 0 : src->count;
    CHECK_EQ_INT(tjson_int(tjson_get(ch, "count"), -1), n);
    const tjson *vals = tjson_get(ch, "values");
    CHECK_EQ_INT(vals ? (long long)vals->count : -1, n);
    for (uint32_t k = 0; vals && k < n && k < vals->count; k++)
        check_floats(tjson_at(vals, k), src->values + k * comps, comps);
    if (src->kind == GANIM_CHANNEL_KEYED) check_floats(tjson_get(ch, "times"), src->times, (int)n);
    else CHECK(tjson_get(ch, "times") == NULL);
}

TEST(dump_every_value)
{
    ganim_doc *doc = make_doc();
    ganim_buffer out = { 0 };
    ganim_export_opts o = { 0 };
    o.generator = "gen \"x\"";
    CHECK_OK(ganim_export_json(doc, &o, &out, NULL));
    tjson *j = parse(&out);
    if (!j) goto done;
    CHECK_EQ_INT(tjson_int(tjson_get(j, "ganim_dump"), 0), 1);
    CHECK_EQ_STR(tjson_str(tjson_get(j, "generator"), ""), "gen \"x\"");
    CHECK_EQ_STR(tjson_str(tjson_get(j, "format"), ""), "fake-fmt");
    CHECK_EQ_STR(tjson_str(tjson_get(j, "axes"), ""), "y-down");
    /* skeleton */
    const tjson *sk = tjson_get(j, "skeleton");
    CHECK_EQ_STR(tjson_str(tjson_get(sk, "name"), ""), "sk");
    CHECK_EQ_INT(tjson_int(tjson_get(sk, "bone_count"), 0), 2);
    const tjson *bones = tjson_get(sk, "bones");
    CHECK_EQ_INT(bones ? (long long)bones->count : -1, 2);
    for (uint32_t i = 0; bones && i < 2 && i < bones->count; i++) {
        const tjson *bj = tjson_at(bones, i);
        const ganim_bone *b = &doc->skeleton->bones[i];
        CHECK_EQ_INT(tjson_int(tjson_get(bj, "index"), -1), i);
        CHECK_EQ_INT(tjson_int(tjson_get(bj, "parent"), -9), b->parent);
        CHECK_EQ_INT(tjson_int(tjson_get(bj, "flags"), -1), b->flags);
        const tjson *rest = tjson_get(bj, "rest");
        check_floats(tjson_get(rest, "rotation"), &b->rest.rotation.x, 4);
        check_floats(tjson_get(rest, "translation"), &b->rest.translation.x, 3);
        check_floats(tjson_get(rest, "scale"), &b->rest.scale.x, 3);
    }
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(bones, 0), "name"), ""), "Bip01 \"Pelvis\"");
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(bones, 1), "name"), ""), "\xc3\xa9t\xc3\xa9"); /* bytes as U+00xx */
    const tjson *nr = tjson_get(sk, "native_record");
    CHECK_EQ_STR(tjson_str(tjson_get(nr, "format"), ""), "fake-fmt");
    CHECK_EQ_INT(tjson_int(tjson_get(nr, "size"), -1), 2);
    CHECK_EQ_STR(tjson_str(tjson_get(nr, "hex"), ""), "0102");
    /* clips */
    const tjson *clips = tjson_get(j, "clips");
    CHECK_EQ_INT(clips ? (long long)clips->count : -1, 2);
    const tjson *c0 = tjson_at(clips, 0), *c1 = tjson_at(clips, 1);
    CHECK_EQ_STR(tjson_str(tjson_get(c0, "kind"), ""), "opaque");
    CHECK_EQ_STR(tjson_str(tjson_get(c0, "opaque_hex"), ""), "00ff10");
    CHECK(is_null(tjson_get(c0, "native")));
    CHECK(is_null(tjson_get(c0, "native_record")));
    CHECK_EQ_INT(tjson_get(c0, "tracks") ? (long long)tjson_get(c0, "tracks")->count : -1, 0);
    CHECK_EQ_INT(tjson_int(tjson_get(c1, "index"), -1), 1);
    CHECK_EQ_STR(tjson_str(tjson_get(c1, "name"), ""), "walk");
    CHECK_EQ_STR(tjson_str(tjson_get(c1, "kind"), ""), "animation");
    CHECK_NEAR(tjson_num(tjson_get(c1, "fps"), 0), 15, 0);
    CHECK_EQ_INT(tjson_int(tjson_get(c1, "frame_count"), 0), 3);
    CHECK_NEAR(tjson_num(tjson_get(c1, "duration"), 0), 2.0 / 15.0, 1e-15);
    CHECK_EQ_STR(tjson_str(tjson_get(c1, "rotation_interp"), ""), "nlerp");
    CHECK(is_null(tjson_get(c1, "opaque_hex")));
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_get(c1, "native_record"), "hex"), ""), "7f");
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_get(c1, "native"), "clip"), -1), 1);
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_get(c1, "native"), "mode"), -1), GANIM_DETAILS_FULL);
    const tjson *tracks = tjson_get(c1, "tracks");
    CHECK_EQ_INT(tracks ? (long long)tracks->count : -1, 2);
    const tjson *t0 = tjson_at(tracks, 0), *t1 = tjson_at(tracks, 1);
    const ganim_track *s0 = &doc->clips[1].tracks[0], *s1 = &doc->clips[1].tracks[1];
    CHECK_EQ_INT(tjson_int(tjson_get(t0, "bone"), -1), 1);
    CHECK_EQ_STR(tjson_str(tjson_get(t0, "name"), ""), "t1");
    check_channel(tjson_get(t0, "rotation"), "per_frame", &s0->rotation, 4);
    check_channel(tjson_get(t0, "translation"), "keyed", &s0->translation, 3);
    check_channel(tjson_get(t0, "scale"), "absent", &s0->scale, 3);
    const tjson *vis = tjson_get(t0, "visibility");
    CHECK_EQ_INT(vis ? (long long)vis->count : -1, 3);
    CHECK_EQ_INT(tjson_int(tjson_at(vis, 0), -1) * 100 + tjson_int(tjson_at(vis, 1), -1) * 10 +
                     tjson_int(tjson_at(vis, 2), -1),
                 101);
    CHECK(is_null(tjson_get(t0, "step")));
    CHECK_EQ_INT(tjson_int(tjson_get(t1, "bone"), -1), 0);
    check_channel(tjson_get(t1, "rotation"), "absent", &s1->rotation, 4);
    check_channel(tjson_get(t1, "scale"), "constant", &s1->scale, 3);
    const tjson *st = tjson_get(t1, "step");
    CHECK_EQ_INT(st ? (long long)st->count : -1, 3);
    CHECK_EQ_INT(tjson_int(tjson_at(st, 1), -1), 1);
    CHECK(is_null(tjson_get(t1, "visibility")));
    /* document level */
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_get(j, "native_record"), "hex"), ""), "ab");
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_get(j, "native"), "clip"), 0), -1);
    const tjson *w = tjson_get(j, "warnings");
    CHECK_EQ_INT(w ? (long long)w->count : -1, 2);
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_at(w, 0), "offset"), -1), 0x1234);
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(w, 0), "message"), ""), "odd \"thing\"");
    CHECK(is_null(tjson_get(tjson_at(w, 1), "offset")));
    CHECK_EQ_INT(tjson_int(tjson_get(j, "warnings_dropped"), -1), 0);
    tjson_free(j);
done:
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

TEST(dump_one_clip_and_no_skeleton)
{
    ganim_doc *doc = make_doc();
    ganim_buffer out = { 0 };
    ganim_export_opts o = { 0 };
    o.only_clip = 1 + 1; /* clip 1 */
    CHECK_OK(ganim_export_json(doc, &o, &out, NULL));
    tjson *j = parse(&out);
    const tjson *clips = tjson_get(j, "clips");
    CHECK_EQ_INT(clips ? (long long)clips->count : -1, 1);
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_at(clips, 0), "index"), -1), 1);
    tjson_free(j);
    ganim_buffer_free(&out);
    o.only_clip = 1 + 2; /* clip 2: none */
    ganim_error err = { 0 };
    CHECK_EQ_INT(ganim_export_json(doc, &o, &out, &err), GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(out.size, 0);
    ganim_doc_free(doc);
    CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
    CHECK_OK(ganim_export_json(doc, NULL, &out, NULL));
    j = parse(&out);
    CHECK(is_null(tjson_get(j, "skeleton")));
    CHECK(is_null(tjson_get(j, "format")));
    CHECK(is_null(tjson_get(j, "native")));
    CHECK_EQ_STR(tjson_str(tjson_get(j, "generator"), ""), "ganim " GANIM_VERSION_STRING);
    tjson_free(j);
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

TEST(info_summary)
{
    ganim_doc *doc = make_doc();
    ganim_buffer out = { 0 };
    CHECK_OK(ganim_export_info_json(doc, NULL, &out, NULL));
    tjson *j = parse(&out);
    if (!j) goto done;
    CHECK_EQ_INT(tjson_int(tjson_get(j, "ganim_info"), 0), 1);
    CHECK_EQ_STR(tjson_str(tjson_get(j, "format"), ""), "fake-fmt");
    CHECK_EQ_STR(tjson_str(tjson_get(j, "axes"), ""), "y-down");
    const tjson *sk = tjson_get(j, "skeleton");
    CHECK_EQ_INT(tjson_int(tjson_get(sk, "bone_count"), 0), 2);
    CHECK_EQ_STR(tjson_str(tjson_at(tjson_get(sk, "names"), 0), ""), "Bip01 \"Pelvis\"");
    CHECK_EQ_INT(tjson_int(tjson_get(j, "clip_count"), 0), 2);
    const tjson *c1 = tjson_at(tjson_get(j, "clips"), 1);
    CHECK_EQ_STR(tjson_str(tjson_get(c1, "name"), ""), "walk");
    CHECK_EQ_INT(tjson_int(tjson_get(c1, "track_count"), 0), 2);
    const tjson *ch = tjson_get(c1, "channels"), *an = tjson_get(c1, "animated");
    CHECK_EQ_INT(tjson_int(tjson_get(ch, "rotation"), -1), 1);
    CHECK_EQ_INT(tjson_int(tjson_get(ch, "translation"), -1), 1);
    CHECK_EQ_INT(tjson_int(tjson_get(ch, "scale"), -1), 1);
    CHECK_EQ_INT(tjson_int(tjson_get(ch, "visibility"), -1), 1);
    CHECK_EQ_INT(tjson_int(tjson_get(ch, "step"), -1), 1);
    CHECK_EQ_INT(tjson_int(tjson_get(an, "rotation"), -1), 1);
    CHECK_EQ_INT(tjson_int(tjson_get(an, "translation"), -1), 1);
    CHECK_EQ_INT(tjson_int(tjson_get(an, "scale"), -1), 0);
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_get(c1, "native"), "mode"), -1), GANIM_DETAILS_SUMMARY);
    const tjson *c0 = tjson_at(tjson_get(j, "clips"), 0);
    CHECK_EQ_INT(tjson_int(tjson_get(c0, "opaque_size"), -1), 3);
    CHECK(is_null(tjson_get(c0, "native")));
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_get(j, "native"), "mode"), -1), GANIM_DETAILS_SUMMARY);
    CHECK_EQ_INT(tjson_get(j, "warnings") ? (long long)tjson_get(j, "warnings")->count : -1, 2);
    tjson_free(j);
done:
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

int main(void)
{
    RUN(dump_every_value);
    RUN(dump_one_clip_and_no_skeleton);
    RUN(info_summary);
    return test_finish();
}
