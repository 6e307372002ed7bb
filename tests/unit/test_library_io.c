/* What the library does that the tool used to do itself: reading a file finds its
 * companion skeleton by the format's rule (any case, exact first), drops one that cannot
 * be read with a warning, falls back to the extension's reader for unrecognised bytes,
 * refuses folders, declares axes; clips are found by index or name; exports name
 * unnamed clips after the file and report what they drop through the warning callback.
 * Self-contained: the project's own examples/ and files made here. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "formats/format.h"
#include "support/tbuild.h"
#include "test.h"

static char tmp[256];

static const char *example(const char *name)
{
    static char ring[4][1024];
    static int k;
    char *p = ring[k++ & 3];
    snprintf(p, 1024, "%s/examples/%s", GANIM_SOURCE_DIR, name);
    return p;
}

static const char *in_tmp(const char *name)
{
    static char ring[4][512];
    static int k;
    char *p = ring[k++ & 3];
    snprintf(p, 512, "%s/%s", tmp, name);
    return p;
}

static void copy_file(const char *from, const char *to, size_t keep)
{
    size_t n;
    uint8_t *d = test_read_file(from, &n);
    FILE *f = test_fopen(to, "wb");
    CHECK(f != NULL);
    if (f) {
        fwrite(d, 1, keep < n ? keep : n, f);
        fclose(f);
    }
    free(d);
}

/* Does the n bytes at p contain `needle`? */
static int contains(const void *p, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; k <= n && i <= n - k; i++)
        if (memcmp((const char *)p + i, needle, k) == 0) return 1;
    return 0;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

TEST(companion_found_by_the_format_rule)
{
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_read_file(example("crane_wave_00.ala"), NULL, &doc, &e) == GANIM_OK);
    if (!doc) return;
    CHECK(doc->skeleton_file && strcmp(base(doc->skeleton_file), "crane.alo") == 0);
    CHECK(doc->used_file_count == 1 && strcmp(doc->used_files[0], doc->skeleton_file) == 0);
    CHECK_EQ_INT(doc->skeleton->bone_count, 4);
    CHECK_EQ_STR(doc->skeleton->bones[3].name, "B_Jib");
    CHECK(!(doc->skeleton->bones[0].flags & GANIM_BONE_SYNTH));
    CHECK_EQ_INT(doc->probe_score, 90);
    CHECK_EQ_INT(doc->warning_count, 0);
    ganim_doc_free(doc);
    /* without it: a flat skeleton named after the tracks */
    ganim_read_opts ro = { 0 };
    ro.companion = GANIM_COMPANION_NONE;
    CHECK(ganim_read_file(example("crane_wave_00.ala"), &ro, &doc, &e) == GANIM_OK);
    if (!doc) return;
    CHECK(doc->skeleton_file == NULL);
    CHECK(doc->used_file_count == 0 && doc->used_files == NULL);
    CHECK((doc->skeleton->bones[0].flags & GANIM_BONE_SYNTH) != 0);
    CHECK_EQ_INT(doc->skeleton->bones[1].parent, -1);
    ganim_doc_free(doc);
    char path[1024];
    CHECK(ganim_find_companion(example("antenna_spin_00.ala"), NULL, path, sizeof path) == 1);
    CHECK_EQ_STR(base(path), "antenna.alo");
    CHECK(ganim_find_companion(example("antenna.alo"), NULL, path, sizeof path) == 0);
    CHECK(ganim_find_companion(example("crane_wave_00.ala"), NULL, path, 8) == 0); /* too small */
}

/* A folder listed once for many files: ganim_find_companion_in picks by the same rule
 * among the names given, and ganim_read_file looks for the companion among
 * read_opts.folder_names instead of listing the folder (a listing without the .alo: the
 * read makes up a flat skeleton although crane.alo is there). */
