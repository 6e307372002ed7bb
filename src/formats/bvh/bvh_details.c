/* BVH details: the hierarchy's layout (joints, End Sites, channels and their orders), the
 * MOTION header as written, and what the reader decided (rate, positions, ganim's own
 * conventions). Kept in the document's native record: little-endian u32 fields and f64,
 * then one entry per joint (channel codes, End Site, parent, OFFSET, name). */
#include "formats/bvh/bvh.h"
#include "io/bytes.h"

#define RECORD_VERSION 1
#define HEAD_U32 11

/* A joint's entry without its name: nch, 6 codes, End Site, parent, OFFSET, End Site's,
 * the name's length. */
#define JOINT_FIXED (1 + 6 + 1 + 4 + 24 + 4)

static uint8_t *put_f64le(uint8_t *p, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    ganim_st_u32le(p, (uint32_t)u);
    ganim_st_u32le(p + 4, (uint32_t)(u >> 32));
    return p + 8;
}

/* Written in place in the document: its size is known from the joints (the names' lengths
 * once each), so no growing buffer and no copy. */
ganim_code bvh_record(bvh_file *f)
{
    const uint32_t head[HEAD_U32] = { RECORD_VERSION,
                                      f->joint_count,
                                      f->end_sites,
                                      f->channels,
                                      f->frames_declared,
                                      f->frames,
                                      (uint32_t)f->synthetic_root,
                                      f->position_joints,
                                      (uint32_t)f->positions_add,
                                      (uint32_t)f->axes_undone,
                                      (uint32_t)f->fps_fallback };
    size_t size = HEAD_U32 * 4 + 16;
    for (uint32_t i = 0; i < f->joint_count; i++) {
        size_t n = strlen(f->joints[i].name);
        size += JOINT_FIXED + (n > 1000 ? 1000 : n);
        if (size > SIZE_MAX / 2) return GANIM_NOMEM(f->err);
    }
    uint8_t *rec = ganim_doc_alloc_array_raw(f->doc, size, 1), *p = rec; /* every byte written below */
    if (!rec) return GANIM_NOMEM(f->err);
    for (int i = 0; i < HEAD_U32; i++, p += 4) ganim_st_u32le(p, head[i]);
    p = put_f64le(p, f->frame_time);
    p = put_f64le(p, f->fps);
    for (uint32_t i = 0; i < f->joint_count; i++) {
        const bvh_joint *j = &f->joints[i];
        *p++ = j->nch;
        memcpy(p, j->ch, 6);
        p += 6;
        *p++ = j->end_site;
        ganim_st_u32le(p, (uint32_t)j->parent);
        p += 4;
        for (int k = 0; k < 3; k++, p += 4) ganim_st_u32le(p, ganim_f32_bits(j->offset[k]));
        for (int k = 0; k < 3; k++, p += 4) ganim_st_u32le(p, ganim_f32_bits(j->end[k]));
        size_t n = strlen(j->name);
        if (n > 1000) n = 1000;
        ganim_st_u32le(p, (uint32_t)n);
        memcpy(p + 4, j->name, n);
        p += 4 + n;
    }
    f->doc->native = rec;
    f->doc->native_size = size;
    f->doc->native_format = BVH_FORMAT;
    return GANIM_OK;
}

/* ---- details ---------------------------------------------------------------------------------- */

static const char *const channel_names[6] = { "Xposition", "Yposition", "Zposition",
                                              "Xrotation", "Yrotation", "Zrotation" };

typedef struct joint_rec {
    uint8_t nch, ch[6], end_site;
    int32_t parent;
    float offset[3], end[3];
    char name[1001];
} joint_rec;

static int read_joint(ganim_reader *r, joint_rec *j)
{
    uint32_t parent, n, bits;
    const uint8_t *p;
    if (!gr_u8(r, &j->nch) || !gr_copy(r, j->ch, 6) || !gr_u8(r, &j->end_site) || !gr_u32le(r, &parent)) return 0;
    j->parent = (int32_t)parent;
    for (int k = 0; k < 6; k++) {
        if (!gr_u32le(r, &bits)) return 0;
        memcpy(k < 3 ? &j->offset[k] : &j->end[k - 3], &bits, 4);
    }
    if (!gr_u32le(r, &n) || n > 1000 || !gr_bytes(r, n, &p) || j->nch > 6) return 0;
    memcpy(j->name, p, n);
    j->name[n] = 0;
    for (int k = 0; k < j->nch; k++)
        if (j->ch[k] > BVH_ZROT) return 0;
    return 1;
}

