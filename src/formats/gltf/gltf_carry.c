/* What ganim's exporter carried in extras.ganim (src/export/export_gltf_carry.c), given
 * back: the native records of the document, the skeleton and each clip, the opaque clips,
 * each clip's index, name, frame count, rotation interpolation, events and the bones it
 * has tracks for, and the partner played in the same animation, split back into its own
 * clip. Everything is checked: a member that does not fit the file is ignored with a
 * warning (the file then reads as one without it), never trusted. Only files that say
 * they were written by ganim (asset.extras.ganim) are asked. */
#include <stdlib.h>

#include "formats/gltf/gltf.h"

/* The AVX2 and SSSE3 base64 paths (b64_decode): gcc or clang on x86, chosen at run time. */
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define GLTF_HAVE_SSSE3 1
#include <immintrin.h>
#else
#define GLTF_HAVE_SSSE3 0
#endif

/* ---- small readers ------------------------------------------------------------------------- */

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* The four base64 digits of a group as the three bytes they make, one table per place:
 * for digit v at place p, its bits where they go in the little-endian word b0 | b1 << 8 |
 * b2 << 16 (b0 = v0 << 2 | v1 >> 4, b1 = (v1 & 15) << 4 | v2 >> 2, b2 = (v2 & 3) << 6 |
 * v3); a byte that is not a digit sets bit 24 in every table. */
#define B64_V(c)                                 \
    ((c) >= 'A' && (c) <= 'Z'   ? (c) - 'A'      \
     : (c) >= 'a' && (c) <= 'z' ? (c) - 'a' + 26 \
     : (c) >= '0' && (c) <= '9' ? (c) - '0' + 52 \
     : (c) == '+'               ? 62             \
     : (c) == '/'               ? 63             \
                                : -1)
#define B64_BAD 0x01000000u
#define B64_P0(c) (B64_V(c) < 0 ? B64_BAD : (uint32_t)B64_V(c) << 2)
#define B64_P1(c) (B64_V(c) < 0 ? B64_BAD : (uint32_t)B64_V(c) >> 4 | ((uint32_t)B64_V(c) & 15u) << 12)
#define B64_P2(c) (B64_V(c) < 0 ? B64_BAD : ((uint32_t)B64_V(c) >> 2) << 8 | ((uint32_t)B64_V(c) & 3u) << 22)
#define B64_P3(c) (B64_V(c) < 0 ? B64_BAD : (uint32_t)B64_V(c) << 16)
#define B64_4(P, c) P(c), P((c) + 1), P((c) + 2), P((c) + 3)
#define B64_16(P, c) B64_4(P, c), B64_4(P, (c) + 4), B64_4(P, (c) + 8), B64_4(P, (c) + 12)
#define B64_64(P, c) B64_16(P, c), B64_16(P, (c) + 16), B64_16(P, (c) + 32), B64_16(P, (c) + 48)
#define B64_TABLE(P)                                                \
    {                                                               \
        B64_64(P, 0), B64_64(P, 64), B64_64(P, 128), B64_64(P, 192) \
    }
static const uint32_t b64_place[4][256] = { B64_TABLE(B64_P0), B64_TABLE(B64_P1), B64_TABLE(B64_P2),
                                            B64_TABLE(B64_P3) };

#if GLTF_HAVE_SSSE3
/* Groups of sixteen digits from p + *i while more than sixteen are left (the last group
 * is not among them), twelve bytes each into b + *k (b holds `bytes`): 1 with *i and *k
 * past them, or 0 when one of a group's sixteen is not a digit. Each byte is classed by
 * its two nibbles (W. Mula and D. Lemire, "Faster Base64 Encoding and Decoding Using AVX2
 * Instructions", 2018): lo_bad[l] has the bit of every high nibble h for which the byte
 * h l is not a digit, hi_bit[h] is h's bit (0x10 for 0, 1, 8..15: never a digit); the
 * digit's value is the byte plus shift[h] ('/' takes shift[1]). Then the groups of four
 * 6-bit values are packed into three bytes each, most significant first, and stored 16
 * bytes at a time where b has room (the 4 after the twelve are the next group's, written
 * again by it or by the groups after the loop). */
