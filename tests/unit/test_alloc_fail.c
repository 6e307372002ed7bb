/* Out-of-memory paths: for the two smallest real samples of every format, read it (with its
 * companion skeleton where it has one), export it to glb, gltf, bvh, json and the info
 * summary, put its glb back into it (--into), and resample it, through an allocator that fails the n-th allocation, for
 * n = 1, 2, 3, ... until a whole run succeeds. Every failure must come back as a clean
 * error (GANIM_ERR_NOMEM, or another code with a message), and a counting allocator
 * must show every byte returned: nothing leaks, and every free/realloc names the size
 * the block was allocated with. A shrinking memory_limit gets the same treatment. */
#include "test.h"

#include <ctype.h>
#include <stdlib.h>
#include <sys/stat.h>

/* ---- the counting, failing allocator ----------------------------------------------- */

typedef struct counter {
    long long calls;   /* alloc + growing realloc calls so far */
    long long fail_at; /* fail this call (1-based); 0 = never */
    long long failed;  /* how many calls were refused */
    long long live_blocks;
    long long live_bytes;
    long long bad_sizes; /* free/realloc with a size that is not the block's */
    long long bad_frees; /* free of something we did not allocate */
} counter;

/* Each block carries its size and a tag in front so free can check what it is told. */
#define HDR 16
#define TAG 0x6A11u

static void *blk_user(void *raw) { return (uint8_t *)raw + HDR; }
static uint8_t *blk_raw(void *user) { return (uint8_t *)user - HDR; }

static int refuse(counter *c)
{
    c->calls++;
    if (c->fail_at && c->calls == c->fail_at) {
        c->failed++;
        return 1;
    }
    return 0;
}

static void *c_alloc(void *user, size_t size)
{
    counter *c = user;
    if (refuse(c)) return NULL;
    uint8_t *raw = malloc(HDR + (size ? size : 1));
    if (!raw) return NULL;
    size_t tag = TAG;
    memcpy(raw, &size, sizeof size);
    memcpy(raw + 8, &tag, sizeof tag);
    c->live_blocks++;
    c->live_bytes += (long long)size;
    return blk_user(raw);
}

static int check_block(counter *c, void *p, size_t size)
{
    size_t stored, tag;
    memcpy(&stored, blk_raw(p), sizeof stored);
    memcpy(&tag, blk_raw(p) + 8, sizeof tag);
    if (tag != TAG) {
        c->bad_frees++;
        return 0;
    }
    if (stored != size) c->bad_sizes++;
    return 1;
}

static void c_free(void *user, void *p, size_t size)
{
    counter *c = user;
    if (!p) return;
    if (!check_block(c, p, size)) return;
    size_t stored;
    memcpy(&stored, blk_raw(p), sizeof stored);
    memset(blk_raw(p) + 8, 0, 8); /* a second free is caught as a bad free */
    c->live_blocks--;
    c->live_bytes -= (long long)stored;
    free(blk_raw(p));
}

static void *c_realloc(void *user, void *p, size_t old_size, size_t new_size)
{
    counter *c = user;
    if (!p) return c_alloc(user, new_size);
    if (!check_block(c, p, old_size)) return NULL;
    if (new_size > old_size && refuse(c)) return NULL;
    size_t stored;
    memcpy(&stored, blk_raw(p), sizeof stored);
    uint8_t *raw = realloc(blk_raw(p), HDR + (new_size ? new_size : 1));
    if (!raw) return NULL;
    memcpy(raw, &new_size, sizeof new_size);
    c->live_bytes += (long long)new_size - (long long)stored;
    return blk_user(raw);
}

/* ---- the samples -------------------------------------------------------------------- */

static size_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (size_t)st.st_size : (size_t)-1;
}

/* ---- one run: read (+ companion), export everything, resample ------------------------ */

typedef struct run_result {
    ganim_code code; /* first failure, or GANIM_OK */
    const char *step;
    char message[512];
} run_result;

static int failed_step(run_result *r, ganim_code code, const ganim_error *err, const char *step)
{
    if (code == GANIM_OK) return 0;
    r->code = code;
    r->step = step;
    snprintf(r->message, sizeof r->message, "%s", err->message);
    CHECK_MSG(err->code == code, "%s: returned %d, err.code %d", step, (int)code, (int)err->code);
    CHECK_MSG(err->message[0] != '\0', "%s: failure %s without a message", step, ganim_code_name(code));
    return 1;
}

