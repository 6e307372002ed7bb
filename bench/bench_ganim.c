/* Speed and memory of every path: for each input (a real sample, or a large synthetic
 * document the bench makes itself) every reader, writer and exporter, ganim_clip_sample,
 * and a memcpy of the same bytes in the same run as the yardstick.
 *
 *   bench_ganim [--json] [--callgrind] [--time MS] [--quick] [--no-samples]
 *               [--no-synthetic] [--only WORD] [--frames LIST [--bones LIST]] [--growth]
 *               [--alloc default|counting] [PATH ...]
 *
 * Without PATHs: every sample under $GANIM_TESTDATA (default ../shared/testdata; not
 * hostile/). Per row: bytes in (reads) or out (writers, exporters), ms per call, MB/s,
 * that as a fraction of the memcpy of the same bytes, the model's values (one key of one
 * channel: a quaternion, a translation or a scale; `sample`: one track at one pose), ns per
 * value, and the peak of the library's live memory during the call (a counting
 * allocator) over input + model bytes. Timings are the best of 3 rounds of at least
 * --time ms each (default 40), after an untimed warm-up round of as long; a first call
 * longer than 3 x --time is timed alone. A round reads the clock once per ~20 us of calls
 * (a call of a few us is repeated between two reads): a clock read costs ~45 ns here.
 *
 * --callgrind runs every row once more under `valgrind --tool=callgrind`, counting only
 * bench_measured (--toggle-collect), and adds instructions per value and per byte.
 * --only WORD keeps the rows whose input or path contains WORD; --save DIR writes the
 * synthetic FF7 pack there (DIR/synthetic_60x100x25.da) for the side-by-side anchors.
 * The synthetic documents (200 bones x 1,000 and x 10,000 frames; 50 bones x 1,000;
 * an FF7 pack of 60 animations x 100 frames x 25 slots made by the FF7 writer) go
 * through every writer and are read back, so growth with frames and bones is a slope.
 * Every input's .glb and .bvh exports are read back too (the glTF and BVH readers).
 * --frames LIST (e.g. 500,1000,2000) makes the synthetic documents a series instead:
 * bones x frames for each of --bones LIST (default 200), and the table ends with each
 * path's ns (and, with --callgrind, instructions) per value at every size, the slope of
 * a least-squares line through the times (ns per value added) and the last size's cost
 * per value over the first's; in a series every row is timed after a warm-up call and
 * in 3 rounds, however long a call. --growth is --bones 50,200 --frames
 * 500,1000,2000,4000,8000,10000. A --callgrind child builds only its own input.
 * A series times its calls through the library's default allocator (what `ganim` and a
 * caller that passes none get, huge pages for large blocks on Linux included) and adds two
 * yardsticks a size, `memcpy model` and `memset model` (the model's bytes copied or set in
 * warm buffers, per value as the paths): how a plain stream of that size grows on this
 * machine's caches. The peak column is always the counting allocator's (each row's first
 * call). --alloc counting times through the counting allocator (malloc, no huge pages:
 * a caller's own allocator), --alloc default through the library's outside a series.
 * A sample is read twice: `read` (ganim_read_memory, which copies what it keeps of the
 * input) and `read (lent)` (ganim_read_opts.input_outlives_doc: the reader may keep the
 * caller's bytes instead). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ganim.h"

#define MAX_INPUTS 512
#define MAX_OPS 32
#define SAMPLE_POSES 64

/* ---- a counting allocator: live and peak bytes ------------------------------------ */
typedef struct counter {
    size_t live, peak;
} counter;

static void *c_alloc(void *user, size_t size)
{
    counter *c = user;
    void *p = malloc(size ? size : 1);
    if (p) {
        c->live += size;
        if (c->live > c->peak) c->peak = c->live;
    }
    return p;
}
static void *c_realloc(void *user, void *ptr, size_t old_size, size_t new_size)
{
    counter *c = user;
    void *p = realloc(ptr, new_size ? new_size : 1);
    if (p) {
        c->live = c->live - old_size + new_size;
        if (c->live > c->peak) c->peak = c->live;
    }
    return p;
}
static void c_free(void *user, void *ptr, size_t size)
{
    counter *c = user;
    if (ptr) c->live -= size;
    free(ptr);
}
static counter g_count;
static ganim_allocator counting(void)
{
    ganim_allocator a = { c_alloc, c_realloc, c_free, &g_count };
    return a;
}

/* The allocator of a measured call. The first call of a row (its peak) always counts; the
 * timed calls go through the library's default allocator (what `ganim` and a caller that
 * passes none get: huge pages for its large blocks on Linux) with --alloc default, which a
 * series (--frames, --growth) uses unless --alloc counting, and through the counting one
 * otherwise. */
static int g_alloc_default = -1; /* --alloc: 1 default, 0 counting, -1 default in a series */
static int g_peak_call;          /* 1 while measure() makes a row's first call */
static ganim_allocator timed_alloc(void)
{
    ganim_allocator none = { 0 };
    return g_peak_call || g_alloc_default != 1 ? counting() : none;
}

#define CLOCK_BATCH_NS 20000.0 /* the timed rounds read the clock once per this many ns */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- inputs -------------------------------------------------------------------------- */
#define MAX_SERIES 16
static uint32_t g_frames[MAX_SERIES], g_bones[MAX_SERIES]; /* --frames, --bones */
static int g_nframes, g_nbones;

