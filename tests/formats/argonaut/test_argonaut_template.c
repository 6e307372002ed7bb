/* Argonaut: the writer as a template writer. A clip that carries its record but whose
 * values changed (re-read from a glTF, resampled, edited through the public API) goes
 * back on that record: header flag and slots, triggers, position deltas, morph data, its
 * bone count and its layout (matrices or keys) come from the record, and every matrix or
 * key the clip still reads as keeps the record's integers. Values are checked against the
 * fixtures' bytes and against the edits made, never against what ganim wrote before. */
#include <math.h>
#include <stdlib.h>

#include "formats/argonaut/argonaut.h"
#include "io/bytes.h"
#include "test.h"

static const char *const files[4] = { "croc2_style_2anims.bin", "hp_style_2anims.bin", "croc2_level.wad",
                                      "hp_level.wad" };

static ganim_doc *read_mem(const uint8_t *p, size_t n, const char *variant)
{
    ganim_setting s = { "argonaut.variant", variant };
    ganim_read_opts ro = { 0 };
    ro.settings = &s;
    ro.setting_count = variant ? 1 : 0;
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_memory(p, n, &ro, &doc, &e) == GANIM_OK, "read: %s", e.message);
    return doc;
}

static ganim_doc *read_fixture(const char *name)
{
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_file(test_path("argonaut", name), NULL, &doc, &e) == GANIM_OK, "%s: %s", name, e.message);
    return doc;
}

typedef struct warned {
    int count;
    char last[512];
} warned;

static void on_warn(void *user, const ganim_warning *w)
{
    warned *x = user;
    x->count++;
    snprintf(x->last, sizeof x->last, "%s", w->message);
}

/* Writes `doc` as argonaut (container: NULL for the default); the error message, if any,
 * in `why`. */
static ganim_code write_doc(const ganim_doc *doc, const char *container, ganim_buffer *out, warned *wn, char *why)
{
    ganim_setting s;
    ganim_write_opts wo = test_write_setting(&s, "argonaut.container", container);
    if (wn) {
        wo.warn = on_warn;
        wo.warn_user = wn;
    }
    ganim_error e = { 0 };
    memset(out, 0, sizeof *out);
    ganim_code c = ganim_write(doc, "argonaut", &wo, out, &e);
    if (why) snprintf(why, 512, "%s", e.message);
    return c;
}

/* The records of a block or WAD, parsed (up to 8). */
typedef struct recs {
    uint32_t n;
    ag_rec r[8];
} recs;

static int parse_recs(const uint8_t *p, size_t size, int hp, recs *out)
{
    size_t at = 0, end = size;
    if (ag_looks_like_wad(p, size)) {
        ag_wad w;
        char why[200];
        if (!ag_wad_sections(p, size, &w, why, sizeof why) ||
            !ag_wad_models(p, &w, hp, false, NULL, &at, why, sizeof why))
            return 0;
        end = w.xspd_end;
    }
    uint32_t count = ganim_ld_u32le(p + at);
    if (count > 8) return 0;
    ag_walk walk;
    ag_walk_block(p, at + 4, end, 0, hp, count, out->r, &walk);
    out->n = walk.parsed;
    return walk.complete;
}

static bool same_record(const ag_rec *a, const ag_rec *b)
{
    return a->size == b->size && memcmp(a->p, b->p, a->size) == 0;
}

/* A copy of clip `ci` of `from` that carries `native`'s native record and events: what a
 * glTF reader gives when the export carried them along. */
static void set_with_record(ganim_doc *doc, uint32_t ci, const ganim_clip *from, const ganim_clip *native)
{
    ganim_clip c = *from;
    c.native_format = native->native_format;
    c.native = native->native;
    c.native_size = native->native_size;
    c.events = native->events;
    c.event_count = native->event_count;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_doc_set_clip(doc, ci, &c, &e) == GANIM_OK, "set clip %u: %s", ci, e.message);
}

/* Every record of every fixture through glb and back, the clips carrying their records:
 * the same bytes, record for record; a WAD's clips put back into the WAD's document give
 * the WAD. */
