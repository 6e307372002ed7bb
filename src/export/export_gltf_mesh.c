/* glTF export: the document's own meshes (Argonaut models), each a skinned mesh whose
 * vertices follow one joint rigidly (JOINTS_0 = the vertex's bone, WEIGHTS_0 = 1). The
 * positions and normals are turned and scaled like the root bones, so they sit in the
 * same space as the skin's inverse bind matrices. */
#include "export/export_gltf.h"

int gl_mesh_exported(const ganim_mesh *m) { return m->vertex_count > 0 && m->triangle_count > 0; }

static ganim_code bad_mesh(gl *g, uint32_t mi, const char *what, uint32_t v)
{
    return ganim_fail(g->err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                      "gltf: mesh %u ('%s'): %s of vertex %u is not finite after conversion", mi,
                      g->doc->meshes[mi].name, what, v);
}

/* One primitive: POSITION (with min/max), NORMAL, JOINTS_0, WEIGHTS_0 and the indices. */
static ganim_code write_one(gl *g, uint32_t mi, int first)
{
    const ganim_mesh *m = &g->doc->meshes[mi];
    fstat fs;
    gl_fs_begin(&fs, 3);
    size_t start = gl_bin_align(g);
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        float p[3];
        if (!gx_translation(&g->cv, 1, m->positions + (size_t)v * 3, p)) return bad_mesh(g, mi, "position", v);
        gl_fs_put(g, &fs, p);
    }
    uint32_t a_pos = gl_accessor(g, start, GL_FLOAT, m->vertex_count, "VEC3", GL_ARRAY_BUFFER, &fs);
    uint32_t a_nrm = NO_ACC;
    if (m->normals) {
        start = gl_bin_align(g);
        for (uint32_t v = 0; v < m->vertex_count; v++) {
            const float *n = m->normals + (size_t)v * 3;
            double d[3] = { n[0], n[1], n[2] };
            if (!g->cv.identity) ganim_dq_rot(g->cv.c, d, d);
            double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (!(len > 1e-6) || !isfinite(len)) return bad_mesh(g, mi, "normal", v);
            float u[3] = { (float)(d[0] / len), (float)(d[1] / len), (float)(d[2] / len) };
            gl_put_f32s(g, u, 3);
        }
        a_nrm = gl_accessor(g, start, GL_FLOAT, m->vertex_count, "VEC3", GL_ARRAY_BUFFER, NULL);
    }
    int small = g->nb <= 256;
    start = gl_bin_align(g);
    for (uint32_t v = 0; v < m->vertex_count; v++) {
        if (small) {
            gw_u32le(&g->bin, m->bones[v]); /* bytes j, 0, 0, 0 */
        } else {
            gw_u16le(&g->bin, (uint16_t)m->bones[v]);
            gw_zeros(&g->bin, 6);
        }
    }
    uint32_t a_joint = gl_accessor(g, start, small ? GL_UNSIGNED_BYTE : GL_UNSIGNED_SHORT, m->vertex_count, "VEC4",
                                   GL_ARRAY_BUFFER, NULL);
    start = gl_bin_align(g);
    static const float one[4] = { 1, 0, 0, 0 };
    for (uint32_t v = 0; v < m->vertex_count; v++) gl_put_f32s(g, one, 4);
    uint32_t a_weight = gl_accessor(g, start, GL_FLOAT, m->vertex_count, "VEC4", GL_ARRAY_BUFFER, NULL);
    start = gl_bin_align(g);
    int wide = m->vertex_count > 65535;
    size_t ni = (size_t)m->triangle_count * 3;
    for (size_t k = 0; k < ni; k++) {
        if (wide) gw_u32le(&g->bin, m->triangles[k]);
        else gw_u16le(&g->bin, (uint16_t)m->triangles[k]);
    }
    uint32_t a_idx = gl_accessor(g, start, wide ? GL_UNSIGNED_INT : GL_UNSIGNED_SHORT, (uint32_t)ni, "SCALAR",
                                 GL_ELEMENT_ARRAY_BUFFER, NULL);
    ganim_writer *w = &g->js;
    gw_str(w, first ? "{\"name\":" : ",{\"name\":");
    gw_json_string(w, g->names.name[g->nb + 1 + g->mesh_written]);
    gw_printf(w, ",\"primitives\":[{\"attributes\":{\"POSITION\":%u", a_pos);
    if (a_nrm != NO_ACC) gw_printf(w, ",\"NORMAL\":%u", a_nrm);
    gw_printf(w, ",\"JOINTS_0\":%u,\"WEIGHTS_0\":%u},\"indices\":%u}]}", a_joint, a_weight, a_idx);
    return GANIM_OK;
}

ganim_code gl_write_meshes(gl *g)
{
    gw_str(&g->js, ",\"meshes\":[");
    g->mesh_written = 0;
    for (uint32_t mi = 0; mi < g->doc->mesh_count; mi++) {
        if (!gl_mesh_exported(&g->doc->meshes[mi])) continue;
        ganim_code code = write_one(g, mi, g->mesh_written == 0);
        if (code != GANIM_OK) return code;
        g->mesh_written++;
    }
    gw_u8(&g->js, ']');
    return GANIM_OK;
}