/* "500,1000,2000" into v (at most MAX_SERIES numbers >= 1): the count, 0 if malformed. */
static int parse_list(const char *s, uint32_t *v)
{
    int n = 0;
    while (*s && n < MAX_SERIES) {
        char *e;
        unsigned long x = strtoul(s, &e, 10);
        if (e == s || x < 1 || x > 1000000 || (*e && *e != ',')) return 0;
        v[n++] = (uint32_t)x;
        s = *e ? e + 1 : e;
    }
    return *s ? 0 : n;
}

/* --frames LIST or --bones LIST: 0 if the list is malformed. */
static int set_list(const char *opt, const char *list)
{
    if (!strcmp(opt, "--frames")) return (g_nframes = parse_list(list, g_frames)) > 0;
    return (g_nbones = parse_list(list, g_bones)) > 0;
}

typedef struct input {
    char name[128];
    char path[1024]; /* "" for synthetic */
    uint8_t *data;   /* the file's bytes (or a writer's output), NULL for a synthetic document */
    size_t size;
    ganim_doc *doc; /* the decoded model, for samplers, writers and exporters */
    const char *format;
    const ganim_skeleton *skeleton; /* companion skeleton to give the reader, or NULL */
    size_t model_bytes;             /* the library's live bytes of `doc` */
    uint64_t values;                /* keys of every channel of every clip */
    uint64_t track_poses;           /* tracks x SAMPLE_POSES over every animation */
    int synthetic;                  /* 1: every writer and its read back */
    int group;                      /* synthetic series with the same bones (slopes), else 0 */
} input;

typedef enum op_kind {
    OP_MEMCPY,
    OP_READ,
    OP_SAMPLE,
    OP_WRITE,
    OP_READBACK,
    OP_EXPORT,
    OP_YARD_COPY,
    OP_YARD_SET
} op_kind;
typedef struct op {
    op_kind kind;
    int lend;         /* OP_READ: ganim_read_opts.input_outlives_doc (no copy of the input) */
    const char *what; /* format name or exporter */
    char label[48];
    const char *exporter; /* OP_READBACK of an export: "glb" or "bvh"; NULL: of a writer */
    uint8_t *out;         /* OP_READBACK: the bytes written by OP_WRITE or the exporter (owned) */
    size_t out_size;
    uint64_t values; /* OP_READBACK: values of the document read back */
} op;

typedef struct row {
    const input *in;
    op *o;
    int ok;
    size_t bytes;
    double ns;
    uint64_t values;
    size_t peak;
    double ir;     /* callgrind instructions, 0: not measured */
    double faults; /* minor page faults per call in the timed rounds */
} row;

static uint64_t count_values(const ganim_doc *d, uint64_t *track_poses)
{
    uint64_t v = 0, tp = 0;
    for (uint32_t c = 0; c < d->clip_count; c++) {
        const ganim_clip *cl = &d->clips[c];
        if (cl->kind != GANIM_CLIP_ANIMATION) continue;
        tp += (uint64_t)cl->track_count * SAMPLE_POSES;
        for (uint32_t t = 0; t < cl->track_count; t++)
            v += cl->tracks[t].rotation.count + cl->tracks[t].translation.count + cl->tracks[t].scale.count;
    }
    *track_poses = tp;
    return v;
}

static uint8_t *load(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *d = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (d = malloc(n > 0 ? (size_t)n : 1)) != NULL) {
            if (fread(d, 1, (size_t)n, f) != (size_t)n) {
                free(d);
                d = NULL;
            }
            *size = (size_t)n;
        }
    }
    fclose(f);
    return d;
}

static void finish_input(input *in)
{
    in->format = in->doc->format ? in->doc->format->name : NULL;
    in->values = count_values(in->doc, &in->track_poses);
}

/* A real file: decoded once with ganim_read_file (companions found), kept in memory. */
static int add_file(input *ins, int *n, const char *path, const char *label)
{
    if (*n >= MAX_INPUTS) return 0;
    input *in = &ins[*n];
    memset(in, 0, sizeof *in);
    ganim_read_opts o = { 0 };
    o.allocator = counting();
    size_t before = g_count.live;
    if (ganim_read_file(path, &o, &in->doc, NULL) != GANIM_OK) return 0;
    in->model_bytes = g_count.live - before;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) in->data = load(path, &in->size);
    snprintf(in->path, sizeof in->path, "%s", path);
    snprintf(in->name, sizeof in->name, "%s", label);
    in->skeleton = in->doc->skeleton_file ? in->doc->skeleton : NULL;
    finish_input(in);
    (*n)++;
    return 1;
}

/* A synthetic clip set: `bones` bones (a binary tree), `clips` clips of `frames` frames,
 * every bone rotating every frame (smooth Euler curves), the root also moving. */
