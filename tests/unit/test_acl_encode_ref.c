/* The ACL encoder against itself as it was at e0c9a69 (tests/unit/ref_acl_encode_e0c9a69.h,
 * the old acl_encode.c and acl_encode_rate.c verbatim): the same return code and the same
 * bytes, for random documents made to reach every part of the search: random hierarchies
 * (1-300 bones, chains up to ~40 deep, several roots, every bone a root: the unknown
 * hierarchy's bound), 1-300 frames (one segment, several, a loop whose last frame repeats
 * the first), default, constant and animated sub-tracks, smooth and jumping rotations, near
 * identity, tiny and huge translations (past the metric's resolution: exact chains),
 * uniform, non-uniform, small and negative scales, and the encoder's settings (both
 * versions, every level, precisions and shells from 1e-5 to 10, the formats a civ7 body may
 * carry). 400 documents (2,000 with GANIM_FULL=1 or CI=true), then every shared sample that
 * reads into a document with an animation. */
#include <stdlib.h>

#include "ref_acl_encode_e0c9a69.h"
#include "support/tbuild.h"
#include "test.h"

#define TRAND_SEED 0x2545f4914f6cdd1du
#include "support/trand.h"

static void quat_of(double ax, double ay, double az, float q[4])
{
    ganim_quat r = ganim_quat_from_euler((const double[3]){ ax, ay, az }, (ganim_euler_order)rnd_below(6));
    q[0] = r.x, q[1] = r.y, q[2] = r.z, q[3] = r.w;
}

/* A run of rotations: smooth, near identity, random, or constant, with now and then a jump. */
static void rot_run(float *r, uint32_t frames)
{
    uint32_t kind = rnd_below(5);
    double a[3] = { rnd_sym(3.1), rnd_sym(3.1), rnd_sym(3.1) }, v[3] = { rnd_sym(0.2), rnd_sym(0.2), rnd_sym(0.2) };
    double amp = kind == 1 ? 1e-3 * rnd_unit() : kind == 2 ? 1e-6 : 1.0;
    for (uint32_t f = 0; f < frames; f++) {
        if (kind == 3 || (rnd_below(40) == 0 && kind != 4)) {
            quat_of(rnd_sym(3.1), rnd_sym(3.1), rnd_sym(3.1), r + f * 4);
            continue;
        }
        if (kind != 4)
            for (int i = 0; i < 3; i++) a[i] += v[i] * amp;
        quat_of(kind == 1 || kind == 2 ? a[0] * amp : a[0], kind == 1 || kind == 2 ? a[1] * amp : a[1],
                kind == 1 || kind == 2 ? a[2] * amp : a[2], r + f * 4);
    }
}

static float rnd_size(void)
{
    static const float sizes[] = { 0.0f, 1e-6f, 1e-3f, 0.1f, 1.0f, 10.0f, 100.0f, 1e4f, 1e6f, 3e16f };
    uint32_t i = rnd_below(64) == 0 ? 9u : rnd_below(9);
    return sizes[i];
}

static void vec_run(float *p, uint32_t frames, float size, int smooth)
{
    float at[3] = { (float)rnd_sym(size), (float)rnd_sym(size), (float)rnd_sym(size) };
    for (uint32_t f = 0; f < frames; f++) {
        for (unsigned i = 0; i < 3; i++) {
            if (smooth) at[i] += (float)rnd_sym(size * 0.05);
            else at[i] = (float)rnd_sym(size);
            p[f * 3 + i] = at[i];
        }
    }
}

static void scale_run(float *p, uint32_t frames)
{
    uint32_t kind = rnd_below(5);
    float base = kind == 0 ? 1.0f : kind == 1 ? 0.5f : kind == 2 ? 2.0f : (float)(0.2 + rnd_unit() * 3);
    for (uint32_t f = 0; f < frames; f++)
        for (unsigned i = 0; i < 3; i++) {
            float v = base;
            if (kind >= 3) v += (float)rnd_sym(0.1) * (float)(i + 1); /* non-uniform, animated */
            if (kind == 4 && i == 1 && rnd_below(8) == 0) v = -v;
            p[f * 3 + i] = v;
        }
}

