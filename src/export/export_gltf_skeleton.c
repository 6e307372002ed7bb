/* glTF export: the skeleton as a node hierarchy (rest pose as node TRS) with a skin, and a
 * small skinned mesh of bone sticks so every viewer draws something (unless the document
 * holds meshes of its own: export_gltf_mesh.c writes those instead). */
#include <float.h>
#include <math.h>

#include "export/export_gltf.h"

/* ---- nodes, skin, bone mesh ------------------------------------------------------------- */

ganim_code gl_convert_rest(gl *g)
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
        if (g->o.unscaled_rest) r->scale.x = r->scale.y = r->scale.z = 1;
    }
    /* Blender's importer drops rest scales from its bones: say so where they would matter */
    uint32_t scaled = 0, first = 0;
    for (uint32_t i = 0; i < g->nb && !g->o.unscaled_rest; i++) {
        const ganim_vec3 *s = &g->sk->bones[i].rest.scale;
        if (fabsf(s->x - 1) > 1e-5f || fabsf(s->y - 1) > 1e-5f || fabsf(s->z - 1) > 1e-5f) {
            if (!scaled++) first = i;
        }
    }
    if (scaled)
        gx_warn(&g->o, GANIM_WARN_EXPORT_LOSS,
                "gltf: %u bone%s of the rest pose %s scaled (first: %u '%s'); Blender's glTF importer drops rest "
                "scales from its bones and then deforms the mesh away from the pose (its bones are right); "
                "--unscaled-rest (ganim_export_opts.unscaled_rest) writes a rest Blender shows right",
                scaled, scaled == 1 ? "" : "s", scaled == 1 ? "is" : "are", first, g->sk->bones[first].name);
    return GANIM_OK;
}

/* The glTF default, bit for bit: a rest rotation with a -0 is written, so that it reads back
 * with its sign (glb -> read -> glb writes the same keys where a clip holds it). */
static int is_identity_q(const ganim_quat *q)
{
    return q->x == 0 && q->y == 0 && q->z == 0 && q->w == 1 && !signbit(q->x) && !signbit(q->y) && !signbit(q->z);
}

void gl_write_nodes(gl *g)
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
            for (uint32_t k = c0; k < c1; k++) gx_text_dec(w, k > c0 ? "," : "", g->kids.list[k]);
            gw_u8(w, ']');
        }
        gl_check_finite(g, &r->rotation.x, 4);
        gl_check_finite(g, &r->translation.x, 3);
        gl_check_finite(g, &r->scale.x, 3);
        if (!is_identity_q(&r->rotation)) {
            gw_str(w, ",\"rotation\":");
            gl_json_floats(w, &r->rotation.x, 4);
        }
        if (r->translation.x != 0 || r->translation.y != 0 || r->translation.z != 0 || signbit(r->translation.x) ||
            signbit(r->translation.y) || signbit(r->translation.z)) {
            gw_str(w, ",\"translation\":");
            gl_json_floats(w, &r->translation.x, 3);
        }
        if (r->scale.x != 1 || r->scale.y != 1 || r->scale.z != 1) {
            gw_str(w, ",\"scale\":");
            gl_json_floats(w, &r->scale.x, 3);
        }
        int renamed = strcmp(b->name, g->names.name[i]) != 0;
        if (renamed || b->flags) {
            gw_str(w, ",\"extras\":{\"ganim\":{");
            if (renamed) {
                gw_str(w, "\"name\":");
                gw_json_string(w, b->name);
            }
            if (b->flags) gx_text_dec(w, renamed ? ",\"flags\":" : "\"flags\":", b->flags);
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
            gx_text_dec(w, first ? "" : ",", i);
            first = 0;
        }
        gw_str(w, "]}");
    }
    /* the document's meshes, or the bone sticks: each a root node skinned to skin 0 */
    for (uint32_t k = 0; k < (g->mesh_nodes ? g->mesh_nodes : 1); k++) {
        gw_str(w, ",{\"name\":");
        gw_json_string(w, g->names.name[g->nb + 1 + k]);
        gx_text_dec(w, ",\"mesh\":", k);
        gw_str(w, ",\"skin\":0}");
    }
    gw_u8(w, ']');
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
    size_t start = gl_bin_align(g);
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
        gl_put_f32s(g, inv, 16);
    }
    return gl_accessor(g, start, GL_FLOAT, g->nb, "MAT4", 0, NULL);
}

/* The bone mesh: an octahedral stick from each joint to each child (skinned to the
 * joint), and a small tetrahedron for joints that have no stick (leaves, children at the
 * same place). Returns the JSON of the mesh, or an error. */
typedef struct mesh_build {
    float *pos;
    uint32_t *joint, *idx;
    uint32_t nv, ni;
} mesh_build;

/* The bone sticks are only a picture of the skeleton: a corner beyond the float range
 * (joints near +-3.4e38) is drawn at the range's edge. */
