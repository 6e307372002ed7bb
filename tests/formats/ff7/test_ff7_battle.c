/* FF7 battle packs and skeletons against the known answers of $GANIM_TESTDATA/ff7
 * (NAME.expected.json, NAME.aa.expected.json; schema in that directory's README). */
#include "test_ff7_common.h"

/* three.js' YXZ Euler -> quaternion (R = Ry * Rx * Rz), written out independently. */
static void yxz_quat(double dx, double dy, double dz, double q[4])
{
    double a = dx * 3.14159265358979323846 / 360.0, b = dy * 3.14159265358979323846 / 360.0,
           c = dz * 3.14159265358979323846 / 360.0;
    double c1 = cos(a), c2 = cos(b), c3 = cos(c), s1 = sin(a), s2 = sin(b), s3 = sin(c);
    q[0] = s1 * c2 * c3 + c1 * s2 * s3;
    q[1] = c1 * s2 * c3 - s1 * c2 * s3;
    q[2] = c1 * c2 * s3 - s1 * s2 * c3;
    q[3] = c1 * c2 * c3 + s1 * s2 * s3;
}

static const ganim_track *track_for(const ganim_clip *clip, uint32_t bone)
{
    for (uint32_t i = 0; i < clip->track_count; i++)
        if (clip->tracks[i].bone == bone) return &clip->tracks[i];
    return NULL;
}

static int32_t bone_named(const ganim_skeleton *sk, const char *name)
{
    for (uint32_t i = 0; i < sk->bone_count; i++)
        if (strcmp(sk->bones[i].name, name) == 0) return (int32_t)i;
    return -1;
}

/* Every field and every value of one entry. `exact_slots`: the doc was read so that
 * this entry's slot count is the expected one. */
