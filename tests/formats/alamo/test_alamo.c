/* Alamo .ALA/.ALO against the real samples in $GANIM_TESTDATA/alamo.
 * Known answers: the table below is the README's table (frames, fps, tracks, format,
 * paired model). Track indices and mini-chunk 10 are read by an independent little
 * chunk walker in this file, not by the library. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "support/tbuild.h"
#include "test.h"

typedef struct sample {
    const char *ala;
    uint32_t frames;
    double fps;
    uint32_t tracks;
    int version;
    const char *alo; /* NULL: no model in the sample set */
    uint32_t alo_bones;
} sample;

/* From /work/shared/testdata/alamo/README.md. */
static const sample samples[] = {
    { "VSG_SLAVE_I_D_DIE_00.ALA", 87, 30, 4, 1, "VSG_SLAVE_I_D.ALO", 5 },
    { "VCCo_IPV1_D_DIE_00.ALA", 72, 30, 10, 1, "VCCo_IPV1_D.ALO", 11 },
    { "W_PLANET_DAGOBAH_HIGH_IDLE_00.ALA", 240, 1, 2, 1, "W_PLANET_DAGOBAH_HIGH.ALO", 3 },
    { "VCCr_MC80_LIBERTY_D_DIE_00.ALA", 601, 10, 78, 1, "VCCr_MC80_LIBERTY_D.ALO", 79 },
    { "VSF_XWING_DEPLOY_00.ALA", 29, 30, 21, 2, "VSF_XWING.ALO", 22 },
    { "VSF_AUREK_DEPLOY_00.ala", 27, 30, 17, 2, "VSF_AUREK.ALO", 18 },
    { "BM_BERTH_D_DIE_00.ala", 101, 30, 12, 2, "BM_BERTH_D.ALO", 13 },
    { "W_PLANET_EBAQ_LOW_IDLE_00.ala", 58, 1, 11, 2, "W_PLANET_EBAQ_LOW.ALO", 12 },
    { "VCFr_VICTORY_II_D_DIE_00.ala", 131, 25, 27, 2, "VCFr_VICTORY_II_D.ALO", 28 },
    { "BM_OR_STARBASE_3_D_DIE_00.ala", 701, 30, 45, 2, "BM_OR_STARBASE_3_D.ALO", 46 },
    { "RVBm_C_STARBASE_COMM_ARRAY_IDLE_00.ala", 2001, 30, 7, 2, "RVBm_C_STARBASE_COMM_ARRAY.ALO", 8 },
    { "VCBa_HOMEONE_D_DIE_00.ALA", 1301, 30, 96, 2, "VCBa_HOMEONE_D.ALO", 97 },
    { "RB_TLTower_Attack_00.ala", 11, 30, 27, 1, "RB_TLTower.alo", 28 },
    { "RB_TLTower_Build_00.ala", 301, 30, 27, 1, "RB_TLTower.alo", 28 },
    { "UB_DroidWorks_Hold_00.ala", 2, 30, 63, 2, NULL, 0 },
    { "UV_CanderousAssaultTank_Attack_00.ala", 16, 30, 29, 2, "UV_CanderousAssaultTank.alo", 30 },
    { "W_Grenade_Idle_00.ala", 26, 30, 2, 2, "W_Grenade.alo", 3 },
    { "EV_AT-Barge_D_Die_00.ala", 93, 30, 11, 2, "EV_AT-Barge_D.alo", 12 },
    { "NV_PSkiff_Underworld_Idle_00.ala", 61, 30, 18, 2, "NV_PSkiff_Underworld.alo", 19 },
};
#define NSAMPLES (sizeof samples / sizeof samples[0])

static const sample *find_sample(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < NSAMPLES; i++)
        if (strcmp(samples[i].ala, base) == 0) return &samples[i];
    return NULL;
}

/* ---- independent walker: per track (index, mini 10, name) ---------------------- */
typedef struct walked {
    uint32_t index;
    int unk10; /* -1 absent */
    char name[256];
} walked;

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

static size_t walk_tracks(const uint8_t *d, size_t n, walked *out, size_t max)
{
    size_t count = 0;
    if (n < 8 || le32(d) != 0x1000) return 0;
    size_t end = 8 + (le32(d + 4) & 0x7FFFFFFF), p = 8;
    while (p + 8 <= end && end <= n) {
        uint32_t type = le32(d + p), len = le32(d + p + 4) & 0x7FFFFFFF;
        if (type == 0x1002 && count < max) {
            walked *w = &out[count++];
            memset(w, 0, sizeof *w);
            w->unk10 = -1;
            size_t q = p + 8; /* first child: 0x1003 */
            uint32_t hlen = le32(d + q + 4) & 0x7FFFFFFF;
            for (size_t m = q + 8; m + 2 <= q + 8 + hlen; m += 2u + d[m + 1]) {
                const uint8_t *b = d + m + 2;
                if (d[m] == 4) memcpy(w->name, b, d[m + 1]);
                if (d[m] == 5) w->index = le32(b);
                if (d[m] == 10) w->unk10 = (int)le32(b);
            }
        }
        p += 8 + len;
    }
    return count;
}

/* Offsets of every chunk and mini-chunk header (minis only in 0x1001/0x1003). */
static size_t header_offsets(const uint8_t *d, size_t start, size_t end, size_t *out, size_t n, size_t max)
{
    size_t p = start;
    while (p + 8 <= end && n < max) {
        uint32_t type = le32(d + p), size = le32(d + p + 4), len = size & 0x7FFFFFFF;
        out[n++] = p;
        if (p + 8 + len > end) break;
        if (size & 0x80000000u) n = header_offsets(d, p + 8, p + 8 + len, out, n, max);
        else if (type == 0x1001 || type == 0x1003)
            for (size_t m = p + 8; m + 2 <= p + 8 + len && n < max; m += 2u + d[m + 1])
                out[n++] = m | ((size_t)1 << 62);
        p += 8 + len;
    }
    return n;
}

/* ---- helpers --------------------------------------------------------------------- */
static ganim_doc *read_alo(const char *name)
{
    size_t n;
    uint8_t *d = test_read_file(test_path("alamo", name), &n);
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    ganim_code c = ganim_read_memory(d, n, NULL, &doc, &err);
    CHECK_MSG(c == GANIM_OK, "%s: %s", name, err.message);
    if (doc) {
        CHECK_EQ_STR(doc->format->name, "alamo-alo");
        CHECK_EQ_INT(doc->clip_count, 0);
        CHECK(doc->skeleton != NULL);
        CHECK_EQ_INT(doc->axes, GANIM_AXES_Z_UP);
    }
    free(d);
    return doc;
}

static ganim_doc *read_ala(const uint8_t *d, size_t n, const ganim_skeleton *sk, ganim_error *err)
{
    ganim_read_opts o = { 0 };
    o.skeleton = sk;
    ganim_doc *doc = NULL;
    ganim_read_memory(d, n, &o, &doc, err);
    return doc;
}

static int has_warning(const ganim_doc *doc, const char *a, const char *b)
{
    for (uint32_t i = 0; i < doc->warning_count; i++)
        if (strstr(doc->warnings[i].message, a) && (!b || strstr(doc->warnings[i].message, b))) return 1;
    return 0;
}

static double rot_diff(const float *a, const float *b) /* sign-insensitive */
{
    double dp = 0, dm = 0;
    for (int k = 0; k < 4; k++) {
        dp = fmax(dp, fabs(a[k] - b[k]));
        dm = fmax(dm, fabs(a[k] + b[k]));
    }
    return fmin(dp, dm);
}

