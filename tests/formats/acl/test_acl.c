/* ACL compressed_tracks and Civilization VII containers against ACL's own decode
 * ($GANIM_TESTDATA/acl: keys.txt, times.txt, input.txt, README table), plus hostile-input
 * sweeps, the database refusal and the V0 write/read round trip. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "acl_clip_check.h"
#include "core/internal.h"
#include "formats/acl/acl.h"
#include "formats/acl/acl_internal.h"
#include "test.h"

#define ROT_TOL 1e-5
#define VEC_TOL 1e-5

/* ---- reference text files ------------------------------------------------------------ */

typedef struct ref_line {
    float t; /* frame number (keys/input) or time (times) */
    uint32_t track;
    float v[10]; /* qx qy qz qw tx ty tz sx sy sz */
} ref_line;

/* Records "a track v0..v9"; `parents` (may be NULL) gets the parents line of input.txt. */
static ref_line *read_ref(const char *path, size_t *count, int **parents, uint32_t *nparents)
{
    size_t size;
    char *text = (char *)test_read_file(path, &size);
    text = realloc(text, size + 1);
    text[size] = 0;
    size_t cap = 1024, n = 0;
    ref_line *out = malloc(cap * sizeof *out);
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (!*line) continue;
        if (strncmp(line, "parents", 7) == 0) {
            if (parents) {
                int *p = malloc(4096 * sizeof *p);
                uint32_t np = 0;
                char *s = line + 7, *end;
                for (long v = strtol(s, &end, 10); end != s && np < 4096; v = strtol(s, &end, 10)) {
                    p[np++] = (int)v;
                    s = end;
                }
                *parents = p;
                *nparents = np;
            }
            continue;
        }
        if (n == cap) out = realloc(out, (cap *= 2) * sizeof *out);
        char *s = line;
        out[n].t = strtof(s, &s);
        out[n].track = (uint32_t)strtoul(s, &s, 10);
        for (int i = 0; i < 10; i++) out[n].v[i] = strtof(s, &s);
        n++;
    }
    free(text);
    *count = n;
    return out;
}

/* Largest error of a pose against a reference line (rotation sign-insensitive). */
static int pose_matches(const float *q, const float *t, const float *s, const float *ref, double *worst)
{
    double ep = 0, en = 0, e = 0;
    for (int i = 0; i < 4; i++) {
        double dp = fabs((double)q[i] - ref[i]), dn = fabs((double)q[i] + ref[i]);
        if (dp > ep) ep = dp;
        if (dn > en) en = dn;
    }
    double er = ep < en ? ep : en;
    int ok = er <= ROT_TOL;
    for (int i = 0; i < 3; i++) {
        double lim = VEC_TOL * (fabs(ref[4 + i]) > 1 ? fabs(ref[4 + i]) : 1);
        double d1 = fabs((double)t[i] - ref[4 + i]);
        double lim2 = VEC_TOL * (fabs(ref[7 + i]) > 1 ? fabs(ref[7 + i]) : 1);
        double d2 = fabs((double)s[i] - ref[7 + i]);
        if (d1 > lim || d2 > lim2) ok = 0;
        if (d1 / lim * VEC_TOL > e) e = d1 / lim * VEC_TOL;
        if (d2 / lim2 * VEC_TOL > e) e = d2 / lim2 * VEC_TOL;
    }
    if (er > e) e = er;
    if (worst && e > *worst) *worst = e;
    return ok;
}

static char *stem_of(const char *path, const char *suffix)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b) - strlen(suffix);
    char *s = malloc(n + 1);
    memcpy(s, b, n);
    s[n] = 0;
    return s;
}

static const char *sibling(const char *stem, const char *ext)
{
    static char buf[4][1024];
    static int k;
    char *o = buf[k++ & 3];
    snprintf(o, 1024, "%s/acl/%s%s", test_testdata(), stem, ext);
    return o;
}

static ganim_doc *read_as(const char *path, const char *format, ganim_error *e)
{
    size_t size;
    uint8_t *data = test_read_file(path, &size);
    ganim_read_opts o = { 0 };
    o.format = format;
    ganim_doc *doc = NULL;
    ganim_code rc = ganim_read_memory(data, size, &o, &doc, e);
    free(data);
    if (rc) {
        test_fail(__FILE__, __LINE__, "%s: %s (offset %llu)", path, e->message, (unsigned long long)e->offset);
        return NULL;
    }
    return doc;
}

/* ---- the decoded clip against keys.txt and times.txt --------------------------------- */

static void check_clip(const char *label, const ganim_doc *doc, const char *stem)
{
    CHECK_EQ_INT(doc->clip_count, 1);
    const ganim_clip *clip = &doc->clips[0];
    ganim_error e = { 0 };
    CHECK_MSG(ganim_doc_validate(doc, &e) == GANIM_OK, "%s: validate: %s", label, e.message);
    CHECK_EQ_INT(clip->rotation_interp, GANIM_INTERP_NLERP);
    size_t nk, nt;
    ref_line *keys = read_ref(sibling(stem, ".keys.txt"), &nk, NULL, NULL);
    ref_line *times = read_ref(sibling(stem, ".times.txt"), &nt, NULL, NULL);
    CHECK_EQ_INT(nk, (size_t)clip->frame_count * clip->track_count);
    size_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < nk; i++) {
        const ref_line *r = &keys[i];
        CHECK(r->track < clip->track_count && (uint32_t)r->t < clip->frame_count);
        if (r->track >= clip->track_count) continue;
        const ganim_track *tr = &clip->tracks[r->track];
        const ganim_transform *rest = &doc->skeleton->bones[tr->bone].rest;
        float q[4], t[3], s[3];
        ganim_channel_eval(&tr->rotation, clip->frame_count, tr->step, clip->rotation_interp, 4, r->t,
                           &rest->rotation.x, q);
        ganim_channel_eval(&tr->translation, clip->frame_count, tr->step, clip->rotation_interp, 3, r->t,
                           &rest->translation.x, t);
        ganim_channel_eval(&tr->scale, clip->frame_count, tr->step, clip->rotation_interp, 3, r->t, &rest->scale.x, s);
        if (!pose_matches(q, t, s, r->v, &worst) && bad++ < 5)
            test_fail(__FILE__, __LINE__,
                      "%s: key frame %g track %u: got q(%.9g %.9g %.9g %.9g) t(%.9g %.9g %.9g) s(%.9g %.9g %.9g)",
                      label, (double)r->t, r->track, q[0], q[1], q[2], q[3], t[0], t[1], t[2], s[0], s[1], s[2]);
    }
    ganim_transform *pose = calloc(doc->skeleton->bone_count, sizeof *pose);
    for (size_t i = 0; i < nt; i++) {
        const ref_line *r = &times[i];
        if (i == 0 || times[i - 1].t != r->t) CHECK_OK(ganim_clip_sample(clip, doc->skeleton, r->t, pose, NULL, &e_));
        const ganim_transform *p = &pose[r->track];
        if (!pose_matches(&p->rotation.x, &p->translation.x, &p->scale.x, r->v, &worst) && bad++ < 10)
            test_fail(__FILE__, __LINE__, "%s: time %.9g track %u: got q(%.9g %.9g %.9g %.9g) t(%.9g %.9g %.9g)", label,
                      (double)r->t, r->track, p->rotation.x, p->rotation.y, p->rotation.z, p->rotation.w,
                      p->translation.x, p->translation.y, p->translation.z);
    }
    printf("  %s: %zu key values, %zu timed values, worst error %.3g\n", label, nk, nt, worst);
    free(pose);
    free(keys);
    free(times);
}

/* "Key frames with no exact float time: N." from the clip's README note (0 if absent). */
static long readme_inexact(const char *stem)
{
    size_t size;
    char *text = (char *)test_read_file(test_path("acl", "README.md"), &size);
    text = realloc(text, size + 1);
    text[size] = 0;
    char key[256];
    snprintf(key, sizeof key, "- `%s`:", stem);
    long n = 0;
    char *p = strstr(text, key);
    if (p) {
        char *end = strchr(p, '\n');
        if (end) *end = 0;
        char *q = strstr(p, "no exact float time: ");
        if (q) n = strtol(q + 21, NULL, 10);
    }
    free(text);
    return n;
}

/* The random-access decoder straight from the bytes, against the same references. */
static void check_random_access(const char *stem)
{
    size_t size;
    uint8_t *data = test_read_file(sibling(stem, ".acl"), &size);
    ganim_acl *acl = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_acl_open(data, size, 0, NULL, NULL, NULL, &acl, &e) == GANIM_OK, "%s: open: %s", stem, e.message);
    if (!acl) {
        free(data);
        return;
    }
    size_t nt, nk;
    ref_line *times = read_ref(sibling(stem, ".times.txt"), &nt, NULL, NULL);
    ref_line *keys = read_ref(sibling(stem, ".keys.txt"), &nk, NULL, NULL);
    uint32_t n = ganim_acl_track_count(acl);
    ganim_transform *pose = calloc(n, sizeof *pose);
    size_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < nt; i++) {
        if (i == 0 || times[i - 1].t != times[i].t) ganim_acl_sample_pose(acl, times[i].t, pose);
        const ganim_transform *p = &pose[times[i].track];
        if (!pose_matches(&p->rotation.x, &p->translation.x, &p->scale.x, times[i].v, &worst) && bad++ < 5)
            test_fail(__FILE__, __LINE__, "%s: random access at %.9g track %u", stem, (double)times[i].t,
                      times[i].track);
    }
    /* key frames at a float32 time t with t * rate == f exactly (ACL's own key times);
     * the README counts the frames where no such t exists */
    float rate = ganim_acl_sample_rate(acl);
    uint32_t inexact = 0, last = UINT32_MAX;
    int exact = 0;
    for (size_t i = 0; i < nk; i++) {
        uint32_t f = (uint32_t)keys[i].t;
        if (f != last) {
            last = f;
            float t = (float)f / rate;
            float lo = nextafterf(nextafterf(t, 0), 0);
            exact = 0;
            for (int k = 0; k < 5 && !exact; k++, lo = nextafterf(lo, INFINITY))
                if (lo * rate == (float)f) {
                    t = lo;
                    exact = 1;
                }
            if (!exact && f + 1u == ganim_acl_frame_count(acl)) {
                t = 1e30f;
                exact = 1;
            } /* clamps to the end */
            if (!exact) inexact++;
            else ganim_acl_sample_pose(acl, t, pose);
        }
        if (!exact) continue;
        const ganim_transform *p = &pose[keys[i].track];
        if (!pose_matches(&p->rotation.x, &p->translation.x, &p->scale.x, keys[i].v, &worst) && bad++ < 5)
            test_fail(__FILE__, __LINE__, "%s: random access at frame %g track %u", stem, (double)keys[i].t,
                      keys[i].track);
    }
    CHECK_EQ_INT(inexact, readme_inexact(stem));
    printf("  %s random access: worst error %.3g\n", stem, worst);
    free(pose);
    free(times);
    free(keys);
    ganim_acl_close(acl);
    free(data);
}

/* ---- README table --------------------------------------------------------------------- */

static char *readme_row(const char *stem, char cols[20][160])
{
    size_t size;
    char *text = (char *)test_read_file(test_path("acl", "README.md"), &size);
    text = realloc(text, size + 1);
    text[size] = 0;
    char key[256];
    snprintf(key, sizeof key, "| `%s` |", stem);
    char *row = strstr(text, key);
    if (!row) {
        free(text);
        return NULL;
    }
    char *end = strchr(row, '\n');
    if (end) *end = 0;
    int c = 0;
    for (char *p = row + 1; *p && c < 20;) {
        char *bar = strchr(p, '|');
        if (!bar) break;
        size_t n = (size_t)(bar - p);
        while (n && p[0] == ' ') p++, n--;
        while (n && p[n - 1] == ' ') n--;
        if (n > 159) n = 159;
        memcpy(cols[c], p, n);
        cols[c][n] = 0;
        c++;
        p = bar + 1;
    }
    return text;
}

static long json_num(const char *json, const char *key)
{
    const char *p = strstr(json, key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static void check_structure(const ganim_doc *doc, const char *stem, const char *format)
{
    char cols[20][160];
    memset(cols, 0, sizeof cols);
    char *text = readme_row(stem, cols);
    CHECK_MSG(text != NULL, "%s: no row in the README table", stem);
    if (!text) return;
    const ganim_clip *clip = &doc->clips[0];
    CHECK_EQ_INT(clip->track_count, strtol(cols[4], NULL, 10));
    CHECK_EQ_INT(clip->frame_count, strtol(cols[5], NULL, 10));
    CHECK_NEAR(clip->fps, strtod(cols[8], NULL), 0);
    CHECK_EQ_STR(doc->format->name, format);
    char *json = test_details_json(doc, 0, GANIM_DETAILS_SUMMARY);
    if (!json) json = calloc(1, 1);
    CHECK_EQ_INT(json_num(json, "\"acl_version\":"), strtol(cols[2], NULL, 10));
    CHECK_EQ_INT(json_num(json, "\"flags\":"), strtol(cols[3], NULL, 16));
    CHECK_EQ_INT(json_num(json, "\"samples\":"), strtol(cols[6], NULL, 10));
    CHECK_EQ_INT(json_num(json, "\"segments\":"), strtol(cols[7], NULL, 10));
    CHECK(strstr(json, "\"hash_ok\":true") != NULL);
    /* "R 2/22/0, T 0/24/0, S -": default/constant/animated per kind */
    static const char *const kinds[3] = { "\"rotation\":{", "\"translation\":{", "\"scale\":{" };
    const char *p = cols[10];
    for (int k = 0; k < 3; k++) {
        const char *seg = strchr(p, "RTS"[k]);
        CHECK(seg != NULL);
        if (!seg) break;
        long d, c, a;
        if (seg[2] == '-') {
            d = clip->track_count;
            c = a = 0;
        } else {
            char *q;
            d = strtol(seg + 2, &q, 10);
            c = strtol(q + 1, &q, 10);
            a = strtol(q + 1, &q, 10);
        }
        const char *o = strstr(json, kinds[k]);
        CHECK(o != NULL);
        if (o) {
            CHECK_EQ_INT(json_num(o, "\"default\":"), d);
            CHECK_EQ_INT(json_num(o, "\"constant\":"), c);
            CHECK_EQ_INT(json_num(o, "\"animated\":"), a);
        }
        p = seg + 1;
    }
    /* bit widths: "none", "1", "7-14", "6-15; 0 (seg-const): R8 T2", "6-23; raw 31: R28 T37" */
    const char *bw = cols[11];
    const char *hist = strstr(json, "\"bit_rates\":{");
    CHECK(hist != NULL);
    long lo = 99, hi = -1, zero = 0, raw = 0;
    for (const char *q = hist ? hist + 13 : ""; *q == '"';) {
        char *x;
        long w = strtol(q + 1, &x, 10), n = strtol(x + 2, &x, 10);
        if (w == 0) zero += n;
        else if (w == 31 || w == 32) raw += n;
        else {
            if (w < lo) lo = w;
            if (w > hi) hi = w;
        }
        q = x + (*x == ',');
    }
    if (strncmp(bw, "none", 4) == 0) {
        CHECK_EQ_INT(hi, -1);
    } else {
        char *x;
        long a = strtol(bw, &x, 10), z = *x == '-' ? strtol(x + 1, &x, 10) : a;
        CHECK_EQ_INT(lo, a);
        CHECK_EQ_INT(hi, z);
    }
    long want_zero = 0, want_raw = 0;
    const char *sc = strstr(bw, "seg-const)");
    const char *rw = strstr(bw, "raw ");
    for (const char *q = sc; q && *q && q != rw; q++)
        if ((*q == 'R' || *q == 'T' || *q == 'S') && q[1] >= '0' && q[1] <= '9') want_zero += strtol(q + 1, NULL, 10);
    for (const char *q = rw ? rw + 6 : NULL; q && *q; q++)
        if ((*q == 'R' || *q == 'T' || *q == 'S') && q[1] >= '0' && q[1] <= '9') want_raw += strtol(q + 1, NULL, 10);
    CHECK_EQ_INT(zero, want_zero);
    CHECK_EQ_INT(raw, want_raw);
    free(json);
    free(text);
}

/* ---- tests -------------------------------------------------------------------------- */

TEST(acl_buffers_match_acl)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    int n = 0;
    for (char **p = list; *p; p++, n++) {
        char *stem = stem_of(*p, ".acl");
        ganim_error e = { 0 };
        ganim_doc *doc = read_as(*p, NULL, &e);
        if (doc) {
            CHECK_EQ_STR(doc->format->name, "acl");
            check_clip(stem, doc, stem);
            check_structure(doc, stem, "acl");
            ganim_doc_free(doc);
        }
        check_random_access(stem);
        free(stem);
    }
    CHECK(n >= 16);
    test_free_list(list);
}

TEST(civ7_v1_matches_acl)
{
    char **list = test_list_dir(test_path("acl", ""), ".civ");
    int n = 0;
    for (char **p = list; *p; p++) {
        if (strstr(*p, ".v0.civ")) continue;
        char *stem = stem_of(*p, ".civ");
        ganim_error e = { 0 };
        ganim_doc *doc = read_as(*p, NULL, &e);
        if (doc) {
            CHECK_EQ_STR(doc->format->name, "civ7");
            char label[300];
            snprintf(label, sizeof label, "%s.civ", stem);
            check_clip(label, doc, stem);
            check_structure(doc, stem, "civ7");
            CHECK_EQ_INT(doc->warning_count, 0);
            ganim_doc_free(doc);
            n++;
        }
        free(stem);
    }
    CHECK(n >= 16);
    test_free_list(list);
}

TEST(civ7_v0_holds_the_input)
{
    char **list = test_list_dir(test_path("acl", ""), ".v0.civ");
    int n = 0;
    for (char **p = list; *p; p++, n++) {
        char *stem = stem_of(*p, ".v0.civ");
        ganim_error e = { 0 };
        ganim_doc *doc = read_as(*p, "civ7", &e);
        size_t ni;
        int *parents = NULL;
        uint32_t np = 0;
        ref_line *in = read_ref(sibling(stem, ".input.txt"), &ni, &parents, &np);
        if (doc) {
            CHECK_MSG(ganim_doc_validate(doc, &e) == GANIM_OK, "%s: %s", stem, e.message);
            const ganim_clip *clip = &doc->clips[0];
            CHECK_EQ_INT(ni, (size_t)clip->frame_count * clip->track_count);
            CHECK_EQ_INT(np, clip->track_count);
            size_t bad = 0;
            for (size_t i = 0; i < ni; i++) {
                const ref_line *r = &in[i];
                if (r->track >= clip->track_count) {
                    CHECK(0);
                    continue;
                }
                const ganim_track *tr = &clip->tracks[r->track];
                float v[10];
                const float *rest = &doc->skeleton->bones[tr->bone].rest.rotation.x;
                ganim_channel_eval(&tr->rotation, clip->frame_count, NULL, clip->rotation_interp, 4, r->t, rest, v);
                ganim_channel_eval(&tr->translation, clip->frame_count, NULL, clip->rotation_interp, 3, r->t, rest,
                                   v + 4);
                ganim_channel_eval(&tr->scale, clip->frame_count, NULL, clip->rotation_interp, 3, r->t, rest, v + 7);
                if (memcmp(v, r->v, sizeof v) != 0 && bad++ < 5)
                    test_fail(__FILE__, __LINE__, "%s: frame %g bone %u differs from input.txt", stem, (double)r->t,
                              r->track);
            }
            /* write back: identical bytes */
            ganim_buffer out = { 0 };
            CHECK_OK(ganim_write(doc, "civ7", NULL, &out, &e_));
            size_t size;
            uint8_t *orig = test_read_file(*p, &size);
            CHECK_EQ_INT(out.size, size);
            CHECK(out.size == size && memcmp(out.data, orig, size) == 0);
            free(orig);
            ganim_buffer_free(&out);
            ganim_doc_free(doc);
        }
        free(in);
        free(parents);
        free(stem);
    }
    CHECK(n >= 4);
    test_free_list(list);
}

/* Any clip -> V0 -> read back: every frame value survives exactly. */
TEST(civ7_v0_write_read_round_trip)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    for (char **p = list; *p; p++) {
        ganim_error e = { 0 };
        ganim_doc *doc = read_as(*p, NULL, &e);
        if (!doc) continue;
        ganim_buffer out = { 0 };
        CHECK_OK(ganim_write(doc, "civ7", NULL, &out, &e_));
        ganim_read_opts o = { 0 };
        ganim_doc *back = NULL;
        CHECK_MSG(ganim_read_memory(out.data, out.size, &o, &back, &e) == GANIM_OK, "%s: %s", *p, e.message);
        if (back) {
            CHECK_EQ_STR(back->format->name, "civ7");
            const ganim_clip *a = &doc->clips[0], *b = &back->clips[0];
            CHECK_EQ_INT(a->frame_count, b->frame_count);
            CHECK_EQ_INT(back->skeleton->bone_count, doc->skeleton->bone_count);
            CHECK_NEAR(a->fps, b->fps, 0);
            size_t bad = 0;
            for (uint32_t f = 0; f < a->frame_count && a->frame_count == b->frame_count; f++)
                for (uint32_t t = 0; t < a->track_count; t++) {
                    const ganim_track *ta = &a->tracks[t], *tb = &b->tracks[t];
                    const float *rest = &doc->skeleton->bones[t].rest.rotation.x;
                    float va[10], vb[10];
                    ganim_channel_eval(&ta->rotation, a->frame_count, NULL, a->rotation_interp, 4, f, rest, va);
                    ganim_channel_eval(&ta->translation, a->frame_count, NULL, a->rotation_interp, 3, f, rest + 4,
                                       va + 4);
                    ganim_channel_eval(&ta->scale, a->frame_count, NULL, a->rotation_interp, 3, f, rest + 7, va + 7);
                    ganim_channel_eval(&tb->rotation, b->frame_count, NULL, b->rotation_interp, 4, f, rest, vb);
                    ganim_channel_eval(&tb->translation, b->frame_count, NULL, b->rotation_interp, 3, f, rest + 4,
                                       vb + 4);
                    ganim_channel_eval(&tb->scale, b->frame_count, NULL, b->rotation_interp, 3, f, rest + 7, vb + 7);
                    if (memcmp(va, vb, sizeof va) && bad++ < 3)
                        test_fail(__FILE__, __LINE__, "%s: frame %u track %u changed in the V0 round trip", *p, f, t);
                }
            /* and V0 -> V0 again is byte-identical */
            ganim_buffer again = { 0 };
            CHECK_OK(ganim_write(back, "civ7", NULL, &again, &e_));
            CHECK(again.size == out.size && memcmp(again.data, out.data, out.size) == 0);
            ganim_buffer_free(&again);
            ganim_doc_free(back);
        }
        ganim_buffer_free(&out);
        ganim_doc_free(doc);
    }
    test_free_list(list);
}

