/* glTF exporter on hand-built documents: GLB layout, nodes and rest pose after the Z-up ->
 * Y-up conversion (expected values worked out by hand below), skin matrices, the bone
 * mesh bounds, animation samplers (times, values, step bits, visibility), errors.
 * Outputs are also written to <build>/test_export_out/ for the Khronos validator. */
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "export/export.h"
#include "support/tbuild.h"
#include "support/tjson.h"
#include "test.h"

static const double H = 0.70710678118654752440; /* sin 45 = cos 45 */

/* ---- a small glTF reader for the checks ------------------------------------------------- */

typedef struct gltf_file {
    tjson *json;
    const uint8_t *bin;
    size_t bin_size;
} gltf_file;

static uint32_t rd32(const uint8_t *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Parses a .glb and checks its layout (header, 4-byte aligned chunks, lengths). */
static int open_glb(const ganim_buffer *b, gltf_file *f)
{
    memset(f, 0, sizeof *f);
    CHECK(b->size >= 28);
    if (b->size < 28) return 0;
    CHECK_EQ_INT(rd32(b->data), 0x46546C67u);
    CHECK_EQ_INT(rd32(b->data + 4), 2);
    CHECK_EQ_INT(rd32(b->data + 8), b->size);
    uint32_t jlen = rd32(b->data + 12);
    CHECK_EQ_INT(rd32(b->data + 16), 0x4E4F534Au);
    CHECK_EQ_INT(jlen % 4, 0);
    CHECK_EQ_INT(b->size % 4, 0);
    if (20 + (size_t)jlen > b->size) return 0;
    char err[128] = "";
    f->json = tjson_parse((const char *)b->data + 20, jlen, err, sizeof err);
    CHECK_MSG(f->json != NULL, "GLB JSON does not parse: %s", err);
    size_t at = 20 + jlen;
    if (at < b->size) {
        CHECK(at + 8 <= b->size);
        uint32_t blen = rd32(b->data + at);
        CHECK_EQ_INT(rd32(b->data + at + 4), 0x004E4942u);
        CHECK_EQ_INT(blen % 4, 0);
        CHECK_EQ_INT(at + 8 + blen, b->size);
        f->bin = b->data + at + 8;
        f->bin_size = blen;
    }
    return f->json != NULL;
}

static const tjson *jpath(const tjson *v, const char *key, int index)
{
    const tjson *a = tjson_get(v, key);
    return index >= 0 ? tjson_at(a, (size_t)index) : a;
}

static int comps_of(const char *type)
{
    if (!strcmp(type, "SCALAR")) return 1;
    if (!strcmp(type, "VEC3")) return 3;
    if (!strcmp(type, "VEC4")) return 4;
    if (!strcmp(type, "MAT4")) return 16;
    return 0;
}

/* Float accessor `i` decoded into a malloc'd array; checks the bufferView arithmetic. */
static float *acc_floats(const gltf_file *f, int64_t i, uint32_t *count, int *comps)
{
    const tjson *a = jpath(f->json, "accessors", (int)i);
    CHECK(a != NULL);
    if (!a) return NULL;
    CHECK_EQ_INT(tjson_int(tjson_get(a, "componentType"), 0), 5126);
    *count = (uint32_t)tjson_int(tjson_get(a, "count"), 0);
    *comps = comps_of(tjson_str(tjson_get(a, "type"), ""));
    const tjson *v = jpath(f->json, "bufferViews", (int)tjson_int(tjson_get(a, "bufferView"), -1));
    CHECK(v != NULL);
    if (!v) return NULL;
    size_t off = (size_t)tjson_int(tjson_get(v, "byteOffset"), 0),
           len = (size_t)tjson_int(tjson_get(v, "byteLength"), 0);
    CHECK_EQ_INT(off % 4, 0);
    CHECK_EQ_INT(len, (size_t)*count * (size_t)*comps * 4);
    CHECK(off + len <= f->bin_size);
    if (off + len > f->bin_size || len != (size_t)*count * (size_t)*comps * 4) return NULL;
    float *out = malloc(len + 4);
    for (size_t k = 0; k < len / 4; k++) {
        uint32_t u = rd32(f->bin + off + k * 4);
        memcpy(&out[k], &u, 4);
    }
    return out;
}

/* min/max of the accessor must equal the data exactly (as float32). */
static void check_bounds(const gltf_file *f, int64_t i)
{
    uint32_t n;
    int c;
    float *v = acc_floats(f, i, &n, &c);
    const tjson *a = jpath(f->json, "accessors", (int)i);
    const tjson *mn = tjson_get(a, "min"), *mx = tjson_get(a, "max");
    CHECK_MSG(mn && mx, "accessor %lld has no min/max", (long long)i);
    if (!v || !mn || !mx) {
        free(v);
        return;
    }
    for (int k = 0; k < c; k++) {
        float lo = v[k], hi = v[k];
        for (uint32_t e = 1; e < n; e++) {
            if (v[e * c + k] < lo) lo = v[e * c + k];
            if (v[e * c + k] > hi) hi = v[e * c + k];
        }
        CHECK_EQ_INT((float)tjson_num(tjson_at(mn, k), NAN) == lo, 1);
        CHECK_EQ_INT((float)tjson_num(tjson_at(mx, k), NAN) == hi, 1);
    }
    free(v);
}

/* The sampler of animation `anim` targeting (node, path), or NULL. */
static const tjson *find_sampler(const gltf_file *f, int anim, int64_t node, const char *path)
{
    const tjson *an = jpath(f->json, "animations", anim), *ch = tjson_get(an, "channels");
    for (size_t i = 0; ch && i < ch->count; i++) {
        const tjson *tg = tjson_get(tjson_at(ch, i), "target");
        if (tjson_int(tjson_get(tg, "node"), -1) == node && !strcmp(tjson_str(tjson_get(tg, "path"), ""), path))
            return jpath(an, "samplers", (int)tjson_int(tjson_get(tjson_at(ch, i), "sampler"), -1));
    }
    return NULL;
}

static void save(const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/test_export_out", GANIM_BINARY_DIR);
    test_mkdir(path);
    snprintf(path, sizeof path, "%s/test_export_out/%s", GANIM_BINARY_DIR, name);
    FILE *fp = fopen(path, "wb");
    CHECK_MSG(fp != NULL, "cannot write %s", path);
    if (!fp) return;
    fwrite(data, 1, size, fp);
    fclose(fp);
}

/* ---- hand-made documents ---------------------------------------------------------------- */

static void set_q(float *dst, double ax, double ay, double az, double deg)
{
    double h = deg * 3.14159265358979323846 / 360.0, s = sin(h);
    dst[0] = (float)(ax * s), dst[1] = (float)(ay * s), dst[2] = (float)(az * s), dst[3] = (float)cos(h);
}

/* Z-up: "root" at (1,2,3), child "arm.L 01" at (0,2,0) under it. Clip "Wave" (10 fps,
 * 3 frames): root rotates 0/45/90 deg about Z (frame 1 stored with the opposite sign),
 * root translation constant (1,2,3); child rotation keyed at frames 0 and 2. */
static ganim_doc *make_doc_with(uint32_t frames, const uint8_t *vis0, const uint8_t *step0, const uint8_t *step1)
{
    const char *names[2] = { "root", "arm.L 01" };
    ganim_doc *doc = tb_doc(2, names);
    doc->axes = GANIM_AXES_Z_UP;
    ganim_skeleton sk = *doc->skeleton;
    sk.name = "rig";
    CHECK_OK(ganim_doc_set_skeleton(doc, &sk, NULL));
    ganim_bone *b = doc->skeleton->bones;
    b[0].rest.translation = (ganim_vec3){ 1, 2, 3 };
    b[1].parent = 0;
    b[1].rest.translation = (ganim_vec3){ 0, 2, 0 };
    ganim_clip slot = { 0 };
    slot.name = "slot";
    slot.kind = GANIM_CLIP_OPAQUE;
    slot.opaque = (const uint8_t *)"abc";
    slot.opaque_size = 3;
    CHECK_OK(ganim_doc_add_clip(doc, &slot, NULL, NULL));
    tb_clip(doc, "Wave", 10, frames);
    tb_track(doc, 1, 0, vis0, step0);
    float rot[4 * 8];
    for (uint32_t k = 0; k < frames; k++) set_q(rot + k * 4, 0, 0, 1, 45.0 * k);
    for (int k = 0; k < 4; k++) rot[4 + k] = -rot[4 + k];
    tb_channel(doc, 1, 0, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, frames, NULL, rot);
    const float tr[3] = { 1, 2, 3 };
    tb_channel(doc, 1, 0, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_CONSTANT, 1, NULL, tr);
    tb_track(doc, 1, 1, NULL, step1);
    float kt[2] = { 0, 2 }, kv[8];
    set_q(kv, 1, 0, 0, 0);
    set_q(kv + 4, 1, 0, 0, 60);
    tb_channel(doc, 1, 1, GANIM_TARGET_ROTATION, GANIM_CHANNEL_KEYED, 2, kt, kv);
    CHECK_OK(ganim_doc_validate(doc, NULL));
    return doc;
}

static ganim_doc *make_doc(void) { return make_doc_with(3, NULL, NULL, NULL); }

static void q_mul(const double a[4], const double b[4], double r[4])
{
    r[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    r[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* Bytes put in a fresh buffer as a caller would (malloc'd; the default allocator frees it). */
static void put_bytes(ganim_buffer *b, const char *s, size_t n)
{
    b->data = malloc(n);
    CHECK(b->data != NULL);
    if (!b->data) return;
    memcpy(b->data, s, n);
    b->size = b->capacity = n;
}

/* ---- tests ------------------------------------------------------------------------------ */

TEST(glb_layout_nodes_and_rest_pose)
{
    ganim_doc *doc = make_doc();
    ganim_buffer out = { 0 };
    ganim_export_opts o = { 0 };
    o.generator = "unit-test";
    ganim_error err = { 0 };
    CHECK_EQ_INT(ganim_export_glb(doc, &o, &out, &err), GANIM_OK);
    save("two_bones.glb", out.data, out.size);
    gltf_file f;
    if (!open_glb(&out, &f)) goto done;
    const tjson *j = f.json;
    CHECK_EQ_STR(tjson_str(jpath(j, "asset", -1) ? tjson_get(jpath(j, "asset", -1), "version") : NULL, ""), "2.0");
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_get(j, "asset"), "generator"), ""), "unit-test");
    const tjson *gx = tjson_get(tjson_get(tjson_get(j, "asset"), "extras"), "ganim");
    CHECK_EQ_STR(tjson_str(tjson_get(gx, "axes"), ""), "z-up");
    CHECK_EQ_STR(tjson_str(tjson_get(gx, "axis_conversion"), ""), "rotate -90 deg about X");
    CHECK_NEAR(tjson_num(tjson_get(gx, "unit_scale"), 0), 1, 0);
    CHECK_EQ_INT(tjson_get(gx, "source_format") && tjson_get(gx, "source_format")->type == TJSON_NULL, 1);
    /* nodes: root, arm_L_01, mesh node */
    const tjson *nodes = tjson_get(j, "nodes");
    CHECK_EQ_INT(nodes ? nodes->count : 0, 3);
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(nodes, 0), "name"), ""), "root");
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(nodes, 1), "name"), ""), "arm_L_01");
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_get(tjson_get(tjson_at(nodes, 1), "extras"), "ganim"), "name"), ""),
                 "arm.L 01");
    CHECK_EQ_INT(tjson_int(tjson_at(tjson_get(tjson_at(nodes, 0), "children"), 0), -1), 1);
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_at(nodes, 2), "mesh"), -1), 0);
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_at(nodes, 2), "skin"), -1), 0);
    const tjson *scene = tjson_at(tjson_get(j, "scenes"), 0);
    CHECK_EQ_INT(tjson_get(scene, "nodes") ? tjson_get(scene, "nodes")->count : 0, 2);
    CHECK_EQ_INT(tjson_int(tjson_at(tjson_get(scene, "nodes"), 0), -1), 0);
    CHECK_EQ_INT(tjson_int(tjson_at(tjson_get(scene, "nodes"), 1), -1), 2);
    /* root rest: identity rotation turned by -90 deg about X; (1,2,3) in Z-up -> (1,3,-2) */
    const tjson *r = tjson_get(tjson_at(nodes, 0), "rotation"), *tr = tjson_get(tjson_at(nodes, 0), "translation");
    CHECK_NEAR(tjson_num(tjson_at(r, 0), 9), -H, 1e-7);
    CHECK_NEAR(tjson_num(tjson_at(r, 1), 9), 0, 1e-7);
    CHECK_NEAR(tjson_num(tjson_at(r, 2), 9), 0, 1e-7);
    CHECK_NEAR(tjson_num(tjson_at(r, 3), 9), H, 1e-7);
    CHECK_NEAR(tjson_num(tjson_at(tr, 0), 9), 1, 1e-6);
    CHECK_NEAR(tjson_num(tjson_at(tr, 1), 9), 3, 1e-6);
    CHECK_NEAR(tjson_num(tjson_at(tr, 2), 9), -2, 1e-6);
    /* the child stays in its parent's frame */
    CHECK(tjson_get(tjson_at(nodes, 1), "rotation") == NULL);
    CHECK_NEAR(tjson_num(tjson_at(tjson_get(tjson_at(nodes, 1), "translation"), 1), 9), 2, 0);
    /* skin: inverse bind matrices undo the world rest pose; root world (1,3,-2), child (1,3,-4) */
    const tjson *skin = tjson_at(tjson_get(j, "skins"), 0);
    CHECK_EQ_INT(tjson_int(tjson_get(skin, "skeleton"), -1), 0);
    CHECK_EQ_INT(tjson_get(skin, "joints") ? tjson_get(skin, "joints")->count : 0, 2);
    uint32_t n;
    int c;
    float *ibm = acc_floats(&f, tjson_int(tjson_get(skin, "inverseBindMatrices"), -1), &n, &c);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(c, 16);
    if (ibm && n == 2) {
        const double world[2][3] = { { 1, 3, -2 }, { 1, 3, -4 } };
        for (int b = 0; b < 2; b++) {
            const float *m = ibm + b * 16; /* column-major */
            for (int row = 0; row < 3; row++) {
                double v = m[row] * world[b][0] + m[4 + row] * world[b][1] + m[8 + row] * world[b][2] + m[12 + row];
                CHECK_NEAR(v, 0, 1e-5);
            }
            CHECK_EQ_INT(m[3] == 0 && m[7] == 0 && m[11] == 0 && m[15] == 1, 1);
        }
        /* bind rotation of the root: inverse of Rx(-90) maps world +Y (up) back to local +Z */
        CHECK_NEAR(ibm[4 * 1 + 2], 1, 1e-6);
    }
    free(ibm);
    /* bone mesh: POSITION bounds match the data; every vertex near the bone segment */
    const tjson *prim = tjson_at(tjson_get(tjson_at(tjson_get(j, "meshes"), 0), "primitives"), 0);
    int64_t pos = tjson_int(tjson_get(tjson_get(prim, "attributes"), "POSITION"), -1);
    check_bounds(&f, pos);
    float *pv = acc_floats(&f, pos, &n, &c);
    CHECK_EQ_INT(n, 6 + 4); /* one stick root -> child, one tetrahedron on the leaf */
    if (pv) {
        for (uint32_t v = 0; v < n; v++) {
            CHECK_NEAR(pv[v * 3], 1, 0.2);
            CHECK(pv[v * 3 + 1] > 2.7 && pv[v * 3 + 1] < 3.3);
            CHECK(pv[v * 3 + 2] < -1.9 && pv[v * 3 + 2] > -4.2);
        }
    }
    free(pv);
    const tjson *ja = jpath(j, "accessors", (int)tjson_int(tjson_get(tjson_get(prim, "attributes"), "JOINTS_0"), -1));
    CHECK_EQ_INT(tjson_int(tjson_get(ja, "componentType"), 0), 5121);
    CHECK_EQ_INT(tjson_int(tjson_get(ja, "count"), 0), 10);
    const tjson *ia = jpath(j, "accessors", (int)tjson_int(tjson_get(prim, "indices"), -1));
    CHECK_EQ_INT(tjson_int(tjson_get(ia, "count"), 0), 24 + 12);
    /* bufferView targets only on mesh data; every view 4-byte aligned */
    const tjson *views = tjson_get(j, "bufferViews");
    int targets = 0;
    for (size_t i = 0; views && i < views->count; i++) {
        CHECK_EQ_INT(tjson_int(tjson_get(tjson_at(views, i), "byteOffset"), 1) % 4, 0);
        targets += tjson_get(tjson_at(views, i), "target") != NULL;
    }
    CHECK_EQ_INT(targets, 4);
    CHECK_EQ_INT(tjson_int(tjson_get(jpath(j, "buffers", 0), "byteLength"), 0), f.bin_size);
    CHECK(tjson_get(jpath(j, "buffers", 0), "uri") == NULL);
    tjson_free(f.json);
