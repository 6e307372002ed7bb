/* libFuzzer harness for the writers: the input is read as the format its probe picks,
 * then written in the format GANIM_FUZZ_WRITER names (every writable format when unset).
 * A write either fails with a sentence, or its bytes read back, as that format and with
 * the document's skeleton (rt_read_back), into a valid document that agrees with what was written
 * (roundtrip_check.h) and that writes again; and (every writer) the document's glb put back
 * into it fails with a sentence or reads back. Anything else aborts (a finding).
 *
 *   GANIM_FUZZ_WRITER=alamo-ala ./build-fuzz/fuzz_roundtrip corpus/ seeds/
 *   ./build-check/fuzz_roundtrip_replay     (every sample and fixture, every writer) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ganim.h"
#include "roundtrip_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void finding(const char *what, const char *writer, const char *why)
{
    fprintf(stderr, "fuzz_roundtrip: %s (%s): %s\n", what, writer, why);
    abort();
}

static void round_trip(const ganim_doc *doc, const ganim_format *w)
{
    ganim_buffer out = { 0 };
    ganim_error e = { 0 };
    if (ganim_write(doc, w->name, NULL, &out, &e) != GANIM_OK) {
        if (!e.message[0]) finding("a write failed without a message", w->name, "");
        ganim_buffer_free(&out);
        return;
    }
    ganim_doc *back = NULL;
    if (rt_read_back(doc, out.data, out.size, w, &back, &e) != GANIM_OK)
        finding("ganim wrote a file it cannot read back", w->name, e.message);
    char why[600];
    rt_stats st = { 0 };
    if (!rt_agree(doc, back, w, &st, why, sizeof why)) finding("what was read back differs", w->name, why);
    ganim_buffer again = { 0 };
    if (ganim_write(back, w->name, NULL, &again, &e) != GANIM_OK)
        finding("the document read back does not write again", w->name, e.message);
    ganim_buffer_free(&again);
    ganim_doc_free(back);
    ganim_buffer_free(&out);
}

/* The modder's trip: the document's glb put back into it (ganim_write_opts.into). The write
 * fails with a sentence, or gives bytes that read back as the document's format. */
static void into_trip(const ganim_doc *doc)
{
    const ganim_format *f = doc->format;
    if (!f || !(f->flags & GANIM_FORMAT_WRITE) || (f->flags & GANIM_FORMAT_COMPANION) || !doc->skeleton) return;
    ganim_export_opts eo = { 0 };
    eo.default_clip_name = "fuzz";
    ganim_buffer glb = { 0 }, out = { 0 };
    ganim_error e = { 0 };
    ganim_doc *edit = NULL, *back = NULL;
    if (ganim_export_glb(doc, &eo, &glb, &e) == GANIM_OK) {
        ganim_read_opts ro = { 0 };
        ro.memory_limit = 64u << 20;
        if (ganim_read_memory(glb.data, glb.size, &ro, &edit, &e) != GANIM_OK)
            finding("ganim's glb does not read back", "gltf", e.message);
        ganim_write_opts wo = { 0 };
        wo.into = doc;
        if (ganim_write(edit, NULL, &wo, &out, &e) != GANIM_OK) {
            if (!e.message[0]) finding("a write into the original failed without a message", f->name, "");
        } else {
            ganim_read_opts bo = { 0 };
            bo.format = f->name;
            bo.skeleton = doc->skeleton;
            if (ganim_read_memory(out.data, out.size, &bo, &back, &e) != GANIM_OK)
                finding("ganim wrote into the original a file it cannot read back", f->name, e.message);
        }
    }
    ganim_doc_free(back);
    ganim_doc_free(edit);
    ganim_buffer_free(&out);
    ganim_buffer_free(&glb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ganim_read_opts o = { 0 };
    o.memory_limit = 64u << 20;
    o.limits.samples = 1u << 12; /* small documents: many runs a second */
    ganim_doc *doc = NULL;
    if (ganim_read_memory(data, size, &o, &doc, NULL) != GANIM_OK) return 0;
    const char *name = getenv("GANIM_FUZZ_WRITER");
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++)
        if ((all[i]->flags & GANIM_FORMAT_WRITE) && (!name || !*name || strcmp(all[i]->name, name) == 0))
            round_trip(doc, all[i]);
    if (!name || !*name) into_trip(doc);
    ganim_doc_free(doc);
    return 0;
}
