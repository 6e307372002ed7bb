/* glTF export: what a game file needs and glTF cannot say, carried in extras.ganim so that
 * ganim's glTF reader gives the document back (src/formats/gltf/gltf_carry.c). Nothing
 * here knows a game: it carries the model's own generic things.
 *
 *   asset.extras.ganim      clip_count (whole exports), the document's native record,
 *                           opaque_clips (slots that are not animations: index, name,
 *                           bytes, their record)
 *   skins[0].extras.ganim   the skeleton's native record
 *   animations[i].extras.ganim.clips
 *                           the clip (and its partner, played in the same animation): its
 *                           index and name in the document, frame count, rotation
 *                           interpolation, the bones it has tracks for and which channels,
 *                           its events and its native record
 *
 * Byte blobs are base64 (RFC 4648, with padding). The glTF reader's own record (format
 * "gltf", which describes the glb it read) is not carried. Layout: docs/dump-format.md. */
#include "export/export_gltf.h"

/* The base64 digit of x in 0..63, and the two digits of 12 bits (x >> 6, x & 63) as one
 * table entry, built by the compiler: one load per 12 input bits. */
#define B64_D(x) ((x) < 26 ? 'A' + (x) : (x) < 52 ? 'a' + ((x)-26) : (x) < 62 ? '0' + ((x)-52) : (x) == 62 ? '+' : '/')
#define B64_P1(i)                                  \
    {                                              \
        (char)B64_D((i) >> 6), (char)B64_D((i)&63) \
    }
#define B64_P4(i) B64_P1(i), B64_P1((i) + 1), B64_P1((i) + 2), B64_P1((i) + 3)
#define B64_P16(i) B64_P4(i), B64_P4((i) + 4), B64_P4((i) + 8), B64_P4((i) + 12)
#define B64_P64(i) B64_P16(i), B64_P16((i) + 16), B64_P16((i) + 32), B64_P16((i) + 48)
#define B64_P256(i) B64_P64(i), B64_P64((i) + 64), B64_P64((i) + 128), B64_P64((i) + 192)
#define B64_P1024(i) B64_P256(i), B64_P256((i) + 256), B64_P256((i) + 512), B64_P256((i) + 768)
static const char b64_pairs[4096][2] = { B64_P1024(0), B64_P1024(1024), B64_P1024(2048), B64_P1024(3072) };

/* The SSSE3 and AVX2 paths of gx_b64_digits: gcc or clang on x86, chosen at run time. */
#if defined(__SSE2__) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define GX_HAVE_SSSE3 1
#include <immintrin.h>
#else
#define GX_HAVE_SSSE3 0
#endif

#if GX_HAVE_SSSE3
/* Twelve bytes (of the 16 loaded) to sixteen digits, W. Mula's method: each group of three
 * bytes is spread over a 32-bit lane as b1 b0 b2 b1, whose four 6-bit fields a
 * multiply-high and a multiply-low move into the lane's four bytes; each field then
 * becomes its digit by adding the offset of its range ('A', 'a' - 26, '0' - 52, '+' - 62,
 * '/' - 63), picked by a byte shuffle from the field's class. The AVX2 run does the same
 * in each 128-bit half, on the twelve bytes at p and the twelve after them. Each run
 * returns the bytes it took, a multiple of 12 (so of 3: the digits are those of the whole),
 * stopping while the last load is still in the input. */
__attribute__((target("ssse3"))) static size_t b64_run_ssse3(uint8_t *o, const uint8_t *p, size_t n)
{
    const __m128i spread = _mm_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1);
    const __m128i hi_mask = _mm_set1_epi32(0x0fc0fc00), hi_mul = _mm_set1_epi32(0x04000040);
    const __m128i lo_mask = _mm_set1_epi32(0x003f03f0), lo_mul = _mm_set1_epi32(0x01000010);
    const __m128i b51 = _mm_set1_epi8(51), b26 = _mm_set1_epi8(26), b13 = _mm_set1_epi8(13);
    /* class: 0..25 -> 13, 26..51 -> 0, 52..61 -> 1..10, 62 -> 11, 63 -> 12 */
    const __m128i shift = _mm_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                                        '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
    size_t i = 0;
    for (; n - i >= 16; i += 12, o += 16) {
        __m128i in = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i)), spread);
        __m128i x = _mm_or_si128(_mm_mulhi_epu16(_mm_and_si128(in, hi_mask), hi_mul),
                                 _mm_mullo_epi16(_mm_and_si128(in, lo_mask), lo_mul)); /* the 16 fields, 0..63 */
        __m128i cls = _mm_or_si128(_mm_subs_epu8(x, b51), _mm_and_si128(_mm_cmpgt_epi8(b26, x), b13));
        _mm_storeu_si128((__m128i *)(void *)o, _mm_add_epi8(_mm_shuffle_epi8(shift, cls), x));
    }
    return i;
}