TEST(glb_round_trip_with_records)
{
    int identical = 0, total = 0;
    for (int i = 0; i < 4; i++) {
        int hp = strstr(files[i], "hp") != NULL;
        size_t size;
        uint8_t *orig = test_read_file(test_path("argonaut", files[i]), &size);
        ganim_doc *doc = read_fixture(files[i]);
        if (!doc || !orig) {
            free(orig);
            ganim_doc_free(doc);
            continue;
        }
        ganim_buffer glb = { 0 };
        ganim_error e = { 0 };
        CHECK_MSG(ganim_export_glb(doc, NULL, &glb, &e) == GANIM_OK, "%s: %s", files[i], e.message);
        ganim_doc *back = read_mem(glb.data, glb.size, NULL);
        ganim_buffer_free(&glb);
        if (!back) {
            free(orig);
            ganim_doc_free(doc);
            continue;
        }
        CHECK_EQ_INT(back->clip_count, doc->clip_count);
        /* the clips given their records and events, as the glTF extras carry them (where
         * they already carry them, as read); without the bone sets the extras carry, the
         * glTF keys every joint: a record of 2 bones comes back with the skeleton's 3 */
        for (uint32_t ci = 0; ci < back->clip_count && ci < doc->clip_count; ci++) {
            const ganim_clip *c = &back->clips[ci];
            if (!c->native_format || strcmp(c->native_format, "argonaut") != 0)
                set_with_record(back, ci, &back->clips[ci], &doc->clips[ci]);
        }
        /* as a block: no variant given, the records' own */
        ganim_buffer out;
        char why[512];
        recs a, b;
        CHECK_MSG(write_doc(back, "block", &out, NULL, why) == GANIM_OK, "%s: %s", files[i], why);
        CHECK(parse_recs(orig, size, hp, &a));
        CHECK_MSG(parse_recs(out.data, out.size, hp, &b), "%s: the block does not read as %s", files[i],
                  hp ? "Harry Potter" : "Croc 2");
        CHECK_EQ_INT(a.n, b.n);
        for (uint32_t k = 0; k < a.n && k < b.n; k++) {
            total++;
            bool same = same_record(&a.r[k], &b.r[k]);
            identical += same;
            CHECK_MSG(same, "%s record %u: %zu bytes vs %zu, not the same", files[i], k, b.r[k].size, a.r[k].size);
        }
        ganim_buffer_free(&out);
        /* into the WAD's own document (what --into hands the writer): the WAD */
        if (i >= 2) {
            for (uint32_t ci = 0; ci < back->clip_count && ci < doc->clip_count; ci++)
                set_with_record(doc, ci, &back->clips[ci], &doc->clips[ci]);
            CHECK_MSG(write_doc(doc, NULL, &out, NULL, why) == GANIM_OK, "%s: %s", files[i], why);
            CHECK_MSG(out.size == size && memcmp(out.data, orig, size) == 0, "%s: the WAD is not the same", files[i]);
            ganim_buffer_free(&out);
        }
        ganim_doc_free(back);
        ganim_doc_free(doc);
        free(orig);
    }
    CHECK_MSG(identical == 12 && total == 12, "%d of %d records identical", identical, total);
}

/* Everything of record b but the matrices or keys is record a's: header, triggers,
 * deltas, slots, morph data. */
static void same_but_values(const ag_rec *a, const ag_rec *b, const char *what)
{
    CHECK_MSG(a->size == b->size && memcmp(a->p, b->p, ag_header_size(a->hp)) == 0, "%s: header", what);
    if (a->size != b->size) return;
    CHECK_MSG(memcmp(a->p + a->o_trig, b->p + b->o_trig, a->o_frames - a->o_trig) == 0, "%s: triggers, deltas or slots",
              what);
    for (uint32_t f = 0; f < a->fc; f++)
        CHECK_MSG(memcmp(a->p + ag_frame_at(a, f), b->p + ag_frame_at(b, f), f ? a->morphn : a->morph0) == 0,
                  "%s: morph data of frame %u", what, f);
}

static ganim_quat turned(const float *q, double degrees)
{
    ganim_quat r = ganim_quat_axis_angle((ganim_vec3){ 0, 1, 0 }, degrees * 3.14159265358979 / 180);
    return ganim_quat_normalize(ganim_quat_mul((ganim_quat){ q[0], q[1], q[2], q[3] }, r));
}

