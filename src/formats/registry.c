/* The list of formats. Add a format: its folder under src/formats and one line here. */
#include <ctype.h>
#include <string.h>

#include "core/internal.h"
#include "formats/format.h"
#include "io/fs.h"

#define FORMATS(X)                                                                  \
    X(ganim_format_alamo_ala)     /* alamo/alamo.c: .ALA animations */              \
    X(ganim_format_alamo_alo)     /* alamo/alamo.c: .ALO model skeletons */         \
    X(ganim_format_ff7_battle)    /* ff7/ff7.c: ??da battle animation packs */      \
    X(ganim_format_ff7_skeleton)  /* ff7/ff7.c: ??aa battle skeletons */            \
    X(ganim_format_acl)           /* acl/acl.c: ACL compressed_tracks buffers */    \
    X(ganim_format_civ7)          /* acl/acl.c: Civilization VII containers */      \
    X(ganim_format_civ7_skeleton) /* acl/acl.c: Civilization VII skeletons */       \
    X(ganim_format_argonaut)      /* argonaut/argonaut.c: WADs, animation blocks */ \
    X(ganim_format_argonaut_dir)  /* argonaut/argonaut.c: DAT/DIR archives */       \
    X(ganim_format_gltf)          /* gltf/gltf.c: glTF 2.0 .glb and .gltf */        \
    X(ganim_format_bvh)           /* bvh/bvh.c: Biovision hierarchies */

/* A declaration and an initialiser cannot take parentheses around the name. */
/* NOLINTBEGIN(bugprone-macro-parentheses) */
#define DECLARE(f) extern const ganim_format f;
#define ENTRY(f) &f,
/* NOLINTEND(bugprone-macro-parentheses) */
FORMATS(DECLARE)
static const ganim_format *const registry[] = { FORMATS(ENTRY) };
#define COUNT (sizeof registry / sizeof registry[0])

const ganim_format *const *ganim_formats(size_t *count)
{
    if (count) *count = COUNT;
    return registry;
}

const ganim_format *ganim_format_find(const char *name)
{
    if (!name) return NULL;
    /* Every name in the list starts with a lower-case ASCII letter: an ASCII first byte
     * other than it or its upper case cannot compare equal (tolower maps no other ASCII
     * byte to it), so only the names it may be are compared whole. */
    unsigned c0 = (unsigned char)name[0], first = c0 < 0x80u ? c0 | 0x20u : 0;
    for (size_t i = 0; i < COUNT; i++)
        if ((!first || (unsigned char)registry[i]->name[0] == first) && ganim_strcasecmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

int ganim_format_has_extension(const ganim_format *format, const char *ext)
{
    if (!format || !ext || !*ext || !format->extensions) return 0;
    size_t n = strlen(ext);
    for (const char *list = format->extensions; *list;) {
        const char *end = strchr(list, ';');
        size_t len = end ? (size_t)(end - list) : strlen(list);
        size_t i = 0;
        while (i < n && i < len && tolower((unsigned char)list[i]) == tolower((unsigned char)ext[i])) i++;
        if (len == n && i == n) return 1;
        list += len + (end ? 1 : 0);
    }
    return 0;
}

const ganim_format *ganim_format_for_path(const char *path)
{
    if (!path) return NULL;
    const char *dot = strrchr(ganim_path_base(path), '.');
    if (!dot) return NULL;
    for (size_t i = 0; i < COUNT; i++)
        if (ganim_format_has_extension(registry[i], dot)) return registry[i];
    return NULL;
}

int ganim_format_probe(const ganim_format *format, const void *data, size_t size)
{
    static const uint8_t empty[1];
    if (!format || !format->impl || !format->impl->probe || (!data && size)) return 0;
    return format->impl->probe(size ? (const uint8_t *)data : empty, size);
}

const ganim_format *ganim_probe(const void *data, size_t size, int *score)
{
    const ganim_format *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < COUNT; i++) {
        int s = ganim_format_probe(registry[i], data, size);
        if (s > best_score) {
            best_score = s;
            best = registry[i];
        }
    }
    if (score) *score = best_score;
    return best;
}