done:
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

TEST(animation_samplers_after_conversion)
{
    ganim_doc *doc = make_doc();
    ganim_buffer out = { 0 };
    ganim_export_opts o = { 0 };
    o.unit_scale = 0.5f;
    CHECK_OK(ganim_export_glb(doc, &o, &out, NULL));
    gltf_file f;
    if (!open_glb(&out, &f)) goto done;
    const tjson *anims = tjson_get(f.json, "animations");
    CHECK_EQ_INT(anims ? anims->count : 0, 1); /* the opaque slot is skipped */
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(anims, 0), "name"), ""), "Wave");
    CHECK_EQ_INT(tjson_int(tjson_get(tjson_get(tjson_get(tjson_at(anims, 0), "extras"), "ganim"), "clip_index"), -1),
                 1);
    /* root rotation: 3 keys at 0, 0.1, 0.2 s */
    const tjson *s = find_sampler(&f, 0, 0, "rotation");
    CHECK(s != NULL);
    CHECK_EQ_STR(tjson_str(tjson_get(s, "interpolation"), ""), "LINEAR");
    uint32_t n, n2;
    int c, c2;
    int64_t in = tjson_int(tjson_get(s, "input"), -1);
    float *t = acc_floats(&f, in, &n, &c);
    CHECK_EQ_INT(n, 3);
    if (t && n == 3) {
        CHECK_EQ_INT(t[0] == 0.0f && t[1] == 0.1f && t[2] == 0.2f, 1);
    }
    check_bounds(&f, in);
    free(t);
    float *q = acc_floats(&f, tjson_int(tjson_get(s, "output"), -1), &n, &c);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(c, 4);
    if (q && n == 3) {
        /* q' = C * q with C = -90 deg about X. Seen from the Y-up world, C q C^-1 must be
         * the same turn about +Y (Z-up's vertical): 0, 45, 90 deg about Y. */
        const double Ci[4] = { H, 0, 0, H }; /* C^-1 */
        for (int k = 0; k < 3; k++) {
            double qk[4] = { q[k * 4], q[k * 4 + 1], q[k * 4 + 2], q[k * 4 + 3] }, tmp[4];
            CHECK_NEAR(qk[0] * qk[0] + qk[1] * qk[1] + qk[2] * qk[2] + qk[3] * qk[3], 1, 1e-6);
            q_mul(qk, Ci, tmp);
            double h = 45.0 * k * 3.14159265358979323846 / 360.0;
            double e[4] = { 0, sin(h), 0, cos(h) };
            double d = tmp[0] * e[0] + tmp[1] * e[1] + tmp[2] * e[2] + tmp[3] * e[3];
            CHECK_NEAR(fabs(d), 1, 1e-6);
            /* sign continuity: no flip between consecutive keys although frame 1 was stored negated */
            if (k) {
                const float *p = q + (k - 1) * 4, *r = q + k * 4;
                CHECK(p[0] * r[0] + p[1] * r[1] + p[2] * r[2] + p[3] * r[3] > 0);
            }
        }
        /* key 2 by hand: (-h,0,0,h) * (0,0,h,h) = (-1/2, 1/2, 1/2, 1/2), h = sqrt(1/2) */
        CHECK_NEAR(fabs(q[8]), 0.5, 1e-6);
        CHECK_NEAR(q[8] * q[9], -0.25, 1e-6);
        CHECK_NEAR(q[10] * q[11], 0.25, 1e-6);
        CHECK_NEAR(q[8] * q[11], -0.25, 1e-6);
    }
    free(q);
    /* constant root translation: 2 keys spanning the clip; (1,2,3) -> (1,3,-2) * 0.5 */
    s = find_sampler(&f, 0, 0, "translation");
    CHECK(s != NULL);
    t = acc_floats(&f, tjson_int(tjson_get(s, "input"), -1), &n, &c);
    CHECK_EQ_INT(n, 2);
    if (t && n == 2) CHECK_EQ_INT(t[0] == 0.0f && t[1] == 0.2f, 1);
    free(t);
    float *v = acc_floats(&f, tjson_int(tjson_get(s, "output"), -1), &n, &c);
    CHECK_EQ_INT(n, 2);
    if (v && n == 2) {
        for (int k = 0; k < 2; k++) {
            CHECK_NEAR(v[k * 3], 0.5, 1e-7);
            CHECK_NEAR(v[k * 3 + 1], 1.5, 1e-7);
            CHECK_NEAR(v[k * 3 + 2], -1, 1e-7);
        }
    }
    free(v);
    /* child: keyed at frames 0 and 2 (0 and 60 deg about X), baked on every frame: 0, 0.1
     * and 0.2 s, frame 1 the slerp half way (30 deg), values unchanged (not a root); the
     * stored keys are named in the sampler's extras */
    s = find_sampler(&f, 0, 1, "rotation");
    CHECK(s != NULL);
    t = acc_floats(&f, tjson_int(tjson_get(s, "input"), -1), &n, &c);
    v = acc_floats(&f, tjson_int(tjson_get(s, "output"), -1), &n2, &c2);
    CHECK_EQ_INT(n, 3);
    CHECK_EQ_INT(n2, 3);
    if (t && v && n == 3 && n2 == 3) {
        CHECK_EQ_INT(t[0] == 0.0f && t[1] == 0.1f && t[2] == 0.2f, 1);
        CHECK_NEAR(v[4], sin(15 * 3.14159265358979323846 / 180), 1e-7);
        CHECK_NEAR(v[7], cos(15 * 3.14159265358979323846 / 180), 1e-7);
        CHECK_NEAR(v[8], sin(30 * 3.14159265358979323846 / 180), 1e-7);
        CHECK_NEAR(v[11], cos(30 * 3.14159265358979323846 / 180), 1e-7);
    }
    const tjson *kept = tjson_get(tjson_get(tjson_get(s, "extras"), "ganim"), "keys");
    CHECK(kept && kept->count == 2);
    if (kept && kept->count == 2) {
        CHECK_EQ_INT(tjson_int(tjson_at(tjson_at(kept, 0), 0), -1), 0);
        CHECK_EQ_INT(tjson_int(tjson_at(tjson_at(kept, 0), 1), -1), 0);
        CHECK_EQ_INT(tjson_int(tjson_at(tjson_at(kept, 1), 0), -1), 2);
        CHECK_EQ_INT(tjson_int(tjson_at(tjson_at(kept, 1), 1), -1), 2);
    }
    free(t);
    free(v);
    /* node rest translation also scaled */
    CHECK_NEAR(tjson_num(tjson_at(tjson_get(jpath(f.json, "nodes", 1), "translation"), 1), 0), 1, 0);
    /* every animation input accessor has min/max */
    const tjson *sm = tjson_get(tjson_at(anims, 0), "samplers");
    for (size_t i = 0; sm && i < sm->count; i++) check_bounds(&f, tjson_int(tjson_get(tjson_at(sm, i), "input"), -1));
    tjson_free(f.json);
