/* libFuzzer harness: ACL compressed_tracks buffers through the whole-clip reader, the
 * random-access sampler and the whole-clip decoder (ganim_acl_decode_clip, on clips of
 * up to 1 Mi transforms). Any input must give a valid document or a clean error, and
 * whatever opens must sample and decode without a read outside the buffer, and open by
 * ganim_acl_open_clip to the same whole clip (what does not open must not open that way). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/acl/acl.h"
#include "ganim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ganim_read_opts o = { 0 };
    o.format = "acl";
    o.memory_limit = 256u << 20;
    ganim_doc *doc = NULL;
    if (ganim_read_memory(data, size, &o, &doc, NULL) == GANIM_OK) {
        if (ganim_doc_validate(doc, NULL) != GANIM_OK) abort();
        ganim_doc_free(doc);
    }
    ganim_acl *acl = NULL;
    if (ganim_acl_open(data, size, 0, NULL, NULL, NULL, &acl, NULL) == GANIM_OK) {
        ganim_transform *pose = malloc((size_t)ganim_acl_track_count(acl) * sizeof *pose);
        if (pose) {
            float end = (float)ganim_acl_frame_count(acl) / ganim_acl_sample_rate(acl);
            for (int i = -1; i <= 9; i++) ganim_acl_sample_pose(acl, end * (float)i / 8.0f, pose);
            free(pose);
        }
        size_t n = (size_t)ganim_acl_track_count(acl) * ganim_acl_frame_count(acl);
        ganim_transform *clip = n <= (1u << 20) ? malloc((n ? n : 1) * sizeof *clip) : NULL;
        ganim_acl *whole = NULL; /* the open for whole-clip decodes: the same clip, bit for bit */
        ganim_transform *again = clip ? malloc((n ? n : 1) * sizeof *again) : NULL;
        if (ganim_acl_open_clip(data, size, 0, NULL, NULL, NULL, &whole, NULL) != GANIM_OK) abort();
        if (clip && again) {
            ganim_acl_decode_clip(acl, clip);
            ganim_acl_decode_clip(whole, again);
            if (memcmp(clip, again, n * sizeof *clip)) abort();
        }
        free(again);
        free(clip);
        ganim_acl_close(whole);
        ganim_acl_close(acl);
    } else if (ganim_acl_open_clip(data, size, 0, NULL, NULL, NULL, &acl, NULL) == GANIM_OK) {
        abort(); /* open_clip refuses what open refuses */
    }
    return 0;
}
