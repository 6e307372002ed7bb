/* Builds two small procedurally animated rigs in memory and writes them with ganim's
 * own Alamo writers (the files in examples/):
 *   crane.alo   + crane_wave_00.ala     4 bones, a crane arm waving (ALA format 1)
 *   antenna.alo + antenna_spin_00.ala   6 bones, a spinning dish with a blinking
 *                                       beacon light (ALA format 2, visibility bits)
 * Usage: make_examples [OUTPUT_DIR]   (default: examples)
 * Each file is read back through the library before the program reports success. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ganim.h"

#define PI 3.14159265358979323846
#define MAX_BONES 8

typedef struct rig_bone {
    const char *name;
    int32_t parent;
    float tx, ty, tz;
    uint32_t flags;
} rig_bone;

static ganim_quat axis_angle(float x, float y, float z, double a)
{
    ganim_vec3 axis = { x, y, z };
    return ganim_quat_axis_angle(axis, a);
}

/* A document with the rig as its skeleton (Z up, as Alamo files are) and one empty clip;
 * everything goes through the public building functions, which copy what they get. */
static ganim_doc *make_doc(const rig_bone *rig, uint32_t count, uint32_t frames, double fps)
{
    ganim_bone bones[MAX_BONES];
    for (uint32_t i = 0; i < count; i++) {
        bones[i].name = rig[i].name;
        bones[i].parent = rig[i].parent;
        bones[i].rest = ganim_transform_identity();
        bones[i].rest.translation.x = rig[i].tx;
        bones[i].rest.translation.y = rig[i].ty;
        bones[i].rest.translation.z = rig[i].tz;
        bones[i].flags = rig[i].flags;
    }
    ganim_skeleton sk = { 0 };
    sk.name = "";
    sk.bone_count = count;
    sk.bones = bones;
    ganim_clip clip = { 0 };
    clip.fps = fps;
    clip.frame_count = frames;
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    if (ganim_doc_new(NULL, &doc, &err) != GANIM_OK || ganim_doc_set_skeleton(doc, &sk, &err) != GANIM_OK ||
        ganim_doc_add_clip(doc, &clip, NULL, &err) != GANIM_OK) {
        fprintf(stderr, "make_examples: %s\n", err.message);
        ganim_doc_free(doc);
        return NULL;
    }
    doc->axes = GANIM_AXES_Z_UP;
    return doc;
}

/* A track: per-frame rotations, the rest translation as a constant (or per-frame
 * translations), and visibility bytes when given. */
static int track(ganim_doc *doc, uint32_t bone, uint32_t frames, const ganim_quat *rot, const float *trans,
                 const uint8_t *vis)
{
    const ganim_bone *b = &doc->skeleton->bones[bone];
    ganim_track t = { 0 };
    t.bone = bone;
    t.name = b->name;
    t.rotation.kind = rot ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_CONSTANT;
    t.rotation.count = rot ? frames : 1;
    static const float identity[4] = { 0, 0, 0, 1 };
    t.rotation.values = rot ? &rot[0].x : identity;
    t.translation.kind = trans ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_CONSTANT;
    t.translation.count = trans ? frames : 1;
    t.translation.values = trans ? trans : &b->rest.translation.x;
    t.visibility = vis;
    ganim_error err = { 0 };
    if (ganim_doc_add_track(doc, 0, &t, NULL, &err) != GANIM_OK) {
        fprintf(stderr, "make_examples: %s\n", err.message);
        return 0;
    }
    return 1;
}

static int save(const ganim_doc *doc, const char *format, int version, const char *dir, const char *name)
{
    char path[1024];
    ganim_write_opts wo = { 0 };
    ganim_setting setting = { "alamo.version", version == 1 ? "1" : "2" };
    if (version) {
        wo.settings = &setting;
        wo.setting_count = 1;
    }
    ganim_buffer buf = { 0 };
    ganim_error err = { 0 };
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (ganim_write(doc, format, &wo, &buf, &err) != GANIM_OK) {
        fprintf(stderr, "make_examples: %s: %s\n", name, err.message);
        return 0;
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf.data, 1, buf.size, f) != buf.size || fclose(f) != 0) {
        fprintf(stderr, "make_examples: cannot write %s\n", path);
        ganim_buffer_free(&buf);
        return 0;
    }
    /* read it back, against the skeleton for animations */
    ganim_read_opts ro = { 0 };
    ro.skeleton = doc->clip_count ? doc->skeleton : NULL;
    ganim_doc *back = NULL;
    int ok = ganim_read_memory(buf.data, buf.size, &ro, &back, &err) == GANIM_OK && back->warning_count == 0;
    if (!ok) fprintf(stderr, "make_examples: %s does not read back: %s\n", path, err.message);
    else printf("%s: %zu bytes\n", path, buf.size);
    ganim_doc_free(back);
    ganim_buffer_free(&buf);
    return ok;
}

