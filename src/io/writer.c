/* Growable byte writer. Sticky failure: after an allocation fails nothing more is
 * written and gw_ok() turns false, so callers check once at the end. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "io/numtext.h"
#include "io/writer.h"

ganim_writer gw_init(ganim_buffer *buf, const ganim_allocator *alloc)
{
    ganim_writer w = { buf, false, 0, NULL, NULL, false };
    if (!buf->data) buf->allocator = ganim_allocator_resolve(alloc ? alloc : &buf->allocator);
    return w;
}

static bool drop(void *ctx, size_t offset, const void *data, size_t n)
{
    (void)ctx, (void)offset, (void)data, (void)n;
    return true;
}

ganim_writer gw_sink_init(ganim_buffer *buf, const ganim_allocator *alloc, size_t base, gw_sink_fn sink, void *ctx)
{
    ganim_writer w = gw_init(buf, alloc);
    w.base = base;
    w.sink = sink ? sink : drop;
    w.sink_ctx = ctx;
    w.drops = !sink;
    return w;
}

void gw_flush(ganim_writer *w)
{
    ganim_buffer *b = w->buf;
    if (!w->sink || w->failed || !b->size) return;
    if (!w->sink(w->sink_ctx, w->base, b->data, b->size)) w->failed = true;
    w->base += b->size;
    b->size = 0;
}

void gw_skip(ganim_writer *w, size_t n)
{
    gw_flush(w);
    if (w->sink) w->base += n;
    else gw_zeros(w, n);
}

bool gw_reserve(ganim_writer *w, size_t extra)
{
    if (w->failed) return false;
    ganim_buffer *b = w->buf;
    if (extra <= b->capacity - b->size) return true;
    if (w->sink && b->size && b->size + extra > GW_PIECE) { /* the piece goes */
        gw_flush(w);
        if (w->failed) return false;
        if (extra <= b->capacity - b->size) return true;
    }
    if (extra > SIZE_MAX / 2 - b->size) {
        w->failed = true;
        return false;
    }
    size_t need = b->size + extra, cap = b->capacity ? b->capacity : 256;
    while (cap < need) cap *= 2;
    if (w->sink && cap > GW_PIECE) cap = need > GW_PIECE ? need : GW_PIECE; /* larger: only for one write */
    ganim_allocator a = ganim_allocator_resolve(&b->allocator);
    uint8_t *p = ganim_realloc(&a, b->data, b->capacity, cap);
    if (!p) {
        w->failed = true;
        return false;
    }
    b->data = p;
    b->capacity = cap;
    return true;
}

void gw_bytes(ganim_writer *w, const void *data, size_t n)
{
    if (!n || !gw_reserve(w, n)) return;
    memcpy(w->buf->data + w->buf->size, data, n);
    w->buf->size += n;
}

void gw_zeros(ganim_writer *w, size_t n)
{
    if (!n || !gw_reserve(w, n)) return;
    memset(w->buf->data + w->buf->size, 0, n);
    w->buf->size += n;
}

void gw_u8_slow(ganim_writer *w, uint8_t v) { gw_bytes(w, &v, 1); }

void gw_u16le(ganim_writer *w, uint16_t v)
{
    uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    gw_bytes(w, b, 2);
}

void gw_u16be(ganim_writer *w, uint16_t v)
{
    uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
    gw_bytes(w, b, 2);
}

void gw_u32le(ganim_writer *w, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    gw_bytes(w, b, 4);
}

void gw_u32be(ganim_writer *w, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
    gw_bytes(w, b, 4);
}

void gw_f32le(ganim_writer *w, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    gw_u32le(w, u);
}

void gw_f64le(ganim_writer *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    gw_u32le(w, (uint32_t)u);
    gw_u32le(w, (uint32_t)(u >> 32));
}

void gw_patch_u32le(ganim_writer *w, size_t at, uint32_t v)
{
    if (w->failed || at < w->base || (at -= w->base) > w->buf->size || w->buf->size - at < 4) return;
    uint8_t *p = w->buf->data + at;
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

void gw_patch_u16le(ganim_writer *w, size_t at, uint16_t v)
{
    if (w->failed || at < w->base || (at -= w->base) > w->buf->size || w->buf->size - at < 2) return;
    w->buf->data[at] = (uint8_t)v;
    w->buf->data[at + 1] = (uint8_t)(v >> 8);
}

void gw_str(ganim_writer *w, const char *s) { gw_bytes(w, s, strlen(s)); }

void gw_dec(ganim_writer *w, uint64_t v)
{
    char tmp[20];
    gw_bytes(w, tmp, (size_t)(gw_dec_chars(tmp, v) - tmp));
}

void gw_int(ganim_writer *w, int64_t v)
{
    char tmp[21];
    tmp[0] = '-';
    uint64_t mag = v < 0 ? 0u - (uint64_t)v : (uint64_t)v; /* INT64_MIN too */
    char *start = v < 0 ? tmp + 1 : tmp;
    gw_bytes(w, tmp, (size_t)(gw_dec_chars(start, mag) - tmp));
}

void gw_printf(ganim_writer *w, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        gw_bytes(w, tmp, (size_t)n);
        return;
    }
    if (!gw_reserve(w, (size_t)n + 1)) return;
    va_start(ap, fmt);
    vsnprintf((char *)w->buf->data + w->buf->size, (size_t)n + 1, fmt, ap);
    va_end(ap);
    w->buf->size += (size_t)n;
}

void gw_float(ganim_writer *w, float v)
{
    if (!isfinite(v)) v = 0;
    if (gw_has_room(w, GNUM_FLOAT_CHARS)) { /* what gw_bytes would store, without the copy */
        w->buf->size += gnum_float(gw_end(w), v);
        return;
    }
    char tmp[GNUM_FLOAT_CHARS];
    gw_bytes(w, tmp, gnum_float(tmp, v));
}

void gw_double(ganim_writer *w, double v)
{
    char tmp[GNUM_DOUBLE_CHARS];
    if (!isfinite(v)) v = 0;
    gw_bytes(w, tmp, gnum_double(tmp, v));
}

void gw_double_prec(ganim_writer *w, double v, int prec)
{
    char tmp[GNUM_DOUBLE_CHARS];
    if (!isfinite(v)) v = 0;
    gw_bytes(w, tmp, gnum_double_prec(tmp, v, prec));
}

void gw_json_string(ganim_writer *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    gw_u8(w, '"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        /* a run of bytes that need no escape goes in at once */
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\') p++;
        if (p > run) gw_bytes(w, run, (size_t)(p - run));
        if (!*p) break;
        unsigned char c = *p;
        if (c == '"' || c == '\\') {
            gw_u8(w, '\\');
            gw_u8(w, c);
        } else if (c == '\n') {
            gw_str(w, "\\n");
        } else if (c == '\t') {
            gw_str(w, "\\t");
        } else if (c == '\r') {
            gw_str(w, "\\r");
        } else if (c < 0x20 || c >= 0x7f) {
            /* Control bytes, and bytes of non-ASCII names (game files carry code-page
             * text, not UTF-8): escaped as U+00xx so the JSON stays valid UTF-8. */
            char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            gw_bytes(w, e, 6);
        }
    }
    gw_u8(w, '"');
}