/* ---- V0 transposition (file order in, tiles out) against the bone-at-a-time reference - */

static void put_u32(uint8_t *p, uint32_t v);

/* The V0 reader's model as it was made a bone at a time (the reference for the tiled
 * transposition): each frame repaired in place (civ7_v0_record), `fixed` and the first repaired record's
 * offset counted in bone order, then a channel constant when every repaired frame holds
 * frame 0's bits. `vals` gets bones x frames x 10 floats (q xyzw, t, s) and `constant`
 * bones x 3 flags. */
static void v0_reference(const uint8_t *data, uint32_t frames, uint32_t bones, float *vals, uint8_t *constant,
                         uint32_t *fixed, uint64_t *first_bad)
{
    *fixed = 0;
    *first_bad = GANIM_NO_OFFSET;
    for (uint32_t b = 0; b < bones; b++) {
        float *bv = vals + (size_t)b * frames * 10u;
        for (uint32_t f = 0; f < frames; f++) {
            size_t at = 0x60 + ((size_t)f * bones + b) * 40u;
            float *o = bv + (size_t)f * 10u;
            int bad = civ7_v0_record(data + at, o, o + 4, o + 7); /* the reader's own repairs */
            if (bad && !(*fixed)++) *first_bad = at;
        }
        static const unsigned from[3] = { 0, 4, 7 }, comps[3] = { 4, 3, 3 };
        for (unsigned k = 0; k < 3; k++) {
            uint32_t f = 1;
            while (f < frames && memcmp(bv + from[k], bv + (size_t)f * 10u + from[k], comps[k] * sizeof(float)) == 0)
                f++;
            constant[(size_t)b * 3u + k] = (uint8_t)(f == frames);
        }
    }
}

static uint32_t v0_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 16);
}

/* One channel's value at frame f for a mode: 0 the same bits every frame, 1 random,
 * 2 bits that differ but repair to one value (NaN and infinities; rotations of other
 * lengths along one axis), 3 the same bits but one frame whose repair gives them back
 * (NaN for 0 or 1, a doubled rotation), 4 random with a bad value now and then, 5 random
 * with unit rotations (nothing to repair). */
static void v0_value(uint64_t *s, unsigned mode, unsigned k, uint32_t f, uint32_t pick, float *o)
{
    static const float odd[] = { NAN, INFINITY, -INFINITY, -NAN };
    unsigned n = k == 0 ? 4 : 3;
    float base = k == 2 ? 1.0f : 0.0f;
    for (unsigned c = 0; c < n; c++) o[c] = base;
    if (k == 0) o[0] = 1.0f; /* qw first, as the file stores it */
    switch (mode) {
    case 0: break;
    case 1:
    case 4:
    case 5:
        for (unsigned c = 0; c < n; c++) o[c] = (float)((double)v0_rand(s) / 2147483648.0 - 1.0);
        if (k == 0 && (mode == 5 || v0_rand(s) % 4 == 0)) { /* a unit rotation as the game stores */
            double a = (double)(v0_rand(s) % 6283) / 1000.0;
            o[0] = (float)cos(a / 2), o[1] = (float)sin(a / 2), o[2] = o[3] = 0.0f;
        }
        if (mode == 4 && v0_rand(s) % 7 == 0) o[v0_rand(s) % n] = odd[v0_rand(s) % 4];
        if (mode == 4 && k == 0 && v0_rand(s) % 9 == 0) o[0] = o[1] = o[2] = o[3] = 0.0f;
        break;
    case 2:
        if (k == 0) o[0] = (float)(1 + f % 5); /* (w 1..5, 0, 0, 0) all repair to identity */
        else o[f % n] = odd[f % 4];
        break;
    case 3:
        if (f == pick) {
            if (k == 0) o[0] = 2.0f;
            else o[0] = odd[f % 4];
        }
        break;
    }
}

TEST(civ7_v0_transposition_equals_the_bone_order)
{
    static const uint32_t bone_counts[] = { 1, 2, 3, 7, 50, 101, 205 };
    static const uint32_t frame_counts[] = { 1, 2, 31, 32, 33, 64, 65, 97, 130 };
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    unsigned files = 0, repaired = 0, settled = 0, clean = 0;
    for (size_t bi = 0; bi < sizeof bone_counts / sizeof bone_counts[0]; bi++)
        for (size_t fi = 0; fi < sizeof frame_counts / sizeof frame_counts[0]; fi++)
            for (unsigned variant = 0; variant < 3; variant++) {
                uint32_t bones = bone_counts[bi], frames = frame_counts[fi];
                size_t size = 0x60 + (size_t)frames * bones * 40u + 5u;
                uint8_t *data = calloc(size, 1);
                unsigned *mode = malloc((size_t)bones * 3u * sizeof *mode);
                uint32_t *pick = malloc((size_t)bones * 3u * sizeof *pick);
                float *ref = malloc((size_t)bones * frames * 10u * sizeof *ref);
                uint8_t *constant = malloc((size_t)bones * 3u);
                if (!data || !mode || !pick || !ref || !constant) abort();
                put_u32(data, 0x6AB06AB0u);
                put_u32(data + 4, (uint32_t)size);
                float fps = 30.0f;
                uint32_t fps_bits;
                memcpy(&fps_bits, &fps, 4);
                put_u32(data + 8, fps_bits);
                put_u32(data + 0x0C, frames);
                put_u32(data + 0x10, bones);
                put_u32(data + 0x48, 0xFFFFFFFFu);
                put_u32(data + 0x50, (uint32_t)(size - 5));
                memcpy(data + size - 5, "clip", 5);
                for (size_t i = 0; i < (size_t)bones * 3u; i++) {
                    /* variant 0: every mode; 1: nothing to repair; 2: mostly constant */
                    uint32_t r = v0_rand(&seed);
                    mode[i] = variant == 0   ? r % 5
                              : variant == 1 ? (r % 2 ? 5u : 0u)
                                             : (r % 8 < 6    ? 0
                                                : r % 8 == 6 ? 1
                                                             : 3);
                    pick[i] = v0_rand(&seed) % frames;
                }
                for (uint32_t f = 0; f < frames; f++)
                    for (uint32_t b = 0; b < bones; b++) {
                        float v[10];
                        for (unsigned k = 0; k < 3; k++) {
                            unsigned m = mode[b * 3u + k];
                            uint64_t cs = m == 0 || m == 3 ? 0x1234567u + b * 3u + k : seed; /* constant: same draw */
                            v0_value(&cs, m, k, f, pick[b * 3u + k], v + (k == 0 ? 0 : k == 1 ? 4 : 7));
                            if (!(m == 0 || m == 3)) seed = cs;
                        }
                        uint8_t *at = data + 0x60 + ((size_t)f * bones + b) * 40u;
                        for (unsigned c = 0; c < 10; c++) {
                            uint32_t u;
                            memcpy(&u, &v[c], 4);
                            put_u32(at + 4u * c, u);
                        }
                    }
                uint32_t fixed;
                uint64_t first_bad;
                v0_reference(data, frames, bones, ref, constant, &fixed, &first_bad);
                ganim_error e = { 0 };
                ganim_read_opts o = { 0 };
                o.format = "civ7";
                ganim_doc *doc = NULL;
                CHECK_MSG(ganim_read_memory(data, size, &o, &doc, &e) == GANIM_OK, "%u x %u: %s", bones, frames,
                          e.message);
                files++;
                if (doc) {
                    const ganim_clip *clip = &doc->clips[0];
                    unsigned wrong = 0;
                    for (uint32_t b = 0; b < bones; b++) {
                        const ganim_channel *chs[3] = { &clip->tracks[b].rotation, &clip->tracks[b].translation,
                                                        &clip->tracks[b].scale };
                        static const unsigned from[3] = { 0, 4, 7 }, comps[3] = { 4, 3, 3 };
                        for (unsigned k = 0; k < 3; k++) {
                            const ganim_channel *ch = chs[k];
                            int c = constant[b * 3u + k];
                            settled += c && frames > 1 && (mode[b * 3u + k] == 2 || mode[b * 3u + k] == 3);
                            uint32_t n = c ? 1u : frames;
                            int same =
                                ch->kind == (c ? GANIM_CHANNEL_CONSTANT : GANIM_CHANNEL_PER_FRAME) && ch->count == n;
                            for (uint32_t f = 0; same && f < n; f++)
                                same = memcmp(ch->values + (size_t)f * comps[k],
                                              ref + ((size_t)b * frames + f) * 10u + from[k],
                                              comps[k] * sizeof(float)) == 0;
                            if (!same && wrong++ < 3)
                                test_fail(__FILE__, __LINE__,
                                          "%u bones x %u frames (variant %u): bone %u channel %u "
                                          "differs from the bone-order reference (mode %u)",
                                          bones, frames, variant, b, k, mode[b * 3u + k]);
                        }
                    }
                    /* the repair warning: its count and the first record in bone order */
                    const ganim_warning *w = NULL;
                    for (uint32_t i = 0; i < doc->warning_count; i++)
                        if (doc->warnings[i].code == GANIM_WARN_REPAIRED) w = &doc->warnings[i];
                    CHECK_MSG((w != NULL) == (fixed != 0), "%u x %u: %u repaired, warning %s", bones, frames, fixed,
                              w ? "given" : "missing");
                    if (w && fixed) {
                        char expect[200];
                        snprintf(expect, sizeof expect,
                                 "civ7: V0: %u bone frames held a non-finite value or a non-unit rotation and were "
                                 "repaired",
                                 fixed);
                        CHECK_EQ_STR(w->message, expect);
                        CHECK_MSG(w->offset == first_bad, "%u x %u: first repaired at %llu, reference %llu", bones,
                                  frames, (unsigned long long)w->offset, (unsigned long long)first_bad);
                        repaired++;
                    }
                    clean += fixed == 0;
                    /* written back: the file with each record as repaired, in file order */
                    for (uint32_t f = 0; f < frames; f++)
                        for (uint32_t b = 0; b < bones; b++) {
                            const float *r = ref + ((size_t)b * frames + f) * 10u;
                            float v[10] = { r[3], r[0], r[1], r[2], r[4], r[5], r[6], r[7], r[8], r[9] };
                            for (unsigned c = 0; c < 10; c++) {
                                uint32_t u;
                                memcpy(&u, &v[c], 4);
                                put_u32(data + 0x60 + ((size_t)f * bones + b) * 40u + 4u * c, u);
                            }
                        }
                    ganim_buffer out = { 0 };
                    CHECK_OK(ganim_write(doc, "civ7", NULL, &out, &e_));
                    CHECK_MSG(out.size == size && memcmp(out.data, data, size) == 0,
                              "%u bones x %u frames (variant %u): the V0 written differs from the reference", bones,
                              frames, variant);
                    ganim_buffer_free(&out);
                    ganim_doc_free(doc);
                }
                free(data);
                free(mode);
                free(pick);
                free(ref);
                free(constant);
            }
    printf("  %u V0 files, %u with repairs, %u without, %u channels constant only once repaired\n", files, repaired,
           clean, settled);
    CHECK(repaired > 20 && clean > 20 && settled > 20);
}

TEST(metadata_builds_the_skeleton)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    int seen = 0;
    for (char **p = list; *p; p++) {
        size_t size;
        uint8_t *data = test_read_file(*p, &size);
        int has_meta = size >= 32 && (data[31] & 0x80);
        free(data);
        char *stem = stem_of(*p, ".acl");
        ganim_error e = { 0 };
        ganim_doc *doc = read_as(*p, NULL, &e);
        size_t ni;
        int *parents = NULL;
        uint32_t np = 0;
        ref_line *in = read_ref(sibling(stem, ".input.txt"), &ni, &parents, &np);
        if (doc) {
            const ganim_skeleton *sk = doc->skeleton;
            CHECK(sk != NULL);
            CHECK_EQ_INT(sk->bone_count, doc->clips[0].track_count);
            for (uint32_t i = 0; i < sk->bone_count; i++) {
                if (has_meta) {
                    CHECK_EQ_INT(sk->bones[i].parent, i < np ? parents[i] : -2);
                    CHECK(sk->bones[i].name[0] != 0);
                    CHECK(strncmp(sk->bones[i].name, "track_", 6) != 0);
                    CHECK_EQ_STR(doc->clips[0].tracks[i].name, sk->bones[i].name);
                    CHECK((sk->bones[i].flags & GANIM_BONE_SYNTH) == 0);
                    for (uint32_t j = 0; j < i; j++) CHECK(strcmp(sk->bones[i].name, sk->bones[j].name) != 0);
                } else {
                    char want[32];
                    snprintf(want, sizeof want, "track_%u", i);
                    CHECK_EQ_STR(sk->bones[i].name, want);
                    CHECK_EQ_INT(sk->bones[i].parent, -1);
                }
            }
            if (has_meta) CHECK(sk->name[0] != 0);
            seen += has_meta;
            ganim_doc_free(doc);
        }
        free(in);
        free(parents);
        free(stem);
    }
    CHECK(seen >= 1);
    test_free_list(list);
}

TEST(database_buffers_are_refused)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    size_t size;
    uint8_t *data = test_read_file(list[0], &size);
    data[0x1D] |= 1; /* misc_packed bit 8: has_database */
    ganim_read_opts o = { 0 };
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK_EQ_INT(ganim_read_memory(data, size, &o, &doc, &e), GANIM_ERR_UNSUPPORTED);
    CHECK(strstr(e.message, "database") != NULL);
    CHECK(e.offset != GANIM_NO_OFFSET);
    data[0x1D] &= (uint8_t)~1u;
    memset(data + 0x40, 0x10, 4); /* a database header offset */
    CHECK_EQ_INT(ganim_read_memory(data, size, &o, &doc, &e), GANIM_ERR_UNSUPPORTED);
    free(data);
    test_free_list(list);
}

/* Hostile bytes: every truncation and byte flip gives a valid document or an error
 * with an offset; the random-access sampler is exercised on whatever opens. */
static void sweep_one(const uint8_t *data, size_t size, const char *what)
{
    ganim_read_opts o = { 0 };
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    ganim_code rc = ganim_read_memory(data, size, &o, &doc, &e);
    if (rc == GANIM_OK) {
        ganim_error ve = { 0 };
        CHECK_MSG(ganim_doc_validate(doc, &ve) == GANIM_OK, "%s: decoded document invalid: %s", what, ve.message);
        ganim_doc_free(doc);
    } else {
        CHECK_MSG(rc == GANIM_ERR_UNKNOWN_FORMAT || e.offset != GANIM_NO_OFFSET || rc == GANIM_ERR_LIMIT ||
                      rc == GANIM_ERR_NOMEM,
                  "%s: error without an offset: %s", what, e.message);
        if (rc == GANIM_ERR_TRUNCATED || rc == GANIM_ERR_CORRUPT)
            CHECK_MSG(e.offset <= size, "%s: offset %llu beyond the %zu input bytes: %s", what,
                      (unsigned long long)e.offset, size, e.message);
        CHECK_MSG(e.message[0] != 0, "%s: error without a message", what);
    }
}

/* ganim_acl_open_clip against ganim_acl_open on the same bytes: the same result, error
 * code, offset and message; on what opens, the same whole clip (ganim_acl_decode_clip,
 * which takes short segments a pose at a time through the groups where they were built)
 * and the same poses (ganim_acl_sample_pose, four sub-tracks at a time where the groups
 * are built, one by one where ganim_acl_open_clip left them out) at 9 times, bit for bit.
 * Returns 1 when they differ. */
static int open_clip_agrees(const uint8_t *data, size_t size, uint64_t base, const char *what)
{
    ganim_acl *a = NULL, *b = NULL;
    ganim_error ea = { 0 }, eb = { 0 };
    ganim_code ra = ganim_acl_open(data, size, base, NULL, NULL, NULL, &a, &ea);
    ganim_code rb = ganim_acl_open_clip(data, size, base, NULL, NULL, NULL, &b, &eb);
    int bad = 0;
    if (ra != rb || (ra && (ea.offset != eb.offset || strcmp(ea.message, eb.message)))) {
        test_fail(__FILE__, __LINE__, "%s: open gives %d at %llu (%s), open_clip %d at %llu (%s)", what, (int)ra,
                  (unsigned long long)ea.offset, ea.message, (int)rb, (unsigned long long)eb.offset, eb.message);
        bad = 1;
    }
    if (!ra && !rb) {
        uint32_t nt = ganim_acl_track_count(a), nf = ganim_acl_frame_count(a);
        size_t n = (size_t)nt * nf;
        if (nt != ganim_acl_track_count(b) || nf != ganim_acl_frame_count(b)) {
            test_fail(__FILE__, __LINE__, "%s: open_clip's counts differ", what);
            bad = 1;
        } else if (n <= (1u << 20)) {
            ganim_transform *ca = malloc(n * sizeof *ca), *cb = malloc(n * sizeof *cb);
            if (ca && cb) {
                ganim_acl_decode_clip(a, ca);
                ganim_acl_decode_clip(b, cb);
                if (memcmp(ca, cb, n * sizeof *ca)) {
                    test_fail(__FILE__, __LINE__, "%s: decode_clip after open_clip differs", what);
                    bad = 1;
                }
                float dur = (float)nf / ganim_acl_sample_rate(a);
                for (int i = -1; i <= 7 && !bad; i++) {
                    ganim_acl_sample_pose(a, dur * (float)i / 6.5f, ca);
                    ganim_acl_sample_pose(b, dur * (float)i / 6.5f, cb);
                    if (memcmp(ca, cb, nt * sizeof *ca)) {
                        test_fail(__FILE__, __LINE__, "%s: sample_pose at %d/6.5 after open_clip differs", what, i);
                        bad = 1;
                    }
                }
            }
            free(ca);
            free(cb);
        }
    }
    ganim_acl_close(a);
    ganim_acl_close(b);
    return bad;
}

/* make check runs one case in SAMPLE_ONE_IN of the sweep (test_sampled); CI=true or
 * GANIM_FULL=1 all of them. */
#define SAMPLE_ONE_IN 5

static void sweep_file(const char *path)
{
    size_t size;
    uint8_t *orig = test_read_file(path, &size);
    uint8_t *buf = malloc(size);
    size_t step = size < 16384 ? 1 : size / 3000;
    char what[600];
    uint64_t seed = test_seed(path);
    for (size_t cut = 0; cut < size; cut += step) {
        if (!test_sampled(seed + cut, SAMPLE_ONE_IN)) continue;
        uint8_t *t = malloc(cut ? cut : 1);
        memcpy(t, orig, cut);
        snprintf(what, sizeof what, "%s truncated to %zu", path, cut);
        sweep_one(t, cut, what);
        open_clip_agrees(t, cut, 0, what);
        free(t);
    }
    static const uint8_t flips[3] = { 0xFF, 0x01, 0x80 };
    for (size_t at = 0; at < size; at += step) {
        if (!test_sampled(seed + size + at, SAMPLE_ONE_IN)) continue;
        memcpy(buf, orig, size);
        buf[at] ^= flips[at % 3];
        snprintf(what, sizeof what, "%s byte %zu flipped", path, at);
        sweep_one(buf, size, what);
        if (at < 0x80 || at % 7 == 0) {
            ganim_acl *acl = NULL;
            size_t off = strstr(path, ".civ") ? 0x60 : 0;
            if (size > off) open_clip_agrees(buf + off, size - off, off, what);
            if (size > off && ganim_acl_open(buf + off, size - off, off, NULL, NULL, NULL, &acl, NULL) == GANIM_OK) {
                ganim_transform *pose = malloc(ganim_acl_track_count(acl) * sizeof *pose);
                float dur = (float)ganim_acl_frame_count(acl) / ganim_acl_sample_rate(acl);
                ganim_transform *ref = malloc(ganim_acl_track_count(acl) * sizeof *ref);
                for (int i = 0; i <= 8; i++) {
                    ganim_acl_sample_pose(acl, dur * (float)i / 7.0f, pose);
                    ganim_acl_sample_pose_ref(acl, dur * (float)i / 7.0f, ref);
                    CHECK_MSG(memcmp(pose, ref, ganim_acl_track_count(acl) * sizeof *ref) == 0,
                              "%s: random access at %d/7 differs from the scalar path", what, i);
                }
                free(ref);
                free(pose);
                acl_clip_check(acl, what, 0, NULL); /* and the whole clip, on what opens */
                ganim_acl_close(acl);
            }
        }
    }
    free(buf);
    free(orig);
}

