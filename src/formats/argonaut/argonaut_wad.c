/* Argonaut level WADs: the section walk, the XSPD (DPSX) section's model records (walked
 * to reach the animation block, since nothing stores its offset), and which game's
 * variant the data fit. */
#include <stdio.h>
#include <string.h>

#include "formats/argonaut/argonaut.h"

bool ag_looks_like_wad(const uint8_t *data, size_t size) { return size >= 12 && memcmp(data + 4, "XSPT", 4) == 0; }

bool ag_wad_sections(const uint8_t *data, size_t size, ag_wad *w, char *why, size_t why_size)
{
    memset(w, 0, sizeof *w);
    ganim_reader r = gr_init(data, size, 0);
    if (!gr_u32le(&r, &w->header_u32)) {
        snprintf(why, why_size, "the file has %zu bytes, too few for a WAD header", size);
        return false;
    }
    bool have_xspd = false, end = false;
    while (!end) {
        size_t at = r.pos;
        const uint8_t *tag;
        uint32_t len;
        w->bad_at = at;
        if (!gr_bytes(&r, 4, &tag) || !gr_u32le(&r, &len)) {
            snprintf(why, why_size, "the sections end at byte %zu without the ' DNE' section that closes a WAD", at);
            return false;
        }
        if (!gr_skip(&r, len)) {
            snprintf(why, why_size, "section '%.4s' at byte %zu announces %u bytes, %zu remain", (const char *)tag, at,
                     len, gr_left(&r));
            return false;
        }
        for (int k = 0; k < 4; k++)
            if (tag[k] < 0x20 || tag[k] > 0x7E) {
                snprintf(why, why_size, "section %u at byte %zu has no printable tag", w->section_count, at);
                return false;
            }
        if (w->section_count < AG_MAX_SECTIONS) {
            ag_section *s = &w->sections[w->section_count];
            memcpy(s->tag, tag, 4);
            s->tag[4] = 0;
            s->offset = at;
            s->size = len;
        }
        w->section_count++;
        if (memcmp(tag, "XSPD", 4) == 0 && !have_xspd) {
            have_xspd = true;
            w->xspd = at;
            w->xspd_data = at + 8;
            w->xspd_end = r.pos;
        }
        if (!memcmp(tag, "FINU", 4) || !memcmp(tag, "XSPL", 4) || !memcmp(tag, "TROP", 4)) w->hp_sections = true;
        end = memcmp(tag, " DNE", 4) == 0;
    }
    w->end_of_sections = r.pos;
    w->bad_at = 4;
    if (!have_xspd) {
        snprintf(why, why_size, "the WAD has no XSPD section (the one that holds models and animations)");
        return false;
    }
    /* u32 flags, u32, 0x800 bytes, then the model count */
    w->bad_at = w->xspd;
    ganim_reader x = gr_init(data + w->xspd_data, w->xspd_end - w->xspd_data, w->xspd_data);
    if (!gr_u32le(&x, &w->dpsx_flags) || !gr_skip(&x, 4 + 0x800) || !gr_u32le(&x, &w->model_count)) {
        snprintf(why, why_size, "the XSPD section at byte %zu has %zu bytes, too few for its header and model count",
                 w->xspd, w->xspd_end - w->xspd_data);
        return false;
    }
    w->models_at = w->xspd_data + 8 + 0x800;
    return true;
}

/* Vertex or normal countdowns: runs that count down to 1. Counts the groups. */
static bool countdowns(const uint8_t *p, uint32_t n, uint32_t *groups)
{
    bool ok = true;
    uint32_t g = 0, prev = 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = ganim_ld_u16le(p + 8 * (size_t)i + 6);
        if (c == 0 || (prev != 1 && c != prev - 1)) ok = false;
        if (c == 1) g++;
        prev = c;
    }
    if (n && prev != 1) {
        ok = false;
        g++; /* a last run that does not reach 1 is a group all the same */
    }
    *groups = g;
    return ok;
}

