/* Peak memory of `ganim convert`, as an outside checker sees it (the process's maximum
 * resident set, from wait4, as /usr/bin/time reports it), against what the conversion
 * has to hold: the process's baseline (the maximum resident set of `ganim --version`),
 * the bytes of the files read (the input and its companion) and the decoded model (the
 * library's live bytes of the document ganim_read_file gives, counted by an allocator
 * handed to it: arrays, strings, records, arena blocks).
 *
 *   bench_memory [--ganim PATH] [FILE ...]         one row per file, converted to .glb
 *   bench_memory [--ganim PATH] --batch DIR [-j N] a whole folder (-r) to .glb, -j 1 and
 *                                                  -j 2 (or N) interleaved, 3 rounds:
 *                                                  wall, user, sys, max RSS, page faults
 *
 * Outputs go to a fresh folder under $TMPDIR (default /tmp): on a tmpfs such as /dev/shm
 * a batch measures the conversion alone, with no disk writing back earlier rounds.
 *
 * Without files: one sample of each family under $GANIM_TESTDATA (default
 * ../shared/testdata), plus a .glb and a .bvh that ganim exports from the Alamo sample.
 * The ganim program is the one beside this one unless --ganim names another. POSIX. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ganim.h"

/* ---- a counting allocator ------------------------------------------------------------- */
static size_t g_live;

static void *c_alloc(void *user, size_t size)
{
    (void)user;
    void *p = malloc(size ? size : 1);
    if (p) g_live += size;
    return p;
}

static void *c_realloc(void *user, void *p, size_t old_size, size_t new_size)
{
    (void)user;
    void *q = realloc(p, new_size ? new_size : 1);
    if (q) g_live = g_live - old_size + new_size;
    return q;
}

static void c_free(void *user, void *p, size_t size)
{
    (void)user;
    g_live -= size;
    free(p);
}

/* ---- running ganim -------------------------------------------------------------------- */
typedef struct run {
    int status;
    long maxrss_kib;
    double wall, user, sys;
    long minflt;
} run;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6; }

/* Runs argv (stdout and stderr to /dev/null) and measures it. */
static int run_cmd(char *const argv[], run *r)
{
    memset(r, 0, sizeof *r);
    fflush(stdout); /* or the child's copy of the buffer is printed twice */
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    struct rusage ru;
    int status = 0;
    if (wait4(pid, &status, 0, &ru) != pid) return -1;
    r->wall = now() - t0;
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    r->maxrss_kib = ru.ru_maxrss;
    r->user = seconds(ru.ru_utime);
    r->sys = seconds(ru.ru_stime);
    r->minflt = ru.ru_minflt;
    return 0;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (long)st.st_size : -1;
}

/* The files read (the input and what its read used) and the model's bytes. */
static int model_of(const char *path, long *input_bytes, size_t *model_bytes)
{
    ganim_read_opts o = { 0 };
    o.allocator = (ganim_allocator){ c_alloc, c_realloc, c_free, NULL };
    ganim_doc *doc = NULL;
    ganim_error err;
    size_t before = g_live;
    if (ganim_read_file(path, &o, &doc, &err) != GANIM_OK) {
        fprintf(stderr, "bench_memory: %s: %s\n", path, err.message);
        return -1;
    }
    *model_bytes = g_live - before;
    *input_bytes = file_size(path);
    for (uint32_t i = 0; i < doc->used_file_count; i++) *input_bytes += file_size(doc->used_files[i]);
    ganim_doc_free(doc);
    return 0;
}

/* model_of in a child process: the read's memory never becomes this process's. A child
 * made by fork starts with this process's resident heap, and the kernel's maximum resident
 * set of a program counts from there: a bench that had read a 4 MB model before running
 * `ganim convert` on a 4 KB file reported that model's pages as the small file's peak. */
