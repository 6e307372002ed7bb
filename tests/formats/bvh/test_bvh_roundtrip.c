/* ganim's BVH export read back, over every real sample and fixture of every format, every
 * animation clip: game file -> BVH -> read (with bvh.axes set to the file's axes) gives
 * the skeleton (hierarchy, names where the exporter kept them, the offsets of joints
 * without position channels exactly), the clip's rate and frame count, and at every frame
 * every bone's rotation and translation (position channels wherever it differs from the
 * rest offset) within the text's precision (the exporter prints float32 values:
 * 2e-6 of the value's size here). Twice: the default export (root positions, per-joint
 * rotation orders) and one with bvh_order XYZ and joint positions. */
#include <stdlib.h>

#include "formats/bvh/bvh.h"
#include "test.h"

static int near(const float *a, const float *b, int n, int quat, double rel)
{
    double size = 1;
    for (int i = 0; i < n; i++) size = fmax(size, fabs((double)a[i]));
    double tol = rel * size, d1 = 0, d2 = 0;
    for (int i = 0; i < n; i++) {
        d1 = fmax(d1, fabs((double)a[i] - b[i]));
        d2 = fmax(d2, fabs((double)a[i] + b[i]));
    }
    return d1 <= tol || (quat && d2 <= tol);
}

/* The names the exporter writes (docs/dump-format.md): [A-Za-z0-9_-], others '_'; empty:
 * bone_<i>; a name already given: <name>_<i>, then <name>_<i>_<k>. */
static char **export_names(const ganim_skeleton *sk)
{
    char **n = calloc(sk->bone_count + 1, sizeof *n);
    for (uint32_t i = 0; i < sk->bone_count; i++) {
        const char *src = sk->bones[i].name;
        size_t len = strlen(src);
        char *s = malloc(len + 64);
        for (size_t k = 0; k < len; k++) {
            char c = src[k];
            s[k] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'
                       ? c
                       : '_';
        }
        s[len] = 0;
        if (!len) snprintf(s, 64, "bone_%u", i);
        len = strlen(s);
        for (uint32_t k = 0, taken = 1; taken; k++) {
            taken = 0;
            for (uint32_t j = 0; j < i && !taken; j++) taken = !strcmp(n[j], s);
            if (taken) snprintf(s + len, 40, k ? "_%u_%u" : "_%u", i, k);
        }
        n[i] = s;
    }
    return n;
}

static const ganim_track *track_of(const ganim_clip *c, uint32_t bone)
{
    for (uint32_t i = 0; i < c->track_count; i++)
        if (c->tracks[i].bone == bone) return &c->tracks[i];
    return NULL;
}

static long long samples_compared;
static int clips_done;