static int crane(const char *dir)
{
    static const rig_bone rig[] = {
        { "Root", -1, 0, 0, 0, 0 },
        { "B_Turret", 0, 0, 0, 1.5f, 0 },
        { "B_Boom", 1, 0, 0, 0.5f, 0 },
        { "B_Jib", 2, 4.0f, 0, 0, 0 },
    };
    enum { FRAMES = 61 };
    ganim_doc *doc = make_doc(rig, 4, FRAMES, 30.0);
    ganim_quat q[3][FRAMES];
    int ok = doc != NULL;
    for (uint32_t f = 0; ok && f < FRAMES; f++) {
        double s = 2.0 * PI * f / (FRAMES - 1);                   /* one full wave, loops */
        q[0][f] = axis_angle(0, 0, 1, 0.6 * sin(s));              /* turret swings */
        q[1][f] = axis_angle(0, 1, 0, -0.35 - 0.25 * sin(2 * s)); /* boom lifts twice */
        q[2][f] = axis_angle(0, 1, 0, 0.5 * sin(2 * s + PI / 2)); /* jib waves */
    }
    for (uint32_t i = 0; ok && i < 3; i++) ok = track(doc, i + 1, FRAMES, q[i], NULL, NULL);
    ok = ok && save(doc, "alamo-alo", 0, dir, "crane.alo") && save(doc, "alamo-ala", 1, dir, "crane_wave_00.ala");
    ganim_doc_free(doc);
    return ok;
}

static int antenna(const char *dir)
{
    static const rig_bone rig[] = {
        { "Root", -1, 0, 0, 0, 0 },       { "B_Mast", 0, 0, 0, 3.0f, 0 },
        { "B_Dish", 1, 0, 0, 1.0f, 0 },   { "B_Feed", 2, 0.8f, 0, 0.3f, 0 },
        { "B_Aerial", 1, 0, 0, 1.6f, 0 }, { "B_Beacon", 4, 0, 0, 0.4f, GANIM_BONE_HIDDEN },
    };
    enum { FRAMES = 90 };
    ganim_doc *doc = make_doc(rig, 6, FRAMES, 30.0);
    ganim_quat q[4][FRAMES];
    float tr[3 * FRAMES];
    uint8_t vis[FRAMES];
    int ok = doc != NULL;
    for (uint32_t f = 0; ok && f < FRAMES; f++) {
        double s = 2.0 * PI * f / (FRAMES - 1);
        q[0][f] = axis_angle(0, 0, 1, 0.05 * sin(3 * s)); /* mast sways */
        q[1][f] = axis_angle(0, 0, 1, s);                 /* dish spins once */
        q[2][f] = axis_angle(0, 1, 0, 0.2 * sin(s));      /* feed nods */
        q[3][f] = axis_angle(1, 0, 0, 0.15 * sin(4 * s)); /* aerial whips */
        /* the beacon: constant rotation, bobbing translation, blinking 10 frames on, 5 off */
        tr[3 * f] = 0;
        tr[3 * f + 1] = 0;
        tr[3 * f + 2] = 0.4f + 0.1f * (float)sin(4.0 * PI * f / (FRAMES - 1));
        vis[f] = (uint8_t)(f % 15 < 10);
    }
    for (uint32_t i = 0; ok && i < 4; i++) ok = track(doc, i + 1, FRAMES, q[i], NULL, NULL);
    ok = ok && track(doc, 5, FRAMES, NULL, tr, vis);
    ok = ok && save(doc, "alamo-alo", 0, dir, "antenna.alo") && save(doc, "alamo-ala", 2, dir, "antenna_spin_00.ala");
    ganim_doc_free(doc);
    return ok;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "examples";
    int ok = crane(dir) && antenna(dir);
    return ok ? 0 : 1;
}
