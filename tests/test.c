#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */
#endif
#include "test.h"

#include <ctype.h>
#include <dirent.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#ifdef _WIN32
#include <direct.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

int test_failures_in_current;
const char *test_program_name;
static int passed, failed;
static const char *current = "?";

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (test_failures_in_current < 20) {
        fprintf(stderr, "FAIL %s (%s:%d): ", current, file, line);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    } else if (test_failures_in_current == 20) {
        fprintf(stderr, "FAIL %s: further failures not shown\n", current);
    }
    test_failures_in_current++;
}

static double now_seconds(void)
{
#ifdef _WIN32
    return (double)GetTickCount64() / 1e3;
#else
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
#endif
}

#ifdef _WIN32
static wchar_t *widen(const char *s) /* UTF-8 -> UTF-16, malloc'd; NULL if not UTF-8 */
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    wchar_t *w = n > 0 ? malloc((size_t)n * sizeof *w) : NULL;
    if (w) MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}
#endif

int test_mkdir(const char *path)
{
#ifdef _WIN32
    wchar_t *w = widen(path);
    int rc = w ? _wmkdir(w) : -1;
    free(w);
    return rc;
#else
    return mkdir(path, 0777);
#endif
}

FILE *test_fopen(const char *path, const char *mode)
{
#ifdef _WIN32
    wchar_t *w = widen(path), *m = widen(mode);
    FILE *f = w && m ? _wfopen(w, m) : NULL;
    free(w);
    free(m);
    return f;
#else
    return fopen(path, mode);
#endif
}

int test_remove(const char *path)
{
#ifdef _WIN32
    wchar_t *w = widen(path);
    int rc = w && (DeleteFileW(w) || RemoveDirectoryW(w)) ? 0 : -1;
    free(w);
    return rc;
#else
    return remove(path);
#endif
}

int test_setenv(const char *name, const char *value)
{
#ifdef _WIN32
    return _putenv_s(name, value);
#else
    return setenv(name, value, 1);
#endif
}

char *test_temp_dir(const char *prefix)
{
    char *path = malloc(4096);
    if (!path) return NULL;
#ifdef _WIN32
    char base[MAX_PATH + 1];
    DWORD n = GetTempPathA(sizeof base, base);
    if (n == 0 || n > MAX_PATH) base[0] = 0;
    for (unsigned k = 0; k < 1000; k++) {
        snprintf(path, 4096, "%s%s.%lu.%u", base, prefix, (unsigned long)GetCurrentProcessId(), k);
        if (_mkdir(path) == 0) return path;
    }
#else
    const char *base = getenv("TMPDIR");
    snprintf(path, 4096, "%s/%s.XXXXXX", base && *base ? base : "/tmp", prefix);
    if (mkdtemp(path)) return path;
#endif
    free(path);
    return NULL;
}

void test_run(const char *name, void (*fn)(void))
{
    current = name;
    test_failures_in_current = 0;
    double t0 = now_seconds();
    fn();
    double took = now_seconds() - t0;
    char time_note[32] = "";
    if (took >= 1.0) snprintf(time_note, sizeof time_note, " (%.1f s)", took);
    if (test_failures_in_current) {
        failed++;
        printf("[FAIL] %s (%d checks failed)%s\n", name, test_failures_in_current, time_note);
    } else {
        passed++;
        printf("[ OK ] %s%s\n", name, time_note);
    }
    fflush(stdout);
}

int test_full(void)
{
    const char *full = getenv("GANIM_FULL"), *ci = getenv("CI");
    if (full && strcmp(full, "0") == 0) return 0; /* quick even under CI (the Windows step) */
    return (full && strcmp(full, "1") == 0) || (ci && strcmp(ci, "true") == 0);
}