static ganim_doc *make_synth(uint32_t bones, uint32_t frames, uint32_t clips, double fps)
{
    ganim_read_opts o = { 0 };
    o.allocator = counting();
    ganim_doc *doc = NULL;
    if (ganim_doc_new(&o, &doc, NULL) != GANIM_OK) return NULL;
    ganim_bone *b = calloc(bones, sizeof *b);
    char(*names)[16] = calloc(bones, sizeof *names);
    float *rot = malloc((size_t)frames * 4u * sizeof *rot), *tra = malloc((size_t)frames * 3u * sizeof *tra);
    int ok = b && names && rot && tra;
    for (uint32_t i = 0; ok && i < bones; i++) {
        snprintf(names[i], sizeof names[i], "bone%u", i);
        b[i].name = names[i];
        b[i].parent = i ? (int32_t)((i - 1) / 2) : -1;
        b[i].rest = ganim_transform_identity();
        b[i].rest.translation.y = i ? 10.0f : 0.0f;
    }
    ganim_skeleton sk = { "synthetic", bones, b, NULL, NULL, 0 };
    ok = ok && ganim_doc_set_skeleton(doc, &sk, NULL) == GANIM_OK;
    for (uint32_t c = 0; ok && c < clips; c++) {
        char cname[32];
        snprintf(cname, sizeof cname, "clip%u", c);
        ganim_clip cl = { 0 };
        cl.name = cname;
        cl.fps = fps;
        cl.frame_count = frames;
        uint32_t ci = 0;
        ok = ganim_doc_add_clip(doc, &cl, &ci, NULL) == GANIM_OK;
        for (uint32_t i = 0; ok && i < bones; i++) {
            for (uint32_t f = 0; f < frames; f++) {
                double t = (double)f / 30.0, xyz[3];
                xyz[0] = 0.6 * sin(t * 1.3 + i * 0.7 + c);
                xyz[1] = 0.9 * sin(t * 0.7 + i * 1.1);
                xyz[2] = 0.4 * sin(t * 2.1 + i * 0.3);
                ganim_quat q = ganim_quat_from_euler(xyz, GANIM_EULER_XYZ);
                memcpy(rot + 4u * f, &q, sizeof q);
                tra[3u * f] = (float)(20.0 * sin(t));
                tra[3u * f + 1] = (float)(50.0 + 5.0 * sin(t * 3.0));
                tra[3u * f + 2] = (float)(2.0 * (double)f);
            }
            ganim_track tr = { 0 };
            tr.bone = i;
            tr.name = names[i];
            tr.rotation.kind = GANIM_CHANNEL_PER_FRAME;
            tr.rotation.count = frames;
            tr.rotation.values = rot;
            if (i == 0) {
                tr.translation.kind = GANIM_CHANNEL_PER_FRAME;
                tr.translation.count = frames;
                tr.translation.values = tra;
            }
            ok = ganim_doc_add_track(doc, ci, &tr, NULL, NULL) == GANIM_OK;
        }
    }
    free(b);
    free(names);
    free(rot);
    free(tra);
    if (!ok) {
        ganim_doc_free(doc);
        return NULL;
    }
    return doc;
}

/* build 0: only the name and place (a --callgrind child that measures another input). */
static int add_synth(input *ins, int *n, uint32_t bones, uint32_t frames, int group, int build)
{
    if (*n >= MAX_INPUTS) return 0;
    input *in = &ins[*n];
    memset(in, 0, sizeof *in);
    snprintf(in->name, sizeof in->name, "synthetic %ub x %uf", bones, frames);
    in->synthetic = 1;
    in->group = group;
    if (build) {
        size_t before = g_count.live;
        in->doc = make_synth(bones, frames, 1, 30.0);
        if (!in->doc) return 0;
        in->model_bytes = g_count.live - before;
        finish_input(in);
        in->format = NULL;
    }
    (*n)++;
    return 1;
}

/* The FF7 pack of the issue: 60 animations x 100 frames x 25 slots, written by the FF7
 * writer from a synthetic document, then read like a file. */
static const char *g_save; /* --save DIR: where the synthetic pack is written */

static int add_ff7_pack(input *ins, int *n)
{
    if (*n >= MAX_INPUTS) return 0;
    ganim_doc *src = make_synth(25, 100, 60, 15.0);
    if (!src) return 0;
    ganim_buffer buf = { 0 };
    ganim_error err;
    int ok = ganim_write(src, "ff7-battle", NULL, &buf, &err) == GANIM_OK;
    ganim_doc_free(src);
    if (!ok) {
        fprintf(stderr, "bench_ganim: synthetic ff7 pack: %s\n", err.message);
        return 0;
    }
    input *in = &ins[*n];
    memset(in, 0, sizeof *in);
    in->data = malloc(buf.size);
    if (!in->data) return 0;
    memcpy(in->data, buf.data, buf.size);
    in->size = buf.size;
    ganim_buffer_free(&buf);
    if (g_save) { /* for the anchors (kujata reads the same pack) */
        char p[1100];
        snprintf(p, sizeof p, "%.1000s/synthetic_60x100x25.da", g_save);
        FILE *f = fopen(p, "wb");
        if (!f || fwrite(in->data, 1, in->size, f) != in->size) fprintf(stderr, "bench_ganim: cannot write %s\n", p);
        if (f) fclose(f);
    }
    ganim_read_opts o = { 0 };
    o.allocator = counting();
    o.format = "ff7-battle";
    size_t before = g_count.live;
    if (ganim_read_memory(in->data, in->size, &o, &in->doc, NULL) != GANIM_OK) return 0;
    in->model_bytes = g_count.live - before;
    snprintf(in->name, sizeof in->name, "synthetic ff7 pack 60x100x25");
    finish_input(in);
    (*n)++;
    return 1;
}

static int skip_name(const char *name)
{
    static const char *const skip[] = { ".json", ".txt", ".md", ".sha256", ".expected" };
    if (name[0] == '.') return 1;
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++) {
        size_t k = strlen(skip[i]);
        if (n >= k && strcmp(name + n - k, skip[i]) == 0) return 1;
    }
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

