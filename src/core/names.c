/* Names: the unique [A-Za-z0-9_-] bone names ganim's exporters write (glTF nodes, BVH
 * joints), shared with the code that matches bones by the names an export gave them; and
 * names compared without ASCII case (file names, clip names). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

/* Inserts name[i] into the open-addressing table unless an equal name is there. */
static int name_insert(uint32_t *table, uint32_t mask, char **names, uint32_t i)
{
    uint32_t h = name_hash(names[i]) & mask;
    while (table[h]) {
        if (!strcmp(names[table[h] - 1], names[i])) return 0;
        h = (h + 1) & mask;
    }
    table[h] = i + 1;
    return 1;
}

int ganim_names_make(const ganim_allocator *a, const ganim_skeleton *sk, const char *const *extra, uint32_t extra_count,
                     ganim_names *out)
{
    uint32_t nb = sk ? sk->bone_count : 0, n = nb + extra_count;
    size_t chars = 0;
    for (uint32_t i = 0; i < n; i++) chars += strlen(i < nb ? sk->bones[i].name : extra[i - nb]) + 64;
    uint32_t tsize = 16;
    while (tsize < 2 * (n + 1)) tsize *= 2;
    size_t ptrs = (size_t)n * sizeof(char *), tbl = (size_t)tsize * sizeof(uint32_t);
    out->bytes = ptrs + tbl + chars;
    uint8_t *mem = ganim_alloc(a, out->bytes);
    if (!mem) return 0;
    memset(mem, 0, out->bytes);
    out->name = (char **)(void *)mem;
    uint32_t *table = (uint32_t *)(void *)(mem + ptrs);
    char *p = (char *)(mem + ptrs + tbl);
    for (uint32_t i = 0; i < n; i++) {
        const char *src = i < nb ? sk->bones[i].name : extra[i - nb];
        char *s = p;
        size_t len = strlen(src);
        for (size_t k = 0; k < len; k++) {
            char ch = src[k];
            int ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                     ch == '-';
            s[k] = ok ? ch : '_';
        }
        if (len == 0) len = (size_t)snprintf(s, 32, "bone_%u", i);
        /* suffixes below need at most 23 bytes; each name owns strlen + 64 */
        s[len] = 0;
        out->name[i] = s;
        if (!name_insert(table, tsize - 1, out->name, i)) {
            snprintf(s + len, 32, "_%u", i);
            for (uint32_t k = 1; !name_insert(table, tsize - 1, out->name, i); k++)
                snprintf(s + len, 32, "_%u_%u", i, k);
        }
        p = s + strlen(s) + 1;
    }
    return 1;
}

void ganim_names_free(const ganim_allocator *a, ganim_names *names)
{
    ganim_free(a, names->name, names->bytes);
    names->name = NULL;
}

/* Bytes the same are the same without case: tolower only where they differ (tolower maps
 * no byte but NUL to NUL, so a same byte ends the strings exactly when it is NUL). */
int ganim_strcasecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        if (x == y) {
            if (!x) return 0;
            continue;
        }
        int ca = tolower(x), cb = tolower(y);
        if (ca != cb || !ca) return ca - cb;
    }
}
