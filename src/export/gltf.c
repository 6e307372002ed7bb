/* glTF 2.0 exporter. The skeleton becomes a node hierarchy (rest pose as node TRS) with a
 * skin, plus a small skinned mesh of bone sticks so every viewer draws something; each
 * animation clip becomes one glTF animation. The JSON text and the binary buffer are
 * written in one pass: every accessor gets its own bufferView, appended as it is made.
 * Conventions (axis conversion on root bones, step bits as hold keys, visibility as STEP
 * scale keys) are named in asset.extras.ganim and described in docs/dump-format.md. */
#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "export/export.h"
#include "io/writer.h"

enum {
    GL_UNSIGNED_BYTE = 5121,
    GL_UNSIGNED_SHORT = 5123,
    GL_UNSIGNED_INT = 5125,
    GL_FLOAT = 5126,
    GL_ARRAY_BUFFER = 34962,
    GL_ELEMENT_ARRAY_BUFFER = 34963
};

#define NO_ACC UINT32_MAX
#define TIME_CACHE 16

/* A time accessor already written for the current clip, reused by later channels. */
typedef struct time_key {
    const float *times;  /* keyed frame times, or NULL for frames 0..count-1 */
    uint32_t count;      /* source keys */
    const uint8_t *hold; /* step bits that inserted hold keys, or NULL */
    uint32_t acc;
} time_key;

typedef struct gl {
    const ganim_doc *doc;
    const ganim_skeleton *sk; /* NULL when there are no bones */
    uint32_t nb;
    ganim_allocator alloc;
    ganim_export_opts o;
    gx_conv cv;
    gx_names names;
    gx_children kids;
    ganim_error *err;
    ganim_transform *rest; /* converted rest pose per bone */
    ganim_writer js, bin, acc, views, chans, samps;
    ganim_buffer acc_buf, views_buf, chans_buf, samps_buf;
    size_t bin_base;
    uint32_t acc_count, view_count;
    uint32_t root_node; /* skin.skeleton: the single root bone or the added common root */
    int extra_root;     /* 1: several root bones, node nb is their common parent */
    /* current clip */
    const ganim_clip *clip;
    const char *clip_name; /* its name as exported (gx_clip_name) */
    char clip_name_buf[256];
    uint32_t sampler_count, ends_acc, frames_acc, cache_n, cache_next;
    time_key cache[TIME_CACHE];
    uint32_t *map; /* output key -> source key */
    float *times;  /* output key times, seconds */
    size_t keys_cap;
} gl;

/* ---- binary buffer and accessors -------------------------------------------------------- */

static size_t bin_align(gl *g)
{
    size_t rel = gw_pos(&g->bin) - g->bin_base;
    if (rel & 3) gw_zeros(&g->bin, 4 - (rel & 3));
    return gw_pos(&g->bin);
}

static void put_f32s(gl *g, const float *v, int n)
{
    uint8_t b[64];
    for (int i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        b[i * 4] = (uint8_t)u, b[i * 4 + 1] = (uint8_t)(u >> 8), b[i * 4 + 2] = (uint8_t)(u >> 16);
        b[i * 4 + 3] = (uint8_t)(u >> 24);
    }
    gw_bytes(&g->bin, b, (size_t)n * 4);
}

static void json_floats(ganim_writer *w, const float *v, int n)
{
    gw_u8(w, '[');
    for (int i = 0; i < n; i++) {
        if (i) gw_u8(w, ',');
        gw_float(w, v[i]);
    }
    gw_u8(w, ']');
}

/* Running min/max of the float elements written for one accessor. */
typedef struct fstat {
    float mn[16], mx[16];
    int n;
    uint32_t count;
} fstat;

static void fs_begin(fstat *s, int n)
{
    s->n = n;
    s->count = 0;
}

static void fs_put(gl *g, fstat *s, const float *v)
{
    put_f32s(g, v, s->n);
    for (int i = 0; i < s->n; i++) {
        if (!s->count || v[i] < s->mn[i]) s->mn[i] = v[i];
        if (!s->count || v[i] > s->mx[i]) s->mx[i] = v[i];
    }
    s->count++;
}

