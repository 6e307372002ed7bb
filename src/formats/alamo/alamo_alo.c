/* Alamo .ALO models: only the skeleton (chunk 0x200) is read and written. The skeleton's
 * native record is the raw 0x200 chunk; the writer re-encodes it when the model still
 * matches it, otherwise it writes version-2 bone chunks from the model. */
#include <math.h>
#include <string.h>

#include "formats/alamo/alamo_ala.h"

typedef struct alo_pbone {
    const uint8_t *name;
    uint32_t name_size;
    uint32_t data_type; /* 0x205 or 0x206 */
    int32_t parent;     /* as stored */
    uint32_t visible, billboard;
    uint32_t m[12]; /* raw float bits, 3x4 row-major */
} alo_pbone;

typedef struct alo_plan {
    const uint8_t *header; /* 0x201 body */
    uint32_t header_size;
    uint32_t count;
    alo_pbone *bones;
    bool canonical;
} alo_plan;

/* Rest transform of a bone's stored matrix (raw float bits, 3x4 row-major). */
static bool alo_decompose(const uint32_t raw[12], ganim_transform *out)
{
    float m[12];
    for (int i = 0; i < 12; i++) m[i] = ganim_f32_from_bits(raw[i]);
    return ganim_transform_from_mat34(m, out) != 0;
}

static void alo_compose(const ganim_transform *t, uint32_t raw[12])
{
    float m[12];
    ganim_transform_to_mat34(t, m);
    for (int i = 0; i < 12; i++) raw[i] = ganim_f32_bits(m[i]);
}

/* Parse the body of a 0x200 chunk. Bones go to `bones` (caller-sized by counting). */
static ganim_code alo_parse_bone(alo_pbone *b, const ganim_chunk *bc, alo_plan *p, ganim_error *err)
{
    ganim_reader r = bc->body;
    ganim_chunk c;
    int st;
    bool have_data = false;
    static const char empty[1] = { 0 };
    b->name = (const uint8_t *)empty;
    b->name_size = 0;
    while ((st = gc_next(&r, &c)) == GC_OK) {
        if (c.type == ALO_BONE_NAME && !c.container && !have_data && b->name_size == 0) {
            b->name = c.body.data;
            b->name_size = c.size;
        } else if ((c.type == ALO_BONE_V1 || c.type == ALO_BONE_V2) && !c.container && !have_data) {
            uint32_t want = c.type == ALO_BONE_V1 ? 52u : 60u;
            if (c.size != want)
                return ganim_fail(err, GANIM_ERR_CORRUPT, c.offset,
                                  ALO ": bone data chunk 0x%x at byte %llu has %u bytes, expected %u", c.type,
                                  (unsigned long long)c.offset, c.size, want);
            ganim_reader d = c.body;
            b->data_type = c.type;
            (void)gr_i32le(&d, &b->parent);
            (void)gr_u32le(&d, &b->visible);
            b->billboard = 0;
            if (c.type == ALO_BONE_V2) (void)gr_u32le(&d, &b->billboard);
            for (int i = 0; i < 12; i++) (void)gr_u32le(&d, &b->m[i]);
            have_data = true;
        } else {
            p->canonical = false;
        }
    }
    if (st == GC_BAD) return gc_fail(err, ALO, "bone", &bc->body, &c);
    if (!have_data)
        return ganim_fail(err, GANIM_ERR_CORRUPT, bc->offset,
                          ALO ": bone chunk at byte %llu has no bone data (0x205/0x206)",
                          (unsigned long long)bc->offset);
    return GANIM_OK;
}

