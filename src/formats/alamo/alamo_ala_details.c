/* Alamo .ALA: what the file holds beyond the model (format version, frame sizes,
 * layout, and per track what is animated; with FULL the quantisation of every track). */
#include <string.h>

#include "formats/alamo/alamo_ala.h"

static const char *channel_kind(const ala_stream *s) { return s->base ? "per-frame" : "constant"; }

static void track_details(gd_builder *b, const ala_plan *p, const ala_ptrack *t, ganim_details_level level)
{
    char name[256];
    memcpy(name, t->name, t->name_size);
    name[t->name_size] = 0;
    gd_group(b, NULL);
    gd_string(b, "name", name);
    gd_uint(b, "index", t->index);
    gd_string(b, "rotation", channel_kind(&t->rot));
    gd_string(b, "translation", channel_kind(&t->trans));
    gd_string(b, "scale", channel_kind(&t->scale));
    gd_bool(b, "visibility", t->vis != NULL);
    gd_bool(b, "step", t->step != NULL);
    if (level == GANIM_DETAILS_FULL) {
        static const char *const keys[4] = { "translation_offset", "translation_scale", "scale_offset", "scale_scale" };
        if (t->has_unk10) gd_uint(b, "unknown10", t->unk10);
        for (int v = 0; v < 4; v++) {
            gd_list(b, keys[v]);
            for (int k = 0; k < 3; k++) gd_float(b, NULL, ganim_f32_from_bits(t->vec[v][k]));
            gd_end(b);
        }
        if (p->version == 2) {
            gd_int(b, "translation_index", t->tidx);
            gd_int(b, "scale_index", t->sidx);
            gd_int(b, "rotation_index", t->ridx);
        }
        const int32_t rot[4] = { t->defrot[0], t->defrot[1], t->defrot[2], t->defrot[3] };
        gd_ints(b, "default_rotation", rot, 4, 0);
    }
    gd_end(b);
}

ganim_code alamo_ala_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err)
{
    const ganim_clip *c = clip < 0 ? ganim_doc_first_animation(doc) : &doc->clips[clip];
    if (!c || !c->native_format || strcmp(c->native_format, ALA) != 0 || !c->native) return GANIM_OK;
    ala_plan p;
    ganim_error ignored;
    memset(&p, 0, sizeof p);
    p.alloc = gd_allocator(b);
    if (ala_parse(&p, c->native, c->native_size, &ignored) != GANIM_OK) {
        ala_plan_free(&p);
        return GANIM_OK;
    }
    gd_int(b, "version", p.version);
    gd_label(b, "alamo format");
    gd_meaning(b, p.version == 1 ? "Empire at War, per-track data" : "Forces of Corruption, frame blocks");
    if (p.version == 2) {
        gd_group(b, "frame_sizes");
        gd_uint(b, "rotation", p.rfs);
        gd_uint(b, "translation", p.tfs);
        gd_uint(b, "scale", p.sfs);
        gd_end(b);
        gd_meaning(b, "16-bit values per frame");
    }
    gd_bool(b, "canonical_layout", p.canonical);
    gd_meaning(b, p.canonical ? "written back byte for byte" : "written back in the usual layout");
    if (clip >= 0 || level == GANIM_DETAILS_FULL) {
        gd_list(b, "tracks");
        for (uint32_t i = 0; i < p.track_count; i++) track_details(b, &p, &p.tracks[i], level);
        gd_end(b);
    }
    ala_plan_free(&p);
    (void)err;
    return GANIM_OK;
}
