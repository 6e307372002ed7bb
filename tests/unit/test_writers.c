/* Writers are total: every document ganim reads, written in every writable format, either
 * reads back or is refused with a sentence.
 *
 * For every file of every readable format (the real samples, the project's fixtures, and
 * the hostile-but-readable files of <testdata>/hostile/), read as the tool reads it, and
 * for every writable format (from the registry): ganim_write either fails with a message
 * (and a code that says why: a limit, a value the format cannot hold, a document it cannot
 * take), or its bytes read back as that format (with the document's skeleton, as a user
 * gives --skeleton) into a valid document whose clips, frame for frame, agree with what
 * was written: every rotation within 3 degrees, every translation and scale within 0.51
 * plus 0.1 % of the value and of the clip's range on that axis. The bounds hold every
 * format's quantisation (FF7 angles in steps of up to 1.4 degrees and whole-unit
 * positions, Argonaut's 1/4096 and whole units, ALA's 65536 steps of a range); each
 * family's own tests check the exact precision on known answers. They catch what is not
 * quantisation: a wrong axis, sign, overflow or bone. A channel the format does not hold
 * (the read-back track has none) is not compared: the writer reports such losses. A
 * format whose files are in other axes than the document (Alamo's Z up, FF7's Y down) gets
 * the document turned to them: the written pose is turned the same way (root bones) before
 * it is compared. Writing the read-back document again must succeed too. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "test.h"

static long long writes, refused, compared_values, losses_reported;

static void on_write_warning(void *user, const ganim_warning *w)
{
    (void)user;
    (void)w;
    losses_reported++;
}

static double quat_angle_deg(const ganim_quat *a, const ganim_quat *b)
{
    double d = fabs((double)a->x * b->x + (double)a->y * b->y + (double)a->z * b->z + (double)a->w * b->w);
    if (d > 1) d = 1;
    return 2 * acos(d) * 180 / 3.14159265358979323846;
}

/* The track of `clip` for `bone`, or NULL. */
static const ganim_track *track_of(const ganim_clip *clip, uint32_t bone)
{
    for (uint32_t t = 0; t < clip->track_count; t++)
        if (clip->tracks[t].bone == bone) return &clip->tracks[t];
    return NULL;
}

static int close_vec(const ganim_vec3 *a, const ganim_vec3 *b, const double range[3])
{
    double x[3] = { a->x, a->y, a->z }, y[3] = { b->x, b->y, b->z };
    for (int k = 0; k < 3; k++)
        if (!(fabs(x[k] - y[k]) <= 0.51 + 1e-3 * (fabs(x[k]) + range[k]))) return 0;
    return 1;
}

/* World (model-space) transforms of a pose: a format without a hierarchy (Argonaut's
 * rigid groups) stores these. Rotation and translation only, in double; scales, which such
 * formats do not hold, are left out. */
static void world_pose(const ganim_skeleton *sk, ganim_transform *pose)
{
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        int32_t p = sk->bones[i].parent;
        if (p < 0) continue;
        const ganim_transform *w = &pose[p]; /* parents come first: already world */
        ganim_transform *l = &pose[i];
        ganim_quat q = w->rotation;
        /* t = w.t + rotate(w.q, w.s * l.t) */
        double v[3] = { (double)w->scale.x * l->translation.x, (double)w->scale.y * l->translation.y,
                        (double)w->scale.z * l->translation.z };
        double x = q.x, y = q.y, z = q.z, s = q.w;
        double tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
        double r[3] = { v[0] + s * tx + (y * tz - z * ty), v[1] + s * ty + (z * tx - x * tz),
                        v[2] + s * tz + (x * ty - y * tx) };
        l->translation.x = (float)(w->translation.x + r[0]);
        l->translation.y = (float)(w->translation.y + r[1]);
        l->translation.z = (float)(w->translation.z + r[2]);
        l->rotation = ganim_quat_mul(q, l->rotation);
        l->scale.x *= w->scale.x, l->scale.y *= w->scale.y, l->scale.z *= w->scale.z;
    }
}