/* Every regular file of the sample folders (one level below the data root), by name. */
static void add_samples(input *ins, int *n, const char *root)
{
    static char names[2048][256];
    int nn = 0;
    DIR *d = opendir(root);
    if (!d) {
        fprintf(stderr, "bench_ganim: no samples in %s (set GANIM_TESTDATA)\n", root);
        return;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "hostile") == 0) continue;
        char sub[1024];
        snprintf(sub, sizeof sub, "%s/%s", root, e->d_name);
        DIR *s = opendir(sub);
        if (!s) continue;
        for (struct dirent *f; (f = readdir(s)) != NULL && nn < 2048;) {
            if (skip_name(f->d_name)) continue;
            snprintf(names[nn++], sizeof names[0], "%.100s/%.150s", e->d_name, f->d_name);
        }
        closedir(s);
    }
    closedir(d);
    qsort(names, (size_t)nn, sizeof names[0], by_name);
    for (int i = 0; i < nn; i++) {
        char path[1400];
        snprintf(path, sizeof path, "%.1000s/%.255s", root, names[i]);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        add_file(ins, n, path, names[i]);
    }
}

/* ---- the measured operations --------------------------------------------------------- */
static uint8_t *g_copy; /* memcpy destination */
static uint8_t *g_yard; /* the yardsticks' source: as large as the largest synthetic model */
static volatile double g_sink;

/* One call of one path. Returns the bytes it read or wrote (0: refused). */
static size_t measured_call(const input *in, op *o)
{
    ganim_error err;
    switch (o->kind) {
    case OP_MEMCPY:
        memcpy(g_copy, in->data, in->size);
        g_sink += (double)g_copy[in->size >> 1];
        return in->size;
    case OP_YARD_COPY: /* the yardsticks of a synthetic document: its model's bytes, in warm buffers */
        memcpy(g_copy, g_yard, in->model_bytes);
        g_sink += (double)g_copy[in->model_bytes >> 1];
        return in->model_bytes;
    case OP_YARD_SET:
        memset(g_copy, (int)(in->values & 0x7f), in->model_bytes);
        g_sink += (double)g_copy[in->model_bytes >> 1];
        return in->model_bytes;
    case OP_READ:
    case OP_READBACK: {
        ganim_read_opts ro = { 0 };
        ro.allocator = timed_alloc();
        ro.format = o->kind == OP_READ ? in->format : o->what;
        ro.input_outlives_doc = o->lend;
        ro.skeleton = o->kind == OP_READ ? in->skeleton : o->exporter ? NULL : in->doc->skeleton;
        ganim_doc *d = NULL;
        const uint8_t *p = o->kind == OP_READ ? in->data : o->out;
        size_t size = o->kind == OP_READ ? in->size : o->out_size;
        ganim_code c = p ? ganim_read_memory(p, size, &ro, &d, &err) : ganim_read_file(in->path, &ro, &d, &err);
        if (c != GANIM_OK) return 0;
        uint64_t tp = 0;
        if (!o->values) o->values = count_values(d, &tp);
        ganim_doc_free(d);
        return size;
    }
    case OP_SAMPLE: {
        const ganim_doc *d = in->doc;
        uint32_t nb = d->skeleton ? d->skeleton->bone_count : 0;
        ganim_transform pose[4096];
        if (!nb || nb > 4096) return 0;
        double s = 0;
        for (uint32_t c = 0; c < d->clip_count; c++) {
            const ganim_clip *cl = &d->clips[c];
            if (cl->kind != GANIM_CLIP_ANIMATION) continue;
            double dur = cl->frame_count > 1 ? (cl->frame_count - 1) / cl->fps : 0;
            for (int k = 0; k < SAMPLE_POSES; k++) {
                if (ganim_clip_sample(cl, d->skeleton, dur * (k + 0.37) / SAMPLE_POSES, pose, NULL, &err) != GANIM_OK)
                    return 0;
                s += pose[nb - 1].rotation.w;
            }
        }
        g_sink += s;
        return 1;
    }
    case OP_WRITE: {
        ganim_write_opts wo = { 0 };
        wo.allocator = timed_alloc();
        ganim_buffer b = { 0 };
        if (ganim_write(in->doc, o->what, &wo, &b, &err) != GANIM_OK) return 0;
        size_t n = b.size;
        ganim_buffer_free(&b);
        return n;
    }
    case OP_EXPORT: {
        ganim_export_opts eo = { 0 };
        eo.allocator = timed_alloc();
        ganim_buffer b = { 0 }, bin = { 0 };
        ganim_code c;
        if (!strcmp(o->what, "glb")) c = ganim_export_glb(in->doc, &eo, &b, &err);
        else if (!strcmp(o->what, "gltf")) c = ganim_export_gltf(in->doc, &eo, &b, &bin, &err);
        else if (!strcmp(o->what, "bvh")) c = ganim_export_bvh(in->doc, &eo, &b, &err);
        else c = ganim_export_json(in->doc, &eo, &b, &err);
        size_t n = b.size + bin.size;
        ganim_buffer_free(&b);
        ganim_buffer_free(&bin);
        return c == GANIM_OK ? n : 0;
    }
    }
    return 0;
}

/* Exactly one call of one path; noinline so callgrind can count it alone. */
__attribute__((noinline)) size_t bench_measured(const input *in, op *o) { return measured_call(in, o); }

