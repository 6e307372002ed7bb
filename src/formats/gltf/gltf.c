/* glTF 2.0: the format descriptor, its options, the probe, and the read in order: the
 * container (GLB chunks or JSON text), the JSON tree, the metadata ganim's exporter
 * leaves (asset.extras.ganim), the skeleton, the animations. */
#include "formats/gltf/gltf.h"

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define CHUNK_JSON 0x4E4F534Au
#define CHUNK_BIN 0x004E4942u

enum { GLTF_OPT_SKIN = 0, GLTF_OPT_CONVERSION, GLTF_OPT_COUNT };

static const ganim_option gltf_options[GLTF_OPT_COUNT] = {
    [GLTF_OPT_SKIN] = {
        .name = "gltf.skin",
        .alias = "gltf-skin",
        .type = GANIM_OPTION_TEXT,
        .flags = GANIM_OPTION_READ,
        .values = "NAME|INDEX",
        .help = "the skin whose joints become the skeleton, by name or index (files with several skins)",
        .when_unset = "the skin whose joints the animations move most (the first one on a tie)",
    },
    [GLTF_OPT_CONVERSION] = {
        .name = "gltf.conversion",
        .alias = "gltf-conversion",
        .type = GANIM_OPTION_CHOICE,
        .flags = GANIM_OPTION_READ,
        .values = "undo|keep",
        .help = "a file ganim exported: undo the axis conversion and unit scale it records (undo), or keep the values "
            "as stored in glTF's Y-up axes (keep)",
        .when_unset = "undo",
    },
};

static void *tree_alloc(void *user, size_t size) { return ganim_doc_alloc_array_raw(user, size, 1); }

/* ---- probe ---------------------------------------------------------------------------------- */

/* `"asset"` followed by ':' and '{' (spaces allowed): the top-level member every glTF
 * has, and that other JSON (ganim's own dump) does not write that way. */
static int has_asset_member(const uint8_t *d, size_t n)
{
    static const char key[] = "\"asset\"";
    size_t k = sizeof key - 1, limit = n < ((size_t)16 << 20) ? n : ((size_t)16 << 20);
    for (size_t i = 0; i + k <= limit; i++) {
        if (d[i] != '"' || memcmp(d + i, key, k) != 0) continue;
        size_t j = i + k;
        while (j < limit && (d[j] == ' ' || d[j] == '\t' || d[j] == '\n' || d[j] == '\r')) j++;
        if (j >= limit || d[j] != ':') continue;
        j++;
        while (j < limit && (d[j] == ' ' || d[j] == '\t' || d[j] == '\n' || d[j] == '\r')) j++;
        if (j < limit && d[j] == '{') return 1;
    }
    return 0;
}

static int gltf_probe(const uint8_t *data, size_t size)
{
    if (size >= 8 && ganim_ld_u32le(data) == GLB_MAGIC) return ganim_ld_u32le(data + 4) == 2 ? 100 : 50;
    size_t i = size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF ? 3 : 0;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r')) i++;
    if (i >= size || data[i] != '{') return 0;
    return has_asset_member(data + i, size - i) ? 70 : 0;
}

/* ---- container ------------------------------------------------------------------------------ */