/* ---- tests ----------------------------------------------------------------------- */
TEST(every_sample_decodes)
{
    char **list = test_list_dir(test_path("alamo", ""), ".ala");
    int files = 0, static_checked = 0, static_away = 0, flagged = 0;
    for (char **f = list; *f; f++) {
        const sample *s = find_sample(*f);
        CHECK_MSG(s != NULL, "%s is not in the README table", *f);
        if (!s) continue;
        files++;
        ganim_doc *alo = s->alo ? read_alo(s->alo) : NULL;
        if (alo) CHECK_EQ_INT(alo->skeleton->bone_count, s->alo_bones);
        size_t n;
        uint8_t *d = test_read_file(*f, &n);
        ganim_error err = { 0 };
        ganim_doc *doc = read_ala(d, n, alo ? alo->skeleton : NULL, &err);
        CHECK_MSG(doc != NULL, "%s: %s", s->ala, err.message);
        if (!doc) continue;
        CHECK_EQ_STR(doc->format->name, "alamo-ala");
        CHECK_EQ_INT(doc->clip_count, 1);
        CHECK_EQ_INT(doc->axes, GANIM_AXES_Z_UP);
        const ganim_clip *c = &doc->clips[0];
        CHECK_EQ_INT(c->frame_count, s->frames);
        CHECK_NEAR(c->fps, s->fps, 0);
        CHECK_EQ_INT(c->track_count, s->tracks);
        /* only the known name mismatch warns */
        int expect_warn = strcmp(s->ala, "BM_OR_STARBASE_3_D_DIE_00.ala") == 0;
        CHECK_MSG((int)doc->warning_count == expect_warn, "%s: %u warnings, first: %s", s->ala, doc->warning_count,
                  doc->warning_count ? doc->warnings[0].message : "");
        /* format version in the details */
        char *json = test_details_json(doc, -1, GANIM_DETAILS_SUMMARY);
        char want[32];
        snprintf(want, sizeof want, "{\"version\":%d", s->version);
        CHECK_MSG(json && strncmp(json, want, strlen(want)) == 0, "%s: details %s", s->ala, json ? json : "");
        free(json);

        walked w[128];
        size_t nw = walk_tracks(d, n, w, 128);
        CHECK_EQ_INT(nw, s->tracks);
        for (uint32_t ti = 0; ti < c->track_count && ti < nw; ti++) {
            const ganim_track *t = &c->tracks[ti];
            if (alo && w[ti].unk10 == 1) flagged++;
            CHECK_EQ_INT(t->bone, w[ti].index);
            CHECK_EQ_STR(t->name, w[ti].name);
            for (uint32_t v = 0; v < t->rotation.count; v++) {
                const float *q = t->rotation.values + 4 * v;
                double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                CHECK_MSG(fabs(len - 1) <= 1e-3, "%s track %u frame %u: |q| = %f", s->ala, ti, v, len);
            }
            /* static track vs the model's rest pose */
            if (!alo || t->rotation.kind != GANIM_CHANNEL_CONSTANT || t->translation.kind != GANIM_CHANNEL_CONSTANT)
                continue;
            const ganim_bone *bone = &alo->skeleton->bones[t->bone];
            const float rest_t[3] = { bone->rest.translation.x, bone->rest.translation.y, bone->rest.translation.z };
            double dr = rot_diff(t->rotation.values, &bone->rest.rotation.x), dt = 0;
            for (int k = 0; k < 3; k++) dt = fmax(dt, fabs(t->translation.values[k] - rest_t[k]));
            int at_rest = dr <= 1e-3 && dt <= 1e-3;
            static_checked++;
            /* Mini-chunk 10 = 1 marks "holds the rest pose" (alamo.md 3.8): then it must
             * match. Static tracks with 0 are poses held away from rest (or Blender
             * output, which always writes 0) and are counted. */
            if (w[ti].unk10 == 1)
                CHECK_MSG(at_rest, "%s track %s: static, flag 10 = 1, but rot diff %g trans diff %g", s->ala, t->name,
                          dr, dt);
            else if (!at_rest) static_away++;
        }
        ganim_doc_free(doc);
        ganim_doc_free(alo);
        free(d);
    }
    CHECK_EQ_INT(files, NSAMPLES);
    /* Every track flagged 10 = 1 with a model is static, so at least that many were
     * checked; in this sample set no static track holds a pose away from rest (the
     * 8 such tracks alamo.md 3.8 counts are in files outside the set). */
    CHECK_MSG(static_checked >= flagged, "%d static tracks checked, %d flagged 10 = 1", static_checked, flagged);
    CHECK_EQ_INT(static_away, 0);
    test_free_list(list);
}

TEST(name_mismatch_warns_with_both_names)
{
    ganim_doc *alo = read_alo("BM_OR_STARBASE_3_D.ALO");
    size_t n;
    uint8_t *d = test_read_file(test_path("alamo", "BM_OR_STARBASE_3_D_DIE_00.ala"), &n);
    ganim_error err = { 0 };
    ganim_doc *doc = read_ala(d, n, alo->skeleton, &err);
    CHECK(doc != NULL);
    if (doc) {
        CHECK(has_warning(doc, "'p_rb_station_damage01'", "'p_rb_station_damage'"));
        CHECK_EQ_INT(doc->clips[0].track_count, 45); /* animated by index anyway */
    }
    ganim_doc_free(doc);
    ganim_doc_free(alo);
    free(d);
}

TEST(out_of_range_index_skips_track)
{
    /* VCCo_IPV1_D_DIE_00: 10 tracks for bones 1..10 of an 11-bone model. Against the
     * first 5 bones only, tracks 5..10 (6 of them) cannot apply. */
    ganim_doc *alo = read_alo("VCCo_IPV1_D.ALO");
    ganim_skeleton small = *alo->skeleton;
    small.bone_count = 5;
    size_t n;
    uint8_t *d = test_read_file(test_path("alamo", "VCCo_IPV1_D_DIE_00.ALA"), &n);
    ganim_error err = { 0 };
    ganim_doc *doc = read_ala(d, n, &small, &err);
    CHECK_MSG(doc != NULL, "%s", err.message);
    if (doc) {
        CHECK_EQ_INT(doc->skeleton->bone_count, 5);
        CHECK_EQ_INT(doc->clips[0].track_count, 4);
        int skipped = 0;
        for (uint32_t i = 0; i < doc->warning_count; i++)
            if (strstr(doc->warnings[i].message, "outside the skeleton") && strstr(doc->warnings[i].message, "skipped"))
                skipped++;
        CHECK_EQ_INT(skipped, 6);
        for (uint32_t i = 0; i < doc->clips[0].track_count; i++) CHECK(doc->clips[0].tracks[i].bone < 5);
    }
    ganim_doc_free(doc);
    ganim_doc_free(alo);
    free(d);
}

TEST(droidworks_flat_skeleton)
{
    size_t n;
    uint8_t *d = test_read_file(test_path("alamo", "UB_DroidWorks_Hold_00.ala"), &n);
    walked w[128];
    size_t nw = walk_tracks(d, n, w, 128);
    uint32_t max = 0;
    for (size_t i = 0; i < nw; i++) max = w[i].index > max ? w[i].index : max;
    ganim_error err = { 0 };
    ganim_doc *doc = read_ala(d, n, NULL, &err);
    CHECK_MSG(doc != NULL, "%s", err.message);
    if (doc) {
        const ganim_skeleton *sk = doc->skeleton;
        CHECK(sk != NULL);
        CHECK_EQ_INT(sk->bone_count, max + 1);
        for (size_t i = 0; i < nw; i++) {
            CHECK_EQ_STR(sk->bones[w[i].index].name, w[i].name);
            CHECK(sk->bones[w[i].index].flags & GANIM_BONE_SYNTH);
        }
        CHECK_EQ_STR(sk->bones[0].name, "Root"); /* README: no ALA has a track for bone 0 */
        CHECK_EQ_INT(doc->clips[0].track_count, 63);
        CHECK_EQ_INT(doc->warning_count, 0);
        /* all frame sizes 0: every channel constant */
        for (uint32_t i = 0; i < doc->clips[0].track_count; i++)
            CHECK(doc->clips[0].tracks[i].rotation.kind == GANIM_CHANNEL_CONSTANT);
    }
    ganim_doc_free(doc);
    free(d);
}