__attribute__((target("ssse3"))) static int b64_run_ssse3(const unsigned char *p, size_t n, uint8_t *b, size_t bytes,
                                                          size_t *pi, size_t *pk)
{
    const __m128i lo_bad =
        _mm_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A);
    const __m128i hi_bit =
        _mm_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
    const __m128i shift = _mm_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i nibble = _mm_set1_epi8(0x0F), slash = _mm_set1_epi8('/');
    const __m128i pack = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    size_t i = *pi, k = *pk;
    for (; i + 16 < n; i += 16, k += 12) {
        __m128i in = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i hi = _mm_and_si128(_mm_srli_epi32(in, 4), nibble), lo = _mm_and_si128(in, nibble);
        __m128i bad = _mm_and_si128(_mm_shuffle_epi8(lo_bad, lo), _mm_shuffle_epi8(hi_bit, hi));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) != 0xFFFF) return 0;
        __m128i v = _mm_add_epi8(in, _mm_shuffle_epi8(shift, _mm_add_epi8(_mm_cmpeq_epi8(in, slash), hi)));
        v = _mm_maddubs_epi16(v, _mm_set1_epi32(0x01400140)); /* a << 6 | b, c << 6 | d */
        v = _mm_madd_epi16(v, _mm_set1_epi32(0x00011000));    /* a << 18 | b << 12 | c << 6 | d */
        v = _mm_shuffle_epi8(v, pack);
        if (bytes - k >= 16) {
            _mm_storeu_si128((__m128i *)(void *)(b + k), v);
        } else {
            uint8_t t[16];
            _mm_storeu_si128((__m128i *)(void *)t, v);
            memcpy(b + k, t, 12);
        }
    }
    *pi = i;
    *pk = k;
    return 1;
}

/* The same, thirty-two digits (two groups of sixteen, one per lane) at a time: the lanes'
 * twelve bytes each are put side by side and stored 32 bytes at a time where b has room. */
__attribute__((target("avx2"))) static int b64_run_avx2(const unsigned char *p, size_t n, uint8_t *b, size_t bytes,
                                                        size_t *pi, size_t *pk)
{
    const __m256i lo_bad = _mm256_setr_epi8(0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x13, 0x1A,
                                            0x1B, 0x1B, 0x1B, 0x1A, 0x15, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x11,
                                            0x11, 0x11, 0x13, 0x1A, 0x1B, 0x1B, 0x1B, 0x1A);
    const __m256i hi_bit = _mm256_setr_epi8(0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08, 0x10, 0x10, 0x10, 0x10,
                                            0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x01, 0x02, 0x04, 0x08, 0x04, 0x08,
                                            0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10);
    const __m256i shift = _mm256_setr_epi8(0, 16, 19, 4, -65, -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 19, 4, -65,
                                           -65, -71, -71, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i nibble = _mm256_set1_epi8(0x0F), slash = _mm256_set1_epi8('/');
    const __m256i pack = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1, 2, 1, 0, 6, 5, 4, 10,
                                          9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7); /* the 24 bytes side by side */
    size_t i = *pi, k = *pk;
    for (; n - i > 32; i += 32, k += 24) {
        __m256i in = _mm256_loadu_si256((const __m256i *)(const void *)(p + i));
        __m256i hi = _mm256_and_si256(_mm256_srli_epi32(in, 4), nibble), lo = _mm256_and_si256(in, nibble);
        __m256i bad = _mm256_and_si256(_mm256_shuffle_epi8(lo_bad, lo), _mm256_shuffle_epi8(hi_bit, hi));
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(bad, _mm256_setzero_si256())) != -1) return 0;
        __m256i v = _mm256_add_epi8(in, _mm256_shuffle_epi8(shift, _mm256_add_epi8(_mm256_cmpeq_epi8(in, slash), hi)));
        v = _mm256_maddubs_epi16(v, _mm256_set1_epi32(0x01400140));
        v = _mm256_madd_epi16(v, _mm256_set1_epi32(0x00011000));
        v = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(v, pack), lanes);
        if (bytes - k >= 32) {
            _mm256_storeu_si256((__m256i *)(void *)(b + k), v);
        } else {
            uint8_t t[32];
            _mm256_storeu_si256((__m256i *)(void *)t, v);
            memcpy(b + k, t, 24);
        }
    }
    *pi = i;
    *pk = k;
    return 1;
}
#endif