/* The paths of one input, in a fixed order (the --child index depends on it). */
static int make_ops(const input *in, op *ops)
{
    int n = 0;
    static const char *const exporters[] = { "glb", "gltf", "bvh", "json" };
    if (in->data) {
        ops[n].kind = OP_MEMCPY, ops[n].what = "memcpy", n++;
    }
    if (in->synthetic && in->group) { /* a series: how a stream of the model's size grows */
        ops[n].kind = OP_YARD_COPY, ops[n].what = "memcpy model", n++;
        ops[n].kind = OP_YARD_SET, ops[n].what = "memset model", n++;
    }
    if (!in->synthetic) ops[n].kind = OP_READ, ops[n].what = in->data ? "read" : "read (file)", n++;
    if (!in->synthetic && in->data) /* the caller's bytes lent: the reader may keep them */
        ops[n].kind = OP_READ, ops[n].what = "read (lent)", ops[n].lend = 1, n++;
    ops[n].kind = OP_SAMPLE, ops[n].what = "sample", n++;
    for (size_t e = 0; e < 4; e++) {
        ops[n].kind = OP_EXPORT, ops[n].what = exporters[e], n++;
        if (e == 0 || e == 2) /* the glTF and BVH readers, on what the exporters wrote */
            ops[n].kind = OP_READBACK, ops[n].what = e ? "bvh" : "gltf", ops[n].exporter = exporters[e], n++;
    }
    if (in->synthetic) {
        size_t nf = 0;
        const ganim_format *const *fs = ganim_formats(&nf);
        for (size_t i = 0; i < nf && n + 2 <= MAX_OPS; i++) {
            if (!(fs[i]->flags & GANIM_FORMAT_WRITE)) continue;
            ops[n].kind = OP_WRITE, ops[n].what = fs[i]->name, n++;
            ops[n].kind = OP_READBACK, ops[n].what = fs[i]->name, n++;
        }
    }
    for (int i = 0; i < n; i++) {
        const char *k = ops[i].kind == OP_WRITE      ? "write "
                        : ops[i].kind == OP_READBACK ? "read back "
                        : ops[i].kind == OP_EXPORT   ? "export "
                                                     : "";
        snprintf(ops[i].label, sizeof ops[i].label, "%s%s", k, ops[i].what);
    }
    return n;
}

/* OP_READBACK needs the bytes of the write before it. */
static void prepare(const input *in, op *ops, int i)
{
    if (ops[i].kind != OP_READBACK || ops[i].out) return;
    ganim_buffer b = { 0 };
    ganim_export_opts eo = { 0 };
    ganim_code c = !ops[i].exporter                  ? ganim_write(in->doc, ops[i].what, NULL, &b, NULL)
                   : !strcmp(ops[i].exporter, "glb") ? ganim_export_glb(in->doc, &eo, &b, NULL)
                                                     : ganim_export_bvh(in->doc, &eo, &b, NULL);
    if (c != GANIM_OK) return;
    ops[i].out = malloc(b.size ? b.size : 1);
    if (ops[i].out) {
        memcpy(ops[i].out, b.data, b.size);
        ops[i].out_size = b.size;
    }
    ganim_buffer_free(&b);
}

static void measure(row *r, double min_ns)
{
    size_t live = g_count.live;
    g_count.peak = live;
    g_peak_call = 1;
    double t_first = now_ns();
    r->bytes = bench_measured(r->in, r->o);
    t_first = now_ns() - t_first;
    g_peak_call = 0;
    r->ok = r->bytes > 0;
    r->peak = g_count.peak - live;
    if (!r->ok) return;
    double best = t_first;
    /* An untimed warm-up round first: the row that ran first after the memcpy was slower
     * whatever it was (a read at 11.3 us first, 5.1 us second, with 1 % more instructions:
     * the allocator and caches settling), so every row now starts settled. */
    long batch = 1; /* calls between two clock reads in a timed round */
    if (t_first < 3 * min_ns) {
        long warm = 0;
        double t0 = now_ns();
        do bench_measured(r->in, r->o), warm++;
        while (now_ns() - t0 < min_ns);
        /* a clock read (clock_gettime) costs ~45 ns on the project's VM, 5 % of a small
         * file's ~1 us read: the rounds read it once per CLOCK_BATCH_NS of calls */
        batch = (long)((double)warm * CLOCK_BATCH_NS / min_ns);
        if (batch < 1) batch = 1;
    }
    /* a call longer than 3 rounds is timed once (the 10,000-frame exports take seconds),
     * but in a series (--frames) always after a warm-up call and in 3 rounds: a first call
     * pays for fresh pages the next ones may not, and the sizes must be timed alike */
    if (t_first >= 3 * min_ns && g_nframes) bench_measured(r->in, r->o);
    struct rusage ru0, ru1;
    long calls = 0;
    getrusage(RUSAGE_SELF, &ru0);
    for (int round = 0; round < 3 && (t_first < 3 * min_ns || g_nframes); round++) {
        long it = 0;
        double t0 = now_ns(), t;
        do {
            for (long b = 0; b < batch; b++) bench_measured(r->in, r->o);
            it += batch;
            t = now_ns() - t0;
        } while (t < min_ns);
        double per = t / (double)it;
        if (per < best) best = per;
        calls += it;
    }
    getrusage(RUSAGE_SELF, &ru1);
    r->faults = calls ? (double)(ru1.ru_minflt - ru0.ru_minflt) / (double)calls : 0;
    r->ns = best;
    if (r->o->kind == OP_SAMPLE) {
        r->values = r->in->track_poses;
        r->bytes = 0;
    } else {
        r->values = r->o->kind == OP_READBACK ? r->o->values : r->in->values; /* yardsticks too */
    }
}