static int same_hierarchy(const ganim_skeleton *a, const ganim_skeleton *b)
{
    if (a->bone_count != b->bone_count) return 0;
    for (uint32_t i = 0; i < a->bone_count; i++)
        if (a->bones[i].parent != b->bones[i].parent) return 0;
    return 1;
}

static int flat(const ganim_skeleton *s)
{
    for (uint32_t i = 0; i < s->bone_count; i++)
        if (s->bones[i].parent >= 0) return 0;
    return 1;
}

/* Clip `a` of the written document against clip `b` read back, frame by frame (each at
 * its own rate: a format that stores no rate reads back at its default). With the same
 * hierarchy, bone against bone; when the format read back has none (every bone a root),
 * the written bones' model-space transforms against it. */
/* The rotation that turns a document's axes into the axes a format wrote it in. */
static ganim_quat axes_turn(ganim_axes from, ganim_axes to)
{
    return ganim_quat_mul(ganim_quat_conj(ganim_axes_to_y_up(to)), ganim_axes_to_y_up(from));
}

static void turn_roots(const ganim_skeleton *sk, ganim_quat turn, ganim_transform *pose)
{
    if (turn.x == 0 && turn.y == 0 && turn.z == 0) return;
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        if (sk->bones[i].parent >= 0) continue;
        pose[i].rotation = ganim_quat_mul(turn, pose[i].rotation);
        pose[i].translation = ganim_quat_rotate(turn, pose[i].translation);
    }
}

static void sample_pose(const ganim_clip *c, const ganim_skeleton *sk, uint32_t f, int world, ganim_quat turn,
                        ganim_transform *pose, uint8_t *skewed)
{
    ganim_error e = { 0 };
    CHECK(ganim_clip_sample(c, sk, f / c->fps, pose, NULL, &e) == GANIM_OK);
    turn_roots(sk, turn, pose);
    if (!world) return;
    /* under a non-uniform scale the model-space transform is skewed, which no rotation
     * read back can hold: such bones are not compared */
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        int32_t p = sk->bones[i].parent;
        skewed[i] = p >= 0 && skewed[p];
        if (p >= 0 && !skewed[i]) {
            const ganim_vec3 *s = &pose[p].scale;
            double m = fmax(fabs(s->x), fmax(fabs(s->y), fabs(s->z)));
            skewed[i] = fabs(s->x - s->y) > 1e-4 * m || fabs(s->y - s->z) > 1e-4 * m;
        }
    }
    world_pose(sk, pose);
}

