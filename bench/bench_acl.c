/* ACL decoding speed, three forms of the whole clip and random access:
 *   read         ganim_read_memory: every frame of every track into the model (a checked
 *                document: skeleton, names, native record, validation, the FNV-1a hash)
 *   decode       ganim_acl_decode_clip on a handle opened once outside the timing, into a
 *                frame-major ganim_transform array kept across runs (as --random keeps its
 *                handle and ACL's anchor its context and clip-sized array)
 *   open+decode  ganim_acl_open_clip + ganim_acl_decode_clip + ganim_acl_close every run
 *                (the array kept): what the open adds (the open for whole-clip decodes,
 *                which builds no random-access groups the decode does not use; before
 *                the sixteenth round this form timed ganim_acl_open)
 *   random       ganim_acl_sample_pose at 1000 pseudo-random times, the handle opened once
 *   bench_acl [--whole|--random] [--iters N] [FILE.acl ...]
 * Without files: every .acl in $GANIM_TESTDATA/acl (default ../shared/testdata/acl).
 * Prints ns per (track x frame) for the whole-clip forms, per (track x pose) for random
 * access (columns: read, random, decode, open+decode). For instruction counts run it under
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_whole_once ...
 * (or bench_decode_once, bench_open_decode_once, bench_random_once) with --iters 1 and
 * divide Ir by the printed track x frame count (one run of each goes before, outside those
 * functions, so lazy binding and first touches are not counted). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/acl/acl.h"
#include "ganim.h"

#define RANDOM_POSES 1000

static volatile float sink; /* keeps the sampled poses alive */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One whole-clip decode; noinline so callgrind can count exactly this. */
__attribute__((noinline)) int bench_whole_once(const uint8_t *data, size_t size)
{
    ganim_read_opts o = { 0 };
    o.format = "acl";
    ganim_doc *doc = NULL;
    if (ganim_read_memory(data, size, &o, &doc, NULL) != GANIM_OK) return -1;
    int r = (int)doc->clips[0].frame_count;
    ganim_doc_free(doc);
    return r;
}

/* One ganim_acl_decode_clip on an open handle into `clip` (frame-major). */
__attribute__((noinline)) float bench_decode_once(const ganim_acl *acl, ganim_transform *clip)
{
    ganim_acl_decode_clip(acl, clip);
    return clip[0].rotation.w;
}

/* Open, decode the whole clip into `clip`, close. */
__attribute__((noinline)) float bench_open_decode_once(const uint8_t *data, size_t size, ganim_transform *clip)
{
    ganim_acl *acl = NULL;
    if (ganim_acl_open_clip(data, size, 0, NULL, NULL, NULL, &acl, NULL) != GANIM_OK) return -1.0f;
    ganim_acl_decode_clip(acl, clip);
    ganim_acl_close(acl);
    return clip[0].rotation.w;
}

/* RANDOM_POSES poses at pseudo-random times (fixed seed). */
__attribute__((noinline)) float bench_random_once(const ganim_acl *acl, ganim_transform *pose, uint32_t seed)
{
    float dur = (float)(ganim_acl_frame_count(acl) - 1u) / ganim_acl_sample_rate(acl), sum = 0;
    for (int i = 0; i < RANDOM_POSES; i++) {
        seed = seed * 1664525u + 1013904223u;
        ganim_acl_sample_pose(acl, dur * (float)(seed >> 8) * (1.0f / 16777216.0f), pose);
        sum += pose[0].rotation.w;
    }
    return sum;
}

static uint8_t *load(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = malloc(n > 0 ? (size_t)n : 1);
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return d;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    int whole = 1, rnd = 1, iters = 0;
    char *files[256];
    int nf = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--whole")) rnd = 0;
        else if (!strcmp(argv[i], "--random")) whole = 0;
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (nf < 256) files[nf++] = argv[i];
    }
    static char paths[256][1280];
    if (!nf) {
        const char *td = getenv("GANIM_TESTDATA");
        char dir[900];
        snprintf(dir, sizeof dir, "%s/acl", td ? td : "../shared/testdata");
        DIR *d = opendir(dir);
        if (!d) {
            fprintf(stderr, "bench_acl: cannot open %s\n", dir);
            return 1;
        }
        for (struct dirent *e; (e = readdir(d)) && nf < 256;) {
            size_t n = strlen(e->d_name);
            if (n > 4 && !strcmp(e->d_name + n - 4, ".acl")) {
                snprintf(paths[nf], sizeof paths[nf], "%s/%s", dir, e->d_name);
                files[nf] = paths[nf];
                nf++;
            }
        }
        closedir(d);
        qsort(files, (size_t)nf, sizeof files[0], by_name);
    }
    printf("%-42s %7s %6s %12s %12s %12s %12s\n", "clip", "tracks", "frames", "whole ns/tf", "random ns/t",
           "decode ns/tf", "open+dec /tf");
    for (int i = 0; i < nf; i++) {
        size_t size;
        uint8_t *data = load(files[i], &size);
        ganim_acl *acl = NULL;
        if (!data || ganim_acl_open(data, size, 0, NULL, NULL, NULL, &acl, NULL) != GANIM_OK) {
            fprintf(stderr, "bench_acl: cannot decode %s\n", files[i]);
            free(data);
            continue;
        }
        uint32_t nt = ganim_acl_track_count(acl), nfr = ganim_acl_frame_count(acl);
        double tf = (double)nt * nfr, w = 0, r = 0, dc = 0, od = 0;
        if (whole) {
            int n = iters ? iters : (int)(2e7 / tf) + 1;
            ganim_read_opts wo = { 0 }; /* warm-up outside bench_whole_once: lazy binding, first touches */
            wo.format = "acl";
            ganim_doc *warm = NULL;
            if (ganim_read_memory(data, size, &wo, &warm, NULL) == GANIM_OK) ganim_doc_free(warm);
            double t0 = now_ns();
            for (int k = 0; k < n; k++) bench_whole_once(data, size);
            w = (now_ns() - t0) / (n * tf);
            ganim_transform *clip = malloc((size_t)nt * nfr * sizeof *clip);
            if (clip) {
                ganim_acl_decode_clip(acl, clip); /* warm-up outside the counted functions: first touches */
                t0 = now_ns();
                for (int k = 0; k < n; k++) sink += bench_decode_once(acl, clip);
                dc = (now_ns() - t0) / (n * tf);
                ganim_acl *wh = NULL;
                if (ganim_acl_open_clip(data, size, 0, NULL, NULL, NULL, &wh, NULL) == GANIM_OK) ganim_acl_close(wh);
                t0 = now_ns();
                for (int k = 0; k < n; k++) sink += bench_open_decode_once(data, size, clip);
                od = (now_ns() - t0) / (n * tf);
                free(clip);
            }
        }
        if (rnd) {
            ganim_transform *pose = malloc(nt * sizeof *pose);
            int n = iters ? iters : (int)(2e5 / nt) + 1;
            double t0 = now_ns();
            for (int k = 0; k < n; k++) sink += bench_random_once(acl, pose, (uint32_t)k * 7919u + 1u);
            r = (now_ns() - t0) / ((double)n * RANDOM_POSES * nt);
            free(pose);
        }
        const char *b = strrchr(files[i], '/');
        printf("%-42s %7u %6u %12.2f %12.2f %12.2f %12.2f\n", b ? b + 1 : files[i], nt, nfr, w, r, dc, od);
        ganim_acl_close(acl);
        free(data);
    }
    return 0;
}
