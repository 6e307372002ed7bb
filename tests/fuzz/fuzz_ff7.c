/* libFuzzer harness for the FF7 battle readers. The first byte picks the target:
 *   0: ??aa skeleton reader on the rest;
 *   1: ??da pack reader without a skeleton;
 *   2: skeleton of 52 + 12 * (byte 1 % 32) bytes from the input, then the pack after it.
 * Whatever reads also gets described, written, re-read and resampled. */
#include <stdint.h>
#include <string.h>

#include "ganim.h"

static void exercise(ganim_doc *doc, const ganim_skeleton *sk)
{
    ganim_error e;
    ganim_buffer b;
    memset(&b, 0, sizeof b);
    for (int m = 0; m < 2; m++) {
        for (int i = -1; i < (int)doc->clip_count && i < 8; i++) {
            ganim_details *d = NULL;
            if (ganim_doc_details(doc, i, (ganim_details_level)m, NULL, &d, &e) == GANIM_OK) {
                (void)ganim_detail_json(d->root, &b, &e);
                ganim_details_free(d);
            }
        }
    }
    ganim_buffer_free(&b);
    memset(&b, 0, sizeof b);
    if (ganim_write(doc, "ff7-battle", NULL, &b, &e) == GANIM_OK) {
        ganim_read_opts o;
        memset(&o, 0, sizeof o);
        o.format = "ff7-battle";
        o.skeleton = sk;
        ganim_doc *back = NULL;
        if (ganim_read_memory(b.data, b.size, &o, &back, &e) == GANIM_OK) ganim_doc_free(back);
    }
    ganim_buffer_free(&b);
    ganim_doc_resample(doc, 2, &e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    ganim_read_opts o;
    memset(&o, 0, sizeof o);
    o.memory_limit = 64u << 20;
    ganim_error e;
    ganim_doc *sdoc = NULL, *doc = NULL;
    int mode = data[0] % 3;
    data++, size--;
    if (mode == 0) {
        o.format = "ff7-skeleton";
        if (ganim_read_memory(data, size, &o, &doc, &e) == GANIM_OK) ganim_doc_free(doc);
        return 0;
    }
    if (mode == 2) {
        if (size < 1) return 0;
        size_t sk = 52 + 12 * (size_t)(data[0] % 32);
        data++, size--;
        if (size < sk) return 0;
        o.format = "ff7-skeleton";
        if (ganim_read_memory(data, sk, &o, &sdoc, &e) != GANIM_OK) return 0;
        data += sk, size -= sk;
        o.skeleton = sdoc->skeleton;
    }
    o.format = "ff7-battle";
    if (ganim_read_memory(data, size, &o, &doc, &e) == GANIM_OK) {
        exercise(doc, o.skeleton);
        ganim_doc_free(doc);
    }
    ganim_doc_free(sdoc);
    return 0;
}