TEST(companion_among_a_listing)
{
    const char *listed[] = { "antenna.alo", "antenna_spin_00.ala", "crane.alo", "crane_wave_00.ala" };
    const char *without[] = { "antenna.alo", "antenna_spin_00.ala", "crane_wave_00.ala" };
    char path[1024], want[1024];
    CHECK(ganim_find_companion(example("crane_wave_00.ala"), NULL, want, sizeof want) == 1);
    CHECK(ganim_find_companion_in(example("crane_wave_00.ala"), NULL, listed, 4, path, sizeof path) == 1);
    CHECK_EQ_STR(path, want);
    CHECK_EQ_STR(base(path), "crane.alo");
    CHECK(ganim_find_companion_in(example("crane_wave_00.ala"), NULL, without, 3, path, sizeof path) == 0);
    CHECK_EQ_STR(path, "");
    CHECK(ganim_find_companion_in(example("crane_wave_00.ala"), NULL, NULL, 0, path, sizeof path) == 0);
    CHECK(ganim_find_companion_in(example("crane_wave_00.ala"), NULL, NULL, 2, path, sizeof path) == 0);
    CHECK(ganim_find_companion_in("crane_wave_00.ala", NULL, listed, 4, path, sizeof path) == 1);
    CHECK_EQ_STR(path, "crane.alo"); /* no folder: the name alone, as ganim_find_companion gives it */
    ganim_read_opts ro = { 0 };
    ro.folder_names = without;
    ro.folder_name_count = 3;
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_read_file(example("crane_wave_00.ala"), &ro, &doc, &e) == GANIM_OK);
    if (doc) {
        CHECK(doc->skeleton_file == NULL);
        CHECK((doc->skeleton->bones[0].flags & GANIM_BONE_SYNTH) != 0);
    }
    ganim_doc_free(doc);
    ro.folder_names = listed;
    ro.folder_name_count = 4;
    doc = NULL;
    CHECK(ganim_read_file(example("crane_wave_00.ala"), &ro, &doc, &e) == GANIM_OK);
    if (doc) {
        CHECK(doc->skeleton_file && strcmp(base(doc->skeleton_file), "crane.alo") == 0);
        CHECK_EQ_INT(doc->skeleton->bone_count, 4);
    }
    ganim_doc_free(doc);
}

/* Paths are UTF-8 on every system (on Windows the library opens and lists them through
 * the UTF-16 calls): names beyond ASCII and with spaces, in a folder of such a name, are
 * read, and their companion is found; on Windows also with backslashes. */
TEST(utf8_names_with_spaces)
{
    char dir[512], ala[600], alo[600];
    snprintf(dir, sizeof dir, "%s", in_tmp("Modèles été 起重機"));
    CHECK(test_mkdir(dir) == 0);
    snprintf(ala, sizeof ala, "%s/Grúa ölçü_wave_00.ala", dir);
    snprintf(alo, sizeof alo, "%s/Grúa ölçü.alo", dir);
    copy_file(example("crane_wave_00.ala"), ala, SIZE_MAX);
    copy_file(example("crane.alo"), alo, SIZE_MAX);
    ganim_buffer b = { 0 };
    ganim_error e = { 0 };
    size_t n;
    free(test_read_file(example("crane_wave_00.ala"), &n));
    CHECK(ganim_load_file(ala, NULL, 0, &b, &e) == GANIM_OK && b.size == n);
    ganim_buffer_free(&b);
    char path[1024];
    CHECK(ganim_find_companion(ala, NULL, path, sizeof path) == 1);
    CHECK_EQ_STR(path, alo);
    ganim_doc *doc = NULL;
    CHECK(ganim_read_file(ala, NULL, &doc, &e) == GANIM_OK);
    if (doc) {
        CHECK(doc->skeleton_file && strcmp(doc->skeleton_file, alo) == 0);
        CHECK_EQ_INT(doc->skeleton->bone_count, 4);
        CHECK(!(doc->skeleton->bones[0].flags & GANIM_BONE_SYNTH));
    }
    ganim_doc_free(doc);
#ifdef _WIN32
    /* the same with backslashes, and a name that is not UTF-8 fails to open */
    char back[600];
    snprintf(back, sizeof back, "%s", ala);
    for (char *p = back + strlen(tmp); *p; p++)
        if (*p == '/') *p = '\\';
    doc = NULL;
    CHECK(ganim_read_file(back, NULL, &doc, &e) == GANIM_OK);
    if (doc) {
        const char *want = "\\Grúa ölçü.alo", *got = doc->skeleton_file ? doc->skeleton_file : "";
        CHECK_MSG(strlen(got) > strlen(want) && strcmp(got + strlen(got) - strlen(want), want) == 0, "%s", got);
    }
    ganim_doc_free(doc);
    CHECK(ganim_load_file(in_tmp("\xff\xfe.ala"), NULL, 0, &b, &e) == GANIM_ERR_IO);
#endif
    CHECK(test_remove(ala) == 0);
    CHECK(test_remove(alo) == 0);
    CHECK(test_remove(dir) == 0);
}