/* "ZXY" for rotation channels Z X Y ("" when none). */
static void order_text(const joint_rec *j, char out[4])
{
    int n = 0;
    for (int k = 0; k < j->nch; k++)
        if (j->ch[k] >= BVH_XROT) out[n++] = (char)('X' + j->ch[k] - BVH_XROT);
    out[n] = 0;
}

ganim_code bvh_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err)
{
    (void)err;
    if (clip >= 0 || !doc->native_format || strcmp(doc->native_format, BVH_FORMAT) != 0 || !doc->native)
        return GANIM_OK;
    ganim_reader r = gr_init(doc->native, doc->native_size, 0);
    uint32_t v[HEAD_U32], lo, hi;
    double d[2];
    for (int i = 0; i < HEAD_U32; i++)
        if (!gr_u32le(&r, &v[i])) return GANIM_OK;
    for (int i = 0; i < 2; i++) {
        if (!gr_u32le(&r, &lo) || !gr_u32le(&r, &hi)) return GANIM_OK;
        uint64_t u = (uint64_t)hi << 32 | lo;
        memcpy(&d[i], &u, 8);
    }
    if (v[0] != RECORD_VERSION) return GANIM_OK;
    /* rotation orders, counted over the joints */
    static const char *const orders[] = { "XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX" };
    uint32_t by_order[7] = { 0 };
    ganim_reader joints = r;
    joint_rec j;
    for (uint32_t i = 0; i < v[1]; i++) {
        if (!read_joint(&r, &j)) return GANIM_OK;
        char o[4];
        order_text(&j, o);
        int k = 6;
        for (int m = 0; m < 6; m++)
            if (!strcmp(o, orders[m])) k = m;
        if (o[0]) by_order[k]++;
    }
    gd_uint(b, "joints", v[1]);
    gd_uint(b, "end_sites", v[2]);
    gd_uint(b, "channels", v[3]);
    gd_meaning(b, "values per frame");
    gd_uint(b, "frames_declared", v[4]);
    gd_uint(b, "frames", v[5]);
    gd_double(b, "frame_time", d[0]);
    gd_double(b, "fps", d[1]);
    gd_string(b, "fps_from", v[10] ? "fallback" : "frame time");
    gd_meaning(b, v[10] ? "Frame Time was not usable: --fps or 30" : "1 / Frame Time, whole when written so");
    gd_group(b, "rotation_orders");
    for (int m = 0; m < 6; m++)
        if (by_order[m]) gd_uint(b, orders[m], by_order[m]);
    if (by_order[6]) gd_uint(b, "partial", by_order[6]);
    gd_end(b);
    gd_meaning(b, "joints per rotation channel order");
    gd_uint(b, "position_joints", v[7]);
    gd_meaning(b, "joints with position channels");
    gd_string(b, "positions", v[8] ? "add" : "replace");
    gd_meaning(b, v[8] ? "added to the OFFSET (three.js)" : "the joint's whole translation (Blender)");
    gd_bool(b, "ganim_root_dropped", (int)v[6]);
    if (v[9]) gd_string(b, "axes_undone", ganim_axes_name((ganim_axes)(v[9] - 1)));
    else gd_null(b, "axes_undone");
    if (level != GANIM_DETAILS_FULL) return GANIM_OK;
    gd_list(b, "hierarchy");
    r = joints;
    for (uint32_t i = 0; i < v[1]; i++) {
        if (!read_joint(&r, &j)) break;
        gd_group(b, NULL);
        gd_string(b, "name", j.name);
        gd_int(b, "parent", j.parent);
        gd_list(b, "offset");
        for (int k = 0; k < 3; k++) gd_float(b, NULL, j.offset[k]);
        gd_end(b);
        char text[80] = "";
        size_t at = 0;
        for (int k = 0; k < j.nch; k++)
            at += (size_t)snprintf(text + at, sizeof text - at, "%s%s", k ? " " : "", channel_names[j.ch[k]]);
        gd_string(b, "channels", text);
        if (j.end_site) {
            gd_list(b, "end_site");
            for (int k = 0; k < 3; k++) gd_float(b, NULL, j.end[k]);
            gd_end(b);
        }
        gd_end(b);
    }
    gd_end(b);
    return GANIM_OK;
}
