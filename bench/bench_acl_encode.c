/* ACL encoding speed and ratio: every clip of $GANIM_TESTDATA/acl (default
 * ../shared/testdata/acl) given as its *.input.txt (the input ACL was given) is encoded by
 * ganim's ACL writer at default settings without metadata, as ACL's reference buffers
 * were, in the format version of the reference .acl.
 *   bench_acl_encode [--iters N] [--level medium|high|highest|automatic] [--only PREFIX]
 * Prints, per clip: tracks, frames, ganim's bytes, ACL's bytes, their ratio, and the best
 * encode time of N runs (default 3) in ms. ACL's own compress_track_list time for the same
 * input comes from tests/interop/acl_crosscheck.sh (docs/benchmarks.md). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ganim.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static char *load(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *d = malloc((n > 0 ? (size_t)n : 0) + 1);
    *size = n > 0 && d && fread(d, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
    fclose(f);
    if (d) d[*size] = 0;
    return d;
}

/* input.txt ("parents ..." then "frame track qx qy qz qw tx ty tz sx sy sz") as a document. */
static ganim_doc *doc_of(char *text, float fps)
{
    int32_t parents[4096];
    uint32_t nt = 0, frames = 0;
    size_t n = 0, cap = 1u << 16;
    float *v = malloc(cap * sizeof *v);
    for (char *line = text, *next; v && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (strncmp(line, "parents", 7) == 0) {
            char *s = line + 7, *end;
            for (long p = strtol(s, &end, 10); end != s && nt < 4096; p = strtol(s, &end, 10)) {
                parents[nt++] = (int32_t)p;
                s = end;
            }
            continue;
        }
        if (!*line) continue;
        char *s = line;
        uint32_t f = (uint32_t)strtoul(s, &s, 10);
        (void)strtoul(s, &s, 10);
        if (f + 1 > frames) frames = f + 1;
        if (n + 10 > cap) v = realloc(v, (cap *= 2) * sizeof *v);
        for (int i = 0; v && i < 10; i++) v[n++] = strtof(s, &s);
    }
    if (!v || !nt || !frames || n != (size_t)frames * nt * 10u) {
        free(v);
        return NULL;
    }
    ganim_doc *doc = NULL;
    ganim_bone *bones = calloc(nt, sizeof *bones);
    float *q = malloc((size_t)frames * 10u * sizeof *q);
    if (!bones || !q || ganim_doc_new(NULL, &doc, NULL) != GANIM_OK) {
        free(bones);
        free(q);
        free(v);
        return NULL;
    }
    for (uint32_t b = 0; b < nt; b++) {
        bones[b].name = "";
        bones[b].parent = parents[b];
        bones[b].rest.rotation.w = 1.0f;
        bones[b].rest.scale = (ganim_vec3){ 1, 1, 1 };
    }
    ganim_skeleton sk = { .name = "", .bone_count = nt, .bones = bones };
    ganim_clip clip = { .name = "clip", .kind = GANIM_CLIP_ANIMATION, .fps = fps, .frame_count = frames };
    uint32_t ci = 0;
    int ok =
        ganim_doc_set_skeleton(doc, &sk, NULL) == GANIM_OK && ganim_doc_add_clip(doc, &clip, &ci, NULL) == GANIM_OK;
    for (uint32_t b = 0; ok && b < nt; b++) {
        float *t = q + (size_t)frames * 4u, *s = t + (size_t)frames * 3u;
        for (uint32_t f = 0; f < frames; f++) {
            const float *x = v + ((size_t)f * nt + b) * 10u;
            memcpy(q + 4u * f, x, 4 * sizeof *q);
            memcpy(t + 3u * f, x + 4, 3 * sizeof *t);
            memcpy(s + 3u * f, x + 7, 3 * sizeof *s);
        }
        ganim_track tr = { .bone = b, .name = "" };
        tr.rotation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, frames, NULL, q };
        tr.translation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, frames, NULL, t };
        tr.scale = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, frames, NULL, s };
        ok = ganim_doc_add_track(doc, ci, &tr, NULL, NULL) == GANIM_OK;
    }
    free(bones);
    free(q);
    free(v);
    if (!ok) {
        ganim_doc_free(doc);
        return NULL;
    }
    return doc;
}

static int by_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

int main(int argc, char **argv)
{
    int iters = 3;
    const char *level = "automatic", *only = "";
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--level") && i + 1 < argc) level = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    if (iters < 1) iters = 1;
    const char *td = getenv("GANIM_TESTDATA");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/acl", td && *td ? td : "../shared/testdata");
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "bench_acl_encode: cannot open %s\n", dir);
        return 1;
    }
    static char stems[256][256];
    int ns = 0;
    for (struct dirent *e; (e = readdir(d)) && ns < 256;) {
        size_t len = strlen(e->d_name);
        if (len > 10 && len < 250 && !strcmp(e->d_name + len - 10, ".input.txt") &&
            !strncmp(e->d_name, only, strlen(only)))
            snprintf(stems[ns++], sizeof stems[0], "%.*s", (int)(len - 10), e->d_name);
    }
    closedir(d);
    qsort(stems, (size_t)ns, sizeof stems[0], by_name);
    printf("%-40s %6s %6s %9s %9s %6s %10s\n", "clip", "tracks", "frames", "ganim_B", "acl_B", "ratio", "encode_ms");
    for (int i = 0; i < ns; i++) {
        char path[8192];
        size_t size, acl_size;
        snprintf(path, sizeof path, "%.4000s/%.255s.acl", dir, stems[i]);
        char *acl = load(path, &acl_size);
        snprintf(path, sizeof path, "%.4000s/%.255s.input.txt", dir, stems[i]);
        char *text = load(path, &size);
        const char *r = strstr(stems[i], "_r");
        ganim_doc *doc = text && acl && acl_size > 13 && r ? doc_of(text, (float)atof(r + 2)) : NULL;
        if (!doc) {
            fprintf(stderr, "bench_acl_encode: cannot read %s\n", stems[i]);
            free(text);
            free(acl);
            return 1;
        }
        ganim_setting set[3] = { { "acl.metadata", "no" },
                                 { "acl.version", acl[12] == 7 ? "7" : "10" },
                                 { "acl.level", level } };
        ganim_write_opts wo = { .settings = set, .setting_count = 3 };
        double best = 1e30;
        size_t out_size = 0;
        for (int k = 0; k < iters; k++) {
            ganim_buffer buf = { 0 };
            double t0 = now_ms();
            if (ganim_write(doc, "acl", &wo, &buf, NULL) != GANIM_OK) {
                fprintf(stderr, "bench_acl_encode: cannot encode %s\n", stems[i]);
                return 1;
            }
            double t = now_ms() - t0;
            if (t < best) best = t;
            out_size = buf.size;
            ganim_buffer_free(&buf);
        }
        printf("%-40s %6u %6u %9zu %9zu %6.3f %10.3f\n", stems[i], doc->skeleton->bone_count, doc->clips[0].frame_count,
               out_size, acl_size, (double)out_size / (double)acl_size, best);
        ganim_doc_free(doc);
        free(text);
        free(acl);
    }
    return 0;
}