done:
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

TEST(keep_axes_and_gltf_with_external_buffer)
{
    ganim_doc *doc = make_doc();
    ganim_buffer js = { 0 }, bin = { 0 };
    ganim_export_opts o = { 0 };
    o.keep_axes = 1;
    o.bin_uri = "my anim.bin";
    CHECK_OK(ganim_export_gltf(doc, &o, &js, &bin, NULL));
    save("two_bones.gltf", js.data, js.size);
    save("my anim.bin", bin.data, bin.size);
    tjson *j = tjson_parse((const char *)js.data, js.size, NULL, 0);
    CHECK(j != NULL);
    CHECK_EQ_STR(tjson_str(tjson_get(jpath(j, "buffers", 0), "uri"), ""), "my%20anim.bin");
    CHECK_EQ_INT(tjson_int(tjson_get(jpath(j, "buffers", 0), "byteLength"), 0), bin.size);
    CHECK_EQ_INT(bin.size % 4, 0);
    CHECK_EQ_STR(
        tjson_str(tjson_get(tjson_get(tjson_get(tjson_get(j, "asset"), "extras"), "ganim"), "axis_conversion"), ""),
        "identity");
    /* no conversion: rest translation as in the file, no rotation written */
    const tjson *n0 = jpath(j, "nodes", 0);
    CHECK(tjson_get(n0, "rotation") == NULL);
    CHECK_NEAR(tjson_num(tjson_at(tjson_get(n0, "translation"), 2), 0), 3, 0);
    CHECK_EQ_STR(tjson_str(tjson_get(tjson_get(j, "asset"), "generator"), ""), "ganim " GANIM_VERSION_STRING);
    tjson_free(j);
    ganim_buffer_free(&js);
    ganim_buffer_free(&bin);
    ganim_doc_free(doc);
}

/* Step bits on some frames become hold keys; on every frame, a STEP sampler. Visibility
 * becomes STEP scale keys (0 when hidden). */
/* t is the largest float32 not after `exact` seconds */
static int at_or_before(float t, double exact) { return (double)t <= exact && (double)nextafterf(t, INFINITY) > exact; }

TEST(step_bits_and_visibility)
{
    static const uint8_t step[4] = { 0, 1, 0, 0 }; /* hold frame 1 until frame 2 */
    static const uint8_t vis[4] = { 1, 1, 0, 1 };  /* hidden on frame 2 */
    static const uint8_t all[4] = { 1, 1, 1, 1 };
    ganim_doc *doc = make_doc_with(4, vis, step, all);
    float rot[16];
    for (int k = 0; k < 4; k++) set_q(rot + k * 4, 0, 0, 1, 10.0 * k);
    tb_channel(doc, 1, 0, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 4, NULL, rot);
    float sc[12];
    for (int k = 0; k < 12; k++) sc[k] = 2;
    tb_channel(doc, 1, 0, GANIM_TARGET_SCALE, GANIM_CHANNEL_PER_FRAME, 4, NULL, sc);
    CHECK_OK(ganim_doc_validate(doc, NULL));
    ganim_buffer out = { 0 };
    CHECK_OK(ganim_export_glb(doc, NULL, &out, NULL));
    save("step_visibility.glb", out.data, out.size);
    gltf_file f;
    if (!open_glb(&out, &f)) goto done;
    const tjson *s = find_sampler(&f, 0, 0, "rotation");
    CHECK_EQ_STR(tjson_str(tjson_get(s, "interpolation"), ""), "LINEAR");
    uint32_t n, n2;
    int cc;
    float *tm = acc_floats(&f, tjson_int(tjson_get(s, "input"), -1), &n, &cc);
    float *q = acc_floats(&f, tjson_int(tjson_get(s, "output"), -1), &n2, &cc);
    CHECK_EQ_INT(n, 5);
    CHECK_EQ_INT(n2, 5);
    if (tm && q && n == 5 && n2 == 5) {
        /* keys 0, 0.1, (0.2 - 1 ulp, value of frame 1), 0.2, 0.3: a track with hold keys
         * has each time the largest float32 not after the frame's (a client evaluating
         * frame 2 at 0.2 s in double must be past the hold) */
        CHECK(at_or_before(tm[0], 0) && at_or_before(tm[1], 0.1) && at_or_before(tm[3], 0.2) &&
              at_or_before(tm[4], 0.3));
        CHECK(tm[2] == nextafterf(tm[3], -INFINITY));
        for (int k = 0; k < 4; k++) CHECK_EQ_INT(q[8 + k] == q[4 + k], 1);
        CHECK(q[12 + 2] != q[8 + 2]);
    }
    free(tm);
    free(q);
    /* visibility: scale 2 when visible, 0 on frame 2, STEP on the frame times */
    s = find_sampler(&f, 0, 0, "scale");
    CHECK_EQ_STR(tjson_str(tjson_get(s, "interpolation"), ""), "STEP");
    float *sv = acc_floats(&f, tjson_int(tjson_get(s, "output"), -1), &n, &cc);
    tm = acc_floats(&f, tjson_int(tjson_get(s, "input"), -1), &n2, &cc);
    CHECK_EQ_INT(n, 4);
    CHECK_EQ_INT(n2, 4);
    for (uint32_t k = 0; tm && k < n2 && k < 4; k++) CHECK(at_or_before(tm[k], k / 10.0));
    if (sv && n == 4) {
        static const float expect[4] = { 2, 2, 0, 2 };
        for (int k = 0; k < 4; k++)
            for (int a = 0; a < 3; a++) CHECK_NEAR(sv[k * 3 + a], expect[k], 0);
    }
    free(sv);
    free(tm);
    /* child: every frame steps -> STEP, keys unchanged */
    s = find_sampler(&f, 0, 1, "rotation");
    CHECK_EQ_STR(tjson_str(tjson_get(s, "interpolation"), ""), "STEP");
    tm = acc_floats(&f, tjson_int(tjson_get(s, "input"), -1), &n, &cc);
    CHECK_EQ_INT(n, 2);
    free(tm);
    tjson_free(f.json);
    ganim_buffer_free(&out);
    /* GANIM_VIS_IGNORE: the plain scale channel, LINEAR */
    ganim_export_opts o = { 0 };
    o.visibility = GANIM_VIS_IGNORE;
    CHECK_OK(ganim_export_glb(doc, &o, &out, NULL));
    if (open_glb(&out, &f)) {
        s = find_sampler(&f, 0, 0, "scale");
        CHECK_EQ_STR(tjson_str(tjson_get(s, "interpolation"), ""), "LINEAR");
        tjson_free(f.json);
    }
done:
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* Several root bones (a flat skeleton): a common root node carries the skin. */
TEST(flat_skeleton_gets_a_common_root)
{
    const char *names[3] = { "a", "a", "" };
    ganim_doc *doc = tb_doc(3, names);
    for (int i = 0; i < 3; i++) doc->skeleton->bones[i].flags = GANIM_BONE_SYNTH;
    tb_clip(doc, "", 30, 1); /* no tracks: with sparse keys, a 1-key channel keeps the clip */
    ganim_buffer out = { 0 };
    ganim_export_opts so = { 0 };
    so.sparse_keys = 1;
    CHECK_OK(ganim_export_glb(doc, &so, &out, NULL));
    save("flat.glb", out.data, out.size);
    gltf_file f;
    if (open_glb(&out, &f)) {
        const tjson *nodes = tjson_get(f.json, "nodes");
        CHECK_EQ_INT(nodes ? nodes->count : 0, 5);
        CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(nodes, 0), "name"), ""), "a");
        CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(nodes, 1), "name"), ""), "a_1");
        CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(nodes, 2), "name"), ""), "bone_2");
        CHECK_EQ_STR(tjson_str(tjson_get(tjson_at(nodes, 3), "name"), ""), "ganim_root");
        CHECK_EQ_INT(tjson_get(tjson_at(nodes, 3), "children")->count, 3);
        CHECK_EQ_INT(tjson_int(tjson_get(jpath(f.json, "skins", 0), "skeleton"), -1), 3);
        const tjson *an = jpath(f.json, "animations", 0);
        CHECK_EQ_STR(tjson_str(tjson_get(an, "name"), ""), "clip_0");
        CHECK_EQ_INT(tjson_get(an, "channels")->count, 1);
        const tjson *s = jpath(an, "samplers", 0);
        uint32_t n;
        int c;
        float *t = acc_floats(&f, tjson_int(tjson_get(s, "input"), -1), &n, &c);
        CHECK_EQ_INT(n, 1);
        free(t);
        tjson_free(f.json);
    }
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

