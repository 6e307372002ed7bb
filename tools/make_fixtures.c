/* The project's own small files for the formats whose real samples live outside the
 * repository, so that a clone without them still has files of every format to sweep,
 * fuzz and export (tests/data/<family>/):
 *   ff7/fixture_pack.aa, ff7/fixture_pack.da   a 3-bone battle skeleton with a weapon,
 *       and a pack of two body animations, one weapon animation and a special slot,
 *       written by ganim's own FF7 writer
 *   gltf/fixture_pack.glb   that pack as ganim's glb, with what the exporter carries in
 *       extras.ganim (native records, the special slot, body and weapon as one animation)
 *   acl/fixture.v0.civ   a Civilization VII V0 container, 3 bones x 8 frames at 24 fps
 * (The ACL buffers next to them are made by tests/formats/acl/test_acl_synth.c.)
 * Usage: make_fixtures DIR           write the files into DIR/ff7, DIR/gltf and DIR/acl
 *        make_fixtures --check DIR   exit 1 if a file in DIR differs from what it makes
 * Each file is read back through the library before it counts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ganim.h"

#define PI 3.14159265358979323846

static int check_mode;

/* Writes (or compares) one file, after reading it back as `format` with `skeleton`. */
static int emit(const char *dir, const char *name, const ganim_buffer *b, const char *format,
                const ganim_skeleton *skeleton)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ganim_read_opts ro = { 0 };
    ro.format = format;
    ro.skeleton = skeleton;
    ganim_doc *back = NULL;
    ganim_error err = { 0 };
    if (ganim_read_memory(b->data, b->size, &ro, &back, &err) != GANIM_OK || back->warning_count) {
        fprintf(stderr, "make_fixtures: %s does not read back cleanly: %s\n", name,
                back && back->warning_count ? back->warnings[0].message : err.message);
        ganim_doc_free(back);
        return 0;
    }
    ganim_doc_free(back);
    if (check_mode) {
        FILE *f = fopen(path, "rb");
        uint8_t *have = malloc(b->size + 1);
        size_t n = f ? fread(have, 1, b->size + 1, f) : 0;
        if (f) fclose(f);
        int same = n == b->size && memcmp(have, b->data, n) == 0;
        free(have);
        printf("%s %s\n", same ? "same" : "DIFFERS", path);
        return same;
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->data, 1, b->size, f) != b->size || fclose(f) != 0) {
        fprintf(stderr, "make_fixtures: cannot write %s\n", path);
        return 0;
    }
    printf("%s: %zu bytes\n", path, b->size);
    return 1;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Per-frame rotations from axis-angle keys, into `v` (frames * 4 floats). */
static void rotations(float *v, uint32_t frames, float x, float y, float z, double amp, double phase)
{
    for (uint32_t f = 0; f < frames; f++) {
        ganim_vec3 axis = { x, y, z };
        ganim_quat q = ganim_quat_axis_angle(axis, amp * sin(2 * PI * f / frames + phase));
        memcpy(v + 4 * f, &q, sizeof q);
    }
}

static int failed(const char *name, const ganim_error *err)
{
    fprintf(stderr, "make_fixtures: %s: %s\n", name, err->message);
    return 0;
}

