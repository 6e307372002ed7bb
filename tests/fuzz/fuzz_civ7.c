/* libFuzzer harness: Civilization VII containers (V0 frames, V1 ACL body). A file that
 * reads must validate, write back as V0 and read again with the same frame count. */
#include <stdint.h>
#include <stdlib.h>

#include "ganim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ganim_read_opts o = { 0 };
    o.format = "civ7";
    o.memory_limit = 256u << 20;
    ganim_doc *doc = NULL;
    if (ganim_read_memory(data, size, &o, &doc, NULL) != GANIM_OK) return 0;
    if (ganim_doc_validate(doc, NULL) != GANIM_OK) abort();
    ganim_buffer out = { 0 };
    if (ganim_write(doc, "civ7", NULL, &out, NULL) == GANIM_OK) {
        ganim_doc *back = NULL;
        if (ganim_read_memory(out.data, out.size, &o, &back, NULL) != GANIM_OK) abort();
        if (back->clips[0].frame_count != doc->clips[0].frame_count) abort();
        ganim_doc_free(back);
    }
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
    return 0;
}
