/* libFuzzer harness for every format: the bytes are read as the format named by
 * GANIM_FUZZ_FORMAT (every readable format in turn when it is unset) three ways: alone,
 * against a small made-up skeleton, and against a skeleton that a companion format of
 * the same family reads from a prefix of the input (4 x the first byte long). Whatever
 * reads is validated and described at both levels and, when small, exported to glTF,
 * BVH and JSON, written back in its own format and read again (which must succeed).
 * Other formats' writers: fuzz_roundtrip.c; resampling and big exports:
 * fuzz_resample_export.c. Each read is also made under a small memory limit (512 B to
 * 1 MiB, from a hash of the bytes): refused, or valid and read under the large limit too.
 *
 * GANIM_FUZZ_LEAN=1 (the long campaigns) skips the exports, the JSON and the write-back,
 * which the other harnesses cover, for many more runs a second.
 *
 *   GANIM_FUZZ_FORMAT=alamo-ala ./build-fuzz/fuzz_format corpus/ seeds/
 *   ./build-check/fuzz_format_replay       (every sample and fixture of every format) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ganim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Documents larger than this (frames x bones), or with many warnings, are read,
 * validated and described but not exported or written: the exporters' cost grows with
 * the document, and the fuzzer needs many runs a second (big documents go through the
 * exporters in fuzz_resample_export.c and the robustness sweep). */
#define MAX_EXPORT_BONE_FRAMES 256u

static int lean;

static void export_all(const ganim_doc *doc)
{
    if (lean) return;
    uint64_t work = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++)
        work += (uint64_t)doc->clips[i].frame_count * (doc->skeleton ? doc->skeleton->bone_count : 1);
    ganim_export_opts eo = { 0 };
    ganim_buffer a = { 0 }, b = { 0 };
    if (work > MAX_EXPORT_BONE_FRAMES || doc->warning_count > 16) return;
    (void)ganim_export_glb(doc, &eo, &a, NULL);
    ganim_buffer_free(&a);
    (void)ganim_export_gltf(doc, &eo, &a, &b, NULL);
    ganim_buffer_free(&a);
    ganim_buffer_free(&b);
    (void)ganim_export_bvh(doc, &eo, &a, NULL);
    ganim_buffer_free(&a);
    (void)ganim_export_json(doc, &eo, &a, NULL);
    ganim_buffer_free(&a);
    (void)ganim_export_info_json(doc, &eo, &a, NULL);
    ganim_buffer_free(&a);
}

/* The format's details (its own code) at both levels; their JSON (generic) for small
 * documents only. */
static void describe(const ganim_doc *doc, int small)
{
    ganim_buffer out = { 0 };
    for (int level = 0; level < 2; level++)
        for (int clip = -1; clip < (int)doc->clip_count && clip < 2; clip++) {
            ganim_details *d = NULL;
            if (ganim_doc_details(doc, clip, (ganim_details_level)level, NULL, &d, NULL) != GANIM_OK) continue;
            if (small) (void)ganim_detail_json(d->root, &out, NULL);
            ganim_details_free(d);
        }
    ganim_buffer_free(&out);
}

/* A small memory limit for these bytes, 512 B to 1 MiB by a hash of them (the same for
 * the same input, so a finding replays): the readers' paths that meet the limit part way
 * (a bound cut short, a buffer grown to the last bytes the limit leaves) are fuzzed too. */
static size_t small_limit(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u ^ (uint32_t)size;
    for (size_t i = 0; i < size && i < 64; i++) h = (h ^ data[i]) * 16777619u;
    size_t limit = (size_t)1 << (9 + h % 12u);
    return limit + (h >> 8) % limit;
}

static void one(const ganim_format *f, const uint8_t *data, size_t size, const ganim_skeleton *sk)
{
    ganim_read_opts o = { 0 };
    o.format = f->name;
    o.skeleton = sk;
    o.memory_limit = small_limit(data, size);
    ganim_doc *doc = NULL;
    /* under a small limit: refused, or a valid document that the large limit reads too */
    ganim_code small = ganim_read_memory(data, size, &o, &doc, NULL);
    if (small == GANIM_OK && ganim_doc_validate(doc, NULL) != GANIM_OK) abort();
    uint32_t small_clips = small == GANIM_OK ? doc->clip_count : 0;
    ganim_doc_free(doc);
    doc = NULL;
    o.memory_limit = 64u << 20;
    if (ganim_read_memory(data, size, &o, &doc, NULL) != GANIM_OK) {
        if (small == GANIM_OK) abort();
        return;
    }
    if (small == GANIM_OK && small_clips != doc->clip_count) abort();
    if (ganim_doc_validate(doc, NULL) != GANIM_OK) abort();
    uint64_t work = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++)
        work += (uint64_t)doc->clips[i].frame_count * (doc->skeleton ? doc->skeleton->bone_count : 1);
    if (lean) work = UINT64_MAX; /* GANIM_FUZZ_LEAN: the reader and its details only */
    describe(doc, work <= MAX_EXPORT_BONE_FRAMES && doc->warning_count <= 16);
    export_all(doc);
    if ((f->flags & GANIM_FORMAT_WRITE) && work <= MAX_EXPORT_BONE_FRAMES) {
        ganim_buffer out = { 0 };
        if (ganim_write(doc, f->name, NULL, &out, NULL) == GANIM_OK) {
            /* what ganim writes from a file of its own format, it reads back */
            ganim_doc *back = NULL;
            ganim_error e;
            if (ganim_read_memory(out.data, out.size, &o, &back, &e) != GANIM_OK) abort();
            if (back->clip_count != doc->clip_count) abort();
            ganim_doc_free(back);
        }
        ganim_buffer_free(&out);
    }
    ganim_doc_free(doc); /* resampling: fuzz_resample_export */
}

