/* Alamo .ALA: what `ganim info` and `ganim dump` show of the file beyond the model. */
#include <string.h>

#include "formats/alamo/ala.h"

static void describe_track_json(ganim_writer *w, const ala_plan *p, const ala_ptrack *t, bool full)
{
    char name[256];
    memcpy(name, t->name, t->name_size);
    name[t->name_size] = 0;
    gw_str(w, "{\"name\":");
    gw_json_string(w, name);
    gw_printf(w, ",\"index\":%u,\"rotation\":\"%s\",\"translation\":\"%s\",\"scale\":\"%s\","
                 "\"visibility\":%s,\"step\":%s",
              t->index, t->rot.base ? "per-frame" : "constant", t->trans.base ? "per-frame" : "constant",
              t->scale.base ? "per-frame" : "constant", t->vis ? "true" : "false", t->step ? "true" : "false");
    if (full) {
        static const char *const keys[4] = { "translation_offset", "translation_scale", "scale_offset",
                                             "scale_scale" };
        if (t->has_unk10) gw_printf(w, ",\"unknown10\":%u", t->unk10);
        for (int v = 0; v < 4; v++) {
            gw_printf(w, ",\"%s\":[", keys[v]);
            for (int k = 0; k < 3; k++) {
                if (k) gw_str(w, ",");
                gw_float(w, ganim_f32_from_bits(t->vec[v][k]));
            }
            gw_str(w, "]");
        }
        if (p->version == 2)
            gw_printf(w, ",\"translation_index\":%d,\"scale_index\":%d,\"rotation_index\":%d",
                      t->tidx, t->sidx, t->ridx);
        gw_printf(w, ",\"default_rotation\":[%d,%d,%d,%d]", t->defrot[0], t->defrot[1], t->defrot[2],
                  t->defrot[3]);
    }
    gw_str(w, "}");
}

ganim_code alamo_ala_describe(const ganim_doc *doc, int clip, int mode, ganim_buffer *out,
                                     ganim_error *err)
{
    const ganim_clip *c = clip < 0 ? ganim_doc_first_animation(doc)
                                   : (uint32_t)clip < doc->clip_count ? &doc->clips[clip] : NULL;
    if (!c || !c->native_format || strcmp(c->native_format, ALA) != 0 || !c->native) return GANIM_OK;
    ganim_allocator a = ganim_allocator_resolve(&out->allocator);
    ala_plan p;
    ganim_error ignored;
    memset(&p, 0, sizeof p);
    p.alloc = &a;
    if (ala_parse(&p, c->native, c->native_size, &ignored) != GANIM_OK) {
        ala_plan_free(&p);
        return GANIM_OK;
    }
    ganim_writer w = gw_init(out, &a);
    bool tracks = clip >= 0 || mode == GANIM_DESCRIBE_FULL;
    if (mode == GANIM_DESCRIBE_TEXT) {
        if (clip < 0) { /* the document's lines; the clip's add only its tracks */
            gw_printf(&w, "alamo format: %d (%s)\n", p.version,
                      p.version == 1 ? "Empire at War, per-track data" : "Forces of Corruption, frame blocks");
            if (p.version == 2)
                gw_printf(&w, "frame sizes: rotation %u, translation %u, scale %u (16-bit values)\n", p.rfs,
                          p.tfs, p.sfs);
            if (!p.canonical) gw_printf(&w, "layout: unusual (%s)\n", p.odd);
        }
        for (uint32_t i = 0; tracks && i < p.track_count; i++) {
            const ala_ptrack *t = &p.tracks[i];
            char name[256];
            memcpy(name, t->name, t->name_size);
            name[t->name_size] = 0;
            gw_printf(&w, "track %u: %s bone %u, animated:%s%s%s%s%s\n", i, name, t->index,
                      t->rot.base ? " rotation" : "", t->trans.base ? " translation" : "",
                      t->scale.base ? " scale" : "", t->vis ? " visibility" : "", t->step ? " step" : "");
        }
    } else {
        gw_printf(&w, "{\"version\":%d", p.version);
        if (p.version == 2)
            gw_printf(&w, ",\"frame_sizes\":{\"rotation\":%u,\"translation\":%u,\"scale\":%u}", p.rfs,
                      p.tfs, p.sfs);
        gw_printf(&w, ",\"canonical_layout\":%s", p.canonical ? "true" : "false");
        if (tracks) {
            gw_str(&w, ",\"tracks\":[");
            for (uint32_t i = 0; i < p.track_count; i++) {
                if (i) gw_str(&w, ",");
                describe_track_json(&w, &p, &p.tracks[i], mode == GANIM_DESCRIBE_FULL);
            }
            gw_str(&w, "]");
        }
        gw_str(&w, "}");
    }
    ala_plan_free(&p);
    return gw_ok(&w) ? GANIM_OK : GANIM_NOMEM(err);
}