static ganim_code alo_parse(alo_plan *p, const ganim_chunk *skel, const ganim_allocator *alloc, size_t *bones_size,
                            ganim_error *err)
{
    ganim_reader r = skel->body;
    ganim_chunk c;
    int st;
    uint32_t count = 0;
    p->canonical = true;
    while ((st = gc_next(&r, &c)) == GC_OK)
        if (c.type == ALO_BONE && c.container) count++;
    if (st == GC_BAD) return gc_fail(err, ALO, "skeleton", &skel->body, &c);
    *bones_size = (size_t)(count ? count : 1) * sizeof *p->bones;
    p->bones = ganim_alloc(alloc, *bones_size);
    if (!p->bones) return GANIM_NOMEM(err);
    memset(p->bones, 0, *bones_size);
    r = skel->body;
    uint32_t i = 0;
    while (gc_next(&r, &c) == GC_OK) {
        if (c.type == ALO_SKEL_HEADER && !c.container && !p->header && i == 0) {
            p->header = c.body.data;
            p->header_size = c.size;
        } else if (c.type == ALO_BONE && c.container) {
            ganim_code rc = alo_parse_bone(&p->bones[i++], &c, p, err);
            if (rc) return rc;
        } else {
            p->canonical = false;
        }
    }
    p->count = count;
    return GANIM_OK;
}

static ganim_code alo_encode(const alo_plan *p, ganim_buffer *out, const ganim_allocator *alloc, ganim_error *err)
{
    ganim_writer w = gw_init(out, alloc);
    ganim_chunk_writer cw = gcw_init(&w);
    gcw_begin(&cw, ALO_SKELETON);
    gcw_begin(&cw, ALO_SKEL_HEADER);
    gw_u32le(&w, p->count);
    if (p->header && p->header_size >= 4) gw_bytes(&w, p->header + 4, p->header_size - 4);
    else gw_zeros(&w, 124);
    gcw_end(&cw);
    for (uint32_t i = 0; i < p->count; i++) {
        const alo_pbone *b = &p->bones[i];
        gcw_begin(&cw, ALO_BONE);
        gcw_data(&cw, ALO_BONE_NAME, b->name, b->name_size);
        gcw_begin(&cw, b->data_type);
        gw_u32le(&w, (uint32_t)b->parent);
        gw_u32le(&w, b->visible);
        if (b->data_type == ALO_BONE_V2) gw_u32le(&w, b->billboard);
        for (int k = 0; k < 12; k++) gw_u32le(&w, b->m[k]);
        gcw_end(&cw);
        gcw_end(&cw);
    }
    gcw_end(&cw);
    if (!gw_ok(&w)) return GANIM_NOMEM(err);
    if (!gcw_ok(&cw)) return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, ALO ": the skeleton exceeds 2 GiB");
    return GANIM_OK;
}

/* The model's parent for a stored parent (invalid ones become roots). */
static int32_t alo_parent(int32_t stored, uint32_t index)
{
    return (stored >= 0 && (uint32_t)stored < index) ? stored : -1;
}

int alamo_alo_probe(const uint8_t *data, size_t size)
{
    ganim_reader r = gr_init(data, size, 0);
    uint32_t type, len, child;
    if (!gr_u32le(&r, &type) || !gr_u32le(&r, &len) || type != ALO_SKELETON || !(len & 0x80000000u)) return 0;
    if ((len & 0x7FFFFFFFu) > size - 8) return 20;
    if (gr_u32le(&r, &child) && child == ALO_SKEL_HEADER) return 90;
    return 50;
}