TEST(hostile_acl_buffers)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    for (char **p = list; *p; p++) sweep_file(*p);
    test_free_list(list);
}

TEST(hostile_civ7_files)
{
    char **list = test_list_dir(test_path("acl", ""), ".civ");
    for (char **p = list; *p; p++)
        if (strstr(*p, ".v0.civ") || strstr(*p, "walk_f100") || strstr(*p, "two_frames")) sweep_file(*p);
    test_free_list(list);
}

/* Calls fn on every ACL buffer of the test data that opens (.acl, and the V1 bodies of the
 * .civ files at 0x60; V0 containers hold none); returns how many. */
static int each_test_buffer(void (*fn)(const char *path, int civ, ganim_acl *acl, void *ctx), void *ctx)
{
    int files = 0;
    for (int civ = 0; civ < 2; civ++) {
        char **list = test_list_dir(test_path("acl", ""), civ ? ".civ" : ".acl");
        for (char **p = list; *p; p++) {
            size_t size, off = civ ? 0x60 : 0;
            uint8_t *data = test_read_file(*p, &size);
            ganim_acl *acl = NULL;
            if (data && size > off &&
                ganim_acl_open(data + off, size - off, off, NULL, NULL, NULL, &acl, NULL) == GANIM_OK) {
                fn(*p, civ, acl, ctx);
                files++;
                ganim_acl_close(acl);
            }
            free(data);
        }
        test_free_list(list);
    }
    return files;
}

typedef struct clip_tally {
    size_t compared, bad;
} clip_tally;

static void decode_clip_one(const char *path, int civ, ganim_acl *acl, void *ctx)
{
    clip_tally *n = ctx;
    ganim_transform *all = NULL;
    n->bad += acl_clip_check(acl, path, 0, &all);
    static const uint32_t chunks[] = { 1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 32 };
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) n->bad += acl_clip_check(acl, path, chunks[c], NULL);
    ganim_error e = { 0 };
    ganim_doc *doc = read_as(path, civ ? "civ7" : "acl", &e);
    CHECK_MSG(doc != NULL, "%s: %s", path, e.message);
    const ganim_clip *clip = doc ? &doc->clips[0] : NULL;
    uint32_t nt = ganim_acl_track_count(acl), nf = ganim_acl_frame_count(acl);
    if (clip && all) {
        CHECK_EQ_INT(clip->track_count, nt);
        CHECK_EQ_INT(clip->frame_count, nf);
    }
    for (uint32_t t = 0; clip && all && clip->track_count == nt && clip->frame_count == nf && t < nt; t++) {
        const ganim_channel *ch[3] = { &clip->tracks[t].rotation, &clip->tracks[t].translation,
                                       &clip->tracks[t].scale };
        for (int k = 0; k < 3; k++) {
            size_t comps = k ? 3 : 4, field = k == 0 ? 0 : k == 1 ? 4 : 7;
            uint32_t count = ch[k]->kind == GANIM_CHANNEL_CONSTANT ? nf : ch[k]->count;
            for (uint32_t j = 0; j < count; j++) {
                uint32_t f = ch[k]->kind == GANIM_CHANNEL_KEYED ? (uint32_t)ch[k]->times[j] : j;
                const float *want = ch[k]->values + (ch[k]->kind == GANIM_CHANNEL_CONSTANT ? 0 : j * comps);
                const float *got = &all[(size_t)(f < nf ? f : 0) * nt + clip->tracks[t].bone].rotation.x + field;
                n->compared++;
                if ((f >= nf || memcmp(got, want, comps * sizeof(float))) && n->bad++ < 3)
                    test_fail(__FILE__, __LINE__,
                              "%s: frame %u track %u channel %d: decode_clip %.9g differs from the document read %.9g",
                              path, f, t, k, (double)got[0], (double)want[0]);
            }
        }
    }
    free(all);
    ganim_doc_free(doc);
}

/* ganim_acl_decode_clip on every ACL buffer of the test data (.acl, and the V1 bodies of
 * the .civ files): bit for bit ganim_acl_sample_key at every frame (acl_clip_check), and
 * the document read's values (every key of a per-frame or keyed channel at its frame,
 * a constant channel at every frame); stripped and wrapped clips, variable, raw and
 * full-precision records, constants and defaults are there. Also in slices of 1 to 32
 * samples (ganim_acl_decode_clip_chunked): the segments hold 31 samples at most, fewer
 * than the fast path's 64, so that slices start inside a segment too. */
TEST(decode_clip_equals_sample_key_and_read_bitwise)
{
    clip_tally n = { 0, 0 };
    CHECK(each_test_buffer(decode_clip_one, &n) >= 32); /* 16 .acl buffers and 16 V1 .civ bodies */
    CHECK_MSG(n.bad == 0, "decode_clip differs %zu times", n.bad);
    CHECK(n.compared > 10000);
}

/* ganim_acl_open_clip (the open for whole-clip decodes, which builds the random-access
 * groups only where the decode uses them) against ganim_acl_open on every buffer of the
 * test data: the same whole clip and poses, bit for bit (open_clip_agrees), and its
 * whole clip equal to ganim_acl_sample_key at every frame on its own handle. */
static void open_clip_one(const char *path, int civ, ganim_acl *acl, void *ctx)
{
    clip_tally *n = ctx;
    size_t size, off = civ ? 0x60 : 0;
    uint8_t *data = test_read_file(path, &size);
    (void)acl;
    n->bad += (size_t)open_clip_agrees(data + off, size - off, off, path);
    ganim_acl *b = NULL;
    if (ganim_acl_open_clip(data + off, size - off, off, NULL, NULL, NULL, &b, NULL) == GANIM_OK) {
        n->bad += acl_clip_check(b, path, 0, NULL);
        ganim_transform *p = calloc(ganim_acl_track_count(b), sizeof *p),
                        *q = calloc(ganim_acl_track_count(b), sizeof *q);
        float dur = (float)ganim_acl_frame_count(b) / ganim_acl_sample_rate(b);
        int bad = 0;
        for (int i = -3; i < 300; i++) acl_pose_check(b, dur * (float)i / 290.0f, p, q, path, &bad);
        n->bad += (size_t)bad;
        free(p);
        free(q);
        n->compared++;
    }
    ganim_acl_close(b);
    free(data);
}

TEST(open_clip_equals_open_bitwise)
{
    clip_tally n = { 0, 0 };
    CHECK(each_test_buffer(open_clip_one, &n) >= 32);
    CHECK_EQ_INT((int)n.compared, 32);
    CHECK_MSG(n.bad == 0, "open_clip differs %zu times", n.bad);
}

/* The open counts the 2-bit sub-track types a 32-bit word at a time (type_counts, bits
 * past the last track ignored) and looks for the first type 3 only when there is one:
 * against the count track by track, here, on the type tables of every .acl buffer of
 * the test data rewritten at random (type 3s, bits past the last track set, whole words),
 * with the header's counts set to the table's half of the time. Where this count finds a
 * type 3, the open must refuse at that track and kind; where the header disagrees with it,
 * with its counts in the message; otherwise it must not speak of the type table. */
static uint32_t xorshift32(uint32_t *s);
static void type_table_one(const uint8_t *orig, size_t size, const char *path, uint32_t *seed)
{
    uint8_t *b = malloc(size);
    uint32_t nt = ganim_ld_u32le(orig + 16), e = (nt + 15u) / 16u, groups = (orig[28] & 1u) ? 3u : 2u;
    size_t types = (size_t)ganim_ld_u32le(orig + 0x20 + 40) + 0x20;
    for (int round = 0; round < 400; round++) {
        memcpy(b, orig, size);
        for (int m = 0; m < 1 + round % 3; m++) {
            uint32_t r = xorshift32(seed), w = r % (e * groups);
            uint8_t *p = b + types + 4u * w;
            uint32_t v = ganim_ld_u32le(p);
            switch ((r >> 8) % 4) {
            case 0: v |= 3u << (2u * ((r >> 12) % 16u)); break;            /* a type 3 */
            case 1: v ^= 1u << ((r >> 12) % 32u); break;                   /* one bit */
            case 2: v = xorshift32(seed); break;                           /* a whole word */
            default: v |= (nt % 16u) ? ACL_NONE >> (2u * (nt % 16u)) : 0u; /* past the last track */
            }
            put_u32(p, v);
        }
        uint32_t c[3][3] = { { 0 } }, first3 = ACL_NONE, k3 = 0;
        for (uint32_t k = 0; k < 3; k++)
            for (uint32_t i = 0; i < nt; i++) {
                uint32_t t = k < groups
                                 ? (ganim_ld_u32le(b + types + 4u * (k * e + i / 16u)) >> (30u - 2u * (i % 16u))) & 3u
                                 : 0u;
                if (t == 3 && first3 == ACL_NONE) {
                    first3 = i;
                    k3 = k;
                }
                if (t < 3) c[k][t]++;
            }
        int set = round & 1;
        if (set)
            for (uint32_t k = 0; k < 3; k++) {
                put_u32(b + 0x20 + 8 + 4 * k, c[k][2]);
                put_u32(b + 0x20 + 20 + 4 * k, c[k][1]);
            }
        ganim_acl *acl = NULL;
        ganim_error err = { 0 };
        ganim_code rc = ganim_acl_open(b, size, 0, NULL, NULL, NULL, &acl, &err);
        ganim_acl_close(acl);
        char want[200];
        uint32_t bad_k = ACL_NONE;
        for (uint32_t k = 0; k < 3 && bad_k == ACL_NONE; k++)
            if (c[k][1] != ganim_ld_u32le(b + 0x20 + 20 + 4 * k) || c[k][2] != ganim_ld_u32le(b + 0x20 + 8 + 4 * k))
                bad_k = k;
        static const char *kind[3] = { "rotation", "translation", "scale" };
        /* counts of a kind before the first type 3's are checked first */
        if (first3 != ACL_NONE && (bad_k == ACL_NONE || bad_k >= k3)) {
            snprintf(want, sizeof want, "acl: track %u: %s sub-track type 3", first3, kind[k3]);
        } else if (bad_k != ACL_NONE) {
            snprintf(want, sizeof want, "%s sub-tracks announced, the type table holds %u and %u", kind[bad_k],
                     c[bad_k][1], c[bad_k][2]);
        } else {
            want[0] = 0;
        }
        if (want[0])
            CHECK_MSG(rc != GANIM_OK && strstr(err.message, want), "%s round %d: want '%s', got %d '%s'", path, round,
                      want, (int)rc, err.message);
        else
            CHECK_MSG(rc == GANIM_OK || !strstr(err.message, "type"), "%s round %d: refused for its types: %s", path,
                      round, err.message);
    }
    free(b);
}

TEST(type_table_counts_equal_track_by_track)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    uint32_t seed = 0x2545F491u;
    int files = 0;
    for (char **p = list; *p; p++) {
        size_t size;
        uint8_t *data = test_read_file(*p, &size);
        if (data) type_table_one(data, size, *p, &seed);
        files += data != NULL;
        free(data);
    }
    CHECK(files >= 16);
    test_free_list(list);
}

/* ganim_acl_sample_pose (with SSE2: four sub-tracks per vector operation where a group
 * of four is variable in both segments, one sub-track a vector otherwise) against the
 * scalar path, one sub-track at a time, at 1,000 times across every clip, past both
 * ends and at every key: the same bits. */
static void random_access_one(const char *path, int civ, ganim_acl *acl, void *ctx)
{
    (void)civ;
    (void)ctx;
    uint32_t n = ganim_acl_track_count(acl), nf = ganim_acl_frame_count(acl);
    ganim_transform *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    float dur = (float)nf / ganim_acl_sample_rate(acl);
    int bad = 0;
    for (int i = -3; i < 1000; i++) acl_pose_check(acl, dur * (float)i / 990.0f, a, b, path, &bad);
    for (uint32_t k = 0; k < nf; k++) acl_pose_check(acl, (float)k / ganim_acl_sample_rate(acl), a, b, path, &bad);
    free(a);
    free(b);
}

TEST(random_access_equals_scalar_path_bitwise)
{
    /* the 16 .acl buffers of the test data and the 16 V1 .civ bodies (V0 .civ files hold no ACL) */
    CHECK(each_test_buffer(random_access_one, NULL) >= 32);
}

/* The whole-clip read checks ACL's FNV-1a hash in slices spread over its parse and decode
 * (acl_open_ex's loops, then the decode's iterations, then what is left), or at once
 * without the chain (acl_fnv_all's wide path: AVX2, 2 KiB and more). Every byte of
 * the buffer must enter the hash once, in order, whatever slice takes it: a byte flipped
 * anywhere after the tag gives the hash warning, and with the stored hash set to the
 * FNV-1a of the flipped buffer (computed here, bytewise) no warning. A multi-segment
 * buffer of variable sub-tracks and one of raw floats (the wide path where there is one),
 * a 923-byte one (the chain spread) and a 683-byte one without animated sub-tracks (the
 * parse's share, then the rest beside ganim_acl_read_doc's tracks' loop); every byte of the
 * first 2 KiB and of the last 64, every 7th between. */
static uint32_t fnv1a_ref(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

static int hash_warnings(const ganim_doc *doc, uint64_t *offset)
{
    int n = 0;
    for (uint32_t i = 0; i < doc->warning_count; i++)
        if (doc->warnings[i].code == GANIM_WARN_CHECKSUM) {
            *offset = doc->warnings[i].offset;
            n++;
        }
    return n;
}

TEST(hash_check_takes_every_byte_once)
{
    static const char *const stems[] = { "two_segments_f32_r30_b45", "full_formats_f40_r30_b24",
                                         "two_frames_f2_r30_b20", "single_frame_f1_r30_b24" };
    for (size_t k = 0; k < sizeof stems / sizeof stems[0]; k++) {
        size_t size;
        uint8_t *data = test_read_file(sibling(stems[k], ".acl"), &size);
        CHECK(data != NULL && size > 512);
        if (!data || size <= 512) {
            free(data);
            continue;
        }
        uint32_t stored =
            (uint32_t)data[4] | (uint32_t)data[5] << 8 | (uint32_t)data[6] << 16 | (uint32_t)data[7] << 24;
        CHECK_EQ_INT(fnv1a_ref(data + 8, size - 8), stored);
        int read = 0, failures = 0;
        for (size_t p = 8; p < size; p += p < 2048 || p + 64 >= size ? 1u : 7u) {
            data[p] ^= 0x5Au;
            for (int fixed = 0; fixed < 2; fixed++) {
                uint32_t h = fixed ? fnv1a_ref(data + 8, size - 8) : stored;
                for (unsigned i = 0; i < 4; i++) data[4 + i] = (uint8_t)(h >> (8 * i));
                ganim_read_opts o = { 0 };
                o.format = "acl";
                ganim_doc *doc = NULL;
                if (ganim_read_memory(data, size, &o, &doc, NULL) != GANIM_OK) continue; /* refused: no hash */
                read++;
                uint64_t at = 0;
                int n = hash_warnings(doc, &at);
                if ((fixed ? n != 0 : n != 1 || at != 4) && failures++ < 5)
                    test_fail(__FILE__, __LINE__,
                              "%s: byte %zu flipped, stored hash %s: %d hash warnings (offset %llu)", stems[k], p,
                              fixed ? "of the flipped buffer" : "of the original", n, (unsigned long long)at);
                ganim_doc_free(doc);
            }
            data[p] ^= 0x5Au;
        }
        CHECK_MSG(read > (size > 4096 ? 1000 : 200), "%s: only %d flipped buffers were read", stems[k], read);
        CHECK_EQ_INT(failures, 0);
        free(data);
    }
}

/* The hash without its serial chain (acl_fnv_all, acl_fnv.c: 128 segments side by side,
 * the low bytes' starts found a bit at a time) against FNV-1a written here bit by bit
 * (xor, then the product by 0x01000193 as shifts and adds of the set bits): random
 * buffers of every length 0..4096 at each of 8 alignments from random starting hashes,
 * long ones up to 1 MiB and every sample's bytes 8..size. On x86 with AVX2 the wide path
 * must be the one taken from 2 KiB on. */
static uint32_t fnv1a_bitwise(uint32_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t x = h ^ p[i], m = 0;
        for (unsigned b = 0; b < 32; b++)
            if (16777619u >> b & 1u) m += x << b;
        h = m;
    }
    return h;
}

static uint32_t xorshift32(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

TEST(wide_fnv_equals_the_chain)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    if (__builtin_cpu_supports("avx2")) {
        CHECK(acl_fnv_wide(ACL_FNV_WIDE_MIN));
        CHECK(!acl_fnv_wide(ACL_FNV_WIDE_MIN - 1u));
    }
#endif
    size_t cap = (size_t)1 << 20;
    uint8_t *buf = malloc(cap + 8);
    uint32_t rng = 0x9E3779B9u;
    for (size_t i = 0; i < cap + 8; i++) buf[i] = (uint8_t)(xorshift32(&rng) >> 24);
    /* long runs of one value too: the low byte's chain then cycles */
    memset(buf + 5000, 0xFF, 3000);
    memset(buf + 9000, 0x00, 3000);
    int bad = 0;
    for (size_t n = 0; n <= 4096; n++)
        for (size_t a = 0; a < 8; a++) {
            uint32_t h0 = xorshift32(&rng);
            const uint8_t *p = buf + a + (n * 13u) % 7000u;
            uint32_t want = fnv1a_bitwise(h0, p, n);
            if ((acl_fnv_all(h0, p, n, true) != want || acl_fnv_all(h0, p, n, false) != want) && bad++ < 5)
                test_fail(__FILE__, __LINE__, "FNV-1a of %zu bytes at +%zu from 0x%08X differs", n, a, h0);
        }
    for (size_t n = 4097; n <= cap; n = n * 3 / 2 + 1021) {
        uint32_t h0 = xorshift32(&rng);
        if (acl_fnv_all(h0, buf + 3, n, true) != fnv1a_bitwise(h0, buf + 3, n) && bad++ < 10)
            test_fail(__FILE__, __LINE__, "FNV-1a of %zu bytes differs", n);
    }
    CHECK_EQ_INT(bad, 0);
    free(buf);
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    int files = 0;
    for (char **f = list; *f; f++) {
        size_t size;
        uint8_t *data = test_read_file(*f, &size);
        if (!data || size < 8) {
            free(data);
            continue;
        }
        uint32_t stored =
            (uint32_t)data[4] | (uint32_t)data[5] << 8 | (uint32_t)data[6] << 16 | (uint32_t)data[7] << 24;
        CHECK_EQ_INT(acl_fnv_all(2166136261u, data + 8, size - 8, true),
                     fnv1a_bitwise(2166136261u, data + 8, size - 8));
        CHECK_EQ_INT(acl_fnv_all(2166136261u, data + 8, size - 8, true), stored);
        files++;
        free(data);
    }
    test_free_list(list);
    CHECK(files >= 16);
}

/* The whole-clip decoder (record-major, SIMD where available) against the random-access
 * path at every stored sample: the same bits, not merely close values. */
TEST(whole_clip_equals_random_access_bitwise)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    int files = 0;
    for (char **p = list; *p; p++) {
        ganim_error e = { 0 };
        ganim_doc *doc = read_as(*p, "acl", &e);
        size_t size;
        uint8_t *data = test_read_file(*p, &size);
        ganim_acl *acl = NULL;
        CHECK_OK(ganim_acl_open(data, size, 0, NULL, NULL, NULL, &acl, &e_));
        if (doc && acl) {
            const ganim_clip *clip = &doc->clips[0];
            ganim_transform *pose = malloc(clip->track_count * sizeof *pose);
            size_t compared = 0, bad = 0;
            for (uint32_t f = 0; f < clip->frame_count; f++) {
                ganim_acl_sample_key(acl, f, pose);
                for (uint32_t t = 0; t < clip->track_count; t++) {
                    const ganim_channel *ch[3] = { &clip->tracks[t].rotation, &clip->tracks[t].translation,
                                                   &clip->tracks[t].scale };
                    const float *want[3] = { &pose[t].rotation.x, &pose[t].translation.x, &pose[t].scale.x };
                    for (int k = 0; k < 3; k++) {
                        size_t comps = k ? 3 : 4, row = 0;
                        if (ch[k]->kind == GANIM_CHANNEL_PER_FRAME) {
                            row = f;
                        } else if (ch[k]->kind == GANIM_CHANNEL_KEYED) {
                            while (row < ch[k]->count && ch[k]->times[row] < (float)f) row++;
                            if (row == ch[k]->count || ch[k]->times[row] != (float)f) continue;
                        }
                        compared++;
                        if (memcmp(ch[k]->values + row * comps, want[k], comps * sizeof(float)) && bad++ < 3)
                            test_fail(
                                __FILE__, __LINE__,
                                "%s: frame %u track %u channel %d: whole clip %.9g differs from random access %.9g", *p,
                                f, t, k, ch[k]->values[row * comps], want[k][0]);
                    }
                }
            }
            CHECK(compared >= clip->track_count);
            files++;
            free(pose);
        }
        ganim_acl_close(acl);
        ganim_doc_free(doc);
        free(data);
    }
    CHECK(files >= 16);
    test_free_list(list);
}

