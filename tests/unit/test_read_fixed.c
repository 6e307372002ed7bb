/* The fixed part of a read (src/formats/read.c, the document's creation): the format a
 * read picks and the probe score it records, whether the caller names the format, the
 * bytes are probed once (ganim_read_memory) or the file's read reuses its probe
 * (ganim_read_file), against ganim_probe and ganim_format_probe asked directly, on every
 * sample and fixture of every format and on every minimised fuzz finding; and the limits
 * a document starts with and a read records, against ganim_limits_resolve. Every read
 * validated again in full: what its reader vouched for holds. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "test.h"

static uint32_t next(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return *seed >> 8;
}

TEST(limits_as_resolved)
{
    ganim_doc *doc = NULL;
    CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
    ganim_limits def = ganim_limits_resolve(NULL);
    CHECK_MSG(doc && memcmp(ganim_doc_limits(doc), &def, sizeof def) == 0, "a new document's limits");
    ganim_doc_free(doc);
    /* the core's own documents (a reader's, its scratch) before a read sets limits */
    ganim_doc *made[3] = { ganim_doc_create(NULL, 0), ganim_doc_create_for_input(NULL, 0, 300), NULL };
    if (made[1]) made[2] = ganim_doc_scratch(made[1]);
    for (int k = 0; k < 3; k++)
        CHECK_MSG(made[k] && memcmp(ganim_doc_limits(made[k]), &def, sizeof def) == 0, "document %d's limits", k);
    ganim_doc_free(made[2]);
    ganim_doc_free(made[1]);
    ganim_doc_free(made[0]);
    /* a read records its limits resolved: zeros, small values, values over the maxima */
    static const char text[] = "HIERARCHY\nROOT a\n{\nOFFSET 0 0 0\nCHANNELS 3 Xrotation Yrotation Zrotation\n"
                               "End Site\n{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: 2\nFrame Time: 0.5\n0 0 0\n1 2 3\n";
    uint32_t seed = 7u;
    for (int round = 0; round < 200; round++) {
        ganim_read_opts o;
        memset(&o, 0, sizeof o);
        o.format = round % 2 ? "bvh" : NULL;
        uint64_t big = ~(uint64_t)0;
        o.limits.input_bytes = next(&seed) % 3u ? 0 : (next(&seed) % 2u ? big : 1000u + next(&seed));
        o.limits.frames = next(&seed) % 3u ? 0 : (next(&seed) % 2u ? ~0u : 2u + next(&seed) % 100u);
        o.limits.bones = next(&seed) % 3u ? 0 : (next(&seed) % 2u ? ~0u : 1u + next(&seed) % 100u);
        o.limits.clips = next(&seed) % 3u ? 0 : (next(&seed) % 2u ? ~0u : 1u + next(&seed) % 100u);
        o.limits.keys = next(&seed) % 3u ? 0 : (next(&seed) % 2u ? ~0u : 2u + next(&seed) % 100u);
        o.limits.samples = next(&seed) % 3u ? 0 : (next(&seed) % 2u ? big : 2u + next(&seed) % 1000u);
        ganim_doc *d = NULL;
        ganim_error err = { 0 };
        ganim_code rc = ganim_read_memory(text, sizeof text - 1u, &o, &d, &err);
        CHECK_MSG(rc == GANIM_OK, "round %d: %s", round, err.message);
        ganim_limits want = ganim_limits_resolve(&o.limits);
        CHECK_MSG(!d || memcmp(ganim_doc_limits(d), &want, sizeof want) == 0, "round %d: the read's limits", round);
        ganim_doc_free(d);
    }
}

/* The read of `data` as `how` (0 memory unprobed, 1 memory named, 2 the file) against the
 * probe asked directly. */
static void check_one(const char *path, const uint8_t *data, size_t size, int how)
{
    int best = 0;
    const ganim_format *probed = ganim_probe(data, size, &best);
    ganim_read_opts o;
    memset(&o, 0, sizeof o);
    o.companion = GANIM_COMPANION_NONE;
    if (how == 1) {
        if (!probed) return;
        o.format = probed->name;
    }
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    ganim_code rc = how == 2 ? ganim_read_file(path, &o, &doc, &err) : ganim_read_memory(data, size, &o, &doc, &err);
    if (rc != GANIM_OK) {
        /* refused: unknown bytes say so as before (the memory read, the probe's verdict) */
        if (how == 0 && !probed) CHECK_EQ_INT(rc, GANIM_ERR_UNKNOWN_FORMAT);
        return;
    }
    if (!doc) {
        CHECK_MSG(0, "%s: no document", path);
        return;
    }
    if (how != 2) CHECK_MSG(doc->format == probed, "%s (%d): format %s", path, how, doc->format->name);
    int want = ganim_format_probe(doc->format, data, size);
    CHECK_MSG(doc->probe_score == want, "%s (%d): probe score %d, the format's probe %d", path, how, doc->probe_score,
              want);
    if (doc->format == probed) CHECK_MSG(doc->probe_score == best, "%s (%d): not the best score", path, how);
    /* what a reader vouched for (ganim_doc_vouch_rotations, _vectors) holds: the whole
     * validation, which vouches for nothing, passes too */
    ganim_error verr = { 0 };
    CHECK_MSG(ganim_doc_validate(doc, &verr) == GANIM_OK, "%s (%d): validated again: %s", path, how, verr.message);
    ganim_doc_free(doc);
}

static int checked;

static void check_list(char **files)
{
    for (size_t i = 0; files && files[i]; i++) {
        size_t size = 0;
        uint8_t *data = test_read_file(files[i], &size);
        if (!data) continue;
        if (size <= (1u << 20)) {
            for (int how = 0; how < 3; how++) check_one(files[i], data, size, how);
            checked++;
        }
        free(data);
    }
    test_free_list(files);
}

TEST(format_and_probe_score)
{
    size_t nf = 0;
    const ganim_format *const *fs = ganim_formats(&nf);
    for (size_t f = 0; f < nf; f++) {
        check_list(test_format_files(fs[f], TEST_FIXTURES));
        if (test_testdata_optional()) check_list(test_format_files(fs[f], TEST_SAMPLES));
    }
    check_list(test_regress_files());
    CHECK_MSG(checked > 20, "%d files", checked);
}

int main(void)
{
    test_program_name = "test_read_fixed";
    RUN(limits_as_resolved);
    RUN(format_and_probe_score);
    return test_finish();
}