static ganim_code read_glb(gltf_file *f, const uint8_t **json, size_t *json_size)
{
    ganim_reader r = gr_init(f->data, f->size, 0);
    uint32_t magic, version, length, clen, ctype;
    if (!gr_u32le(&r, &magic) || !gr_u32le(&r, &version) || !gr_u32le(&r, &length))
        return ganim_fail(f->err, GANIM_ERR_TRUNCATED, f->size, "gltf: GLB: the 12-byte header is cut at %zu bytes",
                          f->size);
    if (version != 2)
        return ganim_fail(f->err, GANIM_ERR_UNSUPPORTED, 4, "gltf: GLB version %u; ganim reads glTF 2.0 (version 2)",
                          version);
    if (length > f->size)
        return ganim_fail(f->err, GANIM_ERR_TRUNCATED, f->size,
                          "gltf: GLB: the header says the file has %u bytes, it has %zu", length, f->size);
    if (length < 20)
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, 8,
                          "gltf: GLB: the header says the file has %u bytes, less than a header and a chunk", length);
    if (length < f->size)
        ganim_doc_warn(f->doc, GANIM_WARN_EXTRA_BYTES, length,
                       "gltf: GLB: %zu bytes after the %u the header announces are ignored", f->size - length, length);
    r.size = length;
    if (!gr_u32le(&r, &clen) || !gr_u32le(&r, &ctype))
        return ganim_fail(f->err, GANIM_ERR_TRUNCATED, gr_offset(&r), "gltf: GLB: no JSON chunk");
    if (ctype != CHUNK_JSON)
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, 16, "gltf: GLB: the first chunk is of type 0x%08X, not JSON",
                          ctype);
    f->json_offset = gr_offset(&r);
    if (!gr_bytes(&r, clen, json))
        return ganim_fail(f->err, GANIM_ERR_TRUNCATED, length,
                          "gltf: GLB: the JSON chunk of %u bytes goes beyond the end of the file (%zu bytes left)",
                          clen, gr_left(&r));
    *json_size = clen;
    while (gr_left(&r) >= 8) {
        uint64_t at = gr_offset(&r);
        const uint8_t *body;
        gr_u32le(&r, &clen);
        gr_u32le(&r, &ctype);
        if (!gr_bytes(&r, clen, &body))
            return ganim_fail(f->err, GANIM_ERR_TRUNCATED, at,
                              "gltf: GLB: a chunk of %u bytes goes beyond the end of the file (%zu bytes left)", clen,
                              gr_left(&r));
        if (ctype == CHUNK_BIN && !f->bin) {
            f->bin = body;
            f->bin_size = clen;
            f->bin_offset = at + 8;
        } else if (ctype == CHUNK_BIN) {
            ganim_doc_warn(f->doc, GANIM_WARN_IGNORED, at, "gltf: GLB: a second BIN chunk is ignored");
        }
    }
    if (gr_left(&r))
        ganim_doc_warn(f->doc, GANIM_WARN_EXTRA_BYTES, gr_offset(&r), "gltf: GLB: %zu bytes after the last chunk",
                       gr_left(&r));
    return GANIM_OK;
}

/* ---- the top of the JSON -------------------------------------------------------------------- */

const char *const gltf_top_names[GLTF_TOP_MEMBERS] = { "asset",         "nodes",     "skins",
                                                       "animations",    "accessors", "bufferViews",
                                                       "buffers",       "meshes",    "extensionsRequired",
                                                       "extensionsUsed" };

void gltf_top_members(const gj_value *root, const gj_value **top)
{
    for (unsigned j = 0; j < GLTF_TOP_MEMBERS; j++) top[j] = NULL;
    if (!root || root->type != GJ_OBJECT) return;
    for (uint32_t i = 0; i < root->count; i++) {
        const char *k = root->items[i].key;
        unsigned j; /* (the one name of gltf_top_names that k may be, by its first bytes: k[1] is
                     * there, k[0] not being its NUL) */
        switch (k[0]) {
        case 'a': j = k[1] == 's' ? GLTF_TOP_ASSET : k[1] == 'n' ? GLTF_TOP_ANIMATIONS : GLTF_TOP_ACCESSORS; break;
        case 'n': j = GLTF_TOP_NODES; break;
        case 's': j = GLTF_TOP_SKINS; break;
        case 'b': j = gj_same_name(k, "buffers") ? GLTF_TOP_BUFFERS : GLTF_TOP_VIEWS; break;
        case 'm': j = GLTF_TOP_MESHES; break;
        case 'e': j = gj_same_name(k, "extensionsUsed") ? GLTF_TOP_USED : GLTF_TOP_REQUIRED; break;
        default: continue;
        }
        if (!top[j] && gj_same_name(k, gltf_top_names[j])) top[j] = &root->items[i];
    }
}

/* The root's array member `key`, found as v (NULL: absent; its length in *count, 0 and
 * NULL when absent). */
static ganim_code top_array(gltf_file *f, const char *key, const gj_value *v, const gj_value **out, uint32_t *count)
{
    *out = NULL;
    if (count) *count = 0;
    if (!v) return GANIM_OK;
    for (int k = 0; k < GLTF_ROOT_RECORD_KINDS; k++) /* (accessors, bufferViews, nodes, meshes, skins) */
        if (f->recs[k].done && v->type == GJ_LATER && strcmp(key, f->recs[k].key) == 0) { /* read as records */
            *out = v;
            if (count) *count = f->recs[k].set.count;
            return GANIM_OK;
        }
    if (v->type != GJ_ARRAY) return ganim_fail(f->err, GANIM_ERR_CORRUPT, v->offset, "gltf: '%s' is not an array", key);
    *out = v;
    if (count) *count = v->count;
    return GANIM_OK;
}