static int ff7(const char *dir, const char *gltf_dir)
{
    /* ??aa: 52-byte header (nBones 3, 2 body + 1 weapon animation, 1 weapon), 3 bones */
    uint8_t aa[52 + 3 * 12];
    memset(aa, 0, sizeof aa);
    put32(aa + 12, 3); /* nBones */
    put32(aa + 28, 2); /* nsSkeletonAnims */
    put32(aa + 36, 1); /* nWeapons */
    put32(aa + 40, 1); /* nsWeaponsAnims */
    const int32_t parent[3] = { -1, 0, 1 };
    const float length[3] = { 50.0f, 40.0f, 30.0f };
    for (int i = 0; i < 3; i++) {
        uint32_t lb;
        memcpy(&lb, &length[i], 4);
        put32(aa + 52 + 12 * i, (uint32_t)parent[i]);
        put32(aa + 52 + 12 * i + 4, lb);
        put32(aa + 52 + 12 * i + 8, 1);
    }
    ganim_buffer skel = { 0 };
    skel.data = aa;
    skel.size = sizeof aa;
    int ok = emit(dir, "fixture_pack.aa", &skel, "ff7-skeleton", NULL);
    ganim_read_opts ro = { 0 };
    ro.format = "ff7-skeleton";
    ganim_doc *sdoc = NULL;
    if (!ok || ganim_read_memory(aa, sizeof aa, &ro, &sdoc, NULL) != GANIM_OK) return 0;

    /* the pack: body 0 (8 frames), body 1 (5 frames), weapon 0 (8 frames), a special slot,
     * built through the public API (which copies the arrays) */
    enum { MAXF = 8 };
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    if (ganim_doc_new(NULL, &doc, &err) != GANIM_OK || ganim_doc_set_skeleton(doc, sdoc->skeleton, &err) != GANIM_OK) {
        ganim_doc_free(doc);
        ganim_doc_free(sdoc);
        return failed("fixture_pack.da", &err);
    }
    doc->axes = GANIM_AXES_Y_DOWN;
    const uint32_t frames[3] = { 8, 5, 8 };
    for (uint32_t c = 0; c < 3 && ok; c++) {
        float rot[4][4 * MAXF], pos[3 * MAXF];
        ganim_track tracks[4];
        memset(tracks, 0, sizeof tracks);
        ganim_clip clip = { 0 };
        clip.fps = 15;
        clip.frame_count = frames[c];
        clip.tracks = tracks;
        if (c < 2) { /* body: root moves and turns, every bone bends */
            clip.track_count = 4;
            for (uint32_t b = 0; b < 4; b++) {
                ganim_track *t = &tracks[b];
                t->bone = b;
                t->name = doc->skeleton->bones[b].name;
                rotations(rot[b], frames[c], b == 0 ? 0.0f : 1.0f, b == 0 ? 1.0f : 0.0f, 0, 0.3 + 0.2 * b, c);
                t->rotation.kind = GANIM_CHANNEL_PER_FRAME;
                t->rotation.count = frames[c];
                t->rotation.values = rot[b];
            }
            for (uint32_t f = 0; f < frames[c]; f++) {
                pos[3 * f] = (float)(10 * f);
                pos[3 * f + 1] = (float)(-200 + 3 * (int)f);
                pos[3 * f + 2] = (float)(c * 7);
            }
            tracks[0].translation.kind = GANIM_CHANNEL_PER_FRAME;
            tracks[0].translation.count = frames[c];
            tracks[0].translation.values = pos;
        } else { /* weapon: its own bone only */
            clip.track_count = 1;
            tracks[0].bone = doc->skeleton->bone_count - 1;
            tracks[0].name = "weapon";
            rotations(rot[0], frames[c], 0, 0, 1, 0.8, 0);
            tracks[0].rotation.kind = GANIM_CHANNEL_PER_FRAME;
            tracks[0].rotation.count = frames[c];
            tracks[0].rotation.values = rot[0];
        }
        if (ganim_doc_add_clip(doc, &clip, NULL, &err) != GANIM_OK) ok = failed("fixture_pack.da", &err);
    }
    static const uint8_t slot[4] = { 1, 2, 3, 4 };
    ganim_clip special = { 0 };
    special.name = "special_3";
    special.kind = GANIM_CLIP_OPAQUE;
    special.opaque = slot;
    special.opaque_size = sizeof slot;
    if (ok && ganim_doc_add_clip(doc, &special, NULL, &err) != GANIM_OK) ok = failed("fixture_pack.da", &err);
    ganim_buffer pack = { 0 };
    if (ok && ganim_write(doc, "ff7-battle", NULL, &pack, &err) != GANIM_OK) ok = failed("fixture_pack.da", &err);
    ok = ok && emit(dir, "fixture_pack.da", &pack, "ff7-battle", sdoc->skeleton);
    /* the pack as ganim's glb: what the exporter carries in extras.ganim (records, the
     * special slot, body 0 and its weapon animation as one animation) */
    if (ok) {
        ganim_read_opts pr = { 0 };
        pr.format = "ff7-battle";
        pr.skeleton = sdoc->skeleton;
        ganim_doc *pd = NULL;
        ganim_export_opts eo = { 0 };
        eo.generator = "ganim (tools/make_fixtures.c)";
        ganim_buffer glb = { 0 };
        if (ganim_read_memory(pack.data, pack.size, &pr, &pd, &err) != GANIM_OK ||
            ganim_export_glb(pd, &eo, &glb, &err) != GANIM_OK)
            ok = failed("fixture_pack.glb", &err);
        ok = ok && emit(gltf_dir, "fixture_pack.glb", &glb, "gltf", NULL);
        ganim_buffer_free(&glb);
        ganim_doc_free(pd);
    }
    ganim_buffer_free(&pack);
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    return ok;
}

