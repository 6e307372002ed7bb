/* Writers are total: every document ganim reads, written in every writable format, either
 * reads back or is refused with a sentence.
 *
 * For every file of every readable format (the real samples, the project's fixtures, and
 * the hostile-but-readable files of <testdata>/hostile/), read as the tool reads it, and
 * for every writable format (from the registry): ganim_write either fails with a message
 * (and a code that says why: a limit, a value the format cannot hold, a document it cannot
 * take), or its bytes read back as that format (with the document's skeleton, as a user
 * gives --skeleton) into a valid document that agrees with what was written (the bounds
 * of tests/fuzz/roundtrip_check.h: every format's quantisation, but not a wrong axis,
 * sign, overflow or bone; each family's own tests check the exact precision on known
 * answers). Writing the read-back document again must succeed too. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include <math.h>

#include "roundtrip_check.h"
#include "support/tbuild.h"
#include "test.h"

static long long writes, refused, losses_reported;
static rt_stats stats;

static void on_write_warning(void *user, const ganim_warning *w)
{
    (void)user;
    (void)w;
    losses_reported++;
}

static void write_and_read_back(const char *path, const ganim_doc *doc, const ganim_format *w)
{
    char what[700];
    snprintf(what, sizeof what, "%s -> %s", test_base_name(path), w->name);
    ganim_write_opts wo = { 0 };
    wo.warn = on_write_warning;
    ganim_buffer out = { 0 };
    ganim_error e = { 0 };
    writes++;
    ganim_code c = ganim_write(doc, w->name, &wo, &out, &e);
    if (c != GANIM_OK) {
        refused++;
        CHECK_MSG(e.message[0] != 0, "%s: refused without a message", what);
        CHECK_MSG(c == GANIM_ERR_LIMIT || c == GANIM_ERR_INVALID_ARG || c == GANIM_ERR_UNSUPPORTED ||
                      c == GANIM_ERR_MISMATCH,
                  "%s: refused with code %d (%s)", what, (int)c, e.message);
        ganim_buffer_free(&out);
        return;
    }
    ganim_doc *back = NULL;
    c = rt_read_back(doc, out.data, out.size, w, &back, &e);
    CHECK_MSG(c == GANIM_OK, "%s: ganim wrote a file it cannot read back: %s", what, e.message);
    if (c == GANIM_OK) {
        char why[600];
        CHECK_MSG(rt_agree(doc, back, w, &stats, why, sizeof why), "%s: %s", what, why);
        /* and what was read back writes again */
        ganim_buffer again = { 0 };
        c = ganim_write(back, w->name, &wo, &again, &e);
        CHECK_MSG(c == GANIM_OK, "%s: the document read back does not write again: %s", what, e.message);
        ganim_buffer_free(&again);
        ganim_doc_free(back);
    }
    ganim_buffer_free(&out);
}

static void one_file(const char *path)
{
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    if (ganim_read_file(path, NULL, &doc, &e) != GANIM_OK) return; /* not this test's subject */
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++)
        if (all[i]->flags & GANIM_FORMAT_WRITE) write_and_read_back(path, doc, all[i]);
    ganim_doc_free(doc);
}

static const ganim_format *current;
static void sweep_format(void)
{
    for (int which = TEST_FIXTURES; which >= TEST_SAMPLES; which--) {
        if (which == TEST_SAMPLES && !test_testdata_optional()) continue;
        char **files = test_format_files(current, which);
        for (char **p = files; *p; p++) one_file(*p);
        test_free_list(files);
    }
}

/* The lowest and highest rates a document may have: the float a file stores for them must
 * still be a rate its reader takes (the float nearest 1e-4 lies below it). */
TEST(rates_at_the_limits)
{
    const double rates[2] = { GANIM_MIN_FPS, GANIM_MAX_FPS };
    for (int r = 0; r < 2; r++) {
        ganim_doc *doc = tb_doc(2, NULL);
        if (!doc) return;
        doc->skeleton->bones[1].parent = 0;
        uint32_t c = tb_clip(doc, "limit", rates[r], 2);
        uint32_t t = tb_track(doc, c, 1, NULL, NULL);
        const float rot[8] = { 0, 0, 0, 1, 0, 0.6f, 0, 0.8f };
        tb_channel(doc, c, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, 2, NULL, rot);
        const char *must[2] = { "alamo-ala", "civ7" };
        for (int k = 0; k < 2; k++) {
            ganim_buffer out = { 0 };
            ganim_error e = { 0 };
            CHECK_MSG(ganim_write(doc, must[k], NULL, &out, &e) == GANIM_OK, "%s at %g fps: %s", must[k], rates[r],
                      e.message);
            ganim_read_opts ro = { 0 };
            ro.format = must[k];
            ro.skeleton = doc->skeleton;
            ganim_doc *back = NULL;
            CHECK_MSG(ganim_read_memory(out.data, out.size, &ro, &back, &e) == GANIM_OK, "%s at %g fps: %s", must[k],
                      rates[r], e.message);
            if (back)
                CHECK_MSG(fabs(back->clips[0].fps / rates[r] - 1) < 1e-6, "%s: %g fps came back as %g", must[k],
                          rates[r], back->clips[0].fps);
            ganim_doc_free(back);
            ganim_buffer_free(&out);
        }
        size_t count;
        const ganim_format *const *all = ganim_formats(&count);
        for (size_t i = 0; i < count; i++)
            if (all[i]->flags & GANIM_FORMAT_WRITE) write_and_read_back("rates_at_the_limits", doc, all[i]);
        ganim_doc_free(doc);
    }
}

TEST(hostile_but_readable)
{
    const char *data = test_testdata_optional();
    if (!data) return;
    char **files = test_list_dir(test_path("hostile", ""), "");
    for (char **p = files; *p; p++) {
        size_t n = strlen(*p);
        if (n > 3 && strcmp(*p + n - 3, ".md") == 0) continue;
        one_file(*p);
    }
    test_free_list(files);
}

int main(void)
{
    test_program_name = "test_writers";
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_READ)) continue;
        current = all[i];
        char name[96];
        snprintf(name, sizeof name, "every writer on %s files", all[i]->name);
        test_run(name, sweep_format);
    }
    RUN(rates_at_the_limits);
    RUN(hostile_but_readable);
    if (!test_testdata_optional()) test_note_skip("test_writers on the real samples (fixtures used)");
    printf("writers: %lld writes, %lld refused with a reason, %lld values compared, %lld losses reported\n", writes,
           refused, stats.values, losses_reported);
    return test_finish();
}
