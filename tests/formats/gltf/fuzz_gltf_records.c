/* libFuzzer harness: a glTF read with the JSON parser's records (the accessors,
 * bufferViews, samplers and channels read from the text into typed records) and without
 * them (gltf_no_records: every member a tree value), at the default memory limit (records
 * are used only there). Both reads must end alike: the same code, and on failure the same
 * offset and message; on success the same document, compared through its lossless JSON
 * dump. The records are a fast path that gives up on anything unusual, so any difference
 * is a bug in it. (The read-gltf target of fuzz_format sets a 64 MiB memory limit, under
 * which records are never read.) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/gltf/gltf.h"
#include "ganim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct one_read {
    ganim_code code;
    ganim_error err;
    ganim_buffer dump;
} one_read;

static void read_once(const uint8_t *data, size_t size, int records, one_read *out)
{
    ganim_read_opts o = { 0 };
    o.format = "gltf";
    ganim_doc *doc = NULL;
    memset(out, 0, sizeof *out);
    gltf_no_records = !records;
    out->code = ganim_read_memory(data, size, &o, &doc, &out->err);
    gltf_no_records = 0;
    if (out->code == GANIM_OK && ganim_export_json(doc, NULL, &out->dump, NULL) != GANIM_OK) abort();
    ganim_doc_free(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (256u << 10)) return 0; /* records are read from JSON of at most 256 KiB */
    one_read tree, rec;
    read_once(data, size, 0, &tree);
    read_once(data, size, 1, &rec);
    if (tree.code != rec.code) abort();
    if (tree.code != GANIM_OK && (tree.err.offset != rec.err.offset || strcmp(tree.err.message, rec.err.message) != 0))
        abort();
    if (tree.code == GANIM_OK &&
        (tree.dump.size != rec.dump.size || memcmp(tree.dump.data, rec.dump.data, tree.dump.size) != 0))
        abort();
    ganim_buffer_free(&tree.dump);
    ganim_buffer_free(&rec.dump);
    return 0;
}