static void check_entry(const char *file, const ganim_doc *doc, uint32_t i, const tjson *ex, int with_skel)
{
    const ganim_clip *clip = &doc->clips[i];
    const char *kind = tjson_str(tjson_get(ex, "kind"), "");
    const char *role = tjson_str(tjson_get(ex, "role"), "");
    char name[64];
    tjson *d = ff7_describe(doc, (int)i, GANIM_DETAILS_FULL);
    CHECK_MSG(d != NULL, "%s entry %u: no describe output", file, i);
    if (!d) return;
    CHECK_EQ_INT(tjson_int(tjson_get(d, "dwBones"), -1), tjson_int(tjson_get(ex, "dwBones"), -2));
    CHECK_EQ_INT(tjson_int(tjson_get(d, "dwFrames"), -1), tjson_int(tjson_get(ex, "dwFrames"), -2));
    CHECK_EQ_INT(tjson_int(tjson_get(d, "dwChunkSize"), -1), tjson_int(tjson_get(ex, "dwChunkSize"), -2));
    if (strcmp(kind, "special") == 0) {
        snprintf(name, sizeof name, "special_%u", i);
        CHECK_EQ_STR(clip->name, name);
        CHECK_EQ_INT(clip->kind, GANIM_CLIP_OPAQUE);
        CHECK_MSG(ff7_hex_equal(tjson_str(tjson_get(ex, "raw_hex"), "?"), clip->opaque, clip->opaque_size),
                  "%s entry %u: special bytes differ", file, i);
        CHECK_EQ_STR(tjson_str(tjson_get(d, "raw_hex"), ""), tjson_str(tjson_get(ex, "raw_hex"), "?"));
        tjson_free(d);
        return;
    }
    snprintf(name, sizeof name, "%s_%u", with_skel ? role : "anim", i);
    CHECK_EQ_STR(clip->name, name);
    if (with_skel) CHECK_EQ_STR(tjson_str(tjson_get(d, "role"), ""), role);
    CHECK_EQ_INT(clip->kind, GANIM_CLIP_ANIMATION);
    CHECK_NEAR(clip->fps, 15.0, 0);
    CHECK_EQ_STR(clip->native_format, "ff7-battle");
    CHECK_EQ_STR(tjson_str(tjson_get(d, "layout"), ""), tjson_str(tjson_get(ex, "layout"), "?"));
    const tjson *sf = tjson_get(ex, "sFrames");
    if (sf && sf->type == TJSON_NULL) CHECK(tjson_get(d, "sFrames") && tjson_get(d, "sFrames")->type == TJSON_NULL);
    else CHECK_EQ_INT(tjson_int(tjson_get(d, "sFrames"), -1), tjson_int(sf, -2));
    CHECK_EQ_INT(tjson_int(tjson_get(d, "sSize"), -1), tjson_int(tjson_get(ex, "sSize"), -2));
    CHECK_EQ_INT(tjson_int(tjson_get(d, "bKey"), -1), tjson_int(tjson_get(ex, "bKey"), -2));
    CHECK_EQ_INT(tjson_int(tjson_get(d, "slots"), -1), tjson_int(tjson_get(ex, "slots"), -2));
    CHECK_EQ_INT(tjson_int(tjson_get(d, "stream_bits"), -1), tjson_int(tjson_get(ex, "stream_bits"), -2));
    const tjson *sc = tjson_get(d, "shortest_codes"), *esc = tjson_get(ex, "shortest_codes");
    CHECK(sc && esc && sc->type == TJSON_BOOL && esc->type == TJSON_BOOL && sc->boolean == esc->boolean);
    CHECK_EQ_STR(tjson_str(tjson_get(d, "trailer_hex"), ""), tjson_str(tjson_get(ex, "trailer_hex"), "?"));
    int64_t nf = tjson_int(tjson_get(ex, "frames_decoded"), -1);
    CHECK_EQ_INT(clip->frame_count, nf);
    CHECK_EQ_INT(tjson_int(tjson_get(d, "frames"), -1), nf);
    const tjson *frames = tjson_get(ex, "frames");
    const tjson *pos = tjson_get(d, "positions"), *rot = tjson_get(d, "rotations");
    CHECK(frames && pos && rot && (int64_t)frames->count == nf && pos->count == frames->count &&
          rot->count == frames->count);
    if (!frames || !pos || !rot || pos->count != frames->count || rot->count != frames->count) {
        tjson_free(d);
        return;
    }
    /* Model: weapon entries animate the "weapon" bone, the rest the root and slot bones. */
    int weapon = strcmp(role, "weapon") == 0 && with_skel;
    uint32_t pos_bone = weapon ? (uint32_t)bone_named(doc->skeleton, "weapon") : 0;
    const ganim_track *pt = track_for(clip, pos_bone);
    CHECK(pt && pt->translation.kind == GANIM_CHANNEL_PER_FRAME);
    int bad = 0;
    for (size_t f = 0; f < frames->count && bad < 5; f++) {
        const tjson *fr = &frames->items[f];
        const tjson *ep = tjson_get(fr, "position"), *er = tjson_get(fr, "rotations"), *ed = tjson_get(fr, "degrees");
        for (size_t k = 0; k < 3; k++) {
            int64_t want = tjson_int(tjson_at(ep, k), 1 << 30);
            if (tjson_int(tjson_at(&pos->items[f], k), -1) != want ||
                (pt && pt->translation.values[f * 3 + k] != (float)want)) {
                test_fail(__FILE__, __LINE__, "%s entry %u frame %zu: position %zu differs", file, i, f, k);
                bad++;
            }
        }
        CHECK_EQ_INT(rot->items[f].count, er->count);
        for (size_t s = 0; s < er->count && s < rot->items[f].count; s++) {
            double deg[3];
            for (size_t k = 0; k < 3; k++) {
                int64_t want = tjson_int(tjson_at(tjson_at(er, s), k), -1);
                int64_t got = tjson_int(tjson_at(tjson_at(&rot->items[f], s), k), -2);
                deg[k] = tjson_num(tjson_at(tjson_at(ed, s), k), -1);
                if (got != want || (double)got * 360.0 / 4096.0 != deg[k]) {
                    test_fail(__FILE__, __LINE__,
                              "%s entry %u frame %zu slot %zu axis %zu: "
                              "%lld, expected %lld (%g deg)",
                              file, i, f, s, k, (long long)got, (long long)want, deg[k]);
                    bad++;
                }
            }
            /* the model quaternion is R = Ry Rx Rz of the stated degrees */
            uint32_t bone = weapon ? pos_bone : (uint32_t)s;
            const ganim_track *t = track_for(clip, bone);
            if (!t || t->rotation.kind != GANIM_CHANNEL_PER_FRAME) {
                test_fail(__FILE__, __LINE__, "%s entry %u: no rotation track for slot %zu", file, i, s);
                bad++;
                continue;
            }
            double q[4];
            yxz_quat(deg[0], deg[1], deg[2], q);
            const float *v = t->rotation.values + f * 4;
            double dot = q[0] * v[0] + q[1] * v[1] + q[2] * v[2] + q[3] * v[3];
            if (fabs(fabs(dot) - 1.0) > 1e-6) {
                test_fail(__FILE__, __LINE__,
                          "%s entry %u frame %zu slot %zu: quaternion off "
                          "(dot %.9f)",
                          file, i, f, s, dot);
                bad++;
            }
        }
    }
    tjson_free(d);
}

