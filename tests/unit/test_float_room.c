/* Floats written straight into a writer's buffer (gw_float, the JSON dump's rows): the
 * same bytes, and the same growth and hand-over of a sink writer's pieces, whatever room
 * the buffer has left when a number comes. gw_float stores its text in place when the
 * buffer has GNUM_FLOAT_CHARS bytes of room and goes through gw_bytes otherwise; the
 * dump's rows of 3 or 4 values do the same with one room check a row. The reference
 * text is the C library's: the smallest precision 6..9 of snprintf("%.*g") that strtof
 * reads back, as gw_float wrote it before numtext.c (test_numtext compares the two on
 * every float class). */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "io/numtext.h"
#include "io/writer.h"
#include "support/tbuild.h"
#include "support/tnumtext.h"
#include "test.h"

/* gw_float writes a value that is not finite as 0 */
static size_t reference(char *out, size_t cap, float v) { return tn_float_text(out, cap, isfinite(v) ? v : 0.0f); }

static float from_bits(uint32_t u) { return tn_float_bits(u); }

/* Edge floats (both paths of numtext.c, every %g layout, NaN and infinities mapped to 0)
 * and random bit patterns. */
static size_t test_floats(float *v, size_t cap)
{
    static const float fixed[] = { 0.0f,         -0.0f,          1.0f,          -1.0f,        0.1f,       0.70710677f,
                                   -0.70710677f, 1e-4f,          9.99e-5f,      1e-5f,        1e-12f,     -3.1e-20f,
                                   123456.7f,    1e6f,           16777216.0f,   16777215.f,   8388607.5f, 1e9f,
                                   FLT_MAX,      -FLT_MAX,       FLT_MIN,       FLT_TRUE_MIN, 1e30f,      -2.5e-38f,
                                   1.0f / 3,     2.3283064e-10f, 1.1641532e-10f };
    size_t n = 0;
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0] && n < cap; i++) v[n++] = fixed[i];
    if (n + 3 <= cap) v[n++] = NAN, v[n++] = INFINITY, v[n++] = -INFINITY;
    uint64_t s = test_seed("float_room");
    while (n < cap) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint32_t u = (uint32_t)(s >> 32);
        /* one in two a value of animation size (|v| < 2), the rest any bit pattern */
        if (n % 2) u = (u & 0x807fffffu) | (uint32_t)(100 + (u >> 23) % 28) << 23;
        v[n++] = from_bits(u);
    }
    return n;
}

/* gw_float with 0..40 bytes of room left: the reference's bytes after the ones already
 * there, and the buffer grown only when the text does not fit (as gw_bytes grows it). */
TEST(gw_float_every_room)
{
    float v[600];
    size_t n = test_floats(v, sizeof v / sizeof v[0]);
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        char want[64];
        size_t nw = reference(want, sizeof want, v[i]);
        for (size_t room = 0; room <= 40; room++) {
            ganim_buffer buf = { 0 };
            ganim_writer w = gw_init(&buf, NULL);
            gw_zeros(&w, 256 - room); /* the first block is 256 bytes */
            CHECK_EQ_INT(buf.capacity, 256);
            gw_float(&w, v[i]);
            int ok = gw_ok(&w) && buf.size == 256 - room + nw && !memcmp(buf.data + 256 - room, want, nw) &&
                     buf.capacity == (nw <= room ? 256u : 512u);
            for (size_t k = 0; ok && k < 256 - room; k++) ok = buf.data[k] == 0;
            if (!ok && bad++ < 10)
                CHECK_MSG(0, "%.9g with %zu bytes of room: %zu bytes \"%.*s\" (capacity %zu), want \"%s\"",
                          (double)v[i], room, buf.size - (256 - room), (int)(buf.size - (256 - room)),
                          buf.data + 256 - room, buf.capacity, want);
            ganim_buffer_free(&buf);
        }
    }
    CHECK_EQ_INT(bad, 0);
}

typedef struct {
    uint8_t bytes[1 << 17];
    size_t size, calls;
} sunk;

static bool sink(void *ctx, size_t offset, const void *data, size_t n)
{
    sunk *s = ctx;
    if (offset != s->size || n > sizeof s->bytes - s->size) return false;
    memcpy(s->bytes + s->size, data, n);
    s->size += n;
    s->calls++;
    return true;
}

/* A sink writer hands its piece over before a number only when the number's text does not
 * fit in what is left of it (GW_PIECE), as gw_bytes does. */