TEST(companion_in_any_case_exact_first)
{
    copy_file(example("crane_wave_00.ala"), in_tmp("CRANE_WAVE_00.ALA"), SIZE_MAX);
    copy_file(example("crane.alo"), in_tmp("Crane.Alo"), SIZE_MAX);
    char path[1024];
    CHECK(ganim_find_companion(in_tmp("CRANE_WAVE_00.ALA"), NULL, path, sizeof path) == 1);
    CHECK_EQ_STR(base(path), "Crane.Alo");
#ifndef _WIN32 /* names that differ only by case are one file there */
    copy_file(example("crane.alo"), in_tmp("CRANE.alo"), SIZE_MAX);
    CHECK(ganim_find_companion(in_tmp("CRANE_WAVE_00.ALA"), NULL, path, sizeof path) == 1);
    CHECK_EQ_STR(base(path), "CRANE.alo"); /* exact beats any-case */
#endif
    /* the longest prefix that begins exactly one .alo: CRANE_WAVE.alo is not there,
     * CRANE_W*.alo is one file */
    unlink(in_tmp("Crane.Alo"));
    unlink(in_tmp("CRANE.alo"));
    copy_file(example("crane.alo"), in_tmp("CRANE_WAVE_BIG.ALO"), SIZE_MAX);
    CHECK(ganim_find_companion(in_tmp("CRANE_WAVE_00.ALA"), NULL, path, sizeof path) == 1);
    CHECK_EQ_STR(base(path), "CRANE_WAVE_BIG.ALO");
    unlink(in_tmp("CRANE_WAVE_BIG.ALO"));
    /* a folder with the companion's name is not a companion */
    test_mkdir(in_tmp("CRANE.ALO"));
    CHECK(ganim_find_companion(in_tmp("CRANE_WAVE_00.ALA"), NULL, path, sizeof path) == 0);
    rmdir(in_tmp("CRANE.ALO"));
    unlink(in_tmp("CRANE_WAVE_00.ALA"));
}

TEST(unreadable_companion_is_dropped_with_a_warning)
{
    copy_file(example("crane_wave_00.ala"), in_tmp("crane_wave_00.ala"), SIZE_MAX);
    copy_file(example("crane.alo"), in_tmp("crane.alo"), 20); /* cut off */
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_read_file(in_tmp("crane_wave_00.ala"), NULL, &doc, &e) == GANIM_OK);
    if (doc) {
        CHECK(doc->skeleton_file == NULL);
        CHECK(doc->warning_count >= 1 && doc->warnings[0].code == GANIM_WARN_COMPANION);
        CHECK_MSG(doc->warning_count && strstr(doc->warnings[0].message, "could not be read") &&
                      strstr(doc->warnings[0].message, "crane.alo"),
                  "%s", doc->warning_count ? doc->warnings[0].message : "");
        CHECK((doc->skeleton->bones[0].flags & GANIM_BONE_SYNTH) != 0);
    }
    ganim_doc_free(doc);
    unlink(in_tmp("crane.alo"));
    unlink(in_tmp("crane_wave_00.ala"));
}