/* Strict base64 (RFC 4648 with padding) into the document's memory: 1, 0 when the text is
 * not base64 (or is not the size announced), -1 out of memory. */
static int b64_decode(gltf_file *f, const gj_value *v, uint64_t want, const uint8_t **out, size_t *size)
{
    const char *s;
    size_t n;
    if (!gj_bytes(v, &s, &n)) return 0; /* (the JSON text's own bytes: gltf.c lend_member) */
    if (n % 4) return 0;
    size_t pad = n && s[n - 1] == '=' ? (s[n - 2] == '=' ? 2 : 1) : 0;
    size_t bytes = n / 4 * 3 - pad;
    if (bytes != want) return 0;
    uint8_t *b = ganim_doc_alloc_array_raw(f->doc, bytes ? bytes : 1, 1); /* written whole, or unused */
    if (!b) return -1;
    size_t k = 0, i = 0;
    /* whole groups of four before the last: a table per place, one test for a byte that
     * is not base64 (two groups a turn) */
    const unsigned char *p = (const unsigned char *)s;
#if GLTF_HAVE_SSSE3
    if (n > 36 && __builtin_cpu_supports("avx2") && !b64_run_avx2(p, n, b, bytes, &i, &k)) return 0;
    if (n - i > 20 && __builtin_cpu_supports("ssse3") && !b64_run_ssse3(p, n, b, bytes, &i, &k)) return 0;
#endif
    for (; i + 8 < n; i += 8, k += 6) {
        uint32_t x = b64_place[0][p[i]] | b64_place[1][p[i + 1]] | b64_place[2][p[i + 2]] | b64_place[3][p[i + 3]];
        uint32_t y = b64_place[0][p[i + 4]] | b64_place[1][p[i + 5]] | b64_place[2][p[i + 6]] | b64_place[3][p[i + 7]];
        if ((x | y) & B64_BAD) return 0;
        b[k] = (uint8_t)x, b[k + 1] = (uint8_t)(x >> 8), b[k + 2] = (uint8_t)(x >> 16);
        b[k + 3] = (uint8_t)y, b[k + 4] = (uint8_t)(y >> 8), b[k + 5] = (uint8_t)(y >> 16);
    }
    for (; i + 4 < n; i += 4, k += 3) {
        uint32_t x = b64_place[0][p[i]] | b64_place[1][p[i + 1]] | b64_place[2][p[i + 2]] | b64_place[3][p[i + 3]];
        if (x & B64_BAD) return 0;
        b[k] = (uint8_t)x, b[k + 1] = (uint8_t)(x >> 8), b[k + 2] = (uint8_t)(x >> 16);
    }
    for (; i < n; i += 4) {
        uint32_t acc = 0;
        for (size_t j = 0; j < 4; j++) {
            int d = b64_value((unsigned char)s[i + j]);
            if (d < 0 && !(s[i + j] == '=' && i + 4 == n && j >= 4 - pad)) return 0;
            acc = acc << 6 | (uint32_t)(d < 0 ? 0 : d);
        }
        uint8_t q[3] = { (uint8_t)(acc >> 16), (uint8_t)(acc >> 8), (uint8_t)acc };
        for (size_t j = 0; j < 3 && k < bytes; j++) b[k++] = q[j];
        if (i + 4 == n && pad && (acc & (pad == 2 ? 0xFFFFu : 0xFFu))) return 0; /* bits past the data */
    }
    *out = b;
    *size = bytes;
    return 1;
}

