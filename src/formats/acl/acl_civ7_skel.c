/* Civilization VII skeleton ("RootNode" blob, format civ7-skeleton): no header, an array
 * of 296-byte bone records. Per record (facts from ghost-ng/blp-studio's skel-parser.ts,
 * not yet checked against a game file by this project): a NUL-terminated name in 160
 * bytes at +0; two quaternions (+0xA0, +0xB0); world position (x, y, z, 1) at +0xC0 and
 * rotation (x, y, z, w) at +0xD0; local position at +0xE0 and rotation at +0xF0 (ganim's
 * rest pose); a "scaled world position" (x s, y s, z s, s) at +0x100; a rotation copy at
 * +0x110; a name hash (u32) at +0x120; the parent index (i32, -1 for a root) at +0x124.
 * The document is a skeleton with no clips: `--skeleton` gives a V0/V1 file its
 * hierarchy. Design: docs/formats/acl.md, "Civ VII skeletons". */
#include "formats/acl/acl_internal.h"

#define SKEL_NAME 160u
#define SKEL_FLOATS 0xA0u /* the 32 float32s from +0xA0 to +0x11F */
#define SKEL_HASH 0x120u
#define SKEL_PARENT 0x124u
#define SKEL_LOCAL_T 0xE0u
#define SKEL_LOCAL_Q 0xF0u

/* Length of the record's name (1..159), or 0 when it is empty, not NUL-terminated within
 * its 160 bytes, or holds a byte outside printable ASCII. */
static size_t skel_name_length(const uint8_t *rec)
{
    size_t n = 0;
    while (n < SKEL_NAME && rec[n] != 0) {
        if (rec[n] < 0x20 || rec[n] > 0x7E) return 0;
        n++;
    }
    return n < SKEL_NAME ? n : 0;
}

/* The record's first problem as a sentence, and its offset within the record; NULL when
 * it is a bone record of a skeleton of `count` bones. */
static const char *skel_record_problem(const uint8_t *rec, uint32_t count, uint32_t index, uint32_t *at)
{
    *at = 0;
    if (!skel_name_length(rec)) return "its name is empty, has a byte outside printable ASCII or no NUL in 160 bytes";
    for (uint32_t o = SKEL_FLOATS; o < SKEL_HASH; o += 4)
        if (!isfinite(ganim_ld_f32le(rec + o))) {
            *at = o;
            return "a transform value is not a finite number";
        }
    int32_t parent = (int32_t)ganim_ld_u32le(rec + SKEL_PARENT);
    *at = SKEL_PARENT;
    if (parent < -1 || parent >= (int32_t)count) return "its parent is neither -1 nor a bone of the file";
    if (parent == (int32_t)index) return "it is its own parent";
    return NULL;
}

int civ7_skel_probe(const uint8_t *data, size_t size)
{
    if (size < CIV7_SKEL_RECORD || size % CIV7_SKEL_RECORD || size / CIV7_SKEL_RECORD > GANIM_DEFAULT_BONES) return 0;
    uint32_t n = (uint32_t)(size / CIV7_SKEL_RECORD), ordered = 1, at;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *rec = data + (size_t)i * CIV7_SKEL_RECORD;
        if (skel_record_problem(rec, n, i, &at)) return 0;
        ordered &= (int32_t)ganim_ld_u32le(rec + SKEL_PARENT) < (int32_t)i;
    }
    /* No magic number: a tree of named records is evidence, not proof. The game's files
     * begin with the root "RootNode" (blp-studio). */
    int root = memcmp(data, "RootNode", 9) == 0 && ganim_ld_u32le(data + SKEL_PARENT) == UINT32_MAX;
    return ordered && root ? 50 : 25;
}

ganim_code civ7_skel_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                          ganim_error *err)
{
    (void)opts;
    if (size % CIV7_SKEL_RECORD || size == 0)
        return ganim_fail(err, size < CIV7_SKEL_RECORD ? GANIM_ERR_TRUNCATED : GANIM_ERR_CORRUPT,
                          size - size % CIV7_SKEL_RECORD,
                          "civ7-skeleton: %zu bytes are not whole 296-byte bone records (%zu left over)", size,
                          size % CIV7_SKEL_RECORD);
    uint64_t count = size / CIV7_SKEL_RECORD;
    ganim_code lc = ganim_check_counts(doc, 0, "civ7-skeleton: the file's size", 0, count, 0, err);
    if (lc != GANIM_OK) return lc;
    uint32_t n = (uint32_t)count;
    ganim_skeleton *sk = ganim_doc_alloc(doc, sizeof *sk);
    ganim_bone *bones = sk ? ganim_doc_alloc_array(doc, n, sizeof *bones) : NULL;
    if (!bones) return GANIM_NOMEM(err);
    sk->name = "";
    sk->bones = bones;
    sk->bone_count = n;
    uint32_t reordered = 0, repaired = 0;
    ganim_reader r = gr_init(data, size, 0);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *rec = NULL;
        uint64_t base = gr_offset(&r);
        if (!gr_bytes(&r, CIV7_SKEL_RECORD, &rec)) /* whole records: checked above */
            return ganim_fail(err, GANIM_ERR_TRUNCATED, base, "civ7-skeleton: bone %u: the file ends", i);
        uint32_t at;
        const char *why = skel_record_problem(rec, n, i, &at);
        if (why) return ganim_fail(err, GANIM_ERR_CORRUPT, base + at, "civ7-skeleton: bone %u: %s", i, why);
        ganim_bone *b = &bones[i];
        b->name = ganim_doc_strndup(doc, (const char *)rec, skel_name_length(rec));
        if (!b->name) return GANIM_NOMEM(err);
        int32_t parent = (int32_t)ganim_ld_u32le(rec + SKEL_PARENT);
        if (parent >= (int32_t)i) { /* the model wants parents first */
            parent = -1;
            reordered++;
        }
        b->parent = parent;
        ganim_transform *t = &b->rest;
        *t = ganim_transform_identity();
        t->translation = (ganim_vec3){ ganim_ld_f32le(rec + SKEL_LOCAL_T), ganim_ld_f32le(rec + SKEL_LOCAL_T + 4),
                                       ganim_ld_f32le(rec + SKEL_LOCAL_T + 8) };
        float q[4];
        for (unsigned c = 0; c < 4; c++) q[c] = ganim_ld_f32le(rec + SKEL_LOCAL_Q + 4 * c);
        double len = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
        if (!(len > 1e-6 && len < 1e6)) {
            repaired++;
        } else {
            if (fabs(len - 1.0) > 1e-4) repaired++;
            t->rotation =
                (ganim_quat){ (float)(q[0] / len), (float)(q[1] / len), (float)(q[2] / len), (float)(q[3] / len) };
        }
    }
    if (reordered)
        ganim_doc_warn(doc, GANIM_WARN_LAYOUT, GANIM_NO_OFFSET,
                       "civ7-skeleton: %u bones name a parent after them; they are roots here", reordered);
    if (repaired)
        ganim_doc_warn(doc, GANIM_WARN_REPAIRED, GANIM_NO_OFFSET,
                       "civ7-skeleton: %u local rotations (+0xF0) were not unit length: normalised (zero: identity)",
                       repaired);
    doc->skeleton = sk; /* no native record: nothing writes these files back */
    return GANIM_OK;
}