static void compare_clip(const char *what, const ganim_clip *a, const ganim_skeleton *sa, const ganim_clip *b,
                         const ganim_skeleton *sb, ganim_quat turn)
{
    CHECK_MSG(a->frame_count == b->frame_count, "%s: %u frames written, %u read back", what, a->frame_count,
              b->frame_count);
    if (a->frame_count != b->frame_count || !sa || !sb) return;
    int world = 0;
    if (!same_hierarchy(sa, sb)) {
        if (!flat(sb) || sb->bone_count > sa->bone_count) return; /* nothing bone for bone to compare */
        world = 1;
    }
    uint32_t nb = sa->bone_count;
    ganim_transform *pa = malloc(nb * sizeof *pa), *pb = malloc(sb->bone_count * sizeof *pb);
    uint8_t *skewed = calloc(nb, 1);
    double *lo = malloc(nb * 6 * sizeof *lo), *hi = malloc(nb * 6 * sizeof *hi),
           *range = malloc(nb * 6 * sizeof *range);
    /* each bone's range per axis of translation and scale, over the written clip */
    for (uint32_t f = 0; f < a->frame_count; f++) {
        sample_pose(a, sa, f, world, turn, pa, skewed);
        for (uint32_t i = 0; i < nb; i++) {
            const double v[6] = { pa[i].translation.x, pa[i].translation.y, pa[i].translation.z,
                                  pa[i].scale.x,       pa[i].scale.y,       pa[i].scale.z };
            for (int k = 0; k < 6; k++) {
                if (!f || v[k] < lo[i * 6 + k]) lo[i * 6 + k] = v[k];
                if (!f || v[k] > hi[i * 6 + k]) hi[i * 6 + k] = v[k];
            }
        }
    }
    for (size_t k = 0; k < (size_t)nb * 6; k++) range[k] = hi[k] - lo[k];
    int reported = 0;
    for (uint32_t f = 0; f < a->frame_count && !reported; f++) {
        sample_pose(a, sa, f, world, turn, pa, skewed);
        ganim_error e = { 0 };
        CHECK(ganim_clip_sample(b, sb, f / b->fps, pb, NULL, &e) == GANIM_OK);
        for (uint32_t t = 0; t < b->track_count && !reported; t++) {
            const ganim_track *tb = &b->tracks[t];
            uint32_t i = tb->bone;
            if (i >= nb || !track_of(a, i) || skewed[i]) continue;
            const ganim_transform *x = &pa[i], *y = &pb[i];
            if (tb->rotation.kind != GANIM_CHANNEL_ABSENT) {
                double deg = quat_angle_deg(&x->rotation, &y->rotation);
                compared_values++;
                if (!(deg <= 3.0)) {
                    CHECK_MSG(0, "%s: bone %u frame %u: rotation read back %.3f degrees away", what, i, f, deg);
                    reported = 1;
                }
            }
            if (tb->translation.kind != GANIM_CHANNEL_ABSENT) {
                compared_values++;
                if (!close_vec(&x->translation, &y->translation, range + (size_t)i * 6)) {
                    CHECK_MSG(0, "%s: bone %u frame %u: translation (%g %g %g) read back as (%g %g %g)", what, i, f,
                              x->translation.x, x->translation.y, x->translation.z, y->translation.x, y->translation.y,
                              y->translation.z);
                    reported = 1;
                }
            }
            if (tb->scale.kind != GANIM_CHANNEL_ABSENT && !world) {
                compared_values++;
                if (!close_vec(&x->scale, &y->scale, range + (size_t)i * 6 + 3)) {
                    CHECK_MSG(0, "%s: bone %u frame %u: scale (%g %g %g) read back as (%g %g %g)", what, i, f,
                              x->scale.x, x->scale.y, x->scale.z, y->scale.x, y->scale.y, y->scale.z);
                    reported = 1;
                }
            }
        }
    }
    free(pa), free(pb), free(skewed), free(lo), free(hi), free(range);
}

/* The k-th animation clip, or NULL. */
static const ganim_clip *animation(const ganim_doc *doc, uint32_t k)
{
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION && k-- == 0) return &doc->clips[i];
    return NULL;
}