static run_result one_run(const char *path, const char *format, const uint8_t *data, size_t size, const uint8_t *cdata,
                          size_t csize, const char *cformat, const ganim_allocator *al, size_t memory_limit)
{
    run_result r = { GANIM_OK, "", "" };
    ganim_error err = { 0 };
    ganim_doc *comp = NULL, *doc = NULL;
    ganim_read_opts ro = { 0 };
    ro.allocator = *al;
    ro.memory_limit = memory_limit;

    if (cdata) {
        ro.format = cformat;
        if (failed_step(&r, ganim_read_memory(cdata, csize, &ro, &comp, &err), &err, "read companion")) goto done;
        CHECK_MSG(comp->skeleton != NULL, "companion has no skeleton");
        ro.skeleton = comp->skeleton;
    }
    ro.format = format;
    if (failed_step(&r, ganim_read_memory(data, size, &ro, &doc, &err), &err, "read")) goto done;
    ganim_error verr = { 0 };
    CHECK_MSG(ganim_doc_validate(doc, &verr) == GANIM_OK, "%s: document read does not validate: %s", path,
              verr.message);
    ganim_doc_free(comp); /* the skeleton is copied in: the companion may go now */
    comp = NULL;

    ganim_export_opts eo = { 0 };
    eo.allocator = *al;
    ganim_buffer a = { 0 }, b = { 0 };
    ganim_code c = ganim_export_glb(doc, &eo, &a, &err);
    ganim_buffer_free(&a);
    if (failed_step(&r, c, &err, "export glb")) goto done;
    c = ganim_export_gltf(doc, &eo, &a, &b, &err);
    ganim_buffer_free(&a);
    ganim_buffer_free(&b);
    if (failed_step(&r, c, &err, "export gltf")) goto done;
    if (doc->skeleton) { /* BVH is a skeleton: a file of none (an archive's listing) has nothing to write */
        c = ganim_export_bvh(doc, &eo, &a, &err);
        ganim_buffer_free(&a);
        if (failed_step(&r, c, &err, "export bvh")) goto done;
    }
    c = ganim_export_json(doc, &eo, &a, &err);
    ganim_buffer_free(&a);
    if (failed_step(&r, c, &err, "export json")) goto done;
    c = ganim_export_info_json(doc, &eo, &a, &err);
    ganim_buffer_free(&a);
    if (failed_step(&r, c, &err, "export info json")) goto done;
    /* Back into the original, as --into does: its glb read and put into it, written. */
    if (doc->format && (doc->format->flags & GANIM_FORMAT_WRITE) && !(doc->format->flags & GANIM_FORMAT_COMPANION) &&
        doc->skeleton) {
        ganim_export_opts named = eo;
        named.default_clip_name = "sample";
        c = ganim_export_glb(doc, &named, &a, &err);
        if (failed_step(&r, c, &err, "export glb to put back")) {
            ganim_buffer_free(&a);
            goto done;
        }
        ganim_read_opts go = { 0 };
        go.allocator = *al;
        go.memory_limit = memory_limit;
        ganim_doc *edit = NULL;
        c = ganim_read_memory(a.data, a.size, &go, &edit, &err);
        ganim_buffer_free(&a);
        if (failed_step(&r, c, &err, "read the glb to put back")) goto done;
        ganim_write_opts wo = { 0 };
        wo.allocator = *al;
        wo.into = doc;
        c = ganim_write(edit, NULL, &wo, &a, &err);
        ganim_buffer_free(&a);
        ganim_doc_free(edit);
        if (failed_step(&r, c, &err, "write into the original")) goto done;
    }
    /* Resampling grows the document in place; a failure must leave it freeable. */
    if (failed_step(&r, ganim_doc_resample(doc, 2, &err), &err, "resample")) goto done;
    c = ganim_export_glb(doc, &eo, &a, &err);
    ganim_buffer_free(&a);
    if (failed_step(&r, c, &err, "export glb after resample")) goto done;
done:
    ganim_doc_free(doc);
    ganim_doc_free(comp);
    return r;
}

static long long total_runs;

