/* FF7 battle resampling (factor 4, FFNx's 60 fps): 4n-3 frames, every 4th frame the
 * original integers exactly, weapon i in step with body i, slerped frames in between,
 * special slots untouched, and the result writes and reads back. */
#include "test_ff7_common.h"

static double quat_angle(const float *a, const float *b)
{
    double d = fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3]);
    return d >= 1 ? 0 : 2 * acos(d);
}

/* slerp written out here (shortest arc) */
static void slerp(const float *a, const float *b, double t, double *out)
{
    double d = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3];
    double s = d < 0 ? -1 : 1;
    d = fabs(d);
    double wa, wb;
    if (d > 0.9999995) {
        wa = 1 - t, wb = t;
    } else {
        double th = acos(d);
        wa = sin((1 - t) * th) / sin(th), wb = sin(t * th) / sin(th);
    }
    double n = 0;
    for (int k = 0; k < 4; k++) out[k] = wa * a[k] + s * wb * b[k], n += out[k] * out[k];
    for (int k = 0; k < 4; k++) out[k] /= sqrt(n);
}

static const ganim_track *track_for(const ganim_clip *clip, uint32_t bone)
{
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i].bone == bone) return &clip->tracks[i];
    return NULL;
}

static void check_pack(const char *da)
{
    size_t size;
    uint8_t *data = test_read_file(da, &size);
    ganim_doc *sdoc = ff7_read_skeleton(da);
    ganim_error e;
    ganim_doc *orig = ff7_read_pack_mem(data, size, sdoc->skeleton, &e);
    ganim_doc *doc = ff7_read_pack_mem(data, size, sdoc->skeleton, &e);
    CHECK(orig && doc);
    if (!orig || !doc) goto out;
    CHECK_MSG(ganim_doc_resample(doc, 4, &e) == GANIM_OK, "%s: %s", da, e.message);
    CHECK(ganim_doc_validate(doc, &e) == GANIM_OK);
    tjson *sum = ff7_describe(orig, -1, GANIM_DETAILS_SUMMARY);
    int64_t n_body = tjson_int(tjson_get(sum, "body"), 0);
    tjson_free(sum);
    const double step = 6.283185307179586 / 4096;
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *a = &orig->clips[i], *b = &doc->clips[i];
        if (a->kind == GANIM_CLIP_OPAQUE) {
            CHECK(b->kind == GANIM_CLIP_OPAQUE && b->opaque_size == a->opaque_size &&
                  memcmp(a->opaque, b->opaque, a->opaque_size) == 0);
            continue;
        }
        uint32_t n = a->frame_count;
        tjson *x = ff7_describe(orig, (int)i, GANIM_DETAILS_FULL);
        tjson *y = ff7_describe(doc, (int)i, GANIM_DETAILS_FULL);
        const char *role = tjson_str(tjson_get(x, "role"), "");
        uint32_t want = 4 * n - 3;
        if (strcmp(role, "weapon") == 0 && i >= n_body && orig->clips[i - n_body].kind == GANIM_CLIP_ANIMATION) {
            want = 4 * orig->clips[i - n_body].frame_count - 3;
            CHECK_EQ_INT(b->frame_count, doc->clips[i - n_body].frame_count);
        }
        CHECK_EQ_INT(b->frame_count, want);
        CHECK_NEAR(b->fps, 60.0, 0);
        CHECK_EQ_INT(tjson_int(tjson_get(y, "frames"), -1), want);
        CHECK_EQ_INT(tjson_int(tjson_get(y, "bKey"), -1), tjson_int(tjson_get(x, "bKey"), -2));
        int key = (int)tjson_int(tjson_get(y, "bKey"), 0);
        const tjson *px = tjson_get(x, "positions"), *py = tjson_get(y, "positions");
        const tjson *rx = tjson_get(x, "rotations"), *ry = tjson_get(y, "rotations");
        if (want == 4 * n - 3 && px && py && rx && ry && py->count == want) {
            for (uint32_t f = 0; f < n; f++) {
                for (size_t k = 0; k < 3; k++)
                    CHECK_EQ_INT(tjson_int(tjson_at(&py->items[4 * f], k), -1),
                                 tjson_int(tjson_at(&px->items[f], k), -2));
                const tjson *fx = &rx->items[f], *fy = &ry->items[4 * f];
                CHECK_EQ_INT(fx->count, fy->count);
                for (size_t s = 0; s < fx->count && s < fy->count; s++)
                    for (size_t k = 0; k < 3; k++)
                        CHECK_EQ_INT(tjson_int(tjson_at(&fy->items[s], k), -1),
                                     tjson_int(tjson_at(&fx->items[s], k), -2));
            }
            /* between them: slerp of the neighbours, re-quantised; positions lerped */
            for (uint32_t t = 0; t < a->track_count; t++) {
                const ganim_track *ta = &a->tracks[t], *tb = track_for(b, ta->bone);
                CHECK(tb != NULL);
                if (!tb) continue;
                for (uint32_t j = 0; j + 1 < want; j++) {
                    if (j % 4 == 0) continue;
                    uint32_t f = j / 4;
                    double u = (j % 4) / 4.0;
                    if (ta->rotation.values) {
                        double q[4];
                        slerp(ta->rotation.values + 4 * f, ta->rotation.values + 4 * (f + 1), u, q);
                        float qf[4] = { (float)q[0], (float)q[1], (float)q[2], (float)q[3] };
                        double ang = quat_angle(qf, tb->rotation.values + 4 * j);
                        CHECK_MSG(ang <= 1.5 * (1 << key) * step + 1e-4,
                                  "%s clip %u bone %u frame %u: %g rad from the slerp", ff7_base(da), i, ta->bone, j,
                                  ang);
                    }
                    if (ta->translation.values)
                        for (int k = 0; k < 3; k++) {
                            double p0 = ta->translation.values[3 * f + k];
                            double p1 = ta->translation.values[3 * (f + 1) + k];
                            CHECK(fabs(tb->translation.values[3 * j + k] - (p0 + (p1 - p0) * u)) <= 0.5);
                        }
                }
            }
        }
        tjson_free(x);
        tjson_free(y);
    }
    /* the resampled pack writes (its frames kept, not sampled back at 15 fps) and reads
     * back to the same integers */
    ganim_buffer out;
    memset(&out, 0, sizeof out);
    ganim_write_opts keep;
    memset(&keep, 0, sizeof keep);
    keep.fps = GANIM_WRITE_KEEP_RATE;
    CHECK_MSG(ganim_write(doc, "ff7-battle", &keep, &out, &e) == GANIM_OK, "%s", e.message);
    ganim_doc *back = ff7_read_pack_mem(out.data, out.size, sdoc->skeleton, &e);
    CHECK_MSG(back != NULL, "%s: re-read: %s", da, e.message);
    for (uint32_t i = 0; back && i < back->clip_count; i++) {
        if (back->clips[i].kind != GANIM_CLIP_ANIMATION) continue;
        tjson *x = ff7_describe(doc, (int)i, GANIM_DETAILS_FULL);
        tjson *y = ff7_describe(back, (int)i, GANIM_DETAILS_FULL);
        CHECK_MSG(ff7_same_raw(x, y), "%s clip %u: resampled values do not read back", da, i);
        const tjson *sf = tjson_get(y, "sFrames"); /* null: the frog layout */
        if (sf && sf->type != TJSON_NULL) CHECK_EQ_INT(tjson_int(sf, -1), back->clips[i].frame_count);
        tjson_free(x);
        tjson_free(y);
    }
    ganim_doc_free(back);
    ganim_buffer_free(&out);