static void check_skeleton(const char *da, const ganim_doc *sdoc)
{
    char *jp = ff7_sibling(da, ".aa.expected.json");
    char msg[256];
    tjson *ex = tjson_parse_file(jp, msg, sizeof msg);
    CHECK_MSG(ex != NULL, "%s: %s", jp, msg);
    free(jp);
    if (!ex || !sdoc) {
        tjson_free(ex);
        return;
    }
    const ganim_skeleton *sk = sdoc->skeleton;
    const tjson *h = tjson_get(ex, "header"), *bones = tjson_get(ex, "bones");
    int64_t n = tjson_int(tjson_get(h, "nBones"), -1);
    int weapon = tjson_int(tjson_get(h, "nsWeaponsAnims"), 0) > 0;
    CHECK_EQ_STR(sk->native_format, "ff7-skeleton");
    CHECK_EQ_INT(sk->native_size, tjson_int(tjson_get(ex, "file_size"), -1));
    CHECK_EQ_INT(sk->bone_count, n + 1 + weapon);
    CHECK_EQ_INT(sdoc->axes, GANIM_AXES_Y_DOWN);
    /* the 13 header words, as describe reports them and as the record keeps them */
    tjson *d = ff7_describe(sdoc, -1, GANIM_DETAILS_SUMMARY);
    CHECK(d && h && d->count == 13 && h->count == 13);
    for (size_t k = 0; d && h && k < h->count && k < 13; k++) {
        int64_t want = tjson_int(&h->items[k], -1);
        CHECK_EQ_INT(tjson_int(tjson_get(d, h->keys[k]), -2), want);
        const uint8_t *p = sk->native + 4 * k;
        CHECK_EQ_INT((uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24), want);
    }
    tjson_free(d);
    CHECK_EQ_STR(sk->bones[0].name, "root");
    CHECK_EQ_INT(sk->bones[0].parent, -1);
    CHECK(bones && (int64_t)bones->count == n);
    for (size_t i = 0; bones && i < bones->count && i + 1 < sk->bone_count; i++) {
        const tjson *b = &bones->items[i];
        const ganim_bone *mb = &sk->bones[i + 1];
        char name[32];
        snprintf(name, sizeof name, "bone_%zu", i);
        CHECK_EQ_STR(mb->name, name);
        int64_t parent = tjson_int(tjson_get(b, "parent"), -9);
        CHECK_EQ_INT(mb->parent, parent < 0 ? 0 : parent + 1);
        float len_parent = parent < 0 ? 0.0f : (float)tjson_num(tjson_get(&bones->items[parent], "length"), 1);
        CHECK(mb->rest.translation.x == 0 && mb->rest.translation.y == 0 && mb->rest.translation.z == len_parent);
        CHECK_EQ_INT((mb->flags & GANIM_BONE_HIDDEN) != 0, tjson_int(tjson_get(b, "has_model"), 1) == 0);
        /* bone record bytes: parent, length as stored */
        const uint8_t *p = sk->native + 52 + 12 * i;
        float len;
        memcpy(&len, p + 4, 4);
        CHECK(len == (float)tjson_num(tjson_get(b, "length"), 1));
    }
    if (weapon) {
        CHECK_EQ_STR(sk->bones[sk->bone_count - 1].name, "weapon");
        CHECK_EQ_INT(sk->bones[sk->bone_count - 1].parent, -1);
    }
    tjson_free(ex);
}