TEST(errors)
{
    ganim_doc *doc = make_doc();
    ganim_buffer out = { 0 };
    ganim_error err = { 0 };
    ganim_export_opts o = { 0 };
    o.only_clip = 1 + 0; /* clip 0: the opaque slot */
    CHECK_EQ_INT(ganim_export_glb(doc, &o, &out, &err), GANIM_ERR_INVALID_ARG);
    o.only_clip = 1 + 7; /* no clip 7 */
    CHECK_EQ_INT(ganim_export_glb(doc, &o, &out, &err), GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(out.size, 0);
    /* a key that overflows float32 after the unit scale: named in the error, no output */
    float *tr = (float *)doc->clips[1].tracks[0].translation.values;
    tr[0] = 1e30f;
    o.only_clip = 0;
    o.unit_scale = 1e10f;
    doc->skeleton->bones[0].rest.translation.x = 0;
    CHECK_EQ_INT(ganim_export_glb(doc, &o, &out, &err), GANIM_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "Wave") && strstr(err.message, "translation"), "message: %s", err.message);
    CHECK_EQ_INT(out.size, 0);
    ganim_buffer js = { 0 }, bin = { 0 };
    CHECK_EQ_INT(ganim_export_gltf(doc, &o, &js, &bin, &err), GANIM_ERR_CORRUPT);
    CHECK_EQ_INT(js.size + bin.size, 0);
    ganim_buffer_free(&js);
    ganim_buffer_free(&bin);
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
    CHECK_EQ_INT(ganim_export_glb(NULL, NULL, &out, &err), GANIM_ERR_INVALID_ARG);
}

/* ganim_export_glb_parts: the head (header, JSON chunk, BIN chunk header) and the binary
 * chunk, which written one after the other are the .glb byte for byte; appended to what
 * the buffers held; after a failure both buffers are as they were. */
TEST(glb_in_two_parts)
{
    ganim_doc *doc = make_doc();
    ganim_buffer whole = { 0 }, head = { 0 }, bin = { 0 };
    ganim_export_opts o = { 0 };
    o.generator = "unit-test";
    CHECK_OK(ganim_export_glb(doc, &o, &whole, NULL));
    CHECK_OK(ganim_export_glb_parts(doc, &o, &head, &bin, NULL));
    CHECK(head.size >= 28 && bin.size > 0);
    if (head.size < 28 || !bin.size) goto done;
    CHECK_EQ_INT(head.size + bin.size, whole.size);
    CHECK(memcmp(head.data, whole.data, head.size) == 0);
    CHECK(memcmp(bin.data, whole.data + head.size, bin.size) == 0);
    /* the head ends with the BIN chunk's header, whose length is the binary part's */
    CHECK_EQ_INT(rd32(head.data + 8), head.size + bin.size);
    CHECK_EQ_INT(rd32(head.data + head.size - 8), bin.size);
    CHECK_EQ_INT(rd32(head.data + head.size - 4), 0x004E4942u);
    CHECK_EQ_INT(12 + 8 + rd32(head.data + 12) + 8, head.size);
    CHECK_EQ_INT(bin.size % 4, 0);
    /* appended: after 5 bytes already in each buffer */
    {
        ganim_buffer h2 = { 0 }, b2 = { 0 };
        put_bytes(&h2, "hello", 5);
        put_bytes(&b2, "world", 5);
        CHECK_OK(ganim_export_glb_parts(doc, &o, &h2, &b2, NULL));
        CHECK_EQ_INT(h2.size, head.size + 5);
        CHECK_EQ_INT(b2.size, bin.size + 5);
        CHECK(h2.size == head.size + 5 && memcmp(h2.data, "hello", 5) == 0 &&
              memcmp(h2.data + 5, head.data, head.size) == 0);
        CHECK(b2.size == bin.size + 5 && memcmp(b2.data, "world", 5) == 0 &&
              memcmp(b2.data + 5, bin.data, bin.size) == 0);
        /* a failure (no clip 7) leaves both as they were */
        ganim_error err = { 0 };
        o.only_clip = 1 + 7;
        CHECK_EQ_INT(ganim_export_glb_parts(doc, &o, &h2, &b2, &err), GANIM_ERR_INVALID_ARG);
        CHECK_EQ_INT(h2.size, head.size + 5);
        CHECK_EQ_INT(b2.size, bin.size + 5);
        ganim_buffer empty = { 0 }, empty_bin = { 0 };
        CHECK_EQ_INT(ganim_export_glb_parts(doc, &o, &empty, &empty_bin, &err), GANIM_ERR_INVALID_ARG);
        CHECK(empty.data == NULL && empty.size == 0 && empty_bin.data == NULL && empty_bin.size == 0);
        CHECK_EQ_INT(ganim_export_glb_parts(doc, &o, &empty, NULL, &err), GANIM_ERR_INVALID_ARG);
        ganim_buffer_free(&h2);
        ganim_buffer_free(&b2);
    }
done:
    ganim_buffer_free(&whole);
    ganim_buffer_free(&head);
    ganim_buffer_free(&bin);
    ganim_doc_free(doc);
}

/* ---- streamed export (ganim_export_glb_stream / ganim_export_gltf_stream) ---------------- */

/* A sink that puts each piece at its offset of its part's image and counts, per byte, how
 * often it came; it refuses call number `refuse_at` (0: none). */
typedef struct image_sink {
    uint8_t *data[2], *seen[2];
    size_t size[2], cap[2];
    int calls, refuse_at, calls_after_refusal, bad_part;
    size_t largest;
} image_sink;

static int image_put(void *user, uint32_t part, uint64_t offset, const void *data, size_t size)
{
    image_sink *s = user;
    if (s->refuse_at && s->calls >= s->refuse_at) s->calls_after_refusal++;
    if (++s->calls == s->refuse_at) return 1;
    if (part > 1 || offset > ((uint64_t)1 << 32)) {
        s->bad_part = 1;
        return 1;
    }
    size_t end = (size_t)offset + size;
    if (end > s->cap[part]) {
        size_t cap = end * 2;
        s->data[part] = realloc(s->data[part], cap);
        s->seen[part] = realloc(s->seen[part], cap);
        memset(s->seen[part] + s->cap[part], 0, cap - s->cap[part]);
        s->cap[part] = cap;
    }
    memcpy(s->data[part] + offset, data, size);
    for (size_t i = 0; i < size; i++) s->seen[part][offset + i]++;
    if (end > s->size[part]) s->size[part] = end;
    if (size > s->largest) s->largest = size;
    return 0;
}

static int has_text(const uint8_t *p, size_t n, const char *text)
{
    size_t k = strlen(text);
    for (size_t i = 0; i + k <= n; i++)
        if (!memcmp(p + i, text, k)) return 1;
    return 0;
}

/* Every byte of the part came exactly once and the image is `want`. */
static void check_image(const image_sink *s, int part, const ganim_buffer *want)
{
    CHECK_EQ_INT(s->size[part], want->size);
    if (s->size[part] != want->size) return;
    size_t once = 0;
    for (size_t i = 0; i < want->size; i++) once += s->seen[part][i] == 1;
    CHECK_EQ_INT(once, want->size);
    CHECK(want->size == 0 || memcmp(s->data[part], want->data, want->size) == 0);
}

static void image_free(image_sink *s)
{
    for (int i = 0; i < 2; i++) {
        free(s->data[i]);
        free(s->seen[i]);
    }
    memset(s, 0, sizeof *s);
}

/* 96 bones, three clips of 200 frames: a JSON and a binary buffer of several pieces. */
static ganim_doc *many_pieces_doc(void)
{
    ganim_doc *doc = tb_doc(96, NULL);
    for (uint32_t i = 1; i < 96; i++) {
        doc->skeleton->bones[i].parent = (int32_t)(i - 1);
        doc->skeleton->bones[i].rest.translation.y = 1;
    }
    float *r = malloc(200 * 4 * sizeof *r), *p = calloc(200 * 3, sizeof *p);
    for (uint32_t ci = 0; ci < 3; ci++) {
        tb_clip(doc, ci == 0 ? "walk" : ci == 1 ? "run" : "jump", 30, 200);
        for (uint32_t b = 0; b < 96; b++) {
            tb_track(doc, ci, b, NULL, NULL);
            for (int k = 0; k < 200; k++) {
                set_q(r + k * 4, 0, 1, 0, k * 0.5 + b + ci * 7);
                p[k * 3 + 1] = 1 + (float)ci;
            }
            tb_channel(doc, ci, b, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 200, NULL, r);
            tb_channel(doc, ci, b, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 200, NULL, p);
        }
    }
    free(r);
    free(p);
    return doc;
}

/* The streamed export hands over the bytes of ganim_export_glb / ganim_export_gltf, each
 * exactly once, in pieces of at most 64 KiB here; a failing document hands over nothing;
 * a sink's refusal stops it with GANIM_ERR_IO. */
