/* A small file cannot make ganim allocate much, and the limits hold.
 *
 * For every readable format (from the registry), every file of its own (the real samples
 * and the project's fixtures) is cut to its first 100 bytes (files of up to 1 KB are taken
 * whole, their fields beyond the first 100 bytes sampled by make check), and that piece is read as
 * the format as is and with every 16- and 32-bit field in it set to large values (0xFFFF,
 * 0xFFFFFFFF, 0x7FFFFFFF, 0x00010000, 0x01000000): the counts, sizes and offsets a
 * hostile header would announce. Each read goes through a counting allocator; its peak
 * (the most bytes alive at once) must stay under PEAK_LIMIT, whether the read succeeds or
 * fails. Whatever reads is also exported to glb and dumped, under the same bound.
 * Then the limits in ganim_read_opts are checked one by one on real documents: each is
 * refused with GANIM_ERR_LIMIT when set just below what the file needs, and read when set
 * to exactly that; and ganim_load_file stops at its input limit on a file, a pipe and an
 * endless device. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

#define PIECE 100
#define PEAK_LIMIT ((size_t)4 << 20) /* "a few MB" */
#define WHOLE 1024                   /* files this small are also taken whole */

typedef struct peak_counter {
    size_t live, peak;
} peak_counter;

static void *p_alloc(void *user, size_t size)
{
    peak_counter *c = user;
    void *p = malloc(size ? size : 1);
    if (p) {
        c->live += size;
        if (c->live > c->peak) c->peak = c->live;
    }
    return p;
}

static void *p_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    peak_counter *c = user;
    void *p = realloc(ptr, new_size ? new_size : 1);
    if (p) {
        c->live = c->live - old_size + new_size;
        if (c->live > c->peak) c->peak = c->live;
    }
    return p;
}

static void p_free(void *user, void *ptr, size_t size)
{
    peak_counter *c = user;
    c->live -= size;
    free(ptr);
}

static size_t worst_peak;
static char worst_case[600];
static long long reads, reads_ok;

/* Reads the bytes as `format` (with `skeleton` when not NULL), exports what reads, and
 * checks the peak. */
static void one(const uint8_t *data, size_t size, const ganim_format *format, const ganim_skeleton *skeleton,
                const char *what)
{
    peak_counter c = { 0, 0 };
    ganim_allocator al = { p_alloc, p_realloc, p_free, &c };
    ganim_read_opts ro = { 0 };
    ro.allocator = al;
    ro.format = format->name;
    ro.skeleton = skeleton;
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    reads++;
    if (ganim_read_memory(data, size, &ro, &doc, &e) == GANIM_OK) {
        reads_ok++;
        ganim_export_opts eo = { 0 };
        eo.allocator = al;
        ganim_buffer b = { 0 };
        if (ganim_export_glb(doc, &eo, &b, &e) == GANIM_OK) ganim_buffer_free(&b);
        if (ganim_export_json(doc, &eo, &b, &e) == GANIM_OK) ganim_buffer_free(&b);
        ganim_doc_free(doc);
    }
    CHECK_MSG(c.live == 0, "%s: %zu bytes still allocated after the read was freed", what, c.live);
    CHECK_MSG(c.peak <= PEAK_LIMIT, "%s: %zu bytes of input made ganim allocate %zu bytes at once", what, size, c.peak);
    if (c.peak > worst_peak) {
        worst_peak = c.peak;
        snprintf(worst_case, sizeof worst_case, "%s", what);
    }
}