/* Bytes [start, end of buffer) become one bufferView and one accessor; returns its index. */
static uint32_t accessor(gl *g, size_t start, int comp, uint32_t count, const char *type, int target, const fstat *bounds)
{
    size_t len = gw_pos(&g->bin) - start;
    if (g->view_count) gw_u8(&g->views, ',');
    gw_printf(&g->views, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", start - g->bin_base, len);
    if (target) gw_printf(&g->views, ",\"target\":%d", target);
    gw_u8(&g->views, '}');
    if (g->acc_count) gw_u8(&g->acc, ',');
    gw_printf(&g->acc, "{\"bufferView\":%u,\"componentType\":%d,\"count\":%u,\"type\":\"%s\"", g->view_count, comp, count,
              type);
    if (bounds) {
        gw_str(&g->acc, ",\"min\":");
        json_floats(&g->acc, bounds->mn, bounds->n);
        gw_str(&g->acc, ",\"max\":");
        json_floats(&g->acc, bounds->mx, bounds->n);
    }
    gw_u8(&g->acc, '}');
    g->view_count++;
    return g->acc_count++;
}

/* ---- nodes, skin, bone mesh ------------------------------------------------------------- */

static ganim_code convert_rest(gl *g)
{
    for (uint32_t i = 0; i < g->nb; i++) {
        const ganim_bone *b = &g->sk->bones[i];
        ganim_transform *r = &g->rest[i];
        int root = b->parent < 0;
        if (!gx_rotation(&g->cv, root, &b->rest.rotation.x, &r->rotation.x) ||
            !gx_translation(&g->cv, root, &b->rest.translation.x, &r->translation.x) || !gx_finite3(&b->rest.scale.x)) {
            return ganim_fail(g->err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                              "gltf: bone %u ('%s'): rest pose is not finite after conversion", i, b->name);
        }
        r->scale = b->rest.scale;
    }
    return GANIM_OK;
}

static int is_identity_q(const ganim_quat *q) { return q->x == 0 && q->y == 0 && q->z == 0 && q->w == 1; }

static void write_nodes(gl *g)
{
    ganim_writer *w = &g->js;
    gw_str(w, ",\"nodes\":[");
    for (uint32_t i = 0; i < g->nb; i++) {
        const ganim_bone *b = &g->sk->bones[i];
        const ganim_transform *r = &g->rest[i];
        if (i) gw_u8(w, ',');
        gw_str(w, "{\"name\":");
        gw_json_string(w, g->names.name[i]);
        uint32_t c0 = g->kids.first[i], c1 = g->kids.first[i + 1];
        if (c1 > c0) {
            gw_str(w, ",\"children\":[");
            for (uint32_t k = c0; k < c1; k++) gw_printf(w, "%s%u", k > c0 ? "," : "", g->kids.list[k]);
            gw_u8(w, ']');
        }
        if (!is_identity_q(&r->rotation)) {
            gw_str(w, ",\"rotation\":");
            json_floats(w, &r->rotation.x, 4);
        }
        if (r->translation.x != 0 || r->translation.y != 0 || r->translation.z != 0) {
            gw_str(w, ",\"translation\":");
            json_floats(w, &r->translation.x, 3);
        }
        if (r->scale.x != 1 || r->scale.y != 1 || r->scale.z != 1) {
            gw_str(w, ",\"scale\":");
            json_floats(w, &r->scale.x, 3);
        }
        int renamed = strcmp(b->name, g->names.name[i]) != 0;
        if (renamed || b->flags) {
            gw_str(w, ",\"extras\":{\"ganim\":{");
            if (renamed) {
                gw_str(w, "\"name\":");
                gw_json_string(w, b->name);
            }
            if (b->flags) gw_printf(w, "%s\"flags\":%u", renamed ? "," : "", b->flags);
            gw_str(w, "}}");
        }
        gw_u8(w, '}');
    }
    if (g->extra_root) { /* glTF skins need one common root for all joints */
        gw_str(w, g->nb ? ",{\"name\":" : "{\"name\":");
        gw_json_string(w, g->names.name[g->nb]);
        gw_str(w, ",\"children\":[");
        int first = 1;
        for (uint32_t i = 0; i < g->nb; i++) {
            if (g->sk->bones[i].parent >= 0) continue;
            gw_printf(w, "%s%u", first ? "" : ",", i);
            first = 0;
        }
        gw_str(w, "]}");
    }
    gw_str(w, ",{\"name\":");
    gw_json_string(w, g->names.name[g->nb + 1]);
    gw_str(w, ",\"mesh\":0,\"skin\":0}]");
}

/* World rest matrices with zero scales replaced by one, so that every inverse bind
 * matrix exists; the bone mesh is built in the same space, so skinning stays exact. */
static void world_matrices(gl *g, float *world)
{
    for (uint32_t i = 0; i < g->nb; i++) {
        ganim_transform t = g->rest[i];
        float *s = &t.scale.x, local[16];
        for (int k = 0; k < 3; k++)
            if (fabsf(s[k]) < 1e-12f) s[k] = 1;
        ganim_mat4_from_transform(&t, local);
        int32_t p = g->sk->bones[i].parent;
        if (p < 0) memcpy(world + (size_t)i * 16, local, sizeof local);
        else ganim_mat4_mul(world + (size_t)p * 16, local, world + (size_t)i * 16);
    }
}

static uint32_t write_ibms(gl *g, const float *world)
{
    size_t start = bin_align(g);
    for (uint32_t i = 0; i < g->nb; i++) {
        float inv[16];
        if (!ganim_mat4_invert(world + (size_t)i * 16, inv)) {
            memset(inv, 0, sizeof inv);
            inv[0] = inv[5] = inv[10] = 1;
        }
        inv[3] = inv[7] = inv[11] = 0; /* exactly affine: the validator checks it */
        inv[15] = 1;
        for (int k = 0; k < 16; k++)
            if (!isfinite(inv[k])) inv[k] = (k % 5 == 0) ? 1.0f : 0.0f;
        put_f32s(g, inv, 16);
    }
    return accessor(g, start, GL_FLOAT, g->nb, "MAT4", 0, NULL);
}

/* The bone mesh: an octahedral stick from each joint to each child (skinned to the
 * joint), and a small tetrahedron for joints that have no stick (leaves, children at the
 * same place). Returns the JSON of the mesh, or an error. */
typedef struct mesh_build {
    float *pos;
    uint32_t *joint, *idx;
    uint32_t nv, ni;
} mesh_build;

static void mesh_vertex(mesh_build *m, const double p[3], uint32_t joint)
{
    for (int k = 0; k < 3; k++) m->pos[m->nv * 3 + (uint32_t)k] = (float)p[k];
    m->joint[m->nv++] = joint;
}

static void mesh_tri(mesh_build *m, uint32_t base, uint32_t a, uint32_t b, uint32_t c)
{
    m->idx[m->ni++] = base + a;
    m->idx[m->ni++] = base + b;
    m->idx[m->ni++] = base + c;
}

static void stick(mesh_build *m, const double *h, const double *t, uint32_t joint)
{
    double d[3] = { t[0] - h[0], t[1] - h[1], t[2] - h[2] };
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++) d[k] /= len;
    /* u: perpendicular to d, from the axis d is least aligned with; v = d x u */
    int ax = fabs(d[0]) <= fabs(d[1]) && fabs(d[0]) <= fabs(d[2]) ? 0 : (fabs(d[1]) <= fabs(d[2]) ? 1 : 2);
    double e[3] = { 0, 0, 0 }, u[3], v[3];
    e[ax] = 1;
    u[0] = d[1] * e[2] - d[2] * e[1], u[1] = d[2] * e[0] - d[0] * e[2], u[2] = d[0] * e[1] - d[1] * e[0];
    double ul = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++) u[k] /= ul;
    v[0] = d[1] * u[2] - d[2] * u[1], v[1] = d[2] * u[0] - d[0] * u[2], v[2] = d[0] * u[1] - d[1] * u[0];
    double w = 0.08 * len, mid[3], p[3];
    for (int k = 0; k < 3; k++) mid[k] = h[k] + d[k] * 0.15 * len;
    uint32_t base = m->nv;
    mesh_vertex(m, h, joint);
    mesh_vertex(m, t, joint);
    static const double ring[4][2] = { { 1, 0 }, { 0, 1 }, { -1, 0 }, { 0, -1 } }; /* counter-clockwise about d */
    for (int r = 0; r < 4; r++) {
        for (int k = 0; k < 3; k++) p[k] = mid[k] + w * (ring[r][0] * u[k] + ring[r][1] * v[k]);
        mesh_vertex(m, p, joint);
    }
    for (uint32_t r = 0; r < 4; r++) { /* outward winding */
        uint32_t a = 2 + r, b = 2 + (r + 1) % 4;
        mesh_tri(m, base, 0, b, a);
        mesh_tri(m, base, 1, a, b);
    }
}

