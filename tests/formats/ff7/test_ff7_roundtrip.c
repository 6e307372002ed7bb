/* FF7 battle packs: decode -> encode -> decode gives the same raw values and the same
 * bytes for every pack (unchanged entries keep their streams, also those not coded with
 * the shortest codes, README: shortest_codes); pack -> glb -> pack likewise. */
#include "formats/ff7/ff7.h"
#include "io/bytes.h"
#include "roundtrip_check.h"
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

/* ---- through ganim's glb ---------------------------------------------------------------------- */

/* A glb with every `,"extras":{"ganim":...}` member removed: ganim's export as another tool
 * (Blender) gives it back, without ganim's extras. */
static int strip_ganim_extras(const ganim_buffer *in, ganim_buffer *out)
{
    memset(out, 0, sizeof *out);
    if (in->size < 20) return 0;
    const uint8_t *d = in->data;
    size_t jlen = (size_t)d[12] | (size_t)d[13] << 8 | (size_t)d[14] << 16 | (size_t)d[15] << 24;
    if (20 + jlen > in->size) return 0;
    const char *j = (const char *)d + 20;
    char *t = malloc(jlen + 4);
    size_t n = 0;
    static const char key[] = ",\"extras\":{\"ganim\":";
    for (size_t i = 0; i < jlen;) {
        if (i + sizeof key - 1 <= jlen && !memcmp(j + i, key, sizeof key - 1)) {
            size_t k = i + 10; /* the '{' of the extras object */
            int depth = 0, str = 0;
            for (; k < jlen; k++) {
                char c = j[k];
                if (str) {
                    if (c == '\\') k++;
                    else if (c == '"') str = 0;
                } else if (c == '"') {
                    str = 1;
                } else if (c == '{') {
                    depth++;
                } else if (c == '}' && --depth == 0) {
                    break;
                }
            }
            i = k + 1;
            continue;
        }
        t[n++] = j[i++];
    }
    while (n % 4) t[n++] = ' ';
    size_t rest = in->size - 20 - jlen, total = 20 + n + rest;
    out->data = malloc(total);
    out->size = out->capacity = total;
    uint8_t *o = out->data;
    memcpy(o, d, 20);
    for (int b = 0; b < 4; b++) {
        o[8 + b] = (uint8_t)(total >> (8 * b));
        o[12 + b] = (uint8_t)(n >> (8 * b));
    }
    memcpy(o + 20, t, n);
    memcpy(o + 20 + n, d + 20 + jlen, rest);
    free(t);
    return 1;
}

/* The glb with every `find` of its JSON replaced by `repl` (of the same length). */
static int glb_replace_all(const ganim_buffer *in, const char *find, const char *repl, ganim_buffer *out)
{
    size_t n = strlen(find);
    if (strlen(repl) != n || in->size < 20) return 0;
    out->data = malloc(in->size);
    out->size = out->capacity = in->size;
    memcpy(out->data, in->data, in->size);
    size_t jlen =
        (size_t)in->data[12] | (size_t)in->data[13] << 8 | (size_t)in->data[14] << 16 | (size_t)in->data[15] << 24;
    int found = 0;
    for (size_t i = 20; i + n <= 20 + jlen && i + n <= in->size; i++)
        if (!memcmp(out->data + i, find, n)) memcpy(out->data + i, repl, n), found = 1;
    return found;
}

typedef struct said {
    int count, made_up, split;
} said;

static void note_warning(void *user, const ganim_warning *w)
{
    said *s = user;
    s->count++;
    s->made_up += strstr(w->message, "no FF7 record") != NULL;
    s->split += strstr(w->message, "written as a body entry") != NULL;
}

/* The poses of two documents read from packs with the same skeleton: clip by clip, every
 * frame of every bone, positions exactly, rotations within `deg` degrees (a 12-bit step:
 * near gimbal lock the turn back from glTF's axes in float moves a triple by a step). */
