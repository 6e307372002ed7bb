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

#include "core/internal.h"

#define PI 3.14159265358979323846

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

static ganim_doc *make_doc(const rig_bone *rig, uint32_t count)
{
    ganim_doc *doc = ganim_doc_create(NULL, 0);
    if (!doc) return NULL;
    ganim_skeleton *sk = ganim_doc_alloc(doc, sizeof *sk);
    ganim_bone *bones = ganim_doc_alloc_array(doc, count, sizeof *bones);
    if (!sk || !bones) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        bones[i].name = rig[i].name;
        bones[i].parent = rig[i].parent;
        bones[i].rest = ganim_transform_identity();
        bones[i].rest.translation.x = rig[i].tx;
        bones[i].rest.translation.y = rig[i].ty;
        bones[i].rest.translation.z = rig[i].tz;
        bones[i].flags = rig[i].flags;
    }
    sk->name = "";
    sk->bone_count = count;
    sk->bones = bones;
    doc->skeleton = sk;
    doc->axes = GANIM_AXES_Z_UP;
    return doc;
}

static ganim_clip *add_clip(ganim_doc *doc, uint32_t frames, double fps, uint32_t tracks)
{
    ganim_clip *c = ganim_doc_alloc(doc, sizeof *c);
    if (!c) return NULL;
    c->name = "";
    c->fps = fps;
    c->frame_count = frames;
    c->track_count = tracks;
    c->tracks = ganim_doc_alloc_array(doc, tracks, sizeof *c->tracks);
    doc->clips = c;
    doc->clip_count = 1;
    return c->tracks ? c : NULL;
}

/* A per-frame rotation channel and the rest translation as a constant. */
static int track(ganim_doc *doc, ganim_track *t, uint32_t bone, uint32_t frames, const ganim_quat *rot)
{
    const ganim_bone *b = &doc->skeleton->bones[bone];
    float *r = ganim_doc_alloc_array(doc, frames, 4 * sizeof *r);
    float *tr = ganim_doc_alloc_array(doc, 1, 3 * sizeof *tr);
    if (!r || !tr) return 0;
    for (uint32_t f = 0; f < frames; f++) memcpy(r + 4 * f, &rot[f], 4 * sizeof *r);
    memcpy(tr, &b->rest.translation, 3 * sizeof *tr);
    t->bone = bone;
    t->name = b->name;
    t->rotation.kind = GANIM_CHANNEL_PER_FRAME;
    t->rotation.count = frames;
    t->rotation.values = r;
    t->translation.kind = GANIM_CHANNEL_CONSTANT;
    t->translation.count = 1;
    t->translation.values = tr;
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
    ganim_doc *doc = make_doc(rig, 4);
    ganim_clip *c = doc ? add_clip(doc, FRAMES, 30.0, 3) : NULL;
    ganim_quat q[3][FRAMES];
    int ok = c != NULL;
    for (uint32_t f = 0; ok && f < FRAMES; f++) {
        double s = 2.0 * PI * f / (FRAMES - 1);                   /* one full wave, loops */
        q[0][f] = axis_angle(0, 0, 1, 0.6 * sin(s));              /* turret swings */
        q[1][f] = axis_angle(0, 1, 0, -0.35 - 0.25 * sin(2 * s)); /* boom lifts twice */
        q[2][f] = axis_angle(0, 1, 0, 0.5 * sin(2 * s + PI / 2)); /* jib waves */
    }
    for (uint32_t i = 0; ok && i < 3; i++) ok = track(doc, &c->tracks[i], i + 1, FRAMES, q[i]);
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
    ganim_doc *doc = make_doc(rig, 6);
    ganim_clip *c = doc ? add_clip(doc, FRAMES, 30.0, 5) : NULL;
    ganim_quat q[5][FRAMES];
    int ok = c != NULL;
    for (uint32_t f = 0; ok && f < FRAMES; f++) {
        double s = 2.0 * PI * f / (FRAMES - 1);
        q[0][f] = axis_angle(0, 0, 1, 0.05 * sin(3 * s)); /* mast sways */
        q[1][f] = axis_angle(0, 0, 1, s);                 /* dish spins once */
        q[2][f] = axis_angle(0, 1, 0, 0.2 * sin(s));      /* feed nods */
        q[3][f] = axis_angle(1, 0, 0, 0.15 * sin(4 * s)); /* aerial whips */
        q[4][f] = ganim_quat_identity();
    }
    for (uint32_t i = 0; ok && i < 5; i++) ok = track(doc, &c->tracks[i], i + 1, FRAMES, q[i]);
    /* the beacon: constant rotation, bobbing translation, blinking 10 frames on, 5 off */
    if (ok) {
        ganim_track *t = &c->tracks[4];
        float *tr = ganim_doc_alloc_array(doc, FRAMES, 3 * sizeof *tr);
        uint8_t *vis = ganim_doc_alloc(doc, FRAMES);
        float *r = ganim_doc_alloc_array(doc, 1, 4 * sizeof *r);
        ok = tr && vis && r;
        for (uint32_t f = 0; ok && f < FRAMES; f++) {
            tr[3 * f] = 0;
            tr[3 * f + 1] = 0;
            tr[3 * f + 2] = 0.4f + 0.1f * (float)sin(4.0 * PI * f / (FRAMES - 1));
            vis[f] = (uint8_t)(f % 15 < 10);
        }
        if (ok) {
            r[0] = r[1] = r[2] = 0;
            r[3] = 1;
            t->rotation.kind = GANIM_CHANNEL_CONSTANT;
            t->rotation.count = 1;
            t->rotation.values = r;
            t->translation.kind = GANIM_CHANNEL_PER_FRAME;
            t->translation.count = FRAMES;
            t->translation.values = tr;
            t->visibility = vis;
        }
    }
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