static void mesh_vertex(mesh_build *m, const double p[3], uint32_t joint)
{
    for (int k = 0; k < 3; k++)
        m->pos[m->nv * 3 + (uint32_t)k] = (float)(p[k] > FLT_MAX ? FLT_MAX : p[k] < -FLT_MAX ? -FLT_MAX : p[k]);
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
    double ext =
        sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
    double eps = 1e-6 * (ext > 1 ? ext : 1), leaf = ext > 0 ? 0.02 * ext : 0.05;
    /* count first: every bone has at most its children as sticks, or one tetrahedron;
     * none for bones the skeleton hides (g->hide), unless that leaves nothing to draw */
    uint32_t nsticks = 0, ntets = 0, shown = 0;
    for (uint32_t i = 0; i < g->nb; i++) shown += g->hide[i] == GL_SHOWN;
    for (uint32_t i = 0; i < g->nb; i++) {
        if (shown && g->hide[i] != GL_SHOWN) continue;
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
    mesh_build m = { (float *)(void *)mem, (uint32_t *)(void *)(mem + nv * 12), (uint32_t *)(void *)(mem + nv * 16), 0,
                     0 };
    for (uint32_t i = 0; i < g->nb; i++) {
        if (shown && g->hide[i] != GL_SHOWN) continue;
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
    gl_fs_begin(&fs, 3);
    size_t start = gl_bin_align(g);
    for (uint32_t v = 0; v < m.nv; v++) gl_fs_put(g, &fs, m.pos + (size_t)v * 3);
    *a_pos = gl_accessor(g, start, GL_FLOAT, m.nv, "VEC3", GL_ARRAY_BUFFER, &fs);
    int small = g->nb <= 256;
    start = gl_bin_align(g);
    for (uint32_t v = 0; v < m.nv; v++) {
        if (small) {
            gw_u32le(&g->bin, m.joint[v]); /* bytes j, 0, 0, 0 */
        } else {
            gw_u16le(&g->bin, (uint16_t)m.joint[v]);
            gw_zeros(&g->bin, 6);
        }
    }
    *a_joint = gl_accessor(g, start, small ? GL_UNSIGNED_BYTE : GL_UNSIGNED_SHORT, m.nv, "VEC4", GL_ARRAY_BUFFER, NULL);
    start = gl_bin_align(g);
    static const float one[4] = { 1, 0, 0, 0 };
    for (uint32_t v = 0; v < m.nv; v++) gl_put_f32s(g, one, 4);
    *a_weight = gl_accessor(g, start, GL_FLOAT, m.nv, "VEC4", GL_ARRAY_BUFFER, NULL);
    start = gl_bin_align(g);
    int wide = m.nv > 65535;
    for (uint32_t k = 0; k < m.ni; k++) {
        if (wide) gw_u32le(&g->bin, m.idx[k]);
        else gw_u16le(&g->bin, (uint16_t)m.idx[k]);
    }
    *a_idx = gl_accessor(g, start, wide ? GL_UNSIGNED_INT : GL_UNSIGNED_SHORT, m.ni, "SCALAR", GL_ELEMENT_ARRAY_BUFFER,
                         NULL);
    ganim_free(&g->alloc, mem, bytes);
    return GANIM_OK;
}

ganim_code gl_write_skeleton(gl *g)
{
    size_t wbytes = (size_t)g->nb * 16 * sizeof(float);
    float *world = ganim_alloc(&g->alloc, wbytes);
    if (!world) return GANIM_NOMEM(g->err);
    world_matrices(g, world);
    uint32_t a_ibm = write_ibms(g, world), a_pos = 0, a_joint = 0, a_weight = 0, a_idx = 0;
    /* The document's own meshes replace the bone sticks: they show the model itself. */
    ganim_code code = g->mesh_nodes ? GANIM_OK : write_mesh(g, world, &a_pos, &a_joint, &a_weight, &a_idx);
    ganim_free(&g->alloc, world, wbytes);
    if (code != GANIM_OK) return code;
    ganim_writer *w = &g->js;
    gw_str(w, ",\"skins\":[{\"name\":");
    gw_json_string(w, g->sk->name[0] ? g->sk->name : "skeleton");
    gw_printf(w, ",\"inverseBindMatrices\":%u,\"skeleton\":%u,\"joints\":[", a_ibm, g->root_node);
    for (uint32_t i = 0; i < g->nb; i++) gx_text_dec(w, i ? "," : "", i);
    gw_u8(w, ']');
    gl_carry_skin(g);
    gw_str(w, "}]");
    if (g->mesh_nodes) return gl_write_meshes(g);
    gw_str(w, ",\"meshes\":[{\"name\":");
    gw_json_string(w, g->names.name[g->nb + 1]);
    gw_printf(w,
              ",\"primitives\":[{\"attributes\":{\"POSITION\":%u,\"JOINTS_0\":%u,\"WEIGHTS_0\":%u},\"indices\":%u}]}]",
              a_pos, a_joint, a_weight, a_idx);
    return GANIM_OK;
}