/* ganim writes every byte of a name that is not printable ASCII as \u00XX, which the JSON
 * reader gives as UTF-8: the bytes back (text with code points above U+00FF stays as it is). */
static char *latin1_back(gltf_file *f, const char *s)
{
    size_t n = strlen(s);
    char *o = ganim_doc_alloc(f->doc, n + 1);
    if (!o) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            o[k++] = (char)c;
        } else if ((c == 0xC2 || c == 0xC3) && i + 1 < n && ((unsigned char)s[i + 1] & 0xC0) == 0x80) {
            o[k++] = (char)(((c & 0x03) << 6) | ((unsigned char)s[i + 1] & 0x3F));
            i++;
        } else {
            memcpy(o, s, n + 1);
            return o;
        }
    }
    o[k] = 0;
    return o;
}

typedef struct ctx {
    gltf_file *f;
    const char *where; /* "asset", "animation", "skin" */
    long long index;   /* after where, when >= 0 (written in the message only when one is given) */
    const char *why;   /* the first thing that did not fit */
    uint64_t offset;
} ctx;

static int bad(ctx *c, const gj_value *v, const char *why)
{
    if (!c->why) {
        c->why = why;
        c->offset = v ? v->offset : GANIM_NO_OFFSET;
    }
    return 0;
}

/* `native_record` of an object: 1 (absent: format NULL), 0 bad, -1 out of memory. */
static int read_record(ctx *c, const gj_value *obj, const char **format, const uint8_t **data, size_t *size)
{
    *format = NULL;
    const gj_value *r = gj_get(obj, "native_record");
    if (!r) return 1;
    const char *fmt;
    uint64_t n;
    if (!gj_is(r, GJ_OBJECT) || !gj_string(gj_get(r, "format"), &fmt) || !fmt[0] || strlen(fmt) > 64)
        return bad(c, r, "native_record has no format");
    if (!gj_uint(gj_get(r, "size"), SIZE_MAX, &n)) return bad(c, r, "native_record has no size");
    int ok = b64_decode(c->f, gj_get(r, "base64"), n, data, size);
    if (ok <= 0) return ok < 0 ? -1 : bad(c, r, "native_record is not base64 of its size");
    if (!(*format = ganim_doc_strdup(c->f->doc, fmt))) return -1;
    return 1;
}

static int read_events(ctx *c, const gj_value *obj, gltf_carry_clip *d)
{
    const gj_value *ev = gj_get(obj, "events");
    if (!ev) return 1;
    if (!gj_is(ev, GJ_ARRAY)) return bad(c, ev, "events is not an array");
    if (!ev->count) return 1;
    if (!(d->events = ganim_doc_alloc_array(c->f->doc, ev->count, sizeof *d->events))) return -1;
    for (uint32_t i = 0; i < ev->count; i++) {
        const gj_value *e = &ev->items[i];
        uint64_t id;
        float fr;
        if (!gj_is(e, GJ_ARRAY) || e->count != 2 || !gj_float(&e->items[0], &fr) || !(fr >= 0 && fr <= 16777216.0f) ||
            !gj_uint(&e->items[1], UINT32_MAX, &id))
            return bad(c, e, "an event is not [frame, id]");
        d->events[i].frame = fr;
        d->events[i].id = (uint32_t)id;
    }
    d->event_count = ev->count;
    return 1;
}

/* One clip's description: 1 usable, 0 not (c->why says why), -1 out of memory. `bones`: 0
 * for an opaque clip (no tracks). */