static ganim_code read_bytes(const uint8_t *data, size_t size, const char *format, ganim_error *e)
{
    ganim_read_opts o = { 0 };
    o.format = format;
    ganim_doc *doc = NULL;
    ganim_code rc = ganim_read_memory(data, size, &o, &doc, e);
    ganim_doc_free(doc);
    return rc;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Regression: a clip without animated sub-tracks and a damaged num_samples (0xFF000001)
 * looped over every sample before the core refused it (17 s under the sanitizers). The
 * limits are now checked on the header, with its offset. */
TEST(sample_count_limits_are_checked_on_the_header)
{
    size_t size;
    uint8_t *data = test_read_file(test_path("acl", "single_frame_f1_r30_b24.acl"), &size);
    ganim_error e = { 0 };
    data[23] ^= 0xFF; /* num_samples 1 -> 0xFF000001 */
    CHECK_EQ_INT(read_bytes(data, size, "acl", &e), GANIM_ERR_LIMIT);
    CHECK_EQ_INT(e.offset, 20);
    CHECK(strstr(e.message, "limit") != NULL);
    put_u32(data + 20, GANIM_MAX_FRAMES + 1u);
    CHECK_EQ_INT(read_bytes(data, size, "acl", &e), GANIM_ERR_LIMIT);
    CHECK_EQ_INT(e.offset, 20);
    put_u32(data + 20, GANIM_MAX_FRAMES); /* at the limit: a valid (constant) clip */
    ganim_read_opts o = { 0 };
    ganim_doc *doc = NULL;
    CHECK_MSG(ganim_read_memory(data, size, &o, &doc, &e) == GANIM_OK, "%s", e.message);
    if (doc) CHECK_EQ_INT(doc->clips[0].frame_count, GANIM_MAX_FRAMES);
    ganim_doc_free(doc);
    put_u32(data + 16, 200); /* 200 tracks x 2^20 frames > GANIM_MAX_FRAME_SAMPLES */
    CHECK_EQ_INT(read_bytes(data, size, "acl", &e), GANIM_ERR_LIMIT);
    CHECK_EQ_INT(e.offset, 16);
    free(data);

    /* the same for a Civilization VII V0 header */
    data = test_read_file(test_path("acl", "const_and_identity_f48_r30_b30.v0.civ"), &size);
    put_u32(data + 0x0C, GANIM_MAX_FRAMES + 1u);
    CHECK_EQ_INT(read_bytes(data, size, "civ7", &e), GANIM_ERR_LIMIT);
    CHECK_EQ_INT(e.offset, 0x0C);
    put_u32(data + 0x0C, GANIM_MAX_FRAMES);
    put_u32(data + 0x10, 200);
    CHECK_EQ_INT(read_bytes(data, size, "civ7", &e), GANIM_ERR_LIMIT);
    CHECK_EQ_INT(e.offset, 0x10);
    free(data);
}

/* Regression: a V1 file cut inside the ACL header (96..111 bytes) reported a corrupt tag
 * at 0x68, past the end of the input. It is truncated, at an offset inside the input. */
TEST(civ7_v1_cut_in_the_acl_header_is_truncated)
{
    size_t size;
    uint8_t *data = test_read_file(test_path("acl", "walk_f100_r30_b52.civ"), &size);
    for (size_t cut = 96; cut < 112; cut++) {
        uint8_t *t = malloc(cut);
        memcpy(t, data, cut);
        ganim_error e = { 0 };
        ganim_code rc = read_bytes(t, cut, "civ7", &e);
        CHECK_MSG(rc == GANIM_ERR_TRUNCATED, "cut to %zu: %s", cut, e.message);
        CHECK_MSG(e.offset <= cut, "cut to %zu: offset %llu: %s", cut, (unsigned long long)e.offset, e.message);
        free(t);
    }
    free(data);
}

/* Buffers without a bind pose (trivial defaults or no metadata) and V0 files take the
 * first frame as the skeleton's rest pose: an identity rest would put every joint at the
 * origin in exporters (zero-length bones, zero BVH offsets). The values are unchanged. */
TEST(rest_pose_is_frame_zero_without_bind_pose)
{
    /* the first three have rest offsets on most bones; the others (every sample without
     * a bind pose: stripped, looping, constant-only, raw, 1-2 frames) check that the
     * reader's copy of frame 0 (acl_decode.c, rest_from_frame0) is what the general
     * sampler gives there, bit for bit, and that the rotations the reader vouches for
     * pass the full validation */
    static const char *const files[] = { "walk_f100_r30_b52.acl",        "metadata_f70_r30_b34.acl",
                                         "short_f16_r30_b33.v0.civ",     "scale01_default_settings_f192_r30_b60.acl",
                                         "loop_wrap_f61_r30_b36.acl",    "const_and_identity_f48_r30_b30.acl",
                                         "full_formats_f40_r30_b24.acl", "large_translation_f50_r30_b22.acl",
                                         "single_frame_f1_r30_b24.acl",  "two_frames_f2_r30_b20.acl",
                                         "acl20_walk_f100_r30_b52.acl",  "animated_scale_f40_r30_b26.acl",
                                         "two_segments_f32_r30_b45.acl" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t size;
        uint8_t *data = test_read_file(test_path("acl", files[f]), &size);
        ganim_doc *doc = NULL;
        CHECK_EQ_INT(ganim_read_memory(data, size, NULL, &doc, NULL), GANIM_OK);
        if (!doc) {
            free(data);
            continue;
        }
        const ganim_skeleton *sk = doc->skeleton;
        ganim_transform *pose = malloc(sk->bone_count * sizeof *pose);
        CHECK_EQ_INT(ganim_clip_sample(&doc->clips[0], sk, 0.0, pose, NULL, NULL), GANIM_OK);
        int nonzero = 0;
        for (uint32_t b = 0; b < sk->bone_count; b++) {
            const ganim_transform *r = &sk->bones[b].rest;
            CHECK_MSG(!memcmp(&r->rotation, &pose[b].rotation, sizeof r->rotation) &&
                          !memcmp(&r->translation, &pose[b].translation, sizeof r->translation) &&
                          !memcmp(&r->scale, &pose[b].scale, sizeof r->scale),
                      "%s bone %u: rest differs from frame 0", files[f], b);
            nonzero += r->translation.x != 0 || r->translation.y != 0 || r->translation.z != 0;
        }
        if (f < 3)
            CHECK_MSG(nonzero > (int)sk->bone_count / 2, "%s: only %d bones have a rest offset", files[f], nonzero);
        CHECK_EQ_INT(ganim_doc_validate(doc, NULL), GANIM_OK); /* the unit-length check the read skipped */
        free(pose);
        ganim_doc_free(doc);
        free(data);
    }
}

/* Found by libFuzzer: a sample rate of 2.2e-38 is finite and positive but makes the clip
 * last forever, and the random-access sampler then converted an infinite frame number
 * to an integer (undefined behaviour). Rates outside GANIM_MIN_FPS..GANIM_MAX_FPS are
 * refused at the header's rate field; the sampler clamps whatever it is given. */
TEST(absurd_sample_rates_are_refused)
{
    size_t size;
    uint8_t *data = test_read_file(test_path("acl", "loop_wrap_f61_r30_b36.acl"), &size);
    static const float rates[] = { 2.2063836684364256e-38f, 1e-5f, 2e6f, -30.0f, 0.0f };
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
        uint8_t *bad = malloc(size);
        memcpy(bad, data, size);
        memcpy(bad + 24, &rates[r], 4);
        ganim_read_opts o = { .format = "acl" };
        ganim_doc *doc = NULL;
        ganim_error err = { 0 };
        CHECK_EQ_INT(ganim_read_memory(bad, size, &o, &doc, &err), GANIM_ERR_CORRUPT);
        CHECK_EQ_INT(err.offset, 24);
        CHECK(strstr(err.message, "sample rate") != NULL);
        free(bad);
    }
    /* the sampler never converts a frame beyond the clip, whatever time it gets */
    ganim_acl *acl = NULL;
    CHECK_EQ_INT(ganim_acl_open(data, size, 0, NULL, NULL, NULL, &acl, NULL), GANIM_OK);
    if (acl) {
        ganim_transform *pose = malloc((size_t)ganim_acl_track_count(acl) * sizeof *pose);
        ganim_acl_sample_pose(acl, INFINITY, pose);
        ganim_acl_sample_pose(acl, 1e30f, pose);
        ganim_acl_sample_pose(acl, NAN, pose);
        CHECK(isfinite(pose[0].rotation.w));
        free(pose);
        ganim_acl_close(acl);
    }
    free(data);
}

/* FNV-1a (64 bits) of every value of a one-clip document: names, parents, rest poses,
 * channels' kinds, counts, times and values, bit for bit. */
static uint64_t fnv64(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
}
static uint64_t doc_digest(const ganim_doc *doc)
{
    uint64_t h = 0xCBF29CE484222325ull;
    const ganim_skeleton *sk = doc->skeleton;
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        const ganim_bone *b = &sk->bones[i];
        h = fnv64(h, b->name, strlen(b->name) + 1);
        h = fnv64(h, &b->parent, sizeof b->parent);
        h = fnv64(h, &b->rest, sizeof b->rest);
    }
    const ganim_clip *c = &doc->clips[0];
    h = fnv64(h, &c->frame_count, sizeof c->frame_count);
    for (uint32_t t = 0; t < c->track_count; t++)
        for (unsigned k = 0; k < 3; k++) {
            const ganim_channel *x = k == 0   ? &c->tracks[t].rotation
                                     : k == 1 ? &c->tracks[t].translation
                                              : &c->tracks[t].scale;
            uint32_t head[2] = { (uint32_t)x->kind, x->count };
            h = fnv64(h, head, sizeof head);
            h = fnv64(h, x->values, (size_t)x->count * (k == 0 ? 4u : 3u) * sizeof(float));
            if (x->times) h = fnv64(h, x->times, x->count * sizeof(float));
        }
    return h;
}

/* Minor page faults so far, with glibc's malloc (not the sanitizers' allocators): -1 elsewhere. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer)
#define SANITIZED_MALLOC 1
#endif
#endif
#if defined(__GLIBC__) && !defined(SANITIZED_MALLOC)
#include <sys/resource.h>
static long minor_faults(void)
{
    struct rusage r;
    return getrusage(RUSAGE_SELF, &r) == 0 ? r.ru_minflt : -1;
}
#else
static long minor_faults(void) { return -1; }
#endif

/* Reads of one clip in a row, each freed before the next (a batch), give the same values
 * and keep their memory: acl20_walk's parse and model blocks, each under glibc's 128 KiB
 * mmap threshold but together above its trim threshold, were given back to the system at
 * every ganim_doc_free and faulted in again (2 faults a read); the model's block is now
 * sized so that glibc keeps them (acl_decode.c, model_block). The fault count is checked
 * with glibc's malloc only (not under the sanitizers' allocators), and this test runs
 * first: a larger document freed before would raise glibc's thresholds by itself. Under
 * a tight memory limit the block is not enlarged and the values are the same. */
TEST(reads_in_a_row_keep_their_memory)
{
    size_t size;
    uint8_t *data = test_read_file(test_path("acl", "acl20_walk_f100_r30_b52.acl"), &size);
    enum { WARM = 20, READS = 300 };
    uint64_t first = 0;
    long faults = 0;
    int differ = 0;
    for (int i = 0; i < WARM + READS; i++) { /* nothing else alive between the reads */
        long f0 = minor_faults();
        ganim_doc *doc = NULL;
        CHECK_EQ_INT(ganim_read_memory(data, size, NULL, &doc, NULL), GANIM_OK);
        if (!doc) break;
        uint64_t d = doc_digest(doc);
        if (i == 0) first = d;
        differ += d != first;
        ganim_doc_free(doc);
        if (i >= WARM) faults += minor_faults() - f0; /* 0 without a count */
    }
    CHECK_EQ_INT(differ, 0);
    CHECK_MSG(faults < READS / 10, "%ld page faults in %d reads in a row", faults, (int)READS);
    for (size_t limit = 256u << 10; limit <= (1u << 20); limit *= 2) { /* 256 KiB: under twice the padded block */
        ganim_read_opts o = { .format = "acl", .memory_limit = limit };
        ganim_doc *doc = NULL;
        CHECK_EQ_INT(ganim_read_memory(data, size, &o, &doc, NULL), GANIM_OK);
        if (doc) CHECK_MSG(doc_digest(doc) == first, "values differ under a memory limit of %zu", limit);
        ganim_doc_free(doc);
    }
    /* the digest sees a value: the first rotation's x */
    ganim_doc *doc = NULL;
    CHECK_EQ_INT(ganim_read_memory(data, size, NULL, &doc, NULL), GANIM_OK);
    if (doc) {
        float *v = (float *)(uintptr_t)doc->clips[0].tracks[0].rotation.values;
        v[0] = nextafterf(v[0], 2.0f);
        CHECK(doc_digest(doc) != first);
    }
    ganim_doc_free(doc);
    free(data);
}

/* in_range (acl_internal.h: one comparison of |v|, since the tenth round) against the
 * three tests it replaced, on every 2^32 / 65,537th float bit pattern and around its
 * edges: the range's ends and their neighbours, the infinities, NaNs, zeros, subnormals. */
TEST(in_range_equals_the_three_tests)
{
    uint32_t bad = 0, n = 0;
    for (uint64_t b = 0; b <= 0xFFFFFFFFull; b += 65537u) {
        float v = ganim_f32_from_bits((uint32_t)b);
        int ref = v == v && v - v == 0.0f && v <= ACL_RANGE_MAX && v >= -ACL_RANGE_MAX;
        bad += in_range(v) != ref;
        n++;
    }
    const float edge[] = { ACL_RANGE_MAX,
                           -ACL_RANGE_MAX,
                           nextafterf(ACL_RANGE_MAX, INFINITY),
                           nextafterf(-ACL_RANGE_MAX, -INFINITY),
                           nextafterf(ACL_RANGE_MAX, 0),
                           nextafterf(-ACL_RANGE_MAX, 0),
                           INFINITY,
                           -INFINITY,
                           NAN,
                           -NAN,
                           0.0f,
                           -0.0f,
                           1e-45f,
                           -1e-45f,
                           FLT_MIN,
                           FLT_MAX,
                           -FLT_MAX,
                           1.0f };
    for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
        float v = edge[i];
        int ref = v == v && v - v == 0.0f && v <= ACL_RANGE_MAX && v >= -ACL_RANGE_MAX;
        CHECK_MSG(in_range(v) == ref, "in_range(%a): %d, the three tests %d", (double)v, in_range(v), ref);
    }
    CHECK_MSG(bad == 0, "in_range differs on %u of %u bit patterns", bad, n);
}

#if defined(__SSE2__)
/* A random float for the constant rotations: mostly unit-scale, now and then tiny, huge
 * (past ACL_RANGE_MAX, or whose square degenerates the length), zero of either sign, an
 * infinity or a NaN. */
static float const_rot_value(uint32_t *seed)
{
    uint32_t r = xorshift32(seed), pick = r % 32u;
    float u = (float)(xorshift32(seed) % 2000001u) / 1000000.0f - 1.0f;
    switch (pick) {
    case 0: return INFINITY;
    case 1: return -INFINITY;
    case 2: return NAN;
    case 3: return 0.0f;
    case 4: return -0.0f;
    case 5: return u * 1e-20f;
    case 6: return u * 1e16f; /* in range, length^2 beyond 1e30: the identity */
    case 7: return u * 3e18f; /* past ACL_RANGE_MAX half the time */
    case 8: return nextafterf(ACL_RANGE_MAX, (r & 32u) ? INFINITY : 0.0f);
    case 9: return ganim_f32_from_bits(xorshift32(seed)); /* any bits */
    case 10: return u * 0.9999f;
    default: return u * 0.58f; /* x*x + y*y + z*z below 1 mostly */
    }
}

/* acl_const_rot4 (the open's constant rotations four at a time) against the scalar path
 * (const_sample's layout, rebuild_w, in_range on each of x, y, z, W, quat_normalise), on
 * groups of 1 to 4 of random values with the edges above: the same bits a lane and the
 * same verdict, over a buffer of exactly the group's bytes (a read past them is caught
 * by the sanitizers). */
TEST(const_rot4_equals_the_scalar_path)
{
    uint32_t seed = 0x9E3779B9u, diffs = 0, cases = 0, refused = 0;
    for (int round = 0; round < 20000; round++) {
        uint32_t ncr = 1u + xorshift32(&seed) % 13u, c = 4u * (xorshift32(&seed) % ((ncr + 3u) / 4u));
        uint32_t n = ncr - c < 4u ? ncr - c : 4u;
        size_t bytes = 12u * (size_t)ncr;
        uint8_t *D = malloc(bytes);
        CHECK(D != NULL);
        if (!D) return;
        for (size_t i = 0; i < bytes; i += 4) {
            float v = const_rot_value(&seed);
            memcpy(D + i, &v, 4);
        }
        float rq[4][4];
        memset(rq, 0xA5, sizeof rq);
        int ok = acl_const_rot4(D, ncr, c, rq), ref_ok = 1;
        const uint8_t *F = D + 48u * (c / 4u);
        for (uint32_t j = 0; j < n; j++) {
            float v[4];
            for (unsigned i = 0; i < 3; i++) v[i] = ganim_ld_f32le(F + 4u * (i * n + j));
            v[3] = rebuild_w(v[0], v[1], v[2]);
            for (unsigned i = 0; i < 4; i++) ref_ok &= in_range(v[i]);
            quat_normalise(v);
            if (memcmp(v, rq[j], sizeof v) && diffs++ < 3)
                test_fail(__FILE__, __LINE__, "round %d lane %u of %u: %a %a %a %a, the scalar path %a %a %a %a", round,
                          j, n, (double)rq[j][0], (double)rq[j][1], (double)rq[j][2], (double)rq[j][3], (double)v[0],
                          (double)v[1], (double)v[2], (double)v[3]);
        }
        if (ok != ref_ok && diffs++ < 3)
            test_fail(__FILE__, __LINE__, "round %d: in range %d, the scalar path %d", round, ok, ref_ok);
        refused += !ref_ok;
        cases++;
        free(D);
    }
    CHECK_EQ_INT(diffs, 0);
    CHECK(refused > 1000 && refused < cases - 1000); /* both verdicts well covered */
}

/* acl_const_rot8 (the groups at c and c + 4 together: the AVX2 path of a short clip's
 * open where the CPU has it, two acl_const_rot4 calls elsewhere) against the scalar path
 * lane by lane (as const_rot4_equals_the_scalar_path) and against two acl_const_rot4
 * calls: the same bits in all eight rows (the rows past the second group the identity)
 * and the same verdict, on 5 to 24 rotations of random values with the edges of
 * const_rot_value (NaN, infinities, subnormals, beyond ACL_RANGE_MAX, lengths at the
 * degenerate bounds, W's argument negative), over a buffer of exactly the rotations'
 * bytes. */
TEST(const_rot8_equals_two_rot4_and_the_scalar_path)
{
    uint32_t seed = 0x7F4A7C15u, diffs = 0, cases = 0, refused = 0, second_bad = 0;
    for (int round = 0; round < 200000; round++) {
        uint32_t ncr = 5u + xorshift32(&seed) % 20u, c = 8u * (xorshift32(&seed) % ((ncr + 3u) / 8u));
        size_t bytes = 12u * (size_t)ncr;
        uint8_t *D = malloc(bytes);
        CHECK(D != NULL);
        if (!D) return;
        for (size_t i = 0; i < bytes; i += 4) { /* every other round mostly unit-scale: both verdicts */
            float v = const_rot_value(&seed);
            if ((round & 1) && xorshift32(&seed) % 8u) v = (float)(xorshift32(&seed) % 2000001u) / 3448276.0f - 0.29f;
            memcpy(D + i, &v, 4);
        }
        float rq[8][4], two[8][4];
        memset(rq, 0xA5, sizeof rq);
        memset(two, 0x5A, sizeof two);
        int ok = acl_const_rot8(D, ncr, c, rq), ref_ok = 1;
        int ok4 = acl_const_rot4(D, ncr, c, two);
        ok4 &= acl_const_rot4(D, ncr, c + 4u, two + 4);
        for (uint32_t hf = 0; hf < 2; hf++) {
            uint32_t g = c + 4u * hf, n = ncr - g < 4u ? ncr - g : 4u;
            const uint8_t *F = D + 12u * (size_t)g;
            for (uint32_t j = 0; j < 4; j++) {
                float v[4] = { 0.0f, 0.0f, 0.0f, 1.0f };
                if (j < n) {
                    for (unsigned i = 0; i < 3; i++) v[i] = ganim_ld_f32le(F + 4u * (i * n + j));
                    v[3] = rebuild_w(v[0], v[1], v[2]);
                    int in = 1;
                    for (unsigned i = 0; i < 4; i++) in &= in_range(v[i]);
                    ref_ok &= in;
                    second_bad += hf && !in;
                    quat_normalise(v);
                }
                if ((memcmp(v, rq[4u * hf + j], sizeof v) || memcmp(two[4u * hf + j], rq[4u * hf + j], sizeof v)) &&
                    diffs++ < 3)
                    test_fail(__FILE__, __LINE__,
                              "round %d (%u rotations, c %u) row %u: %a %a %a %a, the scalar path "
                              "%a %a %a %a",
                              round, ncr, c, 4u * hf + j, (double)rq[4u * hf + j][0], (double)rq[4u * hf + j][1],
                              (double)rq[4u * hf + j][2], (double)rq[4u * hf + j][3], (double)v[0], (double)v[1],
                              (double)v[2], (double)v[3]);
            }
        }
        if ((ok != ref_ok || ok != ok4) && diffs++ < 3)
            test_fail(__FILE__, __LINE__, "round %d: in range %d, the scalar path %d, two rot4 %d", round, ok, ref_ok,
                      ok4);
        refused += !ref_ok;
        cases++;
        free(D);
    }
    printf("  const_rot8: %u pairs of groups (%s), %u refused, %u with a bad second group\n", cases,
           acl_cpu_avx2() ? "AVX2" : "two rot4", refused, second_bad);
    CHECK_EQ_INT(diffs, 0);
    CHECK(refused > 10000 && refused < cases - 10000); /* both verdicts well covered */
    CHECK(second_bad > 1000);
}
#endif

