/* Civilization VII skeleton blobs for tests (tciv7skel.h). */
#include "tciv7skel.h"

#include <stdlib.h>
#include <string.h>

static void put_f32(uint8_t *p, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(u >> (8 * i));
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put4(uint8_t *p, double a, double b, double c, double d)
{
    put_f32(p, (float)a);
    put_f32(p + 4, (float)b);
    put_f32(p + 8, (float)c);
    put_f32(p + 12, (float)d);
}

/* a * b (xyzw), in double */
static void qmul(const double *a, const double *b, double *o)
{
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x, o[1] = y, o[2] = z, o[3] = w;
}

/* v rotated by q */
static void qrot(const double *q, const double *v, double *o)
{
    double p[4] = { v[0], v[1], v[2], 0 }, c[4] = { -q[0], -q[1], -q[2], q[3] }, t[4], r[4];
    qmul(q, p, t);
    qmul(t, c, r);
    o[0] = r[0], o[1] = r[1], o[2] = r[2];
}

uint8_t *tciv7_skel(const tciv7_bone *bones, uint32_t n, float scale, size_t *size)
{
    uint8_t *blob = calloc(n ? n : 1, TCIV7_RECORD);
    double(*wt)[3] = calloc(n ? n : 1, sizeof *wt), (*wq)[4] = calloc(n ? n : 1, sizeof *wq);
    if (!blob || !wt || !wq) {
        free(blob);
        free(wt);
        free(wq);
        *size = 0;
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++) {
        const tciv7_bone *b = &bones[i];
        uint8_t *r = blob + (size_t)i * TCIV7_RECORD;
        size_t len = strlen(b->name);
        memcpy(r, b->name, len < 159 ? len : 159);
        double lt[3] = { b->t[0], b->t[1], b->t[2] }, lq[4] = { b->q[0], b->q[1], b->q[2], b->q[3] };
        if (b->parent >= 0 && (uint32_t)b->parent < i) {
            double moved[3];
            qrot(wq[b->parent], lt, moved);
            for (int k = 0; k < 3; k++) wt[i][k] = wt[b->parent][k] + moved[k];
            qmul(wq[b->parent], lq, wq[i]);
        } else {
            memcpy(wt[i], lt, sizeof lt);
            memcpy(wq[i], lq, sizeof lq);
        }
        put4(r + 0xA0, 0, 0, 0, 1);
        put4(r + 0xB0, 1, 0, 0, 0);
        put4(r + 0xC0, wt[i][0], wt[i][1], wt[i][2], 1);
        put4(r + 0xD0, wq[i][0], wq[i][1], wq[i][2], wq[i][3]);
        put4(r + 0xE0, b->t[0], b->t[1], b->t[2], 1);
        put4(r + 0xF0, b->q[0], b->q[1], b->q[2], b->q[3]);
        put4(r + 0x100, wt[i][0] * scale, wt[i][1] * scale, wt[i][2] * scale, scale);
        put4(r + 0x110, wq[i][0], wq[i][1], wq[i][2], wq[i][3]);
        uint32_t h = 2166136261u;
        for (size_t k = 0; k < len; k++) h = (h ^ (uint8_t)b->name[k]) * 16777619u;
        put_u32(r + 0x120, h);
        put_u32(r + 0x124, (uint32_t)b->parent);
    }
    free(wt);
    free(wq);
    *size = (size_t)n * TCIV7_RECORD;
    return blob;
}
