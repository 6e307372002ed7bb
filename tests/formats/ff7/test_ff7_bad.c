/* FF7 battle packs and skeletons, damaged: every truncation of the small packs and byte
 * flips in every header give a clean error that names the entry and the byte offset
 * (and the frame where a stream is cut), or a valid document that writes back. */
#include "test_ff7_common.h"

/* make check runs one case in SAMPLE_ONE_IN of each sweep (test_sampled, seeded by the
 * file's name); CI=true or GANIM_FULL=1 all of them. */
#define SAMPLE_ONE_IN 3

static const char *const small_packs[] = { "one_bone.da",    "wrap_rotation.da", "raw_jumps.da",
                                           "edge_frames.da", "frog_entry.da",    "special_slots.da" };

/* OK -> the doc validates and writes; error -> named and located. */
static void check_result(const char *what, ganim_doc *doc, ganim_code c, const ganim_error *e, size_t size,
                         int want_entry)
{
    if (c == GANIM_OK) {
        ganim_error e2;
        CHECK_MSG(ganim_doc_validate(doc, &e2) == GANIM_OK, "%s: invalid doc: %s", what, e2.message);
        ganim_buffer out;
        memset(&out, 0, sizeof out);
        ganim_code w = ganim_write(doc, "ff7-battle", NULL, &out, &e2);
        CHECK_MSG(w == GANIM_OK || w == GANIM_ERR_LIMIT, "%s: write: %s", what, e2.message);
        ganim_buffer_free(&out);
        return;
    }
    CHECK_MSG(c == GANIM_ERR_TRUNCATED || c == GANIM_ERR_CORRUPT, "%s: code %d", what, (int)c);
    CHECK_MSG(strncmp(e->message, "ff7-battle: ", 12) == 0, "%s: %s", what, e->message);
    CHECK_MSG(e->offset != GANIM_NO_OFFSET && e->offset <= size, "%s: offset %llu", what,
              (unsigned long long)e->offset);
    if (want_entry) CHECK_MSG(strstr(e->message, "entry ") != NULL, "%s: %s", what, e->message);
}

static void truncations(const char *name, int with_skel)
{
    const char *da = test_path("ff7", name);
    char *jp = ff7_sibling(da, ".expected.json");
    tjson *ex = tjson_parse_file(jp, NULL, 0);
    free(jp);
    size_t size;
    uint8_t *data = test_read_file(da, &size);
    ganim_doc *sdoc = ff7_read_skeleton(da);
    const tjson *entries = tjson_get(ex, "entries");
    uint64_t seed = test_seed(name) + (uint64_t)with_skel;
    for (size_t len = 0; len < size; len++) {
        if (!test_sampled(seed + len, SAMPLE_ONE_IN)) continue;
        uint8_t *copy = malloc(len ? len : 1); /* exact size: ASan sees any over-read */
        memcpy(copy, data, len);
        ganim_error e;
        memset(&e, 0, sizeof e);
        ganim_doc *doc = ff7_read_pack_mem(copy, len, with_skel ? sdoc->skeleton : NULL, &e);
        char what[128];
        snprintf(what, sizeof what, "%s cut at %zu (%s skeleton)", name, len, with_skel ? "with" : "without");
        check_result(what, doc, doc ? GANIM_OK : e.code, &e, len, len >= 4);
        CHECK_MSG(doc == NULL, "%s: a truncated pack read without an error", what);
        /* a cut inside an animation's stream names the frames that are whole */
        for (size_t i = 0; !doc && with_skel && entries && i < entries->count; i++) {
            const tjson *en = &entries->items[i];
            size_t at = (size_t)tjson_int(tjson_get(en, "offset"), 0);
            size_t hdr = strcmp(tjson_str(tjson_get(en, "layout"), ""), "frog") ? 17 : 15;
            size_t end = at + 12 + (size_t)tjson_int(tjson_get(en, "dwChunkSize"), 0);
            if (strcmp(tjson_str(tjson_get(en, "kind"), ""), "animation") == 0 && len >= at + hdr && len < end) {
                char want[32];
                snprintf(want, sizeof want, "entry %zu:", i);
                CHECK_MSG(strstr(e.message, want) && strstr(e.message, "frames are whole"), "%s: %s", what, e.message);
            }
        }
        ganim_doc_free(doc);
        free(copy);
    }
    ganim_doc_free(sdoc);
    tjson_free(ex);
    free(data);
}

TEST(every_truncation)
{
    for (size_t i = 0; i < sizeof small_packs / sizeof *small_packs; i++) {
        truncations(small_packs[i], 1);
        truncations(small_packs[i], 0);
    }
}