TEST(extension_fallback_folders_and_axes)
{
    copy_file(example("crane_wave_00.ala"), in_tmp("cut.ala"), 4); /* nothing recognises 4 bytes */
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_read_file(in_tmp("cut.ala"), NULL, &doc, &e) == GANIM_ERR_TRUNCATED && doc == NULL);
    CHECK_MSG(strncmp(e.message, "alamo-ala:", 10) == 0, "%s", e.message);
    copy_file(example("crane_wave_00.ala"), in_tmp("cut.bin"), 4);
    CHECK(ganim_read_file(in_tmp("cut.bin"), NULL, &doc, &e) == GANIM_ERR_UNKNOWN_FORMAT);
    unlink(in_tmp("cut.ala"));
    unlink(in_tmp("cut.bin"));
    CHECK(ganim_read_file(tmp, NULL, &doc, &e) == GANIM_ERR_IO);
    CHECK_EQ_STR(e.message, "is a directory");
    CHECK(ganim_read_file(in_tmp("missing.ala"), NULL, &doc, &e) == GANIM_ERR_IO);
    ganim_read_opts ro = { 0 };
    ro.up = GANIM_UP_Y_DOWN;
    CHECK(ganim_read_file(example("crane_wave_00.ala"), &ro, &doc, &e) == GANIM_OK);
    if (doc) CHECK_EQ_INT(doc->axes, GANIM_AXES_Y_DOWN);
    ganim_doc_free(doc);
}

/* An Argonaut animation block and an FF7 pack are both a count and records, with no magic
 * number: bytes both probes take are read as the format the file's extension names. */
TEST(extension_decides_between_formats_that_both_take_the_bytes)
{
    ganim_doc *doc = tb_doc(2, NULL);
    /* 12 frames: the record's frame count reads as an FF7 entry's size of at least 11 */
    uint32_t c = tb_clip(doc, "squash", 30, 12);
    static const float rot[4] = { 0, 0, 0, 1 };
    float scale[36];
    for (int i = 0; i < 36; i++) scale[i] = 0.1f + 0.05f * (float)(i % 5);
    for (uint32_t b = 0; b < 2; b++) {
        uint32_t t = tb_track(doc, c, b, NULL, NULL);
        tb_channel(doc, c, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_CONSTANT, 1, NULL, rot);
        tb_channel(doc, c, t, GANIM_TARGET_SCALE, GANIM_CHANNEL_PER_FRAME, 12, NULL, scale);
    }
    ganim_buffer out = { 0 };
    ganim_error e = { 0 };
    ganim_setting block;
    ganim_write_opts wo = test_write_setting(&block, "argonaut.container", "block"); /* a bare block: no level */
    CHECK(ganim_write(doc, "argonaut", &wo, &out, &e) == GANIM_OK);
    ganim_doc_free(doc);
    const ganim_format *ag = ganim_format_find("argonaut"), *ff7 = ganim_format_find("ff7-battle");
    int sa = ganim_format_probe(ag, out.data, out.size), sf = ganim_format_probe(ff7, out.data, out.size);
    CHECK_MSG(sa > 0 && sf > sa, "argonaut probes %d, ff7-battle %d: the case this test is for", sa, sf);
    const char *names[2] = { "squash.wad", "squash.bin" };
    const char *want[2] = { "argonaut", "ff7-battle" }; /* .bin names no format: the probe decides */
    for (int k = 0; k < 2; k++) {
        FILE *f = test_fopen(in_tmp(names[k]), "wb");
        CHECK(f && fwrite(out.data, 1, out.size, f) == out.size);
        if (f) fclose(f);
        ganim_code code = ganim_read_file(in_tmp(names[k]), NULL, &doc, &e);
        const char *got = code == GANIM_OK && doc->format ? doc->format->name : e.message;
        CHECK_MSG(strncmp(got, want[k], strlen(want[k])) == 0, "%s read as: %s", names[k], got);
        ganim_doc_free(doc);
        doc = NULL;
        unlink(in_tmp(names[k]));
    }
    ganim_buffer_free(&out);
}