static void same_poses(const ganim_doc *a, const ganim_doc *b, double deg, const char *label)
{
    CHECK_MSG(a->clip_count == b->clip_count, "%s: %u entries became %u", label, a->clip_count, b->clip_count);
    double worst = 0;
    for (uint32_t i = 0; i < a->clip_count && i < b->clip_count; i++) {
        const ganim_clip *x = &a->clips[i], *y = &b->clips[i];
        CHECK_MSG(x->kind == y->kind && !strcmp(x->name, y->name) && x->frame_count == y->frame_count,
                  "%s: entry %u '%s' (%u frames) became '%s' (%u frames)", label, i, x->name, x->frame_count, y->name,
                  y->frame_count);
        if (x->kind != GANIM_CLIP_ANIMATION || x->frame_count != y->frame_count) continue;
        for (uint32_t bone = 0; bone < a->skeleton->bone_count; bone++) {
            const ganim_bone *r = &a->skeleton->bones[bone];
            const ganim_track *tx = NULL, *ty = NULL;
            for (uint32_t k = 0; k < x->track_count; k++)
                if (x->tracks[k].bone == bone) tx = &x->tracks[k];
            for (uint32_t k = 0; k < y->track_count; k++)
                if (y->tracks[k].bone == bone) ty = &y->tracks[k];
            CHECK_MSG(!tx == !ty, "%s: entry %u: bone %u animated in one pack only", label, i, bone);
            if (!tx || !ty) continue;
            for (uint32_t f = 0; f < x->frame_count; f++) {
                float qx[4], qy[4], px[3], py[3];
                ganim_channel_eval(&tx->rotation, x->frame_count, NULL, x->rotation_interp, 4, f, &r->rest.rotation.x,
                                   qx);
                ganim_channel_eval(&ty->rotation, y->frame_count, NULL, y->rotation_interp, 4, f, &r->rest.rotation.x,
                                   qy);
                ganim_channel_eval(&tx->translation, x->frame_count, NULL, x->rotation_interp, 3, f,
                                   &r->rest.translation.x, px);
                ganim_channel_eval(&ty->translation, y->frame_count, NULL, y->rotation_interp, 3, f,
                                   &r->rest.translation.x, py);
                double dot =
                    fabs((double)qx[0] * qy[0] + (double)qx[1] * qy[1] + (double)qx[2] * qy[2] + (double)qx[3] * qy[3]);
                double angle = dot >= 1 ? 0 : 2 * acos(dot) * 180 / 3.14159265358979323846;
                worst = fmax(worst, angle);
                CHECK_MSG(angle <= deg && !memcmp(px, py, sizeof px),
                          "%s: entry %u bone %u frame %u: %.4g degrees apart, position (%g %g %g) became (%g %g %g)",
                          label, i, bone, f, angle, px[0], px[1], px[2], py[0], py[1], py[2]);
            }
        }
    }
    printf("  %s: rotations within %.3g degrees\n", label, worst);
}

/* pack -> glb -> pack: with ganim's extras the same bytes (the native records, special
 * slots, the body+weapon animations split back into their entries); a glb without them
 * (as Blender gives it back) still gives a pack of the same entries, body and weapon
 * entries apart, the same positions and the same rotations to a 12-bit step (Euler
 * triples may be the other of the two equivalent ones), and says what it made up. */
