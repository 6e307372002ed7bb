/* src/io/json.c built a second time with GJ_GENERAL_ONLY, its functions renamed gjg_*:
 * the JSON reader without the fast paths that have a general one beside them, for the
 * tests and the fuzz harness that compare the two (test_json_general.c,
 * fuzz_json_general.c). Include it once, after "io/json.h". */
#ifndef GANIM_TESTS_JSON_GENERAL_H
#define GANIM_TESTS_JSON_GENERAL_H

#define GJ_GENERAL_ONLY 1
#define gj_parse gjg_parse
#define gj_parse_later gjg_parse_later
#define gj_get gjg_get
#define gj_is gjg_is
#define gj_string gjg_string
#define gj_bytes gjg_bytes
#define gj_number gjg_number
#define gj_float gjg_float
#define gj_float_text gjg_float_text
#define gj_uint gjg_uint
#define gj_floats gjg_floats
#include "io/json.c"
#undef gj_parse
#undef gj_parse_later
#undef gj_get
#undef gj_is
#undef gj_string
#undef gj_bytes
#undef gj_number
#undef gj_float
#undef gj_float_text
#undef gj_uint
#undef gj_floats

#endif