__attribute__((target("avx2"))) static size_t b64_run_avx2(uint8_t *o, const uint8_t *p, size_t n)
{
    const __m256i spread = _mm256_set_epi8(10, 11, 9, 10, 7, 8, 6, 7, 4, 5, 3, 4, 1, 2, 0, 1, 10, 11, 9, 10, 7, 8, 6, 7,
                                           4, 5, 3, 4, 1, 2, 0, 1);
    const __m256i hi_mask = _mm256_set1_epi32(0x0fc0fc00), hi_mul = _mm256_set1_epi32(0x04000040);
    const __m256i lo_mask = _mm256_set1_epi32(0x003f03f0), lo_mul = _mm256_set1_epi32(0x01000010);
    const __m256i b51 = _mm256_set1_epi8(51), b26 = _mm256_set1_epi8(26), b13 = _mm256_set1_epi8(13);
    const __m256i shift = _mm256_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                                           '0' - 52, '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0,
                                           'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                                           '0' - 52, '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
    size_t i = 0;
    for (; n - i >= 28; i += 24, o += 32) {
        __m256i in =
            _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(p + i))),
                                    _mm_loadu_si128((const __m128i *)(const void *)(p + i + 12)), 1);
        in = _mm256_shuffle_epi8(in, spread);
        __m256i x = _mm256_or_si256(_mm256_mulhi_epu16(_mm256_and_si256(in, hi_mask), hi_mul),
                                    _mm256_mullo_epi16(_mm256_and_si256(in, lo_mask), lo_mul));
        __m256i cls = _mm256_or_si256(_mm256_subs_epu8(x, b51), _mm256_and_si256(_mm256_cmpgt_epi8(b26, x), b13));
        _mm256_storeu_si256((__m256i *)(void *)o, _mm256_add_epi8(_mm256_shuffle_epi8(shift, cls), x));
    }
    return i;
}
#endif

uint8_t *gx_b64_digits_upto(uint8_t *o, const uint8_t *p, size_t n, int level)
{
    size_t i = 0;
#if GX_HAVE_SSSE3
    if (level >= 2 && n >= 28 && __builtin_cpu_supports("avx2")) {
        i = b64_run_avx2(o, p, n);
        o += i / 3 * 4;
    }
    if (level >= 1 && n - i >= 16 && __builtin_cpu_supports("ssse3")) {
        size_t k = b64_run_ssse3(o, p + i, n - i);
        i += k;
        o += k / 3 * 4;
    }
#else
    (void)level;
#endif
    return gx_b64_digits_scalar(o, p + i, n - i); /* i is a multiple of 3: the same digits */
}

uint8_t *gx_b64_digits(uint8_t *o, const uint8_t *p, size_t n) { return gx_b64_digits_upto(o, p, n, 2); }

uint8_t *gx_b64_digits_scalar(uint8_t *o, const uint8_t *p, size_t n)
{
    size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && (defined(__GNUC__) || defined(__clang__))
    /* six bytes to eight digits: one 8-byte load (two bytes past the six, still in the
     * input), then four pairs of digits copied from the table */
    for (; n - i >= 8; i += 6, o += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        v = __builtin_bswap64(v); /* the six bytes big-endian in bits 63..16 */
        memcpy(o, b64_pairs[v >> 52], 2);
        memcpy(o + 2, b64_pairs[(v >> 40) & 4095], 2);
        memcpy(o + 4, b64_pairs[(v >> 28) & 4095], 2);
        memcpy(o + 6, b64_pairs[(v >> 16) & 4095], 2);
    }
#endif
    for (; n - i >= 3; i += 3, o += 4) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        memcpy(o, b64_pairs[v >> 12], 2);
        memcpy(o + 2, b64_pairs[v & 4095], 2);
    }
    if (i < n) { /* 1 or 2 bytes left: padded */
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        memcpy(o, b64_pairs[v >> 12], 2);
        o[2] = i + 1 < n ? (uint8_t)b64_pairs[v & 4095][0] : (uint8_t)'=';
        o[3] = '=';
        o += 4;
    }
    return o;
}