static ganim_code read_asset(gltf_file *f)
{
    const gj_value *asset = f->asset_v;
    const char *version = NULL;
    if (!gj_is(asset, GJ_OBJECT))
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, f->root->offset,
                          "gltf: the JSON has no 'asset' object, which every glTF file has");
    if (!gj_string(gj_get(asset, "version"), &version))
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, asset->offset, "gltf: asset: no version");
    if (version[0] != '2' || (version[1] && version[1] != '.'))
        return ganim_fail(f->err, GANIM_ERR_UNSUPPORTED, asset->offset,
                          "gltf: asset version %.20s; ganim reads glTF 2.0 files", version);
    const gj_value *req = f->required_v;
    if (gj_is(req, GJ_ARRAY) && req->count) {
        char names[400] = "";
        size_t at = 0;
        for (uint32_t i = 0; i < req->count && at < sizeof names - 1; i++) {
            const char *s = "?";
            gj_string(&req->items[i], &s);
            int w = snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "", s);
            if (w > 0) at += (size_t)w;
        }
        ganim_doc_warn(f->doc, GANIM_WARN_IGNORED, req->offset,
                       "gltf: the file requires %.380s; ganim reads only its skeleton and animations", names);
    }
    return GANIM_OK;
}

static ganim_axes axes_from_text(const char *s, int *ok)
{
    *ok = 1;
    if (s && !strcmp(s, "z-up")) return GANIM_AXES_Z_UP;
    if (s && !strcmp(s, "y-down")) return GANIM_AXES_Y_DOWN;
    if (s && !strcmp(s, "y-up")) return GANIM_AXES_Y_UP;
    *ok = 0;
    return GANIM_AXES_Y_UP;
}

/* asset.extras.ganim: the conversion ganim's exporter applied, undone unless
 * gltf.conversion=keep. */
static void read_ganim_meta(gltf_file *f)
{
    const gj_value *meta = gj_get(gj_get(f->asset_v, "extras"), "ganim");
    f->meta_v = meta;
    f->doc->axes = GANIM_AXES_Y_UP;
    f->conv.c[3] = 1;
    f->conv.identity = 1;
    f->conv.unit = 1;
    if (!gj_is(meta, GJ_OBJECT)) return;
    f->ganim = 1;
    const char *conv = NULL, *axes = NULL, *vis = NULL;
    double unit = 1;
    gj_string(gj_get(meta, "axis_conversion"), &conv);
    gj_string(gj_get(meta, "axes"), &axes);
    if (gj_string(gj_get(meta, "visibility"), &vis)) f->vis_scale = !strcmp(vis, "scale");
    const gj_value *u = gj_get(meta, "unit_scale");
    if (u && !gj_number(u, &unit)) unit = 0;
    if (ganim_setting_choice(f->opts->settings, f->opts->setting_count, &gltf_options[GLTF_OPT_CONVERSION]) == 1)
        return; /* keep */
    int axes_ok;
    ganim_axes ax = axes_from_text(axes, &axes_ok);
    gltf_conv cv;
    if (!conv || !axes_ok || !gltf_conv_from_text(conv, unit, &cv)) {
        ganim_doc_warn(f->doc, GANIM_WARN_IGNORED, meta->offset,
                       "gltf: asset.extras.ganim names a conversion ganim does not know (axes '%.40s', '%.60s', unit "
                       "scale %g); the values are read as stored",
                       axes ? axes : "?", conv ? conv : "?", unit);
        return;
    }
    f->undo = 1;
    f->conv = cv;
    f->doc->axes = ax;
}

/* The members the reader looks at: the root's that it reads, and of every `extras`
 * only ganim's own (a file's other extras, images, materials, ... are checked as JSON
 * but take no memory). */
int gltf_no_records;

