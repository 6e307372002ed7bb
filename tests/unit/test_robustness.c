/* Hostile-input sweep over every real sample: each file is truncated and has single
 * bytes flipped, and every variant goes through its own format's reader (forced by
 * name, so the reader, not the probe, sees the bytes). Each read must either give a
 * document that passes ganim_doc_validate, survives every exporter and the sampler,
 * or fail cleanly: a non-OK code, a one-line message and, for truncated/corrupt
 * input, an offset inside the input. Crashes and sanitizer reports end the program,
 * so the current case is kept in a buffer that a death callback and a watchdog print.
 *
 * Every file has a plan (truncations and flips, below) walked in an order that keeps
 * any prefix evenly spread, until the file's cost budget is spent: small files run the
 * whole plan, the biggest documents (whose exports cost most) a sparse part of it.
 *
 * GANIM_ROBUST_ONLY=substring limits the sweep to matching file names (for replaying
  * one failure); GANIM_ROBUST_SCALE=x multiplies every file's budget (default 1 under
 * CI=true or GANIM_FULL=1, else QUICK_SCALE). */
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/wait.h>
#endif

/* ---- where we are, for crash and hang reports ------------------------------------ */

static char current_case[1024];

#ifdef _WIN32
/* Windows has neither fork nor alarm: one process, and ctest's timeout for a hang. */
#define alarm(seconds) ((void)(seconds))
#else
static void print_current_case(void)
{
    static const char head[] = "\nrobustness: died in case: ";
    if (write(2, head, sizeof head - 1) < 0) return;
    if (write(2, current_case, strlen(current_case)) < 0) return;
    if (write(2, "\n", 1) < 0) return;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "\nrobustness: TIMEOUT (hang?)";
    if (write(2, msg, sizeof msg - 1) < 0) _exit(1);
    print_current_case();
    _exit(1);
}

/* Provided by the sanitizer runtimes; NULL in a plain build. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
#endif

/* ---- the files ---------------------------------------------------------------------- */

typedef struct sample {
    const char *path;
    const ganim_format *format;
    const ganim_skeleton *skeleton; /* companion skeleton, or NULL */
    const char *variant;            /* "", "+skeleton" */
} sample;

/* ---- checks on a successful read ---------------------------------------------------- */

/* JSON text outside strings may hold only numbers and true/false/null: a bare nan or
 * inf printed by %g would make the file unreadable. */
static int json_tokens_ok(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t c = s[i];
        if (c == '"') {
            for (i++; i < n && s[i] != '"'; i++)
                if (s[i] == '\\') i++;
        } else if (isalpha(c)) {
            if ((c == 'e' || c == 'E') && i > 0 && (isdigit(s[i - 1]) || s[i - 1] == '.')) continue;
            const char *words[] = { "true", "false", "null" };
            size_t w = 0;
            for (; w < 3; w++) {
                size_t len = strlen(words[w]);
                if (i + len <= n && memcmp(s + i, words[w], len) == 0) {
                    i += len - 1;
                    break;
                }
            }
            if (w == 3) return 0;
        }
    }
    return 1;
}

/* BVH motion lines (after "Frame Time:") hold only numbers. */
static int bvh_motion_ok(const uint8_t *s, size_t n)
{
    const char *key = "Frame Time:";
    size_t klen = strlen(key), i = 0;
    while (i + klen <= n && memcmp(s + i, key, klen) != 0) i++;
    if (i + klen > n) return 0;
    while (i < n && s[i] != '\n') i++;
    for (; i < n; i++)
        if (!strchr("0123456789+-.eE \t\r\n", s[i])) return 0;
    return 1;
}

static int json_chunk_ok(const ganim_buffer *glb)
{
    /* GLB: 12-byte header, then the JSON chunk: u32 length, u32 type, text. */
    if (glb->size < 20) return 0;
    const uint8_t *p = glb->data;
    size_t len = (size_t)p[12] | (size_t)p[13] << 8 | (size_t)p[14] << 16 | (size_t)p[15] << 24;
    if (len > glb->size - 20) return 0;
    return json_tokens_ok(p + 20, len);
}

/* How much a document costs to export, in decoded values: every clip's frames times
 * its tracks, plus the bones. */