bool ag_wad_models(const uint8_t *data, const ag_wad *wad, int hp, bool strict, ag_model *out, size_t *block_at,
                   char *why, size_t why_size)
{
    size_t pos = wad->models_at + 4, end = wad->xspd_end, h = hp ? 0x68u : 0x64u, coll = hp ? 32u : 44u;
    for (uint32_t i = 0; i < wad->model_count; i++) {
        ag_model m;
        memset(&m, 0, sizeof m);
        m.p = data + pos;
        m.offset = pos;
        if (end - pos < h) {
            snprintf(why, why_size, "model %u at byte %zu: its %zu-byte header needs %zu bytes, %zu remain", i, pos, h,
                     h, end - pos);
            return false;
        }
        m.nvert = ganim_ld_u32le(m.p + 0x48);
        m.nface = ganim_ld_u32le(m.p + 0x54);
        m.coll[0] = ganim_ld_u16le(m.p + 0x5C);
        m.coll[1] = ganim_ld_u16le(m.p + 0x5E);
        m.coll[2] = hp ? ganim_ld_u16le(m.p + 0x60) : 0;
        uint64_t size = h + 16 * (uint64_t)m.nvert + 20 * (uint64_t)m.nface +
                        (uint64_t)coll * ((uint64_t)m.coll[0] + m.coll[1] + m.coll[2]);
        if (size > end - pos) {
            snprintf(why, why_size,
                     "model %u at byte %zu: %u vertices, %u faces and %u collision faces need %llu bytes, %zu remain",
                     i, pos, m.nvert, m.nface, m.coll[0] + m.coll[1] + m.coll[2], (unsigned long long)size, end - pos);
            return false;
        }
        m.size = (size_t)size;
        m.o_vert = h;
        m.o_norm = h + 8 * (size_t)m.nvert;
        m.o_face = m.o_norm + 8 * (size_t)m.nvert;
        m.o_coll = m.o_face + 20 * (size_t)m.nface;
        uint32_t ng = 0;
        bool vok = countdowns(m.p + m.o_vert, m.nvert, &m.groups), nok = countdowns(m.p + m.o_norm, m.nvert, &ng);
        m.countdowns_ok = vok && nok && ng == m.groups;
        if (strict && !m.countdowns_ok) {
            snprintf(why, why_size, "model %u at byte %zu: its vertex group countdowns do not run down to 1", i, pos);
            return false;
        }
        if (out) out[i] = m;
        pos += m.size;
    }
    *block_at = pos;
    return true;
}

static const char *const variant_name[2] = { "Croc 2", "Harry Potter" };

int ag_detect(const uint8_t *data, size_t size, const ag_wad *wad, char *why, size_t why_size, bool *ambiguous,
              unsigned *oddities)
{
    bool fit[2] = { false, false };
    unsigned odd[2] = { 0, 0 };
    char reason[2][240];
    for (int v = 0; v < 2; v++) {
        size_t at = 0, end = size;
        char w[200];
        if (wad) {
            end = wad->xspd_end;
            if (!ag_wad_models(data, wad, v, true, NULL, &at, w, sizeof w)) {
                snprintf(reason[v], sizeof reason[v], "%s", w);
                continue;
            }
            if (end - at < 4) {
                snprintf(reason[v], sizeof reason[v],
                         "the models end at byte %zu, with no room for the animation count", at);
                continue;
            }
        }
        if (!wad && size < 4) {
            snprintf(reason[v], sizeof reason[v], "%zu bytes are too few for the animation count", size);
            continue;
        }
        uint32_t count = ganim_ld_u32le(data + at);
        ag_walk walk;
        ag_walk_block(data, at + 4, end, 0, v, count, NULL, &walk);
        if (!walk.complete) {
            snprintf(reason[v], sizeof reason[v], "%s", walk.why);
            continue;
        }
        if (!wad && walk.end != size) {
            snprintf(reason[v], sizeof reason[v], "its %u animations end at byte %zu, not at the end of the %zu bytes",
                     count, walk.end, size);
            continue;
        }
        fit[v] = true;
        odd[v] = walk.oddities;
        snprintf(reason[v], sizeof reason[v], "%s", walk.why);
    }
    if (ambiguous) *ambiguous = false;
    int v = -1;
    if (fit[0] != fit[1]) v = fit[1] ? AG_HP : AG_CROC2;
    else if (fit[0] && odd[0] != odd[1]) v = odd[1] < odd[0] ? AG_HP : AG_CROC2;
    else if (fit[0] && wad) v = wad->hp_sections ? AG_HP : AG_CROC2; /* only HP levels have FINU, XSPL, TROP */
    else if (fit[0]) {
        if (ambiguous) *ambiguous = true;
        v = AG_CROC2;
    }
    if (v >= 0) {
        if (oddities) *oddities = odd[v];
        return v;
    }
    snprintf(why, why_size, "the data fit neither variant: as %s, %s; as %s, %s", variant_name[0], reason[0],
             variant_name[1], reason[1]);
    return -1;
}
