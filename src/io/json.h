/* A bounded JSON reader for the text formats (glTF). The whole text becomes a tree of
 * values allocated from the caller's arena; errors carry the byte offset and say what
 * was expected. Strict RFC 8259 grammar (no comments, no trailing commas, no NaN), with
 * two allowances real files need: a UTF-8 byte order mark before the text and NUL bytes
 * after it (padding). Nesting is limited; numbers are rounded exactly (decimal.h), and
 * gj_float re-reads a number's own text so floats are exact too (no double rounding).
 * Memory is bounded: a value takes 32 bytes, repeated member names and short strings
 * (up to 64 bytes, no escapes) are stored once,
 * members the caller does not read (gj_parser.keep) are checked but not stored, members it
 * reads later (gj_parser.later) are checked and stored as their text, strings
 * the caller asks to borrow (gj_parser.lend) point into the text when they hold no escape,
 * and the tree with the parser's stack may take at most gj_parser.max_bytes. */
#ifndef GANIM_IO_JSON_H
#define GANIM_IO_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "ganim.h"

/* GJ_LATER: a member the caller asked to parse later (gj_parser.later): checked as JSON,
 * stored as its text; gj_parse_later makes it a tree. GJ_RECORDS: an array read as
 * records (gj_records with depth 2): its objects' fields in `set`. */
typedef enum gj_type {
    GJ_NULL = 0,
    GJ_FALSE,
    GJ_TRUE,
    GJ_NUMBER,
    GJ_STRING,
    GJ_ARRAY,
    GJ_OBJECT,
    GJ_LATER,
    GJ_RECORDS
} gj_type;
struct gj_recset;

typedef struct gj_value {
    const char *key; /* member name inside an object (NUL-terminated), else NULL */
    union {
        const char *text;             /* STRING: the decoded bytes, NUL-terminated unless lent; NUMBER,
                                       * LATER: its text */
        const struct gj_value *items; /* ARRAY, OBJECT: the members in order */
        const struct gj_recset *set;  /* RECORDS: the objects' fields */
    };
    uint64_t offset; /* where the value starts in the file */
    uint32_t count;  /* ARRAY, OBJECT, RECORDS: members; STRING: bytes; NUMBER, LATER: text length */
    uint8_t type;    /* gj_type */
    uint8_t lent;    /* STRING: text is the JSON text's own bytes, not NUL-terminated (gj_parser.lend) */
    uint8_t depth;   /* LATER: how deep it is nested (the root value: 0) */
} gj_value;

/* Memory that lives as long as the tree (NULL: out of memory); it need not be zeroed: the
 * parser writes every byte it reads back. */
typedef void *(*gj_alloc_fn)(void *user, size_t size);

/* A member's array of objects read as records (gj_parser.records) instead of a tree: of
 * each object, the members named names[0..fields) as fields (where the value is in the
 * text), nothing else stored. A name "a.b" is the member b of the object that is the
 * member a (itself a field: its type GJ_OBJECT, its `count` its members): one nesting, of
 * plain members. The parser tries it only on an array of objects whose members are all
 * plain (no escapes) and whose named members hold a number, a string, true, false or null
 * (each at most once; or an object of such members, for an "a." field; or, for a field of
 * `spans`, any object or array without escapes); anything else is
 * read as a tree, as without records.
 * depth 0: the root member `key` (its first occurrence); on success it is a GJ_LATER value
 * (its text), never to be given to gj_parse_later, and `set` holds the records.
 * depth 2: the member `key` of every object that is an array's item two deep (glTF: an
 * animation's); each one read so is a GJ_RECORDS value (its `set`).
 * The bytes it charges against max_bytes are at least those the tree would have charged
 * here and after (a bound, not the count): a parse with records that fails may fail
 * elsewhere than one without, and its caller reads the text again without them; one that
 * succeeds succeeds without them too, with the same values everywhere else. */
