/* FF7 battle packs: decode -> encode -> decode gives the same raw values and the same
 * bytes for every pack (unchanged entries keep their streams, also those not coded with
 * the shortest codes, README: shortest_codes); pack -> glb -> pack likewise. */
#include "test_ff7_common.h"

/* Test-side walk of a pack: offset of each entry's header. */
static size_t walk(const uint8_t *d, size_t size, size_t *offs, size_t max)
{
    if (size < 4) return 0;
    uint32_t n = d[0] | d[1] << 8 | d[2] << 16 | (uint32_t)d[3] << 24;
    size_t at = 4, k = 0;
    for (uint32_t i = 0; i < n && k < max && at + 12 <= size; i++) {
        offs[k++] = at;
        const uint8_t *h = d + at + 8;
        at += 12 + (size_t)(h[0] | h[1] << 8 | h[2] << 16 | (uint32_t)h[3] << 24);
    }
    return k;
}

static int bits_equal(const uint8_t *a, const uint8_t *b, size_t bits)
{
    if (memcmp(a, b, bits / 8)) return 0;
    if (bits % 8) {
        unsigned m = (0xFFu << (8 - bits % 8)) & 0xFFu;
        return (a[bits / 8] & m) == (b[bits / 8] & m);
    }
    return 1;
}

/* bkey < 0: the writer chooses; else "ff7.bkey" set to that text ("3" is refused). */
static ganim_code write_doc(const ganim_doc *doc, int bkey, ganim_buffer *out, ganim_error *e)
{
    ganim_write_opts wo;
    memset(&wo, 0, sizeof wo);
    char value[8];
    snprintf(value, sizeof value, "%d", bkey);
    ganim_setting setting = { "ff7.bkey", value };
    if (bkey >= 0) {
        wo.settings = &setting;
        wo.setting_count = 1;
    }
    memset(out, 0, sizeof *out);
    return ganim_write(doc, "ff7-battle", &wo, out, e);
}

static void roundtrip(const char *da, int with_skel)
{
    char *jp = ff7_sibling(da, ".expected.json");
    tjson *ex = tjson_parse_file(jp, NULL, 0);
    CHECK(ex != NULL);
    free(jp);
    size_t size;
    uint8_t *data = test_read_file(da, &size);
    ganim_doc *sdoc = ff7_read_skeleton(da);
    const ganim_skeleton *sk = with_skel ? sdoc->skeleton : NULL;
    ganim_error e;
    memset(&e, 0, sizeof e);
    ganim_doc *doc = ff7_read_pack_mem(data, size, sk, &e);
    CHECK_MSG(doc != NULL, "%s: %s", da, e.message);
    ganim_buffer out;
    ganim_code c = doc ? write_doc(doc, -1, &out, &e) : GANIM_ERR_INVALID_ARG;
    CHECK_MSG(c == GANIM_OK, "%s: write: %s", da, e.message);
    if (c != GANIM_OK || !ex) goto done;
    ganim_doc *back = ff7_read_pack_mem(out.data, out.size, sk, &e);
    CHECK_MSG(back != NULL, "%s: re-read: %s", da, e.message);
    if (!back) {
        ganim_buffer_free(&out);
        goto done;
    }
    CHECK_EQ_INT(back->clip_count, doc->clip_count);
    const tjson *entries = tjson_get(ex, "entries");
    int all_shortest = 1, slots_known = 1;
    for (size_t i = 0; entries && i < entries->count; i++) {
        const tjson *en = &entries->items[i];
        if (strcmp(tjson_str(tjson_get(en, "kind"), ""), "animation")) continue;
        const tjson *s = tjson_get(en, "shortest_codes");
        if (!s || !s->boolean) all_shortest = 0;
        if (tjson_int(tjson_get(en, "dwBones"), -1) != tjson_int(tjson_get(en, "slots"), -2)) slots_known = 0;
    }
    /* every raw value of every clip */
    for (uint32_t i = 0; i < doc->clip_count && i < back->clip_count; i++) {
        const ganim_clip *a = &doc->clips[i], *b = &back->clips[i];
        CHECK_EQ_INT(a->kind, b->kind);
        CHECK_EQ_STR(a->name, b->name);
        if (a->kind == GANIM_CLIP_OPAQUE) {
            CHECK(a->opaque_size == b->opaque_size && memcmp(a->opaque, b->opaque, a->opaque_size) == 0);
            continue;
        }
        tjson *x = ff7_describe(doc, (int)i, GANIM_DETAILS_FULL);
        tjson *y = ff7_describe(back, (int)i, GANIM_DETAILS_FULL);
        CHECK_MSG(ff7_same_raw(x, y),
                  "%s clip %u (%s skeleton): raw values differ after a "
                  "round trip",
                  ff7_base(da), i, with_skel ? "with" : "without");
        CHECK_EQ_INT(tjson_int(tjson_get(x, "bKey"), -1), tjson_int(tjson_get(y, "bKey"), -2));
        tjson_free(x);
        tjson_free(y);
    }
    /* bytes: an unchanged entry keeps its stream, however the game's tools coded it */
    if (with_skel || slots_known) {
        CHECK_MSG(out.size == size && memcmp(out.data, data, size) == 0,
                  "%s (%s skeleton, %s): pack not reproduced byte for byte (%zu vs %zu bytes)", ff7_base(da),
                  with_skel ? "with" : "without", all_shortest ? "optimally coded" : "codes not all the shortest",
                  out.size, size);
    }
    if (with_skel && entries) {
        size_t oa[64], ob[64];
        size_t na = walk(data, size, oa, 64), nb = walk(out.data, out.size, ob, 64);
        CHECK_EQ_INT(na, nb);
        for (size_t i = 0; i < na && i < nb && i < entries->count; i++) {
            const tjson *en = &entries->items[i];
            if (strcmp(tjson_str(tjson_get(en, "kind"), ""), "animation")) continue;
            size_t hdr = strcmp(tjson_str(tjson_get(en, "layout"), ""), "frog") ? 17 : 15;
            size_t bits = (size_t)tjson_int(tjson_get(en, "stream_bits"), 0);
            const tjson *s = tjson_get(en, "shortest_codes");
            tjson *y = ff7_describe(back, (int)i, GANIM_DETAILS_FULL);
            size_t new_bits = (size_t)tjson_int(tjson_get(y, "stream_bits"), -1);
            tjson_free(y);
            if (s && s->boolean) {
                CHECK_EQ_INT(new_bits, bits);
                CHECK_MSG(oa[i] + hdr + (bits + 7) / 8 <= size && ob[i] + hdr + (bits + 7) / 8 <= out.size &&
                              bits_equal(data + oa[i] + hdr, out.data + ob[i] + hdr, bits),
                          "%s entry %zu: stream bits differ", ff7_base(da), i);
            } else { /* longer codes than the shortest: the entry's own stream, kept */
                CHECK_MSG(new_bits == bits,
                          "%s entry %zu: %zu bits written vs %zu of the original stream with longer codes",
                          ff7_base(da), i, new_bits, bits);
            }
        }
    }
    ganim_doc_free(back);
    ganim_buffer_free(&out);
done:
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    free(data);
    tjson_free(ex);
}

