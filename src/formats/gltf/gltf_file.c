/* What every part of the glTF read uses on the file being read: scratch memory that lives
 * as long as the read, an index member checked against the array it points into, an
 * object's members, and a JSON value the parser left to parse later. */
#include "formats/gltf/gltf.h"

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif

void *gltf_scratch(gltf_file *f, size_t count, size_t size)
{
    void *p = ganim_doc_alloc_array(f->scratch, count ? count : 1, size);
    if (!p) GANIM_NOMEM(f->err);
    return p;
}

void *gltf_scratch_raw(gltf_file *f, size_t count, size_t size)
{
    void *p = ganim_doc_alloc_array_raw(f->scratch, count ? count : 1, size);
    if (!p) GANIM_NOMEM(f->err);
    return p;
}

int gltf_index(gltf_file *f, const gj_value *obj, const char *key, uint32_t count, const char *what, uint32_t *out)
{
    return gltf_index_of(f, gj_get(obj, key), key, count, what, out);
}

/* gltf_members (gltf.h) when the memo does not know the object's names: each looked up */
void gltf_members_walk(const gj_value *obj, const char *const *names, const gj_value **out, unsigned n, gltf_memo *memo)
{
    for (unsigned j = 0; j < n; j++) out[j] = NULL;
    if (!obj || obj->type != GJ_OBJECT) return;
    const gj_value *items = obj->items;
    const uint32_t count = obj->count;
    int record = memo && count <= GLTF_MEMO_SEQ;
    for (uint32_t i = 0; i < count; i++) {
        const char *k = items[i].key;
        unsigned j = n;
        if (memo) /* (the names are told apart: one that is memo->name[j] is no other) */
            for (j = 0; j < n && k != memo->name[j];) j++;
        if (j < n) {
            if (!out[j]) out[j] = &items[i];
            else j = n; /* (a repeat: not this one) */
        } else {
            for (j = 0; j < n; j++)
                if (k[0] == names[j][0] && !out[j] && strcmp(k, names[j]) == 0) {
                    out[j] = &items[i];
                    if (memo) memo->name[j] = k;
                    break;
                }
        }
        if (record) {
            memo->seq[i] = k;
            memo->at[i] = (uint8_t)(j < n ? j : GLTF_MEMO_SEQ);
        }
    }
    if (memo) {
        memo->seq_valid = (uint8_t)record;
        memo->seq_count = count;
    }
}

int gltf_index_of(gltf_file *f, const gj_value *v, const char *key, uint32_t count, const char *what, uint32_t *out)
{
    if (!v) return 0;
    uint64_t u;
    if (!gj_uint_inline(v, UINT32_MAX, &u) || u >= count) {
        ganim_fail(f->err, GANIM_ERR_CORRUPT, v->offset, "gltf: %s: %s is %.40s, not one of the %u there are", what,
                   key, v->type == GJ_NUMBER ? v->text : "not a number", count);
        return -1;
    }
    *out = (uint32_t)u;
    return 1;
}

ganim_code gltf_json_later(gltf_file *f, const gj_value **v)
{
    if (!gj_is(*v, GJ_LATER)) return GANIM_OK;
    /* (the names met in the last one: their memory may be given back and used again) */
    memset(&f->memo_sampler, 0, sizeof f->memo_sampler);
    gj_parser p = f->json;
    p.used = f->json_used;
    p.charged = &f->json_later_used;
    return gj_parse_later(&p, *v, v, f->err);
}

void gltf_fields_as_values(const gltf_file *f, const gj_records *r, const gj_field *fl, const char *const *strings,
                           gj_value *tmp, const gj_value **out)
{
    for (unsigned j = 0; j < r->fields; j++, fl++) {
        out[j] = NULL;
        if (fl->type == GJ_ABSENT) continue;
        gj_value *v = &tmp[j];
        out[j] = v;
        v->key = r->names[j];
        v->offset = f->json_offset + fl->at;
        v->count = fl->count;
        v->type = fl->type;
        v->lent = v->depth = 0;
        v->text = (const char *)f->json_text + fl->at; /* (a number's text) */
        if (fl->type == GJ_OBJECT) {                   /* (its members are fields of their own) */
            v->items = NULL;
            v->count = 0;
        } else if (fl->type == GJ_LATER) { /* (a span field's text: json.h; the member's depth) */
            v->depth = (uint8_t)(r->depth + 3);
        } else if (fl->type == GJ_STRING) { /* the tree's copy: one of `strings` when it is */
            const char *bytes = v->text + 1;
            v->text = "";
            for (const char *const *sp = strings; sp && *sp; sp++) {
                const char *c = *sp;
                uint32_t b = 0;
                while (b < fl->count && c[b] == bytes[b]) b++; /* (a record's string holds no NUL: ends c too) */
                if (b == fl->count && !c[b]) {
                    v->text = c;
                    break;
                }
            }
        }
    }
}

