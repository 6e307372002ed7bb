/* A small strict JSON DOM parser for tests (RFC 8259): objects (keys kept in order),
 * arrays, numbers (as double, and as exact int64 when written as an integer), strings
 * (escapes decoded to UTF-8), true/false/null. Not for library code. */
#ifndef GANIM_TESTS_TJSON_H
#define GANIM_TESTS_TJSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum tjson_type {
    TJSON_NULL = 0,
    TJSON_BOOL,
    TJSON_NUMBER,
    TJSON_STRING,
    TJSON_ARRAY,
    TJSON_OBJECT
} tjson_type;

typedef struct tjson {
    tjson_type type;
    int boolean;         /* TJSON_BOOL */
    double number;       /* TJSON_NUMBER */
    int is_integer;      /* the literal had no fraction/exponent and fits int64 */
    int64_t integer;     /* exact value when is_integer */
    char *string;        /* TJSON_STRING: NUL-terminated (may contain NULs: see len) */
    size_t len;          /* string bytes */
    size_t count;        /* array items or object members */
    struct tjson *items; /* array items / object values */
    char **keys;         /* object keys (count of them) */
} tjson;

/* Parses the whole text (trailing whitespace only). NULL on error, with a message
 * "line L col C: what" in err (may be NULL). Free with tjson_free. */
tjson *tjson_parse(const char *text, size_t len, char *err, size_t err_size);
/* Parses a file. */
tjson *tjson_parse_file(const char *path, char *err, size_t err_size);
void tjson_free(tjson *v);

/* Member of an object, or NULL (also when v is not an object). */
const tjson *tjson_get(const tjson *v, const char *key);
/* Item i of an array, or NULL. */
const tjson *tjson_at(const tjson *v, size_t i);
/* Conveniences: the value, or `fallback` when missing / of another type. */
int64_t tjson_int(const tjson *v, int64_t fallback);
double tjson_num(const tjson *v, double fallback);
const char *tjson_str(const tjson *v, const char *fallback);

#endif