/* The rotation a stored matrix or key reads as, against the one wanted: within a step. */
static void near_rotation(const uint8_t *p, bool key, ganim_quat want, const char *what)
{
    ganim_transform t;
    double rows[3], det;
    bool zero;
    if (key) t.rotation = ag_key_rotation(p, AG_SV, &zero);
    else ag_matrix_transform(p, AG_SV, &t, rows, &det);
    const float *a = &t.rotation.x, *b = &want.x;
    double d = 0, s = 0;
    for (int k = 0; k < 4; k++) d += (a[k] - b[k]) * (a[k] - b[k]), s += (a[k] + b[k]) * (a[k] + b[k]);
    CHECK_MSG(sqrt(d < s ? d : s) <= 1.0 / 4096, "%s: rotation off by %g", what, sqrt(d < s ? d : s));
}

/* Every clip of every fixture edited through the public API (bone 0: frame or key 1
 * moved by (10, -3, 7), frame or key 0 turned 10 degrees): the edits land within a step,
 * every other matrix or key keeps its bytes, and nothing else of the record changes. */
TEST(edits_land_and_nothing_else_changes)
{
    for (int i = 0; i < 4; i++) {
        int hp = strstr(files[i], "hp") != NULL;
        size_t size;
        uint8_t *orig = test_read_file(test_path("argonaut", files[i]), &size);
        ganim_doc *doc = read_fixture(files[i]);
        recs a, b;
        if (!doc || !orig || !parse_recs(orig, size, hp, &a)) {
            CHECK(0);
            free(orig);
            ganim_doc_free(doc);
            continue;
        }
        ganim_quat want[8];
        for (uint32_t ci = 0; ci < doc->clip_count && ci < 8; ci++) {
            const ganim_track *t = &doc->clips[ci].tracks[0];
            uint32_t n = t->translation.count;
            size_t tb = (size_t)n * 3 * sizeof(float), rb = (size_t)n * 4 * sizeof(float);
            float *tv = malloc(tb), *rv = malloc(rb);
            memcpy(tv, t->translation.values, tb);
            memcpy(rv, t->rotation.values, rb);
            tv[3] += 10, tv[4] -= 3, tv[5] += 7;
            want[ci] = turned(rv, 10);
            memcpy(rv, &want[ci].x, 4 * sizeof(float));
            ganim_channel tc = t->translation, rc = t->rotation;
            tc.values = tv;
            rc.values = rv;
            ganim_error e = { 0 };
            CHECK(ganim_doc_set_channel(doc, ci, 0, GANIM_TARGET_TRANSLATION, &tc, &e) == GANIM_OK);
            CHECK(ganim_doc_set_channel(doc, ci, 0, GANIM_TARGET_ROTATION, &rc, &e) == GANIM_OK);
            free(tv);
            free(rv);
        }
        ganim_buffer out;
        char why[512];
        CHECK_MSG(write_doc(doc, NULL, &out, NULL, why) == GANIM_OK, "%s: %s", files[i], why);
        CHECK_MSG(parse_recs(out.data, out.size, hp, &b) && b.n == a.n, "%s: written", files[i]);
        for (uint32_t k = 0; k < a.n && k < b.n; k++) {
            const ag_rec *x = &a.r[k], *y = &b.r[k];
            char what[96];
            snprintf(what, sizeof what, "%s record %u", files[i], k);
            same_but_values(x, y, what);
            if (x->size != y->size) continue;
            bool keyed = ag_keyed(x);
            uint32_t n = keyed ? x->kc : x->fc;
            for (uint32_t f = 0; f < n; f++)
                for (uint32_t bone = 0; bone < x->bc; bone++) {
                    size_t at = keyed ? ag_key_at(x, f, bone) : ag_matrix_at(x, f, bone);
                    const uint8_t *p = x->p + at, *q = y->p + at;
                    size_t tr = keyed ? 8 : 18; /* the translation's place */
                    snprintf(what, sizeof what, "%s record %u %s %u bone %u", files[i], k, keyed ? "key" : "frame", f,
                             bone);
                    if (bone == 0 && f == 0) {
                        near_rotation(q, keyed, want[k], what);
                        CHECK_MSG(memcmp(p + tr, q + tr, 6) == 0, "%s: translation changed", what);
                    } else if (bone == 0 && f == 1) {
                        CHECK_MSG(memcmp(p, q, tr) == 0, "%s: rotation changed", what);
                        CHECK_EQ_INT(ag_s16(q + tr), ag_s16(p + tr) + 10);
                        CHECK_EQ_INT(ag_s16(q + tr + 2), ag_s16(p + tr + 2) - 3);
                        CHECK_EQ_INT(ag_s16(q + tr + 4), ag_s16(p + tr + 4) + 7);
                    } else {
                        CHECK_MSG(memcmp(p, q, keyed ? 16 : 24) == 0, "%s: changed", what);
                    }
                }
        }
        if (!ag_looks_like_wad(orig, size)) CHECK_EQ_INT(out.size, size);
        else CHECK(out.size == size && memcmp(out.data, orig, (size_t)(a.r[0].p - orig)) == 0);
        ganim_buffer_free(&out);
        ganim_doc_free(doc);
        free(orig);
    }
}

