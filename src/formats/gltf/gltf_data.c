/* glTF binary data: buffers (the GLB's BIN chunk, base64 data URIs, or other files asked
 * of the caller's loader by their percent-decoded URI), buffer views and accessors
 * (float or normalised integer components, byte strides, sparse substitution). A buffer
 * is read only when an accessor the animations need lies in it, so a missing mesh or
 * image file does not matter. Every range is checked against the bytes present. */
#include "formats/gltf/gltf.h"

enum { BYTE = 5120, UBYTE = 5121, SHORT = 5122, USHORT = 5123, UINT = 5125, FLOAT = 5126 };

/* ---- buffers -------------------------------------------------------------------------------- */

static int b64_value(uint8_t c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+' || c == '-') return 62;
    if (c == '/' || c == '_') return 63;
    return -1;
}

/* Base64 text (padding optional, whitespace skipped) into scratch memory. */
static ganim_code base64(gltf_file *f, const char *text, size_t len, uint64_t offset, const uint8_t **out, size_t *size)
{
    uint8_t *o = gltf_scratch(f, len / 4 * 3 + 3, 1);
    if (!o) return GANIM_ERR_NOMEM;
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t c = (uint8_t)text[i];
        if (c == '=') break;
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
        int v = b64_value(c);
        if (v < 0)
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, offset, "gltf: a data URI holds '%c', which is not base64",
                              c >= 0x20 && c < 0x7F ? c : '?');
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            o[n++] = (uint8_t)(acc >> bits);
        }
    }
    *out = o;
    *size = n;
    return GANIM_OK;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* A URI's percent escapes decoded ("my%20file.bin" -> "my file.bin"). */
static ganim_code percent_decode(gltf_file *f, const char *uri, uint64_t offset, char **out)
{
    size_t len = strlen(uri), k = 0;
    char *o = gltf_scratch(f, len + 1, 1);
    if (!o) return GANIM_ERR_NOMEM;
    for (size_t i = 0; i < len; i++) {
        if (uri[i] == '%' && i + 2 < len && hexval(uri[i + 1]) >= 0 && hexval(uri[i + 2]) >= 0) {
            char c = (char)(hexval(uri[i + 1]) * 16 + hexval(uri[i + 2]));
            if (c == 0)
                return ganim_fail(f->err, GANIM_ERR_CORRUPT, offset, "gltf: the buffer URI '%.200s' holds %%00", uri);
            o[k++] = c;
            i += 2;
        } else {
            o[k++] = uri[i];
        }
    }
    o[k] = 0;
    *out = o;
    return GANIM_OK;
}

static ganim_code buffer_bytes(gltf_file *f, uint32_t index, const uint8_t **data, size_t *size)
{
    gltf_buf *b = &f->bufs[index];
    if (b->loaded) {
        *data = b->data;
        *size = b->size;
        return GANIM_OK;
    }
    const gj_value *bv = &f->buffers_v->items[index];
    uint64_t length;
    if (!gj_uint(gj_get(bv, "byteLength"), (uint64_t)1 << 53, &length))
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, bv->offset, "gltf: buffer %u: no byteLength", index);
    const gj_value *uri_v = gj_get(bv, "uri");
    const char *uri = NULL;
    const uint8_t *bytes = NULL;
    size_t have = 0;
    if (!uri_v) {
        if (index != 0 || !f->bin)
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, bv->offset,
                              "gltf: buffer %u has no uri and is not the binary chunk of a .glb", index);
        bytes = f->bin;
        have = f->bin_size;
        b->kind = GLTF_BUF_GLB;
    } else if (!gj_string(uri_v, &uri)) {
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, uri_v->offset, "gltf: buffer %u: the uri is not a string", index);
    } else if (!strncmp(uri, "data:", 5)) {
        const char *comma = memchr(uri, ',', uri_v->count);
        if (!comma || comma - uri < 12 || memcmp(comma - 7, ";base64", 7) != 0)
            return ganim_fail(f->err, GANIM_ERR_UNSUPPORTED, uri_v->offset,
                              "gltf: buffer %u: a data URI that is not base64 ('%.40s...')", index, uri);
        f->scratch_kept++;
        ganim_code code = base64(f, comma + 1, uri_v->count - (size_t)(comma + 1 - uri), uri_v->offset, &bytes, &have);
        if (code != GANIM_OK) return code;
        b->kind = GLTF_BUF_DATA_URI;
    } else {
        char *name = NULL;
        ganim_code code = percent_decode(f, uri, uri_v->offset, &name);
        if (code != GANIM_OK) return code;
        code = ganim_read_load(f->opts, name, &b->owned, f->err);
        if (code != GANIM_OK) return code;
        bytes = b->owned.data;
        have = b->owned.size;
        b->kind = GLTF_BUF_EXTERNAL;
    }
    if (have < length)
        return ganim_fail(f->err, GANIM_ERR_TRUNCATED, uri_v ? uri_v->offset : f->bin_offset + have,
                          "gltf: buffer %u: %llu bytes announced, %zu there", index, (unsigned long long)length, have);
    b->data = bytes;
    b->size = (size_t)length;
    b->loaded = 1;
    f->buffer_kinds[b->kind]++;
    *data = b->data;
    *size = b->size;
    return GANIM_OK;
}

