/* ACL compressed_tracks features the reference set lacks, on synthetic buffers.
 *
 * A small ACL WRITER for the simple encodings (single segment; quatf_drop_w_full /
 * quatf_drop_w_variable rotations, vector3f_full / vector3f_variable vectors; constant
 * and default sub-tracks; optional metadata; wrap), written from shared/formats/acl.md
 * §3-§5 alone and sharing nothing with src/formats/acl.c. Each buffer is made in memory
 * from known input values, decoded as "acl" and inside a minimal Civ VII V1 container as
 * "civ7", and the decode is compared with the value acl.md §5 defines (float32 ops in
 * ACL's order) and with the input (within half a quantisation step). */
#include <stdlib.h>
#include <string.h>

#include "acl_clip_check.h"
#include "formats/acl/acl.h"
#include "test.h"

enum { KR = 0, KT = 1, KS = 2 };          /* rotation, translation, scale */
enum { TDEF = 0, TCONST = 1, TANIM = 2 }; /* packed sub-track types (§3.6) */
enum { MAXT = 20, MAXS = 8, BUFCAP = 16384 };

typedef struct syn_clip {
    /* ---- what the caller sets ---- */
    uint16_t version;
    uint8_t algorithm, track_type; /* 0 and 12 unless a test breaks them */
    uint32_t misc;                 /* misc_packed (§3.2) */
    uint32_t nt, ns;
    float rate;
    uint8_t type[3][MAXT];
    uint8_t width[3][MAXT];   /* variable animated sub-tracks: bits, or RAW_W */
    uint8_t raw_byte;         /* byte written for RAW_W; 0: the version's (31/32) */
    float in[MAXS][MAXT][10]; /* input: qx qy qz qw tx ty tz sx sy sz */
    int bad_hash;
    int no_pad;            /* leave out ACL's 15 trailing bytes: the bitstream ends the buffer */
    const char *list_name; /* metadata (misc bit 31) */
    char names[MAXT][24];
    int32_t parents[MAXT];
    float bind[MAXT][10]; /* default (bind) pose in the track descriptions */
    /* ---- what the writer fills ---- */
    float exp[MAXS][MAXT][10]; /* the decode acl.md defines */
    float in_tol[MAXT][10];    /* allowed |decode - input| per component */
    uint32_t raw_fmt_off;      /* buffer offset of the first raw format byte (or 0) */
    uint32_t size;
} syn_clip;

#define RAW_W 255

/* ---- little helpers ------------------------------------------------------------------- */

static uint32_t rnd(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}
static float frnd(uint32_t *s, float lo, float hi) { return lo + (hi - lo) * (float)rnd(s) / 16777216.0f; }

static void put16(uint8_t *b, uint32_t o, uint32_t v)
{
    b[o] = (uint8_t)v;
    b[o + 1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *b, uint32_t o, uint32_t v)
{
    put16(b, o, v & 0xFFFFu);
    put16(b, o + 2, v >> 16);
}
static void putf(uint8_t *b, uint32_t o, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(b, o, u);
}
static uint32_t a4(uint32_t v) { return (v + 3u) & ~3u; }
static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* MSB-first bit stream (§3.9.3): bit b is bit (7 - b%8) of byte b/8. */
static void put_bits(uint8_t *p, uint64_t *bit, uint32_t v, unsigned n)
{
    for (unsigned i = n; i-- > 0; (*bit)++)
        if ((v >> i) & 1u) p[*bit >> 3] |= (uint8_t)(0x80u >> (*bit & 7u));
}

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

/* W from x,y,z as §5.4, then the normalisation ACL's decode applies. */
static void rebuild_w(float *q)
{
    q[3] = sqrtf(fabsf(((1.0f - q[0] * q[0]) - q[1] * q[1]) - q[2] * q[2]));
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int c = 0; c < 4; c++) q[c] /= len;
}

/* A unit quaternion with w >= 0.6 (far from the W-reconstruction's weak spot). */
static void rand_quat(uint32_t *s, float *q)
{
    float ax = frnd(s, -1, 1), ay = frnd(s, -1, 1), az = frnd(s, -1, 1);
    float n = sqrtf(ax * ax + ay * ay + az * az) + 1e-3f, a = frnd(s, -1.8f, 1.8f) * 0.5f;
    q[0] = ax / n * sinf(a);
    q[1] = ay / n * sinf(a);
    q[2] = az / n * sinf(a);
    q[3] = cosf(a);
    float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int c = 0; c < 4; c++) q[c] /= len;
}

/* Types per kind from strings like "0011222": character i is track i's type. */
static void syn_init(syn_clip *c, uint16_t version, uint32_t misc, uint32_t ns, const char *rt, const char *tt,
                     const char *st, uint32_t seed)
{
    memset(c, 0, sizeof *c);
    c->version = version;
    c->track_type = 12;
    c->misc = misc;
    c->ns = ns;
    c->rate = 30.0f;
    c->nt = (uint32_t)strlen(rt);
    const char *ts[3] = { rt, tt, st };
    for (unsigned k = 0; k < 3; k++)
        for (uint32_t i = 0; i < c->nt; i++) c->type[k][i] = (uint8_t)(ts[k] && ts[k][i] ? ts[k][i] - '0' : TDEF);
    uint32_t s = seed;
    for (uint32_t i = 0; i < c->nt; i++) {
        float q0[4], t0[3], s0[3];
        rand_quat(&s, q0);
        for (int j = 0; j < 3; j++) {
            t0[j] = frnd(&s, -50, 50);
            s0[j] = frnd(&s, 0.5f, 2);
        }
        for (uint32_t f = 0; f < ns; f++) {
            float *v = c->in[f][i];
            if (c->type[KR][i] == TANIM) rand_quat(&s, v);
            else memcpy(v, q0, sizeof q0);
            for (int j = 0; j < 3; j++) {
                v[4 + j] = c->type[KT][i] == TANIM ? frnd(&s, -50, 50) : t0[j];
                v[7 + j] = c->type[KS][i] == TANIM ? frnd(&s, 0.5f, 2) : s0[j];
            }
        }
        snprintf(c->names[i], sizeof c->names[i], "bone_%c%u", (char)('a' + i % 26u), i);
        c->parents[i] = i == 0 ? -1 : (int32_t)((i - 1u) / 2u);
        rand_quat(&s, c->bind[i]);
        for (int j = 0; j < 3; j++) {
            c->bind[i][4 + j] = frnd(&s, -9, 9);
            c->bind[i][7 + j] = frnd(&s, 0.25f, 3);
        }
    }
}