static double doc_work(const ganim_doc *doc)
{
    double w = doc->skeleton ? 50.0 * doc->skeleton->bone_count : 0; /* a bone costs ~50 values */
    for (uint32_t i = 0; i < doc->clip_count; i++)
        w += (double)doc->clips[i].frame_count * (doc->clips[i].track_count + 1.0);
    return w;
}

static long long cases, reads_ok, reads_failed;

static void check_error(const ganim_error *err, ganim_code code, size_t size)
{
    CHECK_MSG(code != GANIM_OK, "%s: error path with GANIM_OK", current_case);
    CHECK_MSG(err->code == code, "%s: returned %d but err.code %d", current_case, (int)code, (int)err->code);
    CHECK_MSG(err->message[0] != '\0', "%s: empty error message (code %s)", current_case, ganim_code_name(code));
    CHECK_MSG(!strchr(err->message, '\n'), "%s: message has a newline: %s", current_case, err->message);
    if (code == GANIM_ERR_TRUNCATED || code == GANIM_ERR_CORRUPT)
        CHECK_MSG(err->offset <= size, "%s: offset %llu beyond the %zu input bytes (%s)", current_case,
                  (unsigned long long)err->offset, size, err->message);
}

static void check_export(ganim_code code, const ganim_error *err, const char *what)
{
    if (code != GANIM_OK) {
        CHECK_MSG(err->code == code && err->message[0], "%s: %s failed without a message (code %d)", current_case, what,
                  (int)code);
    }
}

/* Documents above this many bone-frames (twice the largest real sample, a 1301-frame
 * 97-bone ALA) only get the cheap checks: a flipped frame count in a file of constant
 * tracks legitimately announces 65536 frames, and exporting those takes seconds under
 * ASan. The exporters meet real big documents in the interop test. */
#define MAX_EXPORT_BONE_FRAMES (1u << 18)
/* make check (not CI=true or GANIM_FULL=1) exports only documents below a quarter of
 * that, which leaves out the mutants of the largest sample. */
static unsigned export_limit(void) { return test_full() ? MAX_EXPORT_BONE_FRAMES : MAX_EXPORT_BONE_FRAMES / 4; }
static long long big_docs;

static void exercise_doc(ganim_doc *doc)
{
    ganim_error err = { 0 };
    ganim_export_opts eo = { 0 };
    ganim_buffer a = { 0 }, b = { 0 };
    ganim_code c;
    double bone_frames = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++)
        bone_frames += (double)doc->clips[i].frame_count * (doc->skeleton ? doc->skeleton->bone_count : 1);
    if (bone_frames > export_limit()) {
        big_docs++;
        goto cheap;
    }

    c = ganim_export_glb(doc, &eo, &a, &err);
    check_export(c, &err, "glb");
    if (c == GANIM_OK) CHECK_MSG(json_chunk_ok(&a), "%s: glb JSON has a bare non-number token", current_case);
    ganim_buffer_free(&a);

    memset(&err, 0, sizeof err);
    c = ganim_export_gltf(doc, &eo, &a, &b, &err);
    check_export(c, &err, "gltf");
    if (c == GANIM_OK) CHECK_MSG(json_tokens_ok(a.data, a.size), "%s: .gltf has a bare non-number token", current_case);
    ganim_buffer_free(&a);
    ganim_buffer_free(&b);

    memset(&err, 0, sizeof err);
    c = ganim_export_bvh(doc, &eo, &a, &err);
    check_export(c, &err, "bvh");
    if (c == GANIM_OK) CHECK_MSG(bvh_motion_ok(a.data, a.size), "%s: BVH motion has a non-number", current_case);
    ganim_buffer_free(&a);

    memset(&err, 0, sizeof err);
    c = ganim_export_json(doc, &eo, &a, &err);
    check_export(c, &err, "json");
    if (c == GANIM_OK) CHECK_MSG(json_tokens_ok(a.data, a.size), "%s: dump has a bare non-number token", current_case);
    ganim_buffer_free(&a);

