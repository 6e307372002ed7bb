/* Replays files through a libFuzzer harness without libFuzzer (gcc builds, CI):
  *   fuzz_<name>_replay FILE|DIR...   each file (or each file of a directory, except
 *   .txt/.json/.md notes) is passed whole to LLVMFuzzerTestOneInput. An argument
 *   testdata:SUB names SUB in the test data folder ($GANIM_TESTDATA, else
 *   $GANIM_TESTDATA_DEFAULT, the build's ../shared/testdata). A missing folder is
 *   skipped unless GANIM_TESTDATA is set or CI=true; nothing at all to replay exits 77
 *   (skipped). Used for the family harnesses (tests/formats/<family>/fuzz_*.c). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    if (!buf || (len > 0 && fread(buf, 1, (size_t)len, f) != (size_t)len)) {
        fclose(f);
        free(buf);
        return -1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)len);
    free(buf);
    return 0;
}

static int is_note(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && (!strcmp(dot, ".txt") || !strcmp(dot, ".json") || !strcmp(dot, ".md"));
}

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        char where[4096];
        if (strncmp(argv[i], "testdata:", 9) == 0) {
            const char *env = getenv("GANIM_TESTDATA"), *def = getenv("GANIM_TESTDATA_DEFAULT");
            const char *dir = env && *env ? env : def && *def ? def : "../shared/testdata";
            snprintf(where, sizeof where, "%s/%s", dir, argv[i] + 9);
            argv[i] = where;
        }
        if (stat(argv[i], &st) != 0) {
            const char *env = getenv("GANIM_TESTDATA"), *ci = getenv("CI");
            if (!(env && *env) && !(ci && strcmp(ci, "true") == 0)) { /* samples are optional */
                printf("SKIPPED: %s is missing (set GANIM_TESTDATA to replay the real samples)\n", argv[i]);
                continue;
            }
            fprintf(stderr, "cannot open %s\n", argv[i]);
            printf("0 passed, 1 failed\n");
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i]) != 0) return 1;
            n++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.' || is_note(e->d_name)) continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (replay_file(path) != 0) return 1;
            n++;
        }
        if (d) closedir(d);
    }
    printf("replayed %d inputs\n", n);
    printf("%d passed, 0 failed\n", n);
    return n ? 0 : 77; /* nothing to replay: skipped */
}