/* The values of one channel: per frame, constant or keyed. */
static void channel(ganim_doc *doc, uint32_t track, ganim_channel_target target, uint32_t frames, const float *v,
                    unsigned comps)
{
    uint32_t k = rnd_below(8);
    if (k == 0) {
        tb_channel(doc, 0, track, target, GANIM_CHANNEL_CONSTANT, 1, NULL, v);
    } else if (k == 1 && frames > 2) {
        uint32_t keys = 2 + rnd_below(frames - 1);
        float times[300];
        for (uint32_t i = 0; i < keys; i++) times[i] = (float)i * (float)(frames - 1) / (float)(keys - 1);
        tb_channel(doc, 0, track, target, GANIM_CHANNEL_KEYED, keys, times, v);
    } else {
        (void)comps;
        tb_channel(doc, 0, track, target, GANIM_CHANNEL_PER_FRAME, frames, NULL, v);
    }
}

static ganim_doc *rnd_doc(int big)
{
    uint32_t n = big ? 1 + rnd_below(300) : 1 + rnd_below(rnd_below(4) ? 24 : 64);
    uint32_t frames = big ? 1 + rnd_below(300) : 1 + rnd_below(rnd_below(3) ? 40 : 120);
    ganim_doc *doc = tb_doc(n, NULL);
    ganim_bone *b = doc->skeleton->bones;
    uint32_t shape = rnd_below(6); /* random tree, chain, binary tree, bushes, all roots, two roots */
    for (uint32_t i = 0; i < n; i++) {
        int32_t p = -1;
        if (i > 0) switch (shape) {
            case 0: p = (int32_t)rnd_below(i); break;
            case 1: p = (int32_t)(i - 1u); break;
            case 2: p = (int32_t)((i - 1u) / 2u); break;
            case 3: p = (int32_t)(i > 3 ? i - 1u - rnd_below(i < 4 ? i : 4) : i - 1u); break;
            case 4: p = -1; break;
            default: p = i == 1 ? -1 : (int32_t)rnd_below(i); break;
            }
        b[i].parent = p;
        float size = rnd_size();
        b[i].rest.translation = (ganim_vec3){ (float)rnd_sym(size), (float)rnd_sym(size), (float)rnd_sym(size) };
        if (rnd_below(3) == 0) {
            float q[4];
            quat_of(rnd_sym(3), rnd_sym(3), rnd_sym(3), q);
            b[i].rest.rotation = (ganim_quat){ q[0], q[1], q[2], q[3] };
        }
    }
    static const double rates[] = { 30, 24, 60, 12.5, 15 };
    tb_clip(doc, "clip", rates[rnd_below(5)], frames);
    float *r = malloc((size_t)frames * 4 * sizeof(float)), *v = malloc((size_t)frames * 3 * sizeof(float));
    CHECK(r && v);
    int loop = rnd_below(4) == 0;
    for (uint32_t i = 0; i < n; i++) {
        if (rnd_below(5) == 0) continue; /* at rest: defaults or the rest pose's constants */
        uint32_t t = tb_track(doc, 0, i, NULL, NULL);
        if (rnd_below(6)) {
            rot_run(r, frames);
            if (loop && frames > 1) memcpy(r + (frames - 1) * 4, r, 4 * sizeof(float));
            channel(doc, t, GANIM_TARGET_ROTATION, frames, r, 4);
        }
        if (rnd_below(3)) {
            float size = rnd_size();
            vec_run(v, frames, size, (int)rnd_below(4));
            if (loop && frames > 1) memcpy(v + (frames - 1) * 3, v, 3 * sizeof(float));
            channel(doc, t, GANIM_TARGET_TRANSLATION, frames, v, 3);
        }
        if (rnd_below(5) == 0) {
            scale_run(v, frames);
            if (loop && frames > 1) memcpy(v + (frames - 1) * 3, v, 3 * sizeof(float));
            channel(doc, t, GANIM_TARGET_SCALE, frames, v, 3);
        }
    }
    free(r);
    free(v);
    return doc;
}