static int span_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The end of the number whose bytes t[i..e) are, within t[0..n): the first byte from e on
 * that no JSON number holds (a digit, '.', 'e', 'E', '+', '-'), 16 bytes a turn where 16
 * are left (a span's number was checked by the parse: this is where it ends). */
static GANIM_ALWAYS_INLINE int span_number_byte(char c)
{
    return (unsigned)(c - '0') < 10u || c == '.' || (c | 0x20) == 'e' || c == '+' || c == '-';
}

static uint32_t span_number_end(const char *t, uint32_t e, uint32_t n)
{
#if defined(__SSE2__) && defined(__GNUC__)
    while (n - e >= 16) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(t + e));
        const __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
        __m128i in = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
        in = _mm_or_si128(in, _mm_cmpeq_epi8(x, _mm_set1_epi8('.')));
        in = _mm_or_si128(in, _mm_cmpeq_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('e')));
        in = _mm_or_si128(in, _mm_cmpeq_epi8(x, _mm_set1_epi8('+')));
        in = _mm_or_si128(in, _mm_cmpeq_epi8(x, _mm_set1_epi8('-')));
        const unsigned out = ~(unsigned)_mm_movemask_epi8(in) & 0xFFFFu;
        if (out) return e + (uint32_t)__builtin_ctz(out);
        e += 16;
    }
#endif
    while (e < n && span_number_byte(t[e])) e++;
    return e;
}

/* gltf_span_item's walk (inlined in gltf_span_floats) */
static GANIM_ALWAYS_INLINE int span_next(const gj_value *span, uint32_t *pos, gj_value *item)
{
    const char *t = span->text;
    const uint32_t n = span->count;
    uint32_t i = *pos;
    if (!i) { /* (the array's '[') */
        if (!n || t[0] != '[') return 0;
        i = 1;
    }
    while (i < n && span_space(t[i])) i++;
    if (i < n && t[i] == ',') { /* (after an item) */
        i++;
        while (i < n && span_space(t[i])) i++;
    }
    if (i >= n || t[i] == ']') {
        *pos = n;
        return 0;
    }
    item->key = NULL;
    item->text = NULL;
    item->offset = span->offset + i;
    item->count = 0;
    item->lent = item->depth = 0;
    const char c = t[i];
    uint32_t e = i + 1;
    if (c == '-' || (c >= '0' && c <= '9')) { /* (a number the parse checked: its own bytes) */
        e = span_number_end(t, e, n);
        item->type = GJ_NUMBER;
        item->text = t + i;
        item->count = e - i;
    } else if (c == '"') { /* (no escapes: the next quote closes it) */
        while (e < n && t[e] != '"') e++;
        item->type = GJ_STRING;
        e++;
    } else if (c == '{' || c == '[') {
        uint32_t level = 1;
        while (e < n && level) {
            if (t[e] == '"') {
                e++;
                while (e < n && t[e] != '"') e++;
            } else if (t[e] == '{' || t[e] == '[') {
                level++;
            } else if (t[e] == '}' || t[e] == ']') {
                level--;
            }
            e++;
        }
        item->type = c == '{' ? GJ_OBJECT : GJ_ARRAY;
    } else { /* true, false, null */
        item->type = c == 't' ? GJ_TRUE : c == 'f' ? GJ_FALSE : GJ_NULL;
        e = i + (c == 'f' ? 5u : 4u);
    }
    *pos = e < n ? e : n;
    return 1;
}

int gltf_span_item(const gj_value *span, uint32_t *pos, gj_value *item)
{
    return span && span->type == GJ_LATER && span_next(span, pos, item);
}

/* span_next's walk of the items, each number's text handed to gj_float_text (what
 * gj_float does with span_next's item), no item made; any other item: 0 (gj_float's answer
 * for it). */
int gltf_span_floats(const gj_value *span, float *out, uint32_t n)
{
    if (!span || span->type != GJ_LATER || !span->count || span->text[0] != '[') return 0;
    const char *const t = span->text;
    const uint32_t len = span->count;
    uint32_t i = 1, count = 0;
    for (;;) {
        while (i < len && span_space(t[i])) i++;
        if (i < len && t[i] == ',') { /* (after an item) */
            i++;
            while (i < len && span_space(t[i])) i++;
        }
        if (i >= len || t[i] == ']') return count == n;
        const char c = t[i];
        if (count == n || !(c == '-' || (c >= '0' && c <= '9'))) return 0;
        const uint32_t e = span_number_end(t, i + 1, len);
        if (!gj_float_text(t + i, e - i, &out[count])) return 0;
        count++;
        i = e;
    }
}