uint64_t test_seed(const char *name)
{
    const char *base = test_base_name(name);
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = base; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

int test_sampled(uint64_t i, uint32_t one_in)
{
    if (test_full() || one_in <= 1) return 1;
    /* A fixed hash of the index (splitmix64), so the same cases run every time and a
     * failure reproduces. */
    uint64_t z = i + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z % one_in == 0;
}

int test_finish(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : (passed ? 0 : 1);
}

int test_testdata_required(void)
{
    const char *env = getenv("GANIM_TESTDATA"), *ci = getenv("CI");
    return (env && *env) || (ci && strcmp(ci, "true") == 0);
}

/* The folder, or NULL when it is missing (reported as a failure when required). */
static const char *testdata_dir(int *missing)
{
    static char dir[4096];
    static int state; /* 0 unknown, 1 there, 2 missing */
    if (!state) {
        const char *env = getenv("GANIM_TESTDATA");
        snprintf(dir, sizeof dir, "%s", env && *env ? env : GANIM_TESTDATA_DEFAULT);
        struct stat st;
        state = stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 1 : 2;
    }
    *missing = state == 2;
    return state == 1 ? dir : NULL;
}

void test_note_skip(const char *what)
{
    int missing;
    (void)testdata_dir(&missing);
    printf("SKIPPED: %s: no test data in '%s' (set GANIM_TESTDATA=/path/to/testdata to run it)\n", what,
           GANIM_TESTDATA_DEFAULT);
    const char *log = getenv("GANIM_SKIP_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s\n", what);
        fclose(f);
    }
}

const char *test_testdata_optional(void)
{
    int missing;
    const char *dir = testdata_dir(&missing);
    if (dir || !test_testdata_required()) return dir;
    fprintf(stderr, "FATAL: test data directory '%s' is missing (GANIM_TESTDATA or CI=true requires it)\n",
            getenv("GANIM_TESTDATA") && *getenv("GANIM_TESTDATA") ? getenv("GANIM_TESTDATA") : GANIM_TESTDATA_DEFAULT);
    printf("0 passed, 1 failed\n");
    exit(1);
}

const char *test_testdata(void)
{
    const char *dir = test_testdata_optional();
    if (dir) return dir;
    char name[64] = "this program's real-sample tests";
    if (test_program_name) {
        snprintf(name, sizeof name, "%s", test_program_name);
    } else { /* Linux: the program's name */
        FILE *f = fopen("/proc/self/comm", "r");
        if (f && fgets(name, sizeof name - 16, f)) {
            name[strcspn(name, "\n")] = 0;
            strcat(name, " (every check)");
        }
        if (f) fclose(f);
    }
    test_note_skip(name);
    printf("0 passed, 0 failed, 1 skipped\n");
    exit(TEST_SKIPPED);
}

const char *test_comma_locale(int category, const char *who)
{
    static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8",  "fr_FR.UTF-8", "fr_FR.utf8",
                                         "ru_RU.UTF-8", "nl_NL.UTF-8", "de_DE",       "German_Germany.1252" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!setlocale(category, names[i])) continue;
        char probe[8]; /* one whose comma printf really writes (a C runtime may not) */
        snprintf(probe, sizeof probe, "%.1f", 0.5);
        if (strcmp(probe, "0,5") == 0) return names[i];
        setlocale(category, "C");
    }
    char what[256];
    snprintf(what, sizeof what, "%s: no locale with a decimal comma installed (de_DE, fr_FR, ...)", who);
    test_note_not_run(what);
    return NULL;
}

void test_note_not_run(const char *what)
{
    printf("SKIPPED: %s\n", what);
    const char *log = getenv("GANIM_SKIP_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s\n", what);
        fclose(f);
    }
}

const char *test_path(const char *sub, const char *name)
{
    static char ring[8][4096];
    static int next;
    char *p = ring[next++ & 7];
    snprintf(p, 4096, "%s/%s/%s", test_testdata(), sub, name);
    return p;
}

uint8_t *test_read_file(const char *path, size_t *size)
{
    FILE *f = test_fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "FATAL: cannot open '%s'\n", path);
        printf("0 passed, 1 failed\n");
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fprintf(stderr, "FATAL: cannot read '%s'\n", path);
        exit(1);
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

int test_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = test_fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(data, 1, size, f) == size;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int ends_with_ci(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    if (b > a) return 0;
    for (size_t i = 0; i < b; i++)
        if (tolower((unsigned char)s[a - b + i]) != tolower((unsigned char)suffix[i])) return 0;
    return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

char **test_list_dir(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "FATAL: cannot list '%s'\n", dir);
        printf("0 passed, 1 failed\n");
        exit(1);
    }
    size_t n = 0, cap = 16;
    char **list = malloc(cap * sizeof *list);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !ends_with_ci(e->d_name, suffix)) continue;
        if (n + 2 > cap) list = realloc(list, (cap *= 2) * sizeof *list);
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        list[n] = malloc(len);
        snprintf(list[n], len, "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    qsort(list, n, sizeof *list, cmp_str);
    list[n] = NULL;
    return list;
}