TEST(pack_glb_pack)
{
    char **l = packs();
    int identical = 0, files = 0, stripped_same = 0;
    for (size_t pi = 0; l[pi]; pi++) {
        const char *da = l[pi];
        files++;
        size_t size;
        uint8_t *data = test_read_file(da, &size);
        ganim_doc *sdoc = ff7_read_skeleton(da);
        ganim_error e = { 0 };
        ganim_doc *doc = ff7_read_pack_mem(data, size, sdoc->skeleton, &e), *g = NULL, *s = NULL, *back = NULL;
        ganim_buffer glb = { 0 }, out = { 0 }, bare = { 0 }, out2 = { 0 };
        CHECK_MSG(doc && ganim_export_glb(doc, NULL, &glb, &e) == GANIM_OK, "%s: export: %s", ff7_base(da), e.message);
        CHECK_MSG(ganim_read_memory(glb.data, glb.size, NULL, &g, &e) == GANIM_OK, "%s: glb read: %s", ff7_base(da),
                  e.message);
        if (!g) goto next;
        CHECK_MSG(g->warning_count == 0, "%s: the glb reads with %u warnings (%s)", ff7_base(da), g->warning_count,
                  g->warning_count ? g->warnings[0].message : "");
        CHECK_MSG(write_doc(g, -1, &out, &e) == GANIM_OK, "%s: write from the glb: %s", ff7_base(da), e.message);
        CHECK_MSG(out.size == size && !memcmp(out.data, data, size), "%s: pack -> glb -> pack: not the same bytes",
                  ff7_base(da));
        identical += out.size == size && !memcmp(out.data, data, size);

        /* without ganim's extras: read at the pack's 15 fps (the keys fit 30 too) */
        CHECK(strip_ganim_extras(&glb, &bare));
        ganim_read_opts ro = { 0 };
        ro.fps = 15;
        CHECK_MSG(ganim_read_memory(bare.data, bare.size, &ro, &s, &e) == GANIM_OK, "%s: bare glb read: %s",
                  ff7_base(da), e.message);
        if (!s) goto next;
        CHECK_EQ_STR(s->native_format ? s->native_format : "", "gltf");
        said w = { 0 };
        ganim_write_opts wo = { 0 };
        wo.warn = note_warning;
        wo.warn_user = &w;
        CHECK_MSG(ganim_write(s, "ff7-battle", &wo, &out2, &e) == GANIM_OK, "%s: write from the bare glb: %s",
                  ff7_base(da), e.message);
        CHECK_MSG(w.made_up == 1, "%s: the writer does not say what it made up", ff7_base(da));
        uint32_t specials = 0, weapons = 0;
        for (uint32_t i = 0; i < doc->clip_count; i++) {
            specials += doc->clips[i].kind == GANIM_CLIP_OPAQUE;
            weapons += !strncmp(doc->clips[i].name, "weapon_", 7);
        }
        CHECK_MSG(w.split == (weapons > 0), "%s: the split into body and weapon entries is %s", ff7_base(da),
                  w.split ? "said" : "not said");
        /* with special slots the entries move (body and weapon ranges shrink): the pack
         * needs a ??aa of its own counts, which the warning gives; read it without one */
        back = out2.size ? ff7_read_pack_mem(out2.data, out2.size, specials ? NULL : sdoc->skeleton, &e) : NULL;
        CHECK_MSG(back != NULL, "%s: the pack from the bare glb does not read: %s", ff7_base(da), e.message);
        if (back && !specials) { /* special slots do not travel without the extras */
            int before = test_failures_in_current;
            char label[300];
            snprintf(label, sizeof label, "%s without extras", ff7_base(da));
            same_poses(doc, back, 360.0 / 4096, label);
            stripped_same += test_failures_in_current == before;
        }
    next:
        ganim_doc_free(back);
        ganim_doc_free(s);
        ganim_doc_free(g);
        ganim_doc_free(doc);
        ganim_doc_free(sdoc);
        ganim_buffer_free(&glb);
        ganim_buffer_free(&out);
        ganim_buffer_free(&out2);
        free(bare.data);
        free(data);
    }
    test_free_list(l);
    printf("pack -> glb -> pack: %d of %d packs byte for byte; without the extras %d packs give the same poses\n",
           identical, files, stripped_same);
    CHECK(files == 10 && identical == files);
}

/* humanoid_bkey2.da read with its skeleton (*sdoc), its bytes in *data. */
static ganim_doc *read_humanoid(uint8_t **data, size_t *size, ganim_doc **sdoc, ganim_error *e)
{
    const char *da = test_path("ff7", "humanoid_bkey2.da");
    *data = test_read_file(da, size);
    *sdoc = ff7_read_skeleton(da);
    return ff7_read_pack_mem(*data, *size, (*sdoc)->skeleton, e);
}

/* A clip without an FF7 record that moves body and weapon cannot be one entry: among
 * clips with records (a pack it was put into) it is the body entry it sits at and its
 * weapon replaces the weapon entry the game pairs with it, or is refused when it sits
 * elsewhere; a clip that moves only the weapon among clips that move both is refused. */