TEST(clips_by_index_or_name)
{
    ganim_doc *doc = NULL;
    CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
    const char *names[3] = { "Walk", "walk", "Run" };
    for (int i = 0; i < 3; i++) {
        ganim_clip c = { 0 };
        c.name = names[i];
        c.kind = GANIM_CLIP_OPAQUE;
        CHECK_OK(ganim_doc_add_clip(doc, &c, NULL, NULL));
    }
    uint32_t k = 99;
    ganim_error e = { 0 };
    CHECK(ganim_doc_find_clip(doc, "2", &k, &e) == GANIM_OK && k == 2);
    CHECK(ganim_doc_find_clip(doc, "walk", &k, &e) == GANIM_OK && k == 1); /* exact first */
    CHECK(ganim_doc_find_clip(doc, "RUN", &k, &e) == GANIM_OK && k == 2);
    CHECK(ganim_doc_find_clip(doc, "3", &k, &e) == GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(e.message, "the file has 3 clips"), "%s", e.message);
    CHECK(ganim_doc_find_clip(doc, "99999999999999999999", &k, &e) == GANIM_ERR_INVALID_ARG);
    CHECK(ganim_doc_find_clip(doc, "jump", &k, &e) == GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(e.message, "no clip named 'jump'"), "%s", e.message);
    ganim_doc_free(doc);
}

static int warnings_seen;
static char last_warning[4096];
static void on_warning(void *user, const ganim_warning *w)
{
    (void)user;
    CHECK_EQ_INT(w->code, GANIM_WARN_EXPORT_LOSS);
    size_t at = strlen(last_warning); /* every warning, one a line */
    snprintf(last_warning + at, sizeof last_warning - at, "%s\n", w->message);
    warnings_seen++;
}

TEST(exports_name_clips_and_report_losses)
{
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_read_file(example("antenna_spin_00.ala"), NULL, &doc, &e) == GANIM_OK);
    if (!doc) return;
    ganim_export_opts eo = { 0 };
    eo.default_clip_name = "antenna_spin_00";
    ganim_buffer out = { 0 };
    CHECK(ganim_export_glb(doc, &eo, &out, &e) == GANIM_OK);
    CHECK(contains(out.data, out.size, "\"name\":\"antenna_spin_00\""));
    ganim_buffer_free(&out);
    eo.default_clip_name = NULL; /* clip_<index> */
    CHECK(ganim_export_glb(doc, &eo, &out, &e) == GANIM_OK);
    CHECK(contains(out.data, out.size, "\"name\":\"clip_0\""));
    ganim_buffer_free(&out);
    /* the beacon's translation is animated below the root (BVH writes it as position
     * channels) and it blinks (visibility): BVH drops that and says so, naming the joint */
    eo.warn = on_warning;
    last_warning[0] = 0;
    CHECK(ganim_export_bvh(doc, &eo, &out, &e) == GANIM_OK);
    CHECK_EQ_INT(warnings_seen, 1);
    CHECK_MSG(!strstr(last_warning, "keep the offset"), "%s", last_warning);
    CHECK_MSG(
        strstr(last_warning, "no visibility: 1 joint(s) hidden in some frames are shown in every frame (B_Beacon)"),
        "%s", last_warning);
    ganim_buffer_free(&out);
    eo.bvh_joint_positions = 1;
    warnings_seen = 0;
    last_warning[0] = 0;
    CHECK(ganim_export_bvh(doc, &eo, &out, &e) == GANIM_OK);
    CHECK_EQ_INT(warnings_seen, 1);
    CHECK_MSG(strstr(last_warning, "no visibility") && !strstr(last_warning, "offset"), "%s", last_warning);
    ganim_buffer_free(&out);
    ganim_doc_free(doc);
}