static char **packs(void) { return test_list_dir(test_path("ff7", ""), ".da"); }

TEST(roundtrip_with_skeleton)
{
    char **l = packs();
    for (size_t i = 0; l[i]; i++) roundtrip(l[i], 1);
    test_free_list(l);
}

TEST(roundtrip_without_skeleton)
{
    char **l = packs();
    for (size_t i = 0; l[i]; i++) roundtrip(l[i], 0);
    test_free_list(l);
}

static ganim_doc *load(const char *name, ganim_doc **sdoc)
{
    const char *da = test_path("ff7", name);
    *sdoc = ff7_read_skeleton(da);
    size_t size;
    uint8_t *data = test_read_file(da, &size);
    ganim_error e;
    ganim_doc *doc = ff7_read_pack_mem(data, size, (*sdoc)->skeleton, &e);
    CHECK_MSG(doc != NULL, "%s: %s", name, e.message);
    free(data);
    return doc;
}

static double quat_angle(const float *a, const float *b)
{
    double d = fabs((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2] + (double)a[3] * b[3]);
    return d >= 1 ? 0 : 2 * acos(d);
}

/* Clips without native data (as if from another format) go through quaternion ->
 * YXZ Euler -> integers: the same rotations come back within a 12-bit step. */
TEST(encode_from_model)
{
    ganim_doc *sdoc, *doc = load("humanoid_bkey0.da", &sdoc);
    ganim_doc *orig, *sdoc2;
    orig = load("humanoid_bkey0.da", &sdoc2);
    if (!doc || !orig) goto out;
    for (uint32_t i = 0; i < doc->clip_count; i++) doc->clips[i].native_format = NULL;
    ganim_buffer out;
    ganim_error e;
    CHECK(write_doc(doc, -1, &out, &e) == GANIM_OK);
    ganim_doc *back = ff7_read_pack_mem(out.data, out.size, sdoc->skeleton, &e);
    CHECK_MSG(back != NULL, "%s", e.message);
    const double step = 6.283185307179586 / 4096;
    for (uint32_t i = 0; back && i < back->clip_count; i++) {
        const ganim_clip *a = &orig->clips[i], *b = &back->clips[i];
        CHECK_EQ_INT(a->frame_count, b->frame_count);
        CHECK_EQ_INT(a->track_count, b->track_count);
        CHECK_EQ_STR(a->name, b->name); /* weapon clips recognised by their bone */
        for (uint32_t t = 0; t < a->track_count && t < b->track_count; t++) {
            const ganim_track *ta = &a->tracks[t], *tb = &b->tracks[t];
            CHECK_EQ_INT(ta->bone, tb->bone);
            for (uint32_t f = 0; f < a->frame_count && f < b->frame_count; f++) {
                if (ta->rotation.values) {
                    double ang = quat_angle(ta->rotation.values + 4 * f, tb->rotation.values + 4 * f);
                    CHECK_MSG(ang <= 1.5 * step, "clip %u bone %u frame %u: %g rad apart", i, ta->bone, f, ang);
                }
                if (ta->translation.values)
                    for (int k = 0; k < 3; k++)
                        CHECK(ta->translation.values[3 * f + k] == tb->translation.values[3 * f + k]);
            }
        }
    }
    /* and the untouched pack encodes to exactly its 8772 input bytes */
    ganim_buffer same;
    CHECK(write_doc(orig, -1, &same, &e) == GANIM_OK);
    CHECK_EQ_INT(same.size, 8772);
    ganim_buffer_free(&same);
    ganim_doc_free(back);
    ganim_buffer_free(&out);
out:
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    ganim_doc_free(orig);
    ganim_doc_free(sdoc2);
}