/* A clip made longer or shorter keeps its record's flag, morph count, bone count and
 * triggers; its deltas and morph data are the record's for the frames it keeps and the
 * last frame's for the frames it adds, and the writer says so. */
TEST(frame_count_changes)
{
    ganim_doc *doc = read_fixture("croc2_level.wad");
    if (!doc) return;
    recs a;
    size_t size;
    uint8_t *orig = test_read_file(test_path("argonaut", "croc2_level.wad"), &size);
    CHECK(parse_recs(orig, size, 0, &a));
    const ag_rec *x = &a.r[3]; /* 5 frames, 3 bones, position deltas, 3 morphs */
    CHECK(x->fc == 5 && x->bc == 3 && x->flag == 0 && x->mc == 3 && x->tc == 1);
    static const uint32_t lengths[2] = { 7, 3 };
    for (int l = 0; l < 2; l++) {
        uint32_t fc = lengths[l];
        ganim_clip c = doc->clips[3];
        c.frame_count = fc;
        ganim_track tracks[3];
        float rot[3][7 * 4], tra[3][7 * 3];
        for (uint32_t b = 0; b < 3; b++) {
            tracks[b] = c.tracks[b];
            for (uint32_t f = 0; f < fc; f++) {
                uint32_t g = f < 5 ? f : 4;
                memcpy(rot[b] + 4 * f, c.tracks[b].rotation.values + 4 * g, 4 * sizeof(float));
                memcpy(tra[b] + 3 * f, c.tracks[b].translation.values + 3 * g, 3 * sizeof(float));
                if (f >= 5) tra[b][3 * f + 1] += (float)(f - 4); /* moves on */
            }
            tracks[b].rotation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, fc, NULL, rot[b] };
            tracks[b].translation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, fc, NULL, tra[b] };
        }
        c.tracks = tracks;
        ganim_doc *edit = read_fixture("croc2_level.wad");
        ganim_error e = { 0 };
        CHECK_MSG(edit && ganim_doc_set_clip(edit, 3, &c, &e) == GANIM_OK, "%s", e.message);
        if (!edit) continue;
        ganim_buffer out;
        warned wn = { 0 };
        char why[512];
        recs b;
        CHECK_MSG(write_doc(edit, NULL, &out, &wn, why) == GANIM_OK, "%s", why);
        CHECK_MSG(wn.count == 1 && strstr(wn.last, "clip 3") && strstr(wn.last, "position deltas"), "%d: %s", wn.count,
                  wn.last);
        CHECK(parse_recs(out.data, out.size, 0, &b) && b.n == 4);
        const ag_rec *y = &b.r[3];
        CHECK(y->fc == fc && y->flag == 0 && y->mc == 3 && y->bc == 3 && y->tc == 1);
        CHECK(memcmp(y->p + y->o_trig, x->p + x->o_trig, 4) == 0);
        for (uint32_t f = 0; f < fc; f++) {
            uint32_t g = f < 5 ? f : 4;
            CHECK_MSG(memcmp(y->p + y->o_delta + 8 * f, x->p + x->o_delta + 8 * g, 8) == 0, "delta %u", f);
            CHECK_MSG(memcmp(y->p + ag_frame_at(y, f), x->p + ag_frame_at(x, g), f ? x->morphn : x->morph0) == 0,
                      "morphs %u", f);
            for (uint32_t bone = 0; bone < 3; bone++) {
                const uint8_t *p = x->p + ag_matrix_at(x, g, bone), *q = y->p + ag_matrix_at(y, f, bone);
                CHECK_MSG(memcmp(p, q, 20) == 0, "frame %u bone %u", f, bone);
                CHECK_EQ_INT(ag_s16(q + 20), ag_s16(p + 20) + (f >= 5 ? (int)(f - 4) : 0));
            }
        }
        for (uint32_t k = 0; k < 3; k++) CHECK(same_record(&a.r[k], &b.r[k]));
        ganim_buffer_free(&out);
        ganim_doc_free(edit);
    }
    free(orig);
    ganim_doc_free(doc);
}

