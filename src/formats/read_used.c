/* The files a ganim_read_file took bytes from besides its path (ganim_doc.used_files):
 * noted as the read goes, copied into the document at the end. */
#include <string.h>

#include "formats/read_files.h"

void ganim_used_init(used_files *u, const ganim_allocator *alloc)
{
    memset(u, 0, sizeof *u);
    u->w = gw_init(&u->names, alloc);
}

void ganim_used_add(used_files *u, const char *path)
{
    if (!u) return;
    gw_bytes(&u->w, path, strlen(path) + 1);
    u->count++;
}

ganim_code ganim_used_attach(used_files *u, ganim_code code, ganim_doc **doc, ganim_error *err)
{
    if (code == GANIM_OK && u->count) {
        const char **list = NULL;
        char *block = NULL;
        if (gw_ok(&u->w)) {
            list = ganim_doc_alloc_array(*doc, u->count, sizeof *list);
            block = ganim_doc_alloc(*doc, u->names.size);
        }
        if (!list || !block) {
            ganim_doc_free(*doc);
            *doc = NULL;
            code = GANIM_NOMEM(err);
        } else {
            memcpy(block, u->names.data, u->names.size);
            for (uint32_t i = 0; i < u->count; i++) {
                list[i] = block;
                block += strlen(block) + 1;
            }
            (*doc)->used_files = list;
            (*doc)->used_file_count = u->count;
        }
    }
    ganim_buffer_free(&u->names);
    return code;
}
