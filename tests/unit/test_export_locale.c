/* The exports do not follow LC_NUMERIC: a program that calls setlocale(LC_ALL, "") in a
 * German or French locale (Python, Blender, a GUI toolkit) must still get '.' decimal
 * points in the JSON dump, the .gltf and the .bvh (printf would write "29,97", invalid
 * JSON). The same document is exported in the "C" locale and again under a locale with a
 * decimal comma: the bytes must be the same, and the frame rate and unit scale must be
 * written as the C library writes them in the "C" locale ("%.*g", shortest that reads
 * back). Skipped, and noted in the skip log, when no comma locale is installed (one can be
 * made with `localedef -i de_DE -f UTF-8 DIR/de_DE.UTF-8` and run with LOCPATH=DIR). */
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "export/export.h"
#include "support/tbuild.h"
#include "test.h"

#define FRAMES 7
static const double FPS = 29.97;
static const float UNIT = 0.0254f;

static ganim_doc *make_doc(void)
{
    ganim_doc *doc = tb_doc(2, NULL);
    ganim_bone *b = &doc->skeleton->bones[1];
    b->parent = 0;
    b->rest.translation = (ganim_vec3){ 0.5f, 1.25f, -3.75f };
    tb_clip(doc, "walk", FPS, FRAMES);
    float rot[FRAMES * 4], pos[FRAMES * 3];
    for (int i = 0; i < FRAMES; i++) {
        float a = 0.1f * (float)i;
        rot[4 * i] = 0, rot[4 * i + 1] = sinf(a), rot[4 * i + 2] = 0, rot[4 * i + 3] = cosf(a);
        pos[3 * i] = 0.5f * (float)i, pos[3 * i + 1] = 0.125f, pos[3 * i + 2] = -1.5f;
    }
    uint32_t t = tb_track(doc, 0, 1, NULL, NULL);
    tb_channel(doc, 0, t, GANIM_TARGET_ROTATION, GANIM_CHANNEL_PER_FRAME, FRAMES, NULL, rot);
    tb_channel(doc, 0, t, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, FRAMES, NULL, pos);
    return doc;
}

typedef struct {
    ganim_buffer json, gltf, bin, bvh;
} exports;

static void export_all(const ganim_doc *doc, exports *e)
{
    ganim_export_opts o = { 0 };
    o.unit_scale = UNIT;
    memset(e, 0, sizeof *e);
    CHECK_OK(ganim_export_json(doc, &o, &e->json, NULL));
    CHECK_OK(ganim_export_gltf(doc, &o, &e->gltf, &e->bin, NULL));
    CHECK_OK(ganim_export_bvh(doc, &o, &e->bvh, NULL));
}

static void free_all(exports *e)
{
    ganim_buffer_free(&e->json), ganim_buffer_free(&e->gltf), ganim_buffer_free(&e->bin), ganim_buffer_free(&e->bvh);
}

static int same(const ganim_buffer *a, const ganim_buffer *b)
{
    return a->size == b->size && (a->size == 0 || !memcmp(a->data, b->data, a->size));
}

/* does the buffer hold the text `s`? */
static int holds(const ganim_buffer *b, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= b->size; i++)
        if (!memcmp(b->data + i, s, n)) return 1;
    return 0;
}

/* the C library's shortest "%.*g" (6..17 digits) that reads back, in the "C" locale */
static void c_text(char *out, size_t cap, double v)
{
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(out, cap, "%.*g", prec, v);
        if (strtod(out, NULL) == v) return;
    }
}

/* ganim_vformat through a variadic front, as the warnings' paths call it */
static void format_probe(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ganim_vformat(buf, size, fmt, ap);
    va_end(ap);
}

TEST(comma_locale)
{
    ganim_doc *doc = make_doc();
    exports c, comma;
    export_all(doc, &c);

    /* in the "C" locale: the rate and the unit as the C library writes them */
    char fps[40], unit[40], want[80], frame_time[40];
    c_text(fps, sizeof fps, FPS);
    c_text(unit, sizeof unit, (double)UNIT);
    snprintf(frame_time, sizeof frame_time, "Frame Time: %.9g\n", 1.0 / FPS);
    CHECK_EQ_STR(fps, "29.97");
    snprintf(want, sizeof want, "\"fps\":%s", fps);
    CHECK_MSG(holds(&c.json, want), "the JSON dump lacks %s", want);
    snprintf(want, sizeof want, "\"fps\":%s", fps);
    CHECK_MSG(holds(&c.gltf, want), "the .gltf lacks %s", want);
    snprintf(want, sizeof want, "\"unit_scale\":%s", unit);
    CHECK_MSG(holds(&c.gltf, want), "the .gltf lacks %s", want);
    CHECK_MSG(holds(&c.bvh, frame_time), "the .bvh lacks %s", frame_time);

    const char *found = test_comma_locale(LC_ALL, "test_export_locale");
    if (found) {
        char probe[16];
        snprintf(probe, sizeof probe, "%.2f", 29.97);
        CHECK_MSG(strcmp(probe, "29,97") == 0, "%s: printf wrote %s", found, probe);
        export_all(doc, &comma);
        /* errors and warnings name their numbers in the "C" locale too */
        ganim_error e;
        ganim_fail(&e, GANIM_ERR_CORRUPT, 0, "%g fps, %.3f", 29.97, 0.5);
        char text[64];
        format_probe(text, sizeof text, "%g fps, %.3f", 29.97, 0.5);
        setlocale(LC_ALL, "C");
#if !defined(_WIN32) /* (Windows: messages follow the C runtime's locale, docs/dump-format.md) */
        CHECK_EQ_STR(e.message, "29.97 fps, 0.500");
        CHECK_EQ_STR(text, "29.97 fps, 0.500");
#endif
        CHECK_MSG(same(&c.json, &comma.json), "%s: the JSON dump changed", found);
        CHECK_MSG(same(&c.gltf, &comma.gltf), "%s: the .gltf changed", found);
        CHECK_MSG(same(&c.bin, &comma.bin), "%s: the .bin changed", found);
        CHECK_MSG(same(&c.bvh, &comma.bvh), "%s: the .bvh changed", found);
        free_all(&comma);
    }
    free_all(&c);
    ganim_doc_free(doc);
}

/* gx_gtext, the exports' "%g" for messages, against printf in the "C" locale */
TEST(message_numbers)
{
    static const double v[] = { 29.97,  30.0,  1.0 / 30.0, -0.0, 1e-7,     123456789.0,
                                5e-324, 1e300, NAN,        -NAN, INFINITY, -INFINITY };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        for (int prec = 1; prec <= 17; prec += 4) {
            char want[64], buf[GX_GTEXT_CHARS];
            snprintf(want, sizeof want, "%.*g", prec, v[i]);
#if defined(_WIN32) /* the C runtime writes a NaN without its sign: glibc's text is the reference */
            if (isnan(v[i])) continue;
#endif
            CHECK_EQ_STR(gx_gtext(buf, v[i], prec), want);
        }
    }
}

int main(void)
{
    test_program_name = "test_export_locale";
    RUN(comma_locale);
    RUN(message_numbers);
    return test_finish();
}