static void write_and_read_back(const char *path, const ganim_doc *doc, const ganim_format *w)
{
    char what[700];
    snprintf(what, sizeof what, "%s -> %s", test_base_name(path), w->name);
    ganim_write_opts wo = { 0 };
    wo.warn = on_write_warning;
    ganim_buffer out = { 0 };
    ganim_error e = { 0 };
    writes++;
    ganim_code c = ganim_write(doc, w->name, &wo, &out, &e);
    if (c != GANIM_OK) {
        refused++;
        CHECK_MSG(e.message[0] != 0, "%s: refused without a message", what);
        CHECK_MSG(c == GANIM_ERR_LIMIT || c == GANIM_ERR_INVALID_ARG || c == GANIM_ERR_UNSUPPORTED ||
                      c == GANIM_ERR_MISMATCH,
                  "%s: refused with code %d (%s)", what, (int)c, e.message);
        ganim_buffer_free(&out);
        return;
    }
    ganim_read_opts ro = { 0 };
    ro.format = w->name;
    if (!(w->flags & GANIM_FORMAT_COMPANION)) ro.skeleton = doc->skeleton;
    ganim_doc *back = NULL;
    c = ganim_read_memory(out.data, out.size, &ro, &back, &e);
    CHECK_MSG(c == GANIM_OK, "%s: ganim wrote a file it cannot read back: %s", what, e.message);
    if (c == GANIM_OK) {
        const ganim_skeleton *sa = doc->skeleton, *sb = back->skeleton;
        if (w->flags & GANIM_FORMAT_COMPANION) { /* a skeleton: the rest poses */
            CHECK_MSG(sb && sa && sb->bone_count == sa->bone_count, "%s: %u bones written, %u read back", what,
                      sa ? sa->bone_count : 0, sb ? sb->bone_count : 0);
            ganim_quat turn = axes_turn(doc->axes, back->axes);
            for (uint32_t i = 0; sa && sb && i < sa->bone_count && i < sb->bone_count; i++) {
                double zero[3] = { 0, 0, 0 };
                ganim_transform r = sa->bones[i].rest;
                if (sa->bones[i].parent < 0)
                    turn_roots(&(ganim_skeleton){ "", 1, &sa->bones[i], NULL, NULL, 0 }, turn, &r);
                CHECK_MSG(quat_angle_deg(&r.rotation, &sb->bones[i].rest.rotation) <= 3.0 &&
                              close_vec(&r.translation, &sb->bones[i].rest.translation, zero),
                          "%s: bone %u's rest pose does not come back", what, i);
            }
        } else {
            for (uint32_t k = 0; animation(back, k); k++) {
                const ganim_clip *a = animation(doc, k);
                CHECK_MSG(a != NULL, "%s: animation %u read back was not written", what, k);
                if (!a) break;
                char cw[760];
                snprintf(cw, sizeof cw, "%s, animation %u", what, k);
                compare_clip(cw, a, sa, animation(back, k), sb, axes_turn(doc->axes, back->axes));
            }
        }
        /* and what was read back writes again */
        ganim_buffer again = { 0 };
        c = ganim_write(back, w->name, &wo, &again, &e);
        CHECK_MSG(c == GANIM_OK, "%s: the document read back does not write again: %s", what, e.message);
        ganim_buffer_free(&again);
        ganim_doc_free(back);
    }
    ganim_buffer_free(&out);
}

static void one_file(const char *path)
{
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    if (ganim_read_file(path, NULL, &doc, &e) != GANIM_OK) return; /* not this test's subject */
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++)
        if (all[i]->flags & GANIM_FORMAT_WRITE) write_and_read_back(path, doc, all[i]);
    ganim_doc_free(doc);
}

static const ganim_format *current;
static void sweep_format(void)
{
    for (int which = TEST_FIXTURES; which >= TEST_SAMPLES; which--) {
        if (which == TEST_SAMPLES && !test_testdata_optional()) continue;
        char **files = test_format_files(current, which);
        for (char **p = files; *p; p++) one_file(*p);
        test_free_list(files);
    }
}

TEST(hostile_but_readable)
{
    const char *data = test_testdata_optional();
    if (!data) return;
    char **files = test_list_dir(test_path("hostile", ""), "");
    for (char **p = files; *p; p++) {
        size_t n = strlen(*p);
        if (n > 3 && strcmp(*p + n - 3, ".md") == 0) continue;
        one_file(*p);
    }
    test_free_list(files);
}

int main(void)
{
    test_program_name = "test_writers";
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_READ)) continue;
        current = all[i];
        char name[96];
        snprintf(name, sizeof name, "every writer on %s files", all[i]->name);
        test_run(name, sweep_format);
    }
    RUN(hostile_but_readable);
    if (!test_testdata_optional()) test_note_skip("test_writers on the real samples (fixtures used)");
    printf("writers: %lld writes, %lld refused with a reason, %lld values compared, %lld losses reported\n", writes,
           refused, compared_values, losses_reported);
    return test_finish();
}