/* A format asks for another file through the read options' loader. */
static ganim_code fake_loader(void *user, const char *name, ganim_buffer *out, ganim_error *err)
{
    (void)err;
    *(int *)user += 1;
    out->data = ganim_alloc(&out->allocator, 3);
    if (!out->data) return GANIM_ERR_NOMEM;
    memcpy(out->data, name, 3);
    out->size = out->capacity = 3;
    return GANIM_OK;
}

TEST(other_files_through_the_loader)
{
    ganim_read_opts ro = { 0 };
    ganim_buffer b = { 0 };
    ganim_error e = { 0 };
    CHECK(ganim_read_load(&ro, "x.bin", &b, &e) == GANIM_ERR_UNSUPPORTED);
    CHECK_MSG(strstr(e.message, "x.bin"), "%s", e.message);
    int calls = 0;
    ro.load = fake_loader;
    ro.load_user = &calls;
    CHECK(ganim_read_load(&ro, "abc", &b, &e) == GANIM_OK && b.size == 3 && memcmp(b.data, "abc", 3) == 0);
    CHECK_EQ_INT(calls, 1);
    ganim_buffer_free(&b);
}

/* Writes a file the test needs; the test fails when it cannot. */
static void write_file(const char *path, const void *data, size_t size)
{
    CHECK_MSG(test_write_file(path, data, size) == 0, "cannot write '%s'", path);
}

/* The files a glTF names are read only when they are regular files of its own folder: a
 * pipe there would block the read for ever, a link could lead out of the folder. */
TEST(a_gltf_reads_only_regular_files_of_its_folder)
{
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_read_file(example("crane_wave_00.ala"), NULL, &doc, &e) == GANIM_OK);
    if (!doc) return;
    ganim_export_opts eo = { 0 };
    eo.bin_uri = "crane.bin";
    ganim_buffer json = { 0 }, bin = { 0 };
    CHECK(ganim_export_gltf(doc, &eo, &json, &bin, &e) == GANIM_OK);
    ganim_doc_free(doc);
    doc = NULL;
    write_file(in_tmp("crane.gltf"), json.data, json.size);
    write_file(in_tmp("crane.bin"), bin.data, bin.size);
    CHECK_MSG(ganim_read_file(in_tmp("crane.gltf"), NULL, &doc, &e) == GANIM_OK, "%s", e.message);
    ganim_doc_free(doc);
    doc = NULL;
#ifndef _WIN32
    /* the buffer a pipe: refused at once, not waited on */
    CHECK(unlink(in_tmp("crane.bin")) == 0);
    CHECK(mkfifo(in_tmp("crane.bin"), 0600) == 0);
    CHECK(ganim_read_file(in_tmp("crane.gltf"), NULL, &doc, &e) == GANIM_ERR_INVALID_ARG && doc == NULL);
    CHECK_MSG(strstr(e.message, "'crane.bin', which is a pipe (FIFO), not a regular file in its folder"), "%s",
              e.message);
    /* the buffer a link to a file outside the folder: not followed */
    CHECK(unlink(in_tmp("crane.bin")) == 0);
    char outside[600];
    snprintf(outside, sizeof outside, "%s.outside.bin", tmp);
    write_file(outside, bin.data, bin.size);
    CHECK(symlink(outside, in_tmp("crane.bin")) == 0);
    CHECK(ganim_read_file(in_tmp("crane.gltf"), NULL, &doc, &e) == GANIM_ERR_INVALID_ARG && doc == NULL);
    CHECK_MSG(strstr(e.message, "which is a symbolic link, not a regular file"), "%s", e.message);
    unlink(outside);
#endif
    /* the buffer a folder: says so (it once said the file had 9223372036854775807 bytes) */
    unlink(in_tmp("crane.bin"));
    CHECK(test_mkdir(in_tmp("crane.bin")) == 0);
    CHECK(ganim_read_file(in_tmp("crane.gltf"), NULL, &doc, &e) == GANIM_ERR_INVALID_ARG && doc == NULL);
    CHECK_MSG(strstr(e.message, "'crane.bin', which is a folder, not a regular file in its folder"), "%s", e.message);
    rmdir(in_tmp("crane.bin"));
    unlink(in_tmp("crane.gltf"));
    ganim_buffer_free(&json);
    ganim_buffer_free(&bin);
}