ganim_code alamo_alo_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                          ganim_error *err)
{
    (void)opts;
    ganim_reader file = gr_init(data, size, 0);
    ganim_chunk skel;
    int st = gc_next(&file, &skel);
    if (st == GC_END) return ganim_fail(err, GANIM_ERR_TRUNCATED, 0, ALO ": the file is empty");
    if (st == GC_BAD) return gc_fail(err, ALO, "first chunk", &file, &skel);
    if (skel.type != ALO_SKELETON || !skel.container)
        return ganim_fail(err, GANIM_ERR_UNSUPPORTED, 0,
                          ALO ": the file starts with chunk 0x%x, not a skeleton 0x200 (not a model, "
                              "perhaps a particle system)",
                          skel.type);
    /* Later chunks (meshes, lights, connections) are not needed: check they chain. */
    ganim_chunk c;
    while ((st = gc_next(&file, &c)) == GC_OK) {}
    if (st == GC_BAD)
        ganim_doc_warn(doc, GANIM_WARN_EXTRA_BYTES, c.offset, ALO ": chunk at byte %llu runs past the end of the file",
                       (unsigned long long)c.offset);

    const ganim_allocator *alloc = ganim_doc_allocator(doc);
    alo_plan p;
    memset(&p, 0, sizeof p);
    size_t bones_size = 0;
    ganim_code rc = alo_parse(&p, &skel, alloc, &bones_size, err);
    if (!rc) rc = ganim_check_counts(doc, skel.offset, ALO ": the skeleton", 0, p.count, 0, err);
    if (rc) {
        if (p.bones) ganim_free(alloc, p.bones, bones_size);
        return rc;
    }
    ganim_skeleton *sk = ganim_doc_alloc(doc, sizeof *sk);
    ganim_bone *bones = ganim_doc_alloc_array(doc, p.count ? p.count : 1, sizeof *bones);
    uint8_t *native = ganim_doc_memdup(doc, data + skel.offset, (size_t)skel.size + 8u);
    if (!sk || !bones || !native) {
        ganim_free(alloc, p.bones, bones_size);
        return GANIM_NOMEM(err);
    }
    if (p.header && p.header_size >= 4) {
        uint32_t announced = ganim_ld_u32le(p.header);
        if (announced != p.count)
            ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, skel.offset,
                           ALO ": the skeleton header announces %u bones, the file has %u", announced, p.count);
    }
    for (uint32_t i = 0; i < p.count && !rc; i++) {
        const alo_pbone *b = &p.bones[i];
        ganim_bone *o = &bones[i];
        o->name = ganim_doc_strndup(doc, (const char *)b->name, b->name_size);
        if (!o->name) rc = GANIM_NOMEM(err);
        o->parent = alo_parent(b->parent, i);
        if (o->parent != b->parent)
            ganim_doc_warn(doc, GANIM_WARN_REPAIRED, skel.offset,
                           ALO ": bone %u (%s) has parent %d, which is not an earlier bone; "
                               "made it a root",
                           i, o->name ? o->name : "", b->parent);
        if (!alo_decompose(b->m, &o->rest))
            ganim_doc_warn(doc, GANIM_WARN_REPAIRED, skel.offset,
                           ALO ": bone %u (%s) has a matrix with non-finite or huge values; "
                               "rest pose set to identity",
                           i, o->name ? o->name : "");
        o->flags = b->visible == 0 ? GANIM_BONE_HIDDEN : 0;
    }
    ganim_free(alloc, p.bones, bones_size);
    if (rc) return rc;
    sk->name = "";
    sk->bone_count = p.count;
    sk->bones = bones;
    sk->native_format = ALO;
    sk->native = native;
    sk->native_size = (size_t)skel.size + 8u;
    doc->skeleton = sk;
    doc->axes = GANIM_AXES_Z_UP;
    return GANIM_OK;
}

static bool transform_same(const ganim_transform *a, const ganim_transform *b)
{
    return a->rotation.x == b->rotation.x && a->rotation.y == b->rotation.y && a->rotation.z == b->rotation.z &&
           a->rotation.w == b->rotation.w && a->translation.x == b->translation.x &&
           a->translation.y == b->translation.y && a->translation.z == b->translation.z && a->scale.x == b->scale.x &&
           a->scale.y == b->scale.y && a->scale.z == b->scale.z;
}

bool ala_name_same(const uint8_t *raw, size_t n, const char *name)
{
    size_t len = 0;
    while (len < n && raw[len]) len++;
    return strlen(name) == len && memcmp(raw, name, len) == 0;
}