static int model_apart(const char *path, long *input_bytes, size_t *model_bytes)
{
    int fd[2];
    if (pipe(fd) != 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        close(fd[0]);
        long in = 0;
        size_t model = 0;
        int ok = model_of(path, &in, &model) == 0;
        long msg[2] = { in, (long)model };
        _exit(ok && write(fd[1], msg, sizeof msg) == (ssize_t)sizeof msg ? 0 : 1);
    }
    close(fd[1]);
    long msg[2] = { 0, 0 };
    ssize_t got = read(fd[0], msg, sizeof msg);
    close(fd[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != (ssize_t)sizeof msg)
        return -1;
    *input_bytes = msg[0];
    *model_bytes = (size_t)msg[1];
    return 0;
}

static const char *base(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* ---- one row per file ------------------------------------------------------------------- */
static void row(char *ganim, const char *path, const char *tmp, long baseline_kib)
{
    long in = 0;
    size_t model = 0;
    if (model_apart(path, &in, &model) != 0) return;
    char out[1200];
    snprintf(out, sizeof out, "%s/out.glb", tmp);
    unlink(out);
    char *argv[] = { ganim, "convert", (char *)path, "-o", out, "-q", "--force", NULL };
    long peaks[3];
    for (int k = 0; k < 3; k++) { /* the median of three runs */
        run r;
        if (run_cmd(argv, &r) != 0 || r.status != 0) {
            fprintf(stderr, "bench_memory: ganim convert %s failed (%d)\n", path, r.status);
            return;
        }
        peaks[k] = r.maxrss_kib;
    }
    long lo = peaks[0] < peaks[1] ? peaks[0] : peaks[1], hi = peaks[0] < peaks[1] ? peaks[1] : peaks[0];
    long median = peaks[2] < lo ? lo : peaks[2] > hi ? hi : peaks[2];
    double rss = (double)median * 1024.0;
    double mine = (double)baseline_kib * 1024.0 + (double)in + (double)model;
    double issue = (double)in + 1.5 * (double)model + 2.0 * 1048576.0;
    printf("%-44.44s %10ld %10zu %10ld %6.2f %6.2f %10ld\n", base(path), in, model, median, rss / mine, rss / issue,
           file_size(out));
    unlink(out);
}

/* ---- a batch ---------------------------------------------------------------------------- */
static void batch(char *ganim, const char *dir, const char *tmp, int jobs)
{
    char out[1200], j1[] = "1", jn[16];
    snprintf(out, sizeof out, "%s/batch", tmp);
    snprintf(jn, sizeof jn, "%d", jobs);
    printf("%-6s %8s %8s %8s %8s %10s %10s\n", "-j", "wall s", "user s", "sys s", "cpu s", "maxRSS KiB", "minflt");
    for (int round = 0; round < 3; round++)
        for (int k = 0; k < 2; k++) {
            char *argv[] = { ganim, "convert", (char *)dir, "-r", "-o",        out, "--to",
                             "glb", "-q",      "--force",   "-j", k ? jn : j1, NULL };
            run r;
            if (run_cmd(argv, &r) != 0) return;
            printf("%-6s %8.2f %8.2f %8.2f %8.2f %10ld %10ld%s\n", k ? jn : j1, r.wall, r.user, r.sys, r.user + r.sys,
                   r.maxrss_kib, r.minflt, r.status ? " (failed inputs)" : "");
        }
    char *rm[] = { "/bin/rm", "-rf", out, NULL };
    run r;
    run_cmd(rm, &r);
}

int main(int argc, char **argv)
{
    char ganim[1100];
    const char *slash = strrchr(argv[0], '/');
    snprintf(ganim, sizeof ganim, "%.*sganim", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    const char *dir = NULL;
    int jobs = 2, nfiles = 0;
    const char *files[256];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ganim") && i + 1 < argc) snprintf(ganim, sizeof ganim, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc) dir = argv[++i];
        else if (!strcmp(argv[i], "-j") && i + 1 < argc) jobs = atoi(argv[++i]);
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: bench_memory [--ganim PATH] [FILE ... | --batch DIR [-j N]]\n");
            return 2;
        } else if (nfiles < 256) files[nfiles++] = argv[i];
    }
    const char *tmpdir = getenv("TMPDIR");
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s/bench_memory.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(tmp)) {
        perror("bench_memory: mkdtemp");
        return 1;
    }
    char *ver[] = { ganim, "--version", NULL };
    run base_run;
    if (run_cmd(ver, &base_run) != 0 || base_run.status != 0) {
        fprintf(stderr, "bench_memory: cannot run %s\n", ganim);
        rmdir(tmp);
        return 1;
    }
    printf("ganim: %s; baseline (ganim --version): %ld KiB\n", ganim, base_run.maxrss_kib);
    if (dir) {
        batch(ganim, dir, tmp, jobs);
        rmdir(tmp);
        return 0;
    }
    char made[2][1200];
    int made_count = 0;
    static char paths[8][1100];
    if (!nfiles) {
        const char *td = getenv("GANIM_TESTDATA");
        if (!td || !*td) td = "../shared/testdata";
        static const char *const samples[] = {
            "ff7/humanoid_bkey2.da",
            "alamo/VCBa_HOMEONE_D_DIE_00.ALA",
            "acl/long_f351_r30_b80.acl",
            "acl/long_f351_r30_b80.civ",
            "acl/scale01_default_settings_f192_r30_b60.v0.civ",
            "argonaut/croc2_level.wad",
        };
        for (int i = 0; i < 6; i++) {
            snprintf(paths[i], sizeof paths[i], "%s/%s", td, samples[i]);
            if (file_size(paths[i]) < 0) {
                printf("bench_memory: no samples under %s (set GANIM_TESTDATA); skipped\n", td);
                rmdir(tmp);
                return 0;
            }
            files[nfiles++] = paths[i];
        }
        /* a .glb and a .bvh exported from the Alamo sample */
        static const char *const ext[2] = { "glb", "bvh" };
        for (int k = 0; k < 2; k++) {
            snprintf(made[made_count], sizeof made[made_count], "%s/VCBa_HOMEONE_D_DIE_00.%s", tmp, ext[k]);
            char *argv2[] = { ganim, "convert", paths[1], "-o", made[made_count], "-q", NULL };
            run r;
            if (run_cmd(argv2, &r) == 0 && r.status == 0) files[nfiles++] = made[made_count++];
        }
    }
    printf("ratio: max RSS / (baseline + input + model); issue: max RSS / (input + 1.5 x model + 2 MiB)\n");
    printf("%-44s %10s %10s %10s %6s %6s %10s\n", "file (to .glb)", "input B", "model B", "maxRSS KiB", "ratio",
           "issue", "output B");
    for (int i = 0; i < nfiles; i++) row(ganim, files[i], tmp, base_run.maxrss_kib);
    for (int k = 0; k < made_count; k++) unlink(made[k]);
    rmdir(tmp);
    return 0;
}
