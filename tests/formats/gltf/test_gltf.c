/* The glTF reader on real exporters' files and on files built here.
 *
 * Real files (tests/data/gltf, made by the scripts there): Blender's export of a rig with
 * keys only where they were set (LINEAR, CONSTANT -> STEP, BEZIER -> CUBICSPLINE) gives
 * the same poses at every frame as Blender's baked export of it; the rig's armature node
 * is folded into the root (known answer worked out from the script); Blender's re-export
 * of ganim's crane matches ganim's own at every common time; three.js's binary and
 * data-URI exports read alike, with the discrete track held.
 *
 * Built files: known answers for CUBICSPLINE, STEP with hold keys, sparse and normalised
 * integer accessors, byte strides, matrix nodes, frame rates (detected, given, default),
 * skins (chosen by the animations, by name, by index; none: node trees), buffers in other
 * files (percent-encoded names, refused "../" and absolute names, no loader), the
 * conversion of ganim's own files (undone, kept), visibility, and clear errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/gltf/gltf.h"
#include "io/json.h"
#include "support/tbuild.h"
#include "support/tpeak.h"
#include "test.h"

#define PI 3.14159265358979323846

/* ---- world positions of every bone ------------------------------------------------------ */

static void world_positions(const ganim_doc *d, const ganim_clip *c, double t, float *out)
{
    const ganim_skeleton *sk = d->skeleton;
    ganim_transform *local = malloc(sk->bone_count * sizeof *local);
    float *m = malloc(sk->bone_count * 16 * sizeof *m);
    if (c) CHECK_OK(ganim_clip_sample(c, sk, t, local, NULL, NULL));
    else
        for (uint32_t i = 0; i < sk->bone_count; i++) local[i] = sk->bones[i].rest;
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        float l[16];
        ganim_mat4_from_transform(&local[i], l);
        if (sk->bones[i].parent < 0) memcpy(m + 16 * i, l, sizeof l);
        else ganim_mat4_mul(m + 16 * sk->bones[i].parent, l, m + 16 * i);
        memcpy(out + 3 * i, m + 16 * i + 12, 3 * sizeof *out);
    }
    free(local);
    free(m);
}

static int bone_named(const ganim_doc *d, const char *name)
{
    for (uint32_t i = 0; i < d->skeleton->bone_count; i++)
        if (!strcmp(d->skeleton->bones[i].name, name)) return (int)i;
    return -1;
}

static ganim_doc *read_path(const char *path, const ganim_read_opts *o)
{
    ganim_doc *d = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_file(path, o, &d, &e) == GANIM_OK, "%s: %s", path, e.message);
    return d;
}

static const char *data(const char *name)
{
    static char buf[4][1024];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/tests/data/gltf/%s", GANIM_SOURCE_DIR, name);
    return buf[k];
}

static int has_warning(const ganim_doc *d, ganim_warning_code code, const char *text)
{
    for (uint32_t i = 0; i < d->warning_count; i++)
        if (d->warnings[i].code == code && strstr(d->warnings[i].message, text)) return 1;
    return 0;
}

/* ---- real exporters --------------------------------------------------------------------- */

TEST(blender_sparse_keys_match_blender_baked)
{
    ganim_doc *sparse = read_path(data("blender_rig_sparse.glb"), NULL);
    ganim_doc *baked = read_path(data("blender_rig_baked.glb"), NULL);
    if (!sparse || !baked) goto done;
    CHECK_EQ_INT(sparse->skeleton->bone_count, 4);
    CHECK_EQ_INT(baked->skeleton->bone_count, 4);
    const ganim_clip *cs = &sparse->clips[0], *cb = &baked->clips[0];
    CHECK_EQ_STR(cs->name, "Wave");
    CHECK(cs->fps == 24 && cb->fps == 24); /* Blender's 24 fps, found from the keys */
    CHECK_EQ_INT(cs->frame_count, 31);     /* keys on frames 1..30: Blender writes frame / fps */
    CHECK_EQ_INT(cb->frame_count, 31);
    /* the armature object (moved to (1, 0.5, 0) in Blender's Z up, turned 30 deg, scaled 2)
     * is not a joint: folded into the root. Hips' head sits 1 up in the armature, so its
     * rest is at (1, 0, -0.5) + 2 * (0, 1, 0) in glTF's Y up (the turn is about that up). */
    int hips = bone_named(sparse, "Hips");
    CHECK(hips == 0);
    float *ws = malloc(4 * 3 * sizeof(float)), *wb = malloc(4 * 3 * sizeof(float));
    world_positions(sparse, NULL, 0, ws);
    CHECK_NEAR(ws[0], 1, 1e-5);
    CHECK_NEAR(ws[1], 2, 1e-5);
    CHECK_NEAR(ws[2], -0.5, 1e-5);
    CHECK_NEAR(sparse->skeleton->bones[0].rest.scale.y, 2, 1e-6);
    /* the Head's CONSTANT keys: STEP, held until the next key */
    int head = bone_named(sparse, "Head");
    const ganim_track *ht = NULL;
    for (uint32_t i = 0; i < cs->track_count; i++)
        if ((int)cs->tracks[i].bone == head) ht = &cs->tracks[i];
    CHECK(ht && (ht->step || ht->rotation.kind == GANIM_CHANNEL_KEYED));
    /* every frame, every bone's local pose: the sparse file (splines evaluated, steps held)
     * and the baked one (Blender's own sampling of its curves) agree. Except between the
     * keys of the Bezier curve (Spine, 0.3 degrees at most): Blender writes its Bezier
     * handles as glTF's Hermite tangents, which do not follow them exactly (three.js
     * evaluates the sparse file as ganim does, to 7 decimals; checked when the fixture
     * was made) */
    int spine = bone_named(sparse, "Spine");
    double worst = 0, worst_spine = 0;
    for (uint32_t f = 1; f <= 30; f++) {
        ganim_transform ps[4], pb[4];
        CHECK_OK(ganim_clip_sample(cs, sparse->skeleton, f / 24.0, ps, NULL, NULL));
        CHECK_OK(ganim_clip_sample(cb, baked->skeleton, f / 24.0, pb, NULL, NULL));
        for (int i = 0; i < 4; i++) {
            const float *a = &ps[i].rotation.x, *b = &pb[i].rotation.x;
            double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
            double d = 1 - fabs(dot);
            for (int k = 0; k < 3; k++)
                d = fmax(d, fabs((double)(&ps[i].translation.x)[k] - (&pb[i].translation.x)[k]));
            if (i == spine && f != 1 && f != 12 && f != 30) worst_spine = fmax(worst_spine, d);
            else worst = fmax(worst, d);
        }
    }
    /* 1 - |dot| up to 1.5e-5 (0.6 degrees) on Arm.L, whose LINEAR keys are 110 degrees
     * apart: Blender interpolates quaternion components linearly (then normalises) where
     * glTF's LINEAR is a slerp, which the reader follows; zero at the keys and half way */
    CHECK_MSG(worst < 2e-5, "sparse and baked Blender exports differ by %g", worst);
    CHECK_MSG(worst_spine < 1e-5, "sparse and baked Blender exports differ by %g between Bezier keys", worst_spine);
    free(ws);
    free(wb);
done:
    ganim_doc_free(sparse);
    ganim_doc_free(baked);
}

TEST(blender_reexport_of_ganim_crane)
{
    char alo[1024], ala[1024];
    snprintf(ala, sizeof ala, "%s/examples/crane_wave_00.ala", GANIM_SOURCE_DIR);
    snprintf(alo, sizeof alo, "%s/examples/crane.alo", GANIM_SOURCE_DIR);
    ganim_doc *game = read_path(ala, NULL), *ours = NULL;
    ganim_doc *blender = read_path(data("blender_crane.glb"), NULL);
    if (!game || !blender) goto done;
    ganim_buffer glb = { 0 };
    CHECK_OK(ganim_export_glb(game, NULL, &glb, NULL));
    ganim_setting keep = { "gltf.conversion", "keep" };
    ganim_read_opts ro = { 0 };
    ro.settings = &keep;
    ro.setting_count = 1;
    CHECK_OK(ganim_read_memory(glb.data, glb.size, &ro, &ours, NULL));
    ganim_buffer_free(&glb);
    if (!ours) goto done;
    CHECK(ours->axes == GANIM_AXES_Y_UP && game->axes == GANIM_AXES_Z_UP);
    CHECK(blender->clips[0].fps == 24 && blender->clips[0].frame_count == 49);
    uint32_t n = ours->skeleton->bone_count;
    float *wo = malloc(n * 3 * sizeof(float)), *wb = malloc(blender->skeleton->bone_count * 3 * sizeof(float));
    double worst = 0;
    for (uint32_t k = 0; k <= 48; k++) {
        world_positions(ours, &ours->clips[0], k / 24.0, wo);
        world_positions(blender, &blender->clips[0], k / 24.0, wb);
        for (uint32_t i = 0; i < n; i++) {
            int j = bone_named(blender, ours->skeleton->bones[i].name);
            CHECK(j >= 0);
            if (j < 0) break;
            for (int c = 0; c < 3; c++) worst = fmax(worst, fabs((double)wo[3 * i + c] - wb[3 * j + c]));
        }
    }
    CHECK_MSG(worst < 1e-4, "Blender's re-export differs from ganim's by %g", worst);
    free(wo);
    free(wb);
done:
    ganim_doc_free(game);
    ganim_doc_free(ours);
    ganim_doc_free(blender);
}

TEST(threejs_binary_and_data_uri)
{
    ganim_doc *a = read_path(data("threejs_run.glb"), NULL), *b = read_path(data("threejs_run.gltf"), NULL);
    if (!a || !b) goto done;
    for (int k = 0; k < 2; k++) {
        const ganim_doc *d = k ? b : a;
        CHECK_EQ_INT(d->skeleton->bone_count, 3);
        CHECK_EQ_STR(d->clips[0].name, "Run");
        CHECK(d->clips[0].fps == 30); /* keys at sevenths of a second: no common rate, 30 */
        CHECK_EQ_INT(d->clips[0].frame_count, 31);
        CHECK(has_warning(d, GANIM_WARN_SKELETON, "'Prop'"));
    }
    /* the glTF reader's records of the file and of its clip (read back by the details
     * hook): the file's asset, extensions and counts; the clip's 31 keys a 30th apart, so
     * 30 fps over 1 s, its four samplers, the 'Prop' channel skipped */
    static const char *const facts[2][6] = {
        { "\"container\":\"glb\"", "\"generator\":\"THREE.GLTFExporter r187\"",
          "\"extensions_used\":[\"KHR_materials_unlit\"]", "\"nodes\":5,", "\"meshes\":2,", "\"skipped_channels\":1}" },
        { "\"fps\":30,", "\"duration\":1,", "\"samplers\":4,", "\"channels_read\":3,",
          "\"interpolation\":{\"LINEAR\":2,\"STEP\":1,\"CUBICSPLINE\":0}", "\"outside_skeleton\":1," },
    };
    for (int c = -1; c < 1; c++) {
        ganim_details *det = NULL;
        ganim_buffer js = { 0 };
        CHECK_OK(ganim_doc_details(a, c, GANIM_DETAILS_SUMMARY, NULL, &det, NULL));
        if (!det) continue;
        CHECK_OK(ganim_detail_json(det->root, &js, NULL));
        char text[2048];
        snprintf(text, sizeof text, "%.*s", (int)js.size, js.data ? (const char *)js.data : "");
        for (int k = 0; k < 6; k++)
            CHECK_MSG(strstr(text, facts[c + 1][k]), "details of %d: no %s in %s", c, facts[c + 1][k], text);
        ganim_buffer_free(&js);
        ganim_details_free(det);
    }
    ganim_buffer ja = { 0 }, jb = { 0 };
    CHECK_OK(ganim_export_json(a, NULL, &ja, NULL));
    CHECK_OK(ganim_export_json(b, NULL, &jb, NULL));
    /* the same model; only the format's details (container, buffers) differ */
    const char *ca = strstr((const char *)ja.data, "\"clips\""), *cb = strstr((const char *)jb.data, "\"clips\"");
    const char *ea = strstr((const char *)ja.data, "\n\"native_record\""),
               *eb = strstr((const char *)jb.data, "\n\"native_record\"");
    CHECK(ca && cb && ea && eb && ea - ca == eb - cb && !memcmp(ca, cb, (size_t)(ea - ca)));
    ganim_buffer_free(&ja);
    ganim_buffer_free(&jb);
    /* Head: discrete keys at 0, 2/7, 4/7 s hold until the next */
    int head = bone_named(a, "Head");
    ganim_transform p0[3], p1[3], p2[3];
    CHECK_OK(ganim_clip_sample(&a->clips[0], a->skeleton, 0.0, p0, NULL, NULL));
    CHECK_OK(ganim_clip_sample(&a->clips[0], a->skeleton, 0.2, p1, NULL, NULL));
    CHECK_OK(ganim_clip_sample(&a->clips[0], a->skeleton, 0.3, p2, NULL, NULL));
    CHECK_NEAR(p1[head].rotation.x, p0[head].rotation.x, 1e-7);
    CHECK_NEAR(p1[head].rotation.w, p0[head].rotation.w, 1e-7);
    CHECK_NEAR(p2[head].rotation.y, sin(25 * PI / 360), 1e-6);
    /* Spine: LINEAR keys at 1/7 s steps, fractional frames */
    int spine = bone_named(a, "Spine");
    const ganim_channel *sr = NULL;
    for (uint32_t i = 0; i < a->clips[0].track_count; i++)
        if ((int)a->clips[0].tracks[i].bone == spine) sr = &a->clips[0].tracks[i].rotation;
    CHECK(sr && sr->kind == GANIM_CHANNEL_KEYED && sr->count == 5);
    if (sr && sr->count == 5) CHECK_NEAR(sr->times[1], 30.0 / 7, 1e-5);
done:
    ganim_doc_free(a);
    ganim_doc_free(b);
}