/* A track on a bone the record does not animate (what a glTF that keys every joint
 * gives): dropped while it stays still; an error that names the bone when it moves. */
TEST(bones_the_record_does_not_animate)
{
    ganim_doc *doc = read_fixture("croc2_level.wad");
    if (!doc) return;
    CHECK(doc->skeleton->bone_count == 3 && doc->clips[0].track_count == 2);
    size_t size;
    uint8_t *orig = test_read_file(test_path("argonaut", "croc2_level.wad"), &size);
    const ganim_transform *rest = &doc->skeleton->bones[2].rest;
    ganim_error e = { 0 };
    uint32_t t = 0;
    CHECK(ganim_doc_add_track(doc, 0, &(ganim_track){ 2, "", { 0 }, { 0 }, { 0 }, NULL, NULL }, &t, &e) == GANIM_OK);
    float still[3][3], moving[3][3];
    for (int f = 0; f < 3; f++) {
        memcpy(still[f], &rest->translation.x, sizeof still[f]);
        memcpy(moving[f], &rest->translation.x, sizeof moving[f]);
        moving[f][0] += (float)f;
    }
    ganim_channel ch = { GANIM_CHANNEL_PER_FRAME, 3, NULL, &still[0][0] };
    CHECK(ganim_doc_set_channel(doc, 0, t, GANIM_TARGET_TRANSLATION, &ch, &e) == GANIM_OK);
    ganim_buffer out;
    char why[512];
    CHECK_MSG(write_doc(doc, NULL, &out, NULL, why) == GANIM_OK, "%s", why);
    CHECK(out.size == size && memcmp(out.data, orig, size) == 0);
    ganim_buffer_free(&out);
    ch.values = &moving[0][0];
    CHECK(ganim_doc_set_channel(doc, 0, t, GANIM_TARGET_TRANSLATION, &ch, &e) == GANIM_OK);
    CHECK(write_doc(doc, NULL, &out, NULL, why) == GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(why, "clip 0 moves bone 2 (group_2)") && strstr(why, "2 bones"), "%s", why);
    ganim_buffer_free(&out);
    free(orig);
    ganim_doc_free(doc);
}

/* Keyed Harry Potter clips sampled at every frame (what a resample or another tool
 * gives): written back as keys at the record's key frames, byte for byte; an edit
 * between two keys adds keys where interpolation would miss the clip and leaves the
 * others as they were. */