TEST(visibility_lsb_first)
{
    /* Death animations hide parts at the end: with LSB-first bits some track is visible
     * at frame 0 and hidden from some frame to the last, in one contiguous run. */
    const char *files[] = { "VSG_SLAVE_I_D_DIE_00.ALA", "BM_BERTH_D_DIE_00.ala", "VCBa_HOMEONE_D_DIE_00.ALA" };
    for (size_t fi = 0; fi < 3; fi++) {
        size_t n;
        uint8_t *d = test_read_file(test_path("alamo", files[fi]), &n);
        ganim_error err = { 0 };
        ganim_doc *doc = read_ala(d, n, NULL, &err);
        CHECK(doc != NULL);
        int found = 0;
        for (uint32_t i = 0; doc && i < doc->clips[0].track_count; i++) {
            const ganim_clip *c = &doc->clips[0];
            const uint8_t *v = c->tracks[i].visibility;
            if (!v || !v[0] || v[c->frame_count - 1]) continue;
            uint32_t first_hidden = 0;
            while (v[first_hidden]) first_hidden++;
            int contiguous = 1;
            for (uint32_t f = first_hidden; f < c->frame_count; f++) contiguous &= v[f] == 0;
            found += contiguous;
        }
        CHECK_MSG(found > 0, "%s: no track ends hidden", files[fi]);
        ganim_doc_free(doc);
        free(d);
    }
}

static int values_equal(const ganim_clip *a, const ganim_clip *b)
{
    if (a->frame_count != b->frame_count || a->track_count != b->track_count) return 0;
    for (uint32_t i = 0; i < a->track_count; i++) {
        const ganim_track *x = &a->tracks[i], *y = &b->tracks[i];
        if (x->bone != y->bone) return 0;
        for (uint32_t f = 0; f < a->frame_count; f++) {
            float p[4], q[4];
            const float rest[4] = { 0, 0, 0, 1 };
            const ganim_channel *cx[3] = { &x->rotation, &x->translation, &x->scale };
            const ganim_channel *cy[3] = { &y->rotation, &y->translation, &y->scale };
            for (int c = 0; c < 3; c++) {
                int comps = c ? 3 : 4;
                ganim_channel_eval(cx[c], a->frame_count, NULL, GANIM_INTERP_SLERP, comps, f, rest, p);
                ganim_channel_eval(cy[c], a->frame_count, NULL, GANIM_INTERP_SLERP, comps, f, rest, q);
                if (memcmp(p, q, sizeof(float) * comps) != 0) return 0;
            }
            if (!x->visibility != !y->visibility || (x->visibility && x->visibility[f] != y->visibility[f])) return 0;
        }
    }
    return 1;
}

TEST(round_trip_bytes_and_version_conversion)
{
    char **list = test_list_dir(test_path("alamo", ""), ".ala");
    for (char **f = list; *f; f++) {
        size_t n;
        uint8_t *d = test_read_file(*f, &n);
        ganim_error err = { 0 };
        ganim_doc *doc = read_ala(d, n, NULL, &err);
        CHECK_MSG(doc != NULL, "%s: %s", *f, err.message);
        if (!doc) continue;
        ganim_buffer out = { 0 };
        CHECK(ganim_write(doc, "alamo-ala", NULL, &out, &err) == GANIM_OK);
        CHECK_MSG(out.size == n && memcmp(out.data, d, n) == 0, "%s: written %zu bytes differ from %zu", *f, out.size,
                  n);
        ganim_buffer_free(&out);
        /* the other version, and back: lossless (same quantisation) */
        const sample *s = find_sample(*f);
        int version = s && s->version == 1 ? 2 : 1;
        ganim_setting setting;
        ganim_write_opts wo = test_write_setting(&setting, "alamo.version", version == 1 ? "1" : "2");
        CHECK(ganim_write(doc, "alamo-ala", &wo, &out, &err) == GANIM_OK);
        ganim_doc *other = read_ala(out.data, out.size, NULL, &err);
        CHECK_MSG(other != NULL, "%s as version %d: %s", *f, version, err.message);
        if (other) {
            CHECK_MSG(values_equal(&doc->clips[0], &other->clips[0]), "%s: version %d changes values", *f, version);
            ganim_buffer back = { 0 };
            wo = test_write_setting(&setting, "alamo.version", !s ? NULL : s->version == 1 ? "1" : "2");
            CHECK(ganim_write(other, "alamo-ala", &wo, &back, &err) == GANIM_OK);
            /* Blender-exported files (README: default rotation truncated, not frame 0) lose
             * mini-chunk 17 in format 1, which has no place for it. */
            int blender = strstr(*f, "W_Grenade_Idle_00") || strstr(*f, "EV_AT-Barge_D_Die_00");
            if (!blender)
                CHECK_MSG(back.size == n && memcmp(back.data, d, n) == 0, "%s: converted there and back differs", *f);
            else CHECK_EQ_INT(back.size, n);
            ganim_buffer_free(&back);
        }
        ganim_doc_free(other);
        ganim_buffer_free(&out);
        ganim_doc_free(doc);
        free(d);
    }
    test_free_list(list);
}

static void channel_range(const ganim_channel *ch, float lo[3], float hi[3])
{
    for (int k = 0; k < 3; k++) lo[k] = INFINITY, hi[k] = -INFINITY;
    for (uint32_t v = 0; v < ch->count; v++)
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], ch->values[3 * v + k]);
            hi[k] = fmaxf(hi[k], ch->values[3 * v + k]);
        }
}

/* ---- game -> glb / BVH -> game ------------------------------------------------------ */
typedef struct back_stats {
    size_t values, exact, half_step; /* decoded values: same bits / within half a step */
    size_t dropped_at_rest, dropped_moving, missing_vis;
    double worst_rot, worst_vec; /* beyond exactness: radians-ish (component), units */
} back_stats;

/* Every track of `a` (the game's file, read with its skeleton) against the track of the same
 * bone in `b` (the file written back): the same decoded values, or a track dropped because it
 * held its bone exactly at rest. with_vis 0 (BVH): scales and visibility are not compared
 * (BVH holds neither; the exporter says so). A rotation is within half a 16-bit step when its components
 * are within 1/32767; a translation when within half of its own step (its range / 65535). */