/* ---- files built here --------------------------------------------------------------------- */

typedef struct gb {
    char acc[8192], views[8192];
    size_t na, nv;
    uint8_t bin[16384];
    size_t bn;
    int count;
} gb;

/* Raw bytes as one bufferView + accessor. Returns the accessor index. */
static int gb_raw(gb *g, const void *bytes, size_t size, int comp, int count, const char *type, const char *extra)
{
    while (g->bn % 4) g->bin[g->bn++] = 0;
    memcpy(g->bin + g->bn, bytes, size);
    g->nv +=
        (size_t)snprintf(g->views + g->nv, sizeof g->views - g->nv,
                         "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", g->count ? "," : "", g->bn, size);
    g->na += (size_t)snprintf(g->acc + g->na, sizeof g->acc - g->na,
                              "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%d,\"type\":\"%s\"%s}",
                              g->count ? "," : "", g->count, comp, count, type, extra ? extra : "");
    g->bn += size;
    return g->count++;
}

static int gb_floats(gb *g, const float *v, int count, const char *type)
{
    int comps = !strcmp(type, "SCALAR") ? 1 : !strcmp(type, "VEC3") ? 3 : 4;
    return gb_raw(g, v, (size_t)count * (size_t)comps * 4, 5126, count, type, NULL);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The document: `body` (nodes, skins, animations...) plus the accessors, as a .glb, or as
 * .gltf text with the buffer in a data URI (uri NULL) or named `uri`. */
static void gb_finish(gb *g, const char *body, int glb, const char *uri, ganim_buffer *out)
{
    size_t cap = 64 * 1024 + g->bn * 2;
    char *j = malloc(cap);
    size_t n = (size_t)snprintf(j, cap, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"test\"},%s", body);
    if (g->count) {
        n += (size_t)snprintf(j + n, cap - n,
                              ",\"accessors\":[%s],\"bufferViews\":[%s],\"buffers\":[{\"byteLength\":%zu", g->acc,
                              g->views, g->bn);
        if (!glb && !uri) {
            n += (size_t)snprintf(j + n, cap - n, ",\"uri\":\"data:application/octet-stream;base64,");
            for (size_t i = 0; i < g->bn; i += 3) {
                uint32_t v = (uint32_t)g->bin[i] << 16 | (i + 1 < g->bn ? (uint32_t)g->bin[i + 1] << 8 : 0) |
                             (i + 2 < g->bn ? g->bin[i + 2] : 0);
                j[n++] = b64[v >> 18];
                j[n++] = b64[(v >> 12) & 63];
                j[n++] = i + 1 < g->bn ? b64[(v >> 6) & 63] : '=';
                j[n++] = i + 2 < g->bn ? b64[v & 63] : '=';
            }
            j[n++] = '"';
        } else if (!glb) {
            n += (size_t)snprintf(j + n, cap - n, ",\"uri\":\"%s\"", uri);
        }
        n += (size_t)snprintf(j + n, cap - n, "}]");
    }
    j[n++] = '}';
    memset(out, 0, sizeof *out);
    if (!glb) {
        out->data = (uint8_t *)j;
        out->size = out->capacity = n;
        return;
    }
    while (n % 4) j[n++] = ' ';
    size_t bpad = (4 - g->bn % 4) % 4, total = 12 + 8 + n + (g->bn ? 8 + g->bn + bpad : 0);
    uint8_t *o = malloc(total);
    uint32_t h[5] = { 0x46546C67u, 2, (uint32_t)total, (uint32_t)n, 0x4E4F534Au };
    memcpy(o, h, 20);
    memcpy(o + 20, j, n);
    if (g->bn) {
        uint32_t c[2] = { (uint32_t)(g->bn + bpad), 0x004E4942u };
        memcpy(o + 20 + n, c, 8);
        memcpy(o + 28 + n, g->bin, g->bn);
        memset(o + 28 + n + g->bn, 0, bpad);
    }
    free(j);
    out->data = o;
    out->size = out->capacity = total;
}

static ganim_doc *read_built(const ganim_buffer *b, const ganim_read_opts *o, ganim_code want, ganim_error *e)
{
    ganim_doc *d = NULL;
    ganim_error local = { 0 };
    if (!e) e = &local;
    ganim_code c = ganim_read_memory(b->data, b->size, o, &d, e);
    CHECK_MSG(c == want, "read: code %d (%s), wanted %d", c, e->message, want);
    return d;
}

/* Two bones (root at (0,1,0), child 1 above it) and one skin; `anim` the animations. */
static const char *two_bones = "\"nodes\":[{\"name\":\"root\",\"translation\":[0,1,0],\"children\":[1]},"
                               "{\"name\":\"child\",\"translation\":[0,1,0]}],\"skins\":[{\"joints\":[0,1]}]";

TEST(cubicspline_known_answer)
{
    gb g = { 0 };
    /* one rotation about Z from 0 to 90 degrees over 1 s with tangents; frames at 10 fps */
    const float t[2] = { 0, 1 };
    const double h = sin(PI / 4);
    const float v[24] = { 0, 0,    0,    0, /* in */ 0, 0, 0,        1,        /* value */ 0,
                          0, 0.5f, 0, /* out */
                          0, 0,    0.2f, 0, 0,          0, (float)h, (float)h, 0,
                          0, 0,    0 };
    int it = gb_floats(&g, t, 2, "SCALAR"), iv = gb_floats(&g, v, 6, "VEC4");
    char body[1024];
    snprintf(body, sizeof body,
             "%s,\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d,\"interpolation\":\"CUBICSPLINE\"}]}]",
             two_bones, it, iv);
    ganim_buffer b;
    gb_finish(&g, body, 1, NULL, &b);
    ganim_read_opts o = { 0 };
    o.fps = 10;
    ganim_doc *d = read_built(&b, &o, GANIM_OK, NULL);
    if (d) {
        const ganim_clip *c = &d->clips[0];
        CHECK(c->fps == 10 && c->frame_count == 11);
        const ganim_channel *r = &c->tracks[0].rotation;
        CHECK(r->kind == GANIM_CHANNEL_PER_FRAME && r->count == 11); /* keys and whole frames */
        /* frame 3: s = 0.3, Hermite with tangents out0 = (0,0,0.5,0), in1 = (0,0,0.2,0) */
        double s = 0.3, s2 = s * s, s3 = s2 * s;
        double q[4] = { 0, 0, (-2 * s3 + 3 * s2) * h + (s3 - 2 * s2 + s) * 0.5 + (s3 - s2) * 0.2,
                        (2 * s3 - 3 * s2 + 1) * 1 + (-2 * s3 + 3 * s2) * h };
        double len = sqrt(q[2] * q[2] + q[3] * q[3]);
        CHECK_NEAR(r->values[3 * 4 + 2], q[2] / len, 1e-6);
        CHECK_NEAR(r->values[3 * 4 + 3], q[3] / len, 1e-6);
        CHECK_NEAR(r->values[10 * 4 + 2], h, 1e-7);
        ganim_doc_free(d);
    }
    ganim_buffer_free(&b);
}

TEST(step_and_hold_keys)
{
    gb g = { 0 };
    /* frames at 4 fps: root translation STEP on keys 0, 0.25, 0.5; child rotation LINEAR on
     * 0, 0.5 with a hold key one float step before 0.5; root rotation LINEAR on 0, 0.25,
     * 0.5: its frame 1 is not stepped, the translation's is: the root's channels
     * disagree, so the model holds with keys; the child's agree: step bits */
    const float t3[3] = { 0, 0.25f, 0.5f };
    float th[3] = { 0, 0, 0.5f };
    th[1] = nextafterf(0.5f, 0);
    const float tr[9] = { 0, 0, 0, 1, 0, 0, 2, 0, 0 };
    const float rl[12] = { 0, 0, 0, 1, 0, 0, 0.5f, 0.8660254f, 0, 0, 0, 1 };
    const float ch[12] = { 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0 };
    int a3 = gb_floats(&g, t3, 3, "SCALAR"), ah = gb_floats(&g, th, 3, "SCALAR");
    int atr = gb_floats(&g, tr, 3, "VEC3"), arl = gb_floats(&g, rl, 3, "VEC4"), ach = gb_floats(&g, ch, 3, "VEC4");
    char body[2048];
    snprintf(body, sizeof body,
             "%s,\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}},"
             "{\"sampler\":2,\"target\":{\"node\":1,\"path\":\"rotation\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d,\"interpolation\":\"STEP\"},{\"input\":%d,\"output\":%d},"
             "{\"input\":%d,\"output\":%d}]}]",
             two_bones, a3, atr, a3, arl, ah, ach);
    ganim_buffer b;
    gb_finish(&g, body, 1, NULL, &b);
    ganim_doc *d = read_built(&b, NULL, GANIM_OK, NULL);
    if (d) {
        const ganim_clip *c = &d->clips[0];
        CHECK(c->fps == 4 || c->fps == 24); /* whole frames: the first common rate */
        const ganim_track *root = &c->tracks[0], *child = &c->tracks[1];
        CHECK(root->step == NULL && root->translation.kind == GANIM_CHANNEL_KEYED && root->translation.count == 5);
        CHECK(child->step != NULL && child->rotation.count == 2);
        /* a quarter second after the start: the translation holds 0 */
        ganim_transform p[2];
        CHECK_OK(ganim_clip_sample(c, d->skeleton, 0.2, p, NULL, NULL));
        CHECK(p[0].translation.x == 0);
        CHECK_OK(ganim_clip_sample(c, d->skeleton, 0.45, p, NULL, NULL));
        CHECK(p[0].translation.x == 1 && p[1].rotation.w == 1);
        ganim_doc_free(d);
    }
    ganim_buffer_free(&b);
}

/* Two samplers reading one times accessor with a repeated time: each drops its repeated
 * key (the reader shares the times among the channels, and a channel changes only its
 * own copy: the second channel's keys stay its own) */
TEST(shared_times_changed_per_channel)
{
    gb g = { 0 };
    const float t[4] = { 0, 0.5f, 0.5f, 1 };
    const float a[12] = { 0, 0, 0, 1, 0, 0, 5, 0, 0, 2, 0, 0 }, b[12] = { 0, 0, 0, 10, 0, 0, 50, 0, 0, 20, 0, 0 };
    int it = gb_floats(&g, t, 4, "SCALAR"), ia = gb_floats(&g, a, 4, "VEC3"), ib = gb_floats(&g, b, 4, "VEC3");
    char body[2048];
    snprintf(body, sizeof body,
             "%s,\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d},{\"input\":%d,\"output\":%d}]}]",
             two_bones, it, ia, it, ib);
    ganim_buffer buf;
    gb_finish(&g, body, 1, NULL, &buf);
    ganim_read_opts o = { 0 };
    o.fps = 2;
    ganim_doc *d = read_built(&buf, &o, GANIM_OK, NULL);
    if (d) {
        const ganim_clip *c = &d->clips[0];
        ganim_transform p[2];
        CHECK_OK(ganim_clip_sample(c, d->skeleton, 0.5, p, NULL, NULL));
        CHECK(p[0].translation.x == 1 && p[1].translation.x == 10);
        CHECK_OK(ganim_clip_sample(c, d->skeleton, 1.0, p, NULL, NULL));
        CHECK_MSG(p[0].translation.x == 2 && p[1].translation.x == 20, "at 1 s: %g and %g", p[0].translation.x,
                  p[1].translation.x);
        ganim_doc_free(d);
    }
    ganim_buffer_free(&buf);
}

/* The reader uses float32 values where they are in the file when it only reads them, and
 * copies them before it changes them: read from the caller's bytes (input_outlives_doc),
 * a file whose channels have keys dropped (a repeated time), rotations made unit, and a
 * STEP scale kept as it is gives the right values and leaves every byte of the file as it
 * was. */
TEST(values_read_where_they_are)
{
    gb g = { 0 };
    const float t[4] = { 0, 0.5f, 0.5f, 1 };
    const float tr[12] = { 0, 0, 0, 1, 0, 0, 5, 0, 0, 2, 0, 0 };
    const float rot[16] = { 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0, 0.5f, 0, 0, 3, 0 };
    const float sc[12] = { 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4 };
    const float t3[3] = { 0, 0.5f, 1 };
    int it = gb_floats(&g, t, 4, "SCALAR"), itr = gb_floats(&g, tr, 4, "VEC3"), ir = gb_floats(&g, rot, 4, "VEC4");
    int it3 = gb_floats(&g, t3, 3, "SCALAR"), isc = gb_floats(&g, sc, 3, "VEC3");
    char body[2048];
    snprintf(body, sizeof body,
             "%s,\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
             "{\"sampler\":2,\"target\":{\"node\":1,\"path\":\"scale\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d},{\"input\":%d,\"output\":%d},"
             "{\"input\":%d,\"output\":%d,\"interpolation\":\"STEP\"}]}]",
             two_bones, it, itr, it, ir, it3, isc);
    ganim_buffer buf;
    gb_finish(&g, body, 1, NULL, &buf);
    uint8_t *copy = malloc(buf.size);
    memcpy(copy, buf.data, buf.size);
    ganim_read_opts o = { 0 };
    o.fps = 2;
    o.input_outlives_doc = 1;
    ganim_doc *d = read_built(&buf, &o, GANIM_OK, NULL);
    CHECK_MSG(memcmp(copy, buf.data, buf.size) == 0, "the read wrote into the file's bytes");
    if (d) {
        const ganim_clip *c = &d->clips[0];
        ganim_transform p[2];
        CHECK_OK(ganim_clip_sample(c, d->skeleton, 0.5, p, NULL, NULL));
        CHECK(p[0].translation.x == 1 && p[1].rotation.w == 1 && p[1].rotation.z == 0 && p[1].scale.x == 2);
        CHECK_OK(ganim_clip_sample(c, d->skeleton, 1.0, p, NULL, NULL));
        CHECK_MSG(p[0].translation.x == 2 && p[1].rotation.z == 1 && p[1].rotation.w == 0 && p[1].scale.y == 3,
                  "at 1 s: %g, %g %g, %g", p[0].translation.x, p[1].rotation.z, p[1].rotation.w, p[1].scale.y);
        ganim_doc_free(d);
    }
    free(copy);
    ganim_buffer_free(&buf);
}

/* Another writer's hidden frames (Blender keeps ganim's visibility as scale keys of 0 but
 * loses those frames' rotations and translations): a frame of scale 0 is hidden, and takes
 * the rotation, translation and scale of the nearest visible frame. */
TEST(zero_scale_frames_are_hidden)
{
    gb g = { 0 };
    const float t[6] = { 0, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f };
    const float sc[18] = { 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2 };
    const float tr[18] = { 0, 1, 0, 0, 2, 0, 999, 0, 0, -999, 0, 0, 0, 5, 0, 0, 6, 0 };
    float rot[24];
    const double deg[6] = { 0, 10, 170, -170, 40, 50 };
    for (int f = 0; f < 6; f++) {
        double h = deg[f] * PI / 360;
        rot[4 * f] = rot[4 * f + 1] = 0;
        rot[4 * f + 2] = (float)sin(h), rot[4 * f + 3] = (float)cos(h);
    }
    int it = gb_floats(&g, t, 6, "SCALAR"), is = gb_floats(&g, sc, 6, "VEC3"), itr = gb_floats(&g, tr, 6, "VEC3");
    int ir = gb_floats(&g, rot, 6, "VEC4");
    char body[2048];
    snprintf(body, sizeof body,
             "%s,\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"scale\"}},"
             "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"translation\"}},"
             "{\"sampler\":2,\"target\":{\"node\":1,\"path\":\"rotation\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d},{\"input\":%d,\"output\":%d},{\"input\":%d,\"output\":%d}]}]",
             two_bones, it, is, it, itr, it, ir);
    ganim_buffer b;
    gb_finish(&g, body, 1, NULL, &b);
    ganim_read_opts o = { 0 };
    o.fps = 10;
    ganim_doc *d = read_built(&b, &o, GANIM_OK, NULL);
    if (d) {
        const ganim_clip *c = &d->clips[0];
        CHECK_EQ_INT(c->frame_count, 6);
        const ganim_track *k = &c->tracks[0];
        CHECK_EQ_INT(k->bone, 1);
        CHECK(k->visibility != NULL);
        /* frame 2 is nearest to frame 1, frame 3 to frame 4 */
        const int vis[6] = { 1, 1, 0, 0, 1, 1 }, from[6] = { 0, 1, 1, 4, 4, 5 };
        for (int f = 0; f < 6 && k->visibility; f++) {
            CHECK_EQ_INT(k->visibility[f], vis[f]);
            CHECK(k->rotation.kind == GANIM_CHANNEL_PER_FRAME &&
                  !memcmp(k->rotation.values + 4 * f, rot + 4 * from[f], 16));
            CHECK(k->translation.kind == GANIM_CHANNEL_PER_FRAME &&
                  !memcmp(k->translation.values + 3 * f, tr + 3 * from[f], 12));
            CHECK(k->scale.kind == GANIM_CHANNEL_PER_FRAME && !memcmp(k->scale.values + 3 * f, sc + 3 * from[f], 12));
        }
        ganim_doc_free(d);
    }
    ganim_buffer_free(&b);
}

TEST(accessor_layouts)
{
    gb g = { 0 };
    /* times as floats; rotations as normalised shorts with a byte stride of 12 (4 shorts
     * + 4 bytes of padding); translations all zero but for a sparse element */
    const float t[2] = { 0, 1 };
    int16_t q[12] = { 0, 0, 0, 32767, 0x7777, 0x7777, 0, 0, 23170, 23170, 0, 0 };
    int it = gb_floats(&g, t, 2, "SCALAR");
    while (g.bn % 4) g.bin[g.bn++] = 0;
    size_t at = g.bn;
    memcpy(g.bin + g.bn, q, sizeof q);
    g.bn += sizeof q;
    g.nv +=
        (size_t)snprintf(g.views + g.nv, sizeof g.views - g.nv,
                         ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu,\"byteStride\":12}", at, sizeof q - 4);
    int vq = g.count;
    g.na += (size_t)snprintf(
        g.acc + g.na, sizeof g.acc - g.na,
        ",{\"bufferView\":%d,\"componentType\":5122,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"}", vq);
    int iq = g.count++;
    const uint8_t idx[4] = { 1, 0, 0, 0 };
    const float sv[3] = { 5, 6, 7 };
    int ii = gb_raw(&g, idx, 1, 5121, 1, "SCALAR", NULL), isv = gb_floats(&g, sv, 1, "VEC3");
    g.na += (size_t)snprintf(g.acc + g.na, sizeof g.acc - g.na,
                             ",{\"componentType\":5126,\"count\":2,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
                             "\"indices\":{\"bufferView\":%d,\"componentType\":5121},\"values\":{\"bufferView\":%d}}}",
                             ii, isv);
    int is = g.count++;
    char body[2048];
    snprintf(body, sizeof body,
             "%s,\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d},{\"input\":%d,\"output\":%d}]}]",
             two_bones, it, iq, it, is);
    ganim_buffer b;
    gb_finish(&g, body, 0, NULL, &b); /* .gltf with a data URI */
    ganim_doc *d = read_built(&b, NULL, GANIM_OK, NULL);
    if (d) {
        const ganim_track *tr = &d->clips[0].tracks[0];
        CHECK(tr->rotation.count == 2);
        CHECK_NEAR(tr->rotation.values[3], 1, 1e-7);
        CHECK_NEAR(tr->rotation.values[6], 0.70710678, 1e-4);
        CHECK(tr->translation.count == 2 && tr->translation.values[0] == 0 && tr->translation.values[3] == 5 &&
              tr->translation.values[5] == 7);
        ganim_doc_free(d);
    }
    ganim_buffer_free(&b);
}

/* A .glb of the body (a printf format taking the input and output accessors' indices) with
 * n key times t and n VEC3 values v, read. */
static ganim_doc *read_keys_body(const char *body_fmt, const float *t, const float *v, int n, ganim_buffer *b)
{
    gb g = { 0 };
    int it = gb_floats(&g, t, n, "SCALAR"), iv = gb_floats(&g, v, n, "VEC3");
    char body[2048];
    snprintf(body, sizeof body, body_fmt, it, iv);
    gb_finish(&g, body, 1, NULL, b);
    return read_built(b, NULL, GANIM_OK, NULL);
}

TEST(matrix_nodes_and_rates)
{
    const float t[4] = { 0, 0.1f, 0.2f, 0.7f };
    const float v[12] = { 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0 };
    ganim_buffer b;
    /* the child's rest as a matrix: turned 90 deg about Z, scaled 2, moved (1, 2, 3) */
    ganim_doc *d = read_keys_body(
        "\"nodes\":[{\"name\":\"root\",\"children\":[1]},{\"name\":\"child\",\"matrix\":[0,2,0,0,-2,0,0,0,0,0,2,0,"
        "1,2,3,1]}],\"skins\":[{\"joints\":[0,1]}],"
        "\"animations\":[{\"name\":\"move\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":"
        "\"translation\"}}],\"samplers\":[{\"input\":%d,\"output\":%d}]}]",
        t, v, 4, &b);
    if (d) {
        const ganim_bone *c = &d->skeleton->bones[1];
        CHECK_NEAR(c->rest.rotation.z, sin(PI / 4), 1e-6);
        CHECK_NEAR(c->rest.rotation.w, cos(PI / 4), 1e-6);
        CHECK_NEAR(c->rest.scale.x, 2, 1e-6);
        CHECK(c->rest.translation.x == 1 && c->rest.translation.y == 2 && c->rest.translation.z == 3);
        /* keys every tenth of a second: 30 is the first common rate that fits */
        CHECK(d->clips[0].fps == 30 && d->clips[0].frame_count == 22);
        CHECK(d->clips[0].tracks[0].translation.kind == GANIM_CHANNEL_KEYED);
        ganim_doc_free(d);
    }
    ganim_read_opts o = { 0 };
    o.fps = 10; /* the caller's rate */
    if ((d = read_built(&b, &o, GANIM_OK, NULL))) {
        CHECK(d->clips[0].fps == 10 && d->clips[0].frame_count == 8);
        CHECK(d->clips[0].tracks[0].translation.times[3] == 7);
        ganim_doc_free(d);
    }
    ganim_buffer_free(&b);
}

/* Nodes' members in any order and repeated (the first one counts, as gj_get gives it),
 * read in one pass each with gltf_members' memo, and channels whose targets name their
 * members in either order. */
TEST(node_members_in_any_order)
{
    const float t[2] = { 0, 0.5f };
    const float v[6] = { 0, 0, 0, 1, 0, 0 };
    ganim_buffer b;
    ganim_doc *d = read_keys_body(
        "\"nodes\":[{\"translation\":[1,2,3],\"name\":\"a\",\"translation\":[9,9,9],\"children\":[1,2]},"
        "{\"name\":\"b\",\"name\":\"bb\",\"rotation\":[0,0,1,0],\"translation\":[4,5,6],\"scale\":[2,2,2]},"
        "{\"children\":[3],\"scale\":[3,3,3],\"translation\":[7,8,9],\"name\":\"c\",\"scale\":[5,5,5]},"
        "{\"extras\":{\"other\":1},\"name\":\"d\",\"children\":[],\"children\":[0]}],"
        "\"skins\":[{\"joints\":[0,1,2,3]}],"
        "\"animations\":[{\"name\":\"m\",\"channels\":[{\"target\":{\"path\":\"translation\",\"node\":1},"
        "\"sampler\":0},{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\",\"node\":0}}],"
        "\"samplers\":[{\"input\":%d,\"output\":%d}]}]",
        t, v, 2, &b);
    if (d) {
        const ganim_skeleton *sk = d->skeleton;
        CHECK(sk->bone_count == 4);
        int a = bone_named(d, "a"), bb = bone_named(d, "b"), c = bone_named(d, "c"), dd = bone_named(d, "d");
        CHECK_MSG(a >= 0 && bb >= 0 && c >= 0 && dd >= 0 && bone_named(d, "bb") < 0, "bones a %d b %d c %d d %d", a, bb,
                  c, dd);
        if (a >= 0 && bb >= 0 && c >= 0 && dd >= 0) {
            CHECK(sk->bones[a].rest.translation.x == 1 && sk->bones[a].rest.translation.z == 3);
            CHECK(sk->bones[a].parent < 0 && sk->bones[bb].parent == a && sk->bones[c].parent == a);
            CHECK(sk->bones[dd].parent == c);
            CHECK(sk->bones[bb].rest.rotation.z == 1 && sk->bones[bb].rest.scale.y == 2);
            CHECK(sk->bones[c].rest.scale.x == 3 && sk->bones[c].rest.translation.y == 8);
            /* the bones moved: b and c (the second target's first "node"), not a */
            const ganim_clip *cl = &d->clips[0];
            int kind[4] = { -1, -1, -1, -1 };
            for (uint32_t k = 0; k < cl->track_count; k++)
                if (cl->tracks[k].bone < 4) kind[cl->tracks[k].bone] = (int)cl->tracks[k].translation.kind;
            CHECK_MSG(kind[bb] > GANIM_CHANNEL_ABSENT && kind[c] > GANIM_CHANNEL_ABSENT &&
                          kind[a] <= GANIM_CHANNEL_ABSENT,
                      "kinds a %d b %d c %d d %d", kind[a], kind[bb], kind[c], kind[dd]);
        }
        ganim_doc_free(d);
    }
    ganim_buffer_free(&b);
}

TEST(skins)
{
    gb g = { 0 };
    const float t[2] = { 0, 1 }, v[6] = { 0, 0, 0, 1, 0, 0 };
    int it = gb_floats(&g, t, 2, "SCALAR"), iv = gb_floats(&g, v, 2, "VEC3");
    char body[2048];
    /* two skins: "A" over nodes 0-1, "B" over 2-3; the animation moves node 3 */
    snprintf(
        body, sizeof body,
        "\"nodes\":[{\"name\":\"a0\",\"children\":[1]},{\"name\":\"a1\"},{\"name\":\"b0\",\"children\":[3]},"
        "{\"name\":\"b1\"},{\"name\":\"lamp\"}],"
        "\"skins\":[{\"name\":\"A\",\"joints\":[0,1]},{\"name\":\"Bee\",\"joints\":[3,2]}],"
        "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":3,\"path\":\"translation\"}},"
        "{\"sampler\":0,\"target\":{\"node\":4,\"path\":\"translation\"}},"
        "{\"sampler\":0,\"target\":{\"node\":3,\"path\":\"weights\"}}],\"samplers\":[{\"input\":%d,\"output\":%d}]}]",
        it, iv);
    ganim_buffer b;
    gb_finish(&g, body, 1, NULL, &b);
    ganim_doc *d = read_built(&b, NULL, GANIM_OK, NULL);
    if (d) { /* the animated skin; its parent joint first although listed second */
        CHECK_EQ_STR(d->skeleton->name, "Bee");
        CHECK_EQ_STR(d->skeleton->bones[0].name, "b0");
        CHECK_EQ_STR(d->skeleton->bones[1].name, "b1");
        CHECK(d->skeleton->bones[1].parent == 0 && d->clips[0].tracks[0].bone == 1);
        CHECK(has_warning(d, GANIM_WARN_SKELETON, "'lamp'") && has_warning(d, GANIM_WARN_IGNORED, "weights"));
        ganim_doc_free(d);
    }
    ganim_setting s = { "gltf.skin", "a" }; /* by name, any case */
    ganim_read_opts o = { 0 };
    o.settings = &s;
    o.setting_count = 1;
    if ((d = read_built(&b, &o, GANIM_OK, NULL))) {
        CHECK_EQ_STR(d->skeleton->name, "A");
        CHECK_EQ_INT(d->clips[0].track_count, 0);
        ganim_doc_free(d);
    }
    s.value = "1"; /* by index */
    if ((d = read_built(&b, &o, GANIM_OK, NULL))) {
        CHECK_EQ_STR(d->skeleton->name, "Bee");
        ganim_doc_free(d);
    }
    s.value = "nobody";
    ganim_error e = { 0 };
    read_built(&b, &o, GANIM_ERR_INVALID_ARG, &e);
    CHECK(strstr(e.message, "0 'A', 1 'Bee'") != NULL);
    ganim_buffer_free(&b);
    /* no skin: the node trees that hold an animated node */
    gb g2 = { 0 };
    it = gb_floats(&g2, t, 2, "SCALAR");
    iv = gb_floats(&g2, v, 2, "VEC3");
    snprintf(body, sizeof body,
             "\"nodes\":[{\"name\":\"car\",\"children\":[1]},{\"name\":\"wheel\"},{\"name\":\"tree\"}],"
             "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d}]}]",
             it, iv);
    gb_finish(&g2, body, 1, NULL, &b);
    if ((d = read_built(&b, NULL, GANIM_OK, NULL))) {
        CHECK_EQ_INT(d->skeleton->bone_count, 2);
        CHECK_EQ_STR(d->skeleton->bones[1].name, "wheel");
        ganim_doc_free(d);
    }
    ganim_buffer_free(&b);
}

/* ---- other files ---------------------------------------------------------------------- */

/* Writes a file the test needs; the test fails when it cannot. */
static void write_file(const char *path, const void *data, size_t size)
{
    CHECK_MSG(test_write_file(path, data, size) == 0, "cannot write '%s'", path);
}

TEST(external_buffers)
{
    char dir[256], sub[300], path[400];
    snprintf(dir, sizeof dir, "%s/test_gltf_files", GANIM_BINARY_DIR);
    snprintf(sub, sizeof sub, "%s/bin files", dir);
    test_mkdir(dir);
    test_mkdir(sub);
    gb g = { 0 };
    const float t[2] = { 0, 1 }, v[6] = { 0, 0, 0, 1, 0, 0 };
    int it = gb_floats(&g, t, 2, "SCALAR"), iv = gb_floats(&g, v, 2, "VEC3");
    char body[1024];
    snprintf(body, sizeof body,
             "%s,\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d}]}]",
             two_bones, it, iv);
    snprintf(path, sizeof path, "%s/a b.bin", sub);
    write_file(path, g.bin, g.bn);
    static const char *const uris[4] = { "bin%20files/a%20b.bin", "../test_gltf_files/bin%20files/a%20b.bin",
                                         "/etc/passwd", "missing.bin" };
    static const ganim_code want[4] = { GANIM_OK, GANIM_ERR_INVALID_ARG, GANIM_ERR_INVALID_ARG, GANIM_ERR_IO };
    for (int k = 0; k < 4; k++) {
        ganim_buffer b;
        gb_finish(&g, body, 0, uris[k], &b);
        snprintf(path, sizeof path, "%s/anim.gltf", dir);
        write_file(path, b.data, b.size);
        ganim_doc *d = NULL;
        ganim_error e = { 0 };
        ganim_code c = ganim_read_file(path, NULL, &d, &e);
        CHECK_MSG(c == want[k], "%s: code %d (%s)", uris[k], c, e.message);
        if (k == 0 && d) CHECK(d->clips[0].tracks[0].translation.values[3] == 1);
        if (k == 1 || k == 2) CHECK(strstr(e.message, "outside its folder") != NULL);
        if (k == 3) CHECK(strstr(e.message, "missing.bin") != NULL);
        ganim_doc_free(d);
        if (k == 0) { /* in memory, nobody can read the other file: a clear error */
            c = ganim_read_memory(b.data, b.size, NULL, &d, &e);
            CHECK(c == GANIM_ERR_UNSUPPORTED && strstr(e.message, "bin files/a b.bin") != NULL);
        }
        ganim_buffer_free(&b);
    }
    ganim_buffer b; /* a data URI that is not base64 */
    gb_finish(&g, body, 0, "data:application/octet-stream,abc", &b);
    ganim_error e = { 0 };
    read_built(&b, NULL, GANIM_ERR_UNSUPPORTED, &e);
    CHECK(strstr(e.message, "not base64") != NULL);
    ganim_buffer_free(&b);
}

/* ---- ganim's own files -------------------------------------------------------------------- */

static ganim_doc *z_up_doc(void)
{
    ganim_bone bones[2] = {
        { "Root", -1, { { 0, 0, 0, 1 }, { 1, 2, 3 }, { 1, 1, 1 } }, 0 },
        { "arm L", 0, { { 0, 0, 0.38268343f, 0.92387953f }, { 0, 0, 1 }, { 1, 1, 1 } }, GANIM_BONE_HIDDEN },
    };
    static const float rot[12] = { 0, 0, 0, 1, 0.1f, 0, 0, 0.99498744f, 0.2f, 0, 0, 0.9797959f };
    static const float tr[9] = { 1, 2, 3, 1, 2, 4, 1, 2, 5 };
    static const uint8_t vis[3] = { 1, 0, 1 };
    ganim_track tracks[2];
    memset(tracks, 0, sizeof tracks);
    tracks[0].bone = 0;
    tracks[0].name = "Root";
    tracks[0].rotation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, 3, NULL, rot };
    tracks[0].translation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, 3, NULL, tr };
    tracks[1].bone = 1;
    tracks[1].name = "arm L";
    tracks[1].visibility = vis;
    ganim_skeleton sk = { "ship", 2, bones, NULL, NULL, 0 };
    ganim_clip clip;
    memset(&clip, 0, sizeof clip);
    clip.name = "roll";
    clip.fps = 15;
    clip.frame_count = 3;
    clip.track_count = 2;
    clip.tracks = tracks;
    /* a document built by the caller (the library copies what it is given) exports like
     * a read one */
    ganim_doc *doc = NULL;
    CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
    CHECK_OK(ganim_doc_set_skeleton(doc, &sk, NULL));
    CHECK_OK(ganim_doc_add_clip(doc, &clip, NULL, NULL));
    doc->axes = GANIM_AXES_Z_UP;
    return doc;
}