void gltf_buffers_free(gltf_file *f)
{
    for (uint32_t i = 0; f->bufs && i < f->buf_count; i++) ganim_buffer_free(&f->bufs[i].owned);
}

/* ---- views and accessors -------------------------------------------------------------------- */

typedef struct view {
    const uint8_t *data; /* the view's bytes */
    size_t size;
    uint32_t stride; /* 0: tightly packed */
} view;

/* The members `names` (n of them) of bufferView or accessor `index` (kind GLTF_VIEWS or
 * GLTF_ACCESSORS) into m: from its record, as the tree holds them (in tmp; a string's text
 * one of `strings` when its bytes are), when they were read as records, else from the tree
 * (`arr`, with the memo). The object: the tree's, or *obj standing in for it (its offset,
 * no members). */
static const gj_value *members_of(gltf_file *f, int kind, uint32_t index, const char *const *strings,
                                  const gj_value *arr, const char *const *names, unsigned n, gltf_memo *memo,
                                  gj_value *tmp, gj_value *obj, const gj_value **m)
{
    const gj_records *r = &f->recs[kind];
    if (r->done) return gltf_record_object(f, r, &r->set, index, strings, tmp, obj, m); /* read as records */
    const gj_value *v = &arr->items[index];
    gltf_members(v, names, m, n, memo);
    return v;
}

/* bufferView `index` straight from its record's fields (buffer, byteOffset, byteLength,
 * byteStride as read_view's tree values would give them, and the object's offset in *at),
 * when it was read as records and read_view's checks of them pass; 0: read it from the
 * values (every message there). Its `extensions` field needs no look: a record's field is
 * never an object (scan_records gives up on one that has no nested fields), and gj_get of
 * anything else finds no meshopt member. */
static int view_record(const gltf_file *f, uint32_t index, uint32_t *buf, uint64_t *off, uint64_t *len,
                       uint64_t *stride, uint64_t *at)
{
    const gj_records *r = &f->recs[GLTF_VIEWS];
    if (!r->done) return 0;
    const gj_field *fl = &r->set.field[(size_t)index * r->fields]; /* (in the order of read_view's names) */
    uint64_t b;
    *off = *stride = 0;
    if (!gltf_field_uint(f, &fl[0], UINT32_MAX, &b) || b >= f->buf_count ||
        (fl[2].type != GJ_ABSENT && !gltf_field_uint(f, &fl[2], (uint64_t)1 << 53, off)) ||
        !gltf_field_uint(f, &fl[3], (uint64_t)1 << 53, len) ||
        (fl[4].type != GJ_ABSENT && (!gltf_field_uint(f, &fl[4], 252, stride) || *stride < 4 || *stride % 4)))
        return 0;
    *buf = (uint32_t)b;
    *at = f->json_offset + r->set.at[index];
    return 1;
}