cheap:
    memset(&err, 0, sizeof err);
    c = ganim_export_info_json(doc, &eo, &a, &err);
    check_export(c, &err, "info-json");
    ganim_buffer_free(&a);

    /* The sampler on every animation, inside and outside the clip. */
    if (!doc->skeleton) return;
    uint32_t nb = doc->skeleton->bone_count;
    ganim_transform *pose = malloc((nb ? nb : 1) * sizeof *pose);
    uint8_t *vis = malloc(nb ? nb : 1);
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *clip = &doc->clips[i];
        if (clip->kind != GANIM_CLIP_ANIMATION || !(clip->fps > 0)) continue;
        double end = clip->frame_count ? (clip->frame_count - 1) / clip->fps : 0;
        const double times[] = { -1.0, 0.0, end * 0.37, end, end + 1.0 };
        for (size_t t = 0; t < sizeof times / sizeof times[0]; t++) {
            memset(&err, 0, sizeof err);
            c = ganim_clip_sample(clip, doc->skeleton, times[t], pose, vis, &err);
            check_export(c, &err, "clip_sample");
        }
    }
    free(pose);
    free(vis);
}

/* One read of `size` bytes at `data` (an exact-size allocation, so ASan sees any
 * read past the end). */
static void one_case(const sample *s, const uint8_t *data, size_t size, double *work)
{
    ganim_read_opts opts = { 0 };
    ganim_doc *doc = NULL;
    ganim_error err;
    memset(&err, 0, sizeof err);
    opts.format = s->format->name;
    opts.skeleton = s->skeleton;
    cases++;
    ganim_code code = ganim_read_memory(data, size, &opts, &doc, &err);
    if (code == GANIM_OK) {
        reads_ok++;
        CHECK_MSG(doc != NULL, "%s: GANIM_OK without a document", current_case);
        if (!doc) return;
        ganim_error verr = { 0 };
        ganim_code v = ganim_doc_validate(doc, &verr);
        CHECK_MSG(v == GANIM_OK, "%s: read OK but validate fails: %s", current_case, verr.message);
        if (v == GANIM_OK) {
            exercise_doc(doc);
            *work = doc_work(doc);
        }
        ganim_doc_free(doc);
    } else {
        reads_failed++;
        check_error(&err, code, size);
        CHECK_MSG(doc == NULL, "%s: failed read left a document", current_case);
        if (doc) ganim_doc_free(doc);
    }
}

/* make check spends this part of each file's budget and runs at most one case in
 * QUICK_PART of each file's plan (the start of the same spread order, so the cases are
 * the same every run); CI=true or GANIM_FULL=1 all of it. */
#define QUICK_SCALE 0.1
#define QUICK_PART 6

static double scale_env(void)
{
    const char *e = getenv("GANIM_ROBUST_SCALE");
    double v = e ? atof(e) : 0;
    if (v > 0) return v;
    return test_full() ? 1.0 : QUICK_SCALE;
}

/* The cost budget of one file, in "bytes": a case costs the bytes it copies, a fixed
 * 4 KB, and 2300 per decoded value when the read succeeds and everything is exported
 * (what the exporters cost under ASan, measured). Small files get every case of the
 * plan below; the biggest (a 1301-frame, 97-bone ALA) get the minimum. One unit is
 * about 2.5 ns under ASan -O0, so a budget is ~2.5 s of one core at most. */
#define BUDGET 1.0e9
#define COST_FIXED 4096.0
#define COST_PER_VALUE 2300.0
#define MIN_CASES 32

typedef struct mutation {
    size_t pos;   /* truncation length, or the byte to flip */
    uint8_t mask; /* 0: truncation; else the xor */
} mutation;

/* Index k of a van der Corput walk over 0..n-1: 0, n/2, n/4, 3n/4, ... so that every
 * prefix of the walk is spread evenly over the whole plan. */
static size_t spread_index(size_t k, size_t top)
{
    size_t r = 0;
    for (size_t bit = 1, rbit = top >> 1; rbit; bit <<= 1, rbit >>= 1)
        if (k & bit) r |= rbit;
    return r;
}

/* Sweeps are dealt to worker processes in turn (sweep number modulo the workers). */
static int worker, workers = 1;
static unsigned sweep_seq;