/* Widths of the animated sub-tracks of kind k, in track order (exactly one each). */
static void syn_widths(syn_clip *c, unsigned k, const uint8_t *w, size_t n)
{
    size_t a = 0;
    for (uint32_t i = 0; i < c->nt; i++)
        if (c->type[k][i] == TANIM) {
            c->width[k][i] = a < n ? w[a] : 0;
            a++;
        }
    CHECK_EQ_INT(a, n);
}
#define WIDTHS(c, k, ...) \
    syn_widths((c), (k), (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ }))

/* ---- the writer (acl.md §3) ------------------------------------------------------------- */

/* Writes the buffer into `b` (BUFCAP bytes, zeroed here) and fills exp/in_tol/size. */
static uint32_t syn_write(syn_clip *c, uint8_t *b)
{
    memset(b, 0, BUFCAP);
    const uint32_t m = c->misc, H = 0x20;
    const int has_scale = (int)(m & 1u);
    const float dscale = (m & 2u) ? 1.0f : 0.0f;
    const int var[3] = { ((m >> 4) & 15u) == 3, ((m >> 3) & 1u) != 0, ((m >> 2) & 1u) != 0 };
    const int trivial = c->version < 8 || ((m >> 9) & 1u);
    const int wrap = c->version >= 8 && ((m >> 30) & 1u);
    const int meta = (int)(m >> 31);
    const unsigned groups = has_scale ? 3u : 2u;
    const uint8_t rawb = c->raw_byte ? c->raw_byte : (uint8_t)(c->version >= 9 ? 31 : 32);
    uint32_t nanim[3] = { 0, 0, 0 }, ncon[3] = { 0, 0, 0 };
    for (unsigned k = 0; k < groups; k++)
        for (uint32_t i = 0; i < c->nt; i++) {
            if (c->type[k][i] == TANIM) nanim[k]++;
            if (c->type[k][i] == TCONST) ncon[k]++;
        }
    const uint32_t rot4 = var[KR] ? a4(nanim[KR]) : 0;
    const uint32_t nv = rot4 + (var[KT] ? nanim[KT] : 0) + (has_scale && var[KS] ? nanim[KS] : 0);

    /* layout (§3.3), offsets relative to H */
    const uint32_t E = (c->nt + 15u) / 16u;
    const uint32_t seghdr = a4(52), types = a4(seghdr + 16);
    const uint32_t cdata = a4(types + 4u * E * groups);
    const uint32_t csize = 12u * (ncon[KR] + ncon[KT] + ncon[KS]);
    const uint32_t crange = a4(cdata + csize);
    uint32_t crsize = 0;
    for (unsigned k = 0; k < groups; k++)
        if (var[k]) crsize += 24u * nanim[k];
    const uint32_t segdata = crange + crsize, ani = a4(segdata + nv);

    /* raw_buffer_header + tracks_header (§3.1-3.2) */
    put32(b, 8, 0xAC11AC11u);
    put16(b, 12, c->version);
    b[14] = c->algorithm;
    b[15] = c->track_type;
    put32(b, 16, c->nt);
    put32(b, 20, c->ns);
    putf(b, 24, c->rate);
    put32(b, 28, m);
    /* transform_tracks_header */
    uint32_t hv[13] = { 1,        nv,          nanim[KR], nanim[KT], nanim[KS], ncon[KR], ncon[KT],
                        ncon[KS], 0xFFFFFFFFu, seghdr,    types,     cdata,     crange };
    for (unsigned j = 0; j < 13; j++) put32(b, H + 4u * j, hv[j]);

    /* sub-track types: 2 bits per track, MSB first in LE words, R words then T then S */
    for (unsigned k = 0; k < groups; k++)
        for (uint32_t i = 0; i < c->nt; i++) {
            uint32_t o = H + types + 4u * (k * E + i / 16u);
            uint32_t w = (uint32_t)b[o] | (uint32_t)b[o + 1] << 8 | (uint32_t)b[o + 2] << 16 | (uint32_t)b[o + 3] << 24;
            put32(b, o, w | (uint32_t)c->type[k][i] << (30u - 2u * (i % 16u)));
        }

    /* defaults and constants; expected values of every frame start from frame 0's */
    uint32_t cr = 0, ct = 0, cs = 0;
    uint32_t rot_const = H + cdata, tr_const = rot_const + 12u * ncon[KR], sc_const = tr_const + 12u * ncon[KT];
    for (uint32_t i = 0; i < c->nt; i++) {
        float e[10] = { 0, 0, 0, 1, 0, 0, 0, dscale, dscale, dscale };
        if (!trivial) memcpy(e, c->bind[i], sizeof e);
        const float *v = c->in[0][i];
        for (int j = 0; j < 10; j++) c->in_tol[i][j] = 1e-6f * (fabsf(v[j]) > 1 ? fabsf(v[j]) : 1);
        if (c->type[KR][i] == TCONST) { /* SOA groups of 4: x[n] y[n] z[n] */
            uint32_t g = cr / 4u, j = cr % 4u, n = ncon[KR] - 4u * g < 4u ? ncon[KR] - 4u * g : 4u;
            for (uint32_t q = 0; q < 3; q++) putf(b, rot_const + 48u * g + 4u * (q * n + j), v[q]);
            memcpy(e, v, 3 * sizeof *e);
            rebuild_w(e);
            cr++;
        }
        if (c->type[KT][i] == TCONST) {
            for (uint32_t q = 0; q < 3; q++) putf(b, tr_const + 12u * ct + 4u * q, v[4 + q]);
            memcpy(e + 4, v + 4, 3 * sizeof *e);
            ct++;
        }
        if (has_scale && c->type[KS][i] == TCONST) {
            for (uint32_t q = 0; q < 3; q++) putf(b, sc_const + 12u * cs + 4u * q, v[7 + q]);
            memcpy(e + 7, v + 7, 3 * sizeof *e);
            cs++;
        }
        for (uint32_t f = 0; f < c->ns; f++) memcpy(c->exp[f][i], e, sizeof e);
    }

    /* clip ranges, format bytes, then the bit stream */
    uint32_t fmt_pos[3] = { H + segdata, H + segdata + rot4, H + segdata + rot4 + (var[KT] ? nanim[KT] : 0) };
    uint32_t cr_pos[3] = { H + crange, H + crange + (var[KR] ? 24u * nanim[KR] : 0), 0 };
    cr_pos[2] = cr_pos[1] + (var[KT] ? 24u * nanim[KT] : 0);
    float mn[3][MAXT][3], ex[3][MAXT][3];
    memset(mn, 0, sizeof mn);
    memset(ex, 0, sizeof ex);
    c->raw_fmt_off = 0;
    for (unsigned k = 0; k < groups; k++) {
        uint32_t a = 0;
        for (uint32_t i = 0; i < c->nt; i++) {
            if (c->type[k][i] != TANIM) continue;
            const unsigned off = k == KR ? 0 : k == KT ? 4 : 7;
            for (unsigned q = 0; q < 3; q++) {
                float lo = c->in[0][i][off + q], hi = lo;
                for (uint32_t f = 1; f < c->ns; f++) {
                    float v = c->in[f][i][off + q];
                    if (v < lo) lo = v;
                    if (v > hi) hi = v;
                }
                mn[k][i][q] = lo;
                ex[k][i][q] = hi - lo;
            }
            if (var[k]) {
                uint8_t w = c->width[k][i];
                if (w == RAW_W && !c->raw_fmt_off) c->raw_fmt_off = fmt_pos[k] + a;
                b[fmt_pos[k] + a] = w == RAW_W ? rawb : w;
                if (k == KR) { /* SOA groups of 4: min.x[n] min.y[n] min.z[n] ext.x[n] ... */
                    uint32_t g = a / 4u, j = a % 4u, n = nanim[KR] - 4u * g < 4u ? nanim[KR] - 4u * g : 4u;
                    for (uint32_t q = 0; q < 3; q++) {
                        putf(b, cr_pos[KR] + 96u * g + 4u * (q * n + j), mn[k][i][q]);
                        putf(b, cr_pos[KR] + 96u * g + 4u * ((3 + q) * n + j), ex[k][i][q]);
                    }
                } else { /* AOS: min.xyz ext.xyz */
                    for (uint32_t q = 0; q < 3; q++) {
                        putf(b, cr_pos[k] + 24u * a + 4u * q, mn[k][i][q]);
                        putf(b, cr_pos[k] + 24u * a + 12u + 4u * q, ex[k][i][q]);
                    }
                }
            }
            a++;
        }
    }
    uint32_t bits[3] = { 0, 0, 0 };
    for (unsigned k = 0; k < groups; k++)
        for (uint32_t i = 0; i < c->nt; i++)
            if (c->type[k][i] == TANIM) bits[k] += var[k] && c->width[k][i] != RAW_W ? 3u * c->width[k][i] : 96u;
    const uint32_t pose = bits[0] + bits[1] + bits[2];
    uint8_t *stream = b + H + ani;
    uint64_t bit = 0;
    for (uint32_t f = 0; f < c->ns; f++)
        for (unsigned k = 0; k < groups; k++)
            for (uint32_t i = 0; i < c->nt; i++) {
                if (c->type[k][i] != TANIM) continue;
                const unsigned off = k == KR ? 0 : k == KT ? 4 : 7;
                const float *v = c->in[f][i] + off;
                float *e = c->exp[f][i] + off;
                unsigned w = var[k] ? c->width[k][i] : RAW_W;
                for (unsigned q = 0; q < 3; q++) {
                    if (w == RAW_W) {
                        put_bits(stream, &bit, fbits(v[q]), 32);
                        e[q] = v[q];
                        continue;
                    }
                    uint32_t maxq = (1u << w) - 1u;
                    float norm = ex[k][i][q] > 0 ? (v[q] - mn[k][i][q]) / ex[k][i][q] : 0.0f;
                    double qd = floor((double)norm * maxq + 0.5);
                    uint32_t qi = qd < 0 ? 0u : qd > maxq ? maxq : (uint32_t)qd;
                    put_bits(stream, &bit, qi, w);
                    /* §5.5 in float32, multiply and add kept apart */
                    float d = (float)qi * (1.0f / (float)maxq);
                    d = d * ex[k][i][q];
                    e[q] = d + mn[k][i][q];
                    float tol = ex[k][i][q] / (float)maxq * 0.5f + 1e-6f * (fabsf(v[q]) > 1 ? fabsf(v[q]) : 1);
                    if (tol > c->in_tol[i][off + q]) c->in_tol[i][off + q] = tol;
                }
                if (k == KR) {
                    rebuild_w(e);
                    if (w != RAW_W) c->in_tol[i][3] = 1.0f; /* W only follows x,y,z */
                }
            }
    CHECK_EQ_INT(bit, (uint64_t)pose * c->ns);
    /* segment_header: pose bits, rotation bits, translation bits, segment_data */
    put32(b, H + seghdr, pose);
    put32(b, H + seghdr + 4, bits[0]);
    put32(b, H + seghdr + 8, bits[1]);
    put32(b, H + seghdr + 12, segdata);

    uint32_t end = H + ani + (uint32_t)((bit + 7u) / 8u);
    if (meta) { /* §3.10: strings, tables and descriptions, then the 20-byte header last */
        uint32_t o = a4(end), off[5];
        off[0] = o;
        size_t ln = strlen(c->list_name);
        memcpy(b + o, c->list_name, ln + 1);
        o = a4(o + (uint32_t)ln + 1);
        off[1] = o;
        uint32_t s = o + 4u * c->nt;
        for (uint32_t i = 0; i < c->nt; i++) {
            size_t n = strlen(c->names[i]);
            put32(b, o + 4u * i, s - o);
            memcpy(b + s, c->names[i], n + 1);
            s += (uint32_t)n + 1;
        }
        o = a4(s);
        off[2] = o;
        for (uint32_t i = 0; i < c->nt; i++)
            put32(b, o + 4u * i, c->parents[i] < 0 ? 0xFFFFFFFFu : (uint32_t)c->parents[i]);
        o += 4u * c->nt;
        off[3] = o;
        for (uint32_t i = 0; i < c->nt; i++) {
            putf(b, o + 48u * i, 0.01f);
            putf(b, o + 48u * i + 4, 3.0f);
            for (uint32_t j = 0; j < 10; j++) putf(b, o + 48u * i + 8 + 4u * j, c->bind[i][j]);
        }
        o += 48u * c->nt;
        off[4] = 0xFFFFFFFFu;
        for (uint32_t j = 0; j < 5; j++) put32(b, o + 4u * j, off[j]);
        end = o + 20;
    } else {
        if (!c->no_pad) end += 15; /* ACL's trailing padding */
    }
    CHECK(end <= BUFCAP);
    put32(b, 0, end);
    put32(b, 4, fnv1a(b + 8, end - 8u) ^ (c->bad_hash ? 0x10u : 0u));
    c->size = end;
    if (wrap)
        for (uint32_t i = 0; i < c->nt; i++) memcpy(c->exp[c->ns][i], c->exp[0][i], sizeof c->exp[0][i]);
    return end;
}