/* The constant (kind, index) that 4-byte word w of the constant block holds (rotations
 * as x, y, z groups of four in formats 2 and 3, whole quaternions in format 0; then the
 * translations, then the scales, 3 floats each). */
static void const_word_owner(uint32_t w, unsigned rfmt, const uint32_t nconst[3], unsigned *kind, uint32_t *c)
{
    uint32_t rot_words = nconst[0] * (rfmt == 0 ? 4u : 3u);
    if (w < rot_words) {
        *kind = K_ROT;
        if (rfmt == 0) {
            *c = w / 4u;
        } else {
            uint32_t g = w / 12u, n = nconst[0] - 4u * g < 4u ? nconst[0] - 4u * g : 4u;
            *c = 4u * g + (w % 12u) % n;
        }
        return;
    }
    w -= rot_words;
    *kind = w / 3u < nconst[1] ? K_TRANS : K_SCALE;
    *c = *kind == K_TRANS ? w / 3u : w / 3u - nconst[1];
}

/* The track whose sub-track of `kind` is the c-th constant one (the type table's order). */
static uint32_t const_owner_track(const uint8_t *d, unsigned kind, uint32_t c)
{
    uint32_t nt = ganim_ld_u32le(d + 16), e = (nt + 15u) / 16u, seen = 0;
    const uint8_t *types = d + ACL_HDR + ganim_ld_u32le(d + ACL_HDR + 40);
    for (uint32_t i = 0; i < nt; i++)
        if (packed_type(types, e, kind, i) == T_CONST && seen++ == c) return i;
    return UINT32_MAX;
}

/* The file at path and *room, a buffer of its size for damaged copies (the caller frees
 * both); NULL, nothing held, when either cannot be had. */
static uint8_t *file_and_room(const char *path, size_t *size, uint8_t **room)
{
    uint8_t *f = test_read_file(path, size);
    *room = f ? malloc(*size) : NULL;
    if (!*room) {
        free(f);
        return NULL;
    }
    return f;
}

/* The buffer opened the way `how` says: 0 ganim_acl_open, 1 ganim_acl_open_clip, 2 the
 * document read (ganim_read_memory as "acl"). */
static ganim_code open_how(int how, const uint8_t *b, size_t size, ganim_acl **acl, ganim_doc **doc, ganim_error *err)
{
    ganim_read_opts ro = { .format = "acl" };
    return how == 0   ? ganim_acl_open(b, size, 0, NULL, NULL, NULL, acl, err)
           : how == 1 ? ganim_acl_open_clip(b, size, 0, NULL, NULL, NULL, acl, err)
                      : ganim_read_memory(b, size, &ro, doc, err);
}

/* ---- clips without animated sub-tracks: static_pose against the per-track loop -------- */

/* A buffer without animated sub-tracks into b (room bytes): nt tracks, ns samples in nseg
 * segments, every sub-track default or constant (`cmode`: 0 each at random, 1 all
 * default, 2 all constant), rotation format rfmt (0, 2, 3), with or without scale; the
 * constant values at random, some rotations degenerate or far from unit length. Returns
 * its size (hash included). */
static uint32_t static_buffer_sel(uint8_t *b, size_t room, uint32_t *seed, uint16_t version, uint32_t nt, uint32_t ns,
                                  uint32_t nseg, unsigned rfmt, int scale, int cmode, uint32_t misc_extra,
                                  const uint32_t *sel);

static uint32_t static_buffer(uint8_t *b, size_t room, uint32_t *seed, uint16_t version, uint32_t nt, uint32_t ns,
                              uint32_t nseg, unsigned rfmt, int scale, int cmode, uint32_t misc_extra)
{
    return static_buffer_sel(b, room, seed, version, nt, ns, nseg, rfmt, scale, cmode, misc_extra, NULL);
}

/* static_buffer with the constant sub-tracks given (sel non-NULL: kind k's track i is
 * constant when bit i of sel[k] is set, nt <= 32; cmode then unused). */
static uint32_t static_buffer_sel(uint8_t *b, size_t room, uint32_t *seed, uint16_t version, uint32_t nt, uint32_t ns,
                                  uint32_t nseg, unsigned rfmt, int scale, int cmode, uint32_t misc_extra,
                                  const uint32_t *sel)
{
    const uint32_t groups = scale ? 3u : 2u, e = (nt + 15u) / 16u;
    uint32_t nconst[3] = { 0, 0, 0 };
    memset(b, 0, room);
    const uint32_t seghdr = 52u + (nseg > 1 ? 4u * (nseg + 1u) : 0u), types = seghdr + 16u * nseg;
    const uint32_t cdata = types + 4u * e * groups;
    for (unsigned k = 0; k < groups; k++)
        for (uint32_t i = 0; i < nt; i++) {
            uint32_t r = xorshift32(seed);
            unsigned t = sel ? (sel[k] >> i) & 1u : cmode == 1 ? T_DEFAULT : cmode == 2 ? T_CONST : (r >> 7) & 1u;
            if (t == T_CONST) {
                uint8_t *w = b + ACL_HDR + types + 4u * (k * e + i / 16u);
                ganim_st_u32le(w, ganim_ld_u32le(w) | (1u << (30u - 2u * (i % 16u))));
                nconst[k]++;
            }
        }
    uint32_t csize = nconst[0] * (rfmt == 0 ? 16u : 12u) + 12u * (nconst[1] + nconst[2]);
    uint32_t crange = cdata + csize, size = ACL_HDR + crange + 16u;
    if (size > room) return 0;
    for (uint32_t w = 0; w < csize / 4u; w++) { /* rotations: components in [-0.8, 0.8]; some 0 or large */
        uint32_t r = xorshift32(seed);
        float v = ((float)(r >> 8) / 16777216.0f - 0.5f) * 1.6f;
        if (w < nconst[0] * (rfmt == 0 ? 4u : 3u)) {
            if (r % 23u == 0) v = 0.0f;
            else if (r % 29u == 0) v = v * 1e10f;
        } else {
            v = v * (r % 5u == 0 ? 1e6f : 40.0f);
        }
        ganim_st_u32le(b + ACL_HDR + cdata + 4u * w, ganim_f32_bits(v));
    }
    ganim_st_u32le(b + 8, GANIM_ACL_TAG);
    ganim_st_u32le(b + 12, version);
    b[15] = 12;
    ganim_st_u32le(b + 16, nt);
    ganim_st_u32le(b + 20, ns);
    ganim_st_u32le(b + 24, ganim_f32_bits(30.0f));
    uint32_t misc = (scale ? 1u : 0u) | (rfmt << 4) | 0x200u | misc_extra;
    ganim_st_u32le(b + 28, misc);
    uint8_t *th = b + ACL_HDR;
    ganim_st_u32le(th + 0, nseg);
    for (unsigned k = 0; k < 3; k++) ganim_st_u32le(th + 20 + 4 * k, nconst[k]);
    ganim_st_u32le(th + 32, ACL_NONE);
    ganim_st_u32le(th + 36, seghdr);
    ganim_st_u32le(th + 40, types);
    ganim_st_u32le(th + 44, cdata);
    ganim_st_u32le(th + 48, crange);
    if (nseg > 1) {
        for (uint32_t s = 0; s < nseg; s++) ganim_st_u32le(th + 52 + 4u * s, s * (ns / nseg));
        ganim_st_u32le(th + 52 + 4u * nseg, ACL_NONE);
    }
    for (uint32_t s = 0; s < nseg; s++) ganim_st_u32le(th + seghdr + 16u * s + 12u, crange);
    ganim_st_u32le(b, size);
    ganim_st_u32le(b + 4, fnv1a_ref(b + 8, size - 8u));
    return size;
}

/* The buffer opened with `flags` and with `flags | ACL_OPEN_GENERAL`: the same code,
 * offset and message, and when open the same pose and types (bit for bit) and the same
 * whole-clip decode. Returns 1 when both opened. */
static int static_open_agrees(const uint8_t *b, size_t size, unsigned flags, const ganim_skeleton *sk, const char *what,
                              int *bad)
{
    ganim_acl *h[2] = { NULL, NULL };
    ganim_error err[2];
    ganim_code rc[2];
    for (int g = 0; g < 2; g++) {
        memset(&err[g], 0, sizeof err[g]);
        rc[g] = acl_open_ex(b, size, 7, NULL, sk, NULL, flags | (g ? ACL_OPEN_GENERAL : 0u), &h[g], &err[g]);
    }
    int same = rc[0] == rc[1] && err[0].offset == err[1].offset && !strcmp(err[0].message, err[1].message);
    if (same && !rc[0]) {
        uint32_t nt = h[0]->nt, nf = ganim_acl_frame_count(h[0]);
        same = !memcmp(h[0]->pose, h[1]->pose, nt * sizeof *h[0]->pose) && !memcmp(h[0]->types, h[1]->types, 3u * nt);
        ganim_transform *o[2] = { calloc((size_t)nt * nf, sizeof(ganim_transform)),
                                  calloc((size_t)nt * nf, sizeof(ganim_transform)) };
        if (o[0] && o[1]) {
            for (int g = 0; g < 2; g++) ganim_acl_decode_clip(h[g], o[g]);
            same &= !memcmp(o[0], o[1], (size_t)nt * nf * sizeof(ganim_transform));
        }
        free(o[0]);
        free(o[1]);
    }
    if (!same && (*bad)++ < 8)
        test_fail(__FILE__, __LINE__, "%s (flags %u): static_pose %d at %llu '%s', the loop %d at %llu '%s'%s", what,
                  flags, (int)rc[0], (unsigned long long)err[0].offset, err[0].message, (int)rc[1],
                  (unsigned long long)err[1].offset, err[1].message, rc[0] || rc[1] ? "" : " (values differ)");
    int opened = !rc[0] && !rc[1];
    ganim_acl_close(h[0]);
    ganim_acl_close(h[1]);
    return opened;
}

/* static_pose (a clip without animated sub-tracks opened by kind) against the per-track
 * loop every clip takes (ACL_OPEN_GENERAL), bit for bit: pose, types, whole-clip decode,
 * error code, offset and message. Built clips of 1 to 40 tracks and 1 to 400 samples in
 * 1 to 3 segments, versions 7-10, rotation formats 0, 2 and 3, with and without scale,
 * default scale 0 or 1, wrap, every sub-track default / constant / either; the defaults
 * the identity or a given skeleton's (flag bit 9 clear); each opened for groups, for the
 * clip and for the read, then damaged 12 times (a constant word NaN, infinite or 3e18,
 * a byte of the header, types or constants changed). The document read of each against
 * the loop's pose. Then every .acl of the test data and tests/data/acl, whole, cut, and
 * with its type table rewritten 300 times (animated sub-tracks too: static_pose opens
 * every clip but for the whole-clip read). */
TEST(static_clips_match_the_general_path)
{
    static const unsigned rfmts[3] = { 0, 2, 3 };
    static const unsigned flags[3] = { ACL_OPEN_GROUPS, ACL_OPEN_CLIP, ACL_OPEN_HASH };
    size_t room = 16384;
    uint8_t *b = malloc(room), *d = malloc(room);
    uint32_t seed = 0x5A17C0DEu;
    int bad = 0, opened = 0, refused = 0, docs = 0;
    ganim_bone bones[40];
    for (uint32_t i = 0; i < 40; i++) {
        float a = 0.05f * (float)i, l = sqrtf(a * a + 1.0f);
        bones[i] = (ganim_bone){ "",
                                 i ? (int32_t)i - 1 : -1,
                                 { { a / l, 0.0f, 0.0f, 1.0f / l }, { (float)i, 2.0f, -1.0f }, { 1.5f, 1.0f, 0.5f } },
                                 0 };
    }
    for (int round = 0; round < 900; round++) {
        uint32_t r = xorshift32(&seed);
        uint16_t version = (uint16_t)(7u + r % 4u);
        uint32_t nt = 1u + (r >> 4) % 40u, ns = round % 3 == 0 ? 1u : 1u + (r >> 10) % 400u;
        uint32_t nseg = ns >= 3 && (r >> 20) % 3u == 0 ? 1u + (r >> 22) % 3u : 1u;
        unsigned rfmt = rfmts[(r >> 24) % 3u];
        int scale = (int)((r >> 26) & 1u), cmode = (int)((r >> 27) % 3u);
        uint32_t extra = ((r >> 29) & 1u ? 2u : 0u) | (xorshift32(&seed) & 0xCu); /* default scale, t/s formats */
        int given = (r >> 30) & 1u;
        if (version >= 8 && round % 5 == 1) extra |= 1u << 30; /* wrap */
        uint32_t size = static_buffer(b, room, &seed, version, nt, ns, nseg, rfmt, scale, cmode, extra);
        if (!size) continue;
        if (given && version >= 8)
            ganim_st_u32le(b + 28, ganim_ld_u32le(b + 28) & ~0x200u); /* defaults: the skeleton's */
        ganim_skeleton sk = { .name = "", .bone_count = nt, .bones = bones };
        char what[160];
        snprintf(what, sizeof what, "round %d (v%u, %u tracks, %u samples, %u segments, rfmt %u, scale %d, mode %d)",
                 round, version, nt, ns, nseg, rfmt, scale, cmode);
        for (int f = 0; f < 3; f++) opened += static_open_agrees(b, size, flags[f], given ? &sk : NULL, what, &bad);
        /* the document read (static_pose always) against the loop's pose */
        ganim_acl *g = NULL;
        if (acl_open_ex(b, size, 0, NULL, NULL, NULL, ACL_OPEN_GENERAL, &g, NULL) == GANIM_OK) {
            ganim_doc *doc = NULL;
            ganim_read_opts ro = { .format = "acl" };
            if (ganim_read_memory(b, size, &ro, &doc, NULL) == GANIM_OK && doc->clip_count == 1) {
                const ganim_clip *c = &doc->clips[0];
                int same = c->track_count == nt;
                for (uint32_t t = 0; t < c->track_count && same; t++) {
                    const ganim_track *tr = &c->tracks[t];
                    const ganim_transform *p = &g->pose[tr->bone];
                    same = tr->rotation.kind == GANIM_CHANNEL_CONSTANT &&
                           tr->translation.kind == GANIM_CHANNEL_CONSTANT && tr->scale.kind == GANIM_CHANNEL_CONSTANT &&
                           !memcmp(tr->rotation.values, &p->rotation, 16) &&
                           !memcmp(tr->translation.values, &p->translation, 12) &&
                           !memcmp(tr->scale.values, &p->scale, 12);
                }
                CHECK_MSG(same, "%s: the document read differs from the loop's pose", what);
                docs++;
            }
            ganim_doc_free(doc);
        }
        ganim_acl_close(g);
        uint32_t cdata = ACL_HDR + ganim_ld_u32le(b + ACL_HDR + 44),
                 crange = ACL_HDR + ganim_ld_u32le(b + ACL_HDR + 48);
        for (int m = 0; m < 12; m++) {
            memcpy(d, b, size);
            uint32_t x = xorshift32(&seed);
            if (m % 3 == 0 && crange > cdata) {
                static const uint32_t badw[3] = { 0x7FC00000u, 0x7F800000u, 0x5E26A000u };
                ganim_st_u32le(d + cdata + 4u * ((x >> 4) % ((crange - cdata) / 4u)), badw[x % 3u]);
            } else {
                d[(x >> 8) % (m % 3 == 1 ? cdata : size)] ^= (uint8_t)(1u << (x % 8u));
            }
            if (!static_open_agrees(d, size, flags[x % 3u], given ? &sk : NULL, what, &bad)) refused++;
        }
    }
    /* every .acl buffer of the test data, whole and cut */
    char **lists[2] = { test_list_dir(test_path("acl", ""), ".acl"),
                        test_list_dir(GANIM_SOURCE_DIR "/tests/data/acl", ".acl") };
    int files = 0;
    for (int l = 0; l < 2; l++)
        for (char **p = lists[l]; p && *p; p++) {
            size_t size;
            uint8_t *room2, *orig = file_and_room(*p, &size, &room2);
            if (!orig) continue;
            files++;
            for (size_t cut = 0; cut <= size; cut += cut < 200 ? 1u : 97u)
                for (int f = 0; f < 3; f++) static_open_agrees(orig, cut, flags[f], NULL, *p, &bad);
            /* the type table rewritten (animated, constant and default sub-tracks moved, type 3s,
             * bits past the last track), the header's counts set to the table's half of the time */
            uint32_t nt = ganim_ld_u32le(orig + 16), e = (nt + 15u) / 16u, groups = (orig[28] & 1u) ? 3u : 2u;
            size_t types = (size_t)ganim_ld_u32le(orig + ACL_HDR + 40) + ACL_HDR;
            for (int round = 0; round < 300 && types + 4u * e * groups <= size; round++) {
                memcpy(room2, orig, size);
                uint32_t x = xorshift32(&seed), w = x % (e * groups);
                uint8_t *q = room2 + types + 4u * w;
                uint32_t v = ganim_ld_u32le(q);
                v = (x >> 8) % 3u == 0 ? xorshift32(&seed) : v ^ (3u << (2u * ((x >> 10) % 16u)));
                ganim_st_u32le(q, v);
                if (round % 2) { /* the counts the table now holds, so that the open goes on */
                    for (uint32_t k = 0; k < groups; k++) {
                        uint32_t c[4] = { 0, 0, 0, 0 };
                        for (uint32_t i = 0; i < nt; i++) c[packed_type(room2 + types, e, k, i)]++;
                        ganim_st_u32le(room2 + ACL_HDR + 8 + 4 * k, c[T_ANIM]);
                        ganim_st_u32le(room2 + ACL_HDR + 20 + 4 * k, c[T_CONST]);
                    }
                }
                static_open_agrees(room2, size, flags[round % 3], NULL, *p, &bad);
            }
            free(room2);
            free(orig);
        }
    test_free_list(lists[0]);
    test_free_list(lists[1]);
    printf("  static clips: %d opens alike, %d damaged buffers refused alike, %d documents, %d files\n", opened,
           refused, docs, files);
    CHECK_EQ_INT(bad, 0);
    CHECK(opened > 2000);
    CHECK(refused > 1000);
    CHECK(docs > 500);
    CHECK(files >= 4);
    free(b);
    free(d);
}

/* static_kind's runs of constant tracks (one step for a lone constant, the run after it
 * at once) against the per-track loop (ACL_OPEN_GENERAL), every pattern a type word can
 * hold: each kind's constant set of 16 tracks (one full word) taken through all 65,536
 * masks, and for 1 to 15 tracks (the last word, its pairs past the last track masked)
 * every mask of those tracks; the rotations in formats 0, 2 and 3 in turn (groups of four
 * across runs), the translations and scales on other masks of the same round. Then 3,000
 * clips of 17 to 32 tracks (two words, the constants' count carried from the first) with
 * masks of long runs. Each opened for the clip and for groups (and the read's flag once
 * in four): the same code, pose, types and decode bit for bit (static_open_agrees). */