static void check_pack(const char *da, int with_skel)
{
    char *jp = ff7_sibling(da, ".expected.json");
    char msg[256];
    tjson *ex = tjson_parse_file(jp, msg, sizeof msg);
    CHECK_MSG(ex != NULL, "%s: %s", jp, msg);
    free(jp);
    if (!ex) return;
    size_t size;
    uint8_t *data = test_read_file(da, &size);
    CHECK_EQ_INT(size, tjson_int(tjson_get(ex, "file_size"), -1));
    ganim_doc *sdoc = ff7_read_skeleton(da);
    if (with_skel) check_skeleton(da, sdoc);
    ganim_error e;
    memset(&e, 0, sizeof e);
    ganim_doc *doc = ff7_read_pack_mem(data, size, with_skel && sdoc ? sdoc->skeleton : NULL, &e);
    CHECK_MSG(doc != NULL, "%s: %s", da, e.message);
    const tjson *entries = tjson_get(ex, "entries");
    if (doc && entries) {
        CHECK_EQ_INT(doc->clip_count, tjson_int(tjson_get(ex, "nEntries"), -1));
        CHECK_EQ_INT(doc->axes, GANIM_AXES_Y_DOWN);
        CHECK(ganim_doc_validate(doc, &e) == GANIM_OK);
        tjson *dd = ff7_describe(doc, -1, GANIM_DETAILS_SUMMARY);
        CHECK_EQ_INT(tjson_int(tjson_get(dd, "nEntries"), -1), tjson_int(tjson_get(ex, "nEntries"), -2));
        if (with_skel) {
            CHECK_EQ_INT(tjson_int(tjson_get(dd, "body"), -1), tjson_int(tjson_get(ex, "body_entries"), -2) - 0);
        }
        tjson_free(dd);
        for (uint32_t i = 0; i < doc->clip_count && i < entries->count; i++) {
            const tjson *en = &entries->items[i];
            CHECK_EQ_INT(tjson_int(tjson_get(en, "index"), -1), i);
            /* Without the skeleton the slot count comes from dwBones: the values are the
             * known answers only where dwBones equals the slots the skeleton gives. */
            if (!with_skel && strcmp(tjson_str(tjson_get(en, "kind"), ""), "animation") == 0 &&
                tjson_int(tjson_get(en, "dwBones"), -1) != tjson_int(tjson_get(en, "slots"), -2))
                continue;
            check_entry(ff7_base(da), doc, i, en, with_skel);
        }
    }
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    free(data);
    tjson_free(ex);
}

static char **packs(void)
{
    char **list = test_list_dir(test_path("ff7", ""), ".da");
    size_t n = 0;
    while (list[n]) n++;
    CHECK_MSG(n >= 10, "expected the 10 packs of the README, found %zu", n);
    return list;
}

TEST(known_answers_with_skeleton)
{
    char **list = packs();
    for (size_t i = 0; list[i]; i++) check_pack(list[i], 1);
    test_free_list(list);
}

TEST(known_answers_without_skeleton)
{
    char **list = packs();
    for (size_t i = 0; list[i]; i++) check_pack(list[i], 0);
    test_free_list(list);
}

/* Body special slots are counted in the roles (special_slots.da). */
TEST(roles_and_body_counts)
{
    const char *da = test_path("ff7", "special_slots.da");
    ganim_doc *sdoc = ff7_read_skeleton(da);
    size_t size;
    uint8_t *data = test_read_file(da, &size);
    ganim_error e;
    ganim_doc *doc = ff7_read_pack_mem(data, size, sdoc->skeleton, &e);
    CHECK(doc != NULL);
    if (doc) {
        tjson *d = ff7_describe(doc, -1, GANIM_DETAILS_SUMMARY);
        /* README: 7 body / 7 weapon / 2 extra entries, 9 of them special */
        CHECK_EQ_INT(tjson_int(tjson_get(d, "body"), -1), 7);
        CHECK_EQ_INT(tjson_int(tjson_get(d, "weapon"), -1), 7);
        CHECK_EQ_INT(tjson_int(tjson_get(d, "extra"), -1), 2);
        CHECK_EQ_INT(tjson_int(tjson_get(d, "special"), -1), 9);
        tjson_free(d);
        CHECK_EQ_STR(doc->clips[14].name, "extra_14");
        CHECK_EQ_STR(doc->clips[7].name, "weapon_7");
    }
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    free(data);
}

/* Probing picks the right reader for both kinds of file. */
TEST(probe)
{
    char **list = packs();
    for (size_t i = 0; list[i]; i++) {
        size_t size;
        uint8_t *data = test_read_file(list[i], &size);
        const ganim_format *f = ganim_probe(data, size, NULL);
        CHECK_MSG(f && strcmp(f->name, "ff7-battle") == 0, "%s probed as %s", list[i], f ? f->name : "nothing");
        free(data);
        char *aa = ff7_sibling(list[i], ".aa");
        data = test_read_file(aa, &size);
        f = ganim_probe(data, size, NULL);
        CHECK_MSG(f && strcmp(f->name, "ff7-skeleton") == 0, "%s probed as %s", aa, f ? f->name : "nothing");
        free(data);
        free(aa);
    }
    test_free_list(list);
}

int main(void)
{
    RUN(known_answers_with_skeleton);
    RUN(known_answers_without_skeleton);
    RUN(roles_and_body_counts);
    RUN(probe);
    return test_finish();
}