TEST(ganim_conversion_undone_or_kept)
{
    ganim_doc *a = z_up_doc();
    ganim_buffer glb = { 0 };
    CHECK_OK(ganim_export_glb(a, NULL, &glb, NULL));
    ganim_doc *d = read_built(&glb, NULL, GANIM_OK, NULL);
    if (d) {
        CHECK(d->axes == GANIM_AXES_Z_UP);
        CHECK_EQ_STR(d->skeleton->name, "ship");
        CHECK_EQ_STR(d->skeleton->bones[1].name, "arm L"); /* extras.ganim.name */
        CHECK_EQ_INT(d->skeleton->bones[1].flags, GANIM_BONE_HIDDEN);
        CHECK_NEAR(d->skeleton->bones[0].rest.translation.z, 3, 1e-6);
        const ganim_clip *c = &d->clips[0];
        CHECK(c->fps == 15 && c->frame_count == 3 && !strcmp(c->name, "roll"));
        CHECK(c->tracks[0].translation.kind == GANIM_CHANNEL_PER_FRAME);
        CHECK_NEAR(c->tracks[0].translation.values[8], 5, 1e-6);
        CHECK_NEAR(c->tracks[0].rotation.values[4], 0.1, 1e-7);
        /* visibility came back from the STEP scale keys of 0 */
        const ganim_track *arm = &c->tracks[1];
        CHECK(arm->bone == 1 && arm->visibility && arm->visibility[0] == 1 && arm->visibility[1] == 0 &&
              arm->visibility[2] == 1 && arm->scale.kind == GANIM_CHANNEL_ABSENT);
        ganim_doc_free(d);
    }
    ganim_setting keep = { "gltf.conversion", "keep" };
    ganim_read_opts o = { 0 };
    o.settings = &keep;
    o.setting_count = 1;
    if ((d = read_built(&glb, &o, GANIM_OK, NULL))) { /* glTF's Y up as stored: z -> y, y -> -z */
        CHECK(d->axes == GANIM_AXES_Y_UP);
        CHECK_NEAR(d->skeleton->bones[0].rest.translation.y, 3, 1e-6);
        CHECK_NEAR(d->skeleton->bones[0].rest.translation.z, -2, 1e-6);
        ganim_doc_free(d);
    }
    ganim_buffer_free(&glb);
    ganim_doc_free(a);
}