static int read_clip(ctx *c, const gj_value *o, uint32_t bones, int opaque, gltf_carry_clip *d)
{
    gltf_file *f = c->f;
    memset(d, 0, sizeof *d);
    d->index = GLTF_NONE;
    uint64_t index, frames, size;
    const char *name, *interp;
    double fps;
    if (!gj_is(o, GJ_OBJECT)) return bad(c, o, "a clip is not an object");
    if (!gj_uint(gj_get(o, "index"), (uint64_t)GANIM_DEFAULT_CLIPS * 64, &index))
        return bad(c, o, "a clip has no index");
    const gj_value *nv = gj_get(o, "name");
    name = NULL; /* absent: the animation's name (gltf_carry_apply) */
    if (nv && !gj_string(nv, &name)) return bad(c, o, "a clip's name is not a string");
    /* an opaque slot keeps whatever its reader gave it (0 fps, any frame count) */
    if (!gj_number(gj_get(o, "fps"), &fps) || !(fps >= (opaque ? 0 : GANIM_MIN_FPS) && fps <= GANIM_MAX_FPS))
        return bad(c, o, "a clip's fps is not a frame rate");
    if (!gj_uint(gj_get(o, "frame_count"), opaque ? UINT32_MAX : GANIM_MAX_FRAMES, &frames) || (!opaque && !frames))
        return bad(c, o, "a clip's frame_count is not a frame count");
    if (!gj_string(gj_get(o, "rotation_interp"), &interp) ||
        (strcmp(interp, "slerp") != 0 && strcmp(interp, "nlerp") != 0))
        return bad(c, o, "a clip's rotation_interp is not slerp or nlerp");
    d->fps = fps;
    d->frame_count = (uint32_t)frames;
    d->interp = strcmp(interp, "nlerp") != 0 ? GANIM_INTERP_SLERP : GANIM_INTERP_NLERP;
    if (name && !(d->name = latin1_back(f, name))) return -1;
    if (!name && opaque) d->name = "";
    int ok = read_events(c, o, d);
    if (ok > 0) ok = read_record(c, o, &d->record_format, &d->record, &d->record_size);
    if (ok <= 0) return ok;
    if (opaque) {
        if (!gj_uint(gj_get(o, "size"), SIZE_MAX, &size)) return bad(c, o, "an opaque clip has no size");
        ok = b64_decode(f, gj_get(o, "base64"), size, &d->opaque, &d->opaque_size);
        if (ok <= 0) return ok < 0 ? -1 : bad(c, o, "an opaque clip's bytes are not base64 of its size");
        d->index = (uint32_t)index;
        return 1;
    }
    const gj_value *tl = gj_get(o, "tracks");
    if (!gj_is(tl, GJ_ARRAY)) return bad(c, o, "a clip has no tracks list");
    if (tl->count > bones) return bad(c, tl, "a clip lists more tracks than there are bones");
    if (tl->count && !(d->tracks = gltf_scratch(f, tl->count, sizeof *d->tracks))) return -1;
    for (uint32_t i = 0; i < tl->count; i++) {
        const gj_value *t = &tl->items[i];
        uint64_t b, m;
        const char *tn = NULL;
        if (!gj_is(t, GJ_ARRAY) || t->count < 2 || t->count > 3 || !gj_uint(&t->items[0], bones - 1, &b) ||
            !gj_uint(&t->items[1], 255, &m) || (t->count == 3 && !gj_string(&t->items[2], &tn)))
            return bad(c, t, "a track is not [bone, channels] or [bone, channels, name]");
        d->tracks[i].bone = (uint32_t)b;
        d->tracks[i].mask = (uint32_t)m;
        if (tn && !(d->tracks[i].name = latin1_back(f, tn))) return -1;
    }
    d->track_count = tl->count;
    d->index = (uint32_t)index;
    return 1;
}

static void ignored(ctx *c)
{
    char where[96];
    if (c->index >= 0) snprintf(where, sizeof where, "%s %lld", c->where, c->index);
    else snprintf(where, sizeof where, "%s", c->where);
    ganim_doc_warn(c->f->doc, GANIM_WARN_INCONSISTENT, c->offset, "gltf: %s: extras.ganim: %s; it is ignored", where,
                   c->why);
}

/* ---- animations ------------------------------------------------------------------------------- */