TEST(body_and_weapon_without_record)
{
    size_t size;
    uint8_t *data;
    ganim_doc *sdoc;
    ganim_error e = { 0 };
    ganim_doc *doc = read_humanoid(&data, &size, &sdoc, &e), *g = NULL, *s = NULL;
    ganim_buffer glb = { 0 }, bare = { 0 }, out = { 0 };
    CHECK(doc && ganim_export_glb(doc, NULL, &glb, &e) == GANIM_OK);
    CHECK(strip_ganim_extras(&glb, &bare));
    ganim_read_opts ro = { 0 };
    ro.fps = 15;
    CHECK(ganim_read_memory(glb.data, glb.size, NULL, &g, &e) == GANIM_OK);
    CHECK(ganim_read_memory(bare.data, bare.size, &ro, &s, &e) == GANIM_OK);
    if (!g || !s) goto out;
    CHECK_EQ_INT(g->clip_count, 8);
    CHECK_EQ_INT(s->clip_count, 4);
    CHECK_EQ_STR(s->clips[0].name, "body_0+weapon_4");
    /* the bare animation body_0+weapon_4 put into weapon slot 5 of the pack: refused */
    CHECK(ganim_doc_set_clip(g, 5, &s->clips[0], &e) == GANIM_OK);
    g->clips[5].native_format = NULL;
    CHECK_EQ_INT(write_doc(g, -1, &out, &e), GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(e.message, "clip 5 ('body_0+weapon_4') moves body bones and the weapon") != NULL &&
                  strstr(e.message, "entry 5 is not a body entry") != NULL,
              "%s", e.message);
    ganim_buffer_free(&out);
    /* in place of body_0 (what --into does) the animation read without its clips'
     * descriptions (in the pack's axes): its body is entry 0, its weapon entry 4, as the
     * game pairs them; the other entries keep their values and streams */
    ganim_doc_free(g);
    g = NULL;
    ganim_buffer nodesc = { 0 };
    ganim_doc *c = NULL;
    CHECK(glb_replace_all(&glb, "\"clips\":[", "\"xlips\":[", &nodesc));
    CHECK(ganim_read_memory(nodesc.data, nodesc.size, NULL, &c, &e) == GANIM_OK);
    free(nodesc.data);
    CHECK(ganim_read_memory(glb.data, glb.size, NULL, &g, &e) == GANIM_OK);
    if (!g || !c) {
        ganim_doc_free(c);
        goto out;
    }
    CHECK_EQ_STR(c->clips[0].name, "body_0+weapon_4");
    CHECK(c->axes == GANIM_AXES_Y_DOWN);
    CHECK(ganim_doc_set_clip(g, 0, &c->clips[0], &e) == GANIM_OK);
    ganim_doc_free(c);
    g->clips[0].partner = 0;
    g->clips[0].native_format = NULL;
    said w0 = { 0 };
    ganim_write_opts wo = { 0 };
    wo.warn = note_warning;
    wo.warn_user = &w0;
    CHECK_MSG(ganim_write(g, "ff7-battle", &wo, &out, &e) == GANIM_OK, "%s", e.message);
    CHECK(w0.count >= 1);
    ganim_doc *back = out.size ? ff7_read_pack_mem(out.data, out.size, sdoc->skeleton, &e) : NULL;
    CHECK_MSG(back != NULL, "%s", e.message);
    if (back) same_poses(doc, back, 360.0 / 4096, "body_0+weapon_4 into body slot 0");
    for (uint32_t i = 0; back && i < back->clip_count && i < doc->clip_count; i++) {
        if (i == 0 || i == 4) continue;
        tjson *x = ff7_describe(doc, (int)i, GANIM_DETAILS_FULL), *y = ff7_describe(back, (int)i, GANIM_DETAILS_FULL);
        CHECK_MSG(ff7_same_raw(x, y) && tjson_int(tjson_get(x, "bKey"), -1) == tjson_int(tjson_get(y, "bKey"), -2) &&
                      tjson_int(tjson_get(x, "sSize"), -1) == tjson_int(tjson_get(y, "sSize"), -2),
                  "entry %u changed", i);
        tjson_free(x);
        tjson_free(y);
    }
    ganim_doc_free(back);
    ganim_buffer_free(&out);
    /* a weapon entry without its record among the bare body+weapon animations */
    ganim_clip w = doc->clips[4];
    w.native_format = NULL;
    w.native = NULL;
    w.native_size = 0;
    CHECK(ganim_doc_set_clip(s, 1, &w, &e) == GANIM_OK);
    CHECK_EQ_INT(write_doc(s, -1, &out, &e), GANIM_ERR_INVALID_ARG);
    CHECK_MSG(strstr(e.message, "clip 1 ('weapon_4') moves only the weapon") != NULL, "%s", e.message);
out:
    ganim_buffer_free(&out);
    ganim_buffer_free(&glb);
    free(bare.data);
    ganim_doc_free(s);
    ganim_doc_free(g);
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    free(data);
}

/* ---- records whose stream bytes do not say their values ---------------------------------------- */

/* Clip `ci` of `doc` written and read back with `sk`: its raw positions and rotations (and
 * the written entry's sFrames, `frames` read back), checked against pos/rot. */