/* A track hidden in one of four frames whose shown frames' scale differs from the rest
 * scale (1, 1, 1), and from the first shown frame, in one component only (x, y or z, by
 * 1 or by one float step): the scale comes back per frame (the hidden frame holding the
 * one before), or constant when the shown frames agree, bit for bit. */
TEST(visibility_scales_told_apart)
{
    for (int comp = 0; comp < 3; comp++)
        for (int agree = 0; agree < 2; agree++)
            for (int step = 0; step < 2; step++) {
                ganim_bone bones[2] = {
                    { "Root", -1, { { 0, 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } }, 0 },
                    { "arm", 0, { { 0, 0, 0, 1 }, { 0, 1, 0 }, { 1, 1, 1 } }, 0 },
                };
                static const uint8_t vis[4] = { 1, 0, 1, 1 };
                float sc[12];
                for (int i = 0; i < 12; i++) sc[i] = 1;
                float other = step ? nextafterf(1, 2) : 2, last = agree ? other : (step ? nextafterf(other, 2) : 3);
                sc[0 + comp] = other, sc[3 + comp] = other, sc[6 + comp] = other, sc[9 + comp] = last;
                ganim_track tr;
                memset(&tr, 0, sizeof tr);
                tr.bone = 1;
                tr.name = "arm";
                tr.visibility = vis;
                tr.scale = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, 4, NULL, sc };
                ganim_skeleton sk = { "s", 2, bones, NULL, NULL, 0 };
                ganim_clip clip;
                memset(&clip, 0, sizeof clip);
                clip.name = "c";
                clip.fps = 30;
                clip.frame_count = 4;
                clip.track_count = 1;
                clip.tracks = &tr;
                ganim_doc *doc = NULL;
                CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
                CHECK_OK(ganim_doc_set_skeleton(doc, &sk, NULL));
                CHECK_OK(ganim_doc_add_clip(doc, &clip, NULL, NULL));
                ganim_buffer glb = { 0 };
                CHECK_OK(ganim_export_glb(doc, NULL, &glb, NULL));
                ganim_doc *d = read_built(&glb, NULL, GANIM_OK, NULL);
                const ganim_track *t = d && d->clip_count ? &d->clips[0].tracks[0] : NULL;
                int ok = t && t->visibility && t->visibility[1] == 0 && t->visibility[3] == 1;
                if (ok && agree) {
                    ok = t->scale.kind == GANIM_CHANNEL_CONSTANT && !memcmp(t->scale.values, sc, 3 * sizeof(float));
                } else if (ok) {
                    float want[12];
                    memcpy(want, sc, sizeof want);
                    memcpy(want + 3, sc, 3 * sizeof(float)); /* the hidden frame: the one before */
                    ok = t->scale.kind == GANIM_CHANNEL_PER_FRAME && t->scale.count == 4 &&
                         !memcmp(t->scale.values, want, sizeof want);
                }
                CHECK_MSG(ok, "component %d, %s, %s: kind %d", comp, agree ? "agreeing" : "differing",
                          step ? "a float step" : "by 1", t ? (int)t->scale.kind : -1);
                ganim_doc_free(d);
                ganim_buffer_free(&glb);
                ganim_doc_free(doc);
            }
}