ganim_code gltf_carry_read_anim(gltf_file *f, const gj_value *anim, uint32_t ai, uint32_t span, gltf_carry_anim *out)
{
    memset(out, 0, sizeof *out);
    const gj_value *list = gj_get(gj_get(gj_get(anim, "extras"), "ganim"), "clips");
    if (!f->ganim || !list || !f->bone_count) return GANIM_OK;
    ctx c = { f, "animation", ai, NULL, 0 };
    int ok = 1;
    if (!gj_is(list, GJ_ARRAY) || list->count < 1 || list->count > 2) ok = bad(&c, list, "clips is not 1 or 2 clips");
    for (uint32_t k = 0; ok > 0 && k < list->count; k++)
        ok = read_clip(&c, &list->items[k], f->bone_count, 0, &out->d[k]);
    if (ok < 0) return GANIM_NOMEM(f->err);
    if (ok && list->count == 2 && out->d[0].index == out->d[1].index)
        ok = bad(&c, list, "the clip and its partner have the same index");
    for (uint32_t k = 0; ok && k < list->count; k++) /* the animation lasts as long as the longer */
        if (out->d[k].frame_count > span) ok = bad(&c, list, "a clip has more frames than its animation");
    if (ok) {
        if (!f->carry_owner) f->scratch_kept++;
        if (!f->carry_owner && (!(f->carry_owner = gltf_scratch(f, f->bone_count, 1)) ||
                                !(f->carry_mask = gltf_scratch(f, f->bone_count, 1))))
            return GANIM_ERR_NOMEM;
        out->owner = f->carry_owner;
        out->mask = f->carry_mask;
        memset(out->owner, 0, f->bone_count);
        memset(out->mask, 0, f->bone_count);
        for (uint32_t k = 0; ok && k < list->count; k++)
            for (uint32_t i = 0; ok && i < out->d[k].track_count; i++) {
                const gltf_carry_track *t = &out->d[k].tracks[i];
                if (out->owner[t->bone]) ok = bad(&c, list, "two tracks list the same bone");
                out->owner[t->bone] = (uint8_t)(k + 1);
                out->mask[t->bone] = (uint8_t)t->mask;
            }
    }
    if (!ok) {
        ignored(&c);
        memset(out, 0, sizeof *out);
        return GANIM_OK;
    }
    out->nd = list->count;
    return GANIM_OK;
}

/* Tracks in the order the description lists them, then any others in their own order. */
static ganim_code order_tracks(gltf_file *f, ganim_clip *clip, const gltf_carry_clip *d)
{
    if (!clip->track_count) return GANIM_OK;
    if (!f->carry_at) {
        f->scratch_kept++;
        if (!(f->carry_at = gltf_scratch(f, f->bone_count, sizeof *f->carry_at))) return GANIM_ERR_NOMEM;
        for (uint32_t b = 0; b < f->bone_count; b++) f->carry_at[b] = GLTF_NONE;
    }
    uint32_t *at = f->carry_at; /* GLTF_NONE everywhere between calls */
    ganim_track *t = ganim_doc_alloc_array(f->doc, clip->track_count, sizeof *t);
    uint8_t *taken = gltf_scratch(f, clip->track_count, 1);
    if (!taken) return GANIM_ERR_NOMEM;
    if (!t) return GANIM_NOMEM(f->err);
    for (uint32_t i = 0; i < clip->track_count; i++) at[clip->tracks[i].bone] = i;
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->track_count; i++) {
        uint32_t k = at[d->tracks[i].bone];
        if (k == GLTF_NONE || taken[k]) continue;
        taken[k] = 1;
        t[n] = clip->tracks[k];
        if (d->tracks[i].name) t[n].name = d->tracks[i].name;
        uint32_t m = d->tracks[i].mask;
        if ((m & GLTF_CARRY_VIS) && !t[n].visibility) {
            uint8_t *v = ganim_doc_alloc(f->doc, clip->frame_count);
            if (!v) return GANIM_NOMEM(f->err);
            memset(v, 1, clip->frame_count);
            t[n].visibility = v;
        }
        /* a constant scale the same as the rest scale on a track with visibility: the
         * visibility reader takes it for no scale */
        if (GLTF_CARRY_KIND(m, GLTF_SCALE) == GANIM_CHANNEL_CONSTANT && t[n].scale.kind == GANIM_CHANNEL_ABSENT &&
            t[n].visibility) {
            t[n].scale.kind = GANIM_CHANNEL_CONSTANT;
            t[n].scale.count = 1;
            t[n].scale.values = &f->doc->skeleton->bones[t[n].bone].rest.scale.x;
        }
        if ((m & GLTF_CARRY_STEP) && !t[n].step) {
            uint8_t *s = ganim_doc_alloc(f->doc, clip->frame_count);
            if (!s) return GANIM_NOMEM(f->err);
            t[n].step = s;
        }
        n++;
    }
    for (uint32_t i = 0; i < clip->track_count; i++) {
        at[clip->tracks[i].bone] = GLTF_NONE;
        if (!taken[i]) t[n++] = clip->tracks[i];
    }
    clip->tracks = t;
    return GANIM_OK;
}