TEST(static_runs_match_the_loop_every_word)
{
    static const unsigned rfmts[3] = { 0, 2, 3 };
    size_t room = 8192;
    uint8_t *b = malloc(room);
    uint32_t seed = 0x0A11C0DEu;
    int bad = 0, opened = 0, built = 0;
    for (uint32_t nt = 1; nt <= 16; nt++) {
        uint32_t n = 1u << nt;
        for (uint32_t mask = 0; mask < n; mask++) {
            uint32_t x = xorshift32(&seed), full = n - 1u;
            /* rotations the mask; translations its complement turned; scales the mask reversed */
            uint32_t rev = 0;
            for (uint32_t i = 0; i < nt; i++) rev |= ((mask >> i) & 1u) << (nt - 1u - i);
            uint32_t sel[3] = { mask, ~((mask << 1) | (mask >> (nt - 1u))) & full, rev };
            if (x % 4u == 0) sel[1] = mask; /* the same runs in every kind now and then */
            uint32_t size = static_buffer_sel(b, room, &seed, 10, nt, 1u + (x >> 8) % 3u, 1, rfmts[mask % 3u], 1, 0,
                                              (x >> 4) & 2u, sel);
            if (!size) continue;
            built++;
            char what[96];
            snprintf(what, sizeof what, "%u tracks, mask 0x%04x, rfmt %u", nt, mask, rfmts[mask % 3u]);
            opened +=
                static_open_agrees(b, size, (x >> 12) % 4u == 0 ? ACL_OPEN_HASH : ACL_OPEN_CLIP, NULL, what, &bad);
            if (nt == 16 && mask % 7u == 0) opened += static_open_agrees(b, size, ACL_OPEN_GROUPS, NULL, what, &bad);
        }
    }
    for (int round = 0; round < 3000; round++) {
        uint32_t x = xorshift32(&seed), nt = 17u + x % 16u, sel[3] = { 0, 0, 0 };
        for (unsigned k = 0; k < 3; k++) { /* runs: the type kept from track to track 7 times in 8 */
            uint32_t on = xorshift32(&seed) & 1u;
            for (uint32_t i = 0; i < nt; i++) {
                if (xorshift32(&seed) % 8u == 0) on ^= 1u;
                sel[k] |= on << i;
            }
        }
        if (round % 10 == 0) sel[round % 3] = ACL_NONE >> (32u - nt); /* a kind all constant */
        uint32_t size = static_buffer_sel(b, room, &seed, (uint16_t)(7u + (x >> 8) % 4u), nt, 1u + (x >> 12) % 3u, 1,
                                          rfmts[(x >> 16) % 3u], (int)((x >> 18) & 1u), 0, (x >> 20) & 2u, sel);
        if (!size) continue;
        built++;
        char what[96];
        snprintf(what, sizeof what, "round %d: %u tracks, masks 0x%08x 0x%08x 0x%08x", round, nt, sel[0], sel[1],
                 sel[2]);
        opened += static_open_agrees(b, size, round % 2 ? ACL_OPEN_CLIP : ACL_OPEN_GROUPS, NULL, what, &bad);
    }
    printf("  static runs: %d buffers, %d opens alike\n", built, opened);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(built, 131070 + 3000); /* 2 + 4 + ... + 65,536 masks, then the rounds */
    CHECK(opened > 130000);
    free(b);
}

/* A constant sample that is not finite (or beyond ACL_RANGE_MAX, its W included) is
 * refused by the open with the first bad one in track order (then rotation, translation,
 * scale) named, at the constant block's offset; the open checks them all at once and
 * only then looks for the first (acl_open_ex). Every .acl buffer, one bad word at every
 * word of its constant block (NaN, 3e18, an infinity) and 300 pairs of bad words: the
 * error expected from the type table, through ganim_acl_open, ganim_acl_open_clip and
 * ganim_read_memory. */
TEST(bad_constants_are_named_in_track_order)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    uint32_t seed = 0x1234567u;
    int files = 0, cases = 0;
    for (char **p = list; *p; p++) {
        size_t size;
        uint8_t *b, *orig = file_and_room(*p, &size, &b);
        if (!orig) continue;
        files++;
        const uint8_t *th = orig + ACL_HDR;
        unsigned rfmt = (ganim_ld_u32le(orig + 28) >> 4) & 15u;
        uint32_t nconst[3] = { ganim_ld_u32le(th + 20), ganim_ld_u32le(th + 24), ganim_ld_u32le(th + 28) };
        uint32_t cdata = ACL_HDR + ganim_ld_u32le(th + 44);
        uint32_t words = nconst[0] * (rfmt == 0 ? 4u : 3u) + 3u * (nconst[1] + nconst[2]);
        static const uint32_t badw[3] = { 0x7FC00000u, 0x5E26A000u /* ~3e18 */, 0xFF800000u };
        for (uint32_t round = 0; words && round < 3u * words + 300u; round++) {
            memcpy(b, orig, size);
            uint32_t w1 = round < 3u * words ? round / 3u : xorshift32(&seed) % words;
            uint32_t w2 = round < 3u * words ? w1 : xorshift32(&seed) % words;
            ganim_st_u32le(b + cdata + 4u * w1, badw[round % 3u]);
            ganim_st_u32le(b + cdata + 4u * w2, badw[(round + 1u) % 3u]);
            unsigned k1, k2;
            uint32_t c1, c2;
            const_word_owner(w1, rfmt, nconst, &k1, &c1);
            const_word_owner(w2, rfmt, nconst, &k2, &c2);
            uint32_t t1 = const_owner_track(b, k1, c1), t2 = const_owner_track(b, k2, c2);
            int second = t2 * 3u + k2 < t1 * 3u + k1;
            char want[200];
            snprintf(want, sizeof want, "acl: track %u: constant %s sample %u is not a finite number", second ? t2 : t1,
                     acl_kind_name(second ? k2 : k1), second ? c2 : c1);
            for (int how = 0; how < 3; how++) {
                ganim_error err = { 0 };
                ganim_acl *acl = NULL;
                ganim_doc *doc = NULL;
                ganim_code rc = open_how(how, b, size, &acl, &doc, &err);
                CHECK_MSG(rc == GANIM_ERR_CORRUPT && err.offset == cdata && !strcmp(err.message, want),
                          "%s words %u, %u (%d): %d at %llu '%s', expected at %u '%s'", *p, w1, w2, how, (int)rc,
                          (unsigned long long)err.offset, err.message, cdata, want);
                ganim_acl_close(acl);
                ganim_doc_free(doc);
            }
            cases++;
        }
        free(b);
        free(orig);
    }
    test_free_list(list);
    CHECK(files >= 16);
    CHECK(cases > 1000);
}

/* The constant translations and scales are checked all at once, four floats at a time
 * (acl_open_ex's all_in_range), before the track loop that reads them: every .acl buffer
 * with some, each of their words in turn set to just past +-ACL_RANGE_MAX, to +-infinity
 * and to NaN (the first bad one in track order named, as bad_constants_are_named_in_track_order
 * expects), and to +-ACL_RANGE_MAX itself and -0 (the three opens still succeed and the
 * word's value reaches the pose: ganim_acl_open_clip then decode_clip's frame 0 holds it,
 * or the clip is read), and 200 random words set to random edge values. */
TEST(constant_translations_and_scales_checked_at_once)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    uint32_t seed = 0x7F4A7C15u;
    int files = 0, refused = 0, opened = 0;
    const float edge[] = { nextafterf(ACL_RANGE_MAX, INFINITY),
                           nextafterf(-ACL_RANGE_MAX, -INFINITY),
                           INFINITY,
                           -INFINITY,
                           NAN,
                           ACL_RANGE_MAX,
                           -ACL_RANGE_MAX,
                           -0.0f };
    const unsigned nedge = (unsigned)(sizeof edge / sizeof edge[0]);
    for (char **p = list; *p; p++) {
        size_t size;
        uint8_t *b, *orig = file_and_room(*p, &size, &b);
        if (!orig) continue;
        const uint8_t *th = orig + ACL_HDR;
        unsigned rfmt = (ganim_ld_u32le(orig + 28) >> 4) & 15u;
        uint32_t nconst[3] = { ganim_ld_u32le(th + 20), ganim_ld_u32le(th + 24), ganim_ld_u32le(th + 28) };
        uint32_t cdata = ACL_HDR + ganim_ld_u32le(th + 44);
        uint32_t rot_words = nconst[0] * (rfmt == 0 ? 4u : 3u), words = 3u * (nconst[1] + nconst[2]);
        if (!words) {
            free(b);
            free(orig);
            continue;
        }
        files++;
        for (uint32_t round = 0; round < nedge * words + 200u; round++) {
            uint32_t w = round < nedge * words ? round / nedge : xorshift32(&seed) % words;
            float v = edge[round < nedge * words ? round % nedge : xorshift32(&seed) % nedge];
            memcpy(b, orig, size);
            uint32_t vbits;
            memcpy(&vbits, &v, 4);
            ganim_st_u32le(b + cdata + 4u * (rot_words + w), vbits);
            unsigned k;
            uint32_t c;
            const_word_owner(rot_words + w, rfmt, nconst, &k, &c);
            uint32_t t = const_owner_track(b, k, c);
            int good = fabsf(v) <= ACL_RANGE_MAX;
            char want[200];
            snprintf(want, sizeof want, "acl: track %u: constant %s sample %u is not a finite number", t,
                     acl_kind_name(k), c);
            for (int how = 0; how < 3; how++) {
                ganim_error err = { 0 };
                ganim_acl *acl = NULL;
                ganim_doc *doc = NULL;
                ganim_code rc = open_how(how, b, size, &acl, &doc, &err);
                if (good) {
                    CHECK_MSG(rc == GANIM_OK, "%s word %u = %g (%d): %d '%s'", *p, w, (double)v, how, (int)rc,
                              err.message);
                    if (rc == GANIM_OK && how == 1) {
                        uint32_t nt = ganim_acl_track_count(acl), nf = ganim_acl_frame_count(acl);
                        ganim_transform *clip = malloc((size_t)nt * nf * sizeof *clip);
                        CHECK(clip != NULL);
                        if (clip) {
                            ganim_acl_decode_clip(acl, clip);
                            const float *f = k == K_TRANS ? &clip[t].translation.x : &clip[t].scale.x;
                            uint32_t bits;
                            memcpy(&bits, &f[w % 3u], 4);
                            CHECK_MSG(bits == vbits, "%s word %u: %08x in the pose, %08x written", *p, w, bits, vbits);
                        }
                        free(clip);
                    }
                    opened++;
                } else {
                    CHECK_MSG(rc == GANIM_ERR_CORRUPT && err.offset == cdata && !strcmp(err.message, want),
                              "%s word %u = %g (%d): %d at %llu '%s', expected at %u '%s'", *p, w, (double)v, how,
                              (int)rc, (unsigned long long)err.offset, err.message, cdata, want);
                    refused++;
                }
                ganim_acl_close(acl);
                ganim_doc_free(doc);
            }
        }
        free(b);
        free(orig);
    }
    test_free_list(list);
    CHECK(files >= 10);
    CHECK(refused > 1000 && opened > 1000);
}

/* The clip ranges (6 floats a variable sub-track) are checked four at a time (SSE2) and
 * the first bad one looked for only then (acl_open_ex): every .acl buffer with variable
 * sub-tracks, each of its clip-range words in turn set to NaN, ~3e18, -infinity and the
 * first float past +-ACL_RANGE_MAX, and 400 random pairs of words set to random edge
 * values: the verdict of in_range on each word (the scalar path), the first bad word's
 * index and offset in the error, through ganim_acl_open, ganim_acl_open_clip and
 * ganim_read_memory; a buffer whose words are all in range (ACL_RANGE_MAX itself
 * included) still opens. */
TEST(bad_clip_ranges_are_named_first)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    uint32_t seed = 0x2545F491u;
    int files = 0, cases = 0, refused = 0, opened = 0;
    const float edge[] = { NAN,
                           3e18f,
                           -INFINITY,
                           nextafterf(ACL_RANGE_MAX, INFINITY),
                           nextafterf(-ACL_RANGE_MAX, -INFINITY),
                           ACL_RANGE_MAX,
                           -ACL_RANGE_MAX,
                           INFINITY,
                           0.5f,
                           -0.0f };
    const unsigned nedge = (unsigned)(sizeof edge / sizeof edge[0]);
    for (char **p = list; *p; p++) {
        size_t size;
        uint8_t *b, *orig = file_and_room(*p, &size, &b);
        if (!orig) continue;
        const uint8_t *th = orig + ACL_HDR;
        uint32_t misc = ganim_ld_u32le(orig + 28), rfmt = (misc >> 4) & 15u;
        uint32_t nr = (rfmt == 3 ? ganim_ld_u32le(th + 8) : 0u) + (((misc >> 3) & 1u) ? ganim_ld_u32le(th + 12) : 0u) +
                      (((misc >> 2) & 1u) && (misc & 1u) ? ganim_ld_u32le(th + 16) : 0u);
        uint32_t crange = ACL_HDR + ganim_ld_u32le(th + 48), words = 6u * nr;
        if (words) files++;
        for (uint32_t round = 0; words && round < 4u * words + 400u; round++) {
            memcpy(b, orig, size);
            uint32_t w1, w2;
            float v1, v2;
            if (round < 4u * words) {
                w1 = w2 = round / 4u;
                v1 = v2 = edge[round % 4u == 3u ? 3u + (round / 4u) % 2u : round % 4u];
            } else {
                w1 = xorshift32(&seed) % words;
                w2 = xorshift32(&seed) % words;
                v1 = edge[xorshift32(&seed) % nedge];
                v2 = edge[xorshift32(&seed) % nedge];
            }
            memcpy(b + crange + 4u * w1, &v1, 4);
            memcpy(b + crange + 4u * w2, &v2, 4);
            uint32_t first = UINT32_MAX; /* the scalar verdict on every word */
            for (uint32_t w = 0; w < words && first == UINT32_MAX; w++)
                if (!in_range(ganim_ld_f32le(b + crange + 4u * w))) first = w;
            char want[200];
            snprintf(want, sizeof want, "acl: clip range data: value %u is not a finite number of moderate size",
                     first);
            for (int how = 0; how < 3; how++) {
                ganim_error err = { 0 };
                ganim_acl *acl = NULL;
                ganim_doc *doc = NULL;
                if (how == 2 && first == UINT32_MAX) continue; /* values up to 1e18 may fail the document's checks */
                ganim_code rc = open_how(how, b, size, &acl, &doc, &err);
                if (first == UINT32_MAX)
                    CHECK_MSG(rc == GANIM_OK, "%s words %u, %u (%d): %d at %llu '%s', expected to open", *p, w1, w2,
                              how, (int)rc, (unsigned long long)err.offset, err.message);
                else
                    CHECK_MSG(rc == GANIM_ERR_CORRUPT && err.offset == crange + 4u * first &&
                                  !strcmp(err.message, want),
                              "%s words %u, %u (%d): %d at %llu '%s', expected at %u '%s'", *p, w1, w2, how, (int)rc,
                              (unsigned long long)err.offset, err.message, crange + 4u * first, want);
                ganim_acl_close(acl);
                ganim_doc_free(doc);
            }
            refused += first != UINT32_MAX;
            opened += first == UINT32_MAX;
            cases++;
        }
        free(b);
        free(orig);
    }
    test_free_list(list);
    CHECK(files >= 10);
    CHECK(refused > 1000 && opened > 100);
}

/* The read's native record (NF_*: 32-bit little-endian words) against the buffer's
 * header, field by field, the last one included: every .acl buffer. */
TEST(native_record_holds_the_header)
{
    char **list = test_list_dir(test_path("acl", ""), ".acl");
    int files = 0;
    for (char **p = list; *p; p++) {
        size_t size;
        uint8_t *d = test_read_file(*p, &size);
        ganim_doc *doc = NULL;
        ganim_read_opts ro = { .format = "acl" };
        if (!d || ganim_read_memory(d, size, &ro, &doc, NULL) != GANIM_OK) {
            CHECK_MSG(0, "%s does not read", *p);
            free(d);
            continue;
        }
        files++;
        const ganim_clip *clip = &doc->clips[0];
        CHECK_EQ_INT(clip->native_size, 4u * NF_COUNT);
        const uint8_t *n = clip->native;
        uint32_t misc = ganim_ld_u32le(d + 28), nt = ganim_ld_u32le(d + 16), has_scale = misc & 1u;
        uint32_t version = ganim_ld_u16le(d + 12), stripped = version >= 8 && ((misc >> 10) & 1u);
        const uint8_t *th = d + ACL_HDR;
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_VERSION), version);
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_MISC), misc);
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_TRACKS), nt);
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_SAMPLES), ganim_ld_u32le(d + 20));
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_RATE_BITS), ganim_ld_u32le(d + 24));
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_SEGMENTS), ganim_ld_u32le(th));
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_SIZE), ganim_ld_u32le(d));
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_HASH_STORED), ganim_ld_u32le(d + 4));
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_HASH_COMPUTED), ganim_ld_u32le(d + 4)); /* undamaged */
        for (unsigned k = 0; k < 3; k++) {
            uint32_t anim = ganim_ld_u32le(th + 8 + 4 * k), cons = ganim_ld_u32le(th + 20 + 4 * k);
            CHECK_EQ_INT(ganim_ld_u32le(n + 4 * (NF_COUNTS + 3 * k + T_DEFAULT)), nt - anim - cons);
            CHECK_EQ_INT(ganim_ld_u32le(n + 4 * (NF_COUNTS + 3 * k + T_CONST)), cons);
            CHECK_EQ_INT(ganim_ld_u32le(n + 4 * (NF_COUNTS + 3 * k + T_ANIM)), anim);
        }
        CHECK(has_scale || ganim_ld_u32le(n + 4 * (NF_COUNTS + 6 + T_DEFAULT)) == nt);
        if (!stripped) CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_KEYS), ganim_ld_u32le(d + 20));
        if (!(misc >> 31))
            for (unsigned i = 0; i < 5; i++) CHECK_EQ_INT(ganim_ld_u32le(n + 4 * (NF_META + i)), 0xFFFFFFFFu);
        CHECK_EQ_INT(ganim_ld_u32le(n + 4 * NF_SEGHDR), stripped ? 20u : 16u);
        ganim_doc_free(doc);
        free(d);
    }
    test_free_list(list);
    CHECK(files >= 16);
}

/* The end of a run4 or rot4 case: nothing written past the `done` floats of `a` (asize
 * bytes, 0xA5 before the run), the run's count of replaced rotations `ba` the scalar
 * path's `bs`, and the hash carried along ends as the chain's over `bits`. */
static void check_run_end(const float *a, size_t asize, size_t done, uint32_t ba, uint32_t bs, const acl_fnv *f,
                          const uint8_t *bits, size_t room, const char *what, uint32_t *diffs)
{
    const uint8_t *past = (const uint8_t *)(a + done);
    for (size_t i = 0; i < asize - done * sizeof(float); i++)
        if (past[i] != 0xA5 && (*diffs)++ < 3) test_fail(__FILE__, __LINE__, "%s: written past the samples", what);
    if (bs != ba && (*diffs)++ < 3) test_fail(__FILE__, __LINE__, "%s: %u replaced, the scalar path %u", what, ba, bs);
    CHECK_EQ_INT(acl_fnv_bytes(f->h, f->p, f->left), fnv1a_bitwise(2166136261u, bits, room));
}

/* The whole-clip decode of a variable sub-track (four samples a step, in both its forms:
 * acl_var_run4_sse2 and, where the CPU has AVX2 and BMI2, acl_var_run4_avx2, the same code
 * VEX-encoded) against the scalar path (rec_decode + quat_normalise) on random records and bits: every
 * bit width 1-23 (one window a sample up to 19 bits, three above), rotations,
 * translations and scales, with and without segment ranges, now and then ranges so large
 * that rotations degenerate (the identity lanes), every sample count 1-41 (every tail of
 * a step), each over a buffer of exactly the bytes that prove its samples (a read past
 * them is caught by the sanitizers): the same bits, nothing written past the n samples,
 * the same count of replaced rotations, and the hash carried along ends as the chain's. */
TEST(var_run4_equals_the_scalar_path)
{
#if defined(__SSE2__)
    enum { NMAX = 41, ROOM = 4096 };
    static uint8_t ani[ROOM];
    static float a[NMAX * 4 + 32];
    uint32_t seed = 12345u, compared = 0, diffs = 0, badlanes = 0, cases = 0;
    acl_var_run4_fn form[2] = { acl_var_run4_sse2, NULL };
    const char *name[2] = { "sse2", "avx2" };
    unsigned nforms = 1;
#if ACL_HAVE_AVX2
    if (acl_cpu_avx2()) form[nforms++] = acl_var_run4_avx2;
#endif
    /* the read takes the AVX2 form where the CPU has it */
    CHECK(acl_var_run4_pick() == form[nforms - 1]);
    if (nforms == 1) test_note_not_run("acl_var_run4_avx2 (this CPU has no AVX2 or BMI2)");
#define RND() (seed = seed * 1664525u + 1013904223u, seed >> 8)
    for (size_t i = 0; i < ROOM; i++) ani[i] = (uint8_t)(RND() & 0xFFu);
    for (unsigned nb = 1; nb <= 23; nb++)
        for (unsigned kind = 0; kind < 3; kind++)
            for (unsigned seg = 0; seg < 2; seg++)
                for (uint32_t n = 1; n <= NMAX; n++) {
                    acl_rec r;
                    memset(&r, 0, sizeof r);
                    r.mode = M_VAR;
                    r.kind = (uint8_t)kind;
                    r.nb = (uint8_t)nb;
                    r.segrange = (uint8_t)seg;
                    r.inv = 1.0f / (float)((1u << nb) - 1u);
                    r.bit = RND() % 61u;
                    int huge = RND() % 8u == 0;
                    for (int c = 0; c < 3; c++) {
                        r.smin[c] = (float)(RND() % 256u) / 255.0f;
                        r.sext[c] = (float)(RND() % 256u) / 255.0f;
                        r.cmin[c] = ((float)(RND() % 20001u) - 10000.0f) / 10000.0f * (huge ? 1e17f : 1.0f);
                        r.cext[c] = (float)(RND() % 20001u) / 10000.0f * (huge ? 1e17f : 1.0f);
                    }
                    size_t pb = r.bit + 3u * nb + RND() % 40u;
                    size_t room = (n * pb + 7u) / 8u + 7u; /* as proven_samples: n samples, no more */
                    if (room > ROOM) continue;
                    uint8_t *bits = malloc(room);
                    CHECK(bits != NULL);
                    if (!bits) return;
                    memcpy(bits, ani + RND() % (ROOM - room + 1u), room);
                    uint32_t chunk = 1u + RND() % 9u;
                    for (unsigned v = 0; v < nforms; v++) {
                        memset(a, 0xA5, sizeof a);
                        acl_fnv f = { bits, room, 2166136261u, chunk };
                        uint32_t ba = form[v](&r, bits, r.bit, pb, n, a, &f);
                        unsigned comps = kind == K_ROT ? 4u : 3u;
                        uint32_t bs = 0;
                        for (uint32_t i = 0; i < n; i++) {
                            float o[4];
                            rec_decode(&r, bits, room, (size_t)i * pb, o);
                            if (comps == 4) bs += (uint32_t)quat_normalise(o);
                            if (memcmp(o, a + (size_t)i * comps, comps * sizeof(float)) && diffs++ < 3)
                                test_fail(__FILE__, __LINE__,
                                          "%s nb %u kind %u seg %u n %u sample %u: run4 %.9g, scalar %.9g", name[v], nb,
                                          kind, seg, n, i, (double)a[(size_t)i * comps], (double)o[0]);
                            compared++;
                        }
                        char what[64];
                        snprintf(what, sizeof what, "%s nb %u kind %u n %u", name[v], nb, kind, n);
                        check_run_end(a, sizeof a, (size_t)n * comps, ba, bs, &f, bits, room, what, &diffs);
                        badlanes += ba;
                    }
                    free(bits);
                    cases++;
                }
#undef RND
    CHECK_MSG(diffs == 0, "acl_var_run4 differs from the scalar path %u times", diffs);
    CHECK(cases > 2500);
    CHECK(compared > 50000u * nforms);
    CHECK(badlanes > 0); /* the identity lanes were taken */
#endif
}