static void put(uint8_t *p, int width, uint32_t v)
{
    for (int k = 0; k < width; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static void pieces_of(const char *path, const ganim_format *f, const ganim_skeleton *skeleton)
{
    size_t size;
    uint8_t *data = test_read_file(path, &size);
    size_t n = size <= WHOLE ? size : PIECE;
    uint8_t *piece = malloc(n ? n : 1);
    char what[600];
    const char *name = test_base_name(path);
    memcpy(piece, data, n);
    snprintf(what, sizeof what, "%s [%s%s] first %zu bytes", name, f->name, skeleton ? "+skeleton" : "", n);
    one(piece, n, f, skeleton, what);
    static const uint32_t big[] = { 0xFFFFFFFFu, 0x7FFFFFFFu, 0x00010000u, 0x01000000u, 0x0000FFFFu };
    uint64_t seed = test_seed(path);
    for (size_t at = 0; at < n; at++) {
        if (at >= PIECE && !test_sampled(seed + at, 4)) continue; /* beyond the piece: sampled (make check) */
        for (int width = 2; width <= 4; width += 2) {
            if (at + (size_t)width > n) continue;
            for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
                if (width == 2 && big[k] > 0xFFFFu) continue;
                memcpy(piece, data, n);
                put(piece + at, width, big[k]);
                snprintf(what, sizeof what, "%s [%s%s] first %zu bytes, u%d at %zu = 0x%X", name, f->name,
                         skeleton ? "+skeleton" : "", n, width * 8, at, big[k]);
                one(piece, n, f, skeleton, what);
            }
        }
    }
    free(piece);
    free(data);
}

static const ganim_format *current;

static void sweep_format(void)
{
    const ganim_format *f = current;
    for (int which = TEST_FIXTURES; which >= TEST_SAMPLES; which--) {
        if (which == TEST_SAMPLES && !test_testdata_optional()) continue;
        char **files = test_format_files(f, which);
        for (char **p = files; *p; p++) {
            pieces_of(*p, f, NULL);
            const char *comp = test_companion(*p);
            if (!comp) continue;
            ganim_doc *cdoc = NULL;
            ganim_error e = { 0 };
            if (ganim_read_file(comp, NULL, &cdoc, &e) == GANIM_OK && cdoc->skeleton) pieces_of(*p, f, cdoc->skeleton);
            ganim_doc_free(cdoc);
        }
        test_free_list(files);
    }
}

/* ---- the limits, one by one -------------------------------------------------------- */

static ganim_code read_limited(const char *path, const ganim_limits *lim, ganim_doc **doc, ganim_error *e)
{
    ganim_read_opts ro = { 0 };
    ro.limits = *lim;
    ro.companion = GANIM_COMPANION_NONE;
    *doc = NULL;
    memset(e, 0, sizeof *e);
    return ganim_read_file(path, &ro, doc, e);
}

static void example_path(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/examples/%s", GANIM_SOURCE_DIR, name);
}

TEST(each_limit_refuses_just_below_and_reads_at)
{
    char path[1024];
    example_path(path, sizeof path, "crane_wave_00.ala");
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    ganim_limits none = { 0 };
    CHECK(read_limited(path, &none, &doc, &e) == GANIM_OK);
    if (!doc) return;
    uint32_t frames = doc->clips[0].frame_count, bones = doc->skeleton->bone_count, clips = doc->clip_count;
    ganim_doc_free(doc);
    struct stat st;
    CHECK(stat(path, &st) == 0);
    struct {
        const char *name;
        ganim_limits at, below;
    } cases[] = {
        { "input_bytes", { .input_bytes = (uint64_t)st.st_size }, { .input_bytes = (uint64_t)st.st_size - 1 } },
        { "frames", { .frames = frames }, { .frames = frames - 1 } },
        { "bones", { .bones = bones }, { .bones = bones - 1 } },
        { "clips", { .clips = clips }, { .clips = clips ? clips : 1 } },
        { "samples", { .samples = (uint64_t)frames * bones }, { .samples = (uint64_t)frames * bones - 1 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_MSG(read_limited(path, &cases[i].at, &doc, &e) == GANIM_OK, "%s at the file's own size: %s",
                  cases[i].name, e.message);
        ganim_doc_free(doc);
        if (strcmp(cases[i].name, "clips") == 0) continue; /* one clip: a limit of 0 means the default */
        ganim_code c = read_limited(path, &cases[i].below, &doc, &e);
        CHECK_MSG(c == GANIM_ERR_LIMIT, "%s just below: code %d (%s)", cases[i].name, (int)c, e.message);
        CHECK_MSG(strstr(e.message, cases[i].name) != NULL, "%s: the message does not name the limit: %s",
                  cases[i].name, e.message);
        ganim_doc_free(doc);
    }
}

/* The clip limit refuses before the clips are built: an Argonaut block walks no more
 * records than the limit allows (and one), a glTF reads no animation when it has more
 * animations than the limit; each error names ganim_limits.clips, at the block or array. */
TEST(clip_limit_before_the_clips)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/argonaut/fixture_croc2.wad", GANIM_SOURCE_DIR);
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    ganim_limits lim = { 0 };
    CHECK(read_limited(path, &lim, &doc, &e) == GANIM_OK);
    if (!doc) return;
    CHECK(doc->clip_count == 3);
    ganim_buffer glb = { 0 };
    ganim_export_opts eo = { 0 };
    CHECK(ganim_export_glb(doc, &eo, &glb, &e) == GANIM_OK);
    ganim_doc_free(doc);
    lim.clips = 2;
    CHECK(read_limited(path, &lim, &doc, &e) == GANIM_ERR_LIMIT && doc == NULL);
    CHECK_MSG(strstr(e.message, "argonaut: the animation block announces 3 clips, more than the limit of 2 "
                                "(ganim_limits.clips)"),
              "%s", e.message);
    ganim_read_opts ro = { 0 };
    ro.limits = lim;
    CHECK(ganim_read_memory(glb.data, glb.size, &ro, &doc, &e) == GANIM_ERR_LIMIT && doc == NULL);
    CHECK_MSG(strstr(e.message, "gltf: the animations array announces 3 clips, more than the limit of 2 "
                                "(ganim_limits.clips)"),
              "%s", e.message);
    lim.clips = 3;
    ro.limits = lim;
    CHECK(ganim_read_memory(glb.data, glb.size, &ro, &doc, &e) == GANIM_OK && doc && doc->clip_count == 3);
    ganim_doc_free(doc);
    ganim_buffer_free(&glb);
}

TEST(keys_limit)
{
    /* An FF7-free, format-free keyed document: the Argonaut fixture's keyed record, if any
     * format gives keys; else every readable fixture is tried for a keyed channel. */
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    int found = 0;
    for (size_t i = 0; i < count && !found; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_READ)) continue;
        char **files = test_format_files(all[i], TEST_FIXTURES);
        for (char **p = files; *p && !found; p++) {
            ganim_doc *doc = NULL;
            ganim_error e = { 0 };
            ganim_limits none = { 0 };
            if (read_limited(*p, &none, &doc, &e) != GANIM_OK) continue;
            uint32_t keys = 0;
            for (uint32_t c = 0; c < doc->clip_count; c++)
                for (uint32_t t = 0; t < doc->clips[c].track_count; t++) {
                    const ganim_channel *ch = &doc->clips[c].tracks[t].rotation;
                    if (ch->kind == GANIM_CHANNEL_KEYED && ch->count > keys) keys = ch->count;
                }
            ganim_doc_free(doc);
            if (keys < 2) continue;
            found = 1;
            ganim_limits at = { .keys = keys }, below = { .keys = keys - 1 };
            CHECK_MSG(read_limited(*p, &at, &doc, &e) == GANIM_OK, "%s: %s", *p, e.message);
            ganim_doc_free(doc);
            /* refused, or (a format that keeps what it cannot decode as raw bytes) read
             * with no channel over the limit and a warning that names it */
            ganim_code c = read_limited(*p, &below, &doc, &e);
            if (c == GANIM_OK) {
                int named = 0, over = 0;
                for (uint32_t w = 0; w < doc->warning_count; w++)
                    named |= strstr(doc->warnings[w].message, "ganim_limits.keys") != NULL;
                for (uint32_t ci = 0; ci < doc->clip_count; ci++)
                    for (uint32_t t = 0; t < doc->clips[ci].track_count; t++)
                        over |= doc->clips[ci].tracks[t].rotation.kind == GANIM_CHANNEL_KEYED &&
                                doc->clips[ci].tracks[t].rotation.count > keys - 1;
                CHECK_MSG(named && !over, "%s: read under a keys limit of %u: warned %d, a channel over it %d", *p,
                          keys - 1, named, over);
            } else {
                CHECK_MSG(c == GANIM_ERR_LIMIT && strstr(e.message, "keys"), "%s: %s", *p, e.message);
            }
            ganim_doc_free(doc);
        }
        test_free_list(files);
    }
    CHECK_MSG(found, "no fixture of any format has a keyed channel of 2 keys or more");
}