static void compare_back(const ganim_clip *a, const ganim_clip *b, const ganim_skeleton *sk, int with_vis,
                         back_stats *st)
{
    for (uint32_t i = 0; i < a->track_count; i++) {
        const ganim_track *x = &a->tracks[i], *y = NULL;
        for (uint32_t j = 0; j < b->track_count; j++)
            if (b->tracks[j].bone == x->bone) y = &b->tracks[j];
        ganim_transform rest = sk->bones[x->bone].rest;
        const float *restc[3] = { &rest.rotation.x, &rest.translation.x, &rest.scale.x };
        const ganim_channel *cx[3] = { &x->rotation, &x->translation, &x->scale };
        float lo[2][3], hi[2][3];
        channel_range(&x->translation, lo[0], hi[0]);
        channel_range(&x->scale, lo[1], hi[1]);
        if (!y) {
            int at_rest = 1;
            for (uint32_t f = 0; f < a->frame_count; f++) {
                float p[4];
                for (int c = 0; c < (with_vis ? 3 : 2); c++) {
                    float rc[4];
                    memcpy(rc, restc[c], sizeof(float) * (c ? 3 : 4));
                    ganim_channel_eval(cx[c], a->frame_count, NULL, 0, c ? 3 : 4, f, rc, p);
                    if (c == 0) { /* as a direction: glTF keeps rotations unit */
                        double l = sqrt((double)p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3]);
                        for (int k = 0; k < 4; k++) p[k] = (float)(p[k] / l);
                    }
                    if (c ? memcmp(p, rc, sizeof(float) * 3) != 0 : rot_diff(p, rc) > 1e-6) at_rest = 0;
                }
                if (with_vis && x->visibility && !x->visibility[f]) at_rest = 0;
            }
            if (at_rest) st->dropped_at_rest++;
            else st->dropped_moving++;
            continue;
        }
        const ganim_channel *cy[3] = { &y->rotation, &y->translation, &y->scale };
        for (uint32_t f = 0; f < a->frame_count; f++) {
            for (int c = 0; c < (with_vis ? 3 : 2); c++) {
                int comps = c ? 3 : 4;
                float p[4], q[4], rc[4];
                memcpy(rc, restc[c], sizeof(float) * (size_t)comps);
                ganim_channel_eval(cx[c], a->frame_count, NULL, 0, comps, f, rc, p);
                ganim_channel_eval(cy[c], a->frame_count, NULL, 0, comps, f, rc, q);
                st->values++;
                int same = 1, negated = !with_vis && !c; /* BVH holds rotations, not their sign */
                for (int k = 0; k < comps; k++) same &= p[k] == q[k], negated &= p[k] == -q[k];
                if (same || negated) {
                    st->exact++;
                    st->half_step++;
                    continue;
                }
                if (c == 0) {
                    double d = rot_diff(p, q);
                    st->worst_rot = fmax(st->worst_rot, d);
                    if (d <= 1.0 / 32767 + 1e-6) st->half_step++;
                } else {
                    int ok = 1;
                    for (int k = 0; k < 3; k++) {
                        double d = fabs((double)p[k] - q[k]);
                        st->worst_vec = fmax(st->worst_vec, d);
                        if (d > (hi[c - 1][k] - lo[c - 1][k]) / 65535.0 / 2 + 1e-6 * (1 + fabs(p[k]))) ok = 0;
                    }
                    st->half_step += (size_t)ok;
                }
            }
            if (with_vis) {
                int vx = !x->visibility || x->visibility[f], vy = !y->visibility || y->visibility[f];
                st->missing_vis += vx != vy;
            }
        }
    }
}

TEST(write_from_non_native_clip)
{
    char **list = test_list_dir(test_path("alamo", ""), ".ala");
    for (char **f = list; *f; f++) {
        const sample *s = find_sample(*f);
        if (!s) continue;
        ganim_doc *alo = s->alo ? read_alo(s->alo) : NULL;
        size_t n;
        uint8_t *d = test_read_file(*f, &n);
        ganim_error err = { 0 };
        ganim_doc *doc = read_ala(d, n, alo ? alo->skeleton : NULL, &err);
        if (!doc) continue;
        ganim_clip clip = doc->clips[0];
        clip.native_format = NULL; /* as if it came from another format */
        clip.native = NULL;
        clip.native_size = 0;
        ganim_doc *copy = NULL; /* built through the public API */
        CHECK(ganim_doc_new(NULL, &copy, &err) == GANIM_OK &&
              ganim_doc_set_skeleton(copy, doc->skeleton, &err) == GANIM_OK &&
              ganim_doc_add_clip(copy, &clip, NULL, &err) == GANIM_OK);
        copy->axes = doc->axes;
        for (int version = 1; version <= 2; version++) {
            ganim_setting setting;
            ganim_write_opts wo = test_write_setting(&setting, "alamo.version", version == 1 ? "1" : "2");
            ganim_buffer out = { 0 };
            CHECK(ganim_write(copy, "alamo-ala", &wo, &out, &err) == GANIM_OK);
            ganim_doc *back = read_ala(out.data, out.size, doc->skeleton, &err);
            CHECK_MSG(back != NULL, "%s v%d: %s", *f, version, err.message);
            if (back) {
                const ganim_clip *a = &doc->clips[0], *b = &back->clips[0];
                CHECK_EQ_INT(b->frame_count, a->frame_count);
                CHECK_NEAR(b->fps, a->fps, 0);
                for (uint32_t i = 0; i < b->track_count; i++) /* the file's own names */
                    for (uint32_t j = 0; j < a->track_count; j++)
                        if (a->tracks[j].bone == b->tracks[i].bone) CHECK_EQ_STR(a->tracks[j].name, b->tracks[i].name);
                back_stats st = { 0 };
                compare_back(a, b, doc->skeleton, 1, &st);
                CHECK_MSG(st.dropped_moving == 0, "%s v%d: %zu moving tracks lost", *f, version, st.dropped_moving);
                CHECK_MSG(st.missing_vis == 0, "%s v%d: %zu visibility bits differ", *f, version, st.missing_vis);
                CHECK_MSG(st.half_step == st.values, "%s v%d: %zu of %zu values beyond half a step (%g, %g)", *f,
                          version, st.values - st.half_step, st.values, st.worst_rot, st.worst_vec);
                ganim_doc_free(back);
            }
            ganim_buffer_free(&out);
        }
        ganim_doc_free(copy);
        ganim_doc_free(doc);
        ganim_doc_free(alo);
        free(d);
    }
    test_free_list(list);
}

/* A glb-read clip with its native record, one translation edited (the first track's
 * x at the last frame, moved by 1): every other track keeps the file's integers, the edited
 * track keeps its rotations' integers (rounded or truncated as the file's are) and the
 * file's version. 1 when all of that holds. */