static int keep_member(unsigned depth, const char *parent, const char *key)
{
    static const char *const top[] = {
        "asset",   "nodes",  "skins",  "animations", "accessors",          "bufferViews",
        "buffers", "meshes", "scenes", "scene",      "extensionsRequired", "extensionsUsed"
    };
    if (depth == 0) {
        for (size_t i = 0; i < sizeof top / sizeof *top; i++)
            if (top[i][0] == key[0] && gj_same_name(top[i], key)) return 1;
        return 0;
    }
    return !parent || !gj_same_name(parent, "extras") || gj_same_name(key, "ganim");
}

/* The base64 text of ganim's records (extras.ganim: native_record, opaque clips), read
 * once by gltf_carry.c straight from the JSON text: the tree does not copy it. */
static int lend_member(unsigned depth, const char *parent, const char *key)
{
    (void)parent;
    return depth > 0 && gj_same_name(key, "base64");
}

/* An animation's samplers (`samplers` of an array's item two deep: the animations'; glTF
 * has no other): the tree holds them only while their animation is read. */
static int later_member(unsigned depth, const char *parent, const char *key)
{
    return depth == 2 && !parent && gj_same_name(key, "samplers");
}

/* gj_parse of the text with q into f->root. A failure that `undo` says (GANIM_OK: every
 * failure; else that code only) is undone: the scratch arena given back to where it was,
 * *f->err as it was, and *undone set, for the caller to read the text again another way. */
static ganim_code parse_undoing(gltf_file *f, const gj_parser *q, const uint8_t *json, size_t json_size,
                                ganim_code undo, int *undone)
{
    ganim_doc_mark_t mark = ganim_doc_mark(f->scratch);
    ganim_error kept;
    if (f->err) kept = *f->err;
    ganim_code code = gj_parse(q, json, json_size, &f->root, f->err);
    *undone = code != GANIM_OK && (undo == GANIM_OK || code == undo);
    if (*undone) {
        ganim_doc_release(f->scratch, mark);
        if (f->err) *f->err = kept;
    }
    return code;
}

/* The JSON bound's name in its message, written only when a text passes it (at most 200
 * bytes, as it always was). */
static void json_limit_name(const void *user, char *out, size_t size)
{
    const gltf_file *f = user;
    char name[200];
    snprintf(name, sizeof name,
             "ganim reads a JSON text of %zu bytes in at most %u bytes per byte plus %zu, and within the read's "
             "memory limit of %zu bytes (ganim_read_opts.memory_limit)",
             f->json_size, GLTF_JSON_BYTES_PER_BYTE, GLTF_JSON_FLOOR, f->json_limit);
    snprintf(out, size, "%s", name);
}

