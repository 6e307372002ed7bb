/* ganim_acl_decode_clip (the whole clip into a frame-major array, through the document
 * read's loops) against its reference, ganim_acl_sample_key at every frame: the same bits
 * in every field of every track, not merely close values. Shared by test_acl (the test
 * data, hostile buffers) and test_acl_synth (every synthetic clip). */
#ifndef GANIM_TESTS_ACL_CLIP_CHECK_H
#define GANIM_TESTS_ACL_CLIP_CHECK_H

#include <stdlib.h>
#include <string.h>

#include "formats/acl/acl.h"
#include "test.h"

/* chunk 0: ganim_acl_decode_clip; otherwise ganim_acl_decode_clip_chunked with it. The
 * decoded clip is returned (caller frees) when `keep` is not NULL. Returns the count of
 * frames that differ. The array is filled with a pattern first, and a guard frame after
 * it must stay untouched (no write past frame_count x track_count). */
static size_t acl_clip_check(const ganim_acl *acl, const char *label, uint32_t chunk, ganim_transform **keep)
{
    uint32_t nt = ganim_acl_track_count(acl), nf = ganim_acl_frame_count(acl);
    size_t n = (size_t)nt * nf;
    ganim_transform *all = malloc((n + nt + 1u) * sizeof *all), *ref = malloc((nt + 1u) * sizeof *ref);
    size_t bad = 0;
    if (!all || !ref) {
        test_fail(__FILE__, __LINE__, "%s: out of memory", label);
        free(all);
        free(ref);
        return 1;
    }
    memset(all, 0xA5, (n + nt + 1u) * sizeof *all); /* every field must be written */
    if (chunk) ganim_acl_decode_clip_chunked(acl, all, chunk);
    else ganim_acl_decode_clip(acl, all);
    for (uint32_t f = 0; f < nf; f++) {
        ganim_acl_sample_key(acl, f, ref);
        if (memcmp(all + (size_t)f * nt, ref, nt * sizeof *ref) != 0 && bad++ < 3) {
            uint32_t t = 0;
            while (t + 1u < nt && !memcmp(all + (size_t)f * nt + t, ref + t, sizeof *ref)) t++;
            const ganim_transform *g = all + (size_t)f * nt + t;
            test_fail(__FILE__, __LINE__,
                      "%s (chunk %u): frame %u track %u: decode_clip r %.9g %.9g %.9g %.9g t %.9g %.9g %.9g s %.9g "
                      "%.9g %.9g, "
                      "sample_key r %.9g %.9g %.9g %.9g t %.9g %.9g %.9g s %.9g %.9g %.9g",
                      label, chunk, f, t, (double)g->rotation.x, (double)g->rotation.y, (double)g->rotation.z,
                      (double)g->rotation.w, (double)g->translation.x, (double)g->translation.y,
                      (double)g->translation.z, (double)g->scale.x, (double)g->scale.y, (double)g->scale.z,
                      (double)ref[t].rotation.x, (double)ref[t].rotation.y, (double)ref[t].rotation.z,
                      (double)ref[t].rotation.w, (double)ref[t].translation.x, (double)ref[t].translation.y,
                      (double)ref[t].translation.z, (double)ref[t].scale.x, (double)ref[t].scale.y,
                      (double)ref[t].scale.z);
        }
    }
    memset(ref, 0xA5, (nt + 1u) * sizeof *ref);
    if (memcmp(all + n, ref, (nt + 1u) * sizeof *ref) != 0 && bad++ < 3)
        test_fail(__FILE__, __LINE__, "%s (chunk %u): decode_clip wrote past its %u frames", label, chunk, nf);
    free(ref);
    if (keep) *keep = all;
    else free(all);
    return bad;
}

/* ganim_acl_sample_pose at t against its scalar reference, ganim_acl_sample_pose_ref (a, b:
 * track_count transforms each); a failure is reported while *bad < 3. Returns 1 when they
 * differ. */
static int acl_pose_check(const ganim_acl *acl, float t, ganim_transform *a, ganim_transform *b, const char *label,
                          int *bad)
{
    ganim_acl_sample_pose(acl, t, a);
    ganim_acl_sample_pose_ref(acl, t, b);
    if (!memcmp(a, b, ganim_acl_track_count(acl) * sizeof *a)) return 0;
    if ((*bad)++ < 3)
        test_fail(__FILE__, __LINE__, "%s: random access at %.9g differs from the scalar path", label, (double)t);
    return 1;
}

#endif