/* ---- decoding and comparing ------------------------------------------------------------- */

enum { CIV = 0x60 };

/* The ACL buffer alone ("acl", civ = 0) or in a minimal Civ VII V1 container ("civ7"). */
static ganim_code syn_read(const syn_clip *c, const uint8_t *acl, int civ, ganim_doc **doc, ganim_error *e)
{
    static const char *const fmt[2] = { "acl", "civ7" };
    uint8_t *f = calloc(1, BUFCAP + CIV);
    size_t n = c->size;
    if (civ) {
        uint32_t frames = c->ns + (c->version >= 8 && (c->misc >> 30) & 1u);
        put32(f, 0, 0x6AB06AB0u);
        put32(f, 4, c->size + CIV);
        putf(f, 8, c->rate);
        put32(f, 0x0C, frames);
        put32(f, 0x10, c->nt);
        put32(f, 0x48, 0);
        n += CIV;
    }
    memcpy(f + (civ ? CIV : 0), acl, c->size);
    ganim_read_opts o = { 0 };
    o.format = fmt[civ];
    *doc = NULL;
    memset(e, 0, sizeof *e);
    ganim_code rc = ganim_read_memory(f, n, &o, doc, e);
    free(f);
    return rc;
}

/* The decode of track i at frame f against exp (tolerances rtol / vtol) and the input. */
static void check_doc(const syn_clip *c, const ganim_doc *doc, const char *label, float rtol, float vtol,
                      uint32_t expect_warnings)
{
    int wrap = c->version >= 8 && ((c->misc >> 30) & 1u);
    CHECK_EQ_INT(doc->warning_count, expect_warnings);
    for (uint32_t w = 0; w < doc->warning_count && w < 4; w++)
        printf("  %s: warning at %llu: %s\n", label, (unsigned long long)doc->warnings[w].offset,
               doc->warnings[w].message);
    CHECK_EQ_INT(doc->clip_count, 1);
    if (doc->clip_count != 1 || !doc->skeleton) return;
    const ganim_clip *clip = &doc->clips[0];
    CHECK_EQ_INT(clip->frame_count, c->ns + (uint32_t)wrap);
    CHECK_EQ_INT(doc->skeleton->bone_count, c->nt);
    CHECK_NEAR(clip->fps, c->rate, 0);
    if (doc->skeleton->bone_count != c->nt || clip->frame_count != c->ns + (uint32_t)wrap) return;
    int bad = 0;
    for (uint32_t i = 0; i < c->nt; i++) {
        const ganim_track *tr = NULL;
        for (uint32_t t = 0; t < clip->track_count; t++)
            if (clip->tracks[t].bone == i) tr = &clip->tracks[t];
        const ganim_transform *rest = &doc->skeleton->bones[i].rest;
        for (uint32_t f = 0; f < clip->frame_count; f++) {
            float got[10];
            memcpy(got, &rest->rotation.x, 4 * sizeof(float));
            memcpy(got + 4, &rest->translation.x, 3 * sizeof(float));
            memcpy(got + 7, &rest->scale.x, 3 * sizeof(float));
            if (tr) {
                ganim_channel_eval(&tr->rotation, clip->frame_count, tr->step, clip->rotation_interp, 4, f,
                                   &rest->rotation.x, got);
                ganim_channel_eval(&tr->translation, clip->frame_count, tr->step, clip->rotation_interp, 3, f,
                                   &rest->translation.x, got + 4);
                ganim_channel_eval(&tr->scale, clip->frame_count, tr->step, clip->rotation_interp, 3, f, &rest->scale.x,
                                   got + 7);
            }
            uint32_t fi = wrap && f == c->ns ? 0 : f;
            const float *e = c->exp[f][i], *in = c->in[fi][i];
            for (int j = 0; j < 10; j++) {
                double tol = j < 4 ? rtol : vtol * (fabs(e[j]) > 1 ? fabs(e[j]) : 1);
                int k = j < 4 ? KR : j < 7 ? KT : KS;
                int in_ok = c->type[k][i] == TDEF || (k == KS && !(c->misc & 1u)) ||
                            fabs((double)got[j] - in[j]) <= c->in_tol[i][j];
                if ((fabs((double)got[j] - e[j]) > tol || !in_ok) && bad++ < 12)
                    test_fail(__FILE__, __LINE__,
                              "%s: frame %u track %u %s[%d] (sub-track type %d, width %u): got %.9g, expected %.9g "
                              "(input %.9g)",
                              label, f, i,
                              k == KR   ? "rotation"
                              : k == KT ? "translation"
                                        : "scale",
                              j - (k == KR   ? 0
                                   : k == KT ? 4
                                             : 7),
                              c->type[k][i], c->width[k][i], (double)got[j], (double)e[j], (double)in[j]);
            }
        }
    }
}