ganim_code gltf_carry_apply(gltf_file *f, ganim_clip *clip, const gltf_carry_clip *d, int partner)
{
    /* without a name of its own: the animation's (a clip alone), or clip_<index> (a
     * clip played with its partner, whose animation is named after both) */
    if (d->name) clip->name = d->name;
    else if (partner && !(clip->name = ganim_doc_name_u32(f->doc, "clip_", d->index))) return GANIM_NOMEM(f->err);
    clip->rotation_interp = d->interp;
    clip->events = d->events;
    clip->event_count = d->event_count;
    if (d->record_format) {
        clip->native_format = d->record_format;
        clip->native = d->record;
        clip->native_size = d->record_size;
    }
    return order_tracks(f, clip, d);
}

/* ---- the skeleton ------------------------------------------------------------------------------ */

ganim_code gltf_carry_skeleton(gltf_file *f)
{
    if (!f->ganim || f->skin < 0 || !f->doc->skeleton) return GANIM_OK;
    const gj_value *extras;
    gltf_skin_ex x;
    ganim_code code = gltf_skin_extras(f, (uint32_t)f->skin, &x, &extras);
    if (code != GANIM_OK) return code;
    const gj_value *ex = gj_get(extras, "ganim");
    if (!ex) return GANIM_OK;
    ctx c = { f, "skin", (int)f->skin, NULL, 0 };
    const char *fmt;
    const uint8_t *data = NULL;
    size_t size = 0;
    int ok = read_record(&c, ex, &fmt, &data, &size);
    if (ok < 0) return GANIM_NOMEM(f->err);
    if (!ok) {
        ignored(&c);
        return GANIM_OK;
    }
    if (fmt) {
        f->doc->skeleton->native_format = fmt;
        f->doc->skeleton->native = data;
        f->doc->skeleton->native_size = size;
    }
    return GANIM_OK;
}

/* ---- the document ------------------------------------------------------------------------------ */

typedef struct item {
    uint32_t key;  /* the index in the exported document, or GLTF_NONE */
    uint32_t from; /* made clip k, or made + opaque clip k */
} item;

/* By index, undescribed clips last; ties in the file's order. */
static int item_order(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->from < b->from ? -1 : a->from > b->from;
}

