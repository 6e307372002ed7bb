/* ganim_doc_validate's check that no two tracks of a clip animate the same bone: a bit
 * set for skeletons of up to 4096 bones, a search among earlier tracks beyond. Both
 * sides of that limit: every clip of distinct bones passes; a clip where track j takes
 * the bone of an earlier track i is refused, naming that bone, whatever i and j. */
#include <stdlib.h>

#include "support/tbuild.h"
#include "test.h"

/* n bones, one clip of n tracks, track i animating bone order[i] (no channels). */
static ganim_doc *doc_of(uint32_t n, const uint32_t *order)
{
    ganim_doc *doc = tb_doc(n, NULL);
    uint32_t ci = tb_clip(doc, "c", 30, 1);
    for (uint32_t i = 0; i < n; i++) tb_track(doc, ci, order[i], NULL, NULL);
    return doc;
}

static void check_size(uint32_t n)
{
    uint32_t *order = malloc(n * sizeof *order);
    if (!order) return;
    for (uint32_t i = 0; i < n; i++) order[i] = (i * 11u + 3u) % n; /* a permutation (n not a multiple of 11) */
    ganim_doc *doc = doc_of(n, order);
    CHECK_MSG(doc != NULL, "document of %u bones", n);
    if (!doc) {
        free(order);
        return;
    }
    CHECK_EQ_INT(ganim_doc_validate(doc, NULL), GANIM_OK);
    ganim_track *tr = (ganim_track *)(uintptr_t)doc->clips[0].tracks;
    const uint32_t pairs[][2] = { { 0, 1 }, { 0, n - 1 }, { n / 2, n / 2 + 1 }, { 1, n - 1 }, { n - 2, n - 1 } };
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        uint32_t i = pairs[p][0], j = pairs[p][1];
        if (i >= j || j >= n) continue;
        uint32_t keep = tr[j].bone;
        tr[j].bone = tr[i].bone;
        ganim_error err = { 0 };
        char want[64];
        snprintf(want, sizeof want, "clip 0: two tracks animate bone %u", tr[i].bone);
        CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
        CHECK_MSG(strstr(err.message, want) != NULL, "%u bones, tracks %u and %u: \"%s\"", n, i, j, err.message);
        tr[j].bone = keep;
        CHECK_EQ_INT(ganim_doc_validate(doc, NULL), GANIM_OK);
    }
    ganim_doc_free(doc);
    free(order);
}

TEST(two_tracks_of_one_bone_are_refused)
{
    static const uint32_t sizes[] = { 2, 3, 64, 65, 130, 4095, 4096, 4097, 5000 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) check_size(sizes[s]);
}

int main(void)
{
    test_program_name = "test_validate_tracks";
    RUN(two_tracks_of_one_bone_are_refused);
    return test_finish();
}