/* ganim_acl_sample_pose (SSE2: four sub-tracks a vector where a group of four is
 * variable in both segments, one at a time otherwise) against the scalar path at times
 * across the clip and past both ends: the same bits. */
static void random_access_equals_scalar(const syn_clip *c, const uint8_t *b, const char *label)
{
    ganim_acl *acl = NULL;
    ganim_error e = { 0 };
    CHECK_MSG(ganim_acl_open(b, c->size, 0, NULL, NULL, NULL, &acl, &e) == GANIM_OK, "%s: open: %s", label, e.message);
    if (!acl) return;
    uint32_t n = ganim_acl_track_count(acl);
    ganim_transform *p = calloc(n, sizeof *p), *q = calloc(n, sizeof *q);
    float dur = (float)ganim_acl_frame_count(acl) / ganim_acl_sample_rate(acl);
    int bad = 0;
    for (int i = -2; i <= 130; i++) acl_pose_check(acl, dur * (float)i / 125.0f, p, q, label, &bad);
    free(p);
    free(q);
    acl_clip_check(acl, label, 0, NULL);
    acl_clip_check(acl, label, 3, NULL); /* and the whole clip against sample_key */
    ganim_acl_close(acl);
}

/* Write, then decode as acl and as civ7; both must give exp with no warnings. */
static void roundtrip(syn_clip *c, const char *label, float rtol, float vtol)
{
    uint8_t *b = calloc(1, BUFCAP);
    syn_write(c, b);
    random_access_equals_scalar(c, b, label);
    for (int civ = 0; civ < 2; civ++) {
        ganim_doc *doc = NULL;
        ganim_error e;
        char lab[128];
        snprintf(lab, sizeof lab, "%s [%s]", label, civ ? "civ7" : "acl");
        ganim_code rc = syn_read(c, b, civ, &doc, &e);
        CHECK_MSG(rc == GANIM_OK, "%s: %s (offset %llu)", lab, e.message, (unsigned long long)e.offset);
        if (doc) check_doc(c, doc, lab, rtol, vtol, 0);
        ganim_doc_free(doc);
    }
    free(b);
}