static void reads_back_as(const ganim_doc *doc, const ganim_skeleton *sk, uint32_t ci, uint32_t frames,
                          const int32_t *pos, const int32_t *rot, uint32_t slots, const char *label)
{
    ganim_buffer out = { 0 };
    ganim_error e = { 0 };
    CHECK_MSG(write_doc(doc, -1, &out, &e) == GANIM_OK, "%s: write: %s", label, e.message);
    ganim_doc *back = out.data ? ff7_read_pack_mem(out.data, out.size, sk, &e) : NULL;
    CHECK_MSG(back != NULL, "%s: read back: %s", label, e.message);
    size_t offs[16];
    size_t n = out.data ? walk(out.data, out.size, offs, 16) : 0;
    CHECK_MSG(n > ci, "%s: %zu entries", label, n);
    if (n > ci) CHECK_EQ_INT(out.data[offs[ci] + 12] | out.data[offs[ci] + 13] << 8, frames); /* sFrames */
    tjson *j = back ? ff7_describe(back, (int)ci, GANIM_DETAILS_FULL) : NULL;
    CHECK_EQ_INT(tjson_int(tjson_get(j, "frames"), -1), frames);
    const tjson *jp = tjson_get(j, "positions"), *jr = tjson_get(j, "rotations");
    CHECK(jp && jr && jp->count == frames && jr->count == frames);
    for (uint32_t f = 0; jp && jr && f < frames && f < jp->count && f < jr->count; f++) {
        for (size_t k = 0; k < 3; k++)
            CHECK_MSG(tjson_int(tjson_at(&jp->items[f], k), -99999) == pos[3 * f + k], "%s: frame %u position %zu",
                      label, f, k);
        for (size_t k = 0; k < 3u * slots; k++)
            CHECK_MSG(tjson_int(tjson_at(tjson_at(&jr->items[f], k / 3), k % 3), -1) == rot[3 * slots * f + k],
                      "%s: frame %u rotation %zu", label, f, k);
    }
    tjson_free(j);
    ganim_doc_free(back);
    ganim_buffer_free(&out);
}

/* A record comes with the document from anywhere (a glTF's extras): where its stream bytes
 * say other values than its positions and rotations, or its sFrames would cut the frames
 * read back, the writer encodes the values afresh instead of copying the bytes. */
TEST(record_stream_that_says_other_values)
{
    char da[1024];
    snprintf(da, sizeof da, "%s/tests/data/ff7/fixture_pack.da", GANIM_SOURCE_DIR);
    size_t size;
    uint8_t *data = test_read_file(da, &size);
    ganim_doc *sdoc = ff7_read_skeleton(da);
    ganim_error e = { 0 };
    ganim_doc *doc = ff7_read_pack_mem(data, size, sdoc->skeleton, &e);
    CHECK_MSG(doc != NULL, "%s", e.message);
    if (!doc) goto out;
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
        ganim_clip *clip = &doc->clips[ci];
        ff7_clip_info in;
        if (clip->kind != GANIM_CLIP_ANIMATION || !ff7_clip_info_parse(clip, &in)) continue;
        const uint8_t *orig = clip->native;
        size_t rsize = clip->native_size;
        size_t nv = (size_t)in.frames * 3u, nr = nv * in.slots;
        int32_t *pos = malloc(nv * sizeof *pos), *rot = malloc(nr * sizeof *rot);
        for (size_t i = 0; i < nv; i++) pos[i] = ff7_info_pos(&in, i);
        for (size_t i = 0; i < nr; i++) rot[i] = ff7_info_rot(&in, i);
        uint8_t *rec = malloc(rsize);
        size_t at = (size_t)(in.stream - orig);
        char label[64];
        for (int kind = 0; kind < 4; kind++) {
            memcpy(rec, orig, rsize);
            if (kind == 0) { /* frame 0's y: 26624 in the stream, 0 in the record (the fuzz finding) */
                rec[at + 2] ^= 0x68;
            } else if (kind == 1) { /* frame 0's first rotation of slot 0 */
                rec[at + 6] ^= 0x80;
            } else if (kind == 2) { /* sFrames below the frames: the reader would stop there */
                ganim_st_u32le(rec + 20, 1);
            } else { /* sFrames past the 16 bits of the entry's field */
                ganim_st_u32le(rec + 20, 0x10000u + in.frames);
            }
            clip->native = rec;
            snprintf(label, sizeof label, "clip %u, damage %d", ci, kind);
            reads_back_as(doc, sdoc->skeleton, ci, in.frames, pos, rot, in.slots, label);
        }
        clip->native = orig;
        free(rec);
        free(pos);
        free(rot);
    }
    /* the undamaged records still give the input's bytes */
    ganim_buffer same = { 0 };
    CHECK(write_doc(doc, -1, &same, &e) == GANIM_OK);
    CHECK(same.size == size && !memcmp(same.data, data, size));
    ganim_buffer_free(&same);