static ganim_code read_json(gltf_file *f, const uint8_t *json, size_t json_size)
{
    gj_parser p = { .alloc = tree_alloc,
                    .alloc_user = f->scratch,
                    .scratch = &f->opts->allocator,
                    .max_depth = GLTF_MAX_DEPTH,
                    .who = "gltf: JSON",
                    .base = f->json_offset };
    size_t limit = ganim_doc_memory_limit(f->scratch);
    p.max_bytes = json_size > (SIZE_MAX - GLTF_JSON_FLOOR) / GLTF_JSON_BYTES_PER_BYTE
                      ? SIZE_MAX
                      : json_size * GLTF_JSON_BYTES_PER_BYTE + GLTF_JSON_FLOOR;
    if (p.max_bytes > limit) p.max_bytes = limit;
    f->json_size = json_size;
    f->json_limit = limit;
    p.name_limit = json_limit_name;
    p.name_limit_user = f;
    p.keep = keep_member;
    p.lend = lend_member;
    p.later = later_member;
    p.charged = &f->json_used;
    /* A small text read with the default memory limit: the samplers are
     * stored with the rest of the tree at once (not skimmed, then parsed again when their
     * animation is read). Their trees then stay to the end of the read, and all are
     * counted against the bound at once, where parsed later each is counted with the tree
     * alone: when that passes the bound, the text is read again as before, so that the
     * outcome is the same either way (the same tree, every other error at the same byte:
     * test_json's parsed_later_is_the_same_tree, skimmed_and_later_members_fail_alike). */
    int together = json_size <= GLTF_SAMPLERS_TOGETHER && !f->opts->memory_limit;
    ganim_code code = GANIM_OK;
    int recorded = 0;
    f->json_text = json;
    if (together && !gltf_no_records) {
        /* The accessors, bufferViews, nodes, meshes, skins and the animations' samplers and channels read as
         * records, not trees, when they have the
         * plain shape (json.h, gj_records): a parse that fails so is read again without
         * them, below: the same outcome either way (test_gltf_records). */
        static const char *const acc_names[] = { "bufferView", "componentType", "count", "type",
                                                 "byteOffset", "normalized",    "sparse" };
        static const char *const view_names[] = { "buffer", "extensions", "byteOffset", "byteLength", "byteStride" };
        /* (in the order of gltf_skeleton.c's node members; all but the name may be an
         * array or an object: kept as its text) */
        static const char *const node_names[] = { "name",        "extras", "matrix",  "rotation",
                                                  "translation", "scale",  "children" };
        /* (in the order of gltf_anim.c's channel_members and sampler_members) */
        static const char *const sampler_names[] = { "interpolation", "input", "output", "extras" };
        static const char *const channel_names[] = { "target", "sampler", "target.path", "target.node" };
        /* (the read counts the meshes, nothing more: their objects and arrays kept as text) */
        static const char *const mesh_names[] = { "primitives", "extras", "extensions" };
        /* (GLTF_SKIN_NAME ...: a skin's joints and extras kept as text; its other members,
         * inverseBindMatrices and skeleton, plain ones the records take unnamed) */
        static const char *const skin_names[] = { "name", "joints", "extras" };
        memset(f->recs, 0, sizeof f->recs);
        f->recs[GLTF_ACCESSORS].key = "accessors";
        f->recs[GLTF_ACCESSORS].names = acc_names;
        f->recs[GLTF_ACCESSORS].fields = 7;
        f->recs[GLTF_VIEWS].key = "bufferViews";
        f->recs[GLTF_VIEWS].names = view_names;
        f->recs[GLTF_VIEWS].fields = 5;
        f->recs[GLTF_NODES].key = "nodes";
        f->recs[GLTF_NODES].names = node_names;
        f->recs[GLTF_NODES].fields = 7;
        f->recs[GLTF_NODES].spans = 0x7Eu; /* (extras, matrix, rotation, translation, scale, children) */
        f->recs[GLTF_MESHES].key = "meshes";
        f->recs[GLTF_MESHES].names = mesh_names;
        f->recs[GLTF_MESHES].fields = 3;
        f->recs[GLTF_MESHES].spans = 7u;
        f->recs[GLTF_SKINS].key = "skins";
        f->recs[GLTF_SKINS].names = skin_names;
        f->recs[GLTF_SKINS].fields = GLTF_SKIN_FIELDS;
        f->recs[GLTF_SKINS].spans = (1u << GLTF_SKIN_JOINTS) | (1u << GLTF_SKIN_EXTRAS);
        f->recs[GLTF_SAMPLERS].key = "samplers"; /* (an animation's: later_member's) */
        f->recs[GLTF_SAMPLERS].names = sampler_names;
        f->recs[GLTF_SAMPLERS].fields = 4;
        f->recs[GLTF_SAMPLERS].depth = 2;
        f->recs[GLTF_SAMPLERS].spans = 1u << 3; /* (extras: ganim's negated ranges and keys, as text) */
        f->recs[GLTF_CHANNELS].key = "channels";
        f->recs[GLTF_CHANNELS].names = channel_names;
        f->recs[GLTF_CHANNELS].fields = 4;
        f->recs[GLTF_CHANNELS].depth = 2;
        gj_parser q = p;
        q.later = NULL;
        q.records = f->recs;
        q.record_kinds = GLTF_RECORD_KINDS;
        f->json = p;
        f->json.later = NULL;
        int undone;
        code = parse_undoing(f, &q, json, json_size, GANIM_OK, &undone);
        recorded = !undone;
        if (undone) {
            memset(f->recs, 0, sizeof f->recs);
            f->json_used = 0;
        }
    }
    if (together && !recorded) {
        int undone;
        p.later = NULL;
        f->json = p;
        code = parse_undoing(f, &p, json, json_size, GANIM_ERR_LIMIT, &undone);
        if (undone) { /* (the bound: read as before) */
            together = 0;
            p.later = later_member;
        }
    }
    if (!together && !recorded) {
        f->json = p;
        code = gj_parse(&p, json, json_size, &f->root, f->err);
    }
    if (code != GANIM_OK) return code;
    if (f->root->type != GJ_OBJECT)
        return ganim_fail(f->err, GANIM_ERR_CORRUPT, f->root->offset, "gltf: the JSON text is not an object");
    const gj_value *top[GLTF_TOP_MEMBERS];
    gltf_top_members(f->root, top);
    f->asset_v = top[GLTF_TOP_ASSET];
    f->required_v = top[GLTF_TOP_REQUIRED];
    f->used_v = top[GLTF_TOP_USED];
    if ((code = read_asset(f)) != GANIM_OK) return code;
    const gj_value *meshes;
    if ((code = top_array(f, "nodes", top[GLTF_TOP_NODES], &f->nodes_v, &f->node_count)) != GANIM_OK ||
        (code = top_array(f, "skins", top[GLTF_TOP_SKINS], &f->skins_v, &f->skins)) != GANIM_OK ||
        (code = top_array(f, "animations", top[GLTF_TOP_ANIMATIONS], &f->anims_v, NULL)) != GANIM_OK ||
        (code = top_array(f, "accessors", top[GLTF_TOP_ACCESSORS], &f->accessors_v, &f->accessor_count)) != GANIM_OK ||
        (code = top_array(f, "bufferViews", top[GLTF_TOP_VIEWS], &f->views_v, &f->view_count)) != GANIM_OK ||
        (code = top_array(f, "buffers", top[GLTF_TOP_BUFFERS], &f->buffers_v, &f->buf_count)) != GANIM_OK ||
        (code = top_array(f, "meshes", top[GLTF_TOP_MESHES], &meshes, &f->meshes)) != GANIM_OK)
        return code;
    /* an animation gives a clip or more: the clip limit refuses before any is read */
    if (f->anims_v && (code = ganim_check_counts(f->doc, f->anims_v->offset, "gltf: the animations array", 0, 0,
                                                 f->anims_v->count, f->err)) != GANIM_OK)
        return code;
    if (f->buf_count && !(f->bufs = gltf_scratch(f, f->buf_count, sizeof *f->bufs))) return GANIM_ERR_NOMEM;
    read_ganim_meta(f);
    return GANIM_OK;
}