static int edit_one_track(const char *f, const ganim_doc *doc, ganim_doc *mid, int version)
{
    const ganim_clip *a = &doc->clips[0];
    if (!a->track_count) return 1;
    /* a track holding a quarter turn when there is one: its integers are (23169, 23169) or
     * (23170, 23170) as the file's exporter truncates or rounds, the same direction */
    uint32_t edit = 0;
    for (uint32_t i = a->track_count; i-- > 0;) {
        const float *q = a->tracks[i].rotation.values;
        int zeros = 0, halves = 0;
        for (int k = 0; k < 4; k++) zeros += q[k] == 0, halves += fabsf(fabsf(q[k]) - 0.70710678f) < 1e-4f;
        if (zeros == 2 && halves == 2) edit = i;
    }
    uint32_t bone = a->tracks[edit].bone, n = a->frame_count, ti = 0;
    while (ti < mid->clips[0].track_count && mid->clips[0].tracks[ti].bone != bone) ti++;
    CHECK(ti < mid->clips[0].track_count);
    if (ti == mid->clips[0].track_count) return 0;
    float *v = malloc(sizeof(float) * 3 * n);
    const float *rest = &mid->skeleton->bones[bone].rest.translation.x;
    for (uint32_t fr = 0; fr < n; fr++)
        ganim_channel_eval(&mid->clips[0].tracks[ti].translation, n, NULL, 0, 3, fr, rest, v + 3 * fr);
    float moved = v[3 * (n - 1)] += 1.0f, lo = v[0], hi = v[0];
    for (uint32_t fr = 0; fr < n; fr++) lo = fminf(lo, v[3 * fr]), hi = fmaxf(hi, v[3 * fr]);
    ganim_channel ch = { GANIM_CHANNEL_PER_FRAME, n, NULL, v };
    ganim_error err = { 0 };
    ganim_buffer out = { 0 };
    ganim_doc *back = NULL;
    int ok = ganim_doc_set_channel(mid, 0, ti, GANIM_TARGET_TRANSLATION, &ch, &err) == GANIM_OK &&
             ganim_write(mid, "alamo-ala", NULL, &out, &err) == GANIM_OK &&
             (back = read_ala(out.data, out.size, doc->skeleton, &err)) != NULL;
    CHECK_MSG(ok, "%s: edited: %s", f, err.message);
    free(v);
    if (!ok) {
        ganim_buffer_free(&out);
        return 0;
    }
    int good = out.size > 8 && ((out.data[12] == 18 && version == 1) || (out.data[12] == 36 && version == 2));
    CHECK_MSG(good, "%s: edited, not written as version %d", f, version);
    ganim_clip b_edited = back->clips[0];
    ganim_track *rest_of = malloc(sizeof *rest_of * a->track_count);
    ganim_clip others = *a;
    others.tracks = rest_of;
    others.track_count = 0;
    for (uint32_t i = 0; i < a->track_count; i++)
        if (i != edit) rest_of[others.track_count++] = a->tracks[i];
    float last[3] = { 0, 0, 0 };
    back_stats st = { 0 }, se = { 0 };
    compare_back(&others, &back->clips[0], doc->skeleton, 1, &st);
    CHECK_MSG(st.exact == st.values && st.dropped_at_rest + st.dropped_moving == 0,
              "%s: edited one track, %zu of %zu values of the others changed", f, st.values - st.exact, st.values);
    good &= st.exact == st.values && st.dropped_at_rest + st.dropped_moving == 0;
    free(rest_of);
    /* the edited track: its rotations exactly, its translation as edited within half a step */
    for (uint32_t i = 0; i < b_edited.track_count; i++)
        if (b_edited.tracks[i].bone == bone) {
            const ganim_track *y = &b_edited.tracks[i];
            for (uint32_t fr = 0; fr < n; fr++) {
                float p[4], q[4];
                const float id[4] = { 0, 0, 0, 1 };
                ganim_channel_eval(&a->tracks[edit].rotation, n, NULL, 0, 4, fr, id, p);
                ganim_channel_eval(&y->rotation, n, NULL, 0, 4, fr, id, q);
                se.values++;
                se.exact += memcmp(p, q, sizeof p) == 0;
            }
            ganim_channel_eval(&y->translation, n, NULL, 0, 3, n - 1, rest, last);
        }
    CHECK_MSG(fabs(last[0] - moved) <= (hi - lo) / 65535.0 / 2 + 1e-6 * (1 + fabs(moved)),
              "%s: edited x %.9g, back %.9g", f, moved, last[0]);
    CHECK_MSG(se.values == n && se.exact == n, "%s: the edited track's rotations: %zu of %zu the file's integers", f,
              se.exact, se.values);
    good &= se.values == n && se.exact == n;
    ganim_doc_free(back);
    ganim_buffer_free(&out);
    return good;
}

/* ALA (with its ALO) -> glb -> ALA. What glTF holds comes back as the game's integers; the
 * tracks that held their bones exactly at rest are not written (no `Root` track). With the
 * clip's native record (the .ALA itself, which a glb carries as an extra) the file comes back
 * byte for byte, and the version comes from it. */
typedef struct glb_totals {
    size_t files, identical, identical_native, same_values, half_step, edited_ok, carried;
    back_stats all;
} glb_totals;

/* One file (bytes d, of `version`) through glb and back, with and without its record. */
static void glb_case(const char *f, const uint8_t *d, size_t n, const ganim_skeleton *sk, int version, glb_totals *t)
{
    t->files++;
    ganim_error err = { 0 };
    ganim_doc *doc = read_ala(d, n, sk, &err);
    CHECK_MSG(doc != NULL, "%s: %s", f, err.message);
    if (!doc) return;
    ganim_buffer glb = { 0 }, out = { 0 }, out2 = { 0 };
    ganim_doc *mid = NULL, *back = NULL;
    CHECK(ganim_export_glb(doc, NULL, &glb, &err) == GANIM_OK);
    CHECK_MSG(glb.data && ganim_read_memory(glb.data, glb.size, NULL, &mid, &err) == GANIM_OK, "%s: %s", f,
              err.message);
    CHECK_MSG(mid && ganim_write(mid, "alamo-ala", NULL, &out, &err) == GANIM_OK, "%s: %s", f, err.message);
    if (out.data) {
        t->identical += out.size == n && memcmp(out.data, d, n) == 0;
        back = read_ala(out.data, out.size, doc->skeleton, &err);
        CHECK_MSG(back != NULL, "%s: %s", f, err.message);
    }
    if (back) {
        back_stats st = { 0 };
        compare_back(&doc->clips[0], &back->clips[0], doc->skeleton, 1, &st);
        CHECK_MSG(st.dropped_moving == 0, "%s: %zu moving tracks lost", f, st.dropped_moving);
        CHECK_MSG(st.missing_vis == 0, "%s: %zu visibility bits differ", f, st.missing_vis);
        CHECK_MSG(st.half_step == st.values, "%s: %zu of %zu values beyond half a step (%g, %g)", f,
                  st.values - st.half_step, st.values, st.worst_rot, st.worst_vec);
        /* no track for a bone the game's file leaves alone (bone 0, Root, above all) */
        for (uint32_t i = 0; i < back->clips[0].track_count; i++) {
            int found = 0;
            for (uint32_t j = 0; j < doc->clips[0].track_count; j++)
                found |= doc->clips[0].tracks[j].bone == back->clips[0].tracks[i].bone;
            CHECK_MSG(found, "%s: a track for bone %u, which the file does not animate", f,
                      back->clips[0].tracks[i].bone);
        }
        t->same_values += st.exact == st.values;
        t->half_step += st.half_step == st.values;
        t->all.values += st.values, t->all.exact += st.exact, t->all.half_step += st.half_step;
        t->all.dropped_at_rest += st.dropped_at_rest;
        if (st.exact != st.values)
            printf("  %s (v%d): %zu of %zu values differ (rotation %.3g, vector %.3g)\n", f, version,
                   st.values - st.exact, st.values, st.worst_rot, st.worst_vec);
    }
    /* the native record, as a glb carries it (put back by hand while the glb does not
     * carry it yet): byte for byte, in the file's own version */
    if (mid && mid->clip_count) {
        if (!mid->clips[0].native_format || strcmp(mid->clips[0].native_format, "alamo-ala")) {
            mid->clips[0].native_format = "alamo-ala";
            mid->clips[0].native = d;
            mid->clips[0].native_size = n;
        } else {
            t->carried++;
        }
        CHECK_MSG(ganim_write(mid, "alamo-ala", NULL, &out2, &err) == GANIM_OK, "%s: %s", f, err.message);
        int same = out2.size == n && memcmp(out2.data, d, n) == 0;
        CHECK_MSG(same, "%s (v%d): with its native record, written back differs", f, version);
        t->identical_native += same;
        t->edited_ok += edit_one_track(f, doc, mid, version);
    }
    ganim_buffer_free(&out2);
    ganim_buffer_free(&out);
    ganim_buffer_free(&glb);
    ganim_doc_free(back);
    ganim_doc_free(mid);
    ganim_doc_free(doc);
}

