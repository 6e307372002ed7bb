/* Finding a document's clips: the first animation, and the clip a user names by index
 * or by name. */
#include <string.h>

#include "core/internal.h"

const ganim_clip *ganim_doc_first_animation(const ganim_doc *doc)
{
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION) return &doc->clips[i];
    return NULL;
}

ganim_code ganim_doc_find_clip(const ganim_doc *doc, const char *spec, uint32_t *index, ganim_error *err)
{
    if (!doc || !spec || !index)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "find clip: no document or no name");
    ganim_code valid = ganim_doc_validate(doc, err);
    if (valid != GANIM_OK) return valid;
    int digits = *spec != 0;
    uint64_t n = 0;
    for (const char *p = spec; *p && digits; p++) {
        digits = *p >= '0' && *p <= '9';
        if (digits && n <= UINT32_MAX) n = n * 10 + (uint64_t)(*p - '0');
    }
    if (digits) {
        if (n < doc->clip_count) {
            *index = (uint32_t)n;
            return GANIM_OK;
        }
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "no clip %s (the file has %u clip%s, numbered from 0)", spec, doc->clip_count,
                          doc->clip_count == 1 ? "" : "s");
    }
    for (int exact = 1; exact >= 0; exact--)
        for (uint32_t i = 0; i < doc->clip_count; i++)
            if (exact ? strcmp(doc->clips[i].name, spec) == 0 : ganim_strcasecmp(doc->clips[i].name, spec) == 0) {
                *index = i;
                return GANIM_OK;
            }
    return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "no clip named '%s' (see ganim info)", spec);
}