#define GJ_RECORD_FIELDS 8u
#define GJ_ABSENT 0xFFu
typedef struct gj_field {
    uint32_t at;    /* the value's first byte in the text (a string: its opening quote) */
    uint32_t count; /* a number's text length, a string's bytes, an object's members */
    uint8_t type;   /* GJ_NULL .. GJ_OBJECT, or GJ_ABSENT */
} gj_field;
typedef struct gj_recset {
    uint32_t count;        /* objects */
    const uint32_t *at;    /* each object's '{' in the text */
    const gj_field *field; /* count x fields (object i's field j: field[i * fields + j]), in the arena */
} gj_recset;
typedef struct gj_records {
    const char *key;          /* the member */
    const char *const *names; /* the members kept as fields */
    unsigned fields;          /* <= GJ_RECORD_FIELDS */
    unsigned depth;           /* 0 or 2 (above) */
    /* Fields (bit j: names[j]) whose value may also be an object or an array of any
     * JSON without escapes, nested within max_depth: then kept as its text (type
     * GJ_LATER, `at` its first byte, `count` its bytes), which gj_parse_later makes the
     * tree gj_parse would have stored (a GJ_LATER gj_value with that text, offset, the
     * member's depth and name); the bytes charged are a bound of that tree's. */
    unsigned spans;
    int met, done; /* out: the member was met; it was read as records (depth 2: once at least) */
    gj_recset set; /* out (depth 0): the records */
} gj_records;

typedef struct gj_parser {
    gj_alloc_fn alloc; /* the tree's arena */
    void *alloc_user;
    const ganim_allocator *scratch; /* for the parser's own stack, freed before it returns */
    unsigned max_depth;             /* arrays and objects nested deeper are refused */
    const char *who;                /* message prefix, e.g. "gltf: JSON" */
    uint64_t base;                  /* file offset of text[0] */
    /* Bytes the tree and the parser's stack may take together (0: no bound but the
     * arena's); more is GANIM_ERR_LIMIT, whose message ends with `limit_name`. */
    size_t max_bytes;
    const char *limit_name;
    /* When set, writes the limit's name into out (size bytes, NUL-terminated) in place of
     * limit_name, only when the limit is passed: a name built from numbers costs the read
     * nothing until it is needed. */
    void (*name_limit)(const void *user, char *out, size_t size);
    const void *name_limit_user;
    /* Whether to store the member `key` of an object nested `depth` deep (the root
     * object: 0) that is itself the member `parent` of an object (NULL: the root, an
     * array's item). 0: the member is checked as JSON but not stored. NULL: keep all. */
    int (*keep)(unsigned depth, const char *parent, const char *key);
    /* Whether a kept member (the same arguments) that is a string without escapes may be
     * the text's own bytes instead of a copy (they must outlive the tree; read them with
     * gj_bytes: gj_string refuses them, having no NUL). NULL: every string is copied. */
    int (*lend)(unsigned depth, const char *parent, const char *key);
    /* Whether a kept member (the same arguments) is to be parsed later: it is checked as
     * JSON now (every error where it would be) but stored as one GJ_LATER value, which
     * gj_parse_later makes a tree when the caller needs it (into memory it may give back
     * sooner than the rest of the tree). NULL: none. */
    int (*later)(unsigned depth, const char *parent, const char *key);
    /* Bytes counted against max_bytes before this parse begins (those of a tree still in
     * use); when `charged` is not NULL, a parse that succeeds leaves there that count plus
     * its tree's bytes (not its stack's, given back). */
    size_t used;
    size_t *charged;
    /* 1: every member name read the long way, not found where the last object at its depth
     * had it (the same tree, bytes and errors: for tests that compare the two). */
    int no_shapes;
    /* Members to read as records (gj_records; met and done cleared by the caller), and
     * how many; NULL: none. Only for texts of less than 4 GiB. */
    gj_records *records;
    unsigned record_kinds;
} gj_parser;

