/* The civ7-skeleton reader (Civilization VII "RootNode" blobs): the project's humanoid
 * fixture (made by tests/support/tciv7skel.c, `test_civ7_skel --write-fixtures
 * tests/data/acl`) reads back bone for bone; damaged blobs are refused at the byte that
 * is wrong and not taken by the probe; no other format's sample or fixture probes as a
 * skeleton blob. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ganim.h"
#include "support/tciv7skel.h"
#include "test.h"

#define H 0.70710678f /* sin and cos of 45 degrees */
#define FIXTURE "fixture_humanoid.skel"

/* A small humanoid, Y up, in centimetres, built by hand: the root, hips, a spine of three,
 * neck and head, two arms of four (the clavicles turned 90 degrees about Z, so the arm
 * runs along the clavicle's Y) and two legs of three. */
static const tciv7_bone humanoid[] = {
    { "RootNode", -1, { 0, 0, 0 }, { 0, 0, 0, 1 } },    { "Hips", 0, { 0, 95, 0 }, { 0, 0, 0, 1 } },
    { "Spine", 1, { 0, 10, 0 }, { 0, 0, 0, 1 } },       { "Chest", 2, { 0, 15, 0 }, { 0, 0, 0, 1 } },
    { "Neck", 3, { 0, 20, 0 }, { 0, 0, 0, 1 } },        { "Head", 4, { 0, 10, 2 }, { 0.08715574f, 0, 0, 0.9961947f } },
    { "L_Clavicle", 3, { 5, 17, 0 }, { 0, 0, -H, H } }, { "L_UpperArm", 6, { 0, 14, 0 }, { 0, 0, 0, 1 } },
    { "L_Forearm", 7, { 0, 28, 0 }, { 0, 0, 0, 1 } },   { "L_Hand", 8, { 0, 25, 0 }, { 0, 0, 0, 1 } },
    { "R_Clavicle", 3, { -5, 17, 0 }, { 0, 0, H, H } }, { "R_UpperArm", 10, { 0, 14, 0 }, { 0, 0, 0, 1 } },
    { "R_Forearm", 11, { 0, 28, 0 }, { 0, 0, 0, 1 } },  { "R_Hand", 12, { 0, 25, 0 }, { 0, 0, 0, 1 } },
    { "L_Thigh", 1, { 9, -5, 0 }, { 0, 0, 1, 0 } },     { "L_Calf", 14, { 0, 42, 0 }, { 0, 0, 0, 1 } },
    { "L_Foot", 15, { 0, 40, 0 }, { -H, 0, 0, H } },    { "R_Thigh", 1, { -9, -5, 0 }, { 0, 0, 1, 0 } },
    { "R_Calf", 17, { 0, 42, 0 }, { 0, 0, 0, 1 } },     { "R_Foot", 18, { 0, 40, 0 }, { -H, 0, 0, H } },
};
#define NB ((uint32_t)(sizeof humanoid / sizeof humanoid[0]))

static uint8_t *humanoid_blob(size_t *size) { return tciv7_skel(humanoid, NB, 0.1f, size); }

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

TEST(fixture_is_current)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/acl/%s", GANIM_SOURCE_DIR, FIXTURE);
    size_t n, m;
    uint8_t *want = humanoid_blob(&n), *have = test_read_file(path, &m);
    CHECK_MSG(n == m && memcmp(want, have, n) == 0,
              "%s differs from what tciv7skel.c makes (regenerate: test_civ7_skel --write-fixtures tests/data/acl)",
              FIXTURE);
    free(want);
    free(have);
}