/* ---- errors ------------------------------------------------------------------------------- */

static void bad_json(const char *text, ganim_code want, const char *words)
{
    ganim_error e = { 0 };
    ganim_doc *d = NULL;
    ganim_read_opts o = { 0 };
    o.format = "gltf";
    ganim_code c = ganim_read_memory(text, strlen(text), &o, &d, &e);
    CHECK_MSG(c == want && strstr(e.message, words) && !strncmp(e.message, "gltf: ", 6), "'%.60s': %d '%s'", text, c,
              e.message);
    ganim_doc_free(d);
}

TEST(clear_errors)
{
    bad_json("{\"asset\":{\"version\":\"1.0\"}}", GANIM_ERR_UNSUPPORTED, "glTF 2.0");
    bad_json("{\"nodes\":[]}", GANIM_ERR_CORRUPT, "'asset'");
    bad_json("{\"asset\":{\"version\":\"2.0\"},", GANIM_ERR_TRUNCATED, "ends");
    bad_json("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[1]},{\"children\":[0]}]}", GANIM_ERR_CORRUPT,
             "own ancestor");
    bad_json("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[2]},{\"children\":[2]},{}]}",
             GANIM_ERR_CORRUPT, "child of both");
    bad_json("{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"rotation\":[0,0,1]}]}", GANIM_ERR_CORRUPT,
             "not 4 numbers");
    bad_json("{\"asset\":{\"version\":\"2.0\"},\"nodes\":{}}", GANIM_ERR_CORRUPT, "'nodes' is not an array");
    gb g = { 0 };
    const float t[3] = { 0, 1, -1 }, v[9] = { 0 };
    int it = gb_floats(&g, t, 3, "SCALAR"), iv = gb_floats(&g, v, 3, "VEC3");
    g.na +=
        (size_t)snprintf(g.acc + g.na, sizeof g.acc - g.na,
                         ",{\"bufferView\":1,\"byteOffset\":8,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}");
    int over = g.count++;
    char body[1024];
    snprintf(body, sizeof body,
             "%s,\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d}]}]",
             two_bones, it, over);
    ganim_buffer b;
    gb_finish(&g, body, 1, NULL, &b);
    ganim_error e = { 0 };
    read_built(&b, NULL, GANIM_ERR_CORRUPT, &e);
    CHECK(strstr(e.message, "do not fit in bufferView 1") != NULL);
    /* the same with a negative time */
    snprintf(body, sizeof body,
             "%s,\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
             "\"samplers\":[{\"input\":%d,\"output\":%d}]}]",
             two_bones, it, iv);
    ganim_buffer_free(&b);
    gb_finish(&g, body, 1, NULL, &b);
    read_built(&b, NULL, GANIM_ERR_CORRUPT, &e);
    CHECK(strstr(e.message, "-1 s") != NULL);
    /* the GLB cut short: its own reader's error */
    b.size -= 7;
    read_built(&b, NULL, GANIM_ERR_TRUNCATED, &e);
    CHECK(strstr(e.message, "GLB") != NULL);
    ganim_buffer_free(&b);
}

/* Inputs libFuzzer found (minimised, tests/data/regress/gltf): each must read, or fail
 * with a clean error that names the format. */
TEST(fuzz_regressions)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/data/regress/gltf", GANIM_SOURCE_DIR);
    char **files = test_list_dir(dir, "");
    int n = 0;
    for (char **p = files; p && *p; p++, n++) {
        size_t size;
        uint8_t *bytes = test_read_file(*p, &size);
        ganim_read_opts o = { 0 };
        o.format = "gltf";
        ganim_doc *d = NULL;
        ganim_error e = { 0 };
        ganim_code c = ganim_read_memory(bytes, size, &o, &d, &e);
        CHECK_MSG(c == GANIM_OK || (!strncmp(e.message, "gltf: ", 6) && e.code == c), "%s: %d '%s'", test_base_name(*p),
                  c, e.message);
        if (d) {
            ganim_buffer out = { 0 };
            (void)ganim_export_glb(d, NULL, &out, NULL);
            ganim_buffer_free(&out);
        }
        ganim_doc_free(d);
        free(bytes);
    }
    test_free_list(files);
    CHECK(n > 0);
}

/* ---- what ganim's exporter carries in extras.ganim ----------------------------------------- */

static const uint8_t rec_doc[4] = { 1, 2, 3, 4 }, rec_skel[2] = { 5, 6 }, rec_clip[3] = { 7, 8, 9 };
static const uint8_t slot_bytes[5] = { 9, 8, 7, 6, 5 };

/* A clip "body" that plays with its partner "weap" (other bones, fewer frames, events),
 * an opaque slot between them, and native records on the document, skeleton and clips.
 * The records are a registered format's (the glb names the document record's format as
 * its source when exported again), with bytes that mean nothing to it. */
