/* glTF nodes and the skeleton. The joints of one skin become the bones (a file without
 * skins: the node trees that hold an animated node); a bone's parent is its nearest
 * ancestor that is a bone. Bones keep the skin's order except that a parent always comes
 * before its children. Rest poses are the nodes' TRS (or decomposed matrices); nodes
 * between a bone and its parent bone, or above a root bone, that are not bones (Blender's
 * armature object, ganim's own `ganim_root`) have their transforms folded into the bone,
 * which is exact when their scale is uniform. Names come from the nodes, or from
 * extras.ganim.name where ganim's exporter had to change a name. */
#include <ctype.h>
#include <stdlib.h>

#include "formats/gltf/gltf.h"

/* ---- nodes ---------------------------------------------------------------------------------- */

static ganim_code bad_node(gltf_file *f, uint32_t i, const gj_value *at, const char *what)
{
    return ganim_fail(f->err, GANIM_ERR_CORRUPT, at->offset, "gltf: node %u: %s", i, what);
}

/* gj_floats of a node's member, or of its text when the nodes were read as records (a span
 * field, GJ_LATER: the tree gj_parse_later would make of it, not made) */
static GANIM_ALWAYS_INLINE int node_floats(const gj_value *v, float *out, uint32_t n, const int recorded)
{
    return recorded && v && v->type == GJ_LATER ? gltf_span_floats(v, out, n) : gj_floats(v, out, n);
}

/* A node's matrix (column-major) as its transform. */
static ganim_code node_matrix(gltf_file *f, uint32_t i, const gj_value *mv, gltf_node *n, int recorded)
{
    float m[16], r[12];
    if (!node_floats(mv, m, 16, recorded)) return bad_node(f, i, mv, "the matrix is not 16 numbers");
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 4; col++) r[row * 4 + col] = m[col * 4 + row];
    if (!ganim_transform_from_mat34(r, &n->local))
        return bad_node(f, i, mv, "the matrix holds a number too large to be a transform");
    if (m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1)
        ganim_doc_warn(f->doc, GANIM_WARN_IGNORED, mv->offset,
                       "gltf: node %u: the matrix's last row is not 0 0 0 1; it is ignored", i);
    /* the columns should be orthogonal: a sheared matrix becomes its rotation and scale */
    double dot = 0, len = 0;
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++) {
            double d =
                (double)m[a * 4] * m[b * 4] + (double)m[a * 4 + 1] * m[b * 4 + 1] + (double)m[a * 4 + 2] * m[b * 4 + 2];
            dot = fmax(dot, fabs(d));
        }
    for (int k = 0; k < 12; k++) len = fmax(len, fabs((double)m[k]));
    if (dot > 1e-4 * len * len)
        ganim_doc_warn(f->doc, GANIM_WARN_REPAIRED, mv->offset,
                       "gltf: node %u: the matrix shears; read as the nearest rotation and scale", i);
    return GANIM_OK;
}

static GANIM_ALWAYS_INLINE ganim_code node_trs(gltf_file *f, uint32_t i, const gj_value *rv, const gj_value *tv,
                                               const gj_value *sv, gltf_node *n, const int recorded)
{
    if (rv) {
        float q[4];
        if (!node_floats(rv, q, 4, recorded)) return bad_node(f, i, rv, "the rotation is not 4 numbers");
        double len2 = (double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3];
        if (!f->undo && fabs(len2 - 1) > 2e-3)
            ganim_doc_warn(f->doc, GANIM_WARN_REPAIRED, rv->offset, "gltf: node %u: the rotation was not unit%s", i,
                           len2 > 0 ? "; normalised" : "; the identity is used");
        if (!f->undo) gltf_normalize_quat(q);
        memcpy(&n->local.rotation.x, q, sizeof q);
    }
    if (tv && !node_floats(tv, &n->local.translation.x, 3, recorded))
        return bad_node(f, i, tv, "the translation is not 3 numbers");
    if (sv && !node_floats(sv, &n->local.scale.x, 3, recorded)) return bad_node(f, i, sv, "the scale is not 3 numbers");
    return GANIM_OK;
}

/* Node i's members from its record (the nodes read as records: gltf.c's node_names, in
 * the order of read_nodes' names), as the tree holds them: m[j] NULL when absent, else
 * &tmp[j] with the tree's type and offset; a number's text; a string's bytes copied with a
 * NUL at *names (the tree's copy: a record's string holds no escape; *names moved past
 * it); an array or an object as its text (GJ_LATER, the member's depth and name, as
 * gj_parse_later takes it). */
static void node_record(const gltf_file *f, uint32_t i, char **names, gj_value *tmp, const gj_value **m)
{
    const gj_records *r = &f->recs[GLTF_NODES];
    const gj_field *fl = &r->set.field[(size_t)i * 7];
    for (unsigned j = 0; j < 7; j++, fl++) {
        m[j] = NULL;
        if (fl->type == GJ_ABSENT) continue;
        gj_value *v = &tmp[j];
        m[j] = v;
        v->key = r->names[j];
        v->offset = f->json_offset + fl->at;
        v->type = fl->type;
        v->lent = 0;
        v->depth = fl->type == GJ_LATER ? 3 : 0; /* (a span: the root 0, nodes 1, the node 2) */
        v->count = fl->count;
        v->text = (const char *)f->json_text + fl->at;
        if (fl->type == GJ_STRING) {
            char *copy = *names;
            memcpy(copy, v->text + 1, fl->count);
            copy[fl->count] = 0;
            v->text = copy;
            *names += (size_t)fl->count + 1;
        }
    }
}