/* Tolerances: raw floats are exact except for one rounding in the quaternion normalisation. */
#define RAW_RTOL 2.5e-7f
#define VAR_TOL 1e-6f

/* ---- tests ------------------------------------------------------------------------------- */

/* 1. quatf_drop_w_full + vector3f_full, 18 tracks (2 type words), 6 constant rotations
 *    (an SOA group of 4 and a partial one of 2), every sub-track type in every group. */
TEST(drop_w_full_and_full_vectors)
{
    syn_clip c;
    syn_init(&c, 10, 0x223u, 5, "001111112222222220", "100111122222020202", "012012012012012012", 11);
    roundtrip(&c, "rfmt 2 / vector3f_full", RAW_RTOL, 0);
    syn_init(&c, 7, 0x23u, 3, "111112", "012012", "210210", 12); /* same encodings, ACL 2.0 */
    roundtrip(&c, "rfmt 2 / vector3f_full v7", RAW_RTOL, 0);
}

/* 2. misc bit 1 clear: default scale sub-tracks decode to (0,0,0). */
TEST(default_scale_zero)
{
    syn_clip c;
    syn_init(&c, 10, 0x221u, 4, "0122101", "2100120", "0001200", 21);
    uint32_t n0 = 0;
    for (uint32_t i = 0; i < c.nt; i++) n0 += c.type[KS][i] == TDEF;
    CHECK(n0 >= 3);
    roundtrip(&c, "default scale 0", RAW_RTOL, 0);
    for (uint32_t i = 0; i < c.nt; i++)
        if (c.type[KS][i] == TDEF) CHECK(c.exp[0][i][7] == 0.0f && c.exp[0][i][8] == 0.0f && c.exp[0][i][9] == 0.0f);
}