/* Instructions of one bench_measured call: this program again under callgrind. */
static double callgrind_ir(const char *self, char **args, int nargs, int in_id, int op_id, const op *o)
{
    char out[64], bytes[64] = "", cmd[8192];
    snprintf(out, sizeof out, "/tmp/bench_ganim.%ld.cg", (long)getpid());
    if (o->kind == OP_READBACK && o->out) { /* the bytes to read, so the child need not write them (slowly) */
        snprintf(bytes, sizeof bytes, "/tmp/bench_ganim.%ld.in", (long)getpid());
        FILE *b = fopen(bytes, "wb");
        int ok = b && fwrite(o->out, 1, o->out_size, b) == o->out_size;
        if (b && fclose(b) != 0) ok = 0;
        if (!ok) bytes[0] = '\0';
    }
    int k = snprintf(cmd, sizeof cmd,
                     "valgrind --tool=callgrind --collect-atstart=no --toggle-collect=bench_measured "
                     "--callgrind-out-file=%s '%s' --child %d %d%s%s",
                     out, self, in_id, op_id, bytes[0] ? " --child-bytes " : "", bytes);
    for (int i = 0; i < nargs && k > 0 && (size_t)k < sizeof cmd; i++)
        k += snprintf(cmd + k, sizeof cmd - (size_t)k, " '%s'", args[i]);
    if (k <= 0 || (size_t)k >= sizeof cmd - 32) return 0;
    snprintf(cmd + k, sizeof cmd - (size_t)k, " >/dev/null 2>&1");
    int rc = system(cmd);
    if (bytes[0]) remove(bytes);
    if (rc != 0) return 0;
    FILE *f = fopen(out, "r");
    if (!f) return 0;
    char line[512];
    double ir = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "summary:", 8) || !strncmp(line, "totals:", 7)) ir = strtod(strchr(line, ':') + 1, NULL);
    fclose(f);
    remove(out);
    return ir;
}

/* The series (--frames): per group of bones, each path's ns and instructions per value at
 * every size, the least-squares slope of ns against values (ns per value added) and the
 * last size's ns (and instructions) per value over the first's. */
static void print_series(const input *ins, int n, const row *rows, int nr)
{
    for (int g = 1; g <= g_nbones; g++) {
        const input *first = NULL;
        for (int i = 0; i < n && !first; i++)
            if (ins[i].group == g) first = &ins[i];
        if (!first) continue;
        printf("\ngrowth with frames, %u bones: ns per value at each size", g_bones[g - 1]);
        printf("%s, slope (least squares, ns per value added), last over first\n",
               rows[0].ir > 0 || (nr > 1 && rows[1].ir > 0) ? " (and instructions per value)" : "");
        printf("  %-22s", "path \\ frames");
        for (int f = 0; f < g_nframes; f++) printf(" %9u", g_frames[f]);
        printf("   %9s %7s\n", "slope", "x");
        for (int a = 0; a < nr; a++) {
            if (rows[a].in != first || !rows[a].ok || !rows[a].values) continue;
            const row *s[MAX_SERIES] = { 0 };
            int k = 0, cg = 1;
            for (int b = 0; b < nr && k < g_nframes; b++)
                if (rows[b].in->group == g && rows[b].ok && rows[b].values &&
                    !strcmp(rows[b].o->label, rows[a].o->label))
                    s[k++] = &rows[b];
            if (k < 2) continue;
            double mx = 0, my = 0, sxx = 0, sxy = 0;
            for (int i = 0; i < k; i++) {
                mx += (double)s[i]->values / k;
                my += s[i]->ns / k;
                cg &= s[i]->ir > 0;
            }
            for (int i = 0; i < k; i++) {
                double dx = (double)s[i]->values - mx;
                sxx += dx * dx;
                sxy += dx * (s[i]->ns - my);
            }
            printf("  %-22s", rows[a].o->label);
            for (int i = 0; i < k; i++) printf(" %9.2f", s[i]->ns / (double)s[i]->values);
            double first_v = s[0]->ns / (double)s[0]->values, last_v = s[k - 1]->ns / (double)s[k - 1]->values;
            if (sxx > 0) printf("   %9.2f %7.2f\n", sxy / sxx, last_v / first_v);
            else printf("   %9s %7.2f\n", "-", last_v / first_v); /* sample: values do not grow */
            printf("  %-22s", "  page faults/call");
            for (int i = 0; i < k; i++) printf(" %9.0f", s[i]->faults);
            putchar('\n');
            if (!cg) continue;
            printf("  %-22s", "  instructions");
            for (int i = 0; i < k; i++) printf(" %9.1f", s[i]->ir / (double)s[i]->values);
            printf("   %9s %7.3f\n", "", (s[k - 1]->ir / (double)s[k - 1]->values) / (s[0]->ir / (double)s[0]->values));
        }
    }
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') putchar('\\');
        putchar((unsigned char)*s < 0x20 ? '?' : *s);
    }
    putchar('"');
}