TEST(keys_from_frames)
{
    size_t size;
    uint8_t *orig = test_read_file(test_path("argonaut", "hp_level.wad"), &size);
    ganim_doc *doc = read_fixture("hp_level.wad");
    recs a, b;
    if (!doc || !orig || !parse_recs(orig, size, 1, &a)) {
        CHECK(0);
        free(orig);
        ganim_doc_free(doc);
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
            const ganim_clip *c = &doc->clips[ci];
            if (c->tracks[0].rotation.kind != (pass ? GANIM_CHANNEL_PER_FRAME : GANIM_CHANNEL_KEYED)) continue;
            if (pass && ci) continue;
            uint32_t fc = c->frame_count;
            for (uint32_t t = 0; t < (pass ? 1 : c->track_count); t++) {
                float *r = malloc((size_t)fc * 4 * sizeof(float)), *v = malloc((size_t)fc * 3 * sizeof(float));
                const float id[4] = { 0, 0, 0, 1 }, z[3] = { 0, 0, 0 };
                for (uint32_t f = 0; f < fc; f++) {
                    ganim_channel_eval(&c->tracks[t].rotation, fc, NULL, c->rotation_interp, 4, f, id, r + 4 * f);
                    ganim_channel_eval(&c->tracks[t].translation, fc, NULL, c->rotation_interp, 3, f, z, v + 3 * f);
                }
                if (pass) { /* clip 0 (keys at 0, 3, 7), bone 0: frame 1 turned 20 degrees */
                    ganim_quat q = turned(r + 4, 20);
                    memcpy(r + 4, &q.x, sizeof q);
                }
                ganim_channel rc = { GANIM_CHANNEL_PER_FRAME, fc, NULL, r },
                              tc = { GANIM_CHANNEL_PER_FRAME, fc, NULL, v };
                ganim_error e = { 0 };
                CHECK(ganim_doc_set_channel(doc, ci, t, GANIM_TARGET_ROTATION, &rc, &e) == GANIM_OK);
                CHECK(ganim_doc_set_channel(doc, ci, t, GANIM_TARGET_TRANSLATION, &tc, &e) == GANIM_OK);
                free(r);
                free(v);
                c = &doc->clips[ci];
            }
        }
        ganim_buffer out;
        char why[512];
        CHECK_MSG(write_doc(doc, NULL, &out, NULL, why) == GANIM_OK, "%s", why);
        if (pass == 0) {
            CHECK_MSG(out.size == size && memcmp(out.data, orig, size) == 0, "hp_level: per-frame keys not the same");
        } else {
            CHECK(parse_recs(out.data, out.size, 1, &b) && b.n == 4);
            const ag_rec *x = &a.r[0], *y = &b.r[0];
            /* keys at 1 (the edit) and 2 (where slerp from the edit to key 3 would miss frame 2) */
            CHECK_MSG(y->kc == x->kc + 2 && y->fc == x->fc && y->bc == x->bc, "keys %u, were %u", y->kc, x->kc);
            static const uint32_t frames[5] = { 0, 1, 2, 3, 7 };
            static const int was[5] = { 0, -1, -1, 1, 2 };
            for (uint32_t k = 0; k < y->kc && k < 5; k++)
                for (uint32_t bone = 0; bone < y->bc; bone++) {
                    const uint8_t *q = y->p + ag_key_at(y, k, bone);
                    CHECK_EQ_INT(ganim_ld_u16le(q + 14), frames[k]);
                    if (was[k] >= 0)
                        CHECK_MSG(memcmp(q, x->p + ag_key_at(x, (uint32_t)was[k], bone), 14) == 0, "key %u bone %u", k,
                                  bone);
                }
            ganim_doc *back = read_mem(out.data, out.size, NULL);
            if (back) { /* frame 1 as edited, frame 2 as it was, within a step */
                ganim_doc *o = read_fixture("hp_level.wad");
                float q0[4], q1[4];
                const float id[4] = { 0, 0, 0, 1 };
                for (uint32_t f = 1; o && f < 3; f++) {
                    ganim_channel_eval(&back->clips[0].tracks[0].rotation, 8, NULL, GANIM_INTERP_SLERP, 4, f, id, q0);
                    ganim_channel_eval(&o->clips[0].tracks[0].rotation, 8, NULL, GANIM_INTERP_SLERP, 4, f, id, q1);
                    ganim_quat w = f == 1 ? turned(q1, 20) : (ganim_quat){ q1[0], q1[1], q1[2], q1[3] };
                    CHECK_MSG(fabs(fabs(ganim_quat_dot((ganim_quat){ q0[0], q0[1], q0[2], q0[3] }, w)) - 1) < 1e-6,
                              "frame %u", f);
                }
                ganim_doc_free(o);
                ganim_doc_free(back);
            }
            for (uint32_t k = 1; k < 4; k++) CHECK(same_record(&a.r[k], &b.r[k]));
        }
        ganim_buffer_free(&out);
    }
    ganim_doc_free(doc);
    free(orig);
}

/* Every clip of every fixture given the record of every other clip (another frame count,
 * bone count, variant, layout): the writer writes what reads back with the clip's frames
 * and bones, or refuses with a reason; it never reads past a record. */