static void rnd_params(const ganim_doc *doc, acl_enc_params *p)
{
    ganim_error err;
    CHECK(acl_write_params(doc, NULL, p, &err) == GANIM_OK);
    static const float precs[] = { 0.01f, 0.01f, 0.001f, 1e-5f, 0.1f, 1.0f };
    static const float shells[] = { 3.0f, 3.0f, 1.0f, 0.01f, 10.0f };
    p->precision = precs[rnd_below(6)];
    p->shell = shells[rnd_below(5)];
    p->level = (int)rnd_below(4);
    if (rnd_below(3) == 0) p->version = 7;
    p->metadata = (int)rnd_below(2);
    if (rnd_below(5) == 0) { /* the formats a civ7 V1 body may name */
        static const uint8_t rot[3] = { 3, 2, 0 };
        p->fmt[K_ROT] = rot[rnd_below(3)];
        p->fmt[K_TRANS] = (uint8_t)rnd_below(2);
        p->fmt[K_SCALE] = (uint8_t)rnd_below(2);
    }
}

static uint32_t compared, bytes_total;

/* Both encoders on one document and settings: the same code and bytes. */
static void compare(const ganim_doc *doc, const acl_enc_params *p, const char *what)
{
    ganim_buffer a = { 0 }, b = { 0 };
    ganim_error ea, eb;
    memset(&ea, 0, sizeof ea);
    memset(&eb, 0, sizeof eb);
    ganim_code ra = acl_encode_doc(doc, p, NULL, &a, &ea), rb = ref_acl_encode_doc(doc, p, NULL, &b, &eb);
    if (ra != rb || a.size != b.size || (a.size && memcmp(a.data, b.data, a.size) != 0)) {
        size_t at = 0;
        while (at < a.size && at < b.size && a.data[at] == b.data[at]) at++;
        fprintf(stderr,
                "%s: code %d / %d, %zu / %zu bytes, first difference at %zu (version %u level %d prec %g shell %g fmt "
                "%u%u%u)\n",
                what, (int)ra, (int)rb, a.size, b.size, at, (unsigned)p->version, p->level, (double)p->precision,
                (double)p->shell, p->fmt[0], p->fmt[1], p->fmt[2]);
        CHECK(0);
    }
    compared++;
    bytes_total += (uint32_t)a.size;
    ganim_buffer_free(&a);
    ganim_buffer_free(&b);
}

static void test_random_documents(void)
{
    const char *full = getenv("GANIM_FULL"), *ci = getenv("CI");
    int many = (full && *full && strcmp(full, "0") != 0) || (ci && strcmp(ci, "true") == 0);
    uint32_t count = many ? 2000u : 400u;
    for (uint32_t i = 0; i < count; i++) {
        int big = i % 40u == 39u;
        ganim_doc *doc = rnd_doc(big);
        if (!ganim_doc_first_animation(doc)) {
            ganim_doc_free(doc);
            continue;
        }
        acl_enc_params p;
        rnd_params(doc, &p);
        char what[64];
        snprintf(what, sizeof what, "random document %u", i);
        compare(doc, &p, what);
        ganim_doc_free(doc);
    }
    CHECK(compared >= count * 9u / 10u);
    printf("  %u random documents, %u bytes of ACL each encoder\n", compared, bytes_total);
}

/* Every shared sample that reads into a document with an animation, at the writer's
 * defaults and at three other settings. */
static void test_samples(void)
{
    if (!test_testdata_optional()) {
        test_note_skip("test_acl_encode_ref: the shared samples");
        return;
    }
    size_t nf = 0;
    const ganim_format *const *all = ganim_formats(&nf);
    uint32_t before = compared;
    for (size_t i = 0; i < nf; i++) {
        char **list = test_format_files(all[i], TEST_SAMPLES);
        for (size_t j = 0; list && list[j]; j++) {
            ganim_doc *doc = NULL;
            ganim_error err;
            if (ganim_read_file(list[j], NULL, &doc, &err) != GANIM_OK) continue;
            if (ganim_doc_first_animation(doc) && doc->skeleton) {
                acl_enc_params p;
                CHECK(acl_write_params(doc, NULL, &p, &err) == GANIM_OK);
                compare(doc, &p, list[j]);
                for (int k = 0; k < 3; k++) {
                    acl_enc_params q = p;
                    q.level = k;
                    q.version = k == 1 ? 7 : 10;
                    q.precision = k == 2 ? 0.001f : 0.01f;
                    compare(doc, &q, list[j]);
                }
            }
            ganim_doc_free(doc);
        }
        test_free_list(list);
    }
    CHECK(compared - before >= 40u);
    printf("  %u sample encodings\n", compared - before);
}

int main(void)
{
    RUN(test_random_documents);
    RUN(test_samples);
    return test_finish();
}