/* The bytes node_record's strings take (each with its NUL) */
static size_t record_string_bytes(const gltf_file *f)
{
    const gj_records *r = &f->recs[GLTF_NODES];
    size_t bytes = 0, fields = (size_t)r->set.count * 7;
    for (size_t k = 0; k < fields; k++)
        if (r->set.field[k].type == GJ_STRING) bytes += (size_t)r->set.field[k].count + 1;
    return bytes;
}

/* A node's extras kept as its text in the shapes ganim's exporter writes:
 * {"ganim":{"name":"S"}}, {"ganim":{"flags":N}} and {"ganim":{"name":"S","flags":N}}, N
 * of 1 to 15 digits, no spaces: its name (copied) and flags as the tree's read gives them
 * (gj_string of the name, gj_uint of the flags), and 1; 0 for any other text (then read
 * from its tree), -1 out of memory. */
static int node_extras_shape(gltf_file *f, const gj_value *ex, gltf_node *node)
{
    const char *t = ex->text;
    const uint32_t len = ex->count;
    uint32_t p = 10, name_at = 0, name_len = 0, flags_at = 0, flags_len = 0;
    if (len < 14 || memcmp(t, "{\"ganim\":{", 10) != 0 || t[len - 1] != '}' || t[len - 2] != '}') return 0;
    if (len - p >= 8 && memcmp(t + p, "\"name\":\"", 8) == 0) {
        name_at = p + 8;
        p = name_at;
        while (p < len && t[p] != '"') p++; /* (no escapes in a span's text) */
        if (p >= len) return 0;
        name_len = p - name_at;
        p++;
        if (t[p] == ',') p++;
        else if (p != len - 2) return 0;
    }
    if (p != len - 2) {
        if (len - p < 8 || memcmp(t + p, "\"flags\":", 8) != 0) return 0;
        flags_at = p + 8;
        p = flags_at;
        while (p < len && t[p] >= '0' && t[p] <= '9') p++;
        flags_len = p - flags_at;
        if (p != len - 2 || flags_len < 1 || flags_len > 15) return 0;
    } else if (!name_at) {
        return 0;
    }
    if (name_at) {
        char *copy = gltf_scratch_raw(f, (size_t)name_len + 1, 1);
        if (!copy) return -1;
        memcpy(copy, t + name_at, name_len);
        copy[name_len] = 0;
        node->ganim_name = copy;
    }
    uint64_t flags;
    if (flags_at && gj_uint_digits(t + flags_at, flags_len, UINT32_MAX, &flags) == 1)
        node->ganim_flags = (uint32_t)flags;
    return 1;
}

/* The tree of a node's extras the records kept as its text (the bytes were charged by the
 * records' read, a bound of this tree's: not again). */
static ganim_code node_extras(gltf_file *f, const gj_value *ex, const gj_value **out)
{
    gj_parser p = f->json;
    p.max_bytes = 0;
    p.used = 0;
    p.charged = NULL;
    return gj_parse_later(&p, ex, out, f->err);
}

/* The children of node i from their text (the nodes read as records): as the tree's. */
static ganim_code node_span_children(gltf_file *f, uint32_t i, const gj_value *kids)
{
    const uint32_t n = f->node_count;
    if (!(kids->type == GJ_LATER && kids->count && kids->text[0] == '['))
        return bad_node(f, i, kids, "children is not an array");
    uint32_t pos = 0;
    gj_value item;
    while (gltf_span_item(kids, &pos, &item)) {
        uint64_t c;
        if (!gj_uint(&item, n - 1, &c) || c == i) return bad_node(f, i, &item, "a child is not another node's index");
        if (f->nodes[c].parent >= 0) {
            ganim_fail(f->err, GANIM_ERR_CORRUPT, item.offset, "gltf: node %u is a child of both node %d and node %u",
                       (unsigned)c, (int)f->nodes[c].parent, i);
            return GANIM_ERR_CORRUPT;
        }
        f->nodes[c].parent = (int32_t)i;
    }
    return GANIM_OK;
}

/* Node i from its members m (gltf_members' order: name, extras, matrix, rotation,
 * translation, scale, children), the tree's values or (recorded, a constant) node_record's. */
