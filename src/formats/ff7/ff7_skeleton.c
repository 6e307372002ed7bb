/* FF7 PC battle skeletons (??aa): the probe and the reader. The model skeleton is
 * "root" (rotation slot 0), bone_<i> as bone i+1, and "weapon" when the skeleton has
 * weapon animations; the file's bytes are its native record. */
#include <math.h>
#include <string.h>

#include "formats/ff7/ff7.h"

int ff7_skeleton_probe(const uint8_t *data, size_t size)
{
    if (size < FF7_SKELETON_HEADER) return 0;
    uint32_t n = ganim_ld_u32le(data + 12);
    if (n == 0 || (uint64_t)FF7_SKELETON_HEADER + 12u * (uint64_t)n != size) return 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *b = data + FF7_SKELETON_HEADER + 12u * i;
        int32_t parent = (int32_t)ganim_ld_u32le(b);
        float len = ganim_ld_f32le(b + 4);
        if (parent < -1 || parent >= (int32_t)i || !isfinite(len)) return 0;
    }
    return 75; /* an exact size and a valid tree are strong evidence */
}

/* Model skeleton of an ff7 skeleton: "root", bone_<i> as bone i+1, and "weapon". */
static ganim_code ff7_skeleton_build(ganim_doc *doc, const uint8_t *data, size_t size, ganim_skeleton **out,
                                     ganim_error *err)
{
    ganim_reader r = gr_init(data, size, 0);
    uint32_t words[13];
    for (int i = 0; i < 13; i++)
        if (!gr_u32le(&r, &words[i]))
            return ganim_fail(err, GANIM_ERR_TRUNCATED, gr_offset(&r),
                              "ff7-skeleton: the file ends inside the 52-byte header "
                              "(%zu bytes)",
                              size);
    uint32_t n = words[3];
    uint64_t want = FF7_SKELETON_HEADER + (uint64_t)FF7_SKELETON_BONE * n;
    if (want != size)
        return ganim_fail(err, want > size ? GANIM_ERR_TRUNCATED : GANIM_ERR_CORRUPT, 12,
                          "ff7-skeleton: nBones %u needs a file of %llu bytes, this one has %zu", n,
                          (unsigned long long)want, size);
    uint32_t extra = words[10] ? 1u : 0u;
    ganim_code lc = ganim_check_counts(doc, 12, "ff7-skeleton: the header", 0, (uint64_t)n + 1u + extra, 0, err);
    if (lc != GANIM_OK) return lc;
    ganim_skeleton *sk = ganim_doc_alloc(doc, sizeof *sk);
    uint32_t count = n + 1u + extra;
    ganim_bone *bones = sk ? ganim_doc_alloc_array(doc, count, sizeof *bones) : NULL;
    float *lengths = bones ? ganim_doc_alloc_array(doc, n ? n : 1, sizeof *lengths) : NULL;
    if (!lengths) return GANIM_NOMEM(err);
    sk->name = "";
    sk->bones = bones;
    sk->bone_count = count;
    for (uint32_t i = 0; i < count; i++) {
        bones[i].rest = ganim_transform_identity();
        bones[i].parent = -1;
    }
    bones[0].name = "root";
    for (uint32_t i = 0; i < n; i++) {
        uint64_t at = gr_offset(&r);
        int32_t parent = 0, has = 0;
        float len = 0;
        gr_i32le(&r, &parent);
        gr_f32le(&r, &len);
        gr_i32le(&r, &has);
        if (parent < -1 || parent >= (int32_t)i)
            return ganim_fail(err, GANIM_ERR_CORRUPT, at, "ff7-skeleton: bone %u: parent %d is not an earlier bone", i,
                              (int)parent);
        if (!isfinite(len))
            return ganim_fail(err, GANIM_ERR_CORRUPT, at + 4,
                              "ff7-skeleton: bone %u: its length is not a finite number", i);
        lengths[i] = len;
        ganim_bone *b = &bones[i + 1];
        b->name = ganim_doc_name_u32(doc, "bone_", i);
        if (!b->name) return GANIM_NOMEM(err);
        b->parent = parent < 0 ? 0 : parent + 1;
        /* A child joint sits at the end of its parent: (0, 0, parent length). */
        if (parent >= 0) b->rest.translation.z = lengths[parent];
        if (!has) b->flags |= GANIM_BONE_HIDDEN;
    }
    if (extra) bones[n + 1].name = "weapon";
    sk->native_format = "ff7-skeleton";
    sk->native = ganim_doc_keep_input(doc, data, size);
    sk->native_size = size;
    if (!sk->native) return GANIM_NOMEM(err);
    *out = sk;
    return GANIM_OK;
}

ganim_code ff7_skeleton_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                             ganim_error *err)
{
    (void)opts;
    ganim_skeleton *sk = NULL;
    ganim_code c = ff7_skeleton_build(doc, data, size, &sk, err);
    if (c) return c;
    doc->skeleton = sk;
    doc->axes = GANIM_AXES_Y_DOWN;
    return GANIM_OK;
}