int main(int argc, char **argv)
{
    int as_json = 0, cg = 0, quick = 0, samples = 1, synth = 1, child_in = -1, child_op = -1;
    const char *child_bytes = NULL; /* --child-bytes FILE: a read back's input, written by the parent */
    double min_ms = 40;
    const char *only = NULL;
    char *paths[MAX_INPUTS];
    char *pass[64]; /* arguments a --child run needs to build the same inputs */
    int np = 0, npass = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) as_json = 1;
        else if (!strcmp(a, "--callgrind")) cg = 1;
        else if (!strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--no-samples")) samples = 0;
        else if (!strcmp(a, "--no-synthetic")) synth = 0;
        else if (!strcmp(a, "--time") && i + 1 < argc) min_ms = atof(argv[++i]);
        else if (!strcmp(a, "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(a, "--save") && i + 1 < argc) g_save = argv[++i];
        else if (!strcmp(a, "--alloc") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "default") || !strcmp(argv[i + 1], "counting")))
            g_alloc_default = !strcmp(argv[++i], "default");
        else if ((!strcmp(a, "--frames") || !strcmp(a, "--bones")) && i + 1 < argc && set_list(a, argv[i + 1])) i++;
        else if (!strcmp(a, "--growth")) {
            g_nbones = parse_list("50,200", g_bones);
            g_nframes = parse_list("500,1000,2000,4000,8000,10000", g_frames);
        } else if (!strcmp(a, "--child") && i + 2 < argc) {
            child_in = atoi(argv[++i]);
            child_op = atoi(argv[++i]);
            continue;
        } else if (!strcmp(a, "--child-bytes") && i + 1 < argc) {
            child_bytes = argv[++i];
            continue;
        } else if (a[0] == '-') {
            fprintf(stderr, "usage: bench_ganim [--json] [--callgrind] [--time MS] [--quick] [--no-samples] "
                            "[--no-synthetic] [--only WORD] [--frames LIST [--bones LIST]] [--growth] "
                            "[--alloc default|counting] [PATH ...]\n");
            return 2;
        } else if (np < MAX_INPUTS) paths[np++] = argv[i];
        /* what a --child run needs to build the same inputs: the paths and these flags */
        if ((a[0] != '-' || !strcmp(a, "--quick") || !strcmp(a, "--no-samples") || !strcmp(a, "--no-synthetic") ||
             !strcmp(a, "--growth")) &&
            npass < 64)
            pass[npass++] = argv[i];
        if ((!strcmp(a, "--frames") || !strcmp(a, "--bones") || !strcmp(a, "--alloc")) && npass < 63) {
            pass[npass++] = argv[i - 1];
            pass[npass++] = argv[i];
        }
    }
    if (g_nframes && !g_nbones) g_nbones = parse_list("200", g_bones);
    if (g_alloc_default < 0) g_alloc_default = g_nframes > 0;
    if (cg) { /* under valgrind the 10,000-frame document takes minutes to build */
        quick = 1;
        int has = 0;
        for (int i = 0; i < npass; i++) has |= !strcmp(pass[i], "--quick");
        if (!has && npass < 64) pass[npass++] = "--quick";
    }
    static input ins[MAX_INPUTS];
    int n = 0;
    if (np) {
        for (int i = 0; i < np; i++) {
            const char *b = strrchr(paths[i], '/');
            if (!add_file(ins, &n, paths[i], b && b[1] ? b + 1 : paths[i]))
                fprintf(stderr, "bench_ganim: cannot read %s\n", paths[i]);
        }
    } else if (samples) {
        const char *td = getenv("GANIM_TESTDATA");
        add_samples(ins, &n, td ? td : "../shared/testdata");
    }
    if (synth) {
        add_ff7_pack(ins, &n);
        if (g_nframes) { /* the series: one group per bone count */
            for (int b = 0; b < g_nbones; b++)
                for (int f = 0; f < g_nframes; f++)
                    add_synth(ins, &n, g_bones[b], g_frames[f], b + 1, child_in < 0 || n == child_in);
        } else {
            add_synth(ins, &n, 50, 1000, 0, child_in < 0 || n == child_in);
            add_synth(ins, &n, 200, 1000, 1, child_in < 0 || n == child_in);
            if (!quick) add_synth(ins, &n, 200, 10000, 1, child_in < 0 || n == child_in);
        }
    }
    size_t maxsize = 1, maxmodel = 1;
    for (int i = 0; i < n; i++) {
        if (ins[i].size > maxsize) maxsize = ins[i].size;
        if (ins[i].synthetic && ins[i].group && ins[i].model_bytes > maxmodel) maxmodel = ins[i].model_bytes;
    }
    g_copy = malloc(maxsize > maxmodel ? maxsize : maxmodel);
    g_yard = calloc(maxmodel, 1);
    if (!g_copy || !g_yard) return 1;

    if (child_in >= 0) { /* one call for callgrind */
        if (child_in >= n) return 1;
        op ops[MAX_OPS] = { 0 };
        int no = make_ops(&ins[child_in], ops);
        if (child_op >= no) return 1;
        if (child_bytes && ops[child_op].kind == OP_READBACK)
            ops[child_op].out = load(child_bytes, &ops[child_op].out_size);
        else prepare(&ins[child_in], ops, child_op);
        /* A call outside bench_measured first, as the timed rows warm up: the dynamic
         * linker's lazy binding, first-call set-up and the read back's value count are
         * not counted (skipped for inputs of 1 MiB or more, where they are noise and a
         * second call under valgrind is slow). */
        size_t warm = ops[child_op].kind == OP_READBACK ? ops[child_op].out_size : ins[child_in].size;
        if (ins[child_in].model_bytes > warm) warm = ins[child_in].model_bytes;
        if (warm < ((size_t)1 << 20)) (void)measured_call(&ins[child_in], &ops[child_op]);
        return bench_measured(&ins[child_in], &ops[child_op]) ? 0 : 1;
    }

    static row rows[MAX_INPUTS * MAX_OPS];
    static op allops[MAX_INPUTS][MAX_OPS];
    int nr = 0;
    if (!as_json)
        printf("%-44s %-22s %10s %10s %9s %8s %10s %9s %8s %8s%s\n", "input", "path", "bytes", "ms", "MB/s", "xmemcpy",
               "values", "ns/value", "peak KiB", "xin+mdl", cg ? "   Ir/value   Ir/byte" : "");
    for (int i = 0; i < n; i++) {
        int no = make_ops(&ins[i], allops[i]);
        double memcpy_mbs = 0;
        for (int j = 0; j < no; j++) {
            op *o = &allops[i][j];
            if (only && !strstr(ins[i].name, only) && !strstr(o->label, only) && o->kind != OP_MEMCPY &&
                o->kind != OP_YARD_COPY && o->kind != OP_YARD_SET)
                continue;
            prepare(&ins[i], allops[i], j);
            row *r = &rows[nr++];
            r->in = &ins[i];
            r->o = o;
            measure(r, min_ms * 1e6);
            if (cg && r->ok && o->kind != OP_MEMCPY && o->kind != OP_YARD_COPY && o->kind != OP_YARD_SET)
                r->ir = callgrind_ir(argv[0], pass, npass, i, j, o);
            double mbs = r->ok && r->bytes ? (double)r->bytes / r->ns * 1e3 : 0;
            if (o->kind == OP_MEMCPY) memcpy_mbs = mbs;
            double ratio = r->peak ? (double)r->peak / (double)(ins[i].size + ins[i].model_bytes) : 0;
            if (as_json) continue;
            if (!r->ok) {
                printf("%-44.44s %-22s %10s\n", ins[i].name, o->label, "refused");
                continue;
            }
            char x[32] = "", v[32] = "", nv[32] = "";
            if (memcpy_mbs > 0 && o->kind != OP_MEMCPY && r->bytes) snprintf(x, sizeof x, "%.4f", mbs / memcpy_mbs);
            if (o->kind != OP_MEMCPY && r->values) {
                snprintf(v, sizeof v, "%llu", (unsigned long long)r->values);
                snprintf(nv, sizeof nv, "%.2f", r->ns / (double)r->values);
            }
            printf("%-44.44s %-22s %10zu %10.3f %9.1f %8s %10s %9s %8.0f %8.2f", ins[i].name, o->label, r->bytes,
                   r->ns / 1e6, mbs, x, v, nv, (double)r->peak / 1024.0, ratio);
            if (r->ir > 0)
                printf(" %10.1f %9.2f", r->values ? r->ir / (double)r->values : 0,
                       r->bytes ? r->ir / (double)r->bytes : 0);
            putchar('\n');
        }
    }
    /* growth: ns per value between the synthetic documents of one series */
    const input *lo = NULL, *hi = NULL;
    for (int i = 0; i < n; i++)
        if (ins[i].group == 1) {
            if (!lo) lo = &ins[i];
            else hi = &ins[i];
        }
    if (as_json) {
        printf("{\"bench\": \"ganim\", \"rows\": [");
        for (int k = 0; k < nr; k++) {
            const row *r = &rows[k];
            printf("%s\n  {\"input\": ", k ? "," : "");
            json_str(r->in->name);
            printf(", \"path\": ");
            json_str(r->o->label);
            printf(", \"ok\": %s, \"bytes\": %zu, \"ns\": %.1f, \"values\": %llu, \"peak_bytes\": %zu, "
                   "\"input_bytes\": %zu, \"model_bytes\": %zu, \"instructions\": %.0f, \"page_faults\": %.1f}",
                   r->ok ? "true" : "false", r->bytes, r->ns, (unsigned long long)r->values, r->peak, r->in->size,
                   r->in->model_bytes, r->ir, r->faults);
        }
        printf("\n]}\n");
        return 0;
    }
    if (g_nframes) print_series(ins, n, rows, nr);
    else if (lo && hi) {
        printf("\ngrowth with frames (%s -> %s): ns per value at each size, and the slope\n", lo->name, hi->name);
        for (int a = 0; a < nr; a++) {
            if (rows[a].in != lo || !rows[a].ok) continue;
            for (int b = 0; b < nr; b++) {
                if (rows[b].in != hi || !rows[b].ok || strcmp(rows[b].o->label, rows[a].o->label) != 0) continue;
                if (!rows[a].values || rows[b].values <= rows[a].values) continue; /* no growth to divide by */
                double s = (rows[b].ns - rows[a].ns) / (double)(rows[b].values - rows[a].values);
                printf("  %-22s %9.2f %9.2f   slope %.2f ns per value\n", rows[a].o->label,
                       rows[a].ns / (double)rows[a].values, rows[b].ns / (double)rows[b].values, s);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < MAX_OPS; j++) free(allops[i][j].out);
        ganim_doc_free(ins[i].doc);
        free(ins[i].data);
    }
    free(g_copy);
    free(g_yard);
    return 0;
}
