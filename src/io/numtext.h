/* Floats and doubles to text without the C library: the exact text printf's "%.*g"
 * writes (glibc: the binary value rounded to nearest, ties to even), at the smallest
 * precision from 6 that reads back (strtof, strtod) as the same value. No printf, no
 * strtof or strtod, no locale: the decimal point is always '.'. */
#ifndef GANIM_IO_NUMTEXT_H
#define GANIM_IO_NUMTEXT_H

#include <stddef.h>

/* Room enough for any float's text ("-1.17549435e-38" is 15 characters), and the room
 * gnum_float and gnum_float_prec need at `out`: they store their digits in fixed-size
 * pieces, so bytes past the text's end (up to out + GNUM_FLOAT_CHARS) may be written. */
#define GNUM_FLOAT_CHARS 24

/* The text of v at out (GNUM_FLOAT_CHARS bytes of room; not terminated); returns its
 * length. v must be finite (callers map NaN and infinities first); -0 gives "-0". */
size_t gnum_float(char *out, float v);

/* The same text at a precision the caller chooses, 1..9 ("%.*g" exactly): for tests. */
size_t gnum_float_prec(char *out, float v, int prec);

/* Doubles likewise: "%.*g" at the smallest precision 6..17 that reads back (strtod) as v. */
#define GNUM_DOUBLE_CHARS 32 /* "-2.2250738585072014e-308" is 24 characters */
size_t gnum_double(char *out, double v);
/* "%.*g" exactly at a precision 1..17 (gx_g9 writes %.9g; the tests every precision). */
size_t gnum_double_prec(char *out, double v, int prec);

#endif