static GANIM_ALWAYS_INLINE ganim_code read_node(gltf_file *f, uint32_t i, const gj_value *const *m, const int recorded)
{
    const uint32_t n = f->node_count;
    gltf_node *node = &f->nodes[i];
    node->name = "";
    node->local = ganim_transform_identity();
    const gj_value *name = m[0];
    if (name && !gj_string(name, &node->name)) return bad_node(f, i, name, "the name is not a string");
    const gj_value *exv = m[1];
    if (recorded && f->ganim && exv && exv->type == GJ_LATER) { /* (records' extras as text) */
        const int shape = node_extras_shape(f, exv, node);
        if (shape < 0) return GANIM_ERR_NOMEM;
        if (shape) {
            exv = NULL; /* (read) */
        } else {
            ganim_code code = node_extras(f, m[1], &exv); /* (its tree) */
            if (code != GANIM_OK) return code;
        }
    }
    const gj_value *ex = gj_get(exv, "ganim");
    if (f->ganim && ex) {
        static const char *const ex_names[] = { "name", "flags" };
        const gj_value *em[2];
        uint64_t flags;
        gltf_members(ex, ex_names, em, 2, &f->memo_node_ex);
        gj_string(em[0], &node->ganim_name);
        if (gj_uint(em[1], UINT32_MAX, &flags)) node->ganim_flags = (uint32_t)flags;
    }
    const gj_value *mv = m[2];
    ganim_code code = mv ? node_matrix(f, i, mv, node, recorded) : node_trs(f, i, m[3], m[4], m[5], node, recorded);
    if (code != GANIM_OK) return code;
    const gj_value *kids = m[6];
    if (!kids) return GANIM_OK;
    if (recorded) return node_span_children(f, i, kids);
    if (kids->type != GJ_ARRAY) return bad_node(f, i, kids, "children is not an array");
    for (uint32_t k = 0; k < kids->count; k++) {
        uint64_t c;
        if (!gj_uint(&kids->items[k], n - 1, &c) || c == i)
            return bad_node(f, i, &kids->items[k], "a child is not another node's index");
        if (f->nodes[c].parent >= 0) {
            ganim_fail(f->err, GANIM_ERR_CORRUPT, kids->items[k].offset,
                       "gltf: node %u is a child of both node %d and node %u", (unsigned)c, (int)f->nodes[c].parent, i);
            return GANIM_ERR_CORRUPT;
        }
        f->nodes[c].parent = (int32_t)i;
    }
    return GANIM_OK;
}

ganim_code gltf_read_nodes(gltf_file *f)
{
    uint32_t n = f->node_count;
    if (!n) return GANIM_OK;
    if (!(f->nodes = gltf_scratch(f, n, sizeof *f->nodes))) return GANIM_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        f->nodes[i].parent = -1;
        f->nodes[i].bone = -1;
    }
    const gj_value *m[7];
    if (f->nodes_v->type == GJ_LATER) { /* (read as records: gltf.c's top_array) */
        char *strings = gltf_scratch_raw(f, record_string_bytes(f), 1);
        if (!strings) return GANIM_ERR_NOMEM;
        for (uint32_t i = 0; i < n; i++) {
            gj_value tmp[7];
            node_record(f, i, &strings, tmp, m);
            f->nodes[i].offset = f->json_offset + f->recs[GLTF_NODES].set.at[i];
            ganim_code code = read_node(f, i, m, 1);
            if (code != GANIM_OK) return code;
        }
    } else {
        for (uint32_t i = 0; i < n; i++) {
            const gj_value *nv = &f->nodes_v->items[i];
            if (nv->type != GJ_OBJECT) return bad_node(f, i, nv, "not an object");
            f->nodes[i].offset = nv->offset;
            /* the node's members in one pass (the first of a repeated name, as gj_get) */
            static const char *const names[] = { "name",        "extras", "matrix",  "rotation",
                                                 "translation", "scale",  "children" };
            gltf_members(nv, names, m, 7, &f->memo_node);
            ganim_code code = read_node(f, i, m, 0);
            if (code != GANIM_OK) return code;
        }
    }
    /* the parents must form trees: walk up from every node, marking the path */
    uint8_t *state = gltf_scratch(f, n, 1); /* 0 new, 1 on the current path, 2 known to reach a root */
    if (!state) return GANIM_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        int32_t k = (int32_t)i;
        while (k >= 0 && state[k] == 0) {
            state[k] = 1;
            k = f->nodes[k].parent;
        }
        if (k >= 0 && state[k] == 1)
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, f->nodes[k].offset,
                              "gltf: node %d is its own ancestor (the children lists form a loop)", (int)k);
        for (k = (int32_t)i; k >= 0 && state[k] == 1; k = f->nodes[k].parent) state[k] = 2;
    }
    return GANIM_OK;
}

/* ---- which skin ----------------------------------------------------------------------------- */

/* Channels of every animation that move each node (translation, rotation, scale). */
static ganim_code count_animated(gltf_file *f, uint32_t *moved)
{
    for (uint32_t a = 0; f->anims_v && a < f->anims_v->count; a++) {
        const gj_value *ch = gj_get(&f->anims_v->items[a], "channels");
        for (uint32_t c = 0; gj_is(ch, GJ_RECORDS) && c < ch->count; c++) { /* (read as records: gltf.c) */
            const gj_field *fl = &ch->set->field[(size_t)c * f->recs[GLTF_CHANNELS].fields];
            const gj_field *path = &fl[2], *nf = &fl[3]; /* target.path, target.node */
            uint64_t node;
            if (!gltf_field_uint(f, nf, UINT32_MAX, &node) || node >= f->node_count) continue;
            if (gltf_field_is(f, path, "rotation") || gltf_field_is(f, path, "translation") ||
                gltf_field_is(f, path, "scale"))
                moved[node]++;
        }
        for (uint32_t c = 0; gj_is(ch, GJ_ARRAY) && c < ch->count; c++) {
            /* (the names and memos of read_channel's gltf_members) */
            static const char *const cnames[] = { "target", "sampler" }, *const tnames[] = { "path", "node" };
            const gj_value *cm[2], *tm[2];
            gltf_members(&ch->items[c], cnames, cm, 2, &f->memo_channel);
            gltf_members(cm[0], tnames, tm, 2, &f->memo_target);
            const char *path = "";
            uint64_t node;
            if (!gj_uint(tm[1], UINT32_MAX, &node) || node >= f->node_count || !gj_string(tm[0], &path)) continue;
            if (gltf_is(path, "rotation") || gltf_is(path, "translation") || gltf_is(path, "scale")) moved[node]++;
        }
    }
    return GANIM_OK;
}

