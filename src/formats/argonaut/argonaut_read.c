/* The Argonaut reader: a level WAD (the XSPD section's models and animation block) or a
 * bare animation block; the variant from the option or the data; one clip per record;
 * a flat skeleton of vertex groups (no hierarchy exists: each group's transform is in
 * model space), or, with argonaut.model=N, model N's groups with its mesh, animated by
 * the records whose bone count equals its group count (the others stay raw). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/argonaut/argonaut.h"
#include "io/bytes.h"

int argonaut_probe(const uint8_t *data, size_t size)
{
    char why[8];
    unsigned odd = 0;
    if (ag_looks_like_wad(data, size)) {
        ag_wad w;
        char why2[200];
        if (!ag_wad_sections(data, size, &w, why2, sizeof why2)) return 15;
        return ag_detect(data, size, &w, why, sizeof why, NULL, &odd) >= 0 ? (odd ? 80 : 95) : 40;
    }
    /* a bare block: a plausible count and records that end exactly at the end */
    if (size < 4 + 0x20) return 0;
    uint32_t count = ganim_ld_u32le(data);
    if (count == 0 || count > (size - 4) / 0x20) return 0;
    if (ag_detect(data, size, NULL, why, sizeof why, NULL, &odd) >= 0) return odd ? 25 : 60;
    /* damaged: a first record whose header looks like one (the 0x20 bytes both variants
     * share) still goes to this reader, whose error says why it fits neither */
    uint32_t fc = ganim_ld_u32le(data + 12), flag = ganim_ld_u32le(data + 16), bc = ganim_ld_u32le(data + 28);
    int32_t mc = (int32_t)ganim_ld_u32le(data + 20);
    bool slots = !ganim_ld_u32le(data + 8) && !ganim_ld_u32le(data + 24) && !ganim_ld_u32le(data + 32);
    return slots && flag <= 1 && fc && fc <= AG_PLAUSIBLE_FRAMES && bc && bc <= 256 && mc >= -1 && mc <= 64 ? 5 : 0;
}