/* Every sample as it is and written in the other version (both versions of every file). */
TEST(game_glb_game)
{
    char **list = test_list_dir(test_path("alamo", ""), ".ala");
    glb_totals t;
    memset(&t, 0, sizeof t);
    for (char **f = list; *f; f++) {
        const sample *s = find_sample(*f);
        if (!s) continue;
        ganim_doc *alo = s->alo ? read_alo(s->alo) : NULL;
        const ganim_skeleton *sk = alo ? alo->skeleton : NULL;
        size_t n;
        uint8_t *d = test_read_file(*f, &n);
        glb_case(*f, d, n, sk, s->version, &t);
        /* the same animation in the other version */
        ganim_error err = { 0 };
        ganim_doc *doc = read_ala(d, n, sk, &err);
        ganim_setting setting;
        ganim_write_opts wo = test_write_setting(&setting, "alamo.version", s->version == 1 ? "2" : "1");
        ganim_buffer other = { 0 };
        CHECK(doc && ganim_write(doc, "alamo-ala", &wo, &other, &err) == GANIM_OK);
        if (other.data) glb_case(*f, other.data, other.size, sk, 3 - s->version, &t);
        ganim_buffer_free(&other);
        ganim_doc_free(doc);
        ganim_doc_free(alo);
        free(d);
    }
    printf("  game -> glb -> game: %zu of %zu files (every sample in both versions) identical (%zu with the native "
           "record, %zu of them carried by the glb), %zu with every value the same, %zu within half a step; values "
           "%zu of %zu the same; %zu tracks at rest dropped\n",
           t.identical, t.files, t.identical_native, t.carried, t.same_values, t.half_step, t.all.exact, t.all.values,
           t.all.dropped_at_rest);
    /* a glb that carries the record gives the file back by itself */
    if (t.carried) CHECK_EQ_INT(t.identical, t.carried);
    CHECK_EQ_INT(t.identical_native, t.files);
    CHECK_EQ_INT(t.edited_ok, t.files);
    test_free_list(list);
}

/* ALA (with its ALO) -> BVH -> ALA: the BVH read with the ALO as its skeleton (joints
 * matched by the names the exporter gave, `Particle View 01` -> `Particle_View_01`) and
 * bvh.axes=z-up. Everything BVH holds comes back as the file's values: rotations to the
 * file's integers (BVH's Euler angles in float text keep the direction to 1e-7), every
 * translation (position channels where a joint's differs from its rest), visibility and
 * scales aside (BVH has none: said by a warning). */
static void count_warning(void *user, const ganim_warning *w)
{
    if (strstr(w->message, "no scale") || strstr(w->message, "no visibility")) ++*(int *)user;
}

TEST(game_bvh_game)
{
    char **list = test_list_dir(test_path("alamo", ""), ".ala");
    size_t files = 0, same_values = 0, half_step = 0;
    back_stats all = { 0 };
    for (char **f = list; *f; f++) {
        const sample *s = find_sample(*f);
        if (!s || !s->alo) continue;
        files++;
        ganim_doc *alo = read_alo(s->alo);
        size_t n;
        uint8_t *d = test_read_file(*f, &n);
        ganim_error err = { 0 };
        ganim_doc *doc = read_ala(d, n, alo->skeleton, &err), *mid = NULL, *back = NULL;
        ganim_buffer text = { 0 }, out = { 0 };
        int warned = 0;
        ganim_export_opts eo = { 0 };
        eo.warn = count_warning;
        eo.warn_user = &warned;
        CHECK(doc && ganim_export_bvh(doc, &eo, &text, &err) == GANIM_OK);
        ganim_setting set = { "bvh.axes", "z-up" };
        ganim_read_opts ro = { 0 };
        ro.skeleton = alo->skeleton;
        ro.skeleton_must_fit = 1;
        ro.settings = &set;
        ro.setting_count = 1;
        ro.format = "bvh";
        CHECK_MSG(text.data && ganim_read_memory(text.data, text.size, &ro, &mid, &err) == GANIM_OK, "%s: %s", *f,
                  err.message);
        CHECK_MSG(mid && ganim_write(mid, "alamo-ala", NULL, &out, &err) == GANIM_OK, "%s: %s", *f, err.message);
        if (out.data) back = read_ala(out.data, out.size, alo->skeleton, &err);
        CHECK_MSG(!out.data || back, "%s: %s", *f, err.message);
        if (back) {
            back_stats st = { 0 };
            compare_back(&doc->clips[0], &back->clips[0], doc->skeleton, 0, &st);
            CHECK_MSG(st.dropped_moving == 0, "%s: %zu moving tracks lost", *f, st.dropped_moving);
            CHECK_MSG(st.half_step == st.values, "%s: %zu of %zu values beyond half a step (%g, %g)", *f,
                      st.values - st.half_step, st.values, st.worst_rot, st.worst_vec);
            same_values += st.exact == st.values;
            half_step += st.half_step == st.values;
            all.values += st.values, all.exact += st.exact, all.half_step += st.half_step;
            if (st.exact != st.values)
                printf("  %s: %zu of %zu values differ (rotation %.3g, vector %.3g)%s\n", *f, st.values - st.exact,
                       st.values, st.worst_rot, st.worst_vec, warned ? " (scale or visibility warned)" : "");
        }
        ganim_buffer_free(&out);
        ganim_buffer_free(&text);
        ganim_doc_free(back);
        ganim_doc_free(mid);
        ganim_doc_free(doc);
        ganim_doc_free(alo);
        free(d);
    }
    printf("  game -> BVH -> game: %zu of %zu files with every value the same, %zu within half a step; values %zu of "
           "%zu the same\n",
           same_values, files, half_step, all.exact, all.values);
    test_free_list(list);
}

TEST(alo_skeleton_round_trip)
{
    char **list = test_list_dir(test_path("alamo", ""), ".alo");
    int files = 0;
    for (char **f = list; *f; f++) {
        size_t n;
        uint8_t *d = test_read_file(*f, &n);
        ganim_doc *doc = NULL;
        ganim_error err = { 0 };
        CHECK_MSG(ganim_read_memory(d, n, NULL, &doc, &err) == GANIM_OK, "%s: %s", *f, err.message);
        if (!doc) {
            free(d);
            continue;
        }
        files++;
        CHECK_EQ_STR(doc->skeleton->bones[0].name, "Root"); /* README: every model */
        CHECK_EQ_INT(doc->skeleton->bones[0].parent, -1);
        size_t skel = 8 + (le32(d + 4) & 0x7FFFFFFF);
        ganim_buffer out = { 0 };
        CHECK(ganim_write(doc, "alamo-alo", NULL, &out, &err) == GANIM_OK);
        CHECK_MSG(out.size == skel && memcmp(out.data, d, skel) == 0, "%s: skeleton chunk differs", *f);
        /* edited skeleton: rebuilt from the model, reads back equal */
        ganim_skeleton sk = *doc->skeleton;
        sk.native_format = NULL;
        ganim_doc *copy = NULL;
        CHECK(ganim_doc_new(NULL, &copy, &err) == GANIM_OK && ganim_doc_set_skeleton(copy, &sk, &err) == GANIM_OK);
        copy->axes = doc->axes;
        ganim_buffer_free(&out);
        CHECK(ganim_write(copy, "alamo-alo", NULL, &out, &err) == GANIM_OK);
        ganim_doc_free(copy);
        ganim_doc *back = NULL;
        CHECK(ganim_read_memory(out.data, out.size, NULL, &back, &err) == GANIM_OK);
        for (uint32_t i = 0; back && i < sk.bone_count; i++) {
            const ganim_bone *a = &sk.bones[i], *b = &back->skeleton->bones[i];
            CHECK_EQ_STR(a->name, b->name);
            CHECK_EQ_INT(a->parent, b->parent);
            CHECK_EQ_INT(a->flags, b->flags);
            CHECK(rot_diff(&a->rest.rotation.x, &b->rest.rotation.x) <= 1e-5);
            CHECK_NEAR(a->rest.translation.x, b->rest.translation.x, 1e-4);
            CHECK_NEAR(a->rest.translation.z, b->rest.translation.z, 1e-4);
            CHECK_NEAR(a->rest.scale.y, b->rest.scale.y, 1e-5);
        }
        ganim_doc_free(back);
        ganim_buffer_free(&out);
        ganim_doc_free(doc);
        free(d);
    }
    CHECK_EQ_INT(files, 17);
    test_free_list(list);
}

