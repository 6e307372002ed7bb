/* Does a document read back from what ganim wrote agree with what was written? Shared by
 * the writer test (tests/unit/test_writers.c) and the round-trip fuzz harness
 * (fuzz_roundtrip.c); plain C on the public API.
 *
 * Clips are compared frame by frame (each at its own rate: a format that stores no rate
 * reads back at its default): every rotation within 3 degrees, every translation and scale
 * within 0.51 plus 0.1 % of the value and of the clip's range on that axis. The bounds hold
 * every format's quantisation (FF7 angles in steps of up to 1.4 degrees and whole-unit
 * positions, Argonaut's 1/4096 and whole units, ALA's 65536 steps of a range) and catch
 * what is not quantisation: a wrong axis, sign, overflow or bone. With the same hierarchy
 * bone is compared with bone; when the format read back has none (every bone a root),
 * the written bones' model-space transforms are compared with it (bones under a
 * non-uniform scale, whose model-space transform is skewed, are left out). A channel the
 * format read back does not have is not compared: the writer reports such losses. A
 * format whose files are in other axes than the document (Alamo's Z up, FF7's Y down)
 * gets the document turned to them: the written root bones are turned the same way before
 * they are compared. */
#ifndef GANIM_TESTS_ROUNDTRIP_CHECK_H
#define GANIM_TESTS_ROUNDTRIP_CHECK_H

#include <stddef.h>

#include "ganim.h"

typedef struct rt_stats {
    long long values; /* values compared */
} rt_stats;

/* 1 when `back` (read from what was written for `doc` in `format`) agrees with `doc`,
 * else 0 with a sentence in `why`. */
int rt_agree(const ganim_doc *doc, const ganim_doc *back, const ganim_format *format, rt_stats *stats, char *why,
             size_t why_size);

/* Reads what was written for `doc` in `format` back as a user does: as that format, with
 * the document's skeleton (a companion format without one). FF7's split (ff7-battle: n
 * clips without FF7 records that move body bones and the weapon are written as n body
 * entries, then n weapon entries, and the writer says the ??aa must have nsSkeletonAnims
 * n and nsWeaponsAnims n) is read back as the writer says: with the document's skeleton
 * given such a record when its own does not say those counts (ganim writes no ??aa; the
 * user edits theirs). rt_agree then compares body entry k and weapon entry n + k each
 * with clip k. Returns ganim_read_memory's code. */
ganim_code rt_read_back(const ganim_doc *doc, const uint8_t *data, size_t size, const ganim_format *format,
                        ganim_doc **back, ganim_error *err);

#endif
