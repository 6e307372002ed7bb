/* Replays the generic fuzz harness (fuzz_format.c) without libFuzzer, so every build
 * runs it: for each readable format, every real sample of its family and every fixture
 * of the project's own goes through LLVMFuzzerTestOneInput with GANIM_FUZZ_FORMAT set
 * to that format. A crash, sanitizer report or abort fails the test. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(void)
{
    test_program_name = "fuzz_format_replay (real samples)";
    size_t count, files = 0;
    const ganim_format *const *all = ganim_formats(&count);
    int have_samples = test_testdata_optional() != NULL;
    for (size_t i = 0; i < count; i++) {
        const ganim_format *f = all[i];
        if (!(f->flags & GANIM_FORMAT_READ)) continue;
        test_setenv("GANIM_FUZZ_FORMAT", f->name);
        char **list = test_format_files(f, TEST_SAMPLES | TEST_FIXTURES);
        size_t n = 0;
        for (char **p = list; *p; p++, n++) {
            size_t size;
            uint8_t *data = test_read_file(*p, &size);
            LLVMFuzzerTestOneInput(data, size);
            free(data);
        }
        printf("  %-14s %3zu files\n", f->name, n);
        files += n;
        test_free_list(list);
    }
    /* the findings kept in tests/data/regress, through every format */
    test_setenv("GANIM_FUZZ_FORMAT", ""); /* empty: every format */
    char **kept = test_regress_files();
    for (char **p = kept; *p; p++, files++) {
        size_t size;
        uint8_t *data = test_read_file(*p, &size);
        LLVMFuzzerTestOneInput(data, size);
        free(data);
    }
    test_free_list(kept);
    if (!have_samples) test_note_skip("fuzz_format_replay on the real samples (fixtures replayed)");
    printf("replayed %zu files\n%zu passed, 0 failed\n", files, files);
    return files ? 0 : 1;
}