/* Does the skeleton still equal its native record? Then the record is re-encoded. */
static bool alo_native_matches(const alo_plan *p, const ganim_skeleton *sk)
{
    if (p->count != sk->bone_count) return false;
    for (uint32_t i = 0; i < p->count; i++) {
        const alo_pbone *b = &p->bones[i];
        const ganim_bone *o = &sk->bones[i];
        ganim_transform t;
        (void)alo_decompose(b->m, &t);
        if (!ala_name_same(b->name, b->name_size, o->name) || alo_parent(b->parent, i) != o->parent ||
            !transform_same(&t, &o->rest) || (b->visible == 0) != ((o->flags & GANIM_BONE_HIDDEN) != 0))
            return false;
    }
    return true;
}

ganim_code alamo_alo_write(const ganim_doc *doc, const ganim_write_opts *opts, ganim_buffer *out, ganim_error *err)
{
    const ganim_skeleton *sk = doc->skeleton;
    ganim_allocator a = ganim_allocator_resolve(opts ? &opts->allocator : NULL);
    if (!sk)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, ALO ": the document has no skeleton to write");
    alo_plan p;
    size_t bones_size = 0;
    ganim_code rc;
    memset(&p, 0, sizeof p);
    if (sk->native_format && strcmp(sk->native_format, ALO) == 0 && sk->native) {
        ganim_reader r = gr_init(sk->native, sk->native_size, 0);
        ganim_chunk skel;
        ganim_error ignored;
        if (gc_next(&r, &skel) == GC_OK && skel.type == ALO_SKELETON &&
            alo_parse(&p, &skel, &a, &bones_size, &ignored) == GANIM_OK && alo_native_matches(&p, sk)) {
            rc = alo_encode(&p, out, &a, err);
            ganim_free(&a, p.bones, bones_size);
            return rc;
        }
        if (p.bones) ganim_free(&a, p.bones, bones_size);
        memset(&p, 0, sizeof p);
    }
    /* From the model: version 2 bone data, names with their NUL. */
    bones_size = (size_t)(sk->bone_count ? sk->bone_count : 1) * sizeof *p.bones;
    if (sk->bone_count > 0x7FFFFFF || !(p.bones = ganim_alloc(&a, bones_size))) return GANIM_NOMEM(err);
    memset(p.bones, 0, bones_size);
    p.count = sk->bone_count;
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        alo_pbone *b = &p.bones[i];
        const ganim_bone *o = &sk->bones[i];
        b->name = (const uint8_t *)o->name;
        b->name_size = (uint32_t)strlen(o->name) + 1u;
        b->data_type = ALO_BONE_V2;
        b->parent = o->parent;
        b->visible = (o->flags & GANIM_BONE_HIDDEN) ? 0u : 1u;
        alo_compose(&o->rest, b->m);
        /* ALO stores a 3x4 matrix: the pose must come back from it as a reader takes it
         * apart (a scale far beyond float precision's reach of the others does not) */
        ganim_transform back;
        float m0[12], m1[12];
        ganim_transform_to_mat34(&o->rest, m0);
        int ok = alo_decompose(b->m, &back);
        if (ok) ganim_transform_to_mat34(&back, m1);
        for (int c = 0; ok && c < 4; c++) { /* each column against its own length */
            double len = 0, diff = 0;
            for (int row = 0; row < 3; row++) {
                double x = m0[row * 4 + c], y = m1[row * 4 + c];
                len += x * x;
                diff += (x - y) * (x - y);
            }
            ok = isfinite(diff) && sqrt(diff) <= 1e-4 * sqrt(len) + (c == 3 ? 1e-6 : 1e-30);
        }
        if (!ok) {
            ganim_free(&a, p.bones, bones_size);
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              ALO ": bone %u ('%.100s'): its rest pose (translation %g %g %g, scale %g %g %g) does not "
                                  "come back from ALO's 3x4 matrix in 32-bit floats; not written",
                              i, o->name, (double)o->rest.translation.x, (double)o->rest.translation.y,
                              (double)o->rest.translation.z, (double)o->rest.scale.x, (double)o->rest.scale.y,
                              (double)o->rest.scale.z);
        }
    }
    rc = alo_encode(&p, out, &a, err);
    ganim_free(&a, p.bones, bones_size);
    return rc;
}