static ganim_doc *carried_doc(void)
{
    static const char *const names[3] = { "root", "arm", "weapon" };
    ganim_doc *d = tb_doc(3, names);
    d->skeleton->bones[1].parent = 0;
    d->skeleton->bones[1].rest.translation.y = 2;
    uint32_t a = tb_clip(d, "body", 15, 3);
    uint32_t t = tb_track(d, a, 1, NULL, NULL);
    const float q[12] = { 0, 0, 0, 1, 0, 0.6f, 0, 0.8f, 0, 0.8f, 0, 0.6f };
    tb_channel(d, a, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 3, NULL, q);
    ganim_clip o = { 0 };
    o.name = "slot";
    o.kind = GANIM_CLIP_OPAQUE;
    o.fps = 15;
    o.opaque = slot_bytes;
    o.opaque_size = sizeof slot_bytes;
    o.native_format = "bvh";
    o.native = rec_doc;
    o.native_size = sizeof rec_doc;
    CHECK_OK(ganim_doc_add_clip(d, &o, NULL, NULL));
    uint32_t w = tb_clip(d, "weap", 15, 2);
    t = tb_track(d, w, 2, NULL, NULL);
    const float tr[6] = { 1, 2, 3, 4, 5, 6 };
    tb_channel(d, w, t, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 2, NULL, tr);
    const ganim_event ev[2] = { { 0.5f, 7 }, { 1, 3 } };
    CHECK_OK(ganim_doc_set_events(d, w, ev, 2, NULL));
    d->clips[a].partner = w + 1;
    d->clips[a].native_format = "bvh";
    d->clips[a].native = rec_clip;
    d->clips[a].native_size = sizeof rec_clip;
    d->format = ganim_format_find("bvh");
    d->native_format = "bvh";
    d->native = rec_doc;
    d->native_size = sizeof rec_doc;
    d->skeleton->native_format = "bvh";
    d->skeleton->native = rec_skel;
    d->skeleton->native_size = sizeof rec_skel;
    return d;
}

/* The glb `in` with the first `find` of its JSON replaced by `repl`. */
static int glb_edit(const ganim_buffer *in, const char *find, const char *repl, ganim_buffer *out)
{
    const uint8_t *d = in->data;
    size_t jlen = (size_t)d[12] | (size_t)d[13] << 8 | (size_t)d[14] << 16 | (size_t)d[15] << 24;
    char *j = malloc(jlen + strlen(repl) + 8);
    memcpy(j, d + 20, jlen);
    j[jlen] = 0;
    char *at = strstr(j, find);
    if (!at) {
        free(j);
        return 0;
    }
    size_t head = (size_t)(at - j), fl = strlen(find), rl = strlen(repl);
    memmove(at + rl, at + fl, jlen - head - fl + 1);
    memcpy(at, repl, rl);
    size_t n = jlen - fl + rl;
    while (n % 4) j[n++] = ' ';
    size_t rest = in->size - 20 - jlen, total = 20 + n + rest;
    uint8_t *o = malloc(total);
    memcpy(o, d, 20);
    for (int b = 0; b < 4; b++) {
        o[8 + b] = (uint8_t)(total >> (8 * b));
        o[12 + b] = (uint8_t)(n >> (8 * b));
    }
    memcpy(o + 20, j, n);
    memcpy(o + 20 + n, d + 20 + jlen, rest);
    free(j);
    memset(out, 0, sizeof *out);
    out->data = o;
    out->size = out->capacity = total;
    return 1;
}

static int has_record(const char *fmt, const uint8_t *p, size_t n, const uint8_t *want, size_t wn)
{
    return fmt && !strcmp(fmt, "bvh") && n == wn && !memcmp(p, want, n);
}

TEST(ganim_extras_carried)
{
    ganim_doc *d = carried_doc(), *b = NULL;
    ganim_buffer g1 = { 0 }, g2 = { 0 };
    CHECK_OK(ganim_export_glb(d, NULL, &g1, NULL));
    b = read_built(&g1, NULL, GANIM_OK, NULL);
    if (!b) goto out;
    CHECK_EQ_INT(b->warning_count, 0);
    CHECK_EQ_INT(b->clip_count, 3);
    CHECK(has_record(b->native_format, b->native, b->native_size, rec_doc, sizeof rec_doc));
    CHECK(has_record(b->skeleton->native_format, b->skeleton->native, b->skeleton->native_size, rec_skel,
                     sizeof rec_skel));
    if (b->clip_count == 3) {
        const ganim_clip *x = &b->clips[0], *o = &b->clips[1], *w = &b->clips[2];
        /* "body+weap" split back: each clip its own name, frames, tracks; the partner link */
        CHECK_EQ_STR(x->name, "body");
        CHECK_EQ_INT(x->frame_count, 3);
        CHECK_EQ_INT(x->partner, 3);
        CHECK(x->track_count == 1 && x->tracks[0].bone == 1 && x->tracks[0].rotation.kind == GANIM_CHANNEL_PER_FRAME &&
              x->tracks[0].translation.kind == GANIM_CHANNEL_ABSENT);
        CHECK(x->track_count == 1 && x->tracks[0].rotation.values[5] == 0.6f &&
              x->tracks[0].rotation.values[11] == 0.6f);
        CHECK(has_record(x->native_format, x->native, x->native_size, rec_clip, sizeof rec_clip));
        CHECK(o->kind == GANIM_CLIP_OPAQUE && !strcmp(o->name, "slot") && o->opaque_size == sizeof slot_bytes &&
              !memcmp(o->opaque, slot_bytes, sizeof slot_bytes));
        CHECK(has_record(o->native_format, o->native, o->native_size, rec_doc, sizeof rec_doc));
        CHECK_EQ_STR(w->name, "weap");
        CHECK_EQ_INT(w->frame_count, 2);
        CHECK_EQ_INT(w->partner, 0);
        CHECK(w->track_count == 1 && w->tracks[0].bone == 2 &&
              w->tracks[0].translation.kind == GANIM_CHANNEL_PER_FRAME && w->tracks[0].translation.count == 2 &&
              w->tracks[0].translation.values[5] == 6);
        CHECK(w->event_count == 2 && w->events[0].frame == 0.5f && w->events[0].id == 7 && w->events[1].id == 3);
        CHECK(!strcmp(w->native_format, "gltf")); /* no record of its own: the glTF reader's */
    }
    CHECK_OK(ganim_export_glb(b, NULL, &g2, NULL));
    CHECK_MSG(g1.size == g2.size && !memcmp(g1.data, g2.data, g1.size), "glb -> read -> glb: the bytes differ");
out:
    ganim_doc_free(b);
    ganim_doc_free(d);
    ganim_buffer_free(&g1);
    ganim_buffer_free(&g2);
}

/* Hostile extras: whatever they say, the read succeeds, says what it ignored, and gives a
 * valid document (the part that did not fit read as without the extras). */
TEST(ganim_extras_hostile)
{
    static const struct {
        const char *find, *repl;
        int clips;      /* clips read, -1: not checked */
        int doc_record; /* the document's record comes back */
    } cases[] = {
        { "\"base64\":\"AQIDBA==\"", "\"base64\":\"AQID!A==\"", 3, 0 },                       /* not base64 */
        { "\"base64\":\"AQIDBA==\"", "\"base64\":\"AQIDB\"", 3, 0 },                          /* not a multiple of 4 */
        { "\"base64\":\"AQIDBA==\"", "\"base64\":\"AQIDBB==\"", 3, 0 },                       /* bits past the data */
        { "\"size\":4,", "\"size\":4000000000000000,", 3, 0 },                                /* not its size */
        { "\"size\":4,", "\"size\":-4,", 3, 0 },                                              /* not a size */
        { "\"native_record\":{\"format\":\"bvh\"", "\"native_record\":{\"format\":7", 3, 0 }, /* wrong type */
        { "\"clips\":[", "\"clips\":{\"a\":1},\"was\":[", 2, 1 },              /* wrong type: not split */
        { "\"tracks\":[[1,", "\"tracks\":[[99,", 2, 1 },                       /* a bone not in the skeleton */
        { "\"tracks\":[[1,", "\"tracks\":[[1,0],[1,", 2, 1 },                  /* a bone twice */
        { "\"tracks\":[[1,", "\"tracks\":[[1,999999999999,\"x\"],[1,", 2, 1 }, /* channels out of range */
        { "{\"index\":0,", "{\"index\":-1,", 2, 1 },                           /* not an index */
        { "{\"index\":0,", "{\"index\":1e300,", 2, 1 },                        /* too large */
        { "{\"index\":0,", "{\"index\":2,", 2, 1 },                            /* the partner's index too */
        { "\"rotation_interp\":\"slerp\",\"tracks\"", "\"rotation_interp\":\"cubic\",\"tracks\"", 2, 1 },
        { "\"frame_count\":3,\"rotation_interp\":\"slerp\",\"tracks\"",
          "\"frame_count\":0,\"rotation_interp\":\"slerp\",\"tracks\"", 2, 1 },
        { "\"frame_count\":3,\"rotation_interp\":\"slerp\",\"tracks\"",
          "\"frame_count\":65535,\"rotation_interp\":\"slerp\",\"tracks\"", 2, 1 }, /* longer than the animation */
        { "\"events\":[[", "\"events\":[[-1,", -1, 1 },                             /* an event before frame 0 */
        { "\"events\":[[", "\"events\":[\"x\",[", -1, 1 },
        { "\"opaque_clips\":[", "\"opaque_clips\":[7,", 2, 1 }, /* the opaque clip is lost */
        { "\"opaque_clips\":[", "\"opaque_clips\":{},\"x\":[", 2, 1 },
        { "\"clip_count\":3", "\"clip_count\":\"3\"", 3, 1 },
        { "\"clip_count\":3", "\"clip_count\":99", 3, 1 }, /* the indices are not all kept */
        { "\"name\":\"slot\"", "\"name\":[]", 2, 1 },
    };
    static const struct {
        size_t at; /* the case */
        const char *where;
    } wheres[] = {
        { 0, "gltf: asset: extras.ganim: native_record is not base64 of its size; it is ignored" },
        { 6, "gltf: animation 0: extras.ganim: clips is not 1 or 2 clips; it is ignored" },
        { 8, "gltf: animation 0: extras.ganim: two tracks list the same bone; it is ignored" },
        { 20, "gltf: asset: extras.ganim: clip_count is not a count; it is ignored" },
    };
    ganim_doc *d = carried_doc();
    ganim_buffer g1 = { 0 };
    CHECK_OK(ganim_export_glb(d, NULL, &g1, NULL));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ganim_buffer g2 = { 0 }, g3 = { 0 };
        CHECK_MSG(glb_edit(&g1, cases[i].find, cases[i].repl, &g2), "case %zu: '%s' is not in the glb", i,
                  cases[i].find);
        if (!g2.data) continue;
        ganim_error e = { 0 };
        ganim_doc *b = NULL;
        CHECK_MSG(ganim_read_memory(g2.data, g2.size, NULL, &b, &e) == GANIM_OK, "case %zu: %s", i, e.message);
        if (b) {
            int said = 0;
            for (uint32_t k = 0; k < b->warning_count; k++)
                said |= strstr(b->warnings[k].message, "extras.ganim") != NULL ||
                        strstr(b->warnings[k].message, "indices") != NULL;
            CHECK_MSG(said, "case %zu (%s): no warning says what was ignored", i, cases[i].repl);
            /* the warning names the part it ignored, whole (written only when one is given) */
            for (size_t w = 0; w < sizeof wheres / sizeof wheres[0]; w++) {
                if (wheres[w].at != i) continue;
                int named = 0;
                for (uint32_t k = 0; k < b->warning_count; k++)
                    named |= strncmp(b->warnings[k].message, wheres[w].where, strlen(wheres[w].where)) == 0;
                for (uint32_t k = 0; !named && k < b->warning_count; k++)
                    fprintf(stderr, "  case %zu: %s\n", i, b->warnings[k].message);
                CHECK_MSG(named, "case %zu: no warning begins '%s'", i, wheres[w].where);
            }
            if (cases[i].clips >= 0)
                CHECK_MSG(b->clip_count == (uint32_t)cases[i].clips, "case %zu: %u clips, wanted %d", i, b->clip_count,
                          cases[i].clips);
            CHECK_MSG(cases[i].doc_record ==
                          has_record(b->native_format, b->native, b->native_size, rec_doc, sizeof rec_doc),
                      "case %zu: the document's record %s", i, cases[i].doc_record ? "is lost" : "came back");
            CHECK_MSG(ganim_export_glb(b, NULL, &g3, &e) == GANIM_OK, "case %zu: the document does not export: %s", i,
                      e.message);
        }
        ganim_doc_free(b);
        ganim_buffer_free(&g2);
        ganim_buffer_free(&g3);
    }
    ganim_doc_free(d);
    ganim_buffer_free(&g1);
}