static int all_digits(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9') return 0;
    return 1;
}

/* Skin s's record field j (the skins read as records) */
static const gj_field *skin_field(const gltf_file *f, uint32_t s, unsigned j)
{
    return &f->recs[GLTF_SKINS].set.field[(size_t)s * GLTF_SKIN_FIELDS + j];
}

const char *gltf_skin_name(const gltf_file *f, uint32_t s, uint32_t *len)
{
    const char *name = "";
    if (f->skins_v->type == GJ_LATER) {
        const gj_field *fl = skin_field(f, s, GLTF_SKIN_NAME);
        *len = 0;
        if (fl->type != GJ_STRING) return name;
        *len = fl->count;
        return (const char *)f->json_text + fl->at + 1;
    }
    gj_string(gj_get(&f->skins_v->items[s], "name"), &name);
    *len = (uint32_t)strlen(name);
    return name;
}

/* v as the tree's member `key` of type `type`, at text t's byte `at` of the span (offset
 * base), its count; items (an object's) or text */
static void shape_value(gj_value *v, const char *key, uint8_t type, uint64_t base, uint32_t at, uint32_t count,
                        const void *p)
{
    memset(v, 0, sizeof *v);
    v->key = key;
    v->type = type;
    v->offset = base + at;
    v->count = count;
    if (type == GJ_OBJECT) v->items = p;
    else v->text = p;
}

/* A skin's extras kept as its text (span) in the shape ganim's exporter writes:
 * {"ganim":{"native_record":{"format":"F","size":N,"base64":"B"}}}, F of at most 64 bytes,
 * N digits, no spaces: the tree gj_parse_later makes of it as far as gltf_carry.c reads it
 * (gj_get of each member; the format a NUL-ended copy as gj_string gives; the size's
 * number text; the base64 lent, gltf.c's lend_member) in x, and 1 (x->v[0] the extras);
 * 0 for any other text. A span holds no escape: F and B end at the next quote. */
static int skin_extras_shape(const gj_value *span, gltf_skin_ex *x)
{
    static const char head[] = "{\"ganim\":{\"native_record\":{\"format\":\"";
    const char *t = span->text;
    const uint32_t len = span->count, h = sizeof head - 1;
    if (len < h || memcmp(t, head, h) != 0) return 0;
    uint32_t p = h;
    while (p < len && t[p] != '"') p++;
    const uint32_t fmt_at = h, fmt_len = p - h;
    if (p >= len || fmt_len > 64) return 0;
    p++;
    if (len - p < 8 || memcmp(t + p, ",\"size\":", 8) != 0) return 0;
    p += 8;
    const uint32_t size_at = p;
    while (p < len && t[p] >= '0' && t[p] <= '9') p++;
    const uint32_t size_len = p - size_at;
    if (!size_len || len - p < 11 || memcmp(t + p, ",\"base64\":\"", 11) != 0) return 0;
    p += 11;
    const uint32_t b64_at = p;
    const char *q = p < len ? memchr(t + p, '"', len - p) : NULL; /* (a base64 text may be long) */
    if (!q) return 0;
    p = (uint32_t)(q - t);
    const uint32_t b64_len = p - b64_at;
    p++;
    if (len - p != 3 || memcmp(t + p, "}}}", 3) != 0) return 0;
    memcpy(x->format, t + fmt_at, fmt_len);
    x->format[fmt_len] = 0;
    const uint64_t base = span->offset;
    shape_value(&x->v[0], span->key, GJ_OBJECT, base, 0, 1, &x->v[1]);
    shape_value(&x->v[1], "ganim", GJ_OBJECT, base, 9, 1, &x->v[2]);
    shape_value(&x->v[2], "native_record", GJ_OBJECT, base, 26, 3, &x->v[3]);
    shape_value(&x->v[3], "format", GJ_STRING, base, fmt_at - 1, fmt_len, x->format);
    shape_value(&x->v[4], "size", GJ_NUMBER, base, size_at, size_len, t + size_at);
    shape_value(&x->v[5], "base64", GJ_STRING, base, b64_at - 1, b64_len, t + b64_at);
    x->v[5].lent = 1;
    return 1;
}