TEST(load_file_stops_at_its_limit)
{
    char path[1024];
    example_path(path, sizeof path, "crane_wave_00.ala");
    struct stat st;
    CHECK(stat(path, &st) == 0);
    ganim_buffer b = { 0 };
    ganim_error e = { 0 };
    CHECK(ganim_load_file(path, NULL, (uint64_t)st.st_size, &b, &e) == GANIM_OK && b.size == (size_t)st.st_size);
    ganim_buffer_free(&b);
    CHECK(ganim_load_file(path, NULL, (uint64_t)st.st_size - 1, &b, &e) == GANIM_ERR_LIMIT && b.data == NULL);
    CHECK_MSG(strstr(e.message, "input limit") != NULL, "%s", e.message);
#ifndef _WIN32 /* neither an endless device nor a pipe has a path there */
    /* an endless device: stops at the limit, at once */
    peak_counter c = { 0, 0 };
    ganim_allocator al = { p_alloc, p_realloc, p_free, &c };
    CHECK(ganim_load_file("/dev/zero", &al, 1u << 20, &b, &e) == GANIM_ERR_LIMIT);
    CHECK_MSG(c.live == 0 && c.peak <= (2u << 20), "peak %zu bytes for a 1 MiB limit", c.peak);
    /* a pipe: the limit holds without a size to ask for */
    int fd[2];
    CHECK(pipe(fd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        static uint8_t block[4096];
        for (int i = 0; i < 1024; i++)
            if (write(fd[1], block, sizeof block) < 0) break;
        _exit(0);
    }
    close(fd[1]);
    char dev[64];
    snprintf(dev, sizeof dev, "/dev/fd/%d", fd[0]);
    CHECK(ganim_load_file(dev, NULL, 100000, &b, &e) == GANIM_ERR_LIMIT);
    close(fd[0]);
#endif
}

TEST(small_files_allocate_little)
{
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_READ)) continue;
        current = all[i];
        char name[96];
        snprintf(name, sizeof name, "small_files_allocate_little %s", all[i]->name);
        test_run(name, sweep_format);
    }
    printf("limits: %lld reads of the first %d bytes of every file, or of files of up to %d bytes whole (%lld "
           "read), the largest peak %zu bytes (%s)\n",
           reads, PIECE, WHOLE, reads_ok, worst_peak, worst_case);
}

int main(void)
{
    test_program_name = "test_limits";
    RUN(each_limit_refuses_just_below_and_reads_at);
    RUN(clip_limit_before_the_clips);
    RUN(keys_limit);
    RUN(load_file_stops_at_its_limit);
    small_files_allocate_little();
    if (!test_testdata_optional()) test_note_skip("test_limits on pieces of the real samples (fixtures used)");
    return test_finish();
}