static void tetra(mesh_build *m, const double *c, double size, uint32_t joint)
{
    static const double corner[4][3] = { { 1, 1, 1 }, { 1, -1, -1 }, { -1, 1, -1 }, { -1, -1, 1 } };
    uint32_t base = m->nv;
    for (int i = 0; i < 4; i++) {
        double p[3];
        for (int k = 0; k < 3; k++) p[k] = c[k] + corner[i][k] * size;
        mesh_vertex(m, p, joint);
    }
    mesh_tri(m, base, 0, 1, 2);
    mesh_tri(m, base, 0, 3, 1);
    mesh_tri(m, base, 0, 2, 3);
    mesh_tri(m, base, 1, 3, 2);
}

static ganim_code write_mesh(gl *g, const float *world, uint32_t *a_pos, uint32_t *a_joint, uint32_t *a_weight,
                             uint32_t *a_idx)
{
    /* joint positions and the size of the whole skeleton */
    double lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 };
    for (uint32_t i = 0; i < g->nb; i++) {
        const float *t = world + (size_t)i * 16 + 12;
        for (int k = 0; k < 3; k++) {
            if (!isfinite(t[k])) {
                return ganim_fail(g->err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                                  "gltf: bone %u ('%s'): rest position is not finite", i, g->sk->bones[i].name);
            }
            if (!i || t[k] < lo[k]) lo[k] = t[k];
            if (!i || t[k] > hi[k]) hi[k] = t[k];
        }
    }
    double ext = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    double eps = 1e-6 * (ext > 1 ? ext : 1), leaf = ext > 0 ? 0.02 * ext : 0.05;
    /* count first: every bone has at most its children as sticks, or one tetrahedron */
    uint32_t nsticks = 0, ntets = 0;
    for (uint32_t i = 0; i < g->nb; i++) {
        const float *h = world + (size_t)i * 16 + 12;
        uint32_t s = 0;
        for (uint32_t k = g->kids.first[i]; k < g->kids.first[i + 1]; k++) {
            const float *t = world + (size_t)g->kids.list[k] * 16 + 12;
            double dx = t[0] - h[0], dy = t[1] - h[1], dz = t[2] - h[2];
            if (sqrt(dx * dx + dy * dy + dz * dz) > eps) s++;
        }
        nsticks += s;
        if (!s) ntets++;
    }
    size_t nv = (size_t)nsticks * 6 + (size_t)ntets * 4, ni = (size_t)nsticks * 24 + (size_t)ntets * 12;
    size_t bytes = nv * 3 * sizeof(float) + nv * sizeof(uint32_t) + ni * sizeof(uint32_t);
    uint8_t *mem = ganim_alloc(&g->alloc, bytes);
    if (!mem) return GANIM_NOMEM(g->err);
    mesh_build m = { (float *)(void *)mem, (uint32_t *)(void *)(mem + nv * 12), (uint32_t *)(void *)(mem + nv * 16), 0, 0 };
    for (uint32_t i = 0; i < g->nb; i++) {
        const float *hf = world + (size_t)i * 16 + 12;
        double h[3] = { hf[0], hf[1], hf[2] };
        uint32_t s = 0;
        for (uint32_t k = g->kids.first[i]; k < g->kids.first[i + 1]; k++) {
            const float *tf = world + (size_t)g->kids.list[k] * 16 + 12;
            double t[3] = { tf[0], tf[1], tf[2] };
            double dx = t[0] - h[0], dy = t[1] - h[1], dz = t[2] - h[2];
            if (sqrt(dx * dx + dy * dy + dz * dz) > eps) {
                stick(&m, h, t, i);
                s++;
            }
        }
        if (!s) tetra(&m, h, leaf, i);
    }
    /* POSITION (with min/max), JOINTS_0, WEIGHTS_0, indices */
    fstat fs;
    fs_begin(&fs, 3);
    size_t start = bin_align(g);
    for (uint32_t v = 0; v < m.nv; v++) fs_put(g, &fs, m.pos + (size_t)v * 3);
    *a_pos = accessor(g, start, GL_FLOAT, m.nv, "VEC3", GL_ARRAY_BUFFER, &fs);
    int small = g->nb <= 256;
    start = bin_align(g);
    for (uint32_t v = 0; v < m.nv; v++) {
        if (small) {
            gw_u32le(&g->bin, m.joint[v]); /* bytes j, 0, 0, 0 */
        } else {
            gw_u16le(&g->bin, (uint16_t)m.joint[v]);
            gw_zeros(&g->bin, 6);
        }
    }
    *a_joint = accessor(g, start, small ? GL_UNSIGNED_BYTE : GL_UNSIGNED_SHORT, m.nv, "VEC4", GL_ARRAY_BUFFER, NULL);
    start = bin_align(g);
    static const float one[4] = { 1, 0, 0, 0 };
    for (uint32_t v = 0; v < m.nv; v++) put_f32s(g, one, 4);
    *a_weight = accessor(g, start, GL_FLOAT, m.nv, "VEC4", GL_ARRAY_BUFFER, NULL);
    start = bin_align(g);
    int wide = m.nv > 65535;
    for (uint32_t k = 0; k < m.ni; k++) {
        if (wide) gw_u32le(&g->bin, m.idx[k]);
        else gw_u16le(&g->bin, (uint16_t)m.idx[k]);
    }
    *a_idx = accessor(g, start, wide ? GL_UNSIGNED_INT : GL_UNSIGNED_SHORT, m.ni, "SCALAR", GL_ELEMENT_ARRAY_BUFFER, NULL);
    ganim_free(&g->alloc, mem, bytes);
    return GANIM_OK;
}