static int civ7_v0(const char *dir)
{
    enum { BONES = 3, FRAMES = 8 };
    ganim_bone bones[BONES];
    const char *names[BONES] = { "pelvis", "spine", "head" };
    for (uint32_t b = 0; b < BONES; b++) {
        bones[b].name = names[b];
        bones[b].parent = (int32_t)b - 1;
        bones[b].rest = ganim_transform_identity();
        bones[b].flags = GANIM_BONE_SYNTH;
    }
    ganim_skeleton sk = { 0 };
    sk.name = "";
    sk.bone_count = BONES;
    sk.bones = bones;
    float rot[BONES][4 * FRAMES], tr[BONES][3];
    ganim_track tracks[BONES];
    memset(tracks, 0, sizeof tracks);
    for (uint32_t b = 0; b < BONES; b++) {
        ganim_track *t = &tracks[b];
        t->bone = b;
        rotations(rot[b], FRAMES, 1, 0, 0, 0.4, b);
        t->rotation.kind = GANIM_CHANNEL_PER_FRAME;
        t->rotation.count = FRAMES;
        t->rotation.values = rot[b];
        tr[b][0] = 0, tr[b][1] = b ? 0.25f : 1.0f, tr[b][2] = 0;
        t->translation.kind = GANIM_CHANNEL_CONSTANT;
        t->translation.count = 1;
        t->translation.values = tr[b];
    }
    ganim_clip clip = { 0 };
    clip.fps = 24;
    clip.frame_count = FRAMES;
    clip.track_count = BONES;
    clip.tracks = tracks;
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    ganim_buffer out = { 0 };
    int ok = ganim_doc_new(NULL, &doc, &err) == GANIM_OK && ganim_doc_set_skeleton(doc, &sk, &err) == GANIM_OK &&
             ganim_doc_add_clip(doc, &clip, NULL, &err) == GANIM_OK &&
             ganim_write(doc, "civ7", NULL, &out, &err) == GANIM_OK;
    if (!ok) failed("fixture.v0.civ", &err);
    ok = ok && emit(dir, "fixture.v0.civ", &out, "civ7", NULL);
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
    return ok;
}

int main(int argc, char **argv)
{
    int a = 1;
    if (a < argc && strcmp(argv[a], "--check") == 0) check_mode = 1, a++;
    const char *root = a < argc ? argv[a] : "tests/data";
    char ff7_dir[1024], acl_dir[1024], gltf_dir[1024];
    snprintf(ff7_dir, sizeof ff7_dir, "%s/ff7", root);
    snprintf(acl_dir, sizeof acl_dir, "%s/acl", root);
    snprintf(gltf_dir, sizeof gltf_dir, "%s/gltf", root);
    int ok = ff7(ff7_dir, gltf_dir) & civ7_v0(acl_dir);
    if (check_mode) printf("%d passed, %d failed\n", ok, !ok);
    return ok ? 0 : 1;
}
