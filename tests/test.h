/* Minimal test harness: each test program is a list of TEST functions run from main().
 * Every failed CHECK prints file:line and the values; the program ends with a line
 * "N passed, N failed" and exits non-zero if anything failed. */
#ifndef GANIM_TEST_H
#define GANIM_TEST_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ganim.h"

extern int test_failures_in_current;  /* failed checks in the running test */
extern const char *test_program_name; /* set by a program's main for skip notes (may stay NULL) */

void test_fail(const char *file, int line, const char *fmt, ...);
void test_run(const char *name, void (*fn)(void));
int test_finish(void); /* prints the summary, returns the exit status */

/* Exhaustive sweeps run whole under CI=true or GANIM_FULL=1 (test_full) and sampled
 * otherwise (and with GANIM_FULL=0, even under CI=true), so that `make check` stays quick: test_sampled(i, n) keeps case i with
 * probability 1/n by a fixed hash of i (always 1 in full mode), so a failing case runs
 * again on the next run. */
int test_full(void);
int test_sampled(uint64_t i, uint32_t one_in);
/* A fixed number from a name (FNV-1a), to give each file of a sweep its own sample. */
uint64_t test_seed(const char *name);

/* The shared real test files: $GANIM_TESTDATA, or the build's default folder.
 * They are required when GANIM_TESTDATA is set or CI=true: then a missing folder fails
 * the program. Otherwise (a user who cloned ganim alone) tests that need them skip:
 *   test_testdata()           the folder; when missing and not required, notes the
 *                             skip and ends the program with TEST_SKIPPED
 *   test_testdata_optional()  the folder, or NULL when missing and not required
 *   test_note_skip(what)      says what did not run (stdout and $GANIM_SKIP_LOG) */
#define TEST_SKIPPED 77 /* ctest's SKIP_RETURN_CODE */
int test_testdata_required(void);
const char *test_testdata(void);
const char *test_testdata_optional(void);
void test_note_skip(const char *what);
/* Says `what` did not run on this machine (stdout and $GANIM_SKIP_LOG), for reasons other
 * than missing test data. */
void test_note_not_run(const char *what);
/* Sets `category` (LC_ALL, LC_NUMERIC, ...) to a locale whose decimal point is a comma
 * (de_DE, fr_FR, ...: ctest makes a de_DE one with localedef and LOCPATH where it can; one
 * printf must really write "0,5" in) and returns its name; NULL, with `who` noted as not run (stdout and $GANIM_SKIP_LOG), when
 * the machine has none. */
const char *test_comma_locale(int category, const char *who);
/* A format's files (NULL-terminated, sorted, malloc'd; free with test_free_list): those
 * with one of its extensions and, as the tool picks files in a folder, those no format
 * claims by extension whose probe picks it (Argonaut's bare .bin blocks): TEST_SAMPLES
 * from <testdata>/<family>/, TEST_FIXTURES the project's own from tests/data/<family>/
 * and examples/. */
#define TEST_SAMPLES 1
#define TEST_FIXTURES 2
char **test_format_files(const ganim_format *f, int which);
/* Every minimised fuzz finding kept in tests/data/regress/<family or harness>/ (sorted,
 * NULL-terminated, malloc'd; free with test_free_list). */
char **test_regress_files(void);

/* The little the tests ask of the system, the same on POSIX and Windows (test.c):
 * a new empty folder under the system's temporary folder, named after `prefix`
 * (malloc'd path, NULL on failure); mkdir and fopen of UTF-8 paths (on Windows through
 * the wide-character calls, as the library opens them); setenv. */
char *test_temp_dir(const char *prefix);
int test_mkdir(const char *path);
FILE *test_fopen(const char *path, const char *mode);
int test_remove(const char *path); /* a file or an empty folder; 0 on success */
int test_setenv(const char *name, const char *value);

/* "<testdata>/<sub>/<name>" in a static buffer ring (8 entries). */
const char *test_path(const char *sub, const char *name);
/* Whole file into malloc'd memory; exits with a failure if unreadable. */
uint8_t *test_read_file(const char *path, size_t *size);
/* Writes `size` bytes to `path` (replaced): 0, or -1 when it cannot. */
int test_write_file(const char *path, const void *data, size_t size);
/* Files in `dir` whose name ends with `suffix` (case-insensitive), sorted; malloc'd
 * array of malloc'd full paths, NULL-terminated. Fails the program if dir is missing. */
char **test_list_dir(const char *dir, const char *suffix);
void test_free_list(char **list);
/* The file name part of a path. */
const char *test_base_name(const char *path);
/* The companion skeleton file of a sample by its format's rule (ganim_find_companion),
 * in a static buffer, or NULL. */
const char *test_companion(const char *path);

/* The format's details of a document (clip < 0) or clip as JSON: a malloc'd string,
 * "null" when the format says nothing; NULL (and a failed check) on error. */
char *test_details_json(const ganim_doc *doc, int clip, ganim_details_level level);

/* Write options with one format option set (value NULL: none); they point into `s`. */
static inline ganim_write_opts test_write_setting(ganim_setting *s, const char *name, const char *value)
{
    ganim_write_opts wo;
    memset(&wo, 0, sizeof wo);
    s->name = name;
    s->value = value;
    if (value) {
        wo.settings = s;
        wo.setting_count = 1;
    }
    return wo;
}

#define TEST(name) static void name(void)
#define RUN(name) test_run(#name, name)

#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond)) test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); \
    } while (0)
#define CHECK_MSG(cond, ...)                                     \
    do {                                                         \
        if (!(cond)) test_fail(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)
#define CHECK_EQ_INT(a, b)                                                                     \
    do {                                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                                    \
        if (a_ != b_) test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_); \
    } while (0)
#define CHECK_EQ_STR(a, b)                                                                          \
    do {                                                                                            \
        const char *a_ = (a), *b_ = (b);                                                            \
        if (!a_ || !b_ || strcmp(a_, b_))                                                           \
            test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)", \
                      b_ ? b_ : "(null)");                                                          \
    } while (0)
#define CHECK_NEAR(a, b, tol)                                                                               \
    do {                                                                                                    \
        double a_ = (double)(a), b_ = (double)(b);                                                          \
        if (!(fabs(a_ - b_) <= (tol)))                                                                      \
            test_fail(__FILE__, __LINE__, "%s ~ %s: %.9g vs %.9g (tol %g)", #a, #b, a_, b_, (double)(tol)); \
    } while (0)
#define CHECK_OK(call)                                                                          \
    do {                                                                                        \
        ganim_error e_ = { 0 };                                                                 \
        (void)e_;                                                                               \
        ganim_code c_ = (call);                                                                 \
        if (c_ != GANIM_OK) test_fail(__FILE__, __LINE__, "%s failed: %s", #call, "see error"); \
    } while (0)

#endif