TEST(streamed_export)
{
    ganim_doc *docs[3] = { make_doc(), many_pieces_doc(), NULL };
    CHECK_OK(ganim_doc_new(NULL, &docs[2], NULL)); /* no skeleton: no binary chunk */
    /* a skeleton record of 200,000 bytes: 266,668 digits of base64, made in blocks */
    static uint8_t record[200000];
    for (size_t i = 0; i < sizeof record; i++) record[i] = (uint8_t)(i * 7 + (i >> 9));
    docs[1]->skeleton->native_format = "unit-test";
    docs[1]->skeleton->native = record;
    docs[1]->skeleton->native_size = sizeof record;
    ganim_export_opts o = { 0 };
    o.generator = "unit-test";
    o.bin_uri = "x y.bin";
    for (int d = 0; d < 3; d++) {
        ganim_buffer whole = { 0 }, js = { 0 }, bin = { 0 };
        CHECK_OK(ganim_export_glb(docs[d], &o, &whole, NULL));
        CHECK_OK(ganim_export_gltf(docs[d], &o, &js, &bin, NULL));
        /* the streamed exports take two runs for the 2.3 MB guessed of docs[1] (GL_TWO_RUNS),
         * one for the others; ganim_export_glb and ganim_export_glb_parts always one: the
         * same bytes */
        ganim_buffer head = { 0 }, tail = { 0 };
        CHECK_OK(ganim_export_glb_parts(docs[d], &o, &head, &tail, NULL));
        CHECK(head.size + tail.size == whole.size && memcmp(head.data, whole.data, head.size) == 0 &&
              (!tail.size || memcmp(tail.data, whole.data + head.size, tail.size) == 0));
        ganim_buffer_free(&head);
        ganim_buffer_free(&tail);
        image_sink s = { 0 };
        CHECK_OK(ganim_export_glb_stream(docs[d], &o, image_put, &s, NULL));
        check_image(&s, 0, &whole);
        CHECK_EQ_INT(s.size[1], 0);
        CHECK(!s.bad_part && s.largest <= 64 * 1024);
        if (d == 1) {
            CHECK_MSG(whole.size > 1000000 && s.calls > 16, "%zu bytes in %d pieces", whole.size, s.calls);
            /* the record's digits (Python's base64 of the same bytes): the first 6 bytes'
             * and the last 2 bytes' (padded), at the ends of one string */
            CHECK(has_text(whole.data + 20, rd32(whole.data + 12), "\"AAcOFRwj"));
            CHECK(has_text(whole.data + 20, rd32(whole.data + 12), "OD8=\""));
        }
        image_free(&s);
        CHECK_OK(ganim_export_gltf_stream(docs[d], &o, image_put, &s, NULL));
        check_image(&s, 0, &js);
        check_image(&s, 1, &bin);
        CHECK(!s.bad_part && s.largest <= 64 * 1024);
        image_free(&s);
        ganim_buffer_free(&whole);
        ganim_buffer_free(&js);
        ganim_buffer_free(&bin);
    }
    /* the sink refuses its 1st, 2nd, 5th call: the export stops there */
    for (int k = 1; k <= 5; k += k == 1 ? 1 : 3) {
        image_sink s = { 0 };
        s.refuse_at = k;
        ganim_error err = { 0 };
        CHECK_EQ_INT(ganim_export_glb_stream(docs[1], &o, image_put, &s, &err), GANIM_ERR_IO);
        CHECK_MSG(strstr(err.message, "refused"), "message: %s", err.message);
        CHECK_EQ_INT(s.calls, k);
        CHECK_EQ_INT(s.calls_after_refusal, 0);
        image_free(&s);
    }
    /* refused by the document's values (no clip 7; a key over float32): nothing handed over */
    {
        image_sink s = { 0 };
        ganim_error err = { 0 };
        o.only_clip = 1 + 7;
        CHECK_EQ_INT(ganim_export_glb_stream(docs[0], &o, image_put, &s, &err), GANIM_ERR_INVALID_ARG);
        o.only_clip = 0;
        float *tr = (float *)docs[0]->clips[1].tracks[0].translation.values;
        tr[0] = 1e30f;
        o.unit_scale = 1e10f;
        docs[0]->skeleton->bones[0].rest.translation.x = 0;
        CHECK_EQ_INT(ganim_export_glb_stream(docs[0], &o, image_put, &s, &err), GANIM_ERR_CORRUPT);
        CHECK_EQ_INT(ganim_export_gltf_stream(docs[0], &o, image_put, &s, &err), GANIM_ERR_CORRUPT);
        CHECK_EQ_INT(s.calls, 0);
        CHECK_EQ_INT(ganim_export_glb_stream(docs[0], &o, NULL, &s, &err), GANIM_ERR_INVALID_ARG);
        CHECK_EQ_INT(ganim_export_glb_stream(NULL, &o, image_put, &s, &err), GANIM_ERR_INVALID_ARG);
        image_free(&s);
    }
    docs[1]->skeleton->native_format = NULL;
    docs[1]->skeleton->native = NULL;
    docs[1]->skeleton->native_size = 0;
    for (int d = 0; d < 3; d++) ganim_doc_free(docs[d]);
}

/* 64 bones (Z-up, bone 0 the root, the others in two chains under it), one clip of 1,000
 * frames (a guessed binary chunk of 2.56 MB: two runs): keyed rotations, translations and
 * scales with keys between frames (baked, with their stored keys' ranges), per-frame
 * translations on every third bone, a scale over half the float range interpolated from
 * one sign to the other, bones hidden on some frames (with and without a scale channel)
 * and step bits on two bones. */
static ganim_doc *measure_doc(ganim_rotation_interp interp)
{
    enum { NB = 64, FR = 1000, NK = 134 };
    ganim_doc *doc = tb_doc(NB, NULL);
    doc->axes = GANIM_AXES_Z_UP;
    for (uint32_t i = 1; i < NB; i++) {
        doc->skeleton->bones[i].parent = (int32_t)(i < 3 ? 0 : i - 2);
        doc->skeleton->bones[i].rest.translation.z = 0.5f;
        doc->skeleton->bones[i].rest.scale = (ganim_vec3){ 1, 2, 0.5f };
    }
    uint32_t ci = tb_clip(doc, "measure", 30, FR);
    doc->clips[ci].rotation_interp = interp;
    static float kt[NK], r[NK * 4], p[FR * 3], sc[NK * 3];
    static uint8_t vis[FR], step[FR];
    for (int k = 0; k < NK; k++) kt[k] = (float)(k * 7.5 + (k % 3) * 0.25); /* 0 .. 997.75, between frames */
    for (uint32_t b = 0; b < NB; b++) {
        for (int f = 0; f < FR; f++) {
            vis[f] = (uint8_t) !(b % 5 == 1 && f >= 300 + (int)b && f < 700);
            step[f] = (uint8_t)(f % 4 == 0);
        }
        int hides = b % 5 == 1, steps = b == 7 || b == 8;
        uint32_t t = tb_track(doc, ci, b, hides ? vis : NULL, steps ? step : NULL);
        for (int k = 0; k < NK; k++) {
            double ax = b % 2, len = sqrt(ax * ax + 1.25);
            set_q(r + k * 4, ax / len, 1 / len, 0.5 / len, k * 13.0 + b);
            if (k % 5 == 2) /* stored with the other sign */
                for (int i = 0; i < 4; i++) r[k * 4 + i] = -r[k * 4 + i];
            for (int i = 0; i < 3; i++)
                sc[k * 3 + i] = b == 9 ? (k % 2 ? 1.7e38f : -1.7e38f) : 1 + 0.01f * (float)(k % 7) + (float)i;
        }
        tb_channel(doc, ci, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_KEYED, NK, kt, r);
        if (b % 3 == 0) {
            for (int f = 0; f < FR * 3; f++) p[f] = (float)(f % 97) * 0.25f - 3 + (float)b;
            tb_channel(doc, ci, t, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, FR, NULL, p);
        } else {
            for (int f = 0; f < NK * 3; f++) p[f] = (float)(f % 11) * 1e3f - 5e3f + (float)b;
            tb_channel(doc, ci, t, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_KEYED, NK, kt, p);
        }
        if (b % 4 != 1) tb_channel(doc, ci, t, GANIM_TARGET_SCALE, GANIM_CHANNEL_KEYED, NK, kt, sc);
    }
    CHECK_OK(ganim_doc_validate(doc, NULL));
    return doc;
}

/* The streamed export's measuring run converts only what can fail or decides the JSON's
 * text: with and without the axes' turn, units that shrink and that enlarge, sparse keys,
 * visibility ignored and nlerp, the streamed .glb and .gltf are the one-run export's bytes;
 * and a value that fails only once converted fails the streamed export as it fails the
 * one-run export, with the same message, before a byte is handed over. */
TEST(streamed_measure)
{
    for (int v = 0; v < 7; v++) {
        ganim_doc *doc = measure_doc(v == 6 ? GANIM_INTERP_NLERP : GANIM_INTERP_SLERP);
        ganim_export_opts o = { 0 };
        o.generator = "unit-test";
        o.unit_scale = v == 1 ? 0.01f : v == 2 ? 100.0f : 0;
        o.keep_axes = v == 3;
        o.sparse_keys = v == 4;
        o.visibility = v == 5 ? GANIM_VIS_IGNORE : GANIM_VIS_SCALE;
        if (v == 2) doc->clips[0].tracks[9].scale.kind = GANIM_CHANNEL_ABSENT; /* 1.7e38 x 100 */
        ganim_buffer head = { 0 }, tail = { 0 }, js = { 0 }, bin = { 0 };
        CHECK_OK(ganim_export_glb_parts(doc, &o, &head, &tail, NULL));
        CHECK_OK(ganim_export_gltf(doc, &o, &js, &bin, NULL));
        CHECK_MSG(tail.size > (v == 4 ? 700000u : 2000000u), "variant %d: %zu bytes of binary chunk", v, tail.size);
        ganim_buffer whole = { 0 }; /* the .glb: its head, then its binary chunk */
        whole.data = malloc(head.size + tail.size);
        CHECK(whole.data != NULL);
        if (!whole.data) return;
        memcpy(whole.data, head.data, head.size);
        memcpy(whole.data + head.size, tail.data, tail.size);
        whole.size = head.size + tail.size;
        image_sink s = { 0 };
        CHECK_OK(ganim_export_glb_stream(doc, &o, image_put, &s, NULL));
        check_image(&s, 0, &whole);
        CHECK(s.calls >= 10);
        image_free(&s);
        CHECK_OK(ganim_export_gltf_stream(doc, &o, image_put, &s, NULL));
        check_image(&s, 0, &js);
        check_image(&s, 1, &bin);
        image_free(&s);
        if (v == 0) { /* what the measuring run skips is there: stored keys' ranges, visibility as STEP */
            CHECK(has_text(js.data, js.size, "\"keys\":[[0,0],[8,8],"));
            CHECK(has_text(js.data, js.size, "\"interpolation\":\"STEP\""));
            CHECK(has_text(js.data, js.size, "\"negated\":[["));
        }
        free(whole.data);
        ganim_buffer_free(&head);
        ganim_buffer_free(&tail);
        ganim_buffer_free(&js);
        ganim_buffer_free(&bin);
        ganim_doc_free(doc);
    }
    /* failures: a per-frame translation of a child, a keyed one (baked: the frames before
     * the key fail first) and the root's (turned) enlarged past float32 */
    for (int v = 0; v < 3; v++) {
        ganim_doc *doc = measure_doc(GANIM_INTERP_SLERP);
        ganim_export_opts o = { 0 };
        uint32_t tr = v == 0 ? 3 : v == 1 ? 4 : 0;
        float *t = (float *)doc->clips[0].tracks[tr].translation.values;
        t[3 * 40 + 1] = 1e30f;
        o.unit_scale = 1e10f;
        ganim_buffer head = { 0 }, tail = { 0 };
        ganim_error want = { 0 }, got = { 0 };
        ganim_code code = ganim_export_glb_parts(doc, &o, &head, &tail, &want);
        CHECK_MSG(code == GANIM_ERR_CORRUPT || code == GANIM_ERR_LIMIT, "variant %d: code %d (%s)", v, (int)code,
                  want.message);
        image_sink s = { 0 };
        CHECK_EQ_INT(ganim_export_glb_stream(doc, &o, image_put, &s, &got), code);
        CHECK_MSG(!strcmp(got.message, want.message), "variant %d: %s / %s", v, got.message, want.message);
        memset(&got, 0, sizeof got);
        CHECK_EQ_INT(ganim_export_gltf_stream(doc, &o, image_put, &s, &got), code);
        CHECK_MSG(!strcmp(got.message, want.message), "variant %d: %s / %s", v, got.message, want.message);
        CHECK_EQ_INT(s.calls, 0);
        image_free(&s);
        ganim_buffer_free(&head);
        ganim_buffer_free(&tail);
        ganim_doc_free(doc);
    }
}