static void sweep(const sample *s)
{
    if (sweep_seq++ % (unsigned)workers != (unsigned)worker) return;
    size_t size;
    uint8_t *orig = test_read_file(s->path, &size);
    const char *name = test_base_name(s->path);
    long long before = cases, ok_before = reads_ok;
    time_t t0 = time(NULL);

    alarm(600); /* a file that takes 10 minutes is hung */

    /* The untouched file is a real, valid sample: it must read. */
    {
        ganim_read_opts opts = { 0 };
        ganim_doc *doc = NULL;
        ganim_error err = { 0 };
        opts.format = s->format->name;
        opts.skeleton = s->skeleton;
        snprintf(current_case, sizeof current_case, "%s%s [%s] untouched", name, s->variant, s->format->name);
        ganim_code c = ganim_read_memory(orig, size, &opts, &doc, &err);
        CHECK_MSG(c == GANIM_OK, "%s: the untouched file does not read: %s", current_case, err.message);
        ganim_doc_free(doc);
    }

    /* The plan: truncation at every length below 16 KB, else at the first 64 and ~2000
     * spread lengths; flips (xor 0xFF, xor 0x01) of each of the first 512 bytes (the
     * headers) and of ~500 spread bytes. */
    size_t cap = (size < 16384 ? size : 2064) + 2 * 1012, n = 0;
    mutation *plan = malloc(cap * sizeof *plan);
    if (size < 16384) {
        for (size_t i = 0; i < size; i++) plan[n++] = (mutation){ i, 0 };
    } else {
        for (size_t i = 0; i < 64; i++) plan[n++] = (mutation){ i, 0 };
        for (size_t i = 0; i < 2000; i++) plan[n++] = (mutation){ (size_t)((double)i * (double)size / 2000), 0 };
    }
    for (size_t i = 0; i < size && i < 512; i++) {
        plan[n++] = (mutation){ i, 0xFF };
        plan[n++] = (mutation){ i, 0x01 };
    }
    for (size_t i = 0; size > 512 && i < 500; i++) {
        size_t pos = 512 + (size_t)((double)i * (double)(size - 512) / 500);
        plan[n++] = (mutation){ pos, 0xFF };
        plan[n++] = (mutation){ pos, 0x01 };
    }

    /* Walk each half of the plan (truncations, then flips) in spread order until its
     * half of the budget is spent, so cheap failing truncations are not starved by
     * flips whose documents are expensive to export. */
    size_t ntrunc = 0;
    while (ntrunc < n && plan[ntrunc].mask == 0) ntrunc++;
    uint8_t *buf = malloc(size ? size : 1);
    memcpy(buf, orig, size);
    for (int half = 0; half < 2; half++) {
        size_t first = half ? ntrunc : 0, count = half ? n - ntrunc : ntrunc, top = 1, k_done = 0;
        double budget = BUDGET / 2 * scale_env(), spent = 0;
        size_t quota = test_full() || getenv("GANIM_ROBUST_SCALE") ? count : count / QUICK_PART + MIN_CASES / 2;
        while (top < count) top <<= 1;
        for (size_t k = 0; k < top && k_done < quota && (spent < budget || k_done < MIN_CASES / 2); k++) {
            size_t idx = spread_index(k, top);
            if (idx >= count) continue;
            mutation m = plan[first + idx];
            double value_work = 0;
            k_done++;
            if (m.mask == 0) {
                uint8_t *cut = malloc(m.pos ? m.pos : 1);
                memcpy(cut, orig, m.pos);
                snprintf(current_case, sizeof current_case, "%s%s [%s] truncated to %zu of %zu bytes", name, s->variant,
                         s->format->name, m.pos, size);
                one_case(s, cut, m.pos, &value_work);
                free(cut);
                spent += (double)m.pos;
            } else {
                buf[m.pos] ^= m.mask;
                snprintf(current_case, sizeof current_case, "%s%s [%s] byte %zu ^= 0x%02X (size %zu)", name, s->variant,
                         s->format->name, m.pos, m.mask, size);
                one_case(s, buf, size, &value_work);
                buf[m.pos] ^= m.mask;
            }
            spent += COST_FIXED + COST_PER_VALUE * value_work;
        }
    }
    free(buf);
    free(plan);
    free(orig);
    alarm(0);
    printf("  %-40s %-9s %8zu B %6lld of %6zu cases, %6lld read OK, %3lds\n", name, s->variant, size, cases - before, n,
           reads_ok - ok_before, (long)(time(NULL) - t0));
    fflush(stdout);
}

static int selected(const char *path)
{
    const char *only = getenv("GANIM_ROBUST_ONLY");
    return !only || !*only || strstr(path, only);
}