static ganim_code read_view(gltf_file *f, uint32_t index, view *out)
{
    uint32_t buf;
    uint64_t off = 0, len = 0, stride = 0, at = 0;
    if (!f->recs[GLTF_VIEWS].done || !view_record(f, index, &buf, &off, &len, &stride, &at)) {
        static const char *const names[] = { "buffer", "extensions", "byteOffset", "byteLength", "byteStride" };
        const gj_value *m[5]; /* in the order of names (gltf.c's view_names) */
        gj_value tmp[5], obj;
        const gj_value *v = members_of(f, GLTF_VIEWS, index, NULL, f->views_v, names, 5, &f->memo_view, tmp, &obj, m);
        off = stride = 0;
        at = v->offset;
        int has = gltf_index_of(f, m[0], "buffer", f->buf_count, "bufferView", &buf);
        if (has < 0) return f->err ? f->err->code : GANIM_ERR_CORRUPT;
        if (!has) return ganim_fail(f->err, GANIM_ERR_CORRUPT, at, "gltf: bufferView %u has no buffer", index);
        if (gj_get(m[1], "EXT_meshopt_compression") || gj_get(m[1], "KHR_meshopt_compression"))
            return ganim_fail(f->err, GANIM_ERR_UNSUPPORTED, at,
                              "gltf: bufferView %u is compressed with meshopt, which ganim does not decode", index);
        if ((m[2] && !gj_uint(m[2], (uint64_t)1 << 53, &off)) || !gj_uint(m[3], (uint64_t)1 << 53, &len) ||
            (m[4] && (!gj_uint(m[4], 252, &stride) || stride < 4 || stride % 4)))
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, at,
                              "gltf: bufferView %u: byteOffset, byteLength or byteStride is not a valid number", index);
    }
    const uint8_t *bytes = NULL;
    size_t size = 0;
    ganim_code code = buffer_bytes(f, buf, &bytes, &size);
    if (code != GANIM_OK) return code;
    if (off > size || len > size - off)
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, at,
                          "gltf: bufferView %u: bytes %llu..%llu are beyond buffer %u (%zu bytes)", index,
                          (unsigned long long)off, (unsigned long long)off + len, buf, size);
    out->data = bytes + off;
    out->size = (size_t)len;
    out->stride = (uint32_t)stride;
    return GANIM_OK;
}

static int component_size(uint64_t type)
{
    switch (type) {
    case BYTE:
    case UBYTE: return 1;
    case SHORT:
    case USHORT: return 2;
    case UINT:
    case FLOAT: return 4;
    default: return 0;
    }
}

static float component(const uint8_t *p, uint32_t type, int normalized)
{
    switch (type) {
    case FLOAT: return ganim_ld_f32le(p);
    case BYTE: {
        float v = (float)(int8_t)p[0];
        return normalized ? fmaxf(v / 127.0f, -1.0f) : v;
    }
    case UBYTE: return normalized ? (float)p[0] / 255.0f : (float)p[0];
    case SHORT: {
        float v = (float)(int16_t)ganim_ld_u16le(p);
        return normalized ? fmaxf(v / 32767.0f, -1.0f) : v;
    }
    case USHORT: return normalized ? (float)ganim_ld_u16le(p) / 65535.0f : (float)ganim_ld_u16le(p);
    default: return (float)ganim_ld_u32le(p);
    }
}

/* The components of each accessor type, in the order of gltf_accessor_floats' `types`. */
static const int type_comps[] = { 1, 2, 3, 4, 4, 9, 16 };

static int type_components(const char *t)
{
    static const char *const names[] = { "SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4" };
    for (int i = 0; i < 7; i++)
        if (t[0] == names[i][0] && t[1] == names[i][1] && !strcmp(t, names[i])) return type_comps[i];
    return 0;
}

/* Checks that `count` elements of `elem` bytes at `offset` with `stride` fit in `size`. */
static int fits(uint64_t offset, uint64_t count, uint64_t elem, uint64_t stride, uint64_t size)
{
    if (!count) return offset <= size;
    uint64_t last = offset + (count - 1) * stride; /* count < 2^32, stride <= 252 */
    return offset <= size && last <= size && elem <= size - last;
}