static ganim_code write_skeleton(gl *g)
{
    size_t wbytes = (size_t)g->nb * 16 * sizeof(float);
    float *world = ganim_alloc(&g->alloc, wbytes);
    if (!world) return GANIM_NOMEM(g->err);
    world_matrices(g, world);
    uint32_t a_ibm = write_ibms(g, world), a_pos = 0, a_joint = 0, a_weight = 0, a_idx = 0;
    ganim_code code = write_mesh(g, world, &a_pos, &a_joint, &a_weight, &a_idx);
    ganim_free(&g->alloc, world, wbytes);
    if (code != GANIM_OK) return code;
    ganim_writer *w = &g->js;
    gw_str(w, ",\"skins\":[{\"name\":");
    gw_json_string(w, g->sk->name[0] ? g->sk->name : "skeleton");
    gw_printf(w, ",\"inverseBindMatrices\":%u,\"skeleton\":%u,\"joints\":[", a_ibm, g->root_node);
    for (uint32_t i = 0; i < g->nb; i++) gw_printf(w, i ? ",%u" : "%u", i);
    gw_str(w, "]}],\"meshes\":[{\"name\":");
    gw_json_string(w, g->names.name[g->nb + 1]);
    gw_printf(w,
              ",\"primitives\":[{\"attributes\":{\"POSITION\":%u,\"JOINTS_0\":%u,\"WEIGHTS_0\":%u},\"indices\":%u}]}]",
              a_pos, a_joint, a_weight, a_idx);
    return GANIM_OK;
}

/* ---- animations ------------------------------------------------------------------------- */

static const char *const path_name[3] = { "rotation", "translation", "scale" };