static void compare(const ganim_doc *a, const ganim_clip *ca, const ganim_doc *b, int joint_positions,
                    const char *label)
{
    const ganim_clip *pp = ca->partner ? &a->clips[ca->partner - 1] : NULL;
    if (pp && pp->fps != ca->fps) pp = NULL;
    uint32_t frames = pp && pp->frame_count > ca->frame_count ? pp->frame_count : ca->frame_count;
    const ganim_skeleton *sa = a->skeleton, *sb = b->skeleton;
    CHECK_MSG(b->axes == a->axes, "%s: axes %s read back as %s", label, ganim_axes_name(a->axes),
              ganim_axes_name(b->axes));
    CHECK_MSG(sb && sb->bone_count == sa->bone_count, "%s: %u bones read back as %u", label, sa->bone_count,
              sb ? sb->bone_count : 0);
    if (!sb || sb->bone_count != sa->bone_count) return;
    /* BVH nests children inside their parent: the joints come in depth-first order, which
     * need not be the model's; bones are matched by the names the exporter wrote */
    char **names = export_names(sa);
    uint32_t *map = malloc(sa->bone_count * sizeof *map);
    for (uint32_t i = 0; i < sa->bone_count; i++) {
        map[i] = UINT32_MAX;
        for (uint32_t j = 0; j < sb->bone_count; j++)
            if (!strcmp(names[i], sb->bones[j].name)) map[i] = j;
        CHECK_MSG(map[i] != UINT32_MAX, "%s: bone %u ('%s') is not in the BVH", label, i, names[i]);
    }
    for (uint32_t i = 0; i < sa->bone_count; i++) free(names[i]);
    free(names);
    for (uint32_t i = 0; i < sa->bone_count; i++) {
        if (map[i] == UINT32_MAX) goto out;
        const ganim_bone *x = &sa->bones[i], *y = &sb->bones[map[i]];
        int32_t parent = x->parent < 0 ? -1 : (int32_t)map[x->parent];
        CHECK_MSG(parent == y->parent, "%s: bone %u: parent %d read back as %d", label, i, parent, y->parent);
        /* a joint without position channels holds its rest translation in every frame */
        const ganim_track *tb = b->clip_count ? track_of(&b->clips[0], map[i]) : NULL;
        if (x->parent >= 0 && !(tb && tb->translation.kind != GANIM_CHANNEL_ABSENT))
            CHECK_MSG(!memcmp(&x->rest.translation, &y->rest.translation, sizeof x->rest.translation),
                      "%s: bone %u ('%s'): OFFSET is not the rest translation", label, i, x->name);
    }
    CHECK_MSG(b->clip_count == 1, "%s: %u clips read back", label, b->clip_count);
    if (b->clip_count != 1) goto out;
    const ganim_clip *cb = &b->clips[0];
    CHECK_MSG(fabs(cb->fps - ca->fps) <= 1e-7 * ca->fps && cb->frame_count == frames,
              "%s: %.17g fps, %u frames read back as %.17g fps, %u frames", label, ca->fps, frames, cb->fps,
              cb->frame_count);
    if (cb->frame_count != frames) goto out;
    ganim_transform *pa = malloc(sa->bone_count * sizeof *pa), *pb = malloc(sa->bone_count * sizeof *pb);
    ganim_transform *pw = malloc(sa->bone_count * sizeof *pw);
    int bad = 0;
    for (uint32_t f = 0; f < frames && bad < 3; f++) {
        /* each clip at frame f, or its last frame when it is the shorter one */
        CHECK_OK(ganim_clip_sample(ca, sa, fmin(f, ca->frame_count - 1.0) / ca->fps, pa, NULL, NULL));
        if (pp) {
            CHECK_OK(ganim_clip_sample(pp, sa, fmin(f, pp->frame_count - 1.0) / pp->fps, pw, NULL, NULL));
            for (uint32_t i = 0; i < sa->bone_count; i++)
                if (!track_of(ca, i) && track_of(pp, i)) pa[i] = pw[i];
        }
        CHECK_OK(ganim_clip_sample(cb, sb, f / cb->fps, pb, NULL, NULL));
        for (uint32_t i = 0; i < sa->bone_count && bad < 3; i++) {
            float q[4] = { pa[i].rotation.x, pa[i].rotation.y, pa[i].rotation.z, pa[i].rotation.w };
            double l = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
            for (int k = 0; k < 4; k++) q[k] = (float)(q[k] / l);
            /* every translation: position channels where it differs from the rest offset */
            int carried = 1;
            /* a forced order at its gimbal lock: the outer angles are ill-conditioned and the
             * exporter's decomposition of a float32 rotation keeps only about 1e-4 */
            double e[3], tol = 2e-6;
            ganim_quat qq = { q[0], q[1], q[2], q[3] };
            ganim_quat_to_euler(qq, GANIM_EULER_XYZ, e);
            if (joint_positions && fabs(fabs(e[1]) - 1.5707963267948966) < 0.02) tol = 2e-3;
            const ganim_transform *tb = &pb[map[i]];
            int rot_ok = near(q, &tb->rotation.x, 4, 1, tol);
            int tr_ok = !carried || near(&pa[i].translation.x, &tb->translation.x, 3, 0, 2e-6);
            if (!rot_ok || !tr_ok) {
                CHECK_MSG(0,
                          "%s: frame %u bone %u ('%s'): (%g %g %g %g | %g %g %g) read back as (%g %g %g %g | %g %g %g)",
                          label, f, i, sa->bones[i].name, q[0], q[1], q[2], q[3], pa[i].translation.x,
                          pa[i].translation.y, pa[i].translation.z, tb->rotation.x, tb->rotation.y, tb->rotation.z,
                          tb->rotation.w, tb->translation.x, tb->translation.y, tb->translation.z);
                bad++;
            }
            samples_compared++;
        }
    }
    free(pa);
    free(pb);
    free(pw);
    clips_done++;
out:
    free(map);
}

/* The reader's rotations (the fast sine and cosine where it shows they give libm's floats)
 * against a second read that takes libm's path for every rotation: the same bits. */
static long long rotations_vs_libm;
static void same_as_libm(const ganim_doc *b, const void *data, size_t size, const ganim_read_opts *ro,
                         const char *label)
{
    ganim_doc *c = NULL;
    ganim_error e = { 0 };
    bvh_set_libm_only(1);
    ganim_code code = ganim_read_memory(data, size, ro, &c, &e);
    bvh_set_libm_only(0);
    CHECK_MSG(code == GANIM_OK, "%s: the BVH does not read on libm's path: %s", label, e.message);
    if (!c) return;
    CHECK(c->clip_count == b->clip_count);
    for (uint32_t k = 0; k < b->clip_count && k < c->clip_count; k++) {
        const ganim_clip *x = &b->clips[k], *y = &c->clips[k];
        CHECK(x->track_count == y->track_count);
        for (uint32_t t = 0; t < x->track_count && t < y->track_count; t++) {
            const ganim_channel *p = &x->tracks[t].rotation, *q = &y->tracks[t].rotation;
            int same = p->kind == q->kind && p->count == q->count &&
                       (!p->count || !memcmp(p->values, q->values, (size_t)p->count * 4 * sizeof(float)));
            CHECK_MSG(same, "%s: track %u's rotations differ from libm's path's", label, t);
            rotations_vs_libm += p->count;
        }
    }
    ganim_doc_free(c);
}

