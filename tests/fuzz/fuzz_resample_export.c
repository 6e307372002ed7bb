/* libFuzzer harness for resampling and the exporters: the input is read as the format
 * its probe picks, resampled by 1 to 4 (the last byte), and exported to glb, glTF, BVH,
 * JSON and the info summary. A resample either fails with a sentence or leaves a valid
 * document; an export either fails with a sentence or writes only numbers (no NaN or
 * infinity in the JSON and BVH text; the glTF exporter refuses non-finite values itself).
 * Anything else aborts (a finding).
 *
 *   ./build-fuzz/fuzz_resample_export corpus/ seeds/
 *   ./build-check/fuzz_resample_export_replay */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ganim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void finding(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_resample_export: %s: %s\n", what, detail);
    abort();
}

/* Outside strings, JSON and BVH text holds no nan or inf. */
static void numbers_only(const ganim_buffer *b, const char *what)
{
    int in_string = 0;
    for (size_t i = 0; i < b->size; i++) {
        char c = (char)b->data[i];
        if (in_string) {
            if (c == '\\') i++;
            else if (c == '"') in_string = 0;
            continue;
        }
        if (c == '"') in_string = 1;
        else if ((c == 'n' || c == 'N') && i + 2 < b->size && (b->data[i + 1] | 32) == 'a' &&
                 (b->data[i + 2] | 32) == 'n')
            finding(what, "NaN in the output");
        else if ((c == 'i' || c == 'I') && i + 2 < b->size && (b->data[i + 1] | 32) == 'n' &&
                 (b->data[i + 2] | 32) == 'f')
            finding(what, "infinity in the output");
    }
}

static void check(ganim_code c, const ganim_error *e, const char *what)
{
    if (c != GANIM_OK && !e->message[0]) finding(what, "failed without a message");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ganim_read_opts o = { 0 };
    o.memory_limit = 64u << 20;
    o.limits.samples = 1u << 12; /* x4 after the resample: small documents, many runs */
    ganim_doc *doc = NULL;
    if (ganim_read_memory(data, size, &o, &doc, NULL) != GANIM_OK) return 0;
    ganim_error e = { 0 };
    unsigned factor = size ? 1u + data[size - 1] % 4u : 1u;
    ganim_code c = ganim_doc_resample(doc, factor, &e);
    check(c, &e, "resample");
    if (c == GANIM_OK && ganim_doc_validate(doc, &e) != GANIM_OK)
        finding("resample left an invalid document", e.message);
    ganim_export_opts eo = { 0 };
    eo.keep_axes = size > 1 && (data[size - 2] & 1);
    ganim_buffer a = { 0 }, b = { 0 };
    memset(&e, 0, sizeof e);
    check(ganim_export_glb(doc, &eo, &a, &e), &e, "glb");
    ganim_buffer_free(&a);
    memset(&e, 0, sizeof e);
    c = ganim_export_gltf(doc, &eo, &a, &b, &e);
    check(c, &e, "gltf");
    if (c == GANIM_OK) numbers_only(&a, "gltf");
    ganim_buffer_free(&a);
    ganim_buffer_free(&b);
    memset(&e, 0, sizeof e);
    c = ganim_export_bvh(doc, &eo, &a, &e);
    check(c, &e, "bvh");
    if (c == GANIM_OK) {
        /* the text before MOTION holds joint names, which may spell anything */
        const char *m = NULL;
        for (size_t i = 0; i + 6 <= a.size && !m; i++)
            if (memcmp(a.data + i, "MOTION", 6) == 0) m = (const char *)a.data + i;
        if (m) {
            ganim_buffer motion = a;
            motion.data = (uint8_t *)(uintptr_t)m + 6;
            motion.size = a.size - (size_t)(motion.data - a.data);
            numbers_only(&motion, "bvh");
        }
    }
    ganim_buffer_free(&a);
    memset(&e, 0, sizeof e);
    c = ganim_export_json(doc, &eo, &a, &e);
    check(c, &e, "json");
    if (c == GANIM_OK) numbers_only(&a, "json");
    ganim_buffer_free(&a);
    memset(&e, 0, sizeof e);
    check(ganim_export_info_json(doc, &eo, &a, &e), &e, "info json");
    ganim_buffer_free(&a);
    ganim_doc_free(doc);
    return 0;
}