out:
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    free(data);
}

/* The fuzz finding itself (tests/data/regress/roundtrip/ff7_translation_26624.glb): weapon_2's
 * record says position (0, 0, 0) at every frame, its stream bytes (0, 26624, 0) at frame 0. */
TEST(regress_translation_26624)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/regress/roundtrip/ff7_translation_26624.glb", GANIM_SOURCE_DIR);
    ganim_doc *doc = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_read_file(path, NULL, &doc, &e) == GANIM_OK, "%s", e.message);
    if (!doc) return;
    static const int32_t pos[24] = { 0 };
    static const int32_t z[8] = { 0, 369, 522, 369, 0, 3727, 3574, 3727 };
    int32_t rot[24] = { 0 };
    for (int f = 0; f < 8; f++) rot[3 * f + 2] = z[f];
    reads_back_as(doc, doc->skeleton, 2, 8, pos, rot, 1, "ff7_translation_26624.glb");
    ganim_doc_free(doc);
}

/* `doc`'s skeleton with its FF7 record saying nb body and nw weapon animations (record 0:
 * without the record, a skeleton that says no counts). */
static void set_counts(ganim_doc *doc, uint32_t nb, uint32_t nw, int record)
{
    ganim_skeleton sk = *doc->skeleton;
    uint8_t *words = malloc(sk.native_size);
    CHECK(words && sk.native_size >= 52);
    if (!words || sk.native_size < 52) {
        free(words);
        return;
    }
    memcpy(words, sk.native, sk.native_size);
    for (int b = 0; b < 4; b++) {
        words[0x1C + b] = (uint8_t)(nb >> (8 * b));
        words[0x28 + b] = (uint8_t)(nw >> (8 * b));
    }
    sk.native = record ? words : NULL;
    sk.native_size = record ? sk.native_size : 0;
    sk.native_format = record ? sk.native_format : NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_doc_set_skeleton(doc, &sk, &e) == GANIM_OK, "%s", e.message);
    free(words);
}

/* Clips without FF7 records that move body and weapon are split into k body and k weapon
 * entries: only a skeleton of nsSkeletonAnims k and nsWeaponsAnims k reads them back (and
 * FF7 finds the weapon entries it pairs); ganim writes no ??aa, so on a skeleton whose
 * record says other counts the write is refused, naming the clips and both counts
 * (tests/data/regress/roundtrip/ff7_split_clips_more_weapon_entries_than_skeleton.glb: the
 * fuzz finding, 2 and 1, was written and read back as an extra entry). */