/* Bytes encoded a block at a time (a multiple of 3: the digits are those of the whole),
 * so that a streamed export holds one piece of them at a time. */
#define B64_BLOCK ((size_t)48 << 10)

/* The n bytes as a JSON string of base64 digits, written straight into the reserved
 * bytes; a writer that only counts (the measuring run of a streamed export) skips them. */
static void b64(ganim_writer *w, const uint8_t *p, size_t n)
{
    if (n > (SIZE_MAX - 8) / 2) {
        w->failed = true;
        return;
    }
    if (gw_drops(w)) {
        gw_skip(w, (n + 2) / 3 * 4 + 2); /* the quotes, 4 characters per 3 bytes (or fewer) */
        return;
    }
    gw_u8(w, '"');
    for (size_t i = 0, k; i < n; i += k) {
        k = n - i < B64_BLOCK ? n - i : B64_BLOCK;
        size_t len = (k + 2) / 3 * 4;
        if (!gw_reserve(w, len)) return;
        w->buf->size += (size_t)(gx_b64_digits(w->buf->data + w->buf->size, p + i, k) - (w->buf->data + w->buf->size));
    }
    gw_u8(w, '"');
}

/* Does a native record travel? (Not the glTF reader's own description of a glb.) */
static int carried(const char *format, const uint8_t *data, size_t size)
{
    return format && (data || !size) && strcmp(format, "gltf") != 0;
}

/* `,"native_record":{"format":F,"size":N,"base64":B}` (nothing when there is none) */
static void record(ganim_writer *w, const char *format, const uint8_t *data, size_t size)
{
    if (!carried(format, data, size)) return;
    gw_str(w, ",\"native_record\":{\"format\":");
    gw_json_string(w, format);
    gw_str(w, ",\"size\":");
    gw_dec(w, size);
    gw_str(w, ",\"base64\":");
    b64(w, data, size);
    gw_u8(w, '}');
}

static void events(ganim_writer *w, const ganim_clip *c)
{
    if (!c->event_count) return;
    gw_str(w, ",\"events\":[");
    for (uint32_t i = 0; i < c->event_count; i++) {
        gw_str(w, i ? ",[" : "[");
        gw_float(w, c->events[i].frame);
        gw_u8(w, ',');
        gw_dec(w, c->events[i].id);
        gw_u8(w, ']');
    }
    gw_u8(w, ']');
}

/* The fields every carried clip has: index, name, fps, frame count, rotation
 * interpolation. The name is left out when it is "" or the animation's own (`anim`, NULL
 * for opaque clips): the reader then takes the animation's name, so that a clip exported
 * unnamed keeps the name its export gave it (--into finds it by that name) and the second
 * export is the first. */
static void clip_head(ganim_writer *w, const ganim_clip *c, uint32_t index, const char *anim)
{
    gw_str(w, "{\"index\":");
    gw_dec(w, index);
    if (!anim || (c->name[0] && strcmp(c->name, anim) != 0)) {
        gw_str(w, ",\"name\":");
        gw_json_string(w, c->name);
    }
    gw_str(w, ",\"fps\":");
    gw_double(w, c->fps);
    gw_str(w, ",\"frame_count\":");
    gw_dec(w, c->frame_count);
    gw_str(w, c->rotation_interp == GANIM_INTERP_NLERP ? ",\"rotation_interp\":\"nlerp\""
                                                       : ",\"rotation_interp\":\"slerp\"");
}

ganim_code gl_carry_source_format(gl *g, ganim_writer *w)
{
    const ganim_doc *doc = g->doc;
    const char *name = doc->format && doc->format->name ? doc->format->name : NULL;
    if (!name || strcmp(name, "gltf") != 0) {
        if (name) gw_json_string(w, name);
        else gw_str(w, "null");
        return GANIM_OK;
    }
    /* read from a glTF: the document record ganim carried names the source, else the
     * glTF reader's details say what the file named */
    if (doc->native_format && strcmp(doc->native_format, "gltf") != 0) {
        gw_json_string(w, doc->native_format);
        return GANIM_OK;
    }
    ganim_details *d = NULL;
    ganim_code code = ganim_doc_details(doc, -1, GANIM_DETAILS_SUMMARY, &g->alloc, &d, g->err);
    if (code != GANIM_OK) return code;
    const char *src = NULL;
    const ganim_detail *root = d->root;
    for (uint32_t i = 0; root && root->type == GANIM_DETAIL_GROUP && i < root->count && !src; i++) {
        const ganim_detail *m = &root->items[i];
        if (!m->key || strcmp(m->key, "ganim") != 0 || m->type != GANIM_DETAIL_GROUP) continue;
        for (uint32_t k = 0; k < m->count; k++)
            if (m->items[k].key && !strcmp(m->items[k].key, "source_format") &&
                m->items[k].type == GANIM_DETAIL_STRING && m->items[k].value.s && m->items[k].value.s[0])
                src = m->items[k].value.s;
    }
    gw_json_string(w, src ? src : name);
    ganim_details_free(d);
    return GANIM_OK;
}

