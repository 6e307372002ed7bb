/* Skeleton helpers readers share: a deep copy into a document, and flat skeletons of
 * made-up root bones for files that carry none. */
#include <string.h>

#include "core/internal.h"

/* The bones are copied whole and their names (and the skeleton's) go into one block
 * of the arena, one after the other: one allocation instead of one a name, each name's
 * length taken once for skeletons of up to COPY_LENS bones. */
#define COPY_LENS 256u

ganim_skeleton *ganim_skeleton_copy(ganim_doc *doc, const ganim_skeleton *src)
{
    ganim_skeleton *s = ganim_doc_alloc(doc, sizeof *s);
    if (!s) return NULL;
    const uint32_t n = src->bone_count;
    s->bone_count = n;
    s->bones = n ? ganim_doc_alloc_array_raw(doc, n, sizeof *s->bones) : ganim_doc_alloc(doc, sizeof *s->bones);
    if (!s->bones) return NULL;
    if (n) memcpy(s->bones, src->bones, (size_t)n * sizeof *s->bones);
    size_t lens[COPY_LENS];
    const char *name = src->name ? src->name : "";
    size_t len = strlen(name), total = len + 1u;
    for (uint32_t i = 0; i < n; i++) {
        const char *b = src->bones[i].name;
        size_t l = b ? strlen(b) : 0;
        if (i < COPY_LENS) lens[i] = l;
        if (!ganim_add_size(total, l + 1u, &total)) return NULL;
    }
    char *p = ganim_doc_alloc_array_raw(doc, total, 1); /* every byte written below */
    if (!p) return NULL;
    memcpy(p, name, len + 1u);
    s->name = p;
    p += len + 1u;
    for (uint32_t i = 0; i < n; i++) {
        const char *b = src->bones[i].name ? src->bones[i].name : "";
        size_t l = i < COPY_LENS ? lens[i] : strlen(b);
        memcpy(p, b, l);
        p[l] = '\0';
        s->bones[i].name = p;
        p += l + 1u;
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