out:
    ganim_doc_free(orig);
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    free(data);
}

TEST(resample_by_4)
{
    char **l = test_list_dir(test_path("ff7", ""), ".da");
    for (size_t i = 0; l[i]; i++) check_pack(l[i]);
    test_free_list(l);
}

/* A body and its weapon of different lengths: the weapon follows the body's count. */
TEST(resample_factor_2_and_1)
{
    const char *da = test_path("ff7", "humanoid_bkey2.da");
    size_t size;
    uint8_t *data = test_read_file(da, &size);
    ganim_doc *sdoc = ff7_read_skeleton(da);
    ganim_error e;
    ganim_doc *doc = ff7_read_pack_mem(data, size, sdoc->skeleton, &e);
    CHECK(doc != NULL);
    if (doc) {
        uint32_t n0 = doc->clips[0].frame_count;
        CHECK(ganim_doc_resample(doc, 1, &e) == GANIM_OK);
        CHECK_EQ_INT(doc->clips[0].frame_count, n0);
        CHECK(ganim_doc_resample(doc, 2, &e) == GANIM_OK);
        CHECK_EQ_INT(doc->clips[0].frame_count, 2 * n0 - 1);
        CHECK_NEAR(doc->clips[0].fps, 30.0, 0);
    }
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    free(data);
}

int main(void)
{
    RUN(resample_by_4);
    RUN(resample_factor_2_and_1);
    return test_finish();
}