/* A document without skeleton still gives a valid (empty) glTF. */
TEST(no_skeleton)
{
    ganim_doc *doc = NULL;
    CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
    ganim_buffer out = { 0 };
    CHECK_OK(ganim_export_glb(doc, NULL, &out, NULL));
    CHECK_EQ_INT(rd32(out.data + 8), out.size);
    gltf_file f;
    if (open_glb(&out, &f)) {
        CHECK(tjson_get(f.json, "buffers") == NULL);
        CHECK(tjson_get(f.json, "nodes") == NULL);
        tjson_free(f.json);
    }
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* 1301 frames x 96 bones in one clip (a long Alamo clip's size) must stay fast. */
TEST(big_clip)
{
    ganim_doc *doc = tb_doc(96, NULL);
    for (uint32_t i = 1; i < 96; i++) {
        doc->skeleton->bones[i].parent = (int32_t)(i - 1);
        doc->skeleton->bones[i].rest.translation.y = 1;
    }
    tb_clip(doc, "long", 30, 1301);
    float *r = malloc(1301 * 4 * sizeof *r), *p = calloc(1301 * 3, sizeof *p);
    for (uint32_t b = 0; b < 96; b++) {
        tb_track(doc, 0, b, NULL, NULL);
        for (int k = 0; k < 1301; k++) {
            set_q(r + k * 4, 0, 1, 0, k * 0.5 + b);
            p[k * 3 + 1] = 1;
        }
        tb_channel(doc, 0, b, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 1301, NULL, r);
        tb_channel(doc, 0, b, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 1301, NULL, p);
    }
    free(r);
    free(p);
    ganim_buffer out = { 0 };
    CHECK_OK(ganim_export_glb(doc, NULL, &out, NULL));
    save("big.glb", out.data, out.size);
    gltf_file f;
    if (open_glb(&out, &f)) {
        const tjson *an = jpath(f.json, "animations", 0);
        /* 96 rotations and translations, then every joint's rest scale (every joint keyed) */
        CHECK_EQ_INT(tjson_get(an, "channels")->count, 288);
        for (int i = 192; i < 288; i++) {
            const tjson *ch = jpath(an, "channels", i);
            CHECK_EQ_STR(tjson_str(tjson_get(tjson_get(ch, "target"), "path"), ""), "scale");
            CHECK_EQ_INT(tjson_int(tjson_get(tjson_get(ch, "target"), "node"), -1), i - 192);
        }
        /* one shared time accessor for all per-frame channels */
        int64_t in0 = tjson_int(tjson_get(jpath(an, "samplers", 0), "input"), -1);
        for (int i = 1; i < 192; i++) CHECK_EQ_INT(tjson_int(tjson_get(jpath(an, "samplers", i), "input"), -2), in0);
        tjson_free(f.json);
    }
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* Every joint of the skin is keyed by default: bones the clip leaves alone hold their rest
 * values (Blender would otherwise keep the pose of the last action played). */
TEST(every_joint_keyed_with_its_rest)
{
    ganim_doc *doc = tb_doc(3, NULL);
    ganim_bone *b = doc->skeleton->bones;
    b[1].parent = 0, b[2].parent = 1;
    b[1].rest.translation.y = 2;
    set_q(&b[1].rest.rotation.x, 0, 0, 1, 30);
    b[1].rest.scale.y = 2;
    b[2].rest.translation.x = 1;
    tb_clip(doc, "turn", 10, 4);
    float r[16];
    for (int k = 0; k < 4; k++) set_q(r + 4 * k, 1, 0, 0, 10.0 * k);
    tb_track(doc, 0, 2, NULL, NULL);
    tb_channel(doc, 0, 0, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 4, NULL, r);
    ganim_buffer out = { 0 };
    CHECK_OK(ganim_export_glb(doc, NULL, &out, NULL));
    gltf_file f;
    if (open_glb(&out, &f)) {
        const tjson *an = jpath(f.json, "animations", 0);
        CHECK_EQ_INT(tjson_get(an, "channels")->count, 9); /* 3 joints x (r, t, s) */
        int seen[3][3] = { { 0 } };
        for (size_t i = 0; i < tjson_get(an, "channels")->count; i++) {
            const tjson *ch = jpath(an, "channels", (int)i), *tg = tjson_get(ch, "target");
            int node = (int)tjson_int(tjson_get(tg, "node"), -1);
            const char *path = tjson_str(tjson_get(tg, "path"), "");
            int pi = !strcmp(path, "rotation") ? 0 : !strcmp(path, "translation") ? 1 : 2;
            CHECK(node >= 0 && node < 3);
            if (node < 0 || node > 2) continue;
            seen[node][pi]++;
            if (node == 2 && pi == 0) continue; /* the clip's own channel */
            const tjson *sm = jpath(an, "samplers", (int)tjson_int(tjson_get(ch, "sampler"), -1));
            uint32_t n, nt;
            int c, ct;
            float *t = acc_floats(&f, tjson_int(tjson_get(sm, "input"), -1), &nt, &ct);
            float *v = acc_floats(&f, tjson_int(tjson_get(sm, "output"), -1), &n, &c);
            CHECK_EQ_INT(nt, 2);
            CHECK_EQ_INT(n, 2);
            if (t && nt == 2) CHECK(t[0] == 0.0f && t[1] == 0.3f); /* the clip's span: 3 frames at 10 fps */
            static const float want[3][3][4] = {
                { { 0, 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } },
                { { 0, 0, 0.258819045f, 0.965925826f }, { 0, 2, 0 }, { 1, 2, 1 } },
                { { 0, 0, 0, 1 }, { 1, 0, 0 }, { 1, 1, 1 } },
            };
            for (uint32_t k = 0; v && k < n * (uint32_t)c; k++)
                CHECK_MSG(fabsf(v[k] - want[node][pi][k % (uint32_t)c]) < 1e-7f, "node %d %s value %u: %g", node, path,
                          k, (double)v[k]);
            free(t);
            free(v);
        }
        for (int i = 0; i < 3; i++)
            for (int k = 0; k < 3; k++) CHECK_MSG(seen[i][k] == 1, "node %d path %d: %d channels", i, k, seen[i][k]);
        tjson_free(f.json);
    }
    ganim_buffer_free(&out);
    ganim_export_opts so = { 0 };
    so.sparse_keys = 1; /* today's output: only what the clip animates */
    CHECK_OK(ganim_export_glb(doc, &so, &out, NULL));
    if (open_glb(&out, &f)) {
        CHECK_EQ_INT(tjson_get(jpath(f.json, "animations", 0), "channels")->count, 1);
        tjson_free(f.json);
    }
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* A clip and its partner (FF7: body animation i and weapon animation i) become one
 * animation as long as the longer of the two; the partner alone only when asked for. */
TEST(partner_clips_play_as_one)
{
    const char *names[2] = { "body", "weapon" };
    ganim_doc *doc = tb_doc(2, names);
    tb_clip(doc, "body_0", 10, 3);
    tb_clip(doc, "weapon_1", 10, 5);
    float r[12], p[15];
    for (int k = 0; k < 3; k++) set_q(r + 4 * k, 0, 1, 0, 20.0 * k);
    for (int k = 0; k < 5; k++) p[3 * k] = (float)k, p[3 * k + 1] = 0, p[3 * k + 2] = -(float)k;
    tb_track(doc, 0, 0, NULL, NULL);
    tb_channel(doc, 0, 0, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 3, NULL, r);
    tb_track(doc, 1, 1, NULL, NULL);
    tb_channel(doc, 1, 0, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 5, NULL, p);
    doc->clips[0].partner = 2;
    CHECK_OK(ganim_doc_validate(doc, NULL));
    ganim_buffer out = { 0 };
    ganim_export_opts so = { 0 };
    so.sparse_keys = 1;
    CHECK_OK(ganim_export_glb(doc, &so, &out, NULL));
    gltf_file f;
    if (open_glb(&out, &f)) {
        const tjson *anims = tjson_get(f.json, "animations"), *an = jpath(f.json, "animations", 0);
        CHECK_EQ_INT(anims ? anims->count : 0, 1);
        CHECK_EQ_STR(tjson_str(tjson_get(an, "name"), ""), "body_0+weapon_1");
        const tjson *ex = tjson_get(tjson_get(an, "extras"), "ganim");
        CHECK_EQ_INT(tjson_int(tjson_get(ex, "clip_index"), -1), 0);
        CHECK_EQ_INT(tjson_int(tjson_get(ex, "partner_clip_index"), -1), 1);
        CHECK_EQ_INT(tjson_int(tjson_get(ex, "frame_count"), -1), 5);
        CHECK_EQ_INT(tjson_get(an, "channels")->count, 2);
        const tjson *ch = jpath(an, "channels", 1), *sm = jpath(an, "samplers", 1);
        CHECK_EQ_INT(tjson_int(tjson_get(tjson_get(ch, "target"), "node"), -1), 1);
        CHECK_EQ_STR(tjson_str(tjson_get(tjson_get(ch, "target"), "path"), ""), "translation");
        uint32_t n, nt;
        int c, ct;
        float *t = acc_floats(&f, tjson_int(tjson_get(sm, "input"), -1), &nt, &ct);
        float *v = acc_floats(&f, tjson_int(tjson_get(sm, "output"), -1), &n, &c);
        CHECK_EQ_INT(nt, 5);
        CHECK_EQ_INT(n, 5);
        for (uint32_t k = 0; t && v && k < 5 && n == 5 && nt == 5; k++) {
            CHECK(t[k] == (float)(k / 10.0));
            CHECK(v[3 * k] == (float)k && v[3 * k + 1] == 0 && v[3 * k + 2] == -(float)k);
        }
        free(t);
        free(v);
        tjson_free(f.json);
    }
    ganim_buffer_free(&out);
    so.only_clip = 1 + 1; /* the weapon (clip 1) alone, as asked */
    CHECK_OK(ganim_export_glb(doc, &so, &out, NULL));
    if (open_glb(&out, &f)) {
        CHECK_EQ_INT(tjson_get(f.json, "animations")->count, 1);
        CHECK_EQ_STR(tjson_str(tjson_get(jpath(f.json, "animations", 0), "name"), ""), "weapon_1");
        tjson_free(f.json);
    }
    ganim_buffer_free(&out);
    /* BVH: one clip of 5 frames; the last line holds the body's last pose (20 deg about
     * Y) and the weapon at (4, 0, -4) */
    so.only_clip = 0;
    CHECK_OK(ganim_export_bvh(doc, &so, &out, NULL));
    char *text = calloc(1, out.size + 1);
    memcpy(text, out.data, out.size);
    CHECK(strstr(text, "Frames: 5\n") != NULL);
    char *last = text + out.size - 1;
    *last = 0;
    last = strrchr(text, '\n') + 1;
    double v[18];
    int got = sscanf(last, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1],
                     &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &v[14],
                     &v[15], &v[16], &v[17]);
    CHECK_EQ_INT(got, 18); /* ganim_root, body, weapon: 6 channels each */
    if (got == 18) {
        CHECK(v[12] == 4 && v[13] == 0 && v[14] == -4);
        CHECK(fabs(fabs(v[6 + 3 + 2]) - 40) < 1e-4 ||
              fabs(fabs(v[6 + 3 + 0]) + fabs(v[6 + 3 + 1]) + fabs(v[6 + 3 + 2]) - 40) < 1e-4);
    }
    free(text);
    ganim_buffer_free(&out);
    /* a partner at another rate is exported apart */
    doc->clips[1].fps = 20;
    CHECK_OK(ganim_export_glb(doc, &so, &out, NULL));
    if (open_glb(&out, &f)) {
        CHECK_EQ_INT(tjson_get(f.json, "animations")->count, 2);
        tjson_free(f.json);
    }
    ganim_buffer_free(&out);
    /* a partner that is not another animation without a partner: invalid */
    doc->clips[1].partner = 1;
    CHECK(ganim_doc_validate(doc, NULL) == GANIM_ERR_CORRUPT);
    ganim_doc_free(doc);
}

/* A half turn between two frames (a dot product of 0) after a key written negated: the
 * keys written keep the model's relative signs, so a client's slerp turns the way
 * ganim_clip_sample does; a leaf bone the skeleton hides gets a scale of 0 in every
 * animation, its stick is not drawn, and the scene records the clip's rate. */
TEST(half_turn_hidden_bone_and_scene_rate)
{
    const char *names[3] = { "root", "child", "hidden" };
    ganim_doc *doc = tb_doc(3, names);
    ganim_bone *b = doc->skeleton->bones;
    b[1].parent = 0;
    b[1].rest.translation = (ganim_vec3){ 0, 1, 0 };
    b[2].parent = 1;
    b[2].rest.translation = (ganim_vec3){ 0, 1, 0 };
    b[2].flags = GANIM_BONE_HIDDEN;
    tb_clip(doc, "turn", 12, 3);
    tb_track(doc, 0, 1, NULL, NULL);
    /* frame 0 identity; frame 1 dot -0.8 with it (written negated); frame 2 at exactly 0 with frame 1 */
    const float rot[12] = { 0, 0, 0, 1, 0, 0, 0.6f, -0.8f, 0, 0, 0.8f, 0.6f };
    tb_channel(doc, 0, 0, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 3, NULL, rot);
    CHECK_OK(ganim_doc_validate(doc, NULL));
    ganim_buffer out = { 0 };
    CHECK_OK(ganim_export_glb(doc, NULL, &out, NULL));
    gltf_file f;
    if (!open_glb(&out, &f)) goto done;
    const tjson *s = find_sampler(&f, 0, 1, "rotation");
    uint32_t n = 0;
    int cc = 0;
    float *q = acc_floats(&f, tjson_int(tjson_get(s, "output"), -1), &n, &cc);
    CHECK_EQ_INT(n, 3);
    ganim_transform pose[3];
    CHECK_OK(ganim_clip_sample(&doc->clips[0], doc->skeleton, 1.5 / 12, pose, NULL, NULL));
    if (q && n == 3) {
        /* keys 1 and 2 both negated: (0,0,-0.6,0.8), (0,0,-0.8,-0.6) */
        CHECK(q[6] < 0 && q[7] > 0 && q[10] < 0 && q[11] < 0);
        /* a client's slerp half way between keys 1 and 2 (dot 0: no flip): (k1 + k2) / sqrt 2 */
        double h[4], len = 0;
        for (int i = 0; i < 4; i++) h[i] = (double)q[4 + i] + q[8 + i], len += h[i] * h[i];
        len = sqrt(len);
        const float *g = &pose[1].rotation.x;
        double dot = 0;
        for (int i = 0; i < 4; i++) dot += h[i] / len * g[i];
        CHECK_NEAR(fabs(dot), 1, 1e-6); /* the same rotation as ganim's sampler at frame 1.5 */
    }
    free(q);
    /* the hidden leaf: scale 0 */
    s = find_sampler(&f, 0, 2, "scale");
    float *sc = acc_floats(&f, tjson_int(tjson_get(s, "output"), -1), &n, &cc);
    CHECK(sc && n >= 1);
    for (uint32_t k = 0; sc && k < n * 3; k++) CHECK_NEAR(sc[k], 0, 0);
    free(sc);
    /* the scene's extras: the rate and frame count */
    const tjson *ge = tjson_get(tjson_get(jpath(f.json, "scenes", 0), "extras"), "ganim");
    CHECK_NEAR(tjson_num(tjson_get(ge, "fps"), 0), 12, 0);
    CHECK_EQ_INT(tjson_int(tjson_get(ge, "frame_count"), 0), 3);
    tjson_free(f.json);
    /* read back: the zero scale is not a channel of the clip */
    ganim_doc *back = NULL;
    CHECK_OK(ganim_read_memory(out.data, out.size, NULL, &back, NULL));
    if (back) {
        CHECK_EQ_INT(back->clips[0].track_count, 1);
        ganim_doc_free(back);
    }
done:
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* unscaled_rest: nodes without scale, every joint's scale keyed with its rest scale (also
 * with sparse keys); sparse_keys keeps a keyed channel's stored keys (no baking). */
TEST(unscaled_rest_and_sparse_keyed)
{
    ganim_doc *doc = make_doc();
    doc->skeleton->bones[1].rest.scale = (ganim_vec3){ 2, 3, 4 };
    ganim_export_opts o = { 0 };
    o.unscaled_rest = 1;
    o.sparse_keys = 1;
    ganim_buffer out = { 0 };
    CHECK_OK(ganim_export_glb(doc, &o, &out, NULL));
    gltf_file f;
    if (!open_glb(&out, &f)) goto done;
    CHECK(tjson_get(jpath(f.json, "nodes", 1), "scale") == NULL);
    const tjson *s = find_sampler(&f, 0, 1, "scale");
    uint32_t n = 0;
    int cc = 0;
    float *v = acc_floats(&f, tjson_int(tjson_get(s, "output"), -1), &n, &cc);
    CHECK(v && n >= 1);
    if (v && n >= 1) CHECK_EQ_INT(v[0] == 2 && v[1] == 3 && v[2] == 4, 1);
    free(v);
    /* the keyed child rotation (frames 0 and 2): its 2 stored keys, no extras.ganim.keys */
    s = find_sampler(&f, 0, 1, "rotation");
    float *t = acc_floats(&f, tjson_int(tjson_get(s, "input"), -1), &n, &cc);
    CHECK_EQ_INT(n, 2);
    free(t);
    CHECK(tjson_get(tjson_get(tjson_get(s, "extras"), "ganim"), "keys") == NULL);
    tjson_free(f.json);
done:
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* extras.ganim.keys that do not name ascending ranges of keys are ignored with a warning:
 * every key written is kept (the baked channel comes back with a value per frame). */
TEST(stored_keys_that_do_not_fit)
{
    ganim_doc *doc = make_doc();
    static const char *const bad[3] = { "[           ]", "[[2,2],[0,0]]", "[[0,0],[2,9]]" };
    for (int i = 0; i < 3; i++) {
        ganim_buffer out = { 0 };
        CHECK_OK(ganim_export_glb(doc, NULL, &out, NULL));
        static const char key[] = "\"keys\":[[0,0],[2,2]]";
        uint8_t *at = NULL;
        for (size_t k = 0; !at && k + sizeof key - 1 <= out.size; k++)
            if (!memcmp(out.data + k, key, sizeof key - 1)) at = out.data + k;
        CHECK(at != NULL);
        if (at) memcpy(at + 7, bad[i], strlen(bad[i])); /* the same length */
        ganim_doc *back = NULL;
        ganim_error err = { 0 };
        CHECK_MSG(ganim_read_memory(out.data, out.size, NULL, &back, &err) == GANIM_OK, "case %d: %s", i, err.message);
        if (back) {
            int warned = 0;
            for (uint32_t w = 0; w < back->warning_count; w++)
                warned |= back->warnings[w].code == GANIM_WARN_IGNORED && strstr(back->warnings[w].message, "keys");
            CHECK_MSG(warned, "case %d: no warning", i);
            const ganim_track *t = NULL;
            for (uint32_t k = 0; k < back->clips[1].track_count; k++)
                if (back->clips[1].tracks[k].bone == 1) t = &back->clips[1].tracks[k];
            CHECK(t && t->rotation.count == 3);
            ganim_doc_free(back);
        }
        ganim_buffer_free(&out);
    }
    ganim_doc_free(doc);
}

/* Rotation keys as written, by the exporter's rule restated here: a key unit to float
 * precision (its squared length in double within 2^-21 of 1) as it is, else divided by
 * its length in double; negated when the model's dot product with the key before (in
 * double, x, y, z, w in turn) is below 0, and again for each such key after. Fills want
 * and returns the number of keys negated. */
static int rotation_rule(const float *r, int n, float *want, int *normalised, int *zero_dots)
{
    int flipped = 0, flips = 0;
    for (int k = 0; k < n; k++) {
        const float *q = r + k * 4;
        double m[4] = { q[0], q[1], q[2], q[3] };
        double len2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2] + m[3] * m[3];
        int unit = fabs(len2 - 1) <= 4.76837158203125e-7;
        *normalised += !unit;
        for (int i = 0; i < 4; i++) want[k * 4 + i] = unit ? q[i] : (float)(m[i] / sqrt(len2));
        if (k) {
            const float *p = q - 4;
            double d0 = (double)p[0] * m[0], d1 = (double)p[1] * m[1], d2 = (double)p[2] * m[2];
            double dot = d0 + d1 + d2 + (double)p[3] * m[3];
            *zero_dots += dot == 0;
            flipped ^= dot < 0;
        }
        if (k && flipped) {
            flips++;
            for (int i = 0; i < 4; i++) want[k * 4 + i] = -want[k * 4 + i];
        }
    }
    return flips;
}

/* The n keys r of bone 1's rotation channel, exported as a .glb (one run) and as its
 * parts, read from the binary chunk: bit for bit `want`. */
static void check_rotation_keys(const float *r, const float *want, int n)
{
    ganim_doc *doc = tb_doc(2, NULL);
    doc->skeleton->bones[1].parent = 0;
    tb_clip(doc, "spin", 30, (uint32_t)n);
    tb_track(doc, 0, 1, NULL, NULL);
    tb_channel(doc, 0, 0, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, (uint32_t)n, NULL, r);
    for (int glb = 0; glb < 2; glb++) {
        ganim_buffer out = { 0 }, js = { 0 }, bin = { 0 };
        gltf_file f;
        if (glb) {
            CHECK_OK(ganim_export_glb(doc, NULL, &out, NULL));
        } else { /* the .gltf's JSON and .bin, put together as a .glb's parts */
            CHECK_OK(ganim_export_glb_parts(doc, NULL, &js, &bin, NULL));
            out.data = malloc(js.size + bin.size);
            memcpy(out.data, js.data, js.size);
            memcpy(out.data + js.size, bin.data, bin.size);
            out.size = out.capacity = js.size + bin.size;
        }
        if (open_glb(&out, &f)) {
            const tjson *smp = find_sampler(&f, 0, 1, "rotation");
            uint32_t got_n = 0;
            int c = 0, bad = 0;
            float *q = smp ? acc_floats(&f, tjson_int(tjson_get(smp, "output"), -1), &got_n, &c) : NULL;
            CHECK(q && got_n == (uint32_t)n && c == 4);
            if (q && got_n == (uint32_t)n && c == 4)
                for (int k = 0; k < n && bad < 10; k++) {
                    int same = memcmp(q + k * 4, want + k * 4, 16) == 0;
                    bad += !same;
                    CHECK_MSG(same, "key %d: %.9g %.9g %.9g %.9g, want %.9g %.9g %.9g %.9g", k, q[k * 4], q[k * 4 + 1],
                              q[k * 4 + 2], q[k * 4 + 3], want[k * 4], want[k * 4 + 1], want[k * 4 + 2],
                              want[k * 4 + 3]);
                }
            free(q);
            tjson_free(f.json);
        }
        if (glb) ganim_buffer_free(&out);
        else free(out.data);
        ganim_buffer_free(&js);
        ganim_buffer_free(&bin);
    }
    ganim_doc_free(doc);
}

/* Four components in -1..1 from the generator at *seed; returns their squared length. */
static double random_quat(uint32_t *seed, double q[4])
{
    double len2 = 0;
    for (int i = 0; i < 4; i++) {
        *seed = *seed * 1103515245u + 12345u;
        q[i] = (double)(*seed >> 8) / 8388608.0 - 1.0;
        len2 += q[i] * q[i];
    }
    return len2;
}

/* Keys that are not unit, keys at a right angle to the one before (a dot product of
 * exactly 0) and keys turned away, at every place of a group of four and in runs: the
 * four-keys-a-turn path and the one-key path give the rule's bits. */
TEST(rotation_keys_as_written)
{
    enum { N = 203 };
    static float r[N * 4], want[N * 4];
    uint32_t seed = 777;
    for (int k = 0; k < N; k++) {
        double q[4], len2 = random_quat(&seed, q);
        double scale = (k % 7 == 3 || (k >= 150 && k < 156)) ? 1.0004 : 1.0; /* not unit: normalised */
        for (int i = 0; i < 4; i++) r[k * 4 + i] = (float)(q[i] / sqrt(len2) * scale);
        if (k && (k % 11 == 5 || k % 13 == 8)) { /* at a right angle to the key before */
            const float *p = r + (k - 1) * 4;
            r[k * 4] = -p[1], r[k * 4 + 1] = p[0], r[k * 4 + 2] = -p[3], r[k * 4 + 3] = p[2];
        }
        if (k >= 40 && k < 48) /* a run close to the key before: no flips */
            memcpy(r + k * 4, r + (k - 1) * 4, 4 * sizeof *r);
    }
    int normalised = 0, zero_dots = 0, flips = rotation_rule(r, N, want, &normalised, &zero_dots);
    CHECK_MSG(normalised >= 30 && zero_dots >= 20 && flips >= 40 && flips <= N - 40,
              "%d normalised, %d right angles, %d negated", normalised, zero_dots, flips);
    check_rotation_keys(r, want, N);
}

/* The four-keys-a-turn path decides in float (squared lengths within 2^-22 of 1, dot
 * products beyond 2^-21 from 0, where float's rounding cannot change the double
 * decision) and leaves every other group of four to the one-key path. Keys placed at and
 * around those edges and the rule's own (squared lengths 1 +- 2^-22, 2^-21 and between;
 * dot products of +-1e-8 .. 1e-5 and exactly 0), runs of negated keys across groups: the
 * rule's bits, key for key. */
TEST(rotation_keys_at_the_float_edges)
{
    enum { N = 6007 };
    float *r = malloc(N * 4 * sizeof *r), *want = malloc(N * 4 * sizeof *want);
    uint32_t seed = 4242;
    static const double len_off[] = { 0x1p-22,        -0x1p-22,       0x1p-22 * 1.02,  -0x1p-22 * 1.02,
                                      0x1p-22 * 0.98, 0x1p-21 * 0.99, -0x1p-21 * 0.99, 0x1p-21,
                                      -0x1p-21,       0x1p-21 * 1.01, 3.5e-7,          -4.2e-7 };
    static const double dot_at[] = { 1e-8, -1e-8, 1e-7, -1e-7, 2e-7, -2e-7, 4.7e-7, -4.7e-7, 5e-7, -5e-7, 1e-5, -1e-5 };
    int edge_len = 0, edge_dot = 0;
    for (int k = 0; k < N; k++) {
        double q[4], len2 = random_quat(&seed, q);
        for (int i = 0; i < 4; i++) q[i] /= sqrt(len2);
        seed = seed * 1103515245u + 12345u;
        unsigned pick = (seed >> 16) % 16u;
        if (k && pick < 5) { /* a dot product near 0 with the key before: q at a right angle plus a little of it */
            const float *p = r + (k - 1) * 4;
            double pp[4] = { p[0], p[1], p[2], p[3] }, pl = 0, d = dot_at[(seed >> 8) % 12u];
            for (int i = 0; i < 4; i++) pl += pp[i] * pp[i];
            double o[4] = { -pp[1], pp[0], -pp[3], pp[2] };
            for (int i = 0; i < 4; i++) q[i] = (o[i] + d * pp[i]) / sqrt(pl);
            edge_dot++;
        } else if (k && pick == 5) { /* the key before, negated: a flip */
            for (int i = 0; i < 4; i++) q[i] = -r[(k - 1) * 4 + i];
        } else if (k && pick == 6) { /* the key before again */
            for (int i = 0; i < 4; i++) q[i] = r[(k - 1) * 4 + i];
        } else if (k && pick == 7) { /* further from unit (as far as a model takes) */
            for (int i = 0; i < 4; i++) q[i] *= seed & 256u ? 1.0004 : 0.9996;
        }
        if (pick >= 8 && pick < 13) { /* a squared length near an edge */
            double f = sqrt(1.0 + len_off[(seed >> 4) % 12u]);
            for (int i = 0; i < 4; i++) q[i] *= f;
            edge_len++;
        }
        for (int i = 0; i < 4; i++) r[k * 4 + i] = (float)q[i];
    }
    int normalised = 0, zero_dots = 0, flips = rotation_rule(r, N, want, &normalised, &zero_dots);
    CHECK_MSG(normalised >= 300 && edge_dot >= 1000 && edge_len >= 1000 && flips >= 1000 && flips <= N - 1000,
              "%d normalised, %d near right angles, %d near the length edges, %d negated", normalised, edge_dot,
              edge_len, flips);
    check_rotation_keys(r, want, N);
    /* at every offset of the groups of four */
    for (int start = 1; start < 4; start++) {
        normalised = zero_dots = 0;
        rotation_rule(r + start * 4, N - start, want, &normalised, &zero_dots);
        check_rotation_keys(r + start * 4, want, N - start);
    }
    free(r);
    free(want);
}

/* RFC 4648 base64, one bit at a time: the reference for gx_b64_digits. */
static size_t b64_reference(char *o, const uint8_t *p, size_t n)
{
    static const char digit[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t k = 0, bits = (n * 8 + 5) / 6;
    for (size_t d = 0; d < bits; d++) {
        unsigned v = 0;
        for (size_t b = d * 6; b < d * 6 + 6; b++)
            v = v << 1 | (b < n * 8 ? (unsigned)(p[b / 8] >> (7 - b % 8)) & 1u : 0u);
        o[k++] = digit[v];
    }
    while (k % 4) o[k++] = '=';
    return k;
}

/* The base64 of records and opaque clips: the AVX2 and SSSE3 paths (where the processor
 * has them; this test says when it has not) and the scalar path give RFC 4648's digits for every length from 0 to 300 and a few
 * thousand, from every alignment, reading only the bytes given (each input in a block of
 * exactly its size: the sanitizer build catches a read past it) and writing only the
 * digits (a guard byte after them). */
TEST(base64_digits_every_length)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    if (!__builtin_cpu_supports("avx2"))
        test_note_not_run("test_export_gltf base64_digits_every_length: the AVX2 path (no AVX2 on this processor)");
    if (!__builtin_cpu_supports("ssse3"))
        test_note_not_run("test_export_gltf base64_digits_every_length: the SSSE3 path (no SSSE3 on this processor)");
#endif
    uint32_t seed = 12345;
    for (size_t n = 0; n <= 3100; n += n < 300 ? 1 : 397) {
        for (size_t shift = 0; shift < (n < 300 ? 16u : 3u); shift++) {
            uint8_t *in = malloc(n + shift + 1);
            for (size_t i = 0; i < n + shift; i++) {
                seed = seed * 1103515245u + 12345u;
                in[i] = (uint8_t)(seed >> 16);
            }
            if (n == 40) memset(in + shift, 0xFF, n); /* digits 63 ('/') and 62 ('+') ends */
            if (n == 41) memset(in + shift, 0xFB, n); /* 0xFB = 111110 11: '+' and '7' */
            uint8_t *src = malloc(n ? n : 1);
            memcpy(src, in + shift, n); /* exactly n bytes */
            size_t len = (n + 2) / 3 * 4;
            char *want = malloc(len + 1);
            CHECK_EQ_INT((long long)b64_reference(want, src, n), (long long)len);
            for (int path = 0; path < 5; path++) {
                static const char *const name[5] = { "scalar", "up to SSSE3", "up to AVX2", "fast", "level 0" };
                uint8_t *got = malloc(len + 1);
                got[len] = 0xA5;
                uint8_t *end = path == 0   ? gx_b64_digits_scalar(got, src, n)
                               : path < 3  ? gx_b64_digits_upto(got, src, n, path)
                               : path == 3 ? gx_b64_digits(got, src, n)
                                           : gx_b64_digits_upto(got, src, n, 0);
                CHECK_MSG(end == got + len && memcmp(got, want, len) == 0 && got[len] == 0xA5,
                          "%s path, %zu bytes: %.*s, want %.*s", name[path], n, (int)len, (char *)got, (int)len, want);
                free(got);
            }
            free(want);
            free(src);
            free(in);
        }
    }
}

int main(void)
{
    RUN(glb_layout_nodes_and_rest_pose);
    RUN(base64_digits_every_length);
    RUN(rotation_keys_as_written);
    RUN(rotation_keys_at_the_float_edges);
    RUN(animation_samplers_after_conversion);
    RUN(keep_axes_and_gltf_with_external_buffer);
    RUN(step_bits_and_visibility);
    RUN(flat_skeleton_gets_a_common_root);
    RUN(errors);
    RUN(glb_in_two_parts);
    RUN(streamed_export);
    RUN(streamed_measure);
    RUN(no_skeleton);
    RUN(big_clip);
    RUN(every_joint_keyed_with_its_rest);
    RUN(partner_clips_play_as_one);
    RUN(half_turn_hidden_bone_and_scene_rate);
    RUN(unscaled_rest_and_sparse_keyed);
    RUN(stored_keys_that_do_not_fit);
    return test_finish();
}