ganim_code gltf_skin_extras(gltf_file *f, uint32_t s, gltf_skin_ex *x, const gj_value **out)
{
    if (f->skins_v->type != GJ_LATER) {
        *out = gj_get(&f->skins_v->items[s], "extras");
        return GANIM_OK;
    }
    const gj_field *fl = skin_field(f, s, GLTF_SKIN_EXTRAS);
    *out = NULL;
    if (fl->type != GJ_LATER) return GANIM_OK;
    const gj_value *v[GLTF_SKIN_FIELDS];
    gj_value tmp[GLTF_SKIN_FIELDS]; /* (the span as the tree's GJ_LATER value: its text, offset, depth, name) */
    gltf_fields_as_values(f, &f->recs[GLTF_SKINS], skin_field(f, s, 0), NULL, tmp, v);
    if (skin_extras_shape(v[GLTF_SKIN_EXTRAS], x)) {
        *out = &x->v[0];
        return GANIM_OK;
    }
    return node_extras(f, v[GLTF_SKIN_EXTRAS], out);
}

/* Whether skin s's name is `want` (strcmp's 0: the name holds no NUL), or with `caseless`
 * ganim_strcasecmp's 0 (the same test byte by byte: equal bytes, or tolower's equal of
 * two bytes that are not NUL). */
static int skin_named(const gltf_file *f, uint32_t s, const char *want, int caseless)
{
    uint32_t len;
    const char *name = gltf_skin_name(f, s, &len);
    for (uint32_t i = 0; i < len; i++) {
        unsigned char x = (unsigned char)name[i], y = (unsigned char)want[i];
        if (!y || (x != y && (!caseless || tolower(x) != tolower(y)))) return 0;
    }
    return want[len] == 0;
}

/* Skin s's joints: 1 when they are an array (*j its value, the tree's or the record's
 * span in *tmp: its items by joint_item), else 0. */
static int skin_joints(const gltf_file *f, uint32_t s, gj_value *tmp, const gj_value **j)
{
    if (f->skins_v->type != GJ_LATER) {
        *j = gj_get(&f->skins_v->items[s], "joints");
        return gj_is(*j, GJ_ARRAY);
    }
    const gj_value *v[GLTF_SKIN_FIELDS];
    gj_value t[GLTF_SKIN_FIELDS];
    gltf_fields_as_values(f, &f->recs[GLTF_SKINS], skin_field(f, s, 0), NULL, t, v);
    *j = NULL;
    if (!v[GLTF_SKIN_JOINTS]) return 0;
    *tmp = t[GLTF_SKIN_JOINTS];
    *j = tmp;
    return tmp->type == GJ_LATER && tmp->count && tmp->text[0] == '[';
}

/* Item k of the joints skin_joints gave (*pos: 0 before the first; items in order), NULL
 * past the last */
static const gj_value *joint_item(const gj_value *j, uint32_t k, uint32_t *pos, gj_value *item)
{
    if (j->type == GJ_ARRAY) return k < j->count ? &j->items[k] : NULL;
    /* The exporter's joints, digits after the '[' or a comma and closed by a comma or the
     * ']', as gltf_span_item takes them (no space to skip; the number's end, span_number_end's,
     * the digits' end; the same item and *pos); anything else by gltf_span_item. */
    const char *t = j->text;
    const uint32_t n = j->count;
    uint32_t i = *pos ? *pos : 1; /* (skin_joints saw the '[') */
    if (i < n && t[i] == ',') i++;
    if (i < n && t[i] >= '0' && t[i] <= '9') {
        uint32_t e = i + 1;
        while (e < n && t[e] >= '0' && t[e] <= '9') e++;
        if (e < n && (t[e] == ',' || t[e] == ']')) {
            memset(item, 0, sizeof *item);
            item->type = GJ_NUMBER;
            item->text = t + i;
            item->count = e - i;
            item->offset = j->offset + i;
            *pos = e;
            return item;
        }
    }
    return gltf_span_item(j, pos, item) ? item : NULL;
}

/* The skin gltf.skin names, or the one whose joints the animations move most. */
static ganim_code choose_skin(gltf_file *f, const uint32_t *moved)
{
    const char *want = ganim_setting_get(f->opts->settings, f->opts->setting_count, "gltf.skin");
    f->skin = -1;
    if (want) {
        if (all_digits(want) && strlen(want) < 10 && (uint32_t)strtoul(want, NULL, 10) < f->skins) {
            f->skin = (int32_t)strtoul(want, NULL, 10);
            return GANIM_OK;
        }
        for (int pass = 0; pass < 2 && f->skin < 0; pass++)
            for (uint32_t s = 0; s < f->skins && f->skin < 0; s++)
                if (skin_named(f, s, want, pass)) f->skin = (int32_t)s;
        if (f->skin >= 0) return GANIM_OK;
        char names[300] = "";
        size_t at = 0;
        for (uint32_t s = 0; s < f->skins && at < sizeof names - 1; s++) {
            uint32_t len;
            const char *name = gltf_skin_name(f, s, &len);
            int w = snprintf(names + at, sizeof names - at, "%s%u '%.*s'", s ? ", " : "", s, (int)len, name);
            if (w > 0) at += (size_t)w;
        }
        return ganim_fail(f->err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "gltf: gltf.skin=%.100s names no skin of the file (%s)", want,
                          f->skins ? names : "it has none");
    }
    uint64_t best = 0;
    uint32_t best_joints = 0;
    if (f->skins == 1) { /* (the loop below's answer for one skin: it, when its joints are an array) */
        gj_value span;
        const gj_value *j;
        if (skin_joints(f, 0, &span, &j)) f->skin = 0;
        return GANIM_OK;
    }
    for (uint32_t s = 0; s < f->skins; s++) {
        const gj_value *j;
        gj_value span, item;
        uint32_t count = 0, pos = 0; /* (the items: the array's count) */
        if (!skin_joints(f, s, &span, &j)) continue;
        uint64_t score = 0;
        const gj_value *jk;
        for (; (jk = joint_item(j, count, &pos, &item)) != NULL; count++) {
            uint64_t node;
            if (gj_uint_inline(jk, f->node_count ? f->node_count - 1 : 0, &node) && f->node_count) score += moved[node];
        }
        if (f->skin < 0 || score > best || (score == best && count > best_joints)) {
            f->skin = (int32_t)s;
            best = score;
            best_joints = count;
        }
    }
    return GANIM_OK;
}

