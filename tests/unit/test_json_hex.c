/* The JSON dump's byte strings ("opaque_hex", a native record's "hex"): two lowercase hex
 * digits a byte, against snprintf("%02x"), for every byte value and for records long
 * enough to cross the dump's 128-byte pieces (0, 1, 127, 128, 129, 700 bytes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "support/tjson.h"
#include "test.h"

static void check_hex(const tjson *v, const uint8_t *bytes, size_t n)
{
    char *want = malloc(2 * n + 1);
    CHECK(want != NULL);
    if (!want) return;
    want[0] = 0;
    for (size_t i = 0; i < n; i++) snprintf(want + 2 * i, 3, "%02x", bytes[i]);
    CHECK_EQ_STR(tjson_str(v, "(missing)"), want);
    free(want);
}

TEST(hex_every_byte)
{
    static const size_t sizes[] = { 0, 1, 127, 128, 129, 256, 700 };
    uint8_t bytes[700];
    uint64_t s = test_seed("json_hex");
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        size_t n = sizes[z];
        for (size_t i = 0; i < n; i++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            bytes[i] = (uint8_t)(i < 256 ? 255 - i : s >> 56); /* every value once, then random */
        }
        ganim_doc *doc = NULL;
        CHECK_OK(ganim_doc_new(NULL, &doc, NULL));
        ganim_clip op = { 0 };
        op.name = "raw";
        op.kind = GANIM_CLIP_OPAQUE;
        op.opaque = n ? bytes : NULL;
        op.opaque_size = n;
        CHECK_OK(ganim_doc_add_clip(doc, &op, NULL, NULL));
        doc->native_format = "fake";
        doc->native = ganim_doc_memdup(doc, bytes, n ? n : 1);
        doc->native_size = n;
        ganim_buffer out = { 0 };
        CHECK_OK(ganim_export_json(doc, NULL, &out, NULL));
        char err[128] = "";
        tjson *j = tjson_parse((const char *)out.data, out.size, err, sizeof err);
        CHECK_MSG(j != NULL, "output does not parse: %s", err);
        if (j) {
            const tjson *clip = tjson_at(tjson_get(j, "clips"), 0);
            if (n) check_hex(tjson_get(clip, "opaque_hex"), bytes, n);
            check_hex(tjson_get(tjson_get(j, "native_record"), "hex"), bytes, n);
            CHECK_EQ_INT(tjson_int(tjson_get(tjson_get(j, "native_record"), "size"), -1), (long long)n);
        }
        tjson_free(j);
        ganim_buffer_free(&out);
        ganim_doc_free(doc);
    }
}

int main(void)
{
    RUN(hex_every_byte);
    return test_finish();
}