ganim_code gltf_carry_finish(gltf_file *f, ganim_clip *clips, uint32_t made, const gltf_carry_clip *desc,
                             const uint32_t *partner)
{
    ganim_doc *doc = f->doc;
    const gj_value *meta = f->meta_v; /* (asset.extras.ganim, found by read_json) */
    ctx c = { f, "asset", -1, NULL, 0 };
    uint32_t nop = 0, declared = GLTF_NONE;
    gltf_carry_clip *op = NULL;
    if (f->ganim) {
        uint64_t n;
        const gj_value *cc = gj_get(meta, "clip_count");
        if (cc && gj_uint(cc, UINT32_MAX, &n)) declared = (uint32_t)n;
        else if (cc) bad(&c, cc, "clip_count is not a count");
        const char *fmt;
        const uint8_t *data = NULL;
        size_t size = 0;
        int ok = read_record(&c, meta, &fmt, &data, &size);
        if (ok < 0) return GANIM_NOMEM(f->err);
        if (ok && fmt) {
            doc->native_format = fmt;
            doc->native = data;
            doc->native_size = size;
        }
        if (!ok) ignored(&c), c.why = NULL, ok = 1;
        const gj_value *ol = gj_get(meta, "opaque_clips");
        const ganim_limits *lim = ganim_doc_limits(doc);
        if (ol && (!gj_is(ol, GJ_ARRAY) || (uint64_t)ol->count + made > lim->clips)) {
            bad(&c, ol, "opaque_clips is not a list of clips within the clip limit");
        } else if (ol && ol->count) {
            if (!(op = gltf_scratch(f, ol->count, sizeof *op))) return GANIM_ERR_NOMEM;
            for (uint32_t k = 0; k < ol->count && ok > 0; k++) ok = read_clip(&c, &ol->items[k], 0, 1, &op[nop++]);
            if (ok < 0) return GANIM_NOMEM(f->err);
            if (!ok) nop = 0;
        }
        if (c.why) ignored(&c), c.why = NULL;
    }
    uint32_t total = made + nop;
    item *it = gltf_scratch(f, total, sizeof *it);
    uint32_t *pos = gltf_scratch(f, total, sizeof *pos);
    if (!it || !pos) return GANIM_ERR_NOMEM;
    uint32_t described = 0;
    for (uint32_t k = 0; k < total; k++) {
        it[k].from = k;
        it[k].key = k < made ? desc[k].index : op[k - made].index;
        described += it[k].key != GLTF_NONE;
    }
    if (!described) { /* not ganim's, or an older ganim: the animations' order */
        doc->clips = clips;
        doc->clip_count = made;
        for (uint32_t k = 0; k < made; k++)
            if (partner[k] != GLTF_NONE) clips[k].partner = partner[k] + 1;
        return GANIM_OK;
    }
    qsort(it, total, sizeof *it, item_order);
    int kept = declared == total, dup = 0;
    for (uint32_t i = 0; i < total; i++) {
        kept &= it[i].key == i;
        dup |= i && it[i].key != GLTF_NONE && it[i].key == it[i - 1].key;
        pos[it[i].from] = i;
    }
    /* without clip_count (an export of one clip) the indices need not start at 0 */
    if (declared == GLTF_NONE ? dup : !kept)
        ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, meta ? meta->offset : GANIM_NO_OFFSET,
                       "gltf: the file holds %u clips where ganim exported %u%s; they keep ganim's order but not "
                       "all of their indices",
                       total, declared == GLTF_NONE ? total : declared,
                       declared == GLTF_NONE ? " (or clips were added)" : "");
    ganim_clip *out = ganim_doc_alloc_array(doc, total, sizeof *out);
    if (!out) return GANIM_NOMEM(f->err);
    for (uint32_t i = 0; i < total; i++) {
        uint32_t k = it[i].from;
        if (k < made) {
            out[i] = clips[k];
            if (partner[k] != GLTF_NONE) out[i].partner = pos[partner[k]] + 1;
            continue;
        }
        if (!op) continue; /* (k >= made only when there are opaque clips) */
        const gltf_carry_clip *d = &op[k - made];
        ganim_clip *o = &out[i];
        o->name = d->name;
        o->kind = GANIM_CLIP_OPAQUE;
        o->fps = d->fps;
        o->frame_count = d->frame_count;
        o->rotation_interp = d->interp;
        o->opaque = d->opaque;
        o->opaque_size = d->opaque_size;
        o->events = d->events;
        o->event_count = d->event_count;
        o->native_format = d->record_format;
        o->native = d->record;
        o->native_size = d->record_size;
    }
    doc->clips = out;
    doc->clip_count = total;
    return GANIM_OK;
}