/* Reads a pristine companion and keeps its document alive while it is used. */
static ganim_doc *read_companion(const char *path)
{
    ganim_read_opts opts = { 0 };
    ganim_error err = { 0 };
    ganim_doc *doc = NULL;
    const ganim_format *f = ganim_format_for_path(path);
    CHECK_MSG(f != NULL, "no format claims %s", path);
    if (!f) return NULL;
    opts.format = f->name;
    ganim_code c = ganim_read_file(path, &opts, &doc, &err);
    CHECK_MSG(c == GANIM_OK && doc && doc->skeleton, "companion %s: %s", path, err.message);
    if (c != GANIM_OK) return NULL;
    return doc;
}

/* Every file of one format (the real samples, or the project's own fixtures), each with
 * its companion skeleton when the format's rule finds one and also alone (where the
 * reader takes other paths: made-up skeletons, slot counts from headers). */
static void sweep_format(const ganim_format *f, int which)
{
    char **files = test_format_files(f, which);
    for (char **p = files; *p; p++) {
        if (!selected(*p)) continue;
        sample s = { *p, f, NULL, "" };
        char comp[4096];
        if (ganim_find_companion(*p, f, comp, sizeof comp)) {
            ganim_doc *cdoc = read_companion(comp);
            if (cdoc) {
                s.skeleton = cdoc->skeleton;
                s.variant = "+skeleton";
                sweep(&s);
                ganim_doc_free(cdoc);
            }
            s.skeleton = NULL;
            s.variant = "";
        }
        sweep(&s);
    }
    test_free_list(files);
}

static const ganim_format *current;
static int current_which;
static void sweep_current(void) { sweep_format(current, current_which); }

static void run_sweeps(void)
{
    time_t t0 = time(NULL);
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    int have_samples = test_testdata_optional() != NULL;
    for (int which = TEST_FIXTURES; which >= TEST_SAMPLES; which--) {
        if (which == TEST_SAMPLES && !have_samples) continue;
        for (size_t i = 0; i < count; i++) {
            if (!(all[i]->flags & GANIM_FORMAT_READ)) continue;
            char name[96];
            snprintf(name, sizeof name, "%s %s", all[i]->name, which == TEST_SAMPLES ? "samples" : "fixtures");
            current = all[i];
            current_which = which;
            test_run(name, sweep_current);
        }
    }
    if (!have_samples && worker == 0) test_note_skip("test_robustness on the real samples (fixtures swept)");
    printf("robustness worker %d: %lld cases (%lld read OK, %lld clean errors; %lld documents over %u "
           "bone-frames not exported) in %lds\n",
           worker, cases, reads_ok, reads_failed, big_docs, export_limit(), (long)(time(NULL) - t0));
}

#ifndef _WIN32
/* The parent's one test: every worker process finished without a failure. */
static pid_t pids[8];
TEST(workers_pass)
{
    for (int k = 0; k < workers; k++) {
        int status = 0;
        CHECK_MSG(waitpid(pids[k], &status, 0) == pids[k], "worker %d: waitpid failed", k);
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "worker %d failed (%s %d)", k,
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
}

#endif

int main(void)
{
#ifdef _WIN32
    setvbuf(stdout, NULL, _IONBF, 0);
    run_sweeps();
    return test_finish();
#else
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(print_current_case);
    setvbuf(stdout, NULL, _IOLBF, 0); /* whole lines, so the workers' lines do not mix */

    /* Two workers by default (the machines have two cores); GANIM_ROBUST_JOBS=1 runs
     * everything in this process, which is easier under a debugger. */
    const char *jobs = getenv("GANIM_ROBUST_JOBS");
    workers = jobs && atoi(jobs) > 0 ? atoi(jobs) : 2;
    if (workers > 8) workers = 8;
    if (workers == 1) {
        run_sweeps();
        return test_finish();
    }
    fflush(stdout);
    for (int k = 0; k < workers; k++) {
        pids[k] = fork();
        if (pids[k] == 0) {
            worker = k;
            run_sweeps();
            exit(test_finish());
        }
        if (pids[k] < 0) {
            printf("robustness: fork failed\n0 passed, 1 failed\n");
            return 1;
        }
    }
    RUN(workers_pass);
    return test_finish();
#endif
}