/* A counting allocator that notes the address of every block of `watch` bytes. */
typedef struct watching {
    size_t live, watch;
    void *blocks[8];
    int count;
} watching;

static void *w_alloc(void *user, size_t size)
{
    watching *w = user;
    void *p = malloc(size ? size : 1);
    if (p) w->live += size;
    if (p && size == w->watch && w->count < 8) w->blocks[w->count++] = p;
    return p;
}

static void *w_realloc(void *user, void *p, size_t old_size, size_t new_size)
{
    watching *w = user;
    void *q = realloc(p, new_size ? new_size : 1);
    if (q) w->live = w->live - old_size + new_size;
    return q;
}

static void w_free(void *user, void *p, size_t size)
{
    watching *w = user;
    w->live -= size;
    free(p);
}

/* A reader whose record is the whole file (an .ala) keeps the buffer the file was
 * loaded into: the file is read into one block of exactly its size, and that block is
 * the clip's record (no copy). A read that fails after keeping it (the skeleton asked
 * for does not fit) leaves nothing allocated. */
TEST(a_file_kept_whole_is_not_copied)
{
    size_t n;
    uint8_t *bytes = test_read_file(example("crane_wave_00.ala"), &n);
    watching w = { 0, n, { NULL }, 0 };
    ganim_read_opts ro = { 0 };
    ro.allocator = (ganim_allocator){ w_alloc, w_realloc, w_free, &w };
    ro.companion = GANIM_COMPANION_NONE;
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_read_file(example("crane_wave_00.ala"), &ro, &doc, &e) == GANIM_OK);
    if (doc && bytes) {
        const ganim_clip *c = &doc->clips[0];
        CHECK_EQ_INT(c->native_size, n);
        CHECK(c->native && memcmp(c->native, bytes, n) == 0);
        CHECK_EQ_INT(w.count, 1); /* one block of n bytes: the file, not copied */
        CHECK(w.count == 1 && c->native == w.blocks[0]);
    }
    ganim_doc_free(doc);
    CHECK_EQ_INT(w.live, 0);
    /* read from memory, the record is a copy (the caller keeps its bytes) */
    doc = NULL;
    w.count = 0;
    ro.format = "alamo-ala";
    CHECK(bytes && ganim_read_memory(bytes, n, &ro, &doc, &e) == GANIM_OK);
    if (doc) CHECK(doc->clips[0].native != bytes && memcmp(doc->clips[0].native, bytes, n) == 0);
    ganim_doc_free(doc);
    /* kept, then refused: a skeleton of one bone that fits none of its tracks */
    ganim_bone one = { 0 };
    one.name = "nothing_like_it";
    one.parent = -1;
    one.rest = ganim_transform_identity();
    ganim_skeleton sk = { "one", 1, &one, NULL, NULL, 0 };
    ro.format = NULL;
    ro.skeleton = &sk;
    ro.skeleton_must_fit = 1;
    doc = NULL;
    CHECK(ganim_read_file(example("crane_wave_00.ala"), &ro, &doc, &e) == GANIM_ERR_MISMATCH && doc == NULL);
    CHECK_EQ_INT(w.live, 0);
    free(bytes);
}

/* ganim_read_opts.input_outlives_doc: the caller's bytes become the clip's record as
 * they are (no copy, not freed or written by the document: the bytes after the
 * document's end equal a copy taken before, and the caller's free() after
 * ganim_doc_free is the only one, which the sanitizer build checks); the document is
 * the one a copying read gives (its lossless dump byte for byte); a failed read leaves
 * the bytes alone; ganim_read_file ignores the option (its buffer is its own). */