TEST(records_of_other_clips)
{
    ganim_doc *docs[4];
    for (int i = 0; i < 4; i++) docs[i] = read_fixture(files[i]);
    int written = 0, refused = 0;
    for (int i = 0; i < 4; i++)
        for (uint32_t ci = 0; docs[i] && ci < docs[i]->clip_count; ci++)
            for (int j = 0; j < 4; j++)
                for (uint32_t cj = 0; docs[j] && cj < docs[j]->clip_count; cj++) {
                    ganim_doc *doc = read_fixture(files[i]);
                    if (!doc) continue;
                    set_with_record(doc, ci, &doc->clips[ci], &docs[j]->clips[cj]);
                    ganim_buffer out;
                    char why[512];
                    ganim_code c = write_doc(doc, NULL, &out, NULL, why);
                    if (c == GANIM_OK) {
                        written++;
                        ganim_doc *back = read_mem(out.data, out.size, strstr(files[i], "hp") ? "hp" : "croc2");
                        CHECK_MSG(back && back->clip_count == doc->clip_count, "%s clip %u with %s's record %u",
                                  files[i], ci, files[j], cj);
                        if (back && ci < back->clip_count)
                            CHECK_MSG(back->clips[ci].frame_count == doc->clips[ci].frame_count,
                                      "%s clip %u with %s's record %u: %u frames", files[i], ci, files[j], cj,
                                      back->clips[ci].frame_count);
                        ganim_doc_free(back);
                    } else {
                        refused++;
                        CHECK_MSG(c == GANIM_ERR_INVALID_ARG && strstr(why, "argonaut: clip"), "%s clip %u: %s",
                                  files[i], ci, why);
                    }
                    ganim_buffer_free(&out);
                    ganim_doc_free(doc);
                }
    CHECK_MSG(written > 0 && refused > 0, "%d written, %d refused", written, refused);
    for (int i = 0; i < 4; i++) ganim_doc_free(docs[i]);
}

/* Every fixture exported to glb and written into itself (ganim_write_opts.into, what
 * --into ORIGINAL does): the same bytes. With one clip's bone 0 moved by (10, -3, 7) at
 * its frame or key 1, each clip in turn, exactly those three s16 change (before the
 * template writer, 6 of the 12 clips also changed matrices or keys around them). */
TEST(into_the_original)
{
    for (int i = 0; i < 4; i++) {
        int hp = strstr(files[i], "hp") != NULL;
        size_t size;
        uint8_t *orig = test_read_file(test_path("argonaut", files[i]), &size);
        ganim_doc *o = read_fixture(files[i]);
        ganim_buffer glb = { 0 };
        ganim_error e = { 0 };
        ganim_export_opts eo = { 0 };
        eo.default_clip_name = "level";
        CHECK_MSG(o && ganim_export_glb(o, &eo, &glb, &e) == GANIM_OK, "%s: %s", files[i], e.message);
        ganim_doc *g = o ? read_mem(glb.data, glb.size, NULL) : NULL;
        ganim_buffer_free(&glb);
        recs a, b;
        if (!g || !orig || !parse_recs(orig, size, hp, &a)) {
            CHECK(0);
            free(orig);
            ganim_doc_free(o);
            ganim_doc_free(g);
            continue;
        }
        for (uint32_t ci = 0; ci < g->clip_count; ci++) { /* the names the export gave them, as a tool keeps them */
            char name[32];
            snprintf(name, sizeof name, "level_%u", ci);
            ganim_clip c = g->clips[ci];
            c.name = name;
            CHECK(ganim_doc_set_clip(g, ci, &c, &e) == GANIM_OK);
        }
        for (int64_t edit = -1; edit < (int64_t)g->clip_count; edit++) { /* none, then each clip in turn */
            uint32_t ci = edit < 0 ? 0 : (uint32_t)edit;
            ganim_channel was = g->clips[ci].tracks[0].translation;
            if (edit >= 0) {
                size_t tb = (size_t)was.count * 3 * sizeof(float);
                float *v = malloc(tb);
                memcpy(v, was.values, tb);
                v[3] += 10, v[4] -= 3, v[5] += 7;
                ganim_channel tc = was;
                tc.values = v;
                CHECK(ganim_doc_set_channel(g, ci, 0, GANIM_TARGET_TRANSLATION, &tc, &e) == GANIM_OK);
                free(v);
            }
            ganim_write_opts wo = { 0 };
            wo.into = o;
            ganim_buffer out = { 0 };
            CHECK_MSG(ganim_write(g, NULL, &wo, &out, &e) == GANIM_OK, "%s: %s", files[i], e.message);
            if (edit < 0) {
                CHECK_MSG(out.size == size && memcmp(out.data, orig, size) == 0, "%s: not the same bytes", files[i]);
            } else if (out.size == size && parse_recs(out.data, out.size, hp, &b)) {
                const ag_rec *x = &a.r[ci];
                size_t at = (size_t)(x->p - orig) + (ag_keyed(x) ? ag_key_at(x, 1, 0) + 8 : ag_matrix_at(x, 1, 0) + 18);
                CHECK_MSG(memcmp(out.data, orig, at) == 0 &&
                              memcmp(out.data + at + 6, orig + at + 6, size - at - 6) == 0,
                          "%s clip %u: the edit changed other bytes", files[i], ci);
                CHECK_EQ_INT(ag_s16(out.data + at), ag_s16(orig + at) + 10);
                CHECK_EQ_INT(ag_s16(out.data + at + 2), ag_s16(orig + at + 2) - 3);
                CHECK_EQ_INT(ag_s16(out.data + at + 4), ag_s16(orig + at + 4) + 7);
            } else {
                CHECK_MSG(0, "%s clip %u: edited: %zu bytes, %zu before", files[i], ci, out.size, size);
            }
            ganim_buffer_free(&out);
            if (edit >= 0) CHECK(ganim_doc_set_channel(g, ci, 0, GANIM_TARGET_TRANSLATION, &was, &e) == GANIM_OK);
        }
        ganim_doc_free(g);
        ganim_doc_free(o);
        free(orig);
    }
}

