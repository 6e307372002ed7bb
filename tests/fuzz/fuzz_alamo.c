/* libFuzzer harness: the bytes as an .ALA (without a skeleton and against a small
 * 4-bone one) and as an .ALO; whatever reads must also write. */
#include <stddef.h>
#include <stdint.h>

#include "ganim.h"

static void one(const uint8_t *data, size_t size, const char *fmt, const ganim_skeleton *sk)
{
    ganim_read_opts o = { 0 };
    o.format = fmt;
    o.skeleton = sk;
    o.memory_limit = 64u << 20;
    ganim_doc *doc = NULL;
    if (ganim_read_memory(data, size, &o, &doc, NULL) != GANIM_OK) return;
    ganim_buffer out = { 0 };
    ganim_write_opts wo = { 0 };
    (void)ganim_write(doc, fmt, &wo, &out, NULL);
    ganim_buffer_free(&out);
    ganim_details *d = NULL;
    if (ganim_doc_details(doc, 0, GANIM_DETAILS_FULL, NULL, &d, NULL) == GANIM_OK) {
        (void)ganim_detail_json(d->root, &out, NULL);
        ganim_details_free(d);
        ganim_buffer_free(&out);
    }
    ganim_doc_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const ganim_bone bones[4] = {
        { "Root", -1, { { 0, 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } }, 0 },
        { "arm", 0, { { 0, 0, 0, 1 }, { 1, 0, 0 }, { 1, 1, 1 } }, 0 },
        { "hand", 1, { { 0, 0, 0, 1 }, { 1, 0, 0 }, { 1, 1, 1 } }, 0 },
        { "light", 0, { { 0, 0, 0, 1 }, { 0, 0, 2 }, { 1, 1, 1 } }, GANIM_BONE_HIDDEN },
    };
    static const ganim_skeleton small = { "small", 4, (ganim_bone *)bones, NULL, NULL, 0 };
    one(data, size, "alamo-ala", NULL);
    one(data, size, "alamo-ala", &small);
    one(data, size, "alamo-alo", NULL);
    return 0;
}
