/* Determinism and threads: the library keeps no global mutable state, so documents read
 * and exported on several threads at once give the same bytes as one thread does.
 *
 * Every file of every readable format (the project's fixtures, and the real samples: one
 * in 4 in make check, all under CI=true or GANIM_FULL=1) is
 * read and turned into its outputs (glb, the JSON dump, the info summary, BVH, and the
 * file written back in its own format when the format writes) on the main thread; then
 * THREADS threads do the same to every file at once, each in its own order (shifted and
 * reversed), and every output must equal the first run's, byte for byte. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdlib.h>

#include "test.h"

#define THREADS 4
#define OUTPUTS 5

typedef struct result {
    ganim_buffer out[OUTPUTS];
    int code[OUTPUTS];
} result;

static char **files;
static size_t nfiles;
static result *reference;

static void produce(const char *path, result *r)
{
    memset(r, 0, sizeof *r);
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    r->code[0] = ganim_read_file(path, NULL, &doc, &e);
    if (r->code[0] != GANIM_OK) return;
    ganim_export_opts eo = { 0 };
    r->code[0] = ganim_export_glb(doc, &eo, &r->out[0], &e);
    r->code[1] = ganim_export_json(doc, &eo, &r->out[1], &e);
    r->code[2] = ganim_export_info_json(doc, &eo, &r->out[2], &e);
    r->code[3] = doc->skeleton ? (int)ganim_export_bvh(doc, &eo, &r->out[3], &e) : -1;
    r->code[4] = doc->format && (doc->format->flags & GANIM_FORMAT_WRITE)
                     ? (int)ganim_write(doc, NULL, NULL, &r->out[4], &e)
                     : -1;
    ganim_doc_free(doc);
}

static void release(result *r)
{
    for (int k = 0; k < OUTPUTS; k++) ganim_buffer_free(&r->out[k]);
}

typedef struct worker {
    int index;
    long long compared, differed;
    char first_difference[600];
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    for (size_t n = 0; n < nfiles; n++) {
        /* each thread its own order: shifted, and reversed on odd threads */
        size_t i = (n + (size_t)w->index * 7) % nfiles;
        if (w->index & 1) i = nfiles - 1 - i;
        result r;
        produce(files[i], &r);
        for (int k = 0; k < OUTPUTS; k++) {
            const result *ref = &reference[i];
            w->compared++;
            int same = r.code[k] == ref->code[k] && r.out[k].size == ref->out[k].size &&
                       (!r.out[k].size || memcmp(r.out[k].data, ref->out[k].data, r.out[k].size) == 0);
            if (!same && !w->differed++)
                snprintf(w->first_difference, sizeof w->first_difference, "%s, output %d", files[i], k);
        }
        release(&r);
    }
    return NULL;
}

TEST(threads_give_the_bytes_of_one_thread)
{
    size_t count, cap = 64;
    const ganim_format *const *all = ganim_formats(&count);
    files = malloc(cap * sizeof *files);
    for (size_t f = 0; f < count; f++) {
        if (!(all[f]->flags & GANIM_FORMAT_READ)) continue;
        char **list = test_format_files(all[f], TEST_SAMPLES | TEST_FIXTURES);
        for (char **p = list; *p; p++) {
            /* make check: the fixtures and one real sample in 4 (fixed); CI=true: all */
            if (strstr(*p, GANIM_SOURCE_DIR) != *p && !test_sampled(test_seed(*p), 4)) continue;
            int dup = 0; /* a file two formats claim (by probe) once */
            for (size_t k = 0; k < nfiles && !dup; k++) dup = strcmp(files[k], *p) == 0;
            if (dup) continue;
            if (nfiles == cap) files = realloc(files, (cap *= 2) * sizeof *files);
            files[nfiles++] = strdup(*p);
        }
        test_free_list(list);
    }
    CHECK(nfiles > 0);
    reference = calloc(nfiles, sizeof *reference);
    for (size_t i = 0; i < nfiles; i++) produce(files[i], &reference[i]);
    pthread_t th[THREADS];
    worker w[THREADS];
    for (int t = 0; t < THREADS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].index = t;
        CHECK(pthread_create(&th[t], NULL, work, &w[t]) == 0);
    }
    long long compared = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        compared += w[t].compared;
        CHECK_MSG(w[t].differed == 0, "thread %d: %lld outputs differ from one thread's, first %s", t, w[t].differed,
                  w[t].first_difference);
    }
    printf("threads: %zu files, %d threads, %lld outputs compared byte for byte\n", nfiles, THREADS, compared);
    for (size_t i = 0; i < nfiles; i++) {
        release(&reference[i]);
        free(files[i]);
    }
    free(reference);
    free(files);
}

int main(void)
{
    test_program_name = "test_threads";
    RUN(threads_give_the_bytes_of_one_thread);
    if (!test_testdata_optional()) test_note_skip("test_threads on the real samples (fixtures used)");
    return test_finish();
}