/* Flips in the pack header, every entry header and every mini header. */
TEST(header_byte_flips)
{
    static const int flips[] = { 0x00, 0xFF, -0x01, -0x80, -0x10 }; /* negative: xor */
    for (size_t p = 0; p < sizeof small_packs / sizeof *small_packs; p++) {
        const char *da = test_path("ff7", small_packs[p]);
        char *jp = ff7_sibling(da, ".expected.json");
        tjson *ex = tjson_parse_file(jp, NULL, 0);
        free(jp);
        const tjson *entries = tjson_get(ex, "entries");
        size_t size;
        uint8_t *data = test_read_file(da, &size);
        ganim_doc *sdoc = ff7_read_skeleton(da);
        size_t spots[2048], ns = 0;
        for (size_t k = 0; k < 4; k++) spots[ns++] = k;
        for (size_t i = 0; entries && i < entries->count; i++) {
            size_t at = (size_t)tjson_int(tjson_get(&entries->items[i], "offset"), 0);
            for (size_t k = 0; k < 17 && at + k < size && ns < 2048; k++) spots[ns++] = at + k;
        }
        uint8_t *copy = malloc(size);
        for (size_t s = 0; s < ns; s++)
            for (size_t f = 0; f < sizeof flips / sizeof *flips; f++) {
                if (!test_sampled(test_seed(small_packs[p]) + s * 8 + f, SAMPLE_ONE_IN)) continue;
                memcpy(copy, data, size);
                copy[spots[s]] = (uint8_t)(flips[f] >= 0 ? flips[f] : copy[spots[s]] ^ -flips[f]);
                for (int ws = 0; ws < 2; ws++) {
                    ganim_error e;
                    memset(&e, 0, sizeof e);
                    ganim_doc *doc = ff7_read_pack_mem(copy, size, ws ? sdoc->skeleton : NULL, &e);
                    char what[128];
                    snprintf(what, sizeof what, "%s byte %zu flip %d", small_packs[p], spots[s], flips[f]);
                    check_result(what, doc, doc ? GANIM_OK : e.code, &e, size, spots[s] >= 4);
                    ganim_doc_free(doc);
                }
            }
        free(copy);
        free(data);
        ganim_doc_free(sdoc);
        tjson_free(ex);
    }
}

/* Skeletons: every truncation and flips in the header and bones. */
TEST(damaged_skeletons)
{
    const char *aa = test_path("ff7", "humanoid_bkey0.aa");
    size_t size;
    uint8_t *data = test_read_file(aa, &size);
    ganim_read_opts o;
    memset(&o, 0, sizeof o);
    o.format = "ff7-skeleton";
    for (size_t len = 0; len <= size; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, data, len);
        ganim_doc *doc = NULL;
        ganim_error e;
        ganim_code c = ganim_read_memory(copy, len, &o, &doc, &e);
        if (len == size) CHECK(c == GANIM_OK);
        else CHECK_MSG(c == GANIM_ERR_TRUNCATED && e.offset != GANIM_NO_OFFSET, "len %zu: %s", len, e.message);
        ganim_doc_free(doc);
        free(copy);
    }
    uint8_t *copy = malloc(size);
    for (size_t k = 0; k < size; k++) {
        memcpy(copy, data, size);
        copy[k] ^= 0xFF;
        ganim_doc *doc = NULL;
        ganim_error e;
        ganim_code c = ganim_read_memory(copy, size, &o, &doc, &e);
        if (c == GANIM_OK) CHECK(ganim_doc_validate(doc, &e) == GANIM_OK);
        else CHECK_MSG(e.offset != GANIM_NO_OFFSET && strncmp(e.message, "ff7-skeleton: ", 14) == 0, "%s", e.message);
        /* a bad parent names the bone */
        if (k >= 52 && (k - 52) % 12 == 3 && c != GANIM_OK) CHECK(strstr(e.message, "bone ") != NULL);
        ganim_doc_free(doc);
    }
    free(copy);
    free(data);
}

/* An entry over the caller's limits fails with the limit's sentence naming the entry, at
 * the entry's byte (the reader checks with a nameless text first and names the entry only
 * for the error: the same sentence as when it named it before each check). */
TEST(entry_over_the_limits)
{
    const char *da = test_path("ff7", "wrap_rotation.da");
    size_t size;
    uint8_t *data = test_read_file(da, &size);
    ganim_doc *sdoc = ff7_read_skeleton(da);
    CHECK(data != NULL && sdoc != NULL);
    if (!data || !sdoc) goto done;
    for (int k = 0; k < 3; k++) {
        ganim_read_opts o;
        memset(&o, 0, sizeof o);
        o.format = "ff7-battle";
        o.skeleton = sdoc->skeleton;
        if (k == 0) o.limits.frames = 5;
        else if (k == 1) o.limits.samples = 100;
        else o.limits.frames = 59; /* entries 0 and 3 have 60 frames: entry 0 fails */
        ganim_doc *doc = NULL;
        ganim_error e;
        memset(&e, 0, sizeof e);
        ganim_code c = ganim_read_memory(data, size, &o, &doc, &e);
        CHECK_MSG(c == GANIM_ERR_LIMIT && doc == NULL, "limit %d: code %d", k, (int)c);
        CHECK_MSG(e.offset == 4, "limit %d: offset %llu", k, (unsigned long long)e.offset);
        static const char *const want[] = {
            "ff7-battle: entry 0 announces 60 frames, more than the limit of 5 (ganim_limits.frames)",
            ("ff7-battle: entry 0 announces 60 frames of 7 bones, more than the limit of 100 bone-frames "
             "(ganim_limits.samples)"),
            "ff7-battle: entry 0 announces 60 frames, more than the limit of 59 (ganim_limits.frames)",
        };
        CHECK_MSG(strcmp(e.message, want[k]) == 0, "limit %d: '%s'", k, e.message);
        ganim_doc_free(doc);
    }
done:
    ganim_doc_free(sdoc);
    free(data);
}

int main(void)
{
    RUN(every_truncation);
    RUN(header_byte_flips);
    RUN(damaged_skeletons);
    RUN(entry_over_the_limits);
    return test_finish();
}