/* Argonaut: a level WAD's models (argonaut.model=N, N from the input's last byte) in both
 * variants and conventions, and the skinned mesh each one gives, through the glTF exporter
 * (lean or not: no other harness reaches the mesh code). */
static void argonaut_models(const uint8_t *data, size_t size)
{
    static const char *const variants[] = { "croc2", "hp" }, *const conventions[] = { "sv", "vs" };
    char model[8];
    snprintf(model, sizeof model, "%u", size ? data[size - 1] % 4u : 0u);
    for (int k = 0; k < 4; k++) {
        ganim_setting s[3] = { { "argonaut.model", model },
                               { "argonaut.variant", variants[k & 1] },
                               { "argonaut.convention", conventions[k >> 1] } };
        ganim_read_opts o = { 0 };
        o.format = "argonaut";
        o.memory_limit = 64u << 20;
        o.settings = s;
        o.setting_count = 3;
        ganim_doc *doc = NULL;
        if (ganim_read_memory(data, size, &o, &doc, NULL) != GANIM_OK) continue;
        if (ganim_doc_validate(doc, NULL) != GANIM_OK) abort();
        uint64_t work = 0, verts = 0;
        for (uint32_t i = 0; i < doc->clip_count; i++)
            work += (uint64_t)doc->clips[i].frame_count * (doc->skeleton ? doc->skeleton->bone_count : 1);
        for (uint32_t i = 0; i < doc->mesh_count; i++) verts += doc->meshes[i].vertex_count;
        if (doc->mesh_count && work <= 4 * MAX_EXPORT_BONE_FRAMES && verts <= 4096) {
            ganim_export_opts eo = { 0 };
            ganim_buffer a = { 0 }, b = { 0 };
            (void)ganim_export_glb(doc, &eo, &a, NULL);
            ganim_buffer_free(&a);
            eo.only_clip = doc->clip_count ? 1u + data[0] % doc->clip_count : 0;
            (void)ganim_export_gltf(doc, &eo, &a, &b, NULL);
            ganim_buffer_free(&a);
            ganim_buffer_free(&b);
        }
        ganim_doc_free(doc);
        if (k == 0 && size < 8) break;
    }
}

static void fuzz_format(const ganim_format *f, const uint8_t *data, size_t size)
{
    if (strcmp(f->name, "argonaut") == 0) argonaut_models(data, size);

    static const ganim_bone bones[4] = {
        { "Root", -1, { { 0, 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } }, 0 },
        { "arm", 0, { { 0, 0, 0, 1 }, { 1, 0, 0 }, { 1, 1, 1 } }, 0 },
        { "hand", 1, { { 0, 0, 0, 1 }, { 1, 0, 0 }, { 1, 1, 1 } }, 0 },
        { "light", 0, { { 0, 0, 0, 1 }, { 0, 0, 2 }, { 1, 1, 1 } }, GANIM_BONE_HIDDEN },
    };
    static const ganim_skeleton small = { "small", 4, (ganim_bone *)bones, NULL, NULL, 0 };
    one(f, data, size, NULL);
    if (f->flags & GANIM_FORMAT_COMPANION) return;
    one(f, data, size, &small);
    /* a companion skeleton from the front of the input, the rest as f */
    if (size < 2) return;
    size_t cut = 4u * data[0];
    if (cut > size - 1) return;
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        const ganim_format *c = all[i];
        if (!(c->flags & GANIM_FORMAT_COMPANION) || strcmp(c->family, f->family) != 0) continue;
        ganim_read_opts o = { 0 };
        o.format = c->name;
        o.memory_limit = 64u << 20;
        ganim_doc *sk = NULL;
        if (ganim_read_memory(data + 1, cut, &o, &sk, NULL) != GANIM_OK) continue;
        if (sk->skeleton) one(f, data + 1 + cut, size - 1 - cut, sk->skeleton);
        ganim_doc_free(sk);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *name = getenv("GANIM_FUZZ_FORMAT"), *l = getenv("GANIM_FUZZ_LEAN");
    lean = l && *l == '1';
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++)
        if ((all[i]->flags & GANIM_FORMAT_READ) && (!name || !*name || strcmp(all[i]->name, name) == 0))
            fuzz_format(all[i], data, size);
    return 0;
}
