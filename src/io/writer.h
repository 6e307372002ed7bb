/* Growable byte writer over a ganim_buffer. Errors are sticky: after a failed
 * allocation every write is ignored and gw_ok() returns false. A writer made by
 * gw_sink_init holds one bounded piece at a time: what it wrote leaves its buffer for a
 * sink when the next write needs the room. */
#ifndef GANIM_IO_WRITER_H
#define GANIM_IO_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "ganim.h"

/* Takes n bytes a writer wrote at position `offset` (gw_pos's count); false stops the
 * writer (it fails). */
typedef bool (*gw_sink_fn)(void *ctx, size_t offset, const void *data, size_t n);

typedef struct ganim_writer {
    ganim_buffer *buf;
    bool failed;
    size_t base;     /* the position of buf's first byte: bytes handed to the sink or skipped */
    gw_sink_fn sink; /* NULL: the buffer grows to hold everything written */
    void *sink_ctx;
    bool drops; /* a sink writer that only counts (gw_sink_init with no sink) */
} ganim_writer;

/* `buf` keeps its contents; its allocator is taken from `alloc` (NULL: malloc) if the
 * buffer is still empty. */
ganim_writer gw_init(ganim_buffer *buf, const ganim_allocator *alloc);
static inline bool gw_ok(const ganim_writer *w) { return !w->failed; }
static inline size_t gw_pos(const ganim_writer *w) { return w->base + w->buf->size; }

/* The size of a sink writer's piece: its buffer grows as others do up to that, then hands
 * its bytes over when full, and grows past it only for a single write (or gw_reserve)
 * larger than that. */
#define GW_PIECE ((size_t)64 << 10)
/* A writer whose bytes go to `sink` in pieces (GW_PIECE), the first at position `base`;
 * `buf` must be empty (its allocator is taken from `alloc`), and is freed by the caller
 * after gw_flush. A sink of NULL drops the bytes (a writer that only counts). */
ganim_writer gw_sink_init(ganim_buffer *buf, const ganim_allocator *alloc, size_t base, gw_sink_fn sink, void *ctx);
/* A writer that only counts: what it is given is dropped, so a caller may gw_skip what it
 * would have made. */
static inline bool gw_drops(const ganim_writer *w) { return w->drops; }
/* A sink writer hands what its buffer holds to its sink (nothing for other writers). */
void gw_flush(ganim_writer *w);
/* A sink writer's position moves on by n bytes that someone else writes (after a flush). */
void gw_skip(ganim_writer *w, size_t n);

bool gw_reserve(ganim_writer *w, size_t extra);
void gw_bytes(ganim_writer *w, const void *data, size_t n);
void gw_zeros(ganim_writer *w, size_t n);
/* One byte: stored at once when the buffer has room (what gw_bytes would do then), else
 * through gw_bytes. */
void gw_u8_slow(ganim_writer *w, uint8_t v);
static inline void gw_u8(ganim_writer *w, uint8_t v)
{
    ganim_buffer *b = w->buf;
    if (!w->failed && b->size < b->capacity) b->data[b->size++] = v;
    else gw_u8_slow(w, v);
}
void gw_u16le(ganim_writer *w, uint16_t v);
void gw_u16be(ganim_writer *w, uint16_t v);
void gw_u32le(ganim_writer *w, uint32_t v);
void gw_u32be(ganim_writer *w, uint32_t v);
void gw_f32le(ganim_writer *w, float v);
void gw_f64le(ganim_writer *w, double v);
/* Overwrite bytes already written (for sizes known only later), at gw_pos positions
 * still in the buffer. */
void gw_patch_u32le(ganim_writer *w, size_t at, uint32_t v);
void gw_patch_u16le(ganim_writer *w, size_t at, uint16_t v);
/* A C string's bytes. */
void gw_str(ganim_writer *w, const char *s);
/* printf-style text (locale-independent for %d/%s; floats: use gw_float): ~1,000
 * instructions a call, for text written once per file; loops use gw_str and gw_dec. */
void gw_printf(ganim_writer *w, const char *fmt, ...) GANIM_PRINTF(2, 3);
/* An unsigned integer in decimal, as printf's %u / %zu / %llu write it (no printf). */
void gw_dec(ganim_writer *w, uint64_t v);
/* A signed integer, as printf's %d / %lld write it (no printf). */
void gw_int(ganim_writer *w, int64_t v);
/* The same digits stored at p (room for 20 characters); returns the end. Two digits a
 * step from a table of the pairs 00..99. */
static inline char *gw_dec_chars(char *p, uint64_t v)
{
    static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                   "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                   "8081828384858687888990919293949596979899";
    char t[20]; /* UINT64_MAX has 20 digits */
    size_t n = sizeof t;
    while (v >= 100u) {
        size_t r = (size_t)(v % 100u);
        v /= 100u;
        n -= 2;
        memcpy(t + n, pairs + 2 * r, 2);
    }
    if (v >= 10u) {
        n -= 2;
        memcpy(t + n, pairs + 2 * v, 2);
    } else {
        t[--n] = (char)('0' + v);
    }
    memcpy(p, t + n, sizeof t - n);
    return p + sizeof t - n;
}
/* Shortest text that reads back as the same float32 (%.9g at most), JSON-safe:
 * NaN and infinities are written as 0 (callers validate first). Written straight into
 * the buffer when it has GNUM_FLOAT_CHARS (24) bytes of room (no reserve, no copy). */
void gw_float(ganim_writer *w, float v);
/* Room for n more bytes already in the buffer (nothing to reserve, flush or grow): a
 * caller may then store up to n bytes at gw_end and move gw_pos on (gw_advance). */
static inline bool gw_has_room(const ganim_writer *w, size_t n)
{
    return !w->failed && w->buf->capacity - w->buf->size >= n;
}
static inline char *gw_end(ganim_writer *w) { return (char *)w->buf->data + w->buf->size; }
static inline void gw_advance(ganim_writer *w, char *end) { w->buf->size = (size_t)((uint8_t *)end - w->buf->data); }
/* Same for doubles (17 significant digits at most). */
void gw_double(ganim_writer *w, double v);
/* printf's "%.*g" of v at a precision 1..17, with '.' whatever LC_NUMERIC says; NaN and
 * infinities as 0. */
void gw_double_prec(ganim_writer *w, double v, int prec);
/* A JSON string literal with escapes. */
void gw_json_string(ganim_writer *w, const char *s);

#endif