/* Sparse substitution: the listed elements replace those of the base. */
static ganim_code sparse(gltf_file *f, uint32_t index, const gj_value *sp, uint32_t count, int comps, uint32_t ctype,
                         int normalized, float *out)
{
    const gj_value *iv = gj_get(sp, "indices"), *vv = gj_get(sp, "values");
    uint64_t n, ioff = 0, voff = 0, itype;
    uint32_t iview, vview;
    if (!gj_uint(gj_get(sp, "count"), count, &n) || n == 0 || !gj_is(iv, GJ_OBJECT) || !gj_is(vv, GJ_OBJECT) ||
        gltf_index(f, iv, "bufferView", f->view_count, "sparse indices", &iview) != 1 ||
        gltf_index(f, vv, "bufferView", f->view_count, "sparse values", &vview) != 1 ||
        !gj_uint(gj_get(iv, "componentType"), UINT32_MAX, &itype) ||
        (itype != UBYTE && itype != USHORT && itype != UINT) ||
        (gj_get(iv, "byteOffset") && !gj_uint(gj_get(iv, "byteOffset"), (uint64_t)1 << 53, &ioff)) ||
        (gj_get(vv, "byteOffset") && !gj_uint(gj_get(vv, "byteOffset"), (uint64_t)1 << 53, &voff)))
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, sp->offset, "gltf: accessor %u: the sparse part is not valid",
                          index);
    view ix = { NULL, 0, 0 }, vx = { NULL, 0, 0 };
    ganim_code code;
    if ((code = read_view(f, iview, &ix)) != GANIM_OK || (code = read_view(f, vview, &vx)) != GANIM_OK) return code;
    int isize = component_size(itype), csize = component_size(ctype);
    uint64_t elem = (uint64_t)comps * (uint64_t)csize;
    if (!ix.data || !vx.data || !fits(ioff, n, (uint64_t)isize, (uint64_t)isize, ix.size) ||
        !fits(voff, n, elem, elem, vx.size))
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, sp->offset,
                          "gltf: accessor %u: %llu sparse elements do not fit in their buffer views", index,
                          (unsigned long long)n);
    for (uint64_t k = 0; k < n; k++) {
        const uint8_t *ip = ix.data + ioff + k * (uint64_t)isize;
        uint32_t at = isize == 1 ? ip[0] : isize == 2 ? ganim_ld_u16le(ip) : ganim_ld_u32le(ip);
        if (at >= count)
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, sp->offset,
                              "gltf: accessor %u: sparse index %u is beyond its %u elements", index, at, count);
        const uint8_t *vp = vx.data + voff + k * elem;
        for (int c = 0; c < comps; c++)
            out[(size_t)at * (size_t)comps + (size_t)c] = component(vp + c * csize, ctype, normalized);
    }
    return GANIM_OK;
}

/* Elements an accessor without a buffer view may have (all zeros, then sparse): nothing
 * in the file bounds them, so the library's frame limit does. */
#define MAX_VIEWLESS (GANIM_MAX_FRAMES * 4u)

/* How messages name an accessor's use: "animation 0 sampler 3 input". */
#define USE_FMT "animation %u sampler %u %s"
#define USE_ARGS(u) (u)->animation, (u)->sampler, (u)->side

/* n elements of `comps` float32 components, `stride` bytes apart, into out. */
static void copy_floats(float *out, const uint8_t *p, uint64_t n, int comps, uint64_t stride)
{
    size_t elem = (size_t)comps * sizeof(float);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (stride == elem) {
        memcpy(out, p, (size_t)n * elem);
        return;
    }
    for (uint64_t k = 0; k < n; k++) memcpy(out + k * (uint64_t)comps, p + k * stride, elem);
#else
    for (uint64_t k = 0; k < n; k++)
        for (int c = 0; c < comps; c++)
            out[k * (uint64_t)comps + (uint64_t)c] = ganim_ld_f32le(p + k * stride + 4u * (uint64_t)c);
#endif
}

/* Memory for n x comps floats of one use (the document's or scratch; zeroed when `zero`). */
static float *floats_for(gltf_file *f, const gltf_use *use, uint64_t n, int comps, int zero)
{
    size_t k = (size_t)n * (size_t)comps;
    if (use->doc) {
        float *o = zero ? ganim_doc_alloc_array(f->doc, k, sizeof(float))
                        : ganim_doc_alloc_array_raw(f->doc, k, sizeof(float));
        if (!o) GANIM_NOMEM(f->err);
        return o;
    }
    return zero ? gltf_scratch(f, k, sizeof(float)) : gltf_scratch_raw(f, k, sizeof(float));
}

/* The float32 bytes themselves, when they can be read as floats where they are: packed,
 * aligned, on a little-endian host (NULL: they are copied). */
static float *borrowable(const uint8_t *p, uint64_t stride, int comps)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (stride == (uint64_t)comps * sizeof(float) && (uintptr_t)p % _Alignof(float) == 0) return (float *)(uintptr_t)p;
#else
    (void)p, (void)stride, (void)comps;
#endif
    return NULL;
}

/* An accessor's members as gltf_accessor_floats reads them. */
typedef struct acc_fields {
    uint64_t ctype, n, off, at; /* at: the object's offset */
    const char *type;           /* one of gltf_accessor_floats' `types` */
    int tcomps, normalized, has_view;
    uint32_t view;
} acc_fields;

