/* Floats to text without the C library: the exact text printf's "%.*g" writes (glibc:
 * the binary value rounded to nearest, ties to even), at the smallest precision 6..9
 * that reads back (strtof) as the same float. No printf, no strtof, no locale: the
 * decimal point is always '.'. */
#ifndef GANIM_IO_NUMTEXT_H
#define GANIM_IO_NUMTEXT_H

#include <stddef.h>

/* Room enough for any float's text ("-1.17549435e-38" is 15 characters). */
#define GNUM_FLOAT_CHARS 24

/* The text of v at out (not terminated); returns its length. v must be finite
 * (callers map NaN and infinities first); -0 gives "-0". */
size_t gnum_float(char *out, float v);

/* The same text at a precision the caller chooses, 1..9 ("%.*g" exactly): for tests. */
size_t gnum_float_prec(char *out, float v, int prec);

#endif