/* A document record whose base64 holds every digit at every place of a group (bytes g, g,
 * g for g = 0..255) comes back byte for byte; one byte that is not a digit, at each place
 * of the first and last groups (where the reader takes two groups a turn, then one, then
 * the last with its padding), loses the record with a warning. */
TEST(base64_records_every_digit)
{
    static uint8_t rec[768];
    static char text[1025], find[48], repl[48];
    for (int g = 0; g < 256; g++) rec[3 * g] = rec[3 * g + 1] = rec[3 * g + 2] = (uint8_t)g;
    for (size_t i = 0, k = 0; i < sizeof rec; i += 3) {
        uint32_t v = (uint32_t)rec[i] << 16 | (uint32_t)rec[i + 1] << 8 | rec[i + 2];
        text[k++] = b64[v >> 18], text[k++] = b64[(v >> 12) & 63], text[k++] = b64[(v >> 6) & 63];
        text[k++] = b64[v & 63];
    }
    ganim_doc *d = carried_doc();
    d->native = rec;
    d->native_size = sizeof rec;
    ganim_buffer g1 = { 0 };
    CHECK_OK(ganim_export_glb(d, NULL, &g1, NULL));
    ganim_doc *b = read_built(&g1, NULL, GANIM_OK, NULL);
    CHECK(b && has_record(b->native_format, b->native, b->native_size, rec, sizeof rec));
    ganim_doc_free(b);
    static const char bad[] = { '*', '=', '-', '\x7f' };
    /* places 0..31 of the text (the 32 digits a turn of the AVX2 path), 992..1007 (the
     * 16 of the SSSE3 path after it), then its last 16 (the groups read one at a time) */
    for (int at = 0; at < 64; at++) {
        size_t from = at < 32 ? 0 : at < 48 ? 1024 - 32 : 1024 - 16, width = at < 32 ? 32 : 16;
        size_t place = at < 32 ? (size_t)at : (size_t)(at % 16);
        snprintf(find, sizeof find, "%s%.*s", from ? "" : "\"base64\":\"", (int)width, text + from);
        strcpy(repl, find);
        repl[strlen(repl) - width + place] = bad[at % 4];
        ganim_buffer g2 = { 0 };
        CHECK_MSG(glb_edit(&g1, find, repl, &g2), "place %d: not found", at);
        if (!g2.data) continue;
        b = read_built(&g2, NULL, GANIM_OK, NULL);
        CHECK_MSG(b && !has_record(b->native_format, b->native, b->native_size, rec, sizeof rec) &&
                      has_warning(b, GANIM_WARN_INCONSISTENT, "not base64"),
                  "place %d ('%c'): the record came back", at, bad[at % 4]);
        ganim_doc_free(b);
        ganim_buffer_free(&g2);
    }
    ganim_doc_free(d);
    ganim_buffer_free(&g1);
}

/* ---- memory: a large valid file in a small multiple of its size ----------------------- */

/* A skin of two nodes, then `filler` (a member of the root, or in a node's extras). */
static size_t big_gltf(char *out, size_t n, int where)
{
    size_t len = (size_t)sprintf(out, "{\"asset\":{\"version\":\"2.0\",\"extras\":{\"tool\":[");
    if (where == 0)
        for (size_t i = 0; i < n; i++) len += (size_t)sprintf(out + len, "%s%u", i ? "," : "", (unsigned)(i % 10));
    len += (size_t)sprintf(out + len, "]}},\"nodes\":[{\"name\":\"root\",\"children\":[1]},{\"name\":\"arm\","
                                      "\"translation\":[1,0,0],\"extras\":{\"weights\":[");
    if (where == 1)
        for (size_t i = 0; i < n; i++) len += (size_t)sprintf(out + len, "%s{}", i ? "," : "");
    len += (size_t)sprintf(out + len, "]}}],\"skins\":[{\"joints\":[0,1]}],\"materials\":[");
    if (where == 2)
        for (size_t i = 0; i < n; i++) len += (size_t)sprintf(out + len, "%s{\"name\":\"m\"}", i ? "," : "");
    len += (size_t)sprintf(out + len, "]}");
    return len;
}

TEST(large_json_in_bounded_memory)
{
    /* 10^6 numbers, 10^6 empty objects or 10^6 materials the reader does not read: each
     * file of 2 to 12 MB is read (its skeleton of two bones) in less than 8 bytes per
     * byte of JSON and 64 KiB, counting every allocation of the read */
    size_t n = 1000000;
    char *text = malloc(16 * n + 1024);
    CHECK(text != NULL);
    for (int where = 0; where < 3; where++) {
        size_t len = big_gltf(text, n, where);
        peak_alloc pk = { 0, 0 };
        ganim_read_opts o = { 0 };
        o.allocator = peak_allocator(&pk);
        o.format = "gltf";
        ganim_doc *doc = NULL;
        ganim_error e = { 0 };
        CHECK_MSG(ganim_read_memory(text, len, &o, &doc, &e) == GANIM_OK, "%d: %s", where, e.message);
        CHECK(doc && doc->skeleton && doc->skeleton->bone_count == 2);
        CHECK(doc && doc->skeleton && doc->skeleton->bones[1].rest.translation.x == 1.0f);
        ganim_doc_free(doc);
        CHECK_MSG(pk.live == 0, "%zu bytes left", pk.live);
        CHECK_MSG(pk.peak <= 8 * len + (64u << 10), "a %zu-byte file (%d) took %zu bytes", len, where, pk.peak);
    }
    /* 10^6 numbers where the reader keeps them (a node's children): refused at the bound,
     * which the error names, before taking more */
    size_t len = (size_t)sprintf(text, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"children\":[");
    for (size_t i = 0; i < n; i++) len += (size_t)sprintf(text + len, "%s0", i ? "," : "");
    len += (size_t)sprintf(text + len, "]}]}");
    peak_alloc pk = { 0, 0 };
    ganim_read_opts o = { 0 };
    o.allocator = peak_allocator(&pk);
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_read_memory(text, len, &o, &doc, &e) == GANIM_ERR_LIMIT && doc == NULL);
    CHECK_MSG(strstr(e.message, "in at most 8 bytes per byte") && strstr(e.message, "ganim_read_opts.memory_limit"),
              "%s", e.message);
    CHECK_MSG(pk.peak <= 8 * len + (64u << 10) + (1u << 20), "the refused %zu-byte file took %zu bytes", len, pk.peak);
    CHECK(pk.live == 0);
    /* and by the read's memory limit when it is lower */
    o.memory_limit = 1u << 20;
    CHECK(ganim_read_memory(text, len, &o, &doc, &e) == GANIM_ERR_LIMIT);
    CHECK_MSG(strstr(e.message, "more than 1048576 bytes"), "%s", e.message);
    free(text);
}

/* ---- the samplers stored with the tree, or parsed later: one read ---------------------- */

/* `bytes` read with the default memory limit (a text of up to 256 KiB: the samplers
 * stored with the rest of the tree) and with that limit given (the samplers parsed when
 * their animation is read, as for longer texts): the same code, offset and message, and
 * when read the same lossless dump (values, records, warnings). Returns 1 when read. */
static int together_as_later(const void *bytes, size_t size, const char *what)
{
    ganim_read_opts a = { 0 }, b = { 0 };
    a.format = b.format = "gltf";
    b.memory_limit = (size_t)1 << 30; /* the default limit, given */
    ganim_doc *da = NULL, *db = NULL;
    ganim_error ea = { 0 }, eb = { 0 };
    ganim_code ca = ganim_read_memory(bytes, size, &a, &da, &ea);
    ganim_code cb = ganim_read_memory(bytes, size, &b, &db, &eb);
    int same = ca == cb && ea.offset == eb.offset && !strcmp(ea.message, eb.message);
    if (same && ca == GANIM_OK) {
        ganim_buffer ja = { 0 }, jb = { 0 };
        ganim_error e = { 0 };
        same = ganim_export_json(da, NULL, &ja, &e) == GANIM_OK && ganim_export_json(db, NULL, &jb, &e) == GANIM_OK &&
               ja.size == jb.size && !memcmp(ja.data, jb.data, ja.size);
        ganim_buffer_free(&ja);
        ganim_buffer_free(&jb);
    }
    CHECK_MSG(same, "%s: stored with the tree %d (%s), parsed later %d (%s)", what, ca, ea.message, cb, eb.message);
    ganim_doc_free(da);
    ganim_doc_free(db);
    return ca == GANIM_OK;
}

/* A rotation that changes sign from frame to frame (the exporter writes the samplers'
 * negated ranges) and the carried records' document. */
static ganim_doc *negated_doc(void)
{
    static const char *const names[2] = { "root", "arm" };
    ganim_doc *d = tb_doc(2, names);
    d->skeleton->bones[1].parent = 0;
    uint32_t a = tb_clip(d, "flip", 15, 6);
    uint32_t t = tb_track(d, a, 1, NULL, NULL);
    const float q[24] = { 0, 0.6f, 0, 0.8f, 0, -0.6f, 0, -0.8f, 0, -0.6f, 0, -0.8f,
                          0, 0.8f, 0, 0.6f, 0, 0.8f,  0, 0.6f,  0, -0.8f, 0, -0.6f };
    tb_channel(d, a, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 6, NULL, q);
    return d;
}

/* gltf_members with a memo (the names known by their address, and an object whose names
 * are the last one's, at the same addresses, read where that one had them) against the
 * same call without one (each name compared): arrays of objects of a few shapes repeated,
 * with repeated names, shapes that begin others or differ from one only in the last name, an escaped name (the same text at another address), names that
 * are prefixes of others, objects of up to 11 members (past the memo's 8) and items that
 * are not objects. */
static uint8_t members_mem[1 << 20];
static size_t members_used;
static void *members_alloc(void *user, size_t size)
{
    (void)user;
    size = (size + 15u) & ~(size_t)15u;
    if (size > sizeof members_mem - members_used) return NULL;
    void *p = members_mem + members_used;
    members_used += size;
    return p;
}

/* text[0..at) parsed into members_mem (emptied first); NULL, and the test failed, if it
 * does not parse: the random JSON tests below make only valid text. */
static const gj_value *members_parse(const char *text, size_t at, int round)
{
    members_used = 0;
    gj_parser p = { .alloc = members_alloc, .max_depth = 8, .who = "test: JSON" };
    const gj_value *root = NULL;
    ganim_error e = { 0 };
    if (gj_parse(&p, (const uint8_t *)text, at, &root, &e) != GANIM_OK || !root) {
        CHECK_MSG(0, "round %d: %s", round, e.message);
        return NULL;
    }
    return root;
}