/* Accessor `index` straight from its record's fields, when it was read as records, the
 * checks gltf_accessor_floats makes of its values before it reads the view pass on them
 * (componentType, count, type, byteOffset; bufferView absent or a view), and it has no
 * sparse field; 0: read it from the values (every message there). */
static int accessor_record(const gltf_file *f, uint32_t index, const char *const *types, acc_fields *af)
{
    const gj_records *r = &f->recs[GLTF_ACCESSORS];
    if (!r->done) return 0;
    const gj_field *fl = &r->set.field[(size_t)index * r->fields]; /* (in the order of `names` there) */
    uint64_t vw = 0;
    af->off = 0;
    if (!gltf_field_uint(f, &fl[1], UINT32_MAX, &af->ctype) || !component_size(af->ctype) ||
        !gltf_field_uint(f, &fl[2], UINT32_MAX, &af->n) || fl[3].type != GJ_STRING ||
        (fl[4].type != GJ_ABSENT && !gltf_field_uint(f, &fl[4], (uint64_t)1 << 53, &af->off)) ||
        fl[6].type != GJ_ABSENT ||
        (fl[0].type != GJ_ABSENT && (!gltf_field_uint(f, &fl[0], UINT32_MAX, &vw) || vw >= f->view_count)))
        return 0;
    /* the type: one of `types` (SCALAR, then six of four bytes) as its bytes are (no escapes) */
    const char *s = (const char *)f->json_text + fl[3].at + 1;
    unsigned t = 0;
    if (fl[3].count == 6 && memcmp(s, "SCALAR", 6) == 0) {
        t = 0;
    } else if (fl[3].count == 4) {
        uint32_t w, c;
        memcpy(&w, s, 4);
        for (t = 1; types[t]; t++) {
            memcpy(&c, types[t], 4);
            if (w == c) break;
        }
        if (!types[t]) return 0;
    } else {
        return 0;
    }
    af->type = types[t];
    af->tcomps = type_comps[t]; /* (type_components of types[t]) */
    af->normalized = fl[5].type == GJ_TRUE;
    af->has_view = fl[0].type != GJ_ABSENT;
    af->view = (uint32_t)vw;
    af->at = f->json_offset + r->set.at[index];
    return 1;
}