static ganim_code key_space(gl *g, size_t n)
{
    if (n <= g->keys_cap) return GANIM_OK;
    size_t cap = g->keys_cap ? g->keys_cap : 64;
    while (cap < n) cap *= 2;
    uint32_t *map = ganim_alloc(&g->alloc, cap * sizeof *map);
    float *times = ganim_alloc(&g->alloc, cap * sizeof *times);
    if (!map || !times) {
        ganim_free(&g->alloc, map, cap * sizeof *map);
        ganim_free(&g->alloc, times, cap * sizeof *times);
        return GANIM_NOMEM(g->err);
    }
    ganim_free(&g->alloc, g->map, g->keys_cap * sizeof *g->map);
    ganim_free(&g->alloc, g->times, g->keys_cap * sizeof *g->times);
    g->map = map, g->times = times, g->keys_cap = cap;
    return GANIM_OK;
}

static float frame_time(const ganim_clip *c, double frame) { return (float)(frame / c->fps); }

/* Writes g->times[0..n) as an input accessor (strictly increasing, with min/max). */
static ganim_code time_accessor(gl *g, uint32_t n, uint32_t *acc)
{
    for (uint32_t k = 1; k < n; k++) {
        if (!(g->times[k] > g->times[k - 1])) {
            return ganim_fail(g->err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "gltf: clip '%s': keys %u and %u fall on the same float32 time (%.9g s)", g->clip_name, k - 1,
                              k, (double)g->times[k]);
        }
    }
    fstat fs;
    fs_begin(&fs, 1);
    size_t start = bin_align(g);
    for (uint32_t k = 0; k < n; k++) fs_put(g, &fs, &g->times[k]);
    *acc = accessor(g, start, GL_FLOAT, n, "SCALAR", 0, &fs);
    return GANIM_OK;
}

static void add_sampler(gl *g, uint32_t bone, const char *path, uint32_t in, uint32_t out, const char *interp)
{
    if (g->sampler_count) {
        gw_u8(&g->chans, ',');
        gw_u8(&g->samps, ',');
    }
    gw_printf(&g->chans, "{\"sampler\":%u,\"target\":{\"node\":%u,\"path\":\"%s\"}}", g->sampler_count, bone, path);
    gw_printf(&g->samps, "{\"input\":%u,\"output\":%u,\"interpolation\":\"%s\"}", in, out, interp);
    g->sampler_count++;
}

/* The keys a channel is written with: g->map / g->times, their count, the interpolation
 * and the input accessor (shared with earlier channels of the clip when possible).
 * Step bits: when every key but the last steps, the sampler is STEP; when only some do,
 * a hold key (previous value) is inserted one float32 ulp before the next key. */
static ganim_code plan_keys(gl *g, const ganim_track *t, const ganim_channel *ch, uint32_t *nout, const char **interp,
                            uint32_t *in)
{
    const ganim_clip *c = g->clip;
    uint32_t fc = c->frame_count;
    *interp = "LINEAR";
    if (ch->kind == GANIM_CHANNEL_CONSTANT) {
        ganim_code code = key_space(g, 2);
        if (code != GANIM_OK) return code;
        *nout = fc > 1 ? 2 : 1;
        g->map[0] = g->map[1] = 0;
        g->times[0] = 0;
        g->times[1] = frame_time(c, fc - 1.0);
        if (g->ends_acc == NO_ACC) {
            code = time_accessor(g, *nout, &g->ends_acc);
            if (code != GANIM_OK) return code;
        }
        *in = g->ends_acc;
        return GANIM_OK;
    }
    uint32_t n = ch->count, stepped = 0;
    const float *kt = ch->kind == GANIM_CHANNEL_KEYED ? ch->times : NULL;
    ganim_code code = key_space(g, (size_t)n * 2);
    if (code != GANIM_OK) return code;
    if (t->step) {
        for (uint32_t k = 0; k + 1 < n; k++) {
            double f = kt ? floor((double)kt[k]) : (double)k;
            if (f >= 0 && f < (double)fc && t->step[(uint32_t)f]) stepped++;
        }
    }
    int holds = stepped && stepped + 1 < n;
    if (stepped && !holds) *interp = "STEP";
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        g->map[m] = k;
        g->times[m++] = frame_time(c, kt ? (double)kt[k] : (double)k);
        if (holds && k + 1 < n) {
            double f = kt ? floor((double)kt[k]) : (double)k;
            if (f >= 0 && f < (double)fc && t->step[(uint32_t)f]) {
                g->map[m] = k;
                g->times[m++] = nextafterf(frame_time(c, kt ? (double)kt[k + 1] : (double)(k + 1)), -INFINITY);
            }
        }
    }
    *nout = m;
    const uint8_t *hk = holds ? t->step : NULL;
    if (!kt && !hk && g->frames_acc != NO_ACC) {
        *in = g->frames_acc;
        return GANIM_OK;
    }
    for (uint32_t i = 0; i < g->cache_n; i++) {
        const time_key *e = &g->cache[i];
        if (e->count == n && e->hold == hk && (e->times == kt || (e->times && kt && !memcmp(e->times, kt, n * sizeof *kt)))) {
            *in = e->acc;
            return GANIM_OK;
        }
    }
    code = time_accessor(g, m, in);
    if (code != GANIM_OK) return code;
    if (!kt && !hk) {
        g->frames_acc = *in;
    } else {
        time_key e = { kt, n, hk, *in };
        g->cache[g->cache_next] = e;
        g->cache_next = (g->cache_next + 1) % TIME_CACHE;
        if (g->cache_n < TIME_CACHE) g->cache_n++;
    }
    return GANIM_OK;
}