TEST(split_needs_the_skeletons_counts)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/regress/roundtrip/ff7_split_clips_more_weapon_entries_than_skeleton.glb",
             GANIM_SOURCE_DIR);
    static const uint32_t counts[][3] = { { 2, 1, 1 }, { 2, 3, 1 }, { 3, 2, 1 }, { 1, 2, 1 },
                                          { 0, 0, 1 }, { 2, 2, 1 }, { 2, 1, 0 } }; /* the last two written */
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        ganim_doc *doc = NULL;
        ganim_error e = { 0 };
        CHECK_MSG(ganim_read_file(path, NULL, &doc, &e) == GANIM_OK, "%s", e.message);
        if (!doc) return;
        CHECK_EQ_INT(doc->clip_count, 2);
        set_counts(doc, counts[c][0], counts[c][1], (int)counts[c][2]);
        ganim_buffer out = { 0 };
        said w = { 0 };
        ganim_write_opts wo = { 0 };
        wo.warn = note_warning;
        wo.warn_user = &w;
        ganim_code code = ganim_write(doc, "ff7-battle", &wo, &out, &e);
        if (c < 5) {
            char want[200];
            snprintf(want, sizeof want, "but the document's skeleton says %u and %u", counts[c][0], counts[c][1]);
            CHECK_MSG(code == GANIM_ERR_INVALID_ARG && out.size == 0, "%u and %u: written", counts[c][0], counts[c][1]);
            CHECK_MSG(strstr(e.message, "1 animation without an FF7 record moves body bones and the weapon (clip 0 "
                                        "('body_0+weapon_2')): FF7 stores each as a body and a weapon entry, so a "
                                        "pack of these 2 clips") &&
                          strstr(e.message, "needs a skeleton (??aa) of nsSkeletonAnims 2 and nsWeaponsAnims 2") &&
                          strstr(e.message, want) && strstr(e.message, "--into"),
                      "%s", e.message);
        } else {
            CHECK_MSG(code == GANIM_OK, "%u and %u: %s", counts[c][0], counts[c][1], e.message);
            CHECK_EQ_INT(w.split, 1);
            /* read back with the skeleton it has (none: the pack's own dwBones) */
            ganim_doc *back =
                out.size ? ff7_read_pack_mem(out.data, out.size, counts[c][2] ? doc->skeleton : NULL, &e) : NULL;
            CHECK_MSG(back != NULL, "%s", e.message);
            if (back) {
                CHECK_EQ_INT(back->clip_count, 4);
                CHECK_EQ_INT(back->warning_count, 0);
                static const char *const names[4] = { "body_0", "body_1", "weapon_2", "weapon_3" };
                for (uint32_t i = 0; i < back->clip_count && i < 4 && counts[c][2]; i++)
                    CHECK_EQ_STR(back->clips[i].name, names[i]);
                for (uint32_t i = 0; i < back->clip_count && i < 4; i++)
                    CHECK_EQ_INT(back->clips[i].frame_count, doc->clips[i % 2].frame_count);
            }
            ganim_doc_free(back);
            /* read back as the writer's warning says (a skeleton of 2 and 2: the document's,
             * or one made so when it has no record), body entry k and weapon entry 2 + k
             * hold clip k's values (the round-trip harness's check); the pack's own
             * dwBones put the weapon entries on bone 0 instead, where they do not */
            const ganim_format *f7 = ganim_format_find("ff7-battle");
            back = NULL;
            CHECK_MSG(f7 && out.size && rt_read_back(doc, out.data, out.size, f7, &back, &e) == GANIM_OK, "%s",
                      e.message);
            if (back) {
                CHECK_EQ_INT(back->clip_count, 4);
                CHECK_EQ_STR(back->clips[2].name, "weapon_2");
                rt_stats st = { 0 };
                char why[600] = "";
                CHECK_MSG(rt_agree(doc, back, f7, &st, why, sizeof why), "%u and %u: %s", counts[c][0], counts[c][1],
                          why);
                /* 91: 65 in the body entries, 26 in the weapon entries */
                CHECK_MSG(st.values >= 80, "%lld values compared", st.values);
            }
            ganim_doc_free(back);
            back = f7 && out.size && !counts[c][2] ? ff7_read_pack_mem(out.data, out.size, doc->skeleton, &e) : NULL;
            if (back && f7) {
                rt_stats st = { 0 };
                char why[600] = "";
                CHECK_MSG(!rt_agree(doc, back, f7, &st, why, sizeof why), "read without counts: agrees");
            }
            ganim_doc_free(back);
        }
        ganim_buffer_free(&out);
        ganim_doc_free(doc);
    }
}

/* Whatever else holds, each entry must be the part the document's skeleton reads there:
 * the humanoid pack without its clips' records writes back as it was read (body entries
 * 0..3, weapon entries 4..7), and with body_0 and weapon_4 swapped (no clip moves both, no
 * split) is refused, where it was written and read back with each in the other's slots. */
