/* A program outside the project that uses an installed ganim: built by
 * tests/install/run.sh through pkg-config and through find_package(ganim). Prints
 * "consumer ok <version>" and exits 0 when the library answers as documented. */
#include <ganim.h>

#include <stdio.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "consumer: FAIL %s\n", what);
        failures++;
    }
}

int main(void)
{
    printf("consumer: ganim %s\n", GANIM_VERSION_STRING);
    check(ganim_version() == GANIM_VERSION_NUMBER, "ganim_version() is the header's version");
    check(strcmp(ganim_version_string(), GANIM_VERSION_STRING) == 0, "ganim_version_string()");

    size_t n = 0;
    const ganim_format *const *formats = ganim_formats(&n);
    check(formats != NULL && n > 0, "ganim_formats lists formats");
    for (size_t i = 0; formats != NULL && i < n; i++)
        check(formats[i] != NULL && formats[i]->name != NULL && formats[i]->name[0] != '\0', "every format has a name");

    const char *name = ganim_code_name(GANIM_ERR_TRUNCATED);
    check(name != NULL && name[0] != '\0', "ganim_code_name(GANIM_ERR_TRUNCATED)");

    /* A few bytes no reader claims. */
    static const unsigned char junk[] = "not an animation";
    ganim_doc *doc = NULL;
    ganim_error err;
    memset(&err, 0, sizeof err);
    ganim_code code = ganim_read_memory(junk, sizeof junk - 1, NULL, &doc, &err);
    check(code == GANIM_ERR_UNKNOWN_FORMAT, "ganim_read_memory refuses junk as unknown format");
    check(err.code == code, "the error struct carries the code");
    check(err.message[0] != '\0', "the error struct carries a message");
    if (doc != NULL) ganim_doc_free(doc);

    if (failures != 0) return 1;
    printf("consumer ok %s\n", GANIM_VERSION_STRING);
    return 0;
}