void gl_carry_asset(gl *g)
{
    const ganim_doc *doc = g->doc;
    ganim_writer *w = &g->js;
    if (!g->o.only_clip) gw_printf(w, ",\"clip_count\":%u", doc->clip_count);
    record(w, doc->native_format, doc->native, doc->native_size);
    if (g->o.only_clip) return;
    int first = 1;
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *c = &doc->clips[i];
        if (c->kind != GANIM_CLIP_OPAQUE) continue;
        gw_str(w, first ? ",\"opaque_clips\":[" : ",");
        first = 0;
        clip_head(w, c, i, NULL);
        gx_text_dec(w, ",\"size\":", c->opaque_size);
        gw_str(w, ",\"base64\":");
        b64(w, c->opaque, c->opaque_size);
        events(w, c);
        record(w, c->native_format, c->native, c->native_size);
        gw_u8(w, '}');
    }
    if (!first) gw_u8(w, ']');
}

void gl_carry_skin(gl *g)
{
    const ganim_skeleton *sk = g->sk;
    if (!carried(sk->native_format, sk->native, sk->native_size)) return;
    gw_str(&g->js, ",\"extras\":{\"ganim\":{\"native_record\":{\"format\":");
    gw_json_string(&g->js, sk->native_format);
    gw_printf(&g->js, ",\"size\":%zu,\"base64\":", sk->native_size);
    b64(&g->js, sk->native, sk->native_size);
    gw_str(&g->js, "}}}");
}

/* One clip of an animation: `tracks` lists [bone, channels] for the tracks written for it
 * (channels: the kinds of the rotation, translation and scale channels in bits 0-1, 2-3
 * and 4-5, as ganim_channel_kind numbers them (0 absent, 1 constant, 2 per frame, 3
 * keyed); bit 6: visibility bytes; bit 7: step bytes), and the track's own name when it
 * is not its bone's. */
static void carry_clip(gl *g, const ganim_clip *c, uint32_t index)
{
    ganim_writer *w = &g->js;
    clip_head(w, c, index, g->clip_name);
    gw_str(w, ",\"tracks\":[");
    int first = 1;
    for (uint32_t ti = 0; ti < c->track_count; ti++) {
        const ganim_track *t = &c->tracks[ti];
        if (g->bone_track[t->bone] != t) continue; /* left out: the other clip animates the bone */
        unsigned m = (unsigned)t->rotation.kind | (unsigned)t->translation.kind << 2 | (unsigned)t->scale.kind << 4 |
                     (t->visibility ? 64u : 0u) | (t->step ? 128u : 0u);
        /* integers without printf (a printf call is ~1,300 instructions; a pack has thousands of tracks) */
        gw_str(w, first ? "[" : ",[");
        gw_dec(w, t->bone);
        gw_u8(w, ',');
        gw_dec(w, m);
        first = 0;
        const char *bone_name = g->sk->bones[t->bone].name;
        if (t->name && strcmp(t->name, bone_name) != 0) {
            gw_u8(w, ',');
            gw_json_string(w, t->name);
        }
        gw_u8(w, ']');
    }
    gw_u8(w, ']');
    events(w, c);
    record(w, c->native_format, c->native, c->native_size);
    gw_u8(w, '}');
}

void gl_carry_clips(gl *g, uint32_t ci, const ganim_clip *partner)
{
    const ganim_clip *c = &g->doc->clips[ci];
    gw_str(&g->js, ",\"clips\":[");
    carry_clip(g, c, ci);
    if (partner) {
        gw_u8(&g->js, ',');
        carry_clip(g, partner, c->partner - 1);
    }
    gw_u8(&g->js, ']');
}
