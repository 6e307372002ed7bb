/* The glTF exporter's binary buffer and accessors, which the document, the skeleton, the
 * animations and the mesh all fill: floats appended little-endian (non-finite ones
 * noted), bounds kept as they go, and each run of bytes made one bufferView and one
 * accessor. */
#include "export/export_gltf.h"

size_t gl_bin_align(gl *g)
{
    size_t rel = gw_pos(&g->bin) - g->bin_base;
    if (rel & 3) gw_zeros(&g->bin, 4 - (rel & 3));
    return gw_pos(&g->bin);
}

void gl_check_finite(gl *g, const float *v, int n)
{
    for (int i = 0; i < n && !g->nonfinite; i++)
        if (!isfinite(v[i])) {
            g->nonfinite = 1;
            g->nonfinite_acc = g->acc_count;
        }
}

void gl_json_floats(ganim_writer *w, const float *v, int n)
{
    gw_u8(w, '[');
    for (int i = 0; i < n; i++) {
        if (i) gw_u8(w, ',');
        gw_float(w, v[i]);
    }
    gw_u8(w, ']');
}

void gl_fs_begin(fstat *s, int n)
{
    s->n = n;
    s->count = 0;
}

void gl_fs_put(gl *g, fstat *s, const float *v)
{
    gl_put_f32s(g, v, s->n);
    for (int i = 0; i < s->n; i++) {
        if (!s->count || v[i] < s->mn[i]) s->mn[i] = v[i];
        if (!s->count || v[i] > s->mx[i]) s->mx[i] = v[i];
    }
    s->count++;
}

/* Bytes [start, end of buffer) become one bufferView and one accessor; returns its index. */
uint32_t gl_accessor(gl *g, size_t start, int comp, uint32_t count, const char *type, int target, const fstat *bounds)
{
    size_t len = gw_pos(&g->bin) - start;
    if (g->view_count) gw_u8(&g->views, ',');
    /* integers without printf (gw_dec); comp and target are GL enums, positive */
    gw_str(&g->views, "{\"buffer\":0,\"byteOffset\":");
    gw_dec(&g->views, start - g->bin_base);
    gw_str(&g->views, ",\"byteLength\":");
    gw_dec(&g->views, len);
    if (target) {
        gw_str(&g->views, ",\"target\":");
        gw_dec(&g->views, (uint64_t)target);
    }
    gw_u8(&g->views, '}');
    if (g->acc_count) gw_u8(&g->acc, ',');
    gw_str(&g->acc, "{\"bufferView\":");
    gw_dec(&g->acc, g->view_count);
    gw_str(&g->acc, ",\"componentType\":");
    gw_dec(&g->acc, (uint64_t)comp);
    gw_str(&g->acc, ",\"count\":");
    gw_dec(&g->acc, count);
    gw_str(&g->acc, ",\"type\":\"");
    gw_str(&g->acc, type);
    gw_u8(&g->acc, '"');
    if (bounds) {
        gw_str(&g->acc, ",\"min\":");
        gl_json_floats(&g->acc, bounds->mn, bounds->n);
        gw_str(&g->acc, ",\"max\":");
        gl_json_floats(&g->acc, bounds->mx, bounds->n);
    }
    gw_u8(&g->acc, '}');
    g->view_count++;
    return g->acc_count++;
}