static ganim_code bad_value(gl *g, const ganim_track *t, const char *what, uint32_t key)
{
    return ganim_fail(g->err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                      "gltf: clip '%s', track '%s' (bone %u '%s'): %s key %u is not a finite number after conversion",
                      g->clip_name, t->name ? t->name : "", t->bone, g->sk->bones[t->bone].name, what, key);
}

/* path: 0 rotation, 1 translation, 2 scale */
static ganim_code write_channel(gl *g, const ganim_track *t, const ganim_channel *ch, int path)
{
    uint32_t n, in;
    const char *interp;
    ganim_code code = plan_keys(g, t, ch, &n, &interp, &in);
    if (code != GANIM_OK) return code;
    int root = g->sk->bones[t->bone].parent < 0, comps = path == 0 ? 4 : 3;
    fstat fs;
    fs_begin(&fs, comps);
    size_t start = bin_align(g);
    float prev[4] = { 0, 0, 0, 1 }, v[4];
    for (uint32_t k = 0; k < n; k++) {
        const float *src = ch->values + (size_t)g->map[k] * (size_t)comps;
        if (path == 0) {
            if (!gx_rotation(&g->cv, root, src, v)) return bad_value(g, t, "rotation", g->map[k]);
            /* sign-continuous, so that LINEAR (slerp) takes the short way */
            if (k && (double)v[0] * prev[0] + (double)v[1] * prev[1] + (double)v[2] * prev[2] + (double)v[3] * prev[3] < 0)
                v[0] = -v[0], v[1] = -v[1], v[2] = -v[2], v[3] = -v[3];
            memcpy(prev, v, sizeof v);
        } else if (path == 1) {
            if (!gx_translation(&g->cv, root, src, v)) return bad_value(g, t, "translation", g->map[k]);
        } else {
            memcpy(v, src, 3 * sizeof *v);
            if (!gx_finite3(v)) return bad_value(g, t, "scale", g->map[k]);
        }
        fs_put(g, &fs, v);
    }
    uint32_t out = accessor(g, start, GL_FLOAT, n, comps == 4 ? "VEC4" : "VEC3", 0, NULL);
    add_sampler(g, t->bone, path_name[path], in, out, interp);
    return GANIM_OK;
}

/* Visibility as STEP scale keys on every frame: the (sampled) scale when visible, 0 when
 * hidden. Hides the bone's subtree too, as a scaled-to-zero node does in every viewer. */
static ganim_code write_visibility(gl *g, const ganim_track *t)
{
    const ganim_clip *c = g->clip;
    ganim_channel frames = { GANIM_CHANNEL_PER_FRAME, c->frame_count, NULL, NULL };
    uint32_t n, in;
    const char *interp;
    ganim_track plain = *t;
    plain.step = NULL;
    ganim_code code = plan_keys(g, &plain, &frames, &n, &interp, &in);
    if (code != GANIM_OK) return code;
    fstat fs;
    fs_begin(&fs, 3);
    size_t start = bin_align(g);
    const float *rest = &g->sk->bones[t->bone].rest.scale.x;
    for (uint32_t f = 0; f < c->frame_count; f++) {
        float v[3] = { 0, 0, 0 };
        if (t->visibility[f]) {
            ganim_channel_eval(&t->scale, c->frame_count, t->step, c->rotation_interp, 3, (double)f, rest, v);
            if (!gx_finite3(v)) return bad_value(g, t, "scale", f);
        }
        fs_put(g, &fs, v);
    }
    uint32_t out = accessor(g, start, GL_FLOAT, c->frame_count, "VEC3", 0, NULL);
    add_sampler(g, t->bone, "scale", in, out, "STEP");
    return GANIM_OK;
}