/* A level's record that does not hold together (as a glTF's extras could bring it) is
 * not a level: more records read than stored, or no XSPD section where it says. */
TEST(a_broken_level_record_is_no_level)
{
    for (int k = 0; k < 3; k++) {
        ganim_doc *doc = read_fixture("croc2_level.wad");
        if (!doc) return;
        const uint8_t *keep = doc->native;
        uint8_t *p = malloc(doc->native_size);
        memcpy(p, doc->native, doc->native_size);
        uint32_t xspd = ganim_ld_u32le(p + 28);
        if (k == 1) ganim_st_u32le(p + 12, ganim_ld_u32le(p + 8) + 1); /* records read */
        if (k == 2) p[AG_DOC_HEADER + xspd] = 'Y';                     /* the XSPD tag */
        doc->native = p;
        ganim_buffer out;
        char why[512];
        ganim_code c = write_doc(doc, NULL, &out, NULL, why);
        if (k == 0) CHECK_MSG(c == GANIM_OK, "%s", why); /* the copy itself is fine */
        else CHECK_MSG(c == GANIM_ERR_INVALID_ARG && strstr(why, "--into ORIGINAL.wad"), "%d: %s", k, why);
        ganim_buffer_free(&out);
        doc->native = keep;
        free(p);
        ganim_doc_free(doc);
    }
}

/* A document that holds only animations is no level: a WAD is written into the level it
 * belongs to (--into), and a bare block only when asked for. */
TEST(no_level_no_wad)
{
    ganim_doc *doc = read_fixture("croc2_style_2anims.bin");
    if (!doc) return;
    ganim_buffer out;
    char why[512];
    CHECK(write_doc(doc, "wad", &out, NULL, why) == GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(why, "--into ORIGINAL.wad"), "%s", why);
    ganim_buffer_free(&out);
    /* the same clips in a document of another format */
    ganim_doc *other = NULL;
    ganim_error e = { 0 };
    CHECK(ganim_doc_new(NULL, &other, &e) == GANIM_OK);
    CHECK(ganim_doc_set_skeleton(other, doc->skeleton, &e) == GANIM_OK);
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) CHECK(ganim_doc_add_clip(other, &doc->clips[ci], NULL, &e) == 0);
    CHECK(write_doc(other, NULL, &out, NULL, why) == GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(why, "--into ORIGINAL.wad") && strstr(why, "argonaut.container=block"), "%s", why);
    ganim_buffer_free(&out);
    size_t size;
    uint8_t *orig = test_read_file(test_path("argonaut", "croc2_style_2anims.bin"), &size);
    CHECK_MSG(write_doc(other, "block", &out, NULL, why) == GANIM_OK, "%s", why);
    CHECK(out.size == size && memcmp(out.data, orig, size) == 0);
    ganim_buffer_free(&out);
    free(orig);
    ganim_doc_free(other);
    ganim_doc_free(doc);
}

int main(void)
{
    test_program_name = "test_argonaut_template";
    test_testdata();
    RUN(glb_round_trip_with_records);
    RUN(edits_land_and_nothing_else_changes);
    RUN(frame_count_changes);
    RUN(bones_the_record_does_not_animate);
    RUN(keys_from_frames);
    RUN(records_of_other_clips);
    RUN(into_the_original);
    RUN(a_broken_level_record_is_no_level);
    RUN(no_level_no_wad);
    return test_finish();
}