/* 3. has_scale 0: two type groups, no scale data, every scale 1. */
TEST(no_scale)
{
    syn_clip c;
    syn_init(&c, 10, 0x222u, 4, "01221011222", "21001202222", NULL, 31);
    roundtrip(&c, "has_scale 0", RAW_RTOL, 0);
    /* variable formats too (rot 3, trans 1): widths in the FMT block */
    syn_init(&c, 10, 0x23Au, 4, "01221011222", "21001202222", NULL, 32);
    WIDTHS(&c, KR, 8, 12, 16, 5, 7);
    WIDTHS(&c, KT, 10, 6, 14, 18, 11, 9);
    roundtrip(&c, "has_scale 0, variable", VAR_TOL, VAR_TOL);
}

/* 4. Version 10, misc bit 9 clear, metadata: defaults are the descriptions' bind pose. */
TEST(bind_pose_defaults_from_metadata)
{
    syn_clip c;
    syn_init(&c, 10, 0x80000023u, 4, "0120120", "1200120", "0012001", 41);
    c.list_name = "synthetic_list";
    uint8_t *b = calloc(1, BUFCAP);
    syn_write(&c, b);
    for (int civ = 0; civ < 2; civ++) {
        ganim_doc *doc = NULL;
        ganim_error e;
        const char *lab = civ ? "bind pose [civ7]" : "bind pose [acl]";
        CHECK_MSG(syn_read(&c, b, civ, &doc, &e) == GANIM_OK, "%s: %s (offset %llu)", lab, e.message,
                  (unsigned long long)e.offset);
        if (!doc) continue;
        check_doc(&c, doc, lab, RAW_RTOL, 0, 0);
        const ganim_skeleton *sk = doc->skeleton;
        if (sk && sk->bone_count == c.nt) {
            CHECK_EQ_STR(doc->clips[0].name, c.list_name);
            for (uint32_t i = 0; i < c.nt; i++) {
                CHECK_EQ_STR(sk->bones[i].name, c.names[i]);
                CHECK_EQ_INT(sk->bones[i].parent, c.parents[i]);
                CHECK_EQ_INT(sk->bones[i].flags & GANIM_BONE_SYNTH, 0);
                const float *r = &sk->bones[i].rest.rotation.x, *t = &sk->bones[i].rest.translation.x,
                            *s = &sk->bones[i].rest.scale.x;
                for (int j = 0; j < 4; j++) CHECK_NEAR(r[j], c.bind[i][j], RAW_RTOL);
                for (int j = 0; j < 3; j++) CHECK_NEAR(t[j], c.bind[i][4 + j], 0);
                for (int j = 0; j < 3; j++) CHECK_NEAR(s[j], c.bind[i][7 + j], 0);
            }
        }
        ganim_doc_free(doc);
    }
    /* the default sub-tracks really are the bind pose, not the identity */
    CHECK(c.type[KR][0] == TDEF && c.exp[0][0][0] == c.bind[0][0] && c.exp[0][0][3] != 1.0f);
    CHECK(c.type[KT][2] == TDEF && c.exp[0][2][4] == c.bind[2][4] && c.exp[0][2][4] != 0.0f);
    CHECK(c.type[KS][0] == TDEF && c.exp[0][0][7] == c.bind[0][7] && c.exp[0][0][7] != 1.0f);
    free(b);
}

/* 5. Versions 7-10, rfmt 3 + vector3f_variable at several widths plus raw sub-tracks. */
TEST(variable_formats_all_versions)
{
    for (uint16_t ver = 7; ver <= 10; ver++) {
        syn_clip c;
        /* ACL 2.0 writes 0x3F; 2.1 adds bit 9 (trivial defaults) */
        syn_init(&c, ver, ver >= 8 ? 0x23Fu : 0x3Fu, 6, "0122212210201", "2021220102110", "0210000122100", 50u + ver);
        WIDTHS(&c, KR, 4, 8, 16, RAW_W, 3, 12); /* 6 rotations: SOA groups of 4 + 2 */
        WIDTHS(&c, KT, 4, RAW_W, 16, 9, 19);
        WIDTHS(&c, KS, 8, 5, RAW_W);
        char lab[64];
        snprintf(lab, sizeof lab, "variable v%u", ver);
        roundtrip(&c, lab, VAR_TOL, VAR_TOL);

        /* the other generation's raw marker is not raw: 31 under 7/8 is outside ACL
         * 2.0's widths (3..19, raw 32) and 32 under 9/10 outside 2.1's (1..23, raw 31);
         * a strict decoder refuses the buffer at that format byte */
        c.raw_byte = ver >= 9 ? 32 : 31;
        uint8_t *b = calloc(1, BUFCAP);
        syn_write(&c, b);
        for (int civ = 0; civ < 2; civ++) {
            ganim_doc *doc = NULL;
            ganim_error e;
            ganim_code rc = syn_read(&c, b, civ, &doc, &e);
            CHECK_MSG(rc == GANIM_ERR_CORRUPT, "%s, width %u byte: got code %d (%s)", lab, c.raw_byte, rc, e.message);
            CHECK_EQ_INT(e.offset, c.raw_fmt_off + (civ ? CIV : 0u));
            CHECK_MSG(strstr(e.message, "bit width") != NULL, "%s: message \"%s\"", lab, e.message);
            ganim_doc_free(doc);
        }
        free(b);
    }
}

