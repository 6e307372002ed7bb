/* The list of formats. Add a format: one file in src/formats and one line here. */
#include <string.h>

#include "core/internal.h"
#include "formats/formats.h"

static const ganim_format *const registry[] = {
    &ganim_format_alamo_ala,
    &ganim_format_alamo_alo,
    &ganim_format_ff7_battle,
    &ganim_format_ff7_skeleton,
    &ganim_format_acl,
    &ganim_format_civ7,
};

const ganim_format *const *ganim_formats(size_t *count)
{
    if (count) *count = sizeof registry / sizeof registry[0];
    return registry;
}

const ganim_format *ganim_format_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (ganim_strcasecmp(registry[i]->name, name) == 0) return registry[i];
    return NULL;
}

const ganim_format *ganim_probe(const void *data, size_t size, int *score)
{
    const ganim_format *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
        int s = registry[i]->probe ? registry[i]->probe((const uint8_t *)data, size) : 0;
        if (s > best_score) {
            best_score = s;
            best = registry[i];
        }
    }
    if (score) *score = best_score;
    return best;
}