static ganim_code gltf_read(ganim_doc *doc, const uint8_t *data, size_t size, const ganim_read_opts *opts,
                            ganim_error *err)
{
    static const ganim_read_opts none;
    gltf_file f;
    memset(&f, 0, sizeof f);
    f.doc = doc;
    f.opts = opts ? opts : &none;
    f.err = err;
    f.data = data;
    f.size = size;
    f.skin = -1;
    f.scratch = ganim_doc_scratch(doc); /* counted against the same memory limit */
    if (!f.scratch) return GANIM_NOMEM(err);
    const uint8_t *json = data;
    size_t json_size = size;
    ganim_code code = GANIM_OK;
    f.glb = size >= 4 && ganim_ld_u32le(data) == GLB_MAGIC;
    if (f.glb) code = read_glb(&f, &json, &json_size);
    if (code == GANIM_OK) code = read_json(&f, json, json_size);
    if (code == GANIM_OK && f.opts->skeleton)
        ganim_doc_warn(doc, GANIM_WARN_SKELETON, GANIM_NO_OFFSET,
                       "gltf: the file holds its own skeleton; the skeleton given was not used");
    if (code == GANIM_OK) code = gltf_read_nodes(&f);
    if (code == GANIM_OK) code = gltf_build_skeleton(&f);
    if (code == GANIM_OK) code = gltf_carry_skeleton(&f);
    if (code == GANIM_OK) code = gltf_read_animations(&f);
    if (code == GANIM_OK) code = gltf_doc_record(&f);
    gltf_buffers_free(&f);
    ganim_doc_free(f.scratch);
    return code;
}

static const struct ganim_format_impl gltf_impl = {
    .probe = gltf_probe,
    .read = gltf_read,
    .details = gltf_details,
};

const ganim_format ganim_format_gltf = {
    .name = GLTF_FORMAT,
    .description = "glTF 2.0 (.glb, .gltf with GLB, data-URI or external buffers): a skin's joints and the animations; "
                   "written by the exporter",
    .family = "gltf",
    .extensions = ".glb;.gltf",
    .flags = GANIM_FORMAT_READ,
    .options = gltf_options,
    .option_count = GANIM_COUNT_OF(gltf_options),
    .impl = &gltf_impl,
};