/* One damaged input: a valid document or an error with an offset, never a crash. */
static void try_bytes(const uint8_t *d, size_t n, const ganim_skeleton *sk, const char *fmt, int *ok, int *bad)
{
    ganim_read_opts o = { 0 };
    o.skeleton = sk;
    o.format = fmt;
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    ganim_code c = ganim_read_memory(d, n, &o, &doc, &err);
    if (c == GANIM_OK) {
        (*ok)++;
        ganim_buffer out = { 0 };
        CHECK(ganim_write(doc, fmt, NULL, &out, &err) == GANIM_OK);
        ganim_buffer_free(&out);
        ganim_doc_free(doc);
    } else {
        (*bad)++;
        CHECK_MSG(err.offset != GANIM_NO_OFFSET, "%s: error without offset: %s", fmt, err.message);
    }
}

/* make check runs one case in SAMPLE_ONE_IN of the sweep (test_sampled, seeded by the
 * file's name); CI=true or GANIM_FULL=1 all of them. */
#define SAMPLE_ONE_IN 4

static void sweep(const uint8_t *d, size_t n, size_t region, const ganim_skeleton *sk, const char *fmt, uint64_t seed)
{
    int ok = 0, bad = 0;
    uint8_t *buf = malloc(n ? n : 1);
    size_t cuts = region < 16384 ? region : 2000;
    for (size_t i = 0; i < cuts; i++) {
        if (!test_sampled(seed + i, SAMPLE_ONE_IN)) continue;
        size_t len = region < 16384 ? i : (size_t)((double)i * region / cuts);
        memcpy(buf, d, len);
        try_bytes(buf, len, sk, fmt, &ok, &bad);
        if (len >= 8) { /* also with the root chunk shortened to fit, to cut inner chunks */
            uint32_t size = (uint32_t)(len - 8) | (le32(buf + 4) & 0x80000000u);
            for (int k = 0; k < 4; k++) buf[4 + k] = (uint8_t)(size >> (8 * k));
            try_bytes(buf, len, sk, fmt, &ok, &bad);
        }
    }
    size_t max = 100000, *heads = malloc(max * sizeof *heads);
    size_t nh = header_offsets(d, 0, region, heads, 0, max);
    size_t positions = 0;
    for (size_t h = 0; h < nh; h++) positions += heads[h] >> 62 ? 2 : 8;
    size_t stride = region < 16384 || positions <= 300 ? 1 : positions / 300 + 1, pos = 0;
    memcpy(buf, d, n);
    for (size_t h = 0; h < nh; h++) {
        size_t at = heads[h] & ~((size_t)1 << 62), width = heads[h] >> 62 ? 2 : 8;
        for (size_t b = 0; b < width; b++, pos++) {
            if (pos % stride || !test_sampled(seed + cuts + pos, SAMPLE_ONE_IN)) continue;
            static const uint8_t flips[3] = { 0x01, 0x80, 0xFF };
            for (int k = 0; k < 3; k++) {
                buf[at + b] ^= flips[k];
                try_bytes(buf, n, sk, fmt, &ok, &bad);
                buf[at + b] ^= flips[k];
            }
        }
    }
    CHECK(ok > 0 && bad > 0);
    free(heads);
    free(buf);
}

TEST(truncation_and_flip_sweep)
{
    char **list = test_list_dir(test_path("alamo", ""), ".ala");
    for (char **f = list; *f; f++) {
        const sample *s = find_sample(*f);
        ganim_doc *alo = s && s->alo ? read_alo(s->alo) : NULL;
        size_t n;
        uint8_t *d = test_read_file(*f, &n);
        sweep(d, n, n, alo ? alo->skeleton : NULL, "alamo-ala", test_seed(*f));
        ganim_doc_free(alo);
        free(d);
    }
    test_free_list(list);
    /* ALO: the skeleton chunk is all the reader looks at */
    const char *alos[] = { "W_Grenade.alo", "VSF_XWING.ALO" };
    for (int i = 0; i < 2; i++) {
        size_t n;
        uint8_t *d = test_read_file(test_path("alamo", alos[i]), &n);
        size_t skel = 8 + (le32(d + 4) & 0x7FFFFFFF);
        sweep(d, skel, skel, NULL, "alamo-alo", test_seed(alos[i]));
        free(d);
    }
}

/* A flipped byte can make a matrix entry finite but huge, so that its square overflows
 * a float (BM_BERTH_D.ALO byte 192). Every flip of the skeleton's bytes must read, or
 * fail with an offset inside the file: never the core's offset-less "not finite". */
TEST(alo_flipped_matrices_stay_finite)
{
    size_t size;
    uint8_t *data = test_read_file(test_path("alamo", "BM_BERTH_D.ALO"), &size);
    ganim_read_opts o = { .format = "alamo-alo" };
    int read = 0;
    for (size_t at = 0; at < 1024 && at < size; at++) {
        uint8_t keep = data[at];
        data[at] ^= 0xFF;
        ganim_doc *doc = NULL;
        ganim_error err = { 0 };
        if (ganim_read_memory(data, size, &o, &doc, &err) == GANIM_OK) {
            read++;
            ganim_doc_free(doc);
        } else {
            CHECK_MSG(err.offset != GANIM_NO_OFFSET && err.offset <= size, "flip at %zu: '%s' at offset %llu", at,
                      err.message, (unsigned long long)err.offset);
        }
        data[at] = keep;
    }
    CHECK(read > 0);
    free(data);
}

/* A large .ALA's channels come from one block of the arena (alamo_ala_read's
 * reserve_model): a recording allocator sees exactly one block above the arena's 64 KiB,
 * of the channels' exact size (each rounded to 16 bytes) plus a header, where the read
 * took a block a channel before. The reference is the same read with that block refused
 * (an allocator that fails any block over 1 MiB: the reserve gives up, the channels take
 * their own blocks as before): the same tracks, kinds, counts, values, visibility and
 * warnings, bit for bit. Format 1 and 2 (whose translations and scales are decoded in
 * runs across every track), with constant, moving, visible and hidden channels, a track
 * outside the skeleton and a second track of one bone (skipped: never reserved). */
typedef struct rec_alloc {
    size_t refuse_over; /* 0: none */
    int large;          /* blocks over 64 KiB + 256 made */
    size_t large_size;  /* the last of them */
} rec_alloc;
static void *rec_alloc_fn(void *user, size_t size)
{
    rec_alloc *r = user;
    if (r->refuse_over && size > r->refuse_over) return NULL;
    if (size > 64u * 1024u + 256u) r->large++, r->large_size = size;
    return malloc(size ? size : 1);
}
static void *rec_realloc_fn(void *user, void *p, size_t old_size, size_t new_size)
{
    (void)old_size;
    rec_alloc *r = user;
    if (r->refuse_over && new_size > r->refuse_over) return NULL;
    return realloc(p, new_size ? new_size : 1);
}
static void rec_free_fn(void *user, void *p, size_t size)
{
    (void)user;
    (void)size;
    free(p);
}
static ganim_doc *read_ala_with(const ganim_buffer *b, const ganim_skeleton *sk, rec_alloc *r)
{
    ganim_read_opts o = { 0 };
    ganim_allocator al = { rec_alloc_fn, rec_realloc_fn, rec_free_fn, r };
    o.skeleton = sk;
    o.format = "alamo-ala";
    o.allocator = al;
    o.input_outlives_doc = 1; /* no copy of the file: the arena's blocks only */
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    CHECK_MSG(ganim_read_memory(b->data, b->size, &o, &doc, &err) == GANIM_OK, "%s", err.message);
    return doc;
}
static size_t r16(size_t n) { return (n + 15u) & ~(size_t)15u; }
/* The last track's bone index (mini-chunk 5 of its 0x1003 header) set to `index`. */
static int set_last_index(uint8_t *d, size_t n, uint32_t index)
{
    uint8_t *at = NULL;
    if (n < 8 || le32(d) != 0x1000) return 0;
    size_t end = 8 + (le32(d + 4) & 0x7FFFFFFF), p = 8;
    while (p + 16 <= end && end <= n) {
        uint32_t type = le32(d + p), len = le32(d + p + 4) & 0x7FFFFFFF;
        if (type == 0x1002) {
            size_t q = p + 8, hlen = le32(d + q + 4) & 0x7FFFFFFF;
            for (size_t m = q + 8; m + 6 <= q + 8 + hlen && m + 6 <= n; m += 2u + d[m + 1])
                if (d[m] == 5 && d[m + 1] == 4) at = d + m + 2;
        }
        p += 8 + len;
    }
    if (!at) return 0;
    for (int i = 0; i < 4; i++) at[i] = (uint8_t)(index >> (8 * i));
    return 1;
}
static int channel_same(const ganim_channel *a, const ganim_channel *b, size_t w)
{
    return a->kind == b->kind && a->count == b->count &&
           (!a->count || !memcmp(a->values, b->values, (size_t)a->count * w * sizeof(float)));
}

