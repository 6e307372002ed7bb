/* Turning a document to other axes (what a writer does when its format stores another
 * up axis than the document's), and deep copies of documents to turn. */
#include <string.h>

#include "core/dquat.h"
#include "core/internal.h"

/* C(axes): the rotation that turns the axes into +Y up, exactly (ganim_axes_to_y_up). */
static void to_y_up(ganim_axes axes, double q[4])
{
    q[0] = q[1] = q[2] = 0;
    q[3] = 1;
    if (axes == GANIM_AXES_Z_UP) q[0] = -0.70710678118654752440, q[3] = 0.70710678118654752440;
    if (axes == GANIM_AXES_Y_DOWN) q[0] = 1, q[3] = 0;
}

void ganim_axes_turn(ganim_axes from, ganim_axes to, double q[4])
{
    double a[4], b[4];
    to_y_up(to, a);
    a[0] = -a[0], a[1] = -a[1], a[2] = -a[2]; /* C(to)^-1 */
    to_y_up(from, b);
    ganim_dq_mul(a, b, q);
    for (int i = 0; i < 4; i++) /* products of 0, 1 and 1/sqrt(2): clean them */
        if (q[i] > -1e-15 && q[i] < 1e-15) q[i] = 0;
}

static void turn_quats(const double a[4], float *v, size_t n)
{
    for (size_t i = 0; i < n; i++, v += 4) {
        double q[4] = { v[0], v[1], v[2], v[3] };
        ganim_dq_mul(a, q, q);
        for (int k = 0; k < 4; k++) v[k] = (float)q[k];
    }
}

/* Axes turn by quarter turns, so a vector's components only move and change sign: the
 * turn's matrix, rounded to its 0 and +-1, moves them exactly. (Rotating in double
 * leaked 2e-16 of each component into the others: a translation of 3.7e19 on one axis
 * put -8192 on another.) */
typedef struct turn_perm {
    int pick[3], sign[3]; /* component k of the turned vector is sign[k] * v[pick[k]] */
} turn_perm;

static turn_perm perm_of(const double a[4])
{
    turn_perm p;
    for (int row = 0; row < 3; row++) {
        p.pick[row] = row, p.sign[row] = 1;
        for (int c = 0; c < 3; c++) {
            double e[3] = { c == 0, c == 1, c == 2 }, r[3];
            ganim_dq_rot(a, e, r); /* column c of the matrix */
            if (r[row] > 0.5 || r[row] < -0.5) p.pick[row] = c, p.sign[row] = r[row] > 0 ? 1 : -1;
        }
    }
    return p;
}

static void turn_vecs(const turn_perm *p, float *v, size_t n)
{
    for (size_t i = 0; i < n; i++, v += 3) {
        const float t[3] = { v[0], v[1], v[2] };
        for (int k = 0; k < 3; k++) v[k] = p->sign[k] < 0 ? -t[p->pick[k]] : t[p->pick[k]];
    }
}

void ganim_doc_turn_axes(ganim_doc *doc, ganim_axes to)
{
    double a[4];
    ganim_axes_turn(doc->axes, to, a);
    doc->axes = to;
    if (a[0] == 0 && a[1] == 0 && a[2] == 0) return;
    const turn_perm perm = perm_of(a); /* once for the whole document */
    ganim_skeleton *sk = doc->skeleton;
    for (uint32_t i = 0; sk && i < sk->bone_count; i++) {
        if (sk->bones[i].parent >= 0) continue;
        turn_quats(a, &sk->bones[i].rest.rotation.x, 1);
        turn_vecs(&perm, &sk->bones[i].rest.translation.x, 1);
    }
    for (uint32_t c = 0; c < doc->clip_count; c++) {
        ganim_clip *clip = &doc->clips[c];
        for (uint32_t t = 0; t < clip->track_count; t++) {
            ganim_track *tr = &clip->tracks[t];
            if (!sk || tr->bone >= sk->bone_count || sk->bones[tr->bone].parent >= 0) continue;
            /* the clone owns these arrays */
            if (tr->rotation.kind != GANIM_CHANNEL_ABSENT)
                turn_quats(a, (float *)(uintptr_t)tr->rotation.values, tr->rotation.count);
            if (tr->translation.kind != GANIM_CHANNEL_ABSENT)
                turn_vecs(&perm, (float *)(uintptr_t)tr->translation.values, tr->translation.count);
        }
    }
    for (uint32_t m = 0; m < doc->mesh_count; m++) {
        ganim_mesh *mesh = &doc->meshes[m];
        turn_vecs(&perm, (float *)(uintptr_t)mesh->positions, mesh->vertex_count);
        if (mesh->normals) turn_vecs(&perm, (float *)(uintptr_t)mesh->normals, mesh->vertex_count);
    }
}

static void *dup_array(ganim_doc *doc, const void *p, size_t count, size_t size)
{
    size_t n;
    if (!p || !ganim_mul_size(count, size, &n)) return NULL;
    return ganim_doc_memdup(doc, p, n);
}

ganim_doc *ganim_doc_clone(const ganim_doc *src, ganim_error *err)
{
    ganim_doc *doc = ganim_doc_create(ganim_doc_allocator(src), ganim_doc_memory_limit(src));
    if (!doc) {
        GANIM_NOMEM(err);
        return NULL;
    }
    ganim_doc_set_limits(doc, ganim_doc_limits(src));
    doc->format = src->format;
    doc->axes = src->axes;
    doc->probe_score = src->probe_score;
    ganim_code code = GANIM_OK;
    if (src->skeleton && !(doc->skeleton = ganim_skeleton_dup(doc, src->skeleton, err))) code = GANIM_ERR_NOMEM;
    if (!code && src->clip_count) {
        if (!(doc->clips = ganim_doc_alloc_array(doc, src->clip_count, sizeof *doc->clips))) code = GANIM_NOMEM(err);
        for (uint32_t i = 0; !code && i < src->clip_count; i++) {
            code = ganim_clip_copy(doc, i, &src->clips[i], &doc->clips[i], err);
            if (!code) doc->clip_count = i + 1;
        }
    }
    if (!code && src->mesh_count) {
        if (!(doc->meshes = ganim_doc_alloc_array(doc, src->mesh_count, sizeof *doc->meshes))) code = GANIM_NOMEM(err);
        for (uint32_t i = 0; !code && i < src->mesh_count; i++) {
            const ganim_mesh *m = &src->meshes[i];
            ganim_mesh *o = &doc->meshes[i];
            *o = *m;
            o->name = ganim_doc_strdup(doc, m->name);
            o->positions = dup_array(doc, m->positions, (size_t)m->vertex_count * 3, sizeof(float));
            o->normals = m->normals ? dup_array(doc, m->normals, (size_t)m->vertex_count * 3, sizeof(float)) : NULL;
            o->bones = dup_array(doc, m->bones, m->vertex_count, sizeof(uint32_t));
            o->triangles = dup_array(doc, m->triangles, (size_t)m->triangle_count * 3, sizeof(uint32_t));
            if (!o->name || (m->vertex_count && (!o->positions || !o->bones)) || (m->normals && !o->normals) ||
                (m->triangle_count && !o->triangles))
                code = GANIM_NOMEM(err);
            else doc->mesh_count = i + 1;
        }
    }
    if (!code && src->native_format) {
        doc->native_format = src->native_format;
        if (!(doc->native = ganim_doc_memdup(doc, src->native, src->native_size))) code = GANIM_NOMEM(err);
        doc->native_size = src->native_size;
    }
    if (code) {
        ganim_doc_free(doc);
        return NULL;
    }
    return doc;
}