/* Parses text[0..size) into *out. Errors: GANIM_ERR_TRUNCATED when the text ends inside a
 * value, GANIM_ERR_CORRUPT for anything else that is not JSON, GANIM_ERR_LIMIT for the
 * nesting and max_bytes, GANIM_ERR_NOMEM. */
ganim_code gj_parse(const gj_parser *p, const uint8_t *text, size_t size, const gj_value **out, ganim_error *err);

/* Makes the GJ_LATER value `later` (from gj_parse with the same text and the same p, but
 * for `used`) a tree in *out, as gj_parse would have stored it: the same values, offsets,
 * keep and lend; only GANIM_ERR_LIMIT (max_bytes, counted from p->used) and
 * GANIM_ERR_NOMEM can happen, the text having been checked. */
ganim_code gj_parse_later(const gj_parser *p, const gj_value *later, const gj_value **out, ganim_error *err);

/* Whether the NUL-terminated names a and b are the same. Member names are short: compared
 * by this loop where the parser and the readers ask, not through strcmp's call. */
static inline int gj_same_name(const char *a, const char *b)
{
    size_t j = 0;
    while (a[j] == b[j] && a[j]) j++;
    return a[j] == b[j];
}

/* The member `key` of an object (the first one when the text repeats it), or NULL when
 * v is not an object or has none. */
const gj_value *gj_get(const gj_value *v, const char *key);
/* Typed views; they return 0 when the value has another type or does not fit. */
int gj_is(const gj_value *v, gj_type type);
int gj_string(const gj_value *v, const char **s);           /* a STRING that is not lent */
int gj_bytes(const gj_value *v, const char **s, size_t *n); /* any STRING: its bytes and length */
int gj_number(const gj_value *v, double *d);                /* any finite NUMBER */
int gj_float(const gj_value *v, float *f);                  /* a NUMBER, rounded once to float32 */
int gj_uint(const gj_value *v, uint64_t max, uint64_t *u);  /* an integral NUMBER in 0..max */
/* gj_float of a NUMBER whose text is t[0..n) (n >= 1; a number's text as the parse took
 * it): gj_float(v, f) is v && v->type == GJ_NUMBER && gj_float_text(v->text, v->count, f). */
int gj_float_text(const char *t, uint32_t n, float *f);
/* The decimal digits at the start of t[0..most) (most at most 19: no overflow): how many
 * (0 to most), their value in *v. The one digit conversion of the readers' whole numbers
 * (gj_uint_digits below; a reader that scans a run of digits of its own). */
static inline uint32_t gj_digit_run(const char *t, uint32_t most, uint64_t *v)
{
    uint64_t n = 0;
    uint32_t i = 0;
    for (; i < most; i++) {
        unsigned d = (unsigned)(unsigned char)t[i] - '0';
        if (d > 9) break;
        n = n * 10 + d;
    }
    *v = n;
    return i;
}
/* gj_uint's usual case in the caller: the token t of `count` bytes (a NUMBER's text, as the
 * parser took it: no leading zero) of 1 to 15 digits is its own exact value: 1 (in *u) when
 * it is at most max, else 0; -1 when the token is not such (then gj_uint decides). */
static inline int gj_uint_digits(const char *t, uint32_t count, uint64_t max, uint64_t *u)
{
    uint64_t n;
    if (count < 1 || count > 15 || gj_digit_run(t, count, &n) != count) return -1;
    if (n > max) return 0;
    *u = n;
    return 1;
}
/* gj_uint, its usual case inline (for the readers' hot look-ups: no call) */
static inline int gj_uint_inline(const gj_value *v, uint64_t max, uint64_t *u)
{
    if (v && v->type == GJ_NUMBER) {
        int r = gj_uint_digits(v->text, v->count, max, u);
        if (r >= 0) return r;
    }
    return gj_uint(v, max, u);
}
/* An array of exactly n numbers as float32, or 0. */
int gj_floats(const gj_value *v, float *out, uint32_t n);

#endif