TEST(members_where_the_last_object_had_them)
{
    static const char *const pool[] = { "\"input\"", "\"output\"", "\"interpolation\"", "\"extras\"", "\"inputs\"",
                                        "\"in\"",    "\"x\"",      "\"inp\\u0075t\"",   "\"node\"",   "\"path\"" };
    static const char *const names4[] = { "interpolation", "input", "output", "extras" };
    static const char *const names8[] = { "input", "output", "in", "x", "node", "path", "inputs", "extras" };
    uint32_t seed = 12345u;
#define MEMBERS_RAND() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7FFFu)
    char *text = malloc(1 << 16);
    unsigned checked = 0, bad = 0;
    for (int round = 0; round < 400 && text; round++) {
        unsigned shapes[4][12], len[4];
        for (int k = 0; k < 4; k++) {
            len[k] = MEMBERS_RAND() % 12;
            for (unsigned m = 0; m < len[k]; m++) shapes[k][m] = MEMBERS_RAND() % 10;
        }
        if (round % 2) { /* a shape that begins another's */
            len[1] = len[0] / 2;
            memcpy(shapes[1], shapes[0], sizeof shapes[0]);
        }
        if (round % 4 == 2 && len[0]) { /* a shape that is another's but for its last name */
            len[2] = len[0];
            memcpy(shapes[2], shapes[0], sizeof shapes[0]);
            shapes[2][len[0] - 1] = (shapes[0][len[0] - 1] + 1) % 10;
        }
        size_t at = 0;
        text[at++] = '[';
        for (int o = 0; o < 40; o++) {
            if (o) text[at++] = ',';
            unsigned r = MEMBERS_RAND() % 16, k = r % 4;
            if (r == 15) {
                at += (size_t)sprintf(text + at, "%d", o);
                continue;
            }
            text[at++] = '{';
            for (unsigned m = 0; m < len[k]; m++)
                at += (size_t)sprintf(text + at, "%s%s:%u", m ? "," : "", pool[shapes[k][m]], m);
            text[at++] = '}';
        }
        text[at++] = ']';
        const gj_value *root = members_parse(text, at, round);
        if (!root) break;
        gltf_memo memo4, memo8;
        memset(&memo4, 0, sizeof memo4);
        memset(&memo8, 0, sizeof memo8);
        for (uint32_t o = 0; o < root->count; o++) {
            const gj_value *with[8], *without[8];
            gltf_members(&root->items[o], names4, with, 4, &memo4);
            gltf_members(&root->items[o], names4, without, 4, NULL);
            bad += memcmp(with, without, 4 * sizeof *with) != 0;
            gltf_members(&root->items[o], names8, with, 8, &memo8);
            gltf_members(&root->items[o], names8, without, 8, NULL);
            bad += memcmp(with, without, 8 * sizeof *with) != 0;
            checked += 2;
        }
    }
#undef MEMBERS_RAND
    free(text);
    CHECK_MSG(bad == 0 && checked == 400 * 40 * 2, "%u of %u calls differ", bad, checked);
}

/* gltf_top_members (the root's members in one walk, a key's one candidate by its first
 * bytes) against gj_get of each name: roots of 0-24 members drawn from the names, names a
 * byte longer or shorter, other names of the same first letters, escaped names (the same
 * text), the empty name, repeats (the first one wins); and values that are not objects. */
TEST(top_members_as_gj_get)
{
    static const char *const pool[] = { "\"asset\"",
                                        "\"nodes\"",
                                        "\"skins\"",
                                        "\"animations\"",
                                        "\"accessors\"",
                                        "\"bufferViews\"",
                                        "\"buffers\"",
                                        "\"meshes\"",
                                        "\"extensionsRequired\"",
                                        "\"extensionsUsed\"",
                                        "\"asse\"",
                                        "\"assets\"",
                                        "\"a\"",
                                        "\"\"",
                                        "\"an\"",
                                        "\"ac\"",
                                        "\"animation\"",
                                        "\"accessor\"",
                                        "\"accessorsX\"",
                                        "\"b\"",
                                        "\"buffer\"",
                                        "\"bufferView\"",
                                        "\"bufferViewsX\"",
                                        "\"buffersX\"",
                                        "\"e\"",
                                        "\"extensions\"",
                                        "\"extensionsUsedX\"",
                                        "\"extensionsRequire\"",
                                        "\"extensionsUse\"",
                                        "\"node\"",
                                        "\"nodesX\"",
                                        "\"n\"",
                                        "\"skin\"",
                                        "\"s\"",
                                        "\"scene\"",
                                        "\"scenes\"",
                                        "\"mesh\"",
                                        "\"m\"",
                                        "\"\\u0061sset\"",
                                        "\"buffer\\u0056iews\"",
                                        "\"extensions\\u0055sed\"",
                                        "\"nodes\\u0000\"",
                                        "\"zz\"",
                                        "\"Asset\"",
                                        "\"bufferviews\"" };
    const size_t npool = sizeof pool / sizeof *pool;
    uint32_t seed = 777u;
#define TOP_RAND() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7FFFu)
    char *text = malloc(1 << 14);
    unsigned checked = 0, bad = 0, found = 0;
    for (int round = 0; round < 3000 && text; round++) {
        size_t at = 0;
        unsigned kind = (unsigned)round % 50u;
        if (kind == 0) at += (size_t)sprintf(text, "[{\"asset\":1}]");
        else if (kind == 1) at += (size_t)sprintf(text, "7");
        else {
            unsigned members = TOP_RAND() % 25;
            text[at++] = '{';
            for (unsigned m = 0; m < members; m++)
                at += (size_t)sprintf(text + at, "%s%s:%u", m ? "," : "", pool[TOP_RAND() % npool], m);
            text[at++] = '}';
        }
        const gj_value *root = members_parse(text, at, round);
        if (!root) break;
        const gj_value *top[GLTF_TOP_MEMBERS];
        gltf_top_members(root, top);
        for (unsigned j = 0; j < GLTF_TOP_MEMBERS; j++) {
            const gj_value *want = gj_get(root, gltf_top_names[j]);
            bad += top[j] != want;
            found += want != NULL;
            checked++;
        }
    }
#undef TOP_RAND
    free(text);
    CHECK_MSG(bad == 0 && checked == 3000 * GLTF_TOP_MEMBERS && found > 5000, "%u of %u differ (%u found)", bad,
              checked, found);
}

TEST(samplers_together_or_later)
{
    /* other producers' files */
    static const char *const files[] = { "blender_crane.glb", "blender_rig_baked.glb", "blender_rig_sparse.glb",
                                         "fixture_pack.glb",  "threejs_run.glb",       "threejs_run.gltf" };
    unsigned read = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        ganim_buffer in = { 0 };
        ganim_error e = { 0 };
        CHECK_MSG(ganim_load_file(data(files[i]), NULL, 0, &in, &e) == GANIM_OK, "%s: %s", files[i], e.message);
        read += (unsigned)together_as_later(in.data, in.size, files[i]);
        ganim_buffer_free(&in);
    }
    /* ganim's own exports (extras: records, events, negated ranges), and of the samples
     * when GANIM_TESTDATA names them */
    ganim_doc *docs[2] = { carried_doc(), negated_doc() };
    ganim_buffer own[2] = { { 0 }, { 0 } };
    for (int k = 0; k < 2; k++) {
        CHECK_OK(ganim_export_glb(docs[k], NULL, &own[k], NULL));
        read += (unsigned)together_as_later(own[k].data, own[k].size, k ? "negated_doc" : "carried_doc");
        ganim_doc_free(docs[k]);
    }
    int negated = 0;
    for (size_t i = 0; i + 9 <= own[1].size && !negated; i++) negated = !memcmp(own[1].data + i, "\"negated\"", 9);
    CHECK_MSG(negated, "no negated range written");
    const char *td = getenv("GANIM_TESTDATA");
    static const char *const samples[] = { "ff7/humanoid_bkey0.da", "ff7/wrap_rotation.da",
                                           "argonaut/hp_style_2anims.bin", "acl/short_f16_r30_b33.acl",
                                           "alamo/RB_TLTower_Attack_00.ala" };
    for (size_t i = 0; td && *td && i < sizeof samples / sizeof *samples; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", td, samples[i]);
        ganim_doc *d = NULL;
        ganim_error e = { 0 };
        if (ganim_read_file(path, NULL, &d, &e) != GANIM_OK) continue; /* (not in this copy) */
        ganim_buffer b = { 0 };
        CHECK_OK(ganim_export_glb(d, NULL, &b, NULL));
        read += (unsigned)together_as_later(b.data, b.size, samples[i]);
        ganim_buffer_free(&b);
        ganim_doc_free(d);
    }
    CHECK_MSG(read >= 8, "only %u files read", read);
    /* every byte of the JSON of one export changed to one of 5 others: the same error at
     * the same byte, or the same document */
    static const uint8_t other[] = { '}', ']', '"', '0', 'x' };
    const ganim_buffer *g = &own[1];
    uint32_t json_len = 0;
    memcpy(&json_len, g->data + 12, 4); /* (a little-endian host: the other tests' too) */
    uint8_t *m = malloc(g->size);
    unsigned failed = 0, tried = 0;
    for (size_t at = 20; m && at < 20 + (size_t)json_len && at < g->size; at++)
        for (size_t k = 0; k < sizeof other; k++) {
            if (g->data[at] == other[k]) continue;
            memcpy(m, g->data, g->size);
            m[at] = other[k];
            char what[64];
            snprintf(what, sizeof what, "byte %zu as '%c'", at, other[k]);
            failed += !together_as_later(m, g->size, what);
            tried++;
        }
    CHECK_MSG(failed > tried / 4, "only %u of %u changed files refused", failed, tried);
    free(m);
    for (int k = 0; k < 2; k++) ganim_buffer_free(&own[k]);
    /* six animations whose samplers hold long arrays (extras.ganim.pad, 8,000 numbers):
     * stored together they pass the JSON bound (8 bytes per byte of text and 64 KiB),
     * each parsed later with the tree they do not: the file is read, as before */
    size_t cap = 1u << 20, n = 0;
    char *t = malloc(cap);
    n += (size_t)snprintf(t + n, cap - n, "{\"asset\":{\"version\":\"2.0\"},%s,\"animations\":[", two_bones);
    for (int a = 0; a < 6; a++) {
        n += (size_t)snprintf(t + n, cap - n,
                              "%s{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}],"
                              "\"samplers\":[{\"input\":0,\"output\":1,\"extras\":{\"ganim\":{\"pad\":[",
                              a ? "," : "");
        for (int i = 0; i < 8000; i++) t[n++] = '0', t[n++] = ',';
        n += (size_t)snprintf(t + n, cap - n, "0]}}}]}");
    }
    const char *tail = "],\"accessors\":[{\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
                       "{\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}]}";
    n += (size_t)snprintf(t + n, cap - n, "%s", tail);
    CHECK_MSG(n < (256u << 10), "%zu bytes", n);
    CHECK_MSG(together_as_later(t, n, "long samplers"), "the file of long samplers was not read");
    free(t);
}

int main(void)
{
    test_program_name = "test_gltf";
    RUN(blender_sparse_keys_match_blender_baked);
    RUN(blender_reexport_of_ganim_crane);
    RUN(threejs_binary_and_data_uri);
    RUN(cubicspline_known_answer);
    RUN(step_and_hold_keys);
    RUN(shared_times_changed_per_channel);
    RUN(values_read_where_they_are);
    RUN(zero_scale_frames_are_hidden);
    RUN(accessor_layouts);
    RUN(matrix_nodes_and_rates);
    RUN(node_members_in_any_order);
    RUN(skins);
    RUN(external_buffers);
    RUN(ganim_conversion_undone_or_kept);
    RUN(clear_errors);
    RUN(fuzz_regressions);
    RUN(ganim_extras_carried);
    RUN(ganim_extras_hostile);
    RUN(base64_records_every_digit);
    RUN(visibility_scales_told_apart);
    RUN(large_json_in_bounded_memory);
    RUN(samplers_together_or_later);
    RUN(members_where_the_last_object_had_them);
    RUN(top_members_as_gj_get);
    return test_finish();
}