/* Model m as a mesh of doc's skeleton (one bone per group), posed at the bones' rest. */
static ganim_code make_mesh(ganim_doc *doc, const ag_model *m, uint32_t index, ganim_error *err)
{
    const ganim_skeleton *sk = doc->skeleton;
    uint32_t nv = m->nvert;
    float *pos = ganim_doc_alloc_array(doc, (size_t)nv * 3, sizeof *pos);
    float *nrm = ganim_doc_alloc_array(doc, (size_t)nv * 3, sizeof *nrm);
    uint32_t *bones = ganim_doc_alloc_array(doc, nv ? nv : 1, sizeof *bones);
    uint32_t *tri = ganim_doc_alloc_array(doc, (size_t)m->nface * 6 + 1, sizeof *tri);
    ganim_mesh *mesh = ganim_doc_alloc(doc, sizeof *mesh);
    if (!pos || !nrm || !bones || !tri || !mesh) return GANIM_NOMEM(err);
    bool normals = true;
    uint32_t group = 0; /* runs of vertices that end with countdown 1 */
    for (uint32_t v = 0; v < nv; v++) {
        uint32_t g = group < sk->bone_count ? group : sk->bone_count - 1;
        if (ganim_ld_u16le(m->p + m->o_vert + 8 * (size_t)v + 6) == 1) group++;
        bones[v] = g;
        const ganim_transform *rest = &sk->bones[g].rest;
        const uint8_t *p = m->p + m->o_vert + 8 * (size_t)v, *n = m->p + m->o_norm + 8 * (size_t)v;
        ganim_vec3 lv = { (float)ag_s16(p) * rest->scale.x, (float)ag_s16(p + 2) * rest->scale.y,
                          (float)ag_s16(p + 4) * rest->scale.z };
        ganim_vec3 w = ganim_quat_rotate(rest->rotation, lv);
        pos[3 * (size_t)v] = w.x + rest->translation.x;
        pos[3 * (size_t)v + 1] = w.y + rest->translation.y;
        pos[3 * (size_t)v + 2] = w.z + rest->translation.z;
        double nx = ag_s16(n), ny = ag_s16(n + 2), nz = ag_s16(n + 4), len = sqrt(nx * nx + ny * ny + nz * nz);
        if (len == 0) {
            normals = false;
            continue;
        }
        ganim_vec3 ln = { (float)(nx / len), (float)(ny / len), (float)(nz / len) };
        ganim_vec3 wn = ganim_quat_rotate(rest->rotation, ln);
        nrm[3 * (size_t)v] = wn.x, nrm[3 * (size_t)v + 1] = wn.y, nrm[3 * (size_t)v + 2] = wn.z;
    }
    /* faces: triangles (v0, v1, v2) and quads (v0, v1, v2, v3, flag 0x0800) whose front
     * faces, as the public OBJ exporter writes them, are (v1, v0, v2) and (v1, v0, v2, v3) */
    uint32_t nt = 0, outside = 0;
    for (uint32_t f = 0; f < m->nface; f++) {
        const uint8_t *p = m->p + m->o_face + 20 * (size_t)f;
        uint32_t v[4] = { ganim_ld_u16le(p + 8), ganim_ld_u16le(p + 10), ganim_ld_u16le(p + 12),
                          ganim_ld_u16le(p + 14) };
        bool quad = (ganim_ld_u16le(p + 18) & 0x0800) != 0;
        if (v[0] >= nv || v[1] >= nv || v[2] >= nv || (quad && v[3] >= nv)) {
            outside++;
            continue;
        }
        const uint32_t t[2][3] = { { v[1], v[0], v[2] }, { v[1], v[2], v[3] } };
        for (int k = 0; k < (quad ? 2 : 1); k++) {
            if (t[k][0] == t[k][1] || t[k][1] == t[k][2] || t[k][0] == t[k][2]) continue; /* no area */
            memcpy(tri + 3 * (size_t)nt, t[k], sizeof t[k]);
            nt++;
        }
    }
    if (outside)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, m->offset + m->o_face,
                       AG ": model %u: %u face%s use%s vertices the model does not have; left out of the mesh", index,
                       outside, outside == 1 ? "" : "s", outside == 1 ? "s" : "");
    mesh->name = ganim_doc_name_u32(doc, "model_", index);
    if (!mesh->name) return GANIM_NOMEM(err);
    mesh->vertex_count = nv;
    mesh->positions = pos;
    mesh->normals = normals ? nrm : NULL;
    mesh->bones = bones;
    mesh->triangle_count = nt;
    mesh->triangles = tri;
    doc->meshes = mesh;
    doc->mesh_count = 1;
    return GANIM_OK;
}

/* The flat skeleton, each bone at frame 0 of the first animation that moves it. */
static ganim_code make_skeleton(ganim_doc *doc, uint32_t count, const char *name, ganim_error *err)
{
    const char **names = ganim_doc_alloc_array(doc, count, sizeof *names);
    if (!names) return GANIM_NOMEM(err);
    for (uint32_t i = 0; i < count; i++)
        if (!(names[i] = ganim_doc_name_u32(doc, "group_", i))) return GANIM_NOMEM(err);
    ganim_skeleton *sk = ganim_skeleton_flat(doc, count, names);
    if (!sk || !(sk->name = ganim_doc_strdup(doc, name))) return GANIM_NOMEM(err);
    for (uint32_t i = 0; i < count; i++) sk->bones[i].flags = 0; /* the file's groups, not made up */
    for (uint32_t ci = doc->clip_count; ci-- > 0;) {             /* the first clip wins: apply it last */
        const ganim_clip *c = &doc->clips[ci];
        if (c->kind == GANIM_CLIP_ANIMATION) ganim_skeleton_rest_from_frame0(sk, c);
    }
    doc->skeleton = sk;
    return GANIM_OK;
}

/* A clip that does not fit the skeleton stays a raw record. */
static void make_opaque(ganim_clip *c)
{
    c->kind = GANIM_CLIP_OPAQUE;
    c->opaque = c->native + AG_CLIP_HEADER;
    c->opaque_size = c->native_size - AG_CLIP_HEADER;
    c->tracks = NULL;
    c->track_count = 0;
}