TEST(ala_model_in_one_block)
{
    const uint32_t bones = 48, frames = 4400; /* a moving rotation: 70,400 bytes */
    ganim_doc *doc = tb_doc(bones, NULL);
    uint32_t c = tb_clip(doc, "", 30.0, frames);
    float *rot = malloc((size_t)frames * 4 * sizeof *rot), *vec = malloc((size_t)frames * 3 * sizeof *vec);
    uint8_t *vis = malloc(frames);
    CHECK(rot && vec && vis);
    if (!rot || !vec || !vis) return;
    for (uint32_t b = 0; b < bones; b++) {
        for (uint32_t f = 0; f < frames; f++) {
            float a = 0.001f * (float)(f * (b + 1) % 997), h = sinf(a) * 0.5f;
            rot[4 * f] = h, rot[4 * f + 1] = 0, rot[4 * f + 2] = 0, rot[4 * f + 3] = sqrtf(1 - h * h);
            vec[3 * f] = (float)b + 0.01f * (float)f, vec[3 * f + 1] = 2.0f - 0.003f * (float)(f % 101);
            vec[3 * f + 2] = (float)(f % 7);
            vis[f] = (uint8_t)(f % 13 != 5);
        }
        uint32_t t = tb_track(doc, c, b, b % 11 == 3 ? vis : NULL, NULL);
        int rmove = b % 5 != 0, tmove = b % 3 == 0, smove = b % 7 == 2;
        tb_channel(doc, c, t, GANIM_TARGET_ROTATION, rmove ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_CONSTANT,
                   rmove ? frames : 1, NULL, rot);
        tb_channel(doc, c, t, GANIM_TARGET_TRANSLATION, tmove ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_CONSTANT,
                   tmove ? frames : 1, NULL, vec);
        if (smove) {
            for (uint32_t f = 0; f < frames; f++)
                vec[3 * f] = vec[3 * f + 1] = vec[3 * f + 2] = 1.0f + 0.0001f * (float)f;
            tb_channel(doc, c, t, GANIM_TARGET_SCALE, GANIM_CHANNEL_PER_FRAME, frames, NULL, vec);
        }
    }
    ganim_skeleton small = *doc->skeleton; /* the last bone outside it: its track skipped */
    small.bone_count = bones - 1;
    for (int version = 1; version <= 2; version++) {
        ganim_setting setting;
        ganim_write_opts wo = test_write_setting(&setting, "alamo.version", version == 1 ? "1" : "2");
        ganim_buffer out = { 0 };
        ganim_error err = { 0 };
        CHECK_MSG(ganim_write(doc, "alamo-ala", &wo, &out, &err) == GANIM_OK, "%s", err.message);
        for (int sk = 0; sk < 3; sk++) { /* the skeleton, one bone less, the last track on bone 1 */
            const ganim_skeleton *skel = sk == 1 ? &small : doc->skeleton;
            if (sk == 2) CHECK(set_last_index(out.data, out.size, 1));
            rec_alloc one = { 0, 0, 0 }, ref = { 1u << 20, 0, 0 };
            ganim_doc *a = read_ala_with(&out, skel, &one), *b = read_ala_with(&out, skel, &ref);
            CHECK(a && b);
            if (!a || !b) {
                ganim_doc_free(a);
                ganim_doc_free(b);
                continue;
            }
            const ganim_clip *ca = &a->clips[0], *cb = &b->clips[0];
            size_t model = 0;
            for (uint32_t i = 0; i < ca->track_count; i++) {
                const ganim_track *t = &ca->tracks[i];
                model += r16((size_t)t->rotation.count * 16u) + r16((size_t)t->translation.count * 12u) +
                         r16((size_t)t->scale.count * 12u) + (t->visibility ? r16(frames) : 0) +
                         (t->step ? r16(frames) : 0);
            }
            CHECK_MSG(one.large == 1, "v%d: %d blocks over 64 KiB, not one", version, one.large);
            CHECK_MSG(one.large_size >= model && one.large_size - model <= 256, "v%d: block of %zu for %zu bytes",
                      version, one.large_size, model);
            CHECK_MSG(ref.large > 20, "v%d: the reference made %d large blocks", version, ref.large);
            CHECK_EQ_INT(ca->track_count, sk ? bones - 1 : bones);
            CHECK_EQ_INT(cb->track_count, ca->track_count);
            CHECK_EQ_INT(b->warning_count, a->warning_count);
            for (uint32_t i = 0; i < a->warning_count && i < b->warning_count; i++)
                CHECK_EQ_STR(a->warnings[i].message, b->warnings[i].message);
            uint32_t bad = 0;
            for (uint32_t i = 0; i < ca->track_count && i < cb->track_count; i++) {
                const ganim_track *x = &ca->tracks[i], *y = &cb->tracks[i];
                bad += x->bone != y->bone || !channel_same(&x->rotation, &y->rotation, 4) ||
                       !channel_same(&x->translation, &y->translation, 3) || !channel_same(&x->scale, &y->scale, 3) ||
                       !x->visibility != !y->visibility || !x->step != !y->step ||
                       (x->visibility && memcmp(x->visibility, y->visibility, frames)) ||
                       (x->step && memcmp(x->step, y->step, frames));
            }
            CHECK_MSG(bad == 0, "v%d: %u tracks differ from the block-a-channel read", version, bad);
            ganim_doc_free(a);
            ganim_doc_free(b);
        }
        ganim_buffer_free(&out);
    }
    free(rot);
    free(vec);
    free(vis);
    ganim_doc_free(doc);
}

TEST(probe)
{
    size_t n;
    uint8_t *d = test_read_file(test_path("alamo", "W_Grenade_Idle_00.ala"), &n);
    int score = 0;
    CHECK(ganim_probe(d, n, &score) == ganim_format_find("alamo-ala"));
    CHECK(score >= 90);
    free(d);
    d = test_read_file(test_path("alamo", "W_Grenade.alo"), &n);
    CHECK(ganim_probe(d, n, &score) == ganim_format_find("alamo-alo"));
    CHECK(score >= 90);
    free(d);
}

int main(void)
{
    RUN(every_sample_decodes);
    RUN(name_mismatch_warns_with_both_names);
    RUN(out_of_range_index_skips_track);
    RUN(droidworks_flat_skeleton);
    RUN(visibility_lsb_first);
    RUN(round_trip_bytes_and_version_conversion);
    RUN(write_from_non_native_clip);
    RUN(game_glb_game);
    RUN(game_bvh_game);
    RUN(alo_skeleton_round_trip);
    RUN(alo_flipped_matrices_stay_finite);
    RUN(probe);
    RUN(ala_model_in_one_block);
    RUN(truncation_and_flip_sweep);
    return test_finish();
}