/* ---- transforms of the nodes above a bone ---------------------------------------------------- */

/* 4x4 column-major, doubles */
static void mat_from_transform(const ganim_transform *t, double m[16])
{
    double x = t->rotation.x, y = t->rotation.y, z = t->rotation.z, w = t->rotation.w;
    double r[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
                    2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                    2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y) };
    const float *s = &t->scale.x, *tr = &t->translation.x;
    for (int col = 0; col < 3; col++) {
        for (int row = 0; row < 3; row++) m[col * 4 + row] = r[row * 3 + col] * s[col];
        m[col * 4 + 3] = 0;
    }
    for (int row = 0; row < 3; row++) m[12 + row] = tr[row];
    m[15] = 1;
}

static void mat_mul(const double a[16], const double b[16], double o[16])
{
    double r[16];
    for (int col = 0; col < 4; col++)
        for (int row = 0; row < 4; row++) {
            double v = 0;
            for (int k = 0; k < 4; k++) v += a[k * 4 + row] * b[col * 4 + k];
            r[col * 4 + row] = v;
        }
    memcpy(o, r, sizeof r);
}

static int is_identity_transform(const ganim_transform *t)
{
    return t->rotation.x == 0 && t->rotation.y == 0 && t->rotation.z == 0 && t->rotation.w == 1 &&
           t->translation.x == 0 && t->translation.y == 0 && t->translation.z == 0 && t->scale.x == 1 &&
           t->scale.y == 1 && t->scale.z == 1;
}

/* Rotation matrix (row-major 3x3) to a unit quaternion, doubles. */
static void quat_from_rows(const double m[9], double q[4])
{
    double tr = m[0] + m[4] + m[8];
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q[3] = 0.25 * s;
        q[0] = (m[7] - m[5]) / s;
        q[1] = (m[2] - m[6]) / s;
        q[2] = (m[3] - m[1]) / s;
    } else if (m[0] > m[4] && m[0] > m[8]) {
        double s = sqrt(1.0 + m[0] - m[4] - m[8]) * 2;
        q[3] = (m[7] - m[5]) / s;
        q[0] = 0.25 * s;
        q[1] = (m[1] + m[3]) / s;
        q[2] = (m[2] + m[6]) / s;
    } else if (m[4] > m[8]) {
        double s = sqrt(1.0 + m[4] - m[0] - m[8]) * 2;
        q[3] = (m[2] - m[6]) / s;
        q[0] = (m[1] + m[3]) / s;
        q[1] = 0.25 * s;
        q[2] = (m[5] + m[7]) / s;
    } else {
        double s = sqrt(1.0 + m[8] - m[0] - m[4]) * 2;
        q[3] = (m[3] - m[1]) / s;
        q[0] = (m[2] + m[6]) / s;
        q[1] = (m[5] + m[7]) / s;
        q[2] = 0.25 * s;
    }
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] = len > 0 ? q[k] / len : (k == 3);
}

/* The fold of the nodes strictly between `node` and `stop` (a bone node, or -1: the top of
 * the tree). Returns 0 when they are all at identity. */
static int fold_of(gltf_file *f, uint32_t node, int32_t stop, gltf_fold *out, int *uneven)
{
    double m[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, a[16];
    int any = 0;
    for (int32_t k = f->nodes[node].parent; k >= 0 && k != stop; k = f->nodes[k].parent) {
        if (is_identity_transform(&f->nodes[k].local)) continue;
        mat_from_transform(&f->nodes[k].local, a);
        mat_mul(a, m, m);
        any = 1;
    }
    if (!any) return 0;
    double r[9], det;
    for (int col = 0; col < 3; col++) {
        double len = sqrt(m[col * 4] * m[col * 4] + m[col * 4 + 1] * m[col * 4 + 1] + m[col * 4 + 2] * m[col * 4 + 2]);
        out->s[col] = len;
    }
    det =
        m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) + m[8] * (m[1] * m[6] - m[5] * m[2]);
    if (det < 0) out->s[0] = -out->s[0];
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < 3; col++)
            r[row * 3 + col] = out->s[col] != 0 ? m[col * 4 + row] / out->s[col] : (row == col);
    quat_from_rows(r, out->r);
    for (int k = 0; k < 3; k++) out->t[k] = m[12 + k];
    double smax = fmax(fabs(out->s[0]), fmax(fabs(out->s[1]), fabs(out->s[2])));
    *uneven = fabs(fabs(out->s[0]) - fabs(out->s[1])) > 1e-6 * smax ||
              fabs(fabs(out->s[0]) - fabs(out->s[2])) > 1e-6 * smax || det < 0;
    return 1;
}

