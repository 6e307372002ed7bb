/* Decimal text to binary floating point, correctly rounded and independent of the C
 * locale (strtod reads "0.5" as 0 where the decimal point is a comma). Used by the text
 * formats (glTF's JSON, BVH): a number that ganim or any shortest-round-trip printer
 * wrote reads back as the very float or double that was printed.
 *
 * A number is scanned once into its decimal digits (gdec_scan), then rounded to the
 * nearest double or float, ties to even (gdec_double, gdec_float): an estimate in
 * double arithmetic is corrected by exact big-integer comparisons with the midpoints
 * between neighbouring binary values. Up to GDEC_DIGITS significant digits are kept,
 * which is enough for correct rounding of any input; further digits only count as
 * "non-zero tail". Exponents beyond +-100000 saturate. */
#ifndef GANIM_IO_DECIMAL_H
#define GANIM_IO_DECIMAL_H

#include <stddef.h>

#define GDEC_DIGITS 800

typedef struct gdec {
    char digit[GDEC_DIGITS]; /* significant digits, values 0..9, no leading zero */
    int count;               /* digits kept (0: the value is zero) */
    int exp10;               /* value = 0.d1 d2 ... dn x 10^exp10 */
    int negative;
    int tail; /* non-zero digits were dropped after the kept ones */
} gdec;

/* Grammars: JSON (no '+', no leading zeros, digits on both sides of the point) or the
 * C-like one BVH files use ('+', ".5", "5.", leading zeros allowed). */
#define GDEC_JSON 0
#define GDEC_LENIENT 1

/* Scans a number at s[0..len): the characters used, or 0 when s does not start with a
 * number of the grammar. Never reads beyond len. */
size_t gdec_scan(const char *s, size_t len, int grammar, gdec *d);
/* The nearest double / float (infinite beyond the range, signed zero below it). */
double gdec_double(const gdec *d);
float gdec_float(const gdec *d);

#endif