static void roundtrip(const char *path)
{
    ganim_doc *a = NULL;
    ganim_error e = { 0 };
    if (ganim_read_file(path, NULL, &a, &e) != GANIM_OK) {
        CHECK_MSG(0, "%s does not read: %s", path, e.message);
        return;
    }
    if (!a->skeleton || !a->skeleton->bone_count) {
        ganim_doc_free(a);
        return;
    }
    static const char *const axes[3] = { "y-up", "z-up", "y-down" };
    ganim_setting s = { "bvh.axes", axes[a->axes] };
    ganim_read_opts ro = { 0 };
    ro.settings = &s;
    ro.setting_count = 1;
    for (uint32_t ci = 0; ci < a->clip_count; ci++) {
        if (a->clips[ci].kind != GANIM_CLIP_ANIMATION) continue;
        for (int variant = 0; variant < 2; variant++) {
            ganim_export_opts eo = { 0 };
            eo.only_clip = ci + 1;
            if (variant) {
                eo.bvh_order = "XYZ";
                eo.bvh_joint_positions = 1;
            }
            char label[600];
            snprintf(label, sizeof label, "%s clip %u%s", test_base_name(path), ci,
                     variant ? " (XYZ, joint positions)" : "");
            ganim_buffer out = { 0 };
            if (ganim_export_bvh(a, &eo, &out, &e) != GANIM_OK) {
                CHECK_MSG(0, "%s: does not export: %s", label, e.message);
                ganim_buffer_free(&out);
                continue;
            }
            ganim_doc *b = NULL;
            CHECK_MSG(ganim_read_memory(out.data, out.size, &ro, &b, &e) == GANIM_OK, "%s: the BVH does not read: %s",
                      label, e.message);
            if (b) {
                CHECK_EQ_STR(b->format->name, "bvh");
                compare(a, &a->clips[ci], b, variant, label);
                same_as_libm(b, out.data, out.size, &ro, label);
                ganim_doc_free(b);
            }
            ganim_buffer_free(&out);
        }
    }
    ganim_doc_free(a);
}

TEST(every_clip_of_every_file)
{
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_READ) || (all[i]->flags & GANIM_FORMAT_COMPANION)) continue;
        char **files = test_format_files(all[i], TEST_SAMPLES | TEST_FIXTURES);
        for (char **p = files; p && *p; p++) roundtrip(*p);
        test_free_list(files);
    }
    printf("BVH round trips: %d clips, %lld bone samples compared; %lld rotation values the same bits as libm's path's "
           "(fast path %s)\n",
           clips_done, samples_compared, rotations_vs_libm, bvh_has_fast_rotation() ? "on" : "not here");
    CHECK(clips_done > 0);
}

/* Civilization VII -> BVH -> Civ VII V0: every .civ sample exported to BVH, read with its own
 * skeleton (joints matched by name) and written as V0. Every bone's local rotation comes back
 * within float32 rounding at every frame (BVH's float text, Euler angles in double), and every
 * translation the same way; a skeleton with scale loses the scale only, and the exporter says
 * so. */
static int scale_warnings;
static void on_warn(void *user, const ganim_warning *w)
{
    (void)user;
    if (strstr(w->message, "BVH holds no scale")) scale_warnings++;
}

static int has_scale(const ganim_doc *d)
{
    ganim_transform *p = malloc(d->skeleton->bone_count * sizeof *p);
    int any = 0;
    for (uint32_t f = 0; f < d->clips[0].frame_count && !any; f++) {
        ganim_clip_sample(&d->clips[0], d->skeleton, f / d->clips[0].fps, p, NULL, NULL);
        for (uint32_t i = 0; i < d->skeleton->bone_count; i++)
            any |= fabs(p[i].scale.x - 1) > 1e-6 || fabs(p[i].scale.y - 1) > 1e-6 || fabs(p[i].scale.z - 1) > 1e-6;
    }
    free(p);
    return any;
}