/* 5b. Raw sub-tracks at bits that are not byte-aligned: five raw rotations (random access
 *     takes four of them together with a 16-byte load a lane, shifted) beside 3-bit ones,
 *     and two raw translations last, so a pose is 7 x 96 + 2 x 9 + 15 bits and raw values
 *     start mid-byte. Without ACL's trailing padding the last pose's raw translations lie
 *     in the buffer's last 16 bytes, where their group is read through checked windows.
 *     Random access is compared with the scalar path (in roundtrip) at times up to the
 *     end. */
TEST(raw_groups_at_unaligned_bits)
{
    for (int pad = 0; pad < 2; pad++) {
        syn_clip c;
        syn_init(&c, 10, 0x23Fu, 7, "2222222", "2220000", NULL, 70u + (uint32_t)pad);
        WIDTHS(&c, KR, RAW_W, 3, RAW_W, RAW_W, 3, RAW_W, RAW_W);
        WIDTHS(&c, KT, 5, RAW_W, RAW_W); /* two raw translations (a group) end each pose */
        c.no_pad = !pad;
        char lab[64];
        snprintf(lab, sizeof lab, "unaligned raw, %s", pad ? "padded" : "no padding");
        roundtrip(&c, lab, VAR_TOL, VAR_TOL);
    }
}