ganim_code gltf_accessor_floats(gltf_file *f, uint32_t index, int comps, int ints, gltf_use *use, float **out,
                                uint32_t *count)
{
    use->borrowed = 0;
    /* the key times read last, read again (an animation's samplers share their input
     * accessor): the same checked float32 bytes copied again (only SCALARs are kept) */
    for (unsigned i = 0; comps == 1 && i < GLTF_ACC_MEMO; i++) {
        const gltf_acc_memo *m = &f->acc_memo[i];
        if (!m->src || m->index != index || m->comps != comps || m->ints != ints) continue;
        if (use->shared && !use->doc && m->floats) { /* the same floats again, no copy */
            *out = (float *)(uintptr_t)m->floats;
            *count = (uint32_t)m->n;
            return GANIM_OK;
        }
        float *b = use->borrow && !use->doc ? borrowable(m->src, m->stride, comps) : NULL;
        if (b) {
            use->borrowed = 1;
            *out = b;
            *count = (uint32_t)m->n;
            return GANIM_OK;
        }
        float *o = floats_for(f, use, m->n, comps, 0);
        if (!o) return GANIM_ERR_NOMEM;
        copy_floats(o, m->src, m->n, comps, m->stride);
        *out = o;
        *count = (uint32_t)m->n;
        return GANIM_OK;
    }
    if (index >= f->accessor_count)
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "gltf: " USE_FMT ": accessor %u does not exist",
                          USE_ARGS(use), index);
    static const char *const names[] = { "bufferView", "componentType", "count", "type",
                                         "byteOffset", "normalized",    "sparse" };
    static const char *const types[] = { "SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4", NULL };
    const gj_value *mv[7]; /* in the order of names (gltf.c's acc_names) */
    gj_value tmp[7], obj;
    acc_fields af;
    const char *type = "";
    uint64_t ctype, n, off = 0, at; /* at: the accessor's offset, for messages */
    int normalized, tcomps = 0, fast = f->recs[GLTF_ACCESSORS].done && accessor_record(f, index, types, &af);
    if (fast) {
        ctype = af.ctype, n = af.n, off = af.off, type = af.type, tcomps = af.tcomps, normalized = af.normalized;
        mv[0] = mv[6] = NULL; /* (the view is af's; no sparse) */
        at = af.at;
    } else {
        at = members_of(f, GLTF_ACCESSORS, index, types, f->accessors_v, names, 7, &f->memo_accessor, tmp, &obj, mv)
                 ->offset;
        normalized = gj_is(mv[5], GJ_TRUE);
        if (!gj_uint(mv[1], UINT32_MAX, &ctype) || !component_size(ctype) || !gj_uint(mv[2], UINT32_MAX, &n) ||
            !gj_string(mv[3], &type) || !(tcomps = type_components(type)) ||
            (mv[4] && !gj_uint(mv[4], (uint64_t)1 << 53, &off)))
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, at,
                              "gltf: accessor %u: componentType, count, type or byteOffset is missing or not valid",
                              index);
    }
    if (tcomps != comps)
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, at, "gltf: " USE_FMT ": accessor %u is %s, not %s", USE_ARGS(use),
                          index, type,
                          comps == 1   ? "SCALAR"
                          : comps == 3 ? "VEC3"
                                       : "VEC4");
    if (ctype != FLOAT && (!ints || !normalized || ctype == UINT))
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, at,
                          "gltf: " USE_FMT ": accessor %u holds %s integers where floats%s are needed", USE_ARGS(use),
                          index, normalized ? "normalized" : "plain", ints ? " or normalized integers" : "");
    if (n == 0)
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, at, "gltf: " USE_FMT ": accessor %u has no elements",
                          USE_ARGS(use), index);
    uint32_t vi = fast ? af.view : 0;
    int has_view = fast ? af.has_view : gltf_index_of(f, mv[0], "bufferView", f->view_count, "accessor", &vi);
    if (has_view < 0) return f->err ? f->err->code : GANIM_ERR_CORRUPT;
    int csize = component_size(ctype);
    uint64_t elem = (uint64_t)comps * (uint64_t)csize;
    view v = { NULL, 0, 0 };
    if (has_view) {
        ganim_code code = read_view(f, vi, &v);
        if (code != GANIM_OK) return code;
        if (!v.data || !fits(off, n, elem, v.stride ? v.stride : elem, v.size))
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, at,
                              "gltf: accessor %u: %llu elements of %llu bytes do not fit in bufferView %u (%zu bytes)",
                              index, (unsigned long long)n, (unsigned long long)elem, vi, v.size);
    } else if (n > MAX_VIEWLESS) {
        return ganim_fail(f->err, GANIM_ERR_LIMIT, at,
                          "gltf: accessor %u: %llu elements without a buffer view (at most %u)", index,
                          (unsigned long long)n, MAX_VIEWLESS);
    }
    const gj_value *sp = mv[6]; /* (NULL when fast) */
    uint64_t stride = v.stride ? v.stride : elem;
    /* float32 bytes the caller only reads (or copies before writing) are used where they
     * are; with a view every element is written below; without one they are zeros */
    float *o =
        use->borrow && !use->doc && v.data && ctype == FLOAT && !sp ? borrowable(v.data + off, stride, comps) : NULL;
    use->borrowed = o != NULL;
    if (!o && !(o = floats_for(f, use, n, comps, !v.data))) return GANIM_ERR_NOMEM;
    if (v.data && !use->borrowed) { /* has_view: the whole range was checked above */
        if (ctype == FLOAT) {
            copy_floats(o, v.data + off, n, comps, stride);
        } else {
            for (uint64_t k = 0; k < n; k++) {
                const uint8_t *p = v.data + off + k * stride;
                for (int c = 0; c < comps; c++)
                    o[k * (uint64_t)comps + (uint64_t)c] = component(p + c * csize, (uint32_t)ctype, normalized);
            }
        }
    }
    if (sp) {
        ganim_code code = sparse(f, index, sp, (uint32_t)n, comps, (uint32_t)ctype, normalized, o);
        if (code != GANIM_OK) return code;
    }
    if (comps == 1 && v.data && ctype == FLOAT && !sp) {
        gltf_acc_memo *m = &f->acc_memo[f->acc_memo_next++ % GLTF_ACC_MEMO];
        m->src = v.data + off;
        m->n = n;
        m->stride = stride;
        m->index = index;
        m->comps = comps;
        m->ints = ints;
        m->floats = use->shared && !use->doc ? o : NULL; /* (borrowed floats: never written either) */
    }
    *out = o;
    *count = (uint32_t)n;
    return GANIM_OK;
}
