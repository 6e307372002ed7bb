/* ganim_skeleton_copy (the readers' copy of a given skeleton: the bones copied whole,
 * every name in one block of the arena) against a name-by-name reference: on skeletons
 * of 0 to 300 bones (both sides of the 256 bones whose lengths it keeps) with names of
 * random lengths (empty and NULL ones among them), every field, every name equal to the
 * source's and its own NUL-terminated string in the document (no two names sharing
 * bytes), the native record copied; and under memory limits from a few bytes up, either
 * a whole copy or NULL. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "test.h"

static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

/* 1 when `c` (the copy) is `s` as the reference copy would be: the same fields, names
 * equal (NULL read as ""), each name's bytes inside the document and apart from every
 * other name's (its length + 1 bytes, written after all the checks of the others). */
static int same_copy(const ganim_skeleton *s, const ganim_skeleton *c, char *why, size_t room)
{
    if (!c) return snprintf(why, room, "no copy"), 0;
    if (c == s || c->bones == s->bones) return snprintf(why, room, "not a copy"), 0;
    if (strcmp(c->name, s->name ? s->name : "") != 0) return snprintf(why, room, "skeleton name '%s'", c->name), 0;
    if (c->bone_count != s->bone_count) return snprintf(why, room, "bone count %u", c->bone_count), 0;
    for (uint32_t i = 0; i < s->bone_count; i++) {
        const ganim_bone *a = &s->bones[i], *b = &c->bones[i];
        const char *want = a->name ? a->name : "";
        if (!b->name || b->name == a->name || strcmp(b->name, want) != 0)
            return snprintf(why, room, "bone %u: name '%s', not '%s'", i, b->name ? b->name : "(null)", want), 0;
        if (b->parent != a->parent || b->flags != a->flags || memcmp(&b->rest, &a->rest, sizeof a->rest) != 0)
            return snprintf(why, room, "bone %u: parent, flags or rest pose differ", i), 0;
    }
    /* no two names overlap: overwrite each with its index's letter, then read all back */
    for (uint32_t i = 0; i < c->bone_count; i++) {
        size_t l = strlen(c->bones[i].name);
        char *w = (char *)(uintptr_t)c->bones[i].name;
        memset(w, 'a' + (int)(i % 26u), l);
    }
    for (uint32_t i = 0; i < c->bone_count; i++) {
        const char *n = c->bones[i].name;
        size_t l = strlen(n), want = s->bones[i].name ? strlen(s->bones[i].name) : 0;
        if (l != want) return snprintf(why, room, "bone %u: its name overlaps another (%zu bytes)", i, l), 0;
        for (size_t k = 0; k < l; k++)
            if (n[k] != 'a' + (int)(i % 26u)) return snprintf(why, room, "bone %u: byte %zu overwritten", i, k), 0;
    }
    if (strcmp(c->name, s->name ? s->name : "") != 0)
        return snprintf(why, room, "skeleton name overwritten: '%s'", c->name), 0;
    if ((c->native_format == NULL) != (s->native_format == NULL) || c->native_size != s->native_size ||
        (s->native_format && (c->native == s->native || memcmp(c->native, s->native, s->native_size) != 0)))
        return snprintf(why, room, "native record differs"), 0;
    return 1;
}

static char *random_name(uint32_t *seed)
{
    uint32_t len = next(seed) % 8u == 0 ? 0 : next(seed) % 41u;
    char *n = malloc(len + 1u);
    if (!n) return NULL;
    for (uint32_t k = 0; k < len; k++) n[k] = (char)(' ' + next(seed) % 95u);
    n[len] = 0;
    return n;
}

TEST(copy_matches_reference)
{
    static const uint32_t sizes[] = { 0, 1, 2, 3, 17, 255, 256, 257, 300 };
    static const uint8_t native[] = { 1, 2, 3, 4, 5, 6, 7 };
    uint32_t seed = 99u;
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        for (int round = 0; round < 20; round++) {
            uint32_t n = sizes[z];
            ganim_bone *bones = calloc(n ? n : 1, sizeof *bones);
            char **names = calloc(n ? n : 1, sizeof *names);
            if (!bones || !names) {
                free(bones);
                free(names);
                CHECK_MSG(0, "memory");
                return;
            }
            for (uint32_t i = 0; i < n; i++) {
                names[i] = next(&seed) % 16u == 0 ? NULL : random_name(&seed);
                bones[i].name = names[i];
                bones[i].parent = (int32_t)(next(&seed) % (i + 1u)) - 1;
                bones[i].rest = ganim_transform_identity();
                bones[i].rest.translation.x = (float)next(&seed);
                bones[i].flags = next(&seed) % 4u;
            }
            char *skname = round % 3 == 0 ? NULL : random_name(&seed);
            ganim_skeleton sk = {
                skname, n, bones, round % 2 ? "fmt" : NULL, round % 2 ? native : NULL, round % 2 ? sizeof native : 0
            };
            ganim_doc *doc = NULL;
            CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
            char why[200] = "";
            if (doc) {
                ganim_skeleton *c = ganim_skeleton_copy(doc, &sk);
                CHECK_MSG(same_copy(&sk, c, why, sizeof why), "%u bones, round %d: %s", n, round, why);
                ganim_doc_free(doc);
            }
            /* under memory limits: a whole copy or none, never a crash or a part */
            for (size_t limit = 64; limit < 70000; limit = limit * 3 / 2) {
                ganim_read_opts o;
                memset(&o, 0, sizeof o);
                o.memory_limit = limit;
                ganim_doc *d = NULL;
                if (ganim_doc_new(&o, &d, NULL) != GANIM_OK) continue;
                ganim_skeleton *c = ganim_skeleton_copy(d, &sk);
                CHECK_MSG(!c || same_copy(&sk, c, why, sizeof why), "%u bones, limit %zu: %s", n, limit, why);
                ganim_doc_free(d);
            }
            for (uint32_t i = 0; i < n; i++) free(names[i]);
            free(names);
            free(bones);
            free(skname);
        }
    }
}

int main(void)
{
    test_program_name = "test_skeleton_copy";
    RUN(copy_matches_reference);
    return test_finish();
}