static ganim_code write_clip(gl *g, uint32_t ci, int first)
{
    const ganim_clip *c = &g->doc->clips[ci];
    g->clip = c;
    g->clip_name = gx_clip_name(g->doc, &g->o, ci, g->clip_name_buf, sizeof g->clip_name_buf);
    g->sampler_count = 0;
    g->ends_acc = g->frames_acc = NO_ACC;
    g->cache_n = g->cache_next = 0;
    g->chans_buf.size = g->samps_buf.size = 0;
    ganim_code code = GANIM_OK;
    for (uint32_t ti = 0; ti < c->track_count && code == GANIM_OK; ti++) {
        const ganim_track *t = &c->tracks[ti];
        if (t->rotation.kind != GANIM_CHANNEL_ABSENT) code = write_channel(g, t, &t->rotation, 0);
        if (code == GANIM_OK && t->translation.kind != GANIM_CHANNEL_ABSENT) code = write_channel(g, t, &t->translation, 1);
        if (code != GANIM_OK) break;
        int hidden = 0;
        if (g->o.visibility == GANIM_VIS_SCALE && t->visibility)
            for (uint32_t f = 0; f < c->frame_count && !hidden; f++) hidden = !t->visibility[f];
        if (hidden) code = write_visibility(g, t);
        else if (t->scale.kind != GANIM_CHANNEL_ABSENT) code = write_channel(g, t, &t->scale, 2);
    }
    if (code != GANIM_OK) return code;
    if (!g->sampler_count) { /* glTF needs a channel: hold bone 0 at rest for the clip */
        ganim_track t0 = { 0 };
        t0.name = "";
        t0.rotation.kind = GANIM_CHANNEL_CONSTANT;
        t0.rotation.count = 1;
        t0.rotation.values = &g->sk->bones[0].rest.rotation.x;
        code = write_channel(g, &t0, &t0.rotation, 0);
        if (code != GANIM_OK) return code;
    }
    ganim_writer *w = &g->js;
    gw_str(w, first ? "{\"name\":" : ",{\"name\":");
    if (g->clip_name[0]) gw_json_string(w, g->clip_name);
    else gw_printf(w, "\"clip_%u\"", ci);
    gw_str(w, ",\"channels\":[");
    gw_bytes(w, g->chans_buf.data, g->chans_buf.size);
    gw_str(w, "],\"samplers\":[");
    gw_bytes(w, g->samps_buf.data, g->samps_buf.size);
    gw_printf(w, "],\"extras\":{\"ganim\":{\"clip_index\":%u,\"fps\":", ci);
    gw_double(w, c->fps);
    gw_printf(w, ",\"frame_count\":%u,\"rotation_interp\":\"%s\"}}}", c->frame_count,
              c->rotation_interp == GANIM_INTERP_NLERP ? "nlerp" : "slerp");
    return gw_ok(&g->chans) && gw_ok(&g->samps) ? GANIM_OK : GANIM_NOMEM(g->err);
}

/* ---- document --------------------------------------------------------------------------- */

static void write_uri(ganim_writer *w, const char *uri)
{
    static const char hex[] = "0123456789ABCDEF";
    gw_u8(w, '"');
    for (const unsigned char *p = (const unsigned char *)uri; *p; p++) {
        unsigned char ch = *p;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || strchr("-._~/", ch)) {
            gw_u8(w, ch);
        } else {
            char e[3] = { '%', hex[ch >> 4], hex[ch & 15] };
            gw_bytes(w, e, 3);
        }
    }
    gw_u8(w, '"');
}

static void write_asset(gl *g)
{
    ganim_writer *w = &g->js;
    gw_str(w, "{\"asset\":{\"version\":\"2.0\",\"generator\":");
    gw_json_string(w, gx_generator(&g->o));
    gw_str(w, ",\"extras\":{\"ganim\":{\"source_format\":");
    if (g->doc->format && g->doc->format->name) gw_json_string(w, g->doc->format->name);
    else gw_str(w, "null");
    gw_str(w, ",\"axes\":");
    gw_json_string(w, ganim_axes_name(g->doc->axes));
    gw_str(w, ",\"axis_conversion\":");
    gw_json_string(w, g->cv.description);
    gw_str(w, ",\"unit_scale\":");
    gw_double(w, g->cv.unit);
    gw_printf(w, ",\"visibility\":\"%s\",\"step\":\"hold keys\"}}}",
              g->o.visibility == GANIM_VIS_IGNORE ? "ignore" : "scale");
}

static ganim_code build(gl *g, const char *uri)
{
    const ganim_doc *doc = g->doc;
    ganim_code code = GANIM_OK;
    write_asset(g);
    gw_str(&g->js, ",\"scene\":0,\"scenes\":[{\"name\":");
    gw_json_string(&g->js, g->sk && g->sk->name[0] ? g->sk->name : "ganim");
    if (g->nb) {
        gw_printf(&g->js, ",\"nodes\":[%u,%u]}]", g->root_node, g->nb + (uint32_t)g->extra_root);
        if ((code = convert_rest(g)) != GANIM_OK) return code;
        write_nodes(g);
        if ((code = write_skeleton(g)) != GANIM_OK) return code;
        int first = 1;
        for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
            if (!gx_clip_selected(doc, &g->o, ci, 1)) continue;
            gw_str(&g->js, first ? ",\"animations\":[" : "");
            if ((code = write_clip(g, ci, first)) != GANIM_OK) return code;
            first = 0;
        }
        if (!first) gw_u8(&g->js, ']');
    } else {
        gw_str(&g->js, "}]");
    }
    size_t bin_len = bin_align(g) - g->bin_base;
    if (bin_len) {
        gw_str(&g->js, ",\"accessors\":[");
        gw_bytes(&g->js, g->acc_buf.data, g->acc_buf.size);
        gw_str(&g->js, "],\"bufferViews\":[");
        gw_bytes(&g->js, g->views_buf.data, g->views_buf.size);
        gw_printf(&g->js, "],\"buffers\":[{\"byteLength\":%zu", bin_len);
        if (uri) {
            gw_str(&g->js, ",\"uri\":");
            write_uri(&g->js, uri);
        }
        gw_str(&g->js, "}]");
    }
    gw_u8(&g->js, '}');
    if (!gw_ok(&g->js) || !gw_ok(&g->bin) || !gw_ok(&g->acc) || !gw_ok(&g->views)) return GANIM_NOMEM(g->err);
    return GANIM_OK;
}