TEST(humanoid_reads_bone_for_bone)
{
    size_t n;
    uint8_t *blob = humanoid_blob(&n);
    CHECK_EQ_INT(n, NB * 296u);
    int score = 0;
    const ganim_format *f = ganim_probe(blob, n, &score);
    CHECK(f && strcmp(f->name, "civ7-skeleton") == 0);
    CHECK_EQ_INT(score, 50); /* "RootNode" first, parents before children */
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_memory(blob, n, NULL, &doc, &e) == GANIM_OK, "%s", e.message);
    if (doc) {
        CHECK_EQ_INT(doc->clip_count, 0);
        CHECK_EQ_INT(doc->warning_count, 0);
        CHECK(doc->skeleton && doc->skeleton->bone_count == NB);
        for (uint32_t i = 0; doc->skeleton && i < NB; i++) {
            const ganim_bone *b = &doc->skeleton->bones[i];
            CHECK_EQ_STR(b->name, humanoid[i].name);
            CHECK_EQ_INT(b->parent, humanoid[i].parent);
            CHECK_EQ_INT(b->flags, 0); /* real bones: --skeleton takes them */
            CHECK(b->rest.translation.x == humanoid[i].t[0] && b->rest.translation.y == humanoid[i].t[1] &&
                  b->rest.translation.z == humanoid[i].t[2]);
            const float *q = humanoid[i].q;
            CHECK(fabsf(b->rest.rotation.x - q[0]) < 1e-7f && fabsf(b->rest.rotation.y - q[1]) < 1e-7f &&
                  fabsf(b->rest.rotation.z - q[2]) < 1e-7f && fabsf(b->rest.rotation.w - q[3]) < 1e-7f);
            CHECK(b->rest.scale.x == 1.0f && b->rest.scale.y == 1.0f && b->rest.scale.z == 1.0f);
        }
        ganim_doc_free(doc);
    }
    free(blob);
}

/* One damaged copy of the humanoid: a patch, the code and offset the read must give. */
TEST(damaged_blobs_are_refused_where_they_are_wrong)
{
    size_t n;
    uint8_t *good = humanoid_blob(&n);
    const ganim_format *fmt = ganim_format_find("civ7-skeleton");
    enum { NAME_NO_NUL, NAME_CONTROL, NAME_EMPTY, NAN_WORLD, INF_LOCAL, PARENT_HIGH, PARENT_LOW, SELF, SHORT, LONG };
    for (int k = NAME_NO_NUL; k <= LONG; k++) {
        uint8_t *b = malloc(n + 1);
        memcpy(b, good, n);
        b[n] = 0;
        size_t size = n;
        ganim_code want = GANIM_ERR_CORRUPT;
        uint64_t at = 0;
        size_t r7 = 7u * 296u;
        switch (k) {
        case NAME_NO_NUL:
            memset(b + r7, 'A', 160);
            at = r7;
            break;
        case NAME_CONTROL:
            b[r7 + 2] = '\n';
            at = r7;
            break;
        case NAME_EMPTY:
            b[r7] = 0;
            at = r7;
            break;
        case NAN_WORLD:
            put32(b + r7 + 0xC4, 0x7FC00000u);
            at = r7 + 0xC4;
            break;
        case INF_LOCAL:
            put32(b + r7 + 0xF8, 0x7F800000u);
            at = r7 + 0xF8;
            break;
        case PARENT_HIGH:
            put32(b + r7 + 0x124, NB);
            at = r7 + 0x124;
            break;
        case PARENT_LOW:
            put32(b + r7 + 0x124, (uint32_t)-2);
            at = r7 + 0x124;
            break;
        case SELF:
            put32(b + r7 + 0x124, 7);
            at = r7 + 0x124;
            break;
        case SHORT:
            size = n - 1;
            at = n - 296;
            break;
        case LONG:
            size = n + 1;
            at = n;
            break;
        }
        CHECK_MSG(ganim_format_probe(fmt, b, size) == 0, "case %d: probed", k);
        ganim_read_opts ro = { 0 };
        ro.format = "civ7-skeleton";
        ganim_doc *doc = NULL;
        ganim_error e = { 0 };
        CHECK_EQ_INT(ganim_read_memory(b, size, &ro, &doc, &e), want);
        CHECK_MSG(e.offset == at, "case %d: offset %llu, want %llu (%s)", k, (unsigned long long)e.offset,
                  (unsigned long long)at, e.message);
        CHECK_MSG(strstr(e.message, "civ7-skeleton"), "%s", e.message);
        CHECK(doc == NULL);
        free(b);
    }
    /* fewer than one record: truncated at 0 */
    ganim_read_opts ro = { 0 };
    ro.format = "civ7-skeleton";
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK_EQ_INT(ganim_read_memory(good, 100, &ro, &doc, &e), GANIM_ERR_TRUNCATED);
    CHECK_EQ_INT(e.offset, 0);
    /* more bones than the caller allows: refused before anything is allocated */
    ro.limits.bones = NB - 1;
    CHECK_EQ_INT(ganim_read_memory(good, n, &ro, &doc, &e), GANIM_ERR_LIMIT);
    free(good);
}