/* An edited rotation is written; every untouched value keeps its exact integer. */
TEST(edited_value_is_written)
{
    ganim_doc *sdoc, *doc = load("beast_mixed_bkey.da", &sdoc);
    if (!doc) goto out;
    ganim_clip *clip = &doc->clips[0]; /* bKey 0 */
    ganim_track *tr = NULL;
    for (uint32_t t = 0; t < clip->track_count; t++)
        if (clip->tracks[t].bone == 5) tr = &clip->tracks[t];
    CHECK(tr != NULL);
    if (!tr) goto out;
    float *v = (float *)tr->rotation.values + 4 * 7; /* frame 7 */
    /* 90 degrees about Y: raw (0, 1024, 0) */
    v[0] = 0, v[1] = (float)sqrt(0.5), v[2] = 0, v[3] = (float)sqrt(0.5);
    tjson *before = ff7_describe(doc, 0, GANIM_DETAILS_FULL);
    ganim_buffer out;
    ganim_error e;
    CHECK(write_doc(doc, -1, &out, &e) == GANIM_OK);
    ganim_doc *back = ff7_read_pack_mem(out.data, out.size, sdoc->skeleton, &e);
    CHECK(back != NULL);
    tjson *after = back ? ff7_describe(back, 0, GANIM_DETAILS_FULL) : NULL;
    const tjson *rb = tjson_get(before, "rotations"), *ra = tjson_get(after, "rotations");
    CHECK(rb && ra && rb->count == ra->count);
    for (size_t f = 0; rb && ra && f < rb->count && f < ra->count; f++)
        for (size_t s = 0; s < rb->items[f].count; s++)
            for (size_t k = 0; k < 3; k++) {
                int64_t x = tjson_int(tjson_at(tjson_at(&rb->items[f], s), k), -1);
                int64_t y = tjson_int(tjson_at(tjson_at(&ra->items[f], s), k), -2);
                if (f == 7 && s == 5) {
                    CHECK_EQ_INT(y, k == 1 ? 1024 : 0);
                } else if (x != y) {
                    test_fail(__FILE__, __LINE__, "frame %zu slot %zu axis %zu changed", f, s, k);
                }
            }
    tjson_free(before);
    tjson_free(after);
    ganim_doc_free(back);
    ganim_buffer_free(&out);
out:
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
}

/* ff7.bkey=4 forces bKey 4: every value becomes the nearest multiple of 16. */
TEST(forced_bkey)
{
    ganim_doc *sdoc, *doc = load("humanoid_bkey0.da", &sdoc);
    if (!doc) goto out;
    ganim_buffer out;
    ganim_error e;
    CHECK(write_doc(doc, 3, &out, &e) == GANIM_ERR_INVALID_ARG);
    ganim_buffer_free(&out);
    CHECK(write_doc(doc, 4, &out, &e) == GANIM_OK);
    ganim_doc *back = ff7_read_pack_mem(out.data, out.size, sdoc->skeleton, &e);
    CHECK(back != NULL);
    CHECK(out.size < 8772 / 2 + 1000);
    for (uint32_t i = 0; back && i < back->clip_count; i++) {
        tjson *x = ff7_describe(doc, (int)i, GANIM_DETAILS_FULL);
        tjson *y = ff7_describe(back, (int)i, GANIM_DETAILS_FULL);
        CHECK_EQ_INT(tjson_int(tjson_get(y, "bKey"), -1), 4);
        const tjson *rx = tjson_get(x, "rotations"), *ry = tjson_get(y, "rotations");
        for (size_t f = 0; rx && ry && f < rx->count; f++)
            for (size_t s = 0; s < rx->items[f].count; s++)
                for (size_t k = 0; k < 3; k++) {
                    int64_t a = tjson_int(tjson_at(tjson_at(&rx->items[f], s), k), -1);
                    int64_t b = tjson_int(tjson_at(tjson_at(&ry->items[f], s), k), -1);
                    CHECK_EQ_INT(b, ((a + 8) / 16 * 16) & 4095);
                }
        tjson_free(x);
        tjson_free(y);
    }
    ganim_doc_free(back);
    ganim_buffer_free(&out);
out:
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
}

int main(void)
{
    RUN(roundtrip_with_skeleton);
    RUN(roundtrip_without_skeleton);
    RUN(encode_from_model);
    RUN(edited_value_is_written);
    RUN(forced_bkey);
    return test_finish();
}