/* 6. Refusals: database flag, non-transform track type, other algorithm; a bad hash only warns. */
TEST(refusals_and_hash)
{
    syn_clip c;
    uint8_t *b = calloc(1, BUFCAP);
    struct {
        const char *what;
        uint32_t misc;
        uint8_t alg, tt;
        ganim_code code;
        uint32_t off;
        const char *word;
    } cases[] = {
        { "database flag", 0x223u | 0x100u, 0, 12, GANIM_ERR_UNSUPPORTED, 0x1C, "database" },
        { "track type 0", 0x223u, 0, 0, GANIM_ERR_UNSUPPORTED, 0x0F, "track type" },
        { "track type 13", 0x223u, 0, 13, GANIM_ERR_UNSUPPORTED, 0x0F, "track type" },
        { "algorithm 1", 0x223u, 1, 12, GANIM_ERR_UNSUPPORTED, 0x0E, "algorithm" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        syn_init(&c, 10, cases[k].misc, 3, "0122", "1201", "2010", 61);
        c.algorithm = cases[k].alg;
        c.track_type = cases[k].tt;
        syn_write(&c, b);
        for (int civ = 0; civ < 2; civ++) {
            ganim_doc *doc = NULL;
            ganim_error e;
            ganim_code rc = syn_read(&c, b, civ, &doc, &e);
            CHECK_MSG(rc == cases[k].code, "%s: code %d, expected %d (%s)", cases[k].what, rc, cases[k].code,
                      e.message);
            CHECK_MSG(doc == NULL, "%s: a document was returned", cases[k].what);
            CHECK_EQ_INT(e.offset, cases[k].off + (civ ? CIV : 0u));
            CHECK_MSG(strstr(e.message, cases[k].word) != NULL, "%s: message \"%s\" does not name the %s",
                      cases[k].what, e.message, cases[k].word);
            ganim_doc_free(doc);
        }
    }
    syn_init(&c, 10, 0x223u, 3, "0122", "1201", "2010", 62);
    c.bad_hash = 1;
    syn_write(&c, b);
    for (int civ = 0; civ < 2; civ++) {
        ganim_doc *doc = NULL;
        ganim_error e;
        const char *lab = civ ? "bad hash [civ7]" : "bad hash [acl]";
        CHECK_MSG(syn_read(&c, b, civ, &doc, &e) == GANIM_OK, "%s: %s", lab, e.message);
        if (!doc) continue;
        check_doc(&c, doc, lab, RAW_RTOL, 0, 1);
        if (doc->warning_count == 1) {
            CHECK_EQ_INT(doc->warnings[0].offset, 4u + (civ ? CIV : 0u));
            CHECK(strstr(doc->warnings[0].message, "hash") != NULL);
        }
        ganim_doc_free(doc);
    }
    free(b);
}

/* 7. Wrap (version 10, misc bit 30): num_samples + 1 frames, the last one is frame 0. */
TEST(wrap_adds_frame_zero)
{
    syn_clip c;
    syn_init(&c, 10, 0x4000023Fu, 5, "012222", "220120", "020012", 71);
    WIDTHS(&c, KR, 7, 13, 10, RAW_W);
    WIDTHS(&c, KT, 11, 6, 15);
    WIDTHS(&c, KS, 9, 4);
    roundtrip(&c, "wrap", VAR_TOL, VAR_TOL); /* exp[ns] = exp[0]: the extra frame */
    uint8_t *b = calloc(1, BUFCAP);
    syn_write(&c, b);
    ganim_doc *doc = NULL;
    ganim_error e;
    CHECK_MSG(syn_read(&c, b, 0, &doc, &e) == GANIM_OK, "wrap: %s", e.message);
    if (doc && doc->clip_count == 1 && doc->clips[0].frame_count == c.ns + 1) {
        const ganim_clip *clip = &doc->clips[0];
        for (uint32_t t = 0; t < clip->track_count; t++) {
            const ganim_track *tr = &clip->tracks[t];
            const ganim_channel *ch[3] = { &tr->rotation, &tr->translation, &tr->scale };
            const float *rest = &doc->skeleton->bones[tr->bone].rest.rotation.x;
            for (int k = 0; k < 3; k++) {
                float a[4], z[4];
                int n = k ? 3 : 4;
                const float *r = k == 0   ? rest
                                 : k == 1 ? &doc->skeleton->bones[tr->bone].rest.translation.x
                                          : &doc->skeleton->bones[tr->bone].rest.scale.x;
                ganim_channel_eval(ch[k], clip->frame_count, tr->step, clip->rotation_interp, n, 0, r, a);
                ganim_channel_eval(ch[k], clip->frame_count, tr->step, clip->rotation_interp, n, c.ns, r, z);
                CHECK_MSG(memcmp(a, z, (size_t)n * sizeof(float)) == 0,
                          "wrap: track %u kind %d: last frame differs from frame 0", tr->bone, k);
            }
        }
    }
    ganim_doc_free(doc);
    free(b);
    /* version 7 ignores bit 30 (ACL 2.0 always clamps); the flag draws a warning, so
     * only the frame count is checked here */
    syn_init(&c, 7, 0x4000003Fu, 5, "012222", "220120", "020012", 72);
    WIDTHS(&c, KR, 7, 13, 10, RAW_W);
    WIDTHS(&c, KT, 11, 6, 15);
    WIDTHS(&c, KS, 9, 4);
    b = calloc(1, BUFCAP);
    syn_write(&c, b);
    CHECK_MSG(syn_read(&c, b, 0, &doc, &e) == GANIM_OK, "wrap v7: %s", e.message);
    if (doc) {
        CHECK_EQ_INT(doc->clips[0].frame_count, c.ns);
        check_doc(&c, doc, "wrap bit under v7", VAR_TOL, VAR_TOL, 1);
    }
    ganim_doc_free(doc);
    free(b);
}

/* ---- the project's own ACL fixtures (tests/data/acl) ----------------------------------
 * Made by this writer, so that a clone without the real samples still has ACL buffers to
 * fuzz, sweep and export: a variable-rate v10 buffer, and one with metadata (names,
 * parents, bind pose) bare and in a Civ VII V1 container. `test_acl_synth
 * --write-fixtures DIR` writes them; fixtures_are_current checks the committed ones. */

typedef struct fixture {
    const char *name;
    int civ;
    void (*make)(syn_clip *c);
} fixture;

static void make_variable(syn_clip *c)
{
    syn_init(c, 10, 0x23Fu, 6, "0122212210201", "2021220102110", "0210000122100", 60);
    WIDTHS(c, KR, 4, 8, 16, RAW_W, 3, 12);
    WIDTHS(c, KT, 4, RAW_W, 16, 9, 19);
    WIDTHS(c, KS, 8, 5, RAW_W);
}

static void make_metadata(syn_clip *c)
{
    syn_init(c, 10, 0x80000023u, 4, "0120120", "1200120", "0012001", 41);
    c->list_name = "synthetic_list";
}

static const fixture fixtures[] = {
    { "synth_variable_v10.acl", 0, make_variable },
    { "synth_metadata_v10.acl", 0, make_metadata },
    { "synth_metadata_v10.civ", 1, make_metadata },
};

/* The fixture's bytes (a calloc'd buffer of *n bytes). */
static uint8_t *fixture_bytes(const fixture *fx, size_t *n)
{
    syn_clip c;
    fx->make(&c);
    uint8_t *acl = calloc(1, BUFCAP), *out = calloc(1, BUFCAP + CIV);
    syn_write(&c, acl);
    size_t at = 0;
    if (fx->civ) {
        put32(out, 0, 0x6AB06AB0u);
        put32(out, 4, c.size + CIV);
        putf(out, 8, c.rate);
        put32(out, 0x0C, c.ns);
        put32(out, 0x10, c.nt);
        at = CIV;
    }
    memcpy(out + at, acl, c.size);
    *n = at + c.size;
    free(acl);
    return out;
}

#ifndef _WIN32 /* see main */
TEST(fixtures_are_current)
{
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/tests/data/acl/%s", GANIM_SOURCE_DIR, fixtures[i].name);
        size_t n, m;
        uint8_t *want = fixture_bytes(&fixtures[i], &n);
        uint8_t *have = test_read_file(path, &m);
        CHECK_MSG(n == m && memcmp(want, have, n) == 0,
                  "%s differs from what this writer makes (regenerate: test_acl_synth --write-fixtures tests/data/acl)",
                  fixtures[i].name);
        free(want);
        free(have);
    }
}
#endif

static int write_fixtures(const char *dir)
{
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, fixtures[i].name);
        size_t n;
        uint8_t *b = fixture_bytes(&fixtures[i], &n);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
            fprintf(stderr, "cannot write %s\n", path);
            return 1;
        }
        printf("wrote %s (%zu bytes)\n", path, n);
        free(b);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-fixtures") == 0) return write_fixtures(argv[2]);
#ifndef _WIN32
    RUN(fixtures_are_current);
#else
    /* The generators draw their motion with the C library's sinf and cosf, whose last
     * bits differ on Windows: the committed fixtures are what the Linux build makes. */
    printf("fixtures_are_current: not on Windows (the C library's sinf/cosf differ)\n");
#endif
    RUN(drop_w_full_and_full_vectors);
    RUN(default_scale_zero);
    RUN(no_scale);
    RUN(bind_pose_defaults_from_metadata);
    RUN(variable_formats_all_versions);
    RUN(raw_groups_at_unaligned_bits);
    RUN(refusals_and_hash);
    RUN(wrap_adds_frame_zero);
    return test_finish();
}