/* A parent after its child: read (the bone becomes a root, with a warning), and the
 * probe is less sure; a rotation off unit length is normalised with a warning. */
TEST(late_parents_and_long_rotations_are_repaired)
{
    tciv7_bone bones[3] = { humanoid[0], humanoid[1], humanoid[2] };
    bones[1].parent = 2;
    bones[2].parent = 0;
    bones[2].q[3] = 2.0f;
    size_t n;
    uint8_t *b = tciv7_skel(bones, 3, 0.1f, &n);
    CHECK_EQ_INT(ganim_format_probe(ganim_format_find("civ7-skeleton"), b, n), 25);
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_memory(b, n, NULL, &doc, &e) == GANIM_OK, "%s", e.message);
    if (doc) {
        CHECK_EQ_INT(doc->skeleton->bones[1].parent, -1);
        CHECK_EQ_INT(doc->skeleton->bones[2].parent, 0);
        CHECK(doc->skeleton->bones[2].rest.rotation.w == 1.0f);
        CHECK_EQ_INT(doc->warning_count, 2);
        ganim_doc_free(doc);
    }
    free(b);
}

/* No other format's file is taken for a skeleton blob: the probe has no magic number. */
TEST(no_other_file_probes_as_a_skeleton)
{
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    const ganim_format *skel = ganim_format_find("civ7-skeleton");
    int files = 0;
    for (int which = TEST_FIXTURES; which >= TEST_SAMPLES; which--) {
        if (which == TEST_SAMPLES && !test_testdata_optional()) {
            test_note_skip("test_civ7_skel no_other_file_probes_as_a_skeleton (the real samples)");
            break;
        }
        for (size_t i = 0; i < count; i++) {
            if (all[i] == skel) continue;
            char **list = test_format_files(all[i], which);
            for (char **p = list; *p; p++) {
                size_t n;
                uint8_t *d = test_read_file(*p, &n);
                CHECK_MSG(ganim_format_probe(skel, d, n) == 0, "%s probes as a civ7 skeleton", *p);
                files++;
                free(d);
            }
            test_free_list(list);
        }
    }
    CHECK(files > 20);
}

static int write_fixture(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, FIXTURE);
    size_t n;
    uint8_t *b = humanoid_blob(&n);
    int ok = b && test_write_file(path, b, n) == 0;
    printf("%s: %zu bytes%s\n", path, n, ok ? "" : " NOT WRITTEN");
    free(b);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    test_program_name = "test_civ7_skel";
    if (argc == 3 && strcmp(argv[1], "--write-fixtures") == 0) return write_fixture(argv[2]);
    RUN(fixture_is_current);
    RUN(humanoid_reads_bone_for_bone);
    RUN(damaged_blobs_are_refused_where_they_are_wrong);
    RUN(late_parents_and_long_rotations_are_repaired);
    RUN(no_other_file_probes_as_a_skeleton);
    return test_finish();
}