/* ---- the skeleton ------------------------------------------------------------------------- */

/* Nearest bone above each node (-1: none), every node visited once. */
static ganim_code bones_above(gltf_file *f, const uint8_t *is_bone, int32_t *above)
{
    uint32_t n = f->node_count;
    uint8_t *done = gltf_scratch(f, n, 1);
    uint32_t *path = gltf_scratch(f, n, sizeof *path);
    if (!done || !path) return GANIM_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t len = 0;
        int32_t k = (int32_t)i;
        while (k >= 0 && !done[k]) {
            path[len++] = (uint32_t)k;
            k = f->nodes[k].parent;
        }
        /* k: -1 or a node whose answer is known; fill the path top-down */
        int32_t up = k < 0 ? -1 : (is_bone[k] ? k : above[k]);
        while (len--) {
            uint32_t p = path[len];
            above[p] = up;
            done[p] = 1;
            if (is_bone[p]) up = (int32_t)p;
        }
    }
    return GANIM_OK;
}

/* The joints (skin mode) or the nodes of the trees that hold an animated node, in the
 * order the file lists them; *count of them. */
static ganim_code bone_candidates(gltf_file *f, const uint32_t *moved, uint32_t **list, uint32_t *count,
                                  uint8_t *is_bone)
{
    uint32_t n = f->node_count;
    uint32_t *l = gltf_scratch(f, n, sizeof *l);
    if (!l) return GANIM_ERR_NOMEM;
    *count = 0;
    if (f->skin >= 0) {
        const uint32_t s = (uint32_t)f->skin;
        const gj_value *j;
        gj_value span, item;
        uint32_t k = 0, pos = 0;
        const gj_value *jk = NULL;
        if (!skin_joints(f, s, &span, &j) || !(jk = joint_item(j, 0, &pos, &item))) { /* (none: no items) */
            const uint64_t at = f->skins_v->type == GJ_LATER ? f->json_offset + f->recs[GLTF_SKINS].set.at[s]
                                                             : f->skins_v->items[s].offset;
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, at, "gltf: skin %d has no joints", (int)f->skin);
        }
        uint32_t dup = 0;
        for (; jk; jk = joint_item(j, ++k, &pos, &item)) {
            uint64_t node;
            if (!gj_uint_inline(jk, n ? n - 1 : 0, &node) || !n)
                return ganim_fail(f->err, GANIM_ERR_CORRUPT, jk->offset, "gltf: skin %d: joint %u is not a node",
                                  (int)f->skin, k);
            if (is_bone[node]) {
                dup++;
                continue;
            }
            is_bone[node] = 1;
            l[(*count)++] = (uint32_t)node;
        }
        if (dup)
            ganim_doc_warn(f->doc, GANIM_WARN_INCONSISTENT, j->offset,
                           "gltf: skin %d lists %u joints twice; they count once", (int)f->skin, dup);
        f->joints_in_skin = k; /* (the items) */
        return (*list = l), GANIM_OK;
    }
    /* no skin: every node of a tree that holds an animated node (or of every tree) */
    uint8_t *tree = gltf_scratch(f, n, 1);
    uint32_t *root = gltf_scratch(f, n, sizeof *root), *path = gltf_scratch(f, n, sizeof *path);
    if (!tree || !root || !path) return GANIM_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) root[i] = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) { /* the top of each node's tree, each node walked once */
        uint32_t len = 0;
        int32_t k = (int32_t)i;
        while (root[k] == UINT32_MAX && f->nodes[k].parent >= 0) {
            path[len++] = (uint32_t)k;
            k = f->nodes[k].parent;
        }
        uint32_t top = root[k] != UINT32_MAX ? root[k] : (uint32_t)k;
        root[k] = top;
        while (len--) root[path[len]] = top;
    }
    int any = 0;
    for (uint32_t i = 0; i < n; i++) any |= moved[i] != 0;
    for (uint32_t i = 0; i < n; i++)
        if (!any || moved[i]) tree[root[i]] = 1;
    for (uint32_t i = 0; i < n; i++) {
        if (!tree[root[i]]) continue;
        is_bone[i] = 1;
        l[(*count)++] = i;
    }
    *list = l;
    return GANIM_OK;
}

static const char *scene_name(const gltf_file *f)
{
    const gj_value *scenes = gj_get(f->root, "scenes");
    uint64_t s = 0;
    gj_uint(gj_get(f->root, "scene"), UINT32_MAX, &s);
    const char *name = "";
    if (gj_is(scenes, GJ_ARRAY) && s < scenes->count) gj_string(gj_get(&scenes->items[s], "name"), &name);
    return name;
}