void test_free_list(char **list)
{
    if (!list) return;
    for (char **p = list; *p; p++) free(*p);
    free(list);
}

const char *test_base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

const char *test_companion(const char *path)
{
    static char found[4096];
    return ganim_find_companion(path, NULL, found, sizeof found) ? found : NULL;
}

char *test_details_json(const ganim_doc *doc, int clip, ganim_details_level level)
{
    ganim_details *d = NULL;
    ganim_error e = { 0 };
    ganim_buffer b = { 0 };
    char *json = NULL;
    if (ganim_doc_details(doc, clip, level, NULL, &d, &e) != GANIM_OK ||
        ganim_detail_json(d->root, &b, &e) != GANIM_OK) {
        test_fail(__FILE__, __LINE__, "details of clip %d: %s", clip, e.message);
    } else {
        json = malloc(b.size + 1);
        memcpy(json, b.data, b.size);
        json[b.size] = 0;
    }
    ganim_details_free(d);
    ganim_buffer_free(&b);
    return json;
}

static int has_extension_of(const ganim_format *f, const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && dot != name && ganim_format_has_extension(f, dot);
}

/* Whether `f` is the format of a file no format claims by extension: the one its probe
 * picks (as the tool picks the files of a folder: by extension, else by content). */
static int probes_as(const ganim_format *f, const char *dir, const char *name)
{
    const char *dot = strrchr(name, '.');
    if (ganim_format_for_path(name) || (dot && (!strcmp(dot, ".md") || !strcmp(dot, ".txt") || !strcmp(dot, ".json"))))
        return 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    uint8_t *buf = NULL;
    size_t size = 0, cap = 0, got;
    do {
        if (size == cap) buf = realloc(buf, cap = cap ? cap * 2 : 65536);
        got = fread(buf + size, 1, cap - size, fp);
        size += got;
    } while (got && size < ((size_t)64 << 20));
    fclose(fp);
    int score = 0;
    int yes = ganim_probe(buf, size, &score) == f && score > 0;
    free(buf);
    return yes;
}

/* Files of `dir` that are `f`'s: by extension, else by content. Appended to *list. */
static void add_files(const ganim_format *f, const char *dir, char ***list, size_t *n, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || (!has_extension_of(f, e->d_name) && !probes_as(f, dir, e->d_name))) continue;
        if (*n + 2 > *cap) *list = realloc(*list, (*cap = *cap * 2 + 16) * sizeof **list);
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        (*list)[*n] = malloc(len);
        snprintf((*list)[*n], len, "%s/%s", dir, e->d_name);
        (*n)++;
    }
    closedir(d);
}

char **test_format_files(const ganim_format *f, int which)
{
    char **list = NULL, dir[4096];
    size_t n = 0, cap = 0;
    if (which & TEST_SAMPLES) {
        const char *data = test_testdata_optional();
        if (data) {
            snprintf(dir, sizeof dir, "%s/%s", data, f->family);
            add_files(f, dir, &list, &n, &cap);
        }
    }
    if (which & TEST_FIXTURES) {
        snprintf(dir, sizeof dir, "%s/tests/data/%s", GANIM_SOURCE_DIR, f->family);
        add_files(f, dir, &list, &n, &cap);
        snprintf(dir, sizeof dir, "%s/examples", GANIM_SOURCE_DIR);
        add_files(f, dir, &list, &n, &cap);
    }
    list = realloc(list, (n + 1) * sizeof *list);
    list[n] = NULL;
    qsort(list, n, sizeof *list, cmp_str);
    return list;
}

char **test_regress_files(void)
{
    char root[1024];
    snprintf(root, sizeof root, "%s/tests/data/regress", GANIM_SOURCE_DIR);
    size_t n = 0, cap = 16;
    char **out = malloc(cap * sizeof *out);
    DIR *d = opendir(root);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char sub[2048];
        snprintf(sub, sizeof sub, "%s/%s", root, e->d_name);
        struct stat st;
        if (stat(sub, &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        char **files = test_list_dir(sub, "");
        for (char **p = files; *p; p++) {
            if (n + 2 > cap) out = realloc(out, (cap *= 2) * sizeof *out);
            out[n++] = *p;
        }
        free(files); /* the strings moved to out */
    }
    if (d) closedir(d);
    out[n] = NULL;
    qsort(out, n, sizeof *out, cmp_str);
    return out;
}
