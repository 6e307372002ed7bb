/* Skeleton helpers readers share: a deep copy into a document, and flat skeletons of
 * made-up root bones for files that carry none. */
#include "core/internal.h"

ganim_skeleton *ganim_skeleton_copy(ganim_doc *doc, const ganim_skeleton *src)
{
    ganim_skeleton *s = ganim_doc_alloc(doc, sizeof *s);
    if (!s) return NULL;
    s->name = ganim_doc_strdup(doc, src->name);
    s->bone_count = src->bone_count;
    s->bones = ganim_doc_alloc_array(doc, src->bone_count ? src->bone_count : 1, sizeof *s->bones);
    if (!s->name || !s->bones) return NULL;
    for (uint32_t i = 0; i < src->bone_count; i++) {
        s->bones[i] = src->bones[i];
        s->bones[i].name = ganim_doc_strdup(doc, src->bones[i].name);
        if (!s->bones[i].name) return NULL;
    }
    if (src->native_format) {
        s->native_format = src->native_format; /* static string owned by the format */
        s->native = ganim_doc_memdup(doc, src->native, src->native_size);
        s->native_size = src->native_size;
        if (!s->native) return NULL;
    }
    return s;
}

ganim_skeleton *ganim_skeleton_flat_named(ganim_doc *doc, uint32_t count, const char *const *names, const char *prefix)
{
    ganim_skeleton *s = ganim_doc_alloc(doc, sizeof *s);
    if (!s) return NULL;
    s->name = "";
    s->bone_count = count;
    s->bones = ganim_doc_alloc_array(doc, count ? count : 1, sizeof *s->bones);
    if (!s->bones) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        ganim_bone *b = &s->bones[i];
        b->name = names && names[i] ? ganim_doc_strdup(doc, names[i]) : ganim_doc_name_u32(doc, prefix, i);
        if (!b->name) return NULL;
        b->parent = -1;
        b->rest = ganim_transform_identity();
        b->flags = GANIM_BONE_SYNTH;
    }
    return s;
}

ganim_skeleton *ganim_skeleton_flat(ganim_doc *doc, uint32_t count, const char *const *names)
{
    return ganim_skeleton_flat_named(doc, count, names, "bone_");
}