/* The whole-clip decode of a raw rotation (acl_raw_rot4, SSE2: four samples a step, one
 * square root of the four W and of the four lengths) against the scalar path (rec_decode
 * + quat_normalise) on random records and floats: both raw kinds (three components and
 * W, four components), byte-aligned and not, every sample count 1-41, each over a buffer
 * of exactly the bytes that prove its samples; components now and then huge or tiny (the
 * identity lanes: a length out of range) or not finite (the step stops before that group
 * of four). The same bits in the samples done, nothing written past them, the count done
 * (the groups before the first non-finite one, the last n % 4 left), the same count of
 * replaced rotations, and the hash carried along ends as the chain's. */
static void put_be32(uint8_t *buf, size_t bit, uint32_t v)
{
    for (unsigned k = 0; k < 32; k++, bit++) {
        uint8_t m = (uint8_t)(0x80u >> (bit & 7u));
        if ((v >> (31u - k)) & 1u) buf[bit >> 3] = (uint8_t)(buf[bit >> 3] | m);
        else buf[bit >> 3] = (uint8_t)(buf[bit >> 3] & ~m);
    }
}

TEST(raw_rot4_equals_the_scalar_path)
{
#if defined(__SSE2__)
    enum { NMAX = 41 };
    static float a[NMAX * 4 + 32];
    uint32_t seed = 777u, compared = 0, diffs = 0, badlanes = 0, cases = 0, stopped = 0;
#define RND() (seed = seed * 1664525u + 1013904223u, seed >> 8)
    for (unsigned full4 = 0; full4 < 2; full4++)
        for (unsigned trial = 0; trial < 40; trial++)
            for (uint32_t n = 1; n <= NMAX; n++) {
                acl_rec r;
                memset(&r, 0, sizeof r);
                r.mode = full4 ? M_FULL4 : M_RAW;
                r.kind = K_ROT;
                r.bit = trial % 2u ? RND() % 61u : 8u * (RND() % 8u);
                unsigned comps = full4 ? 4u : 3u;
                size_t pb = r.bit + 32u * comps + (trial % 4u < 2u ? 8u * (RND() % 5u) : RND() % 40u);
                size_t last = (size_t)(n - 1u) * pb + r.bit + 32u * (comps - 1u), room = 8;
                while (gb_msb_proven_limit(room) <= last) room++; /* as the caller: n samples proven, no more */
                uint8_t *bits = malloc(room);
                CHECK(bits != NULL);
                if (!bits) return;
                for (size_t i = 0; i < room; i++) bits[i] = (uint8_t)RND();
                int odd = RND() % 3u == 0; /* a case with huge, tiny and non-finite values */
                for (uint32_t i = 0; i < n; i++)
                    for (unsigned c = 0; c < comps; c++) {
                        float v = ((float)(RND() % 20001u) - 10000.0f) / (full4 ? 10000.0f : 17321.0f);
                        uint32_t pick = RND() % 64u;
                        if (odd && pick == 0) v = 3e18f;
                        else if (odd && pick == 1) v = 1e-9f;
                        uint32_t u = ganim_f32_bits(v);
                        if (odd && pick == 2) u = RND() % 2u ? 0x7F800000u : 0xFFC00001u;
                        put_be32(bits, (size_t)i * pb + r.bit + 32u * c, u);
                    }
                memset(a, 0xA5, sizeof a);
                acl_fnv f = { bits, room, 2166136261u, 1u + RND() % 9u };
                uint32_t ba = 0, done = acl_raw_rot4(&r, bits, pb, n, a, &f, &ba);
                uint32_t bs = 0, want = 0;
                for (uint32_t i = 0; i < n; i++) {
                    float o[4];
                    int nonfinite = rec_decode(&r, bits, room, (size_t)i * pb, o);
                    if (nonfinite) break;
                    if (i % 4u == 3u) want = i + 1u;
                }
                stopped += want < n / 4u * 4u;
                if (done != want && diffs++ < 3)
                    test_fail(__FILE__, __LINE__, "full4 %u n %u: %u samples done, want %u", full4, n, done, want);
                for (uint32_t i = 0; i < done && i < want; i++) {
                    float o[4];
                    rec_decode(&r, bits, room, (size_t)i * pb, o);
                    bs += (uint32_t)quat_normalise(o);
                    if (memcmp(o, a + (size_t)i * 4u, sizeof o) && diffs++ < 3)
                        test_fail(__FILE__, __LINE__,
                                  "full4 %u n %u sample %u: rot4 %.9g %.9g %.9g %.9g, scalar %.9g %.9g %.9g %.9g",
                                  full4, n, i, (double)a[4 * i], (double)a[4 * i + 1], (double)a[4 * i + 2],
                                  (double)a[4 * i + 3], (double)o[0], (double)o[1], (double)o[2], (double)o[3]);
                    compared++;
                }
                char what[64];
                snprintf(what, sizeof what, "full4 %u n %u", full4, n);
                check_run_end(a, sizeof a, (size_t)done * 4u, ba, bs, &f, bits, room, what, &diffs);
                badlanes += ba;
                free(bits);
                cases++;
            }
#undef RND
    CHECK_MSG(diffs == 0, "acl_raw_rot4 differs from the scalar path %u times", diffs);
    CHECK(cases == 2u * 40u * NMAX);
    CHECK(compared > 40000);
    CHECK(badlanes > 0); /* the identity lanes were taken */
    CHECK(stopped > 0);  /* and the stop before a non-finite group */
#endif
}

/* A stripped segment's kept-sample word (the fifth word of its 20-byte header, bit 31 =
 * its first sample) is read for the segment's own samples only (acl_open.c, seg_kept):
 * bits past its last sample are ignored by the open (stored counts, keys), by the
 * whole-clip open's choice of groups (has_short_segment) and by the read. Here every
 * segment of the stripped sample gets the bits past its samples set (the hash rewritten
 * to match): the same counts, groups and clip bit for bit through both opens, and the
 * same document without a warning. */
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

TEST(stripped_bits_past_the_segment_are_ignored)
{
    size_t size;
    uint8_t *data = test_read_file(sibling("scale01_default_settings_f192_r30_b60", ".acl"), &size);
    ganim_acl *a = NULL;
    CHECK(data != NULL && ganim_acl_open(data, size, 0, NULL, NULL, NULL, &a, NULL) == GANIM_OK);
    if (!a) {
        free(data);
        return;
    }
    CHECK(a->stripped && a->nseg > 1);
    size_t hdr = 0; /* the segment headers: where every segment's pose bits and kept word are */
    for (size_t o = 16; !hdr && o + 20u * a->nseg <= size; o += 4) {
        int ok = 1;
        for (uint32_t s = 0; s < a->nseg && ok; s++)
            ok = le32(data + o + 20u * s) == a->segs[s].pose_bits && le32(data + o + 20u * s + 16u) == a->segs[s].kept;
        if (ok) hdr = o;
    }
    CHECK(hdr != 0);
    uint8_t *bad = malloc(size);
    memcpy(bad, data, size);
    uint32_t changed = 0;
    for (uint32_t s = 0; hdr && s < a->nseg; s++)
        if (a->segs[s].count < 32) {
            put_u32(bad + hdr + 20u * s + 16u, a->segs[s].kept | ACL_NONE >> a->segs[s].count);
            changed++;
        }
    put_u32(bad + 4, fnv1a_ref(bad + 8, size - 8));
    CHECK(changed > 0 && memcmp(bad, data, size) != 0);
    ganim_acl_close(a);
    for (int clip = 0; clip < 2; clip++) {
        ganim_acl *x = NULL, *y = NULL;
        if (clip) {
            CHECK_EQ_INT(ganim_acl_open_clip(data, size, 0, NULL, NULL, NULL, &x, NULL), GANIM_OK);
            CHECK_EQ_INT(ganim_acl_open_clip(bad, size, 0, NULL, NULL, NULL, &y, NULL), GANIM_OK);
        } else {
            CHECK_EQ_INT(ganim_acl_open(data, size, 0, NULL, NULL, NULL, &x, NULL), GANIM_OK);
            CHECK_EQ_INT(ganim_acl_open(bad, size, 0, NULL, NULL, NULL, &y, NULL), GANIM_OK);
        }
        if (x && y) {
            CHECK_EQ_INT(x->ngrp, y->ngrp);
            CHECK_EQ_INT(x->nkeys, y->nkeys);
            for (uint32_t s = 0; s < x->nseg; s++) {
                CHECK_EQ_INT(x->segs[s].stored, y->segs[s].stored);
                CHECK_EQ_INT(x->segs[s].kept, y->segs[s].kept);
            }
            size_t n = (size_t)ganim_acl_frame_count(x) * ganim_acl_track_count(x);
            ganim_transform *p = calloc(n, sizeof *p), *q = calloc(n, sizeof *q);
            ganim_acl_decode_clip(x, p);
            ganim_acl_decode_clip(y, q);
            CHECK_MSG(!memcmp(p, q, n * sizeof *p), "open%s: the clips differ", clip ? "_clip" : "");
            free(p);
            free(q);
        }
        ganim_acl_close(x);
        ganim_acl_close(y);
    }
    ganim_read_opts o = { .format = "acl" };
    ganim_doc *d0 = NULL, *d1 = NULL;
    CHECK_EQ_INT(ganim_read_memory(data, size, &o, &d0, NULL), GANIM_OK);
    CHECK_EQ_INT(ganim_read_memory(bad, size, &o, &d1, NULL), GANIM_OK);
    if (d0 && d1) {
        CHECK(doc_digest(d0) == doc_digest(d1));
        CHECK_EQ_INT(d1->warning_count, d0->warning_count);
    }
    ganim_doc_free(d0);
    ganim_doc_free(d1);
    free(bad);
    free(data);
}

/* ---- several segments that group their sub-tracks differently ---------------------------
 * tests/data/acl/multiseg_groups_v10.acl: ganim's ACL writer's buffer of the motion
 * multiseg_doc makes (12 bones, 64 frames at 30 fps, three segments: frames 0-21, 22-42,
 * 43-63). Sub-tracks move in some segments and hold still in others, one bone's
 * translation jumps by 1e5 in the middle segment only, so that each segment stores them
 * differently: constant in the segment (width 0), variable at different widths, raw; the
 * segments then sort and cut them into different groups of four, and a pose between two
 * segments mixes two groupings (or, for bones 0-3, decodes the same group stored two ways). Its .keys.txt (every key) and .times.txt (three times
 * between every two keys, those across the two segment boundaries included) are ACL
 * 2.1's own decode of the buffer (tests/data/acl/make_multiseg.sh, multiseg_reference.cpp).
 * The motion is made with + - * / and sqrtf only: the same floats on every platform. */
enum { MS_NT = 12, MS_NS = 64 };

static uint32_t ms_rng = 12345u;
static float ms_jitter(void)
{
    ms_rng = ms_rng * 1664525u + 1013904223u;
    return (float)(ms_rng >> 8) / 16777216.0f - 0.5f;
}

static int ms_segment(int f) { return f < 22 ? 0 : f < 43 ? 1 : 2; }

/* How far a sub-track has gone at frame f: a curve (with noise) in the segments where it
 * moves (on[segment]), a value of the segment's own where it holds still. */
static float ms_amount(const int on[3], int f)
{
    static const int start[3] = { 0, 22, 43 };
    int s = ms_segment(f);
    if (!on[s]) return (float)(s * 16);
    float x = (float)(f - start[s]);
    return (float)(s * 16) + x * x / 16.0f + 0.05f * ms_jitter();
}

static ganim_doc *multiseg_doc(void)
{
    /* bones 0-3 move in every segment, by other amounts in each (other widths: the same
     * sub-tracks in a group in both segments, stored differently); bones 4-11 move in some
     * segments only (other groups) */
    static const int rot_on[MS_NT][3] = {
        { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 0, 1, 0 },
        { 1, 0, 0 }, { 1, 1, 1 }, { 0, 1, 1 }, { 1, 1, 1 }, { 1, 0, 1 }, { 0, 1, 1 }
    };
    static const float rot_size[MS_NT][3] = {
        { 0.02f, 0.002f, 0.06f }, { 0.03f, 0.0004f, 0.01f }, { 0.01f, 0.05f, 0.0002f }, { 0.04f, 0.004f, 0.04f },
        { 0.02f, 0.02f, 0.02f },  { 0.03f, 0.03f, 0.03f },   { 0.04f, 0.04f, 0.04f },   { 0.05f, 0.0005f, 0.05f },
        { 0.02f, 0.2f, 0.001f },  { 0.01f, 0.01f, 0.01f },   { 0.03f, 0.03f, 0.03f },   { 0.02f, 0.02f, 0.02f }
    };
    static const int tr_on[MS_NT][3] = { { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 0, 0, 0 },
                                         { 0, 1, 0 }, { 0, 0, 1 }, { 0, 1, 0 }, { 0, 0, 0 }, { 1, 0, 0 }, { 0, 0, 0 } };
    static const int sc_on[MS_NT][3] = { { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, { 0, 0, 0 }, { 0, 0, 0 },
                                         { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 1 }, { 0, 1, 0 }, { 0, 0, 0 } };
    static const float vec_size[4][3] = {
        { 1.0f, 0.05f, 3.0f }, { 0.2f, 2.0f, 0.01f }, { 4.0f, 0.5f, 0.02f }, { 0.01f, 1.0f, 1.5f }
    };
    static const int32_t parents[MS_NT] = { -1, 0, 1, 2, -1, 4, 5, 6, 4, 8, 4, 10 };
    static float q[MS_NT][MS_NS][4], t[MS_NT][MS_NS][3], sc[MS_NT][MS_NS][3];
    ms_rng = 12345u;
    for (int b = 0; b < MS_NT; b++)
        for (int f = 0; f < MS_NS; f++) {
            int s = ms_segment(f);
            float a = ms_amount(rot_on[b], f) * rot_size[b][s];
            float v[4] = { 0.3f * a + 0.1f * (float)b, -0.5f * a, 0.7f * a - 0.05f * (float)b, 1.0f };
            float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
            for (int i = 0; i < 4; i++) q[b][f][i] = v[i] / len;
            float ta = ms_amount(tr_on[b], f) * (b < 4 ? vec_size[b][s] : 1.0f);
            float big = b == 8 && s == 1 ? 200000.0f * (1.0f + ms_jitter()) : 1.0f;
            if (b == 9) ta = 40000.0f;
            t[b][f][0] = 0.1f * (float)b + 0.02f * ta * big;
            t[b][f][1] = 0.5f - 0.01f * ta;
            t[b][f][2] = 0.25f * (float)b + 0.015f * ta;
            float sa = ms_amount(sc_on[b], f) * (b < 4 ? vec_size[3 - b][s] : 1.0f);
            sc[b][f][0] = 1.0f + 0.01f * sa;
            sc[b][f][1] = 1.0f - 0.005f * sa;
            sc[b][f][2] = 1.0f + 0.002f * sa * (float)b;
        }
    ganim_doc *doc = NULL;
    if (ganim_doc_new(NULL, &doc, NULL) != GANIM_OK) return NULL;
    ganim_bone bones[MS_NT];
    char names[MS_NT][16];
    memset(bones, 0, sizeof bones);
    for (int b = 0; b < MS_NT; b++) {
        snprintf(names[b], sizeof names[b], "bone%d", b);
        bones[b].name = names[b];
        bones[b].parent = parents[b];
        bones[b].rest.rotation.w = 1.0f;
        bones[b].rest.scale = (ganim_vec3){ 1, 1, 1 };
    }
    ganim_skeleton sk = { .name = "rig", .bone_count = MS_NT, .bones = bones };
    ganim_clip clip = { .name = "clip", .kind = GANIM_CLIP_ANIMATION, .fps = 30.0f, .frame_count = MS_NS };
    uint32_t ci = 0;
    int ok =
        ganim_doc_set_skeleton(doc, &sk, NULL) == GANIM_OK && ganim_doc_add_clip(doc, &clip, &ci, NULL) == GANIM_OK;
    for (uint32_t b = 0; b < MS_NT && ok; b++) {
        ganim_track tr = { .bone = b, .name = names[b] };
        tr.rotation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, MS_NS, NULL, &q[b][0][0] };
        tr.translation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, MS_NS, NULL, &t[b][0][0] };
        tr.scale = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, MS_NS, NULL, &sc[b][0][0] };
        ok = ganim_doc_add_track(doc, ci, &tr, NULL, NULL) == GANIM_OK;
    }
    if (!ok) {
        ganim_doc_free(doc);
        return NULL;
    }
    return doc;
}

/* test_acl --write-multiseg DIR: DIR/multiseg_groups_v10.acl, as ganim's writer makes it today
 * (the committed file is kept as it was made: its references are ACL's decode of it). */
static int write_multiseg(const char *dir)
{
    ganim_doc *doc = multiseg_doc();
    ganim_buffer buf = { 0 };
    ganim_error e = { 0 };
    char path[4096];
    snprintf(path, sizeof path, "%s/multiseg_groups_v10.acl", dir);
    ganim_setting set[1] = { { "acl.version", "10" } };
    ganim_write_opts wo = { .settings = set, .setting_count = 1 };
    if (!doc || ganim_write(doc, "acl", &wo, &buf, &e) != GANIM_OK) {
        fprintf(stderr, "cannot encode the clip: %s\n", e.message);
        ganim_doc_free(doc);
        return 1;
    }
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(buf.data, 1, buf.size, f) == buf.size;
    ok = f && fclose(f) == 0 && ok;
    printf("%s %s (%zu bytes)\n", ok ? "wrote" : "cannot write", path, buf.size);
    ganim_buffer_free(&buf);
    ganim_doc_free(doc);
    return !ok;
}

/* The largest |value| of each sub-track over the keys ([track][kind]; at least 1): the
 * scale of the tolerance below (a value near 0 inside a clip range of 1e5 differs from
 * ACL's by an ulp of the range, not of itself). */
static void ms_scales(const ref_line *keys, size_t nk, float scale[MS_NT][3])
{
    for (int t = 0; t < MS_NT; t++)
        for (int k = 0; k < 3; k++) scale[t][k] = 1.0f;
    for (size_t i = 0; i < nk; i++)
        for (int c = 0; c < 10; c++) {
            int k = c < 4 ? 0 : c < 7 ? 1 : 2;
            float v = fabsf(keys[i].v[c]);
            if (keys[i].track < MS_NT && v > scale[keys[i].track][k]) scale[keys[i].track][k] = v;
        }
}

/* One pose's track against ACL's line: every component within MS_ULPS ulps of the sub-track's
 * scale (rotations: the sign of ACL's; ganim and ACL round a few operations differently).
 * Returns the error in those ulps. */
static double ms_error(const ganim_transform *p, const ref_line *r, float scale[MS_NT][3])
{
    const float g[10] = { p->rotation.x,    p->rotation.y,    p->rotation.z, p->rotation.w, p->translation.x,
                          p->translation.y, p->translation.z, p->scale.x,    p->scale.y,    p->scale.z };
    double worst = 0;
    for (int c = 0; c < 10; c++) {
        int k = c < 4 ? 0 : c < 7 ? 1 : 2;
        double ulp = (double)scale[r->track][k] * (double)FLT_EPSILON;
        double d = fabs((double)g[c] - (double)r->v[c]) / ulp;
        if (!(d <= worst)) worst = d; /* NaN included */
    }
    return worst;
}

#define MS_ULPS 4.0