TEST(bytes_that_outlive_the_document_are_kept_not_copied)
{
    size_t n;
    uint8_t *bytes = test_read_file(example("crane_wave_00.ala"), &n);
    uint8_t *before = bytes ? malloc(n) : NULL;
    CHECK(bytes && before);
    if (!bytes || !before) {
        free(bytes);
        return;
    }
    memcpy(before, bytes, n);
    watching w = { 0, n, { NULL }, 0 };
    ganim_read_opts ro = { 0 };
    ro.allocator = (ganim_allocator){ w_alloc, w_realloc, w_free, &w };
    ro.format = "alamo-ala";
    ganim_doc *copied = NULL, *kept = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_read_memory(bytes, n, &ro, &copied, &e) == GANIM_OK);
    ro.input_outlives_doc = 1;
    CHECK(ganim_read_memory(bytes, n, &ro, &kept, &e) == GANIM_OK);
    if (copied && kept) {
        CHECK(copied->clips[0].native != bytes);
        CHECK(kept->clips[0].native == bytes && kept->clips[0].native_size == n);
        ganim_buffer a = { 0 }, b = { 0 };
        CHECK(ganim_export_json(copied, NULL, &a, &e) == GANIM_OK);
        CHECK(ganim_export_json(kept, NULL, &b, &e) == GANIM_OK);
        CHECK(a.size > 0 && a.size == b.size && memcmp(a.data, b.data, a.size) == 0);
        ganim_buffer_free(&a);
        ganim_buffer_free(&b);
    }
    ganim_doc_free(kept);
    ganim_doc_free(copied);
    CHECK_EQ_INT(w.live, 0);
    CHECK(memcmp(bytes, before, n) == 0);
    /* refused after the reader kept the bytes: a skeleton that fits none of the tracks */
    ganim_bone one = { 0 };
    one.name = "nothing_like_it";
    one.parent = -1;
    one.rest = ganim_transform_identity();
    ganim_skeleton sk = { "one", 1, &one, NULL, NULL, 0 };
    ro.skeleton = &sk;
    ro.skeleton_must_fit = 1;
    kept = NULL;
    CHECK(ganim_read_memory(bytes, n, &ro, &kept, &e) == GANIM_ERR_MISMATCH && kept == NULL);
    CHECK_EQ_INT(w.live, 0);
    CHECK(memcmp(bytes, before, n) == 0);
    /* ganim_read_file: the loaded buffer is the record, owned by the document */
    ro.skeleton = NULL;
    ro.skeleton_must_fit = 0;
    ro.format = NULL;
    ro.companion = GANIM_COMPANION_NONE;
    w.count = 0;
    CHECK(ganim_read_file(example("crane_wave_00.ala"), &ro, &kept, &e) == GANIM_OK);
    if (kept) CHECK(w.count == 1 && kept->clips[0].native == w.blocks[0]);
    ganim_doc_free(kept);
    CHECK_EQ_INT(w.live, 0);
    free(before);
    free(bytes);
}

int main(void)
{
    char *dir = test_temp_dir("ganim-test-io");
    if (!dir || strlen(dir) >= sizeof tmp) {
        printf("cannot make a temporary folder\n0 passed, 1 failed\n");
        return 1;
    }
    snprintf(tmp, sizeof tmp, "%s", dir);
    free(dir);
    RUN(companion_found_by_the_format_rule);
    RUN(companion_among_a_listing);
    RUN(utf8_names_with_spaces);
    RUN(companion_in_any_case_exact_first);
    RUN(unreadable_companion_is_dropped_with_a_warning);
    RUN(extension_fallback_folders_and_axes);
    RUN(extension_decides_between_formats_that_both_take_the_bytes);
    RUN(clips_by_index_or_name);
    RUN(exports_name_clips_and_report_losses);
    RUN(other_files_through_the_loader);
    RUN(a_gltf_reads_only_regular_files_of_its_folder);
    RUN(a_file_kept_whole_is_not_copied);
    RUN(bytes_that_outlive_the_document_are_kept_not_copied);
    rmdir(tmp);
    return test_finish();
}
