/* Which .ALO an .ALA animates: MODEL_ANIM_NN.ala needs MODEL.alo. Strip trailing "_PART"
 * components one at a time (MODEL_ANIM_NN, MODEL_ANIM, MODEL, ...) and take the first
 * name that exists as .alo in the same folder. If none does, take the longest stripped
 * name (two components or more) that begins exactly one .alo file. Names match without
 * case (the games come from Windows); an exact-case match wins. */
#include <string.h>

#include "formats/alamo/alamo_ala.h"

static int is_alo(const char *name) { return ganim_strcasecmp(ganim_name_extension(name), ".alo") == 0; }

/* Case-insensitive prefix test. */
static int starts_with(const char *s, const char *prefix, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char a = s[i], b = prefix[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
        if (b >= 'A' && b <= 'Z') b = (char)(b + 32);
        if (a != b || !a) return 0;
    }
    return 1;
}

/* One level shorter: drop the last "_PART" (cut is the stem length at the level). */
static size_t shorter(const char *stem, size_t cut)
{
    while (cut > 0 && stem[cut - 1] != '_') cut--;
    return cut > 0 ? cut - 1 : 0; /* drop the '_' itself */
}

int alamo_ala_companion(const char *base, const char *const *names, size_t count)
{
    size_t len = (size_t)(ganim_name_extension(base) - base);
    char level[512];
    if (len == 0 || len + 5 > sizeof level) return -1;
    /* Exact MODEL.alo at each level, longest first. */
    for (size_t cut = len; cut > 0; cut = shorter(base, cut)) {
        memcpy(level, base, cut);
        memcpy(level + cut, ".alo", 5);
        int hit = ganim_name_match(names, count, level);
        if (hit >= 0) return hit;
    }
    /* MODEL*.alo when only one file fits. */
    for (size_t cut = len; cut > 0; cut = shorter(base, cut)) {
        if (!memchr(base, '_', cut)) continue; /* two components or more */
        int only = -1, hits = 0;
        for (size_t i = 0; i < count && i < (size_t)INT32_MAX; i++)
            if (is_alo(names[i]) && starts_with(names[i], base, cut) && strlen(names[i]) > cut) {
                only = (int)i;
                hits++;
            }
        if (hits == 1) return only;
    }
    return -1;
}