TEST(gw_float_sink_pieces)
{
    static sunk s;
    float v[80];
    size_t n = test_floats(v, sizeof v / sizeof v[0]);
    for (size_t i = 0; i < n; i++) {
        char want[64];
        size_t nw = reference(want, sizeof want, v[i]);
        for (size_t room = 0; room <= 30; room += 3) {
            s.size = s.calls = 0;
            ganim_buffer buf = { 0 };
            ganim_writer w = gw_sink_init(&buf, NULL, 0, sink, &s);
            gw_zeros(&w, GW_PIECE - room);
            gw_float(&w, v[i]);
            CHECK_EQ_INT(s.calls, nw <= room ? 0 : 1); /* handed over before the number, or not yet */
            CHECK_EQ_INT(s.size, nw <= room ? 0 : GW_PIECE - room);
            gw_flush(&w);
            CHECK(gw_ok(&w));
            CHECK_EQ_INT(s.size, GW_PIECE - room + nw);
            CHECK(!memcmp(s.bytes + GW_PIECE - room, want, nw));
            ganim_buffer_free(&buf);
        }
    }
}

/* The dump of one document appended after 0..300 bytes already in the buffer (so that
 * the buffer's growth falls on every byte of the rows in turn): the same bytes each time,
 * and every row of values the reference's texts. */
TEST(dump_every_room)
{
    enum { FRAMES = 40 };
    float vals[FRAMES * 4 + FRAMES * 3];
    test_floats(vals, sizeof vals / sizeof vals[0]);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        if (!isfinite(vals[i])) vals[i] = 0.5f; /* a validated document holds finite values */
    float *rot = vals, *tra = vals + FRAMES * 4;
    for (int f = 0; f < FRAMES; f++) { /* unit quaternions: (x, y, z, w) from four of the values */
        float *q = rot + f * 4;
        double a = fmod(fabs((double)q[0]), 6.0), b = fmod(fabs((double)q[1]), 3.0);
        q[0] = (float)(sin(a) * cos(b)), q[1] = (float)(sin(a) * sin(b)), q[2] = f % 5 ? 1e-12f * (float)f : 0.0f;
        q[3] = (float)sqrt(fmax(0.0, 1.0 - (double)q[0] * q[0] - (double)q[1] * q[1] - (double)q[2] * q[2]));
    }
    ganim_doc *doc = tb_doc(1, NULL);
    uint32_t c = tb_clip(doc, "clip", 30, FRAMES), t = tb_track(doc, c, 0, NULL, NULL);
    tb_channel(doc, c, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, FRAMES, NULL, rot);
    tb_channel(doc, c, t, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, FRAMES, NULL, tra);
    ganim_buffer first = { 0 };
    CHECK_OK(ganim_export_json(doc, NULL, &first, NULL));
    /* every row of values is there as the reference writes it */
    for (int f = 0; f < FRAMES; f++) {
        for (int ch = 0; ch < 2; ch++) {
            const float *row = ch ? tra + f * 3 : rot + f * 4;
            int comps = ch ? 3 : 4;
            char want[128];
            size_t at = 0;
            want[at++] = '[';
            for (int k = 0; k < comps; k++) {
                if (k) want[at++] = ',';
                at += reference(want + at, sizeof want - at, row[k]);
            }
            want[at++] = ']';
            int found = 0;
            for (size_t p = 0; !found && p + at <= first.size; p++) found = !memcmp(first.data + p, want, at);
            CHECK_MSG(found, "frame %d %s: %.*s not in the dump", f, ch ? "translation" : "rotation", (int)at, want);
        }
    }
    for (size_t pre = 1; pre <= 300; pre++) {
        ganim_buffer buf = { 0 };
        ganim_writer w = gw_init(&buf, NULL);
        gw_zeros(&w, pre);
        CHECK_OK(ganim_export_json(doc, NULL, &buf, NULL));
        CHECK_EQ_INT(buf.size, pre + first.size);
        CHECK_MSG(buf.size == pre + first.size && !memcmp(buf.data + pre, first.data, first.size),
                  "the dump after %zu bytes differs", pre);
        ganim_buffer_free(&buf);
    }
    ganim_buffer_free(&first);
    ganim_doc_free(doc);
}

int main(void)
{
    test_program_name = "test_float_room";
    RUN(gw_float_every_room);
    RUN(gw_float_sink_pieces);
    RUN(dump_every_room);
    return test_finish();
}
