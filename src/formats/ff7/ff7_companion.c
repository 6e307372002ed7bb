/* Which skeleton an FF7 battle pack needs: a pack "xxda" (four letters ending in "da")
 * uses "xxaa", NAME.da uses NAME.aa, in the same folder. Names match without case; an
 * exact match wins, and the pack's own spelling ("DA" or "da") is tried first. */
#include <string.h>

#include "formats/ff7/ff7.h"

int ff7_battle_companion(const char *base, const char *const *names, size_t count)
{
    const char *ext = ganim_name_extension(base);
    size_t len = strlen(base), stem = (size_t)(ext - base);
    char want[512];
    if (len == 4 && ganim_strcasecmp(base + 2, "da") == 0) {
        memcpy(want, base, 2);
        memcpy(want + 2, base[2] == 'D' ? "AA" : "aa", 3);
    } else if (ganim_strcasecmp(ext, ".da") == 0 && stem + 4 <= sizeof want) {
        memcpy(want, base, stem);
        memcpy(want + stem, ext[1] == 'D' ? ".AA" : ".aa", 4);
    } else {
        return -1;
    }
    return ganim_name_match(names, count, want);
}