/* Appends the glTF JSON to `json` and the binary buffer to `bin`. */
static ganim_code export_gltf(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *json, ganim_buffer *bin,
                              const char *uri, ganim_error *err)
{
    ganim_export_opts defaults = { 0 };
    if (!json || !bin) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "gltf: no output buffer");
    ganim_code code = gx_check_doc(doc, "gltf", err);
    if (code != GANIM_OK) return code;
    gl g0 = { 0 }, *g = &g0;
    g->o = opts ? *opts : defaults;
    if ((code = gx_check_clip(doc, &g->o, "gltf", 1, err)) != GANIM_OK) return code;
    g->doc = doc;
    g->err = err;
    g->alloc = ganim_allocator_resolve(&g->o.allocator);
    g->sk = doc->skeleton && doc->skeleton->bone_count ? doc->skeleton : NULL;
    g->nb = g->sk ? g->sk->bone_count : 0;
    g->cv = gx_conv_make(doc, &g->o);
    uint32_t roots = 0;
    for (uint32_t i = 0; i < g->nb; i++) roots += g->sk->bones[i].parent < 0;
    g->extra_root = roots > 1;
    g->root_node = g->extra_root ? g->nb : 0; /* bone 0 is always a root */
    size_t json0 = json->size, bin0 = bin->size;
    g->js = gw_init(json, &g->alloc);
    g->bin = gw_init(bin, &g->alloc);
    g->bin_base = bin0;
    g->acc = gw_init(&g->acc_buf, &g->alloc);
    g->views = gw_init(&g->views_buf, &g->alloc);
    g->chans = gw_init(&g->chans_buf, &g->alloc);
    g->samps = gw_init(&g->samps_buf, &g->alloc);
    const char *extra[2] = { "ganim_root", "ganim_bones" };
    size_t rest_bytes = (size_t)g->nb * sizeof *g->rest;
    if (g->nb) {
        g->rest = ganim_alloc(&g->alloc, rest_bytes);
        if (!g->rest || !gx_names_make(&g->alloc, g->sk, extra, 2, &g->names) || !gx_children_make(&g->alloc, g->sk, &g->kids))
            code = GANIM_NOMEM(err);
    }
    if (code == GANIM_OK) code = build(g, uri);
    ganim_free(&g->alloc, g->rest, rest_bytes);
    if (g->names.name) gx_names_free(&g->alloc, &g->names);
    if (g->kids.first) gx_children_free(&g->alloc, &g->kids);
    ganim_free(&g->alloc, g->map, g->keys_cap * sizeof *g->map);
    ganim_free(&g->alloc, g->times, g->keys_cap * sizeof *g->times);
    ganim_buffer_free(&g->acc_buf);
    ganim_buffer_free(&g->views_buf);
    ganim_buffer_free(&g->chans_buf);
    ganim_buffer_free(&g->samps_buf);
    if (code != GANIM_OK) { /* leave the caller's buffers as they were */
        json->size = json0;
        bin->size = bin0;
    }
    return code;
}

ganim_code ganim_export_gltf(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *json, ganim_buffer *bin,
                             ganim_error *err)
{
    const char *uri = opts && opts->bin_uri ? opts->bin_uri : "buffer.bin";
    return export_gltf(doc, opts, json, bin, uri, err);
}

/* GLB: 12-byte header, a JSON chunk padded with spaces, a BIN chunk padded with zeros. */
ganim_code ganim_export_glb(const ganim_doc *doc, const ganim_export_opts *opts, ganim_buffer *out, ganim_error *err)
{
    if (!out) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "gltf: no output buffer");
    ganim_buffer json = { 0 }, bin = { 0 };
    ganim_allocator a = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    json.allocator = bin.allocator = a;
    ganim_code code = export_gltf(doc, opts, &json, &bin, NULL, err);
    if (code == GANIM_OK) {
        size_t jpad = (4 - json.size % 4) % 4, bpad = (4 - bin.size % 4) % 4;
        size_t total = 12 + 8 + json.size + jpad + (bin.size ? 8 + bin.size + bpad : 0);
        if (total > UINT32_MAX) {
            code = ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, "gltf: %zu bytes do not fit in a .glb (4 GiB at most)", total);
        } else {
            size_t out0 = out->size;
            ganim_writer w = gw_init(out, &a);
            gw_reserve(&w, total);
            gw_u32le(&w, 0x46546C67u); /* "glTF" */
            gw_u32le(&w, 2);
            gw_u32le(&w, (uint32_t)total);
            gw_u32le(&w, (uint32_t)(json.size + jpad));
            gw_u32le(&w, 0x4E4F534Au); /* "JSON" */
            gw_bytes(&w, json.data, json.size);
            gw_bytes(&w, "   ", jpad);
            if (bin.size) {
                gw_u32le(&w, (uint32_t)(bin.size + bpad));
                gw_u32le(&w, 0x004E4942u); /* "BIN\0" */
                gw_bytes(&w, bin.data, bin.size);
                gw_zeros(&w, bpad);
            }
            if (!gw_ok(&w)) {
                out->size = out0;
                code = GANIM_NOMEM(err);
            }
        }
    }
    ganim_buffer_free(&json);
    ganim_buffer_free(&bin);
    return code;
}