TEST(entries_are_the_skeletons_parts)
{
    size_t size;
    uint8_t *data;
    ganim_doc *sdoc;
    ganim_error e = { 0 };
    ganim_doc *doc = read_humanoid(&data, &size, &sdoc, &e);
    ganim_doc *src = ff7_read_pack_mem(data, size, sdoc->skeleton, &e);
    CHECK(doc && src);
    if (!doc || !src) goto out;
    CHECK_EQ_INT(doc->clip_count, 8);
    for (uint32_t i = 0; i < doc->clip_count; i++) doc->clips[i].native_format = NULL;
    ganim_buffer out = { 0 };
    CHECK_MSG(write_doc(doc, -1, &out, &e) == GANIM_OK, "%s", e.message);
    ganim_doc *back = out.size ? ff7_read_pack_mem(out.data, out.size, sdoc->skeleton, &e) : NULL;
    CHECK_MSG(back != NULL, "%s", e.message);
    if (back) same_poses(src, back, 360.0 / 4096, "humanoid without records");
    ganim_doc_free(back);
    ganim_buffer_free(&out);
    ganim_clip weapon = src->clips[4], body = src->clips[0];
    weapon.partner = body.partner = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++) doc->clips[i].partner = 0;
    CHECK(ganim_doc_set_clip(doc, 0, &weapon, &e) == GANIM_OK);
    CHECK(ganim_doc_set_clip(doc, 4, &body, &e) == GANIM_OK);
    for (uint32_t i = 0; i < doc->clip_count; i++) doc->clips[i].native_format = NULL;
    CHECK_EQ_INT(write_doc(doc, -1, &out, &e), GANIM_ERR_INVALID_ARG);
    CHECK_MSG(out.size == 0 && strstr(e.message, "clip 0 ('weapon_4') would be entry 0, written as a weapon entry, but "
                                                 "read back with the document's skeleton (nsSkeletonAnims 4, "
                                                 "nsWeaponsAnims 4) entry 0 is a body entry"),
              "%s", e.message);
    ganim_buffer_free(&out);
out:
    ganim_doc_free(src);
    ganim_doc_free(doc);
    ganim_doc_free(sdoc);
    free(data);
}

/* A skeleton that says it is a ??aa but whose record is not one (its size is not 52 + 12
 * nBones): the reader refuses a pack with it, so the writer writes none
 * (tests/data/regress/roundtrip/ff7_skeleton_record_damaged.glb, roundtrip-ff7-battle's
 * finding of session eleven: nBones 524291 in 88 bytes, written and not read back). */
TEST(damaged_skeleton_record)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/gltf/fixture_pack.glb", GANIM_SOURCE_DIR);
    for (int c = 0; c < 4; c++) { /* intact; nBones + 1; one byte short; the header cut */
        ganim_doc *doc = NULL;
        ganim_error e = { 0 };
        CHECK_MSG(ganim_read_file(path, NULL, &doc, &e) == GANIM_OK, "%s", e.message);
        if (!doc) return;
        ganim_skeleton sk = *doc->skeleton;
        CHECK_EQ_STR(sk.native_format ? sk.native_format : "", "ff7-skeleton");
        uint8_t words[1024];
        CHECK(sk.native_size <= sizeof words && sk.native_size == 52 + 12 * 3);
        if (sk.native_size > sizeof words) {
            ganim_doc_free(doc);
            return;
        }
        memcpy(words, sk.native, sk.native_size);
        if (c == 1) words[12]++;
        if (c == 2) sk.native_size--;
        if (c == 3) sk.native_size = 40;
        sk.native = words;
        CHECK(ganim_doc_set_skeleton(doc, &sk, &e) == GANIM_OK);
        ganim_buffer out = { 0 };
        ganim_code code = write_doc(doc, -1, &out, &e);
        if (c == 0) {
            CHECK_MSG(code == GANIM_OK, "%s", e.message);
            ganim_doc *back = out.size ? ff7_read_pack_mem(out.data, out.size, doc->skeleton, &e) : NULL;
            CHECK_MSG(back && back->clip_count == 4, "%s", e.message);
            ganim_doc_free(back);
        } else {
            static const char *const why[4] = { "", "88 bytes, its nBones (4) needs 100",
                                                "87 bytes, its nBones (3) needs 88",
                                                "40 bytes, shorter than its header of 52" };
            CHECK_MSG(code == GANIM_ERR_INVALID_ARG && out.size == 0 &&
                          strstr(e.message, "the skeleton's FF7 record (its ??aa) is damaged") &&
                          strstr(e.message, why[c]),
                      "case %d: %s", c, e.message);
        }
        ganim_buffer_free(&out);
        ganim_doc_free(doc);
    }
}

int main(void)
{
    RUN(roundtrip_with_skeleton);
    RUN(roundtrip_without_skeleton);
    RUN(encode_from_model);
    RUN(edited_value_is_written);
    RUN(forced_bkey);
    RUN(pack_glb_pack);
    RUN(body_and_weapon_without_record);
    RUN(record_stream_that_says_other_values);
    RUN(regress_translation_26624);
    RUN(split_needs_the_skeletons_counts);
    RUN(entries_are_the_skeletons_parts);
    RUN(damaged_skeleton_record);
    return test_finish();
}
