/* Replays a whole-input libFuzzer harness (fuzz_roundtrip.c, fuzz_resample_export.c)
 * without libFuzzer, so every build runs it: every real sample and every fixture of
 * every readable format (each file once), then every minimised finding kept in
 * tests/data/regress/, go through LLVMFuzzerTestOneInput. A crash, sanitizer report or
 * abort fails the test. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "test.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replay(const char *path)
{
    size_t size;
    uint8_t *data = test_read_file(path, &size);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 1;
}

int main(void)
{
    test_program_name = "fuzz replay (real samples)";
    size_t count, files = 0;
    const ganim_format *const *all = ganim_formats(&count);
    char **seen[64];
    size_t nseen = 0;
    for (size_t i = 0; i < count && nseen < 64; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_READ)) continue;
        char **list = test_format_files(all[i], TEST_SAMPLES | TEST_FIXTURES);
        for (char **p = list; *p; p++) {
            int dup = 0; /* a file two formats claim (by probe) is replayed once */
            for (size_t k = 0; k < nseen && !dup; k++)
                for (char **q = seen[k]; *q && !dup; q++) dup = strcmp(*q, *p) == 0;
            if (!dup) files += replay(*p);
        }
        seen[nseen++] = list;
    }
    for (size_t k = 0; k < nseen; k++) test_free_list(seen[k]);
    size_t regress = 0;
    char **kept = test_regress_files();
    for (char **p = kept; *p; p++) regress += replay(*p);
    test_free_list(kept);
    if (!test_testdata_optional()) test_note_skip("fuzz replays on the real samples (fixtures replayed)");
    printf("replayed %zu files and %zu regression inputs\n%zu passed, 0 failed\n", files, regress, files + regress);
    return files ? 0 : 1;
}