ganim_code gltf_build_skeleton(gltf_file *f)
{
    uint32_t n = f->node_count;
    if (!n) return GANIM_OK;
    uint32_t *moved = gltf_scratch(f, n, sizeof *moved), *list = NULL, count = 0;
    uint8_t *is_bone = gltf_scratch(f, n, 1), *emitted = gltf_scratch(f, n, 1);
    int32_t *above = gltf_scratch(f, n, sizeof *above);
    uint32_t *chain = gltf_scratch(f, n, sizeof *chain);
    if (!moved || !is_bone || !emitted || !above || !chain) return GANIM_ERR_NOMEM;
    ganim_code code = count_animated(f, moved);
    if (code == GANIM_OK) code = choose_skin(f, moved);
    if (code == GANIM_OK) code = bone_candidates(f, moved, &list, &count, is_bone);
    if (code == GANIM_OK) code = bones_above(f, is_bone, above);
    if (code != GANIM_OK) return code;
    if (!count) return GANIM_OK;
    /* parents first, otherwise in the listed order */
    f->bone_node = ganim_doc_alloc_array(f->scratch, count, sizeof *f->bone_node);
    if (!f->bone_node) return GANIM_NOMEM(f->err);
    uint32_t nb = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t len = 0;
        for (int32_t j = (int32_t)list[k]; j >= 0 && !emitted[j]; j = above[j]) chain[len++] = (uint32_t)j;
        while (len--) {
            uint32_t node = chain[len];
            emitted[node] = 1;
            f->nodes[node].bone = (int32_t)nb;
            if (node != list[nb]) f->reordered++;
            f->bone_node[nb++] = node;
        }
    }
    f->bone_count = nb;
    ganim_skeleton *sk = ganim_doc_alloc(f->doc, sizeof *sk);
    ganim_bone *bones = ganim_doc_alloc_array(f->doc, nb, sizeof *bones);
    if (!sk || !bones) return GANIM_NOMEM(f->err);
    sk->bone_count = nb;
    sk->bones = bones;
    uint32_t len = 0;
    const char *name = f->skin >= 0 ? gltf_skin_name(f, (uint32_t)f->skin, &len) : scene_name(f);
    if (f->skin < 0) len = (uint32_t)strlen(name);
    if (f->ganim && f->skin >= 0 && len == 8 && !memcmp(name, "skeleton", 8) && !strcmp(scene_name(f), "ganim"))
        len = 0;                                     /* the exporter's names for a skeleton without one */
    sk->name = ganim_doc_strndup(f->doc, name, len); /* (ganim_doc_strdup's: a skin's name holds no NUL) */
    if (!sk->name) return GANIM_NOMEM(f->err);
    uint32_t uneven_bones = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const gltf_node *node = &f->nodes[f->bone_node[b]];
        ganim_bone *bone = &bones[b];
        int32_t up = above[f->bone_node[b]];
        bone->parent = up >= 0 ? f->nodes[up].bone : -1;
        bone->name = ganim_doc_strdup(f->doc, node->ganim_name ? node->ganim_name : node->name);
        if (!bone->name) return GANIM_NOMEM(f->err);
        bone->flags = f->ganim ? node->ganim_flags : 0;
        float q[4], t[3], s[3], in[4];
        memcpy(q, &node->local.rotation, sizeof q);
        memcpy(t, &node->local.translation, sizeof t);
        memcpy(s, &node->local.scale, sizeof s);
        gltf_fold fd;
        int uneven = 0;
        if (fold_of(f, f->bone_node[b], up, &fd, &uneven)) {
            if (!f->fold) {
                f->fold = gltf_scratch(f, nb, sizeof *f->fold);
                f->folded = gltf_scratch(f, nb, 1);
                if (!f->fold || !f->folded) return GANIM_ERR_NOMEM;
            }
            f->fold[b] = fd;
            f->folded[b] = 1;
            f->folded_bones++;
            uneven_bones += (uint32_t)uneven;
            gltf_fold_rotation(&fd, q);
            gltf_fold_translation(&fd, t);
            gltf_fold_scale(&fd, s);
        }
        if (f->undo) {
            memcpy(in, q, sizeof q);
            gltf_undo_rotation(&f->conv, bone->parent < 0, in, q);
            memcpy(in, t, sizeof t);
            gltf_undo_translation(&f->conv, bone->parent < 0, in, t);
        }
        bone->rest.rotation = (ganim_quat){ q[0], q[1], q[2], q[3] };
        bone->rest.translation = (ganim_vec3){ t[0], t[1], t[2] };
        bone->rest.scale = (ganim_vec3){ s[0], s[1], s[2] };
        if (!isfinite(t[0]) || !isfinite(t[1]) || !isfinite(t[2]) || !isfinite(s[0]) || !isfinite(s[1]) ||
            !isfinite(s[2]))
            return ganim_fail(f->err, GANIM_ERR_CORRUPT, node->offset,
                              "gltf: node %u ('%.100s'): its transform is not finite", f->bone_node[b], node->name);
    }
    if (uneven_bones)
        ganim_doc_warn(f->doc, GANIM_WARN_REPAIRED, GANIM_NO_OFFSET,
                       "gltf: %u bones sit below nodes with an uneven or mirroring scale, folded into them as closely "
                       "as a bone's own rotation and scale allow",
                       uneven_bones);
    f->doc->skeleton = sk;
    return GANIM_OK;
}