TEST(segments_grouped_differently_match_acl)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/acl/multiseg_groups_v10", GANIM_SOURCE_DIR);
    char *stem_end = path + strlen(path);
    size_t size, nk, ntm;
    strcpy(stem_end, ".acl");
    uint8_t *data = test_read_file(path, &size);
    strcpy(stem_end, ".keys.txt");
    ref_line *keys = read_ref(path, &nk, NULL, NULL);
    strcpy(stem_end, ".times.txt");
    ref_line *times = read_ref(path, &ntm, NULL, NULL);
    ganim_acl *acl = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_acl_open(data, size, 0, NULL, NULL, NULL, &acl, &e) == GANIM_OK, "open: %s", e.message);
    CHECK_EQ_INT(nk, (size_t)MS_NT * MS_NS);
    CHECK_EQ_INT(ntm, (size_t)MS_NT * (MS_NS - 1) * 3);
    if (!acl || nk != (size_t)MS_NT * MS_NS || ntm != (size_t)MS_NT * (MS_NS - 1) * 3) goto done;
    CHECK_EQ_INT(ganim_acl_track_count(acl), MS_NT);
    CHECK_EQ_INT(ganim_acl_frame_count(acl), MS_NS);

    /* The buffer is the case meant: three segments; in each kind some sub-track stored one
     * way in a segment and another way in the next (constant <-> variable, variable <->
     * raw); groups of four whose sub-tracks differ between two segments, and groups of the
     * same sub-tracks at other widths. */
    CHECK_EQ_INT(acl->nseg, 3);
    unsigned change[3][4][4];
    memset(change, 0, sizeof change);
    uint32_t width_changes = 0, regrouped = 0, restored = 0;
    for (uint32_t s = 0; s + 1 < acl->nseg && acl->nseg == 3; s++) {
        const acl_seg *s0 = &acl->segs[s], *s1 = &acl->segs[s + 1];
        for (uint32_t a = 0; a < acl->na; a++) {
            const acl_rec *r0 = &s0->recs[a], *r1 = &s1->recs[a];
            CHECK_EQ_INT(r0->track, r1->track);
            change[r0->kind][r0->mode][r1->mode]++;
            width_changes += r0->mode == M_VAR && r1->mode == M_VAR && r0->nb != r1->nb;
        }
        for (uint32_t i = 0; i < s0->ngrp && i < s1->ngrp; i++) {
            const acl_grp *g0 = &s0->grps[i], *g1 = &s1->grps[i];
            if (!g0->soa) continue;
            if (memcmp(g0->rec, g1->rec, sizeof g0->rec) != 0) regrouped++;
            else if (g1->soa && memcmp(g0->nb, g1->nb, sizeof g0->nb) != 0) restored++;
        }
    }
    for (unsigned k = 0; k < 3; k++) {
        CHECK_MSG(change[k][M_CONST][M_VAR] + change[k][M_VAR][M_CONST] > 0, "%s: no constant <-> variable",
                  acl_kind_name(k));
        CHECK_MSG(change[k][M_RAW][M_VAR] + change[k][M_VAR][M_RAW] > 0, "%s: no raw <-> variable", acl_kind_name(k));
    }
    CHECK(width_changes > 0);
    CHECK(regrouped > 0);
    CHECK(restored > 0);
    printf("  multiseg_groups_v10 between segments: %u variable widths change, %u groups hold other "
           "sub-tracks, %u the same at other widths\n",
           width_changes, regrouped, restored);

    float scale[MS_NT][3];
    ms_scales(keys, nk, scale);
    ganim_transform pose[MS_NT], ref[MS_NT];
    double worst_key = 0, worst_time = 0, worst_doc = 0;
    int bad = 0, slow = 0;

    /* every key: by sample_key, the whole-clip decode (acl_clip_check: bit for bit
     * sample_key's, also in slices that start inside a segment) and a time at the key */
    CHECK_EQ_INT(acl_clip_check(acl, "multiseg_groups_v10", 0, NULL), 0);
    CHECK_EQ_INT(acl_clip_check(acl, "multiseg_groups_v10 chunk 5", 5, NULL), 0);
    for (size_t i = 0; i < nk; i += MS_NT) {
        uint32_t f = (uint32_t)keys[i].t;
        ganim_acl_sample_key(acl, f, pose);
        for (size_t j = i; j < i + MS_NT; j++) {
            double d = ms_error(&pose[keys[j].track], &keys[j], scale);
            if (d > worst_key) worst_key = d;
            if (!(d <= MS_ULPS) && bad++ < 5)
                test_fail(__FILE__, __LINE__, "key %u track %u: %.3g ulps from ACL's", f, keys[j].track, d);
        }
    }
    /* between every two keys, across the segment boundaries too: the SSE2 paths against
     * ACL and against the scalar path bit for bit */
    for (size_t i = 0; i < ntm; i += MS_NT) {
        acl_pose_check(acl, times[i].t, pose, ref, "multiseg_groups_v10", &slow);
        for (size_t j = i; j < i + MS_NT; j++) {
            double d = ms_error(&pose[times[j].track], &times[j], scale);
            if (d > worst_time) worst_time = d;
            if (!(d <= MS_ULPS) && bad++ < 5)
                test_fail(__FILE__, __LINE__, "time %.9g track %u: %.3g ulps from ACL's", (double)times[j].t,
                          times[j].track, d);
        }
    }
    /* the document's read: its frames are the keys, its sampler between them ACL's */
    {
        ganim_doc *doc = NULL;
        CHECK_MSG(ganim_read_memory(data, size, NULL, &doc, &e) == GANIM_OK, "read: %s", e.message);
        if (doc) {
            CHECK_EQ_INT(doc->warning_count, 0);
            const ganim_clip *clip = &doc->clips[0];
            for (size_t i = 0; i < nk + ntm; i += MS_NT) {
                const ref_line *r = i < nk ? &keys[i] : &times[i - nk];
                float t = i < nk ? r->t / (float)clip->fps : r->t;
                CHECK_OK(ganim_clip_sample(clip, doc->skeleton, t, pose, NULL, &e));
                for (size_t j = 0; j < MS_NT; j++) {
                    double d = ms_error(&pose[r[j].track], &r[j], scale);
                    if (d > worst_doc) worst_doc = d;
                    if (!(d <= MS_ULPS) && bad++ < 5)
                        test_fail(__FILE__, __LINE__, "document at %.9g s track %u: %.3g ulps from ACL's", (double)t,
                                  r[j].track, d);
                }
            }
            ganim_doc_free(doc);
        }
    }
    printf("  multiseg_groups_v10 against ACL 2.1, in ulps of each sub-track's largest value: keys %.3g, "
           "between keys %.3g, the document %.3g\n",
           worst_key, worst_time, worst_doc);
done:
    ganim_acl_close(acl);
    free(keys);
    free(times);
    free(data);
}

/* acl_inv_width, the compiler's 1 / (2^nb - 1), against the division at run time (what
 * parse_segment did per record before the table): the same bits for every width. */
TEST(width_reciprocals_equal_the_division)
{
    for (volatile uint32_t nb = 1; nb <= 23; nb++) {
        float want = 1.0f / (float)((1u << nb) - 1u), have = acl_inv_width[nb];
        CHECK_MSG(memcmp(&want, &have, sizeof want) == 0, "width %u: %.9g, the division gives %.9g", (unsigned)nb,
                  (double)have, (double)want);
    }
}

/* ---- the groups built without the lane scan (build_groups_fast) ------------------------ */

typedef struct grp_tally {
    size_t opened, refused, groups, one_way, several_ways, short_segs;
    int bad;
} grp_tally;

/* The buffer opened for groups and for the clip, each with and without ACL_OPEN_GENERAL
 * (build_groups, the lane scan): the same
 * code, offset and message; when open, the same records and groups byte for byte (every
 * segment's, unused groups too), the same whole-clip decode and the same poses at 37
 * times, bit for bit. */
static void groups_agree(const uint8_t *b, size_t size, const char *what, grp_tally *t)
{
    static const unsigned fl[2] = { ACL_OPEN_GROUPS, ACL_OPEN_CLIP };
    for (int f = 0; f < 2; f++) {
        ganim_acl *h[2] = { NULL, NULL };
        ganim_error err[2];
        ganim_code rc[2];
        for (int g = 0; g < 2; g++) {
            memset(&err[g], 0, sizeof err[g]);
            rc[g] = acl_open_ex(b, size, 5, NULL, NULL, NULL, fl[f] | (g ? ACL_OPEN_GENERAL : 0u), &h[g], &err[g]);
        }
        int same = rc[0] == rc[1] && err[0].offset == err[1].offset && !strcmp(err[0].message, err[1].message);
        if (same && !rc[0]) {
            const ganim_acl *x = h[0], *y = h[1];
            same = x->nseg == y->nseg && x->na == y->na && x->ngrp == y->ngrp &&
                   !memcmp(x->recs, y->recs, (size_t)x->nseg * x->na * sizeof *x->recs);
            for (uint32_t s = 0; same && s < x->nseg; s++) {
                const acl_seg *sx = &x->segs[s], *sy = &y->segs[s];
                /* the unused groups too where another segment may read them (several segments) */
                size_t ng = x->nseg > 1 ? x->ngrp : sx->ngrp;
                same = sx->ngrp == sy->ngrp && !sx->grps == !sy->grps &&
                       (!sx->grps || !memcmp(sx->grps, sy->grps, ng * sizeof *sx->grps));
                t->short_segs += sx->stored <= ACL_CLIP_SHORT;
                if (!sx->grps) continue;
                t->groups += sx->ngrp;
                for (unsigned k = 0, a = 0; k < 3; a += x->nanim[k], k++) {
                    unsigned modes = 0;
                    for (uint32_t i = a; i < a + x->nanim[k]; i++) modes |= 1u << sx->recs[i].mode;
                    if (modes & (modes - 1u)) t->several_ways++;
                    else if (modes) t->one_way++;
                }
            }
            uint32_t nt = x->nt, nf = ganim_acl_frame_count(x);
            ganim_transform *o[2] = { calloc((size_t)nt * nf, sizeof(ganim_transform)),
                                      calloc((size_t)nt * nf, sizeof(ganim_transform)) };
            if (same && o[0] && o[1]) {
                for (int g = 0; g < 2; g++) ganim_acl_decode_clip(h[g], o[g]);
                same = !memcmp(o[0], o[1], (size_t)nt * nf * sizeof(ganim_transform));
                float dur = (float)nf / x->rate;
                for (int i = -2; same && i < 35; i++) {
                    for (int g = 0; g < 2; g++) ganim_acl_sample_pose(h[g], dur * (float)i / 31.0f, o[g]);
                    same = !memcmp(o[0], o[1], (size_t)nt * sizeof(ganim_transform));
                }
            }
            free(o[0]);
            free(o[1]);
            t->opened++;
        } else if (same) {
            t->refused++;
        }
        if (!same && t->bad++ < 8)
            test_fail(__FILE__, __LINE__, "%s (flags %u): fast %d at %llu '%s', general %d at %llu '%s'%s", what, fl[f],
                      (int)rc[0], (unsigned long long)err[0].offset, err[0].message, (int)rc[1],
                      (unsigned long long)err[1].offset, err[1].message,
                      rc[0] || rc[1] ? "" : " (records, groups or values differ)");
        ganim_acl_close(h[0]);
        ganim_acl_close(h[1]);
    }
}

/* A random motion of nb bones and nf frames (some sub-tracks still, some moving in
 * bursts so that a segment may hold them constant) written by ganim's ACL writer. */
static uint8_t *groups_clip(uint32_t *seed, uint32_t nb, uint32_t nf, int scale, const char *version,
                            const char *precision, size_t *size)
{
    float *q = malloc(sizeof(float) * 4u * nb * nf), *tr = malloc(sizeof(float) * 3u * nb * nf),
          *sc = malloc(sizeof(float) * 3u * nb * nf);
    ganim_doc *doc = NULL;
    uint8_t *out = NULL;
    if (!q || !tr || !sc || ganim_doc_new(NULL, &doc, NULL) != GANIM_OK) goto done;
    ganim_bone *bones = calloc(nb, sizeof *bones);
    char(*names)[16] = calloc(nb, sizeof *names);
    uint32_t ci = 0;
    int ok = bones && names;
    for (uint32_t b = 0; ok && b < nb; b++) {
        snprintf(names[b], sizeof names[b], "b%u", (unsigned)b);
        bones[b].name = names[b];
        bones[b].parent = b ? (int32_t)(xorshift32(seed) % b) : -1;
        bones[b].rest.rotation.w = 1.0f;
        bones[b].rest.scale = (ganim_vec3){ 1, 1, 1 };
        unsigned mr = xorshift32(seed) % 4u, mt = xorshift32(seed) % 4u, ms = scale ? xorshift32(seed) % 4u : 0u;
        float amp = (float)(xorshift32(seed) % 1000u) / 100.0f + 0.001f;
        for (uint32_t f = 0; f < nf; f++) {
            float x = mr == 0   ? 0.0f
                      : mr == 1 ? 0.3f
                                : 0.02f * (float)((f / 5u) * (f / 5u)) + 0.01f * (float)(xorshift32(seed) % 7u);
            float v[4] = { 0.1f + x, -0.2f * x + 0.01f * (float)b, 0.05f * (float)(b % 3u), 1.0f };
            float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
            for (int i = 0; i < 4; i++) q[(b * nf + f) * 4u + (unsigned)i] = v[i] / len;
            float y = mt == 0 ? 0.0f : mt == 1 ? 1.5f : amp * ((f / 3u) % 2u ? 1.0f : 0.2f) * (float)f;
            tr[(b * nf + f) * 3u + 0] = 0.5f * (float)b + y;
            tr[(b * nf + f) * 3u + 1] = -y * 0.25f;
            tr[(b * nf + f) * 3u + 2] = y * y * 0.01f;
            float z = ms == 0 ? 1.0f : ms == 1 ? 1.25f : 1.0f + 0.01f * (float)(f % 9u) * amp;
            sc[(b * nf + f) * 3u + 0] = z;
            sc[(b * nf + f) * 3u + 1] = 1.0f;
            sc[(b * nf + f) * 3u + 2] = 2.0f - z;
        }
    }
    ganim_skeleton sk = { .name = "rig", .bone_count = nb, .bones = bones };
    ganim_clip clip = { .name = "clip", .kind = GANIM_CLIP_ANIMATION, .fps = 30.0f, .frame_count = nf };
    ok = ok && ganim_doc_set_skeleton(doc, &sk, NULL) == GANIM_OK &&
         ganim_doc_add_clip(doc, &clip, &ci, NULL) == GANIM_OK;
    for (uint32_t b = 0; b < nb && ok; b++) {
        ganim_track tk = { .bone = b, .name = names[b] };
        tk.rotation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, nf, NULL, q + 4u * b * nf };
        tk.translation = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, nf, NULL, tr + 3u * b * nf };
        if (scale) tk.scale = (ganim_channel){ GANIM_CHANNEL_PER_FRAME, nf, NULL, sc + 3u * b * nf };
        ok = ganim_doc_add_track(doc, ci, &tk, NULL, NULL) == GANIM_OK;
    }
    ganim_buffer buf = { 0 };
    ganim_setting set[2] = { { "acl.version", version }, { "acl.precision", precision } };
    ganim_write_opts wo = { .settings = set, .setting_count = 2 };
    ganim_error e = { 0 };
    if (ok && ganim_write(doc, "acl", &wo, &buf, &e) == GANIM_OK) {
        out = malloc(buf.size);
        if (out) memcpy(out, buf.data, buf.size);
        *size = buf.size;
    } else if (ok) {
        test_fail(__FILE__, __LINE__, "cannot encode %u bones x %u frames: %s", (unsigned)nb, (unsigned)nf, e.message);
    }
    ganim_buffer_free(&buf);
    free(bones);
    free(names);
done:
    ganim_doc_free(doc);
    free(q);
    free(tr);
    free(sc);
    return out;
}

/* build_groups_fast (a kind stored one way cut into runs of four without the lane scan,
 * each group's ranges written by transposes) against build_groups (ACL_OPEN_GENERAL) by
 * groups_agree:
 * clips of 1-4 frames (one short segment: the groups the whole-clip decode uses) and of
 * 17-90 frames (several segments, widths 0 and raw beside variable ones: kinds stored
 * several ways) from ganim's writer, 1-40 bones, with and without scale, versions 7 and
 * 10, three precisions; every .acl and .civ (V1 body) of the test data and tests/data/acl
 * whole, cut at 24 lengths and with 40 single bytes of their segment data changed. */
TEST(groups_match_the_general_build)
{
    grp_tally t = { 0, 0, 0, 0, 0, 0, 0 };
    uint32_t seed = 0x5EED6A7Bu;
    static const char *prec[3] = { "0.01", "0.0001", "0.0000001" };
    for (int i = 0; i < 72; i++) {
        uint32_t nb = 1u + xorshift32(&seed) % 40u, nf = i % 3 ? 1u + (uint32_t)i % 4u : 17u + xorshift32(&seed) % 74u;
        size_t size = 0;
        char what[96];
        snprintf(what, sizeof what, "built clip %d (%u bones, %u frames)", i, (unsigned)nb, (unsigned)nf);
        uint8_t *b = groups_clip(&seed, nb, nf, i % 2, i % 5 == 4 ? "7" : "10", prec[(i / 2) % 3], &size);
        if (b) groups_agree(b, size, what, &t);
        free(b);
    }
    char **lists[3] = { test_list_dir(test_path("acl", ""), ".acl"), test_list_dir(test_path("acl", ""), ".civ"),
                        test_list_dir(GANIM_SOURCE_DIR "/tests/data/acl", ".acl") };
    int files = 0;
    for (int l = 0; l < 3; l++)
        for (char **p = lists[l]; p && *p; p++) {
            size_t size, off = l == 1 ? 0x60 : 0;
            uint8_t *data = test_read_file(*p, &size);
            if (!data || size <= off) {
                free(data);
                continue;
            }
            files++;
            const uint8_t *b = data + off;
            size_t n = size - off;
            groups_agree(b, n, *p, &t);
            for (int c = 1; c <= 24; c++) groups_agree(b, n * (size_t)c / 25u, *p, &t);
            uint8_t *d = malloc(n);
            for (int c = 0; d && c < 40; c++) {
                memcpy(d, b, n);
                size_t at = n > 0x60 ? 0x40 + xorshift32(&seed) % (n - 0x40) : xorshift32(&seed) % n;
                d[at] = (uint8_t)(d[at] ^ (1u << (xorshift32(&seed) % 8u)));
                groups_agree(d, n, *p, &t);
            }
            free(d);
            free(data);
        }
    for (int l = 0; l < 3; l++) test_free_list(lists[l]);
    CHECK(files >= 30);
    CHECK_MSG(t.bad == 0, "fast and general opens differ %d times", t.bad);
    CHECK(t.opened > 400 && t.refused > 400);
    CHECK(t.groups > 1000 && t.one_way > 200 && t.several_ways > 20 && t.short_segs > 100);
    printf("    groups_match_the_general_build: %zu opens compared, %zu refused alike, %zu groups, kinds stored one "
           "way %zu / several ways %zu, %zu short segments\n",
           t.opened, t.refused, t.groups, t.one_way, t.several_ways, t.short_segs);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-multiseg") == 0) return write_multiseg(argv[2]);
    RUN(segments_grouped_differently_match_acl); /* first: needs only tests/data */
    RUN(reads_in_a_row_keep_their_memory);
    RUN(in_range_equals_the_three_tests);
    RUN(width_reciprocals_equal_the_division);
    RUN(groups_match_the_general_build);
    RUN(absurd_sample_rates_are_refused);
    RUN(rest_pose_is_frame_zero_without_bind_pose);
    RUN(acl_buffers_match_acl);
    RUN(civ7_v1_matches_acl);
    RUN(civ7_v0_holds_the_input);
    RUN(civ7_v0_write_read_round_trip);
    RUN(civ7_v0_transposition_equals_the_bone_order);
    RUN(metadata_builds_the_skeleton);
    RUN(database_buffers_are_refused);
    RUN(whole_clip_equals_random_access_bitwise);
    RUN(decode_clip_equals_sample_key_and_read_bitwise);
    RUN(open_clip_equals_open_bitwise);
    RUN(static_clips_match_the_general_path);
    RUN(static_runs_match_the_loop_every_word);
    RUN(type_table_counts_equal_track_by_track);
#if defined(__SSE2__)
    RUN(const_rot4_equals_the_scalar_path);
    RUN(const_rot8_equals_two_rot4_and_the_scalar_path);
#endif
    RUN(bad_constants_are_named_in_track_order);
    RUN(constant_translations_and_scales_checked_at_once);
    RUN(bad_clip_ranges_are_named_first);
    RUN(native_record_holds_the_header);
    RUN(stripped_bits_past_the_segment_are_ignored);
    RUN(var_run4_equals_the_scalar_path);
    RUN(raw_rot4_equals_the_scalar_path);
    RUN(hash_check_takes_every_byte_once);
    RUN(wide_fnv_equals_the_chain);
    RUN(random_access_equals_scalar_path_bitwise);
    RUN(sample_count_limits_are_checked_on_the_header);
    RUN(civ7_v1_cut_in_the_acl_header_is_truncated);
    RUN(hostile_acl_buffers);
    RUN(hostile_civ7_files);
    return test_finish();
}
