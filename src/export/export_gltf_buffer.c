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
    size_t len = gw_pos(&g->bin) - start, lt = strlen(type);
    /* integers without printf (gl_dec), each entry's fixed part built in a local array and
     * appended once; comp and target are GL enums, positive; type is a short name */
    char tv[128], ta[128], *p = tv, *q = ta;
    if (g->view_count) *p++ = ',';
    p = GL_LIT(p, "{\"buffer\":0,\"byteOffset\":");
    p = gl_dec(p, start - g->bin_base);
    p = GL_LIT(p, ",\"byteLength\":");
    p = gl_dec(p, len);
    if (target) {
        p = GL_LIT(p, ",\"target\":");
        p = gl_dec(p, (uint64_t)target);
    }
    *p++ = '}';
    gw_bytes(&g->views, tv, (size_t)(p - tv));
    if (g->acc_count) *q++ = ',';
    q = GL_LIT(q, "{\"bufferView\":");
    q = gl_dec(q, g->view_count);
    q = GL_LIT(q, ",\"componentType\":");
    q = gl_dec(q, (uint64_t)comp);
    q = GL_LIT(q, ",\"count\":");
    q = gl_dec(q, count);
    q = GL_LIT(q, ",\"type\":\"");
    memcpy(q, type, lt), q += lt;
    *q++ = '"';
    gw_bytes(&g->acc, ta, (size_t)(q - ta));
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