TEST(civ7_bvh_v0)
{
    const char *dir = test_testdata_optional();
    if (!dir) return;
    const ganim_format *civ = ganim_format_find("civ7");
    char **files = test_format_files(civ, TEST_SAMPLES);
    int files_n = 0, within = 0, scaled = 0;
    size_t rot_values = 0, rot_exact = 0;
    double worst_rot = 0, worst_tr = 0;
    for (char **p = files; p && *p; p++) {
        ganim_doc *a = NULL, *mid = NULL, *back = NULL;
        ganim_error e = { 0 };
        if (ganim_read_file(*p, NULL, &a, &e) != GANIM_OK || !a->clip_count) {
            ganim_doc_free(a);
            continue;
        }
        files_n++;
        ganim_export_opts eo = { 0 };
        eo.warn = on_warn;
        scale_warnings = 0;
        ganim_buffer text = { 0 }, v0 = { 0 };
        CHECK(ganim_export_bvh(a, &eo, &text, &e) == GANIM_OK);
        int scale = has_scale(a);
        scaled += scale;
        CHECK_MSG(scale == (scale_warnings > 0), "%s: scale %d, warned %d", test_base_name(*p), scale, scale_warnings);
        ganim_read_opts ro = { 0 };
        ro.skeleton = a->skeleton; /* the file's own bone order (V0 keeps no names) */
        ro.skeleton_must_fit = 1;
        ro.format = "bvh";
        CHECK_MSG(ganim_read_memory(text.data, text.size, &ro, &mid, &e) == GANIM_OK, "%s: %s", test_base_name(*p),
                  e.message);
        CHECK_MSG(mid && ganim_write(mid, "civ7", NULL, &v0, &e) == GANIM_OK, "%s: %s", test_base_name(*p), e.message);
        if (v0.data) CHECK(ganim_read_memory(v0.data, v0.size, NULL, &back, &e) == GANIM_OK);
        if (back) {
            const ganim_skeleton *sa = a->skeleton, *sb = back->skeleton;
            CHECK_EQ_INT(sb->bone_count, sa->bone_count);
            uint32_t nb = sa->bone_count < sb->bone_count ? sa->bone_count : sb->bone_count;
            ganim_transform *pa = malloc(sa->bone_count * sizeof *pa), *pb = malloc(sb->bone_count * sizeof *pb);
            double wr = 0, wt = 0;
            for (uint32_t f = 0; f < a->clips[0].frame_count; f++) {
                ganim_clip_sample(&a->clips[0], sa, f / a->clips[0].fps, pa, NULL, NULL);
                ganim_clip_sample(&back->clips[0], sb, f / back->clips[0].fps, pb, NULL, NULL);
                for (uint32_t i = 0; i < nb; i++) {
                    uint32_t j = i;
                    float q[4] = { pa[i].rotation.x, pa[i].rotation.y, pa[i].rotation.z, pa[i].rotation.w };
                    double l =
                        sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]);
                    for (int k = 0; k < 4; k++) q[k] = (float)(q[k] / l);
                    const float *r = &pb[j].rotation.x;
                    double dp = 0, dm = 0, dt = 0, size = 1;
                    for (int k = 0; k < 4; k++) dp = fmax(dp, fabs(q[k] - r[k])), dm = fmax(dm, fabs(q[k] + r[k]));
                    const float *t = &pa[i].translation.x, *u = &pb[j].translation.x;
                    for (int k = 0; k < 3; k++) dt = fmax(dt, fabs(t[k] - u[k])), size = fmax(size, fabs(t[k]));
                    wr = fmax(wr, fmin(dp, dm));
                    rot_values++;
                    rot_exact += dp == 0 || dm == 0;
                    wt = fmax(wt, dt / size);
                }
            }
            free(pa);
            free(pb);
            /* float32 rounding: rotations within a few float steps (4 * 2^-24) of the
             * normalised original (the angles are written as float32: the double Euler
             * angles differ in their last bits between libms, so their digits would not be
             * the same bytes on every system), translations the same floats */
            int ok = wr <= 4.0 / 16777216 && wt == 0;
            CHECK_MSG(ok, "%s: rotations %.3g, translations %.3g (relative) beyond float32 rounding",
                      test_base_name(*p), wr, wt);
            within += ok;
            worst_rot = fmax(worst_rot, wr), worst_tr = fmax(worst_tr, wt);
        }
        ganim_buffer_free(&text);
        ganim_buffer_free(&v0);
        ganim_doc_free(back);
        ganim_doc_free(mid);
        ganim_doc_free(a);
    }
    printf("Civ VII -> BVH -> V0: %d of %d within float32 rounding (worst rotation %.3g, translation %.3g; %zu of %zu "
           "rotations the same floats); %d with scale, warned\n",
           within, files_n, worst_rot, worst_tr, rot_exact, rot_values, scaled);
    test_free_list(files);
}

int main(void)
{
    test_program_name = "test_bvh_roundtrip";
    RUN(every_clip_of_every_file);
    RUN(civ7_bvh_v0);
    return test_finish();
}
