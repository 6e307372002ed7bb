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

void gl_put_f32s(gl *g, const float *v, int n)
{
    gl_check_finite(g, v, n);
    size_t bytes = (size_t)n * 4u;
    ganim_buffer *buf = g->bin.buf;
    if (n <= 0 || g->bin.failed) return;
    if (bytes > buf->capacity - buf->size && !gw_reserve(&g->bin, bytes)) return;
    /* straight into the reserved bytes: no staging copy, no per-call gw_bytes */
    uint8_t *b = buf->data + buf->size;
    for (int i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        b[i * 4] = (uint8_t)u, b[i * 4 + 1] = (uint8_t)(u >> 8), b[i * 4 + 2] = (uint8_t)(u >> 16);
        b[i * 4 + 3] = (uint8_t)(u >> 24);
    }
    buf->size += bytes;
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
    gw_printf(&g->views, "{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu", start - g->bin_base, len);
    if (target) gw_printf(&g->views, ",\"target\":%d", target);
    gw_u8(&g->views, '}');
    if (g->acc_count) gw_u8(&g->acc, ',');
    gw_printf(&g->acc, "{\"bufferView\":%u,\"componentType\":%d,\"count\":%u,\"type\":\"%s\"", g->view_count, comp,
              count, type);
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