static void check_sample(const char *path, const char *companion)
{
    size_t size, csize = 0;
    uint8_t *data = test_read_file(path, &size);
    uint8_t *cdata = companion ? test_read_file(companion, &csize) : NULL;
    /* The format is forced by extension (as the CLI's --format would); the probe must
     * agree with it, so the same reader runs either way. */
    const ganim_format *f = ganim_format_for_path(path), *cf = companion ? ganim_format_for_path(companion) : NULL;
    if (!f) f = ganim_probe(data, size, NULL); /* a file no format claims by extension: by content */
    CHECK_MSG(f != NULL, "%s: no format claims the extension or the content", path);
    CHECK_MSG(!companion || cf != NULL, "%s: no format claims the extension", companion);
    if (!f || (companion && !cf)) goto out;
    CHECK_MSG(ganim_probe(data, size, NULL) == f, "%s: the probe does not pick %s", path, f->name);
    if (cdata) CHECK_MSG(ganim_probe(cdata, csize, NULL) == cf, "%s: the probe does not pick %s", companion, cf->name);

    /* A reference run with a plain counting allocator must succeed and balance. */
    counter c = { 0 };
    ganim_allocator al = { c_alloc, c_realloc, c_free, &c };
    run_result r = one_run(path, f->name, data, size, cdata, csize, cf ? cf->name : NULL, &al, 0);
    CHECK_MSG(r.code == GANIM_OK, "%s: reference run fails at %s: %s", path, r.step, r.message);
    CHECK_MSG(c.live_blocks == 0 && c.live_bytes == 0, "%s: reference run leaks %lld blocks, %lld bytes", path,
              c.live_blocks, c.live_bytes);
    CHECK_MSG(c.bad_sizes == 0 && c.bad_frees == 0, "%s: %lld wrong sizes, %lld foreign frees", path, c.bad_sizes,
              c.bad_frees);
    long long needed = c.calls;
    if (r.code != GANIM_OK) goto out;

    /* Fail the n-th allocation for every n the reference run made, then one more. */
    long long n, nomem = 0, other = 0, absorbed = 0;
    for (n = 1; n <= needed + 1; n++) {
        memset(&c, 0, sizeof c);
        c.fail_at = n;
        r = one_run(path, f->name, data, size, cdata, csize, cf ? cf->name : NULL, &al, 0);
        total_runs++;
        CHECK_MSG(c.live_blocks == 0 && c.live_bytes == 0,
                  "%s: failing allocation %lld (%s): %lld blocks, %lld bytes not freed", path, n, r.step, c.live_blocks,
                  c.live_bytes);
        CHECK_MSG(c.bad_sizes == 0 && c.bad_frees == 0,
                  "%s: failing allocation %lld (%s): %lld wrong sizes, %lld foreign frees", path, n, r.step,
                  c.bad_sizes, c.bad_frees);
        if (c.failed == 0) {
            CHECK_MSG(r.code == GANIM_OK, "%s: run %lld fails without a refused allocation at %s: %s", path, n, r.step,
                      r.message);
            break; /* the run got through with fewer allocations than n */
        }
        /* A refused allocation may be absorbed (a warning that could not be stored is
         * only counted); the document then still passed validation in one_run. */
        if (r.code == GANIM_ERR_NOMEM) nomem++;
        else if (r.code != GANIM_OK) other++;
        else absorbed++;
    }
    CHECK_MSG(n <= needed + 1, "%s: run with failing allocation %lld never completed", path, n);

    /* Memory limits from 64 bytes upwards, doubling, until the read succeeds. */
    long long limits = 0;
    for (size_t limit = 64; limit <= ((size_t)1 << 30); limit *= 2) {
        memset(&c, 0, sizeof c);
        r = one_run(path, f->name, data, size, cdata, csize, cf ? cf->name : NULL, &al, limit);
        limits++;
        CHECK_MSG(c.live_blocks == 0 && c.live_bytes == 0, "%s: memory limit %zu: %lld bytes not freed", path, limit,
                  c.live_bytes);
        if (r.code == GANIM_OK) break;
        CHECK_MSG(r.code == GANIM_ERR_NOMEM || r.code == GANIM_ERR_LIMIT, "%s: memory limit %zu gives %s at %s: %s",
                  path, limit, ganim_code_name(r.code), r.step, r.message);
    }
    printf("  %-42s %-12s %5lld allocations: %lld NOMEM, %lld other clean errors, %lld absorbed;"
           " %lld memory limits\n",
           test_base_name(path), f->name, needed, nomem, other, absorbed, limits);
out:
    free(data);
    free(cdata);
}

/* The two smallest files of the format (by their size plus their companion's), each
 * with its companion when the format's rule finds one: from the real samples, and from
 * the project's own fixtures. */
static void smallest_of(const ganim_format *f, int which)
{
    char **files = test_format_files(f, which);
    const char *best[2] = { NULL, NULL };
    char best_comp[2][4096] = { "", "" };
    size_t best_size[2] = { (size_t)-1, (size_t)-1 };
    for (char **p = files; *p; p++) {
        char comp[4096];
        if (!ganim_find_companion(*p, f, comp, sizeof comp)) comp[0] = 0;
        size_t s = file_size(*p) + (comp[0] ? file_size(comp) : 0);
        int slot = s < best_size[0] ? 0 : s < best_size[1] ? 1 : 2;
        if (slot == 0) {
            best[1] = best[0], best_size[1] = best_size[0];
            memcpy(best_comp[1], best_comp[0], sizeof best_comp[0]);
        }
        if (slot < 2) {
            best[slot] = *p, best_size[slot] = s;
            memcpy(best_comp[slot], comp, sizeof comp);
        }
    }
    for (int i = 0; i < 2; i++)
        if (best[i]) check_sample(best[i], best_comp[i][0] ? best_comp[i] : NULL);
    test_free_list(files);
}

static const ganim_format *current;
static void samples_of_current(void) { smallest_of(current, TEST_SAMPLES); }
static void fixtures_of_current(void) { smallest_of(current, TEST_FIXTURES); }

int main(void)
{
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    int have_samples = test_testdata_optional() != NULL;
    for (size_t i = 0; i < count; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_READ)) continue;
        current = all[i];
        char name[96];
        if (have_samples) {
            snprintf(name, sizeof name, "%s samples", current->name);
            test_run(name, samples_of_current);
        }
        snprintf(name, sizeof name, "%s fixtures", current->name);
        test_run(name, fixtures_of_current);
    }
    if (!have_samples) test_note_skip("test_alloc_fail on the real samples (fixtures swept)");
    printf("alloc-fail: %lld runs\n", total_runs);
    return test_finish();
}