static ganim_code doc_native(ganim_doc *doc, const uint8_t *data, size_t size, size_t prefix, size_t suffix_at,
                             const uint8_t hdr[8], uint32_t count, uint32_t parsed, uint32_t model, size_t xspd,
                             ganim_error *err)
{
    size_t suffix = size - suffix_at, n = AG_DOC_HEADER + prefix + suffix;
    uint8_t *p = ganim_doc_alloc(doc, n);
    if (!p) return GANIM_NOMEM(err);
    memcpy(p, hdr, 8);
    ganim_st_u32le(p + 8, count);
    ganim_st_u32le(p + 12, parsed);
    ganim_st_u32le(p + 16, (uint32_t)prefix);
    ganim_st_u32le(p + 20, (uint32_t)suffix);
    ganim_st_u32le(p + 24, model);
    ganim_st_u32le(p + 28, (uint32_t)xspd);
    ganim_st_u32le(p + 32, (uint32_t)size);
    memcpy(p + AG_DOC_HEADER, data, prefix);
    memcpy(p + AG_DOC_HEADER + prefix, data + suffix_at, suffix);
    doc->native_format = AG;
    doc->native = p;
    doc->native_size = n;
    return GANIM_OK;
}

ganim_code argonaut_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                         ganim_error *err)
{
    const ganim_setting *set = opts ? opts->settings : NULL;
    uint32_t nset = opts ? opts->setting_count : 0;
    int variant = ganim_setting_choice(set, nset, &argonaut_options[AG_OPT_VARIANT]);
    int convention = ganim_setting_choice(set, nset, &argonaut_options[AG_OPT_CONVENTION]);
    int64_t model = -1;
    if (!ganim_setting_int(set, nset, &argonaut_options[AG_OPT_MODEL], &model)) model = -1;
    if (convention < 0) convention = AG_SV;
    if (size > UINT32_MAX)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET, AG ": %zu bytes: files of 4 GiB or more are not read",
                          size);
    bool wad = ag_looks_like_wad(data, size);
    char why[600];
    ag_wad w;
    memset(&w, 0, sizeof w);
    size_t end = size;
    if (wad) {
        if (!ag_wad_sections(data, size, &w, why, sizeof why))
            return ganim_fail(err, GANIM_ERR_CORRUPT, w.bad_at <= size ? w.bad_at : 0, AG ": %s", why);
        end = w.xspd_end;
    } else if (size < 4) {
        return ganim_fail(err, GANIM_ERR_TRUNCATED, 0, AG ": %zu bytes are too few for an animation block", size);
    }
    if (!wad && model >= 0)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          AG ": a bare animation block holds no models (argonaut.model is for level WADs)");
    int from = AG_FROM_OPTION;
    if (variant < 0) {
        bool ambiguous = false;
        from = AG_FROM_PROBE;
        variant = ag_detect(data, size, wad ? &w : NULL, why, sizeof why, &ambiguous, NULL);
        if (variant < 0)
            return ganim_fail(err, GANIM_ERR_CORRUPT, wad ? w.models_at : 0,
                              AG ": %s (--argonaut-variant croc2|hp reads what fits a variant)", why);
        if (ambiguous)
            ganim_doc_warn(doc, GANIM_WARN_OTHER, 0,
                           AG ": the block reads the same as Croc 2 and as Harry Potter; read as Croc 2 "
                              "(--argonaut-variant hp to choose the other)");
    }
    bool hp = variant == AG_HP;
    /* the models (WAD), then the block */
    ag_model *models = NULL;
    size_t block_at = 0;
    if (wad) {
        size_t room = w.xspd_end - w.models_at - 4;
        if (w.model_count > room / 0x64)
            return ganim_fail(err, GANIM_ERR_CORRUPT, w.models_at,
                              AG ": the XSPD section announces %u models, more than its %zu bytes hold", w.model_count,
                              room);
        if (model >= (int64_t)w.model_count)
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              AG ": no model %lld: the WAD has %u model%s (numbered from 0)", (long long)model,
                              w.model_count, w.model_count == 1 ? "" : "s");
        models = ganim_doc_alloc_array(doc, w.model_count ? w.model_count : 1, sizeof *models);
        if (!models) return GANIM_NOMEM(err);
        if (!ag_wad_models(data, &w, hp, false, models, &block_at, why, sizeof why))
            return ganim_fail(err, GANIM_ERR_CORRUPT, w.models_at, AG ": %s", why);
        if (end - block_at < 4)
            return ganim_fail(err, GANIM_ERR_CORRUPT, block_at,
                              AG ": the models end at byte %zu, with no room for the animation count", block_at);
        for (uint32_t i = 0; i < w.model_count; i++)
            if (!models[i].countdowns_ok)
                ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, models[i].offset + models[i].o_vert,
                               AG
                               ": model %u: its vertex group countdowns do not run down to 1 (or the normals' differ); "
                               "read as %u groups",
                               i, models[i].groups);
    }
    uint32_t count = ganim_ld_u32le(data + block_at);
    size_t h = ag_header_size(hp), room = end - block_at - 4;
    uint32_t fit = count < room / h ? count : (uint32_t)(room / h);
    /* the clip limit bounds the walk: one record more than it allows is enough to refuse */
    uint32_t max_clips = ganim_doc_limits(doc)->clips;
    if (fit > max_clips && max_clips < UINT32_MAX) fit = max_clips + 1;
    ag_rec *recs = ganim_doc_alloc_array(doc, fit ? fit : 1, sizeof *recs);
    if (!recs) return GANIM_NOMEM(err);
    ag_walk walk;
    ag_walk_block(data, block_at + 4, end, 0, hp, fit, recs, &walk);
    ganim_code lc = ganim_check_counts(doc, block_at, AG ": the animation block", 0, 0, walk.parsed, err);
    if (lc != GANIM_OK) return lc;
    if (walk.parsed < count)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, walk.complete ? walk.end : walk.bad_offset,
                       AG ": %s; the %u animation%s before it are read, the rest of the %u kept as raw bytes",
                       walk.complete ? "the block ends before its last animation" : walk.why, walk.parsed,
                       walk.parsed == 1 ? "" : "s", count);
    else if (!wad && walk.end < size)
        ganim_doc_warn(doc, GANIM_WARN_EXTRA_BYTES, walk.end, AG ": %zu bytes after the last animation; kept",
                       size - walk.end);
    /* clips */
    ganim_clip *clips = ganim_doc_alloc_array(doc, walk.parsed ? walk.parsed : 1, sizeof *clips);
    if (!clips) return GANIM_NOMEM(err);
    doc->clips = clips;
    for (uint32_t i = 0; i < walk.parsed; i++) {
        ganim_code code = ag_clip_from_record(doc, &clips[i], &recs[i], convention, i, err);
        if (code != GANIM_OK) return code;
        doc->clip_count++;
    }
    /* the skeleton: model N's groups, or as many bones as the largest record animates */
    uint32_t bones = 0;
    if (model >= 0) {
        bones = models[model].groups;
    } else {
        for (uint32_t i = 0; i < doc->clip_count; i++)
            if (clips[i].kind == GANIM_CLIP_ANIMATION && clips[i].track_count > bones) bones = clips[i].track_count;
    }
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        ganim_clip *c = &clips[i];
        if (c->kind != GANIM_CLIP_ANIMATION) continue;
        if (model >= 0 && c->track_count != bones) {
            make_opaque(c); /* does not fit the model: never guessed */
        } else if ((uint64_t)c->frame_count * bones > GANIM_MAX_FRAME_SAMPLES) {
            ganim_doc_warn(doc, GANIM_WARN_IGNORED, recs[i].offset,
                           AG ": animation %u: %u frames of %u bones is more than ganim handles; kept as raw bytes", i,
                           c->frame_count, bones);
            make_opaque(c);
        }
    }
    if (bones) {
        char name[32] = "argonaut";
        if (model >= 0) snprintf(name, sizeof name, "model_%u", (unsigned)model);
        ganim_code code = make_skeleton(doc, bones, name, err);
        if (code == GANIM_OK && model >= 0) code = make_mesh(doc, &models[model], (uint32_t)model, err);
        if (code != GANIM_OK) return code;
    }
    uint8_t hdr[8];
    ganim_st_u32le(hdr, AG_DOC_MAGIC);
    hdr[4] = (uint8_t)(wad ? AG_WAD : AG_BLOCK);
    hdr[5] = (uint8_t)variant;
    hdr[6] = (uint8_t)convention;
    hdr[7] = (uint8_t)from;
    doc->axes = GANIM_AXES_Y_UP;
    return doc_native(doc, data, size, block_at, walk.end, hdr, count, walk.parsed,
                      model >= 0 ? (uint32_t)model : UINT32_MAX, wad ? w.xspd : 0, err);
}
