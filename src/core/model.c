/* Documents: the arena every reader allocates from, warnings, skeleton helpers,
 * reading (probe + dispatch), writing, validation. */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

#define ARENA_BLOCK (64u * 1024u)
#define MAX_WARNINGS 1000u
#define DEFAULT_MEMORY_LIMIT ((size_t)1 << 30)

typedef struct arena_block {
    struct arena_block *next;
    size_t size; /* bytes after the header */
    size_t used;
} arena_block;

struct ganim_doc_internal {
    ganim_allocator alloc;
    size_t limit;
    size_t total;       /* bytes obtained from the allocator for blocks */
    arena_block *head;  /* current small-allocation block first */
    uint32_t warning_capacity;
};

#define HEADER_SIZE ((sizeof(arena_block) + 15u) & ~(size_t)15u)

ganim_doc *ganim_doc_create(const ganim_allocator *alloc, size_t memory_limit)
{
    ganim_allocator a = ganim_allocator_resolve(alloc);
    size_t size = sizeof(ganim_doc) + sizeof(struct ganim_doc_internal);
    ganim_doc *doc = ganim_alloc(&a, size);
    if (!doc) return NULL;
    memset(doc, 0, size);
    doc->internal = (struct ganim_doc_internal *)(doc + 1);
    doc->internal->alloc = a;
    doc->internal->limit = memory_limit ? memory_limit : DEFAULT_MEMORY_LIMIT;
    return doc;
}

void ganim_doc_free(ganim_doc *doc)
{
    if (!doc) return;
    struct ganim_doc_internal *in = doc->internal;
    ganim_allocator a = in->alloc;
    arena_block *b = in->head;
    while (b) {
        arena_block *next = b->next;
        ganim_free(&a, b, HEADER_SIZE + b->size);
        b = next;
    }
    ganim_free(&a, doc, sizeof(ganim_doc) + sizeof(struct ganim_doc_internal));
}

const ganim_allocator *ganim_doc_allocator(const ganim_doc *doc) { return &doc->internal->alloc; }

static arena_block *new_block(struct ganim_doc_internal *in, size_t size)
{
    if (size > SIZE_MAX - HEADER_SIZE) return NULL;
    size_t bytes = HEADER_SIZE + size;
    if (bytes > in->limit || in->total > in->limit - bytes) return NULL;
    arena_block *b = ganim_alloc(&in->alloc, bytes);
    if (!b) return NULL;
    in->total += bytes;
    b->size = size;
    b->used = 0;
    return b;
}

static void *doc_alloc(ganim_doc *doc, size_t size, int zero);

void *ganim_doc_alloc(ganim_doc *doc, size_t size) { return doc_alloc(doc, size, 1); }

void *ganim_doc_alloc_array_raw(ganim_doc *doc, size_t count, size_t size)
{
    size_t total;
    if (!ganim_mul_size(count, size, &total)) return NULL;
    return doc_alloc(doc, total, 0);
}

static void *doc_alloc(ganim_doc *doc, size_t size, int zero)
{
    struct ganim_doc_internal *in = doc->internal;
    if (size == 0) size = 1;
    if (size > SIZE_MAX - 15u) return NULL;
    size = (size + 15u) & ~(size_t)15u;
    arena_block *b = in->head;
    if (b && b->size - b->used >= size) {
        void *p = (uint8_t *)b + HEADER_SIZE + b->used;
        b->used += size;
        if (zero) memset(p, 0, size);
        return p;
    }
    if (size > ARENA_BLOCK / 4) {
        /* Large: its own block, linked behind the current one so small allocations
         * keep filling the current block. */
        arena_block *big = new_block(in, size);
        if (!big) return NULL;
        big->used = size;
        if (b) {
            big->next = b->next;
            b->next = big;
        } else {
            big->next = NULL;
            in->head = big;
        }
        void *p = (uint8_t *)big + HEADER_SIZE;
        if (zero) memset(p, 0, size);
        return p;
    }
    arena_block *nb = new_block(in, ARENA_BLOCK);
    if (!nb) return NULL;
    nb->next = in->head;
    in->head = nb;
    nb->used = size;
    void *p = (uint8_t *)nb + HEADER_SIZE;
    if (zero) memset(p, 0, size);
    return p;
}

void *ganim_doc_alloc_array(ganim_doc *doc, size_t count, size_t size)
{
    size_t total;
    if (!ganim_mul_size(count, size, &total)) return NULL;
    return ganim_doc_alloc(doc, total);
}

char *ganim_doc_strndup(ganim_doc *doc, const char *s, size_t n)
{
    size_t len = 0;
    while (len < n && s[len]) len++;
    char *p = ganim_doc_alloc(doc, len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *ganim_doc_strdup(ganim_doc *doc, const char *s)
{
    return ganim_doc_strndup(doc, s ? s : "", s ? strlen(s) : 0);
}

uint8_t *ganim_doc_memdup(ganim_doc *doc, const void *p, size_t n)
{
    uint8_t *d = ganim_doc_alloc(doc, n);
    if (d && n) memcpy(d, p, n);
    return d;
}

static char *doc_vprintf(ganim_doc *doc, const char *fmt, va_list ap)
{
    char tmp[1024];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    return ganim_doc_strdup(doc, tmp);
}

char *ganim_doc_printf(ganim_doc *doc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = doc_vprintf(doc, fmt, ap);
    va_end(ap);
    return s;
}

void ganim_doc_warn(ganim_doc *doc, uint64_t offset, const char *fmt, ...)
{
    struct ganim_doc_internal *in = doc->internal;
    if (doc->warning_count >= MAX_WARNINGS) {
        doc->warnings_dropped++;
        return;
    }
    if (doc->warning_count == in->warning_capacity) {
        uint32_t cap = in->warning_capacity ? in->warning_capacity * 2 : 8;
        if (cap > MAX_WARNINGS) cap = MAX_WARNINGS;
        ganim_warning *w = ganim_doc_alloc_array(doc, cap, sizeof *w);
        if (!w) {
            doc->warnings_dropped++;
            return;
        }
        if (doc->warning_count) memcpy(w, doc->warnings, doc->warning_count * sizeof *w);
        doc->warnings = w;
        in->warning_capacity = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = doc_vprintf(doc, fmt, ap);
    va_end(ap);
    if (!msg) {
        doc->warnings_dropped++;
        return;
    }
    doc->warnings[doc->warning_count].offset = offset;
    doc->warnings[doc->warning_count].message = msg;
    doc->warning_count++;
}

const ganim_clip *ganim_doc_first_animation(const ganim_doc *doc)
{
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION) return &doc->clips[i];
    return NULL;
}

int ganim_strcasecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = tolower((unsigned char)*a), cb = tolower((unsigned char)*b);
        if (ca != cb || !ca) return ca - cb;
    }
}

ganim_skeleton *ganim_skeleton_copy(ganim_doc *doc, const ganim_skeleton *src)
{
    ganim_skeleton *s = ganim_doc_alloc(doc, sizeof *s);
    if (!s) return NULL;
    s->name = ganim_doc_strdup(doc, src->name);
    s->bone_count = src->bone_count;
    s->bones = ganim_doc_alloc_array(doc, src->bone_count ? src->bone_count : 1, sizeof *s->bones);
    if (!s->name || !s->bones) return NULL;
    for (uint32_t i = 0; i < src->bone_count; i++) {
        s->bones[i] = src->bones[i];
        s->bones[i].name = ganim_doc_strdup(doc, src->bones[i].name);
        if (!s->bones[i].name) return NULL;
    }
    if (src->native_format) {
        s->native_format = src->native_format; /* static string owned by the format */
        s->native = ganim_doc_memdup(doc, src->native, src->native_size);
        s->native_size = src->native_size;
        if (!s->native) return NULL;
    }
    return s;
}

ganim_transform ganim_transform_identity(void)
{
    ganim_transform t = { { 0, 0, 0, 1 }, { 0, 0, 0 }, { 1, 1, 1 } };
    return t;
}

ganim_skeleton *ganim_skeleton_flat(ganim_doc *doc, uint32_t count, const char *const *names)
{
    ganim_skeleton *s = ganim_doc_alloc(doc, sizeof *s);
    if (!s) return NULL;
    s->name = "";
    s->bone_count = count;
    s->bones = ganim_doc_alloc_array(doc, count ? count : 1, sizeof *s->bones);
    if (!s->bones) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        ganim_bone *b = &s->bones[i];
        b->name = names && names[i] ? ganim_doc_strdup(doc, names[i]) : ganim_doc_printf(doc, "bone_%u", i);
        if (!b->name) return NULL;
        b->parent = -1;
        b->rest = ganim_transform_identity();
        b->flags = GANIM_BONE_SYNTH;
    }
    return s;
}

void ganim_skeleton_rest_from_frame0(ganim_skeleton *sk, const ganim_clip *clip)
{
    if (!sk || !clip || clip->kind != GANIM_CLIP_ANIMATION) return;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const ganim_track *t = &clip->tracks[i];
        if (t->bone >= sk->bone_count) continue;
        ganim_transform *r = &sk->bones[t->bone].rest;
        ganim_transform old = *r;
        ganim_channel_eval(&t->rotation, clip->frame_count, t->step, clip->rotation_interp, 4, 0.0, &old.rotation.x,
                           &r->rotation.x);
        ganim_channel_eval(&t->translation, clip->frame_count, t->step, clip->rotation_interp, 3, 0.0,
                           &old.translation.x, &r->translation.x);
        ganim_channel_eval(&t->scale, clip->frame_count, t->step, clip->rotation_interp, 3, 0.0, &old.scale.x,
                           &r->scale.x);
    }
}

/* ---- reading -------------------------------------------------------------------- */

ganim_code ganim_read_memory(const void *data, size_t size, const ganim_read_opts *opts,
                             ganim_doc **out, ganim_error *err)
{
    static const ganim_read_opts defaults;
    if (!opts) opts = &defaults;
    if (!out || (!data && size)) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ganim_read_memory: no data or no output");
    }
    *out = NULL;
    ganim_error_clear(err);
    const ganim_format *fmt;
    if (opts->format) {
        fmt = ganim_format_find(opts->format);
        if (!fmt) {
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "unknown format name '%s' (see 'ganim formats')",
                              opts->format);
        }
    } else {
        fmt = ganim_probe(data, size, NULL);
        if (!fmt) {
            return ganim_fail(err, GANIM_ERR_UNKNOWN_FORMAT, 0,
                              "not a file ganim recognises (%zu bytes; see 'ganim formats')", size);
        }
    }
    ganim_doc *doc = ganim_doc_create(&opts->allocator, opts->memory_limit);
    if (!doc) return GANIM_NOMEM(err);
    doc->format = fmt;
    static const uint8_t empty[1];
    ganim_code code = fmt->read(doc, size ? (const uint8_t *)data : empty, size, opts, err);
    if (code == GANIM_OK) code = ganim_doc_validate(doc, err);
    if (code != GANIM_OK) {
        if (err && err->code == GANIM_OK) {
            ganim_fail(err, code, GANIM_NO_OFFSET, "%s: %s", fmt->name, ganim_code_name(code));
        }
        ganim_doc_free(doc);
        return code;
    }
    *out = doc;
    return GANIM_OK;
}

ganim_code ganim_read_file(const char *path, const ganim_read_opts *opts, ganim_doc **out, ganim_error *err)
{
    ganim_buffer buf = { 0 };
    ganim_code code = ganim_load_file(path, opts ? &opts->allocator : NULL, &buf, err);
    if (code != GANIM_OK) return code;
    code = ganim_read_memory(buf.data, buf.size, opts, out, err);
    ganim_buffer_free(&buf);
    return code;
}

ganim_code ganim_write(const ganim_doc *doc, const char *format_name, const ganim_write_opts *opts,
                       ganim_buffer *out, ganim_error *err)
{
    static const ganim_write_opts defaults;
    if (!opts) opts = &defaults;
    if (!doc || !out) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ganim_write: no document or output");
    const ganim_format *fmt = format_name ? ganim_format_find(format_name) : doc->format;
    if (!fmt) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "unknown format name '%s'", format_name);
    if (!fmt->write) {
        return ganim_fail(err, GANIM_ERR_UNSUPPORTED, GANIM_NO_OFFSET, "%s: writing is not supported", fmt->name);
    }
    if (!out->data) out->allocator = ganim_allocator_resolve(&opts->allocator);
    size_t start = out->size;
    ganim_code code = fmt->write(doc, opts, out, err);
    if (code != GANIM_OK) out->size = start;
    return code;
}

ganim_code ganim_doc_resample(ganim_doc *doc, unsigned factor, ganim_error *err)
{
    if (!doc || factor == 0 || factor > 64) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "resample: factor must be 1..64");
    }
    if (factor == 1) return GANIM_OK;
    if (doc->format && doc->format->resample) return doc->format->resample(doc, factor, err);
    return ganim_doc_resample_generic(doc, factor, err);
}

/* ---- validation ------------------------------------------------------------------ */

/* Both checks run without early exits so the compiler can vectorise them; callers
 * look for the offending value only when a check fails. */
static int finite_all(const float *v, size_t n)
{
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= fabsf(v[i]) <= FLT_MAX; /* false for NaN too */
    return ok;
}

/* |length - 1| <= 1e-3  <=>  length^2 within [0.998001, 1.002001]; NaN and infinities
 * fail the comparison too, so one test covers finiteness. */
static int unit_quat(const float *q)
{
    float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    return len2 >= 0.998001f && len2 <= 1.002001f;
}

static int unit_quats(const float *q, size_t n)
{
    int ok = 1;
    for (size_t k = 0; k < n; k++) {
        const float *p = q + k * 4;
        float len2 = p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + p[3] * p[3];
        ok &= (len2 >= 0.998001f) & (len2 <= 1.002001f);
    }
    return ok;
}

static ganim_code check_channel(const ganim_channel *ch, const ganim_clip *clip, uint32_t ci, uint32_t ti,
                                const char *what, int comps, ganim_error *err)
{
    switch (ch->kind) {
    case GANIM_CHANNEL_ABSENT:
        return GANIM_OK;
    case GANIM_CHANNEL_CONSTANT:
        if (ch->count != 1 || !ch->values) goto bad;
        break;
    case GANIM_CHANNEL_PER_FRAME:
        if (ch->count != clip->frame_count || !ch->values) goto bad;
        break;
    case GANIM_CHANNEL_KEYED:
        if (ch->count == 0 || !ch->values || !ch->times) goto bad;
        for (uint32_t k = 0; k < ch->count; k++) {
            if (!isfinite(ch->times[k]) || (k && !(ch->times[k] > ch->times[k - 1]))) goto bad;
        }
        break;
    default:
        goto bad;
    }
    if (comps == 4) {
        if (unit_quats(ch->values, ch->count)) return GANIM_OK;
        for (uint32_t k = 0; k < ch->count; k++) {
            const float *q = ch->values + (size_t)k * 4;
            if (!unit_quat(q)) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET,
                                  "clip %u track %u: rotation %u is not a unit quaternion (%g %g %g %g)", ci, ti, k,
                                  (double)q[0], (double)q[1], (double)q[2], (double)q[3]);
            }
        }
    } else if (!finite_all(ch->values, (size_t)ch->count * (size_t)comps)) {
        return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u track %u: %s has a value that is not a finite number",
                          ci, ti, what);
    }
    return GANIM_OK;
bad:
    return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u track %u: %s channel is inconsistent", ci, ti, what);
}

ganim_code ganim_doc_validate(const ganim_doc *doc, ganim_error *err)
{
    if (!doc) return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "no document");
    const ganim_skeleton *s = doc->skeleton;
    if (s) {
        if (s->bone_count && !s->bones) return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "skeleton without bones");
        for (uint32_t i = 0; i < s->bone_count; i++) {
            const ganim_bone *b = &s->bones[i];
            if (!b->name || b->parent < -1 || b->parent >= (int32_t)i) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "bone %u: parent %d is not an earlier bone", i,
                                  (int)b->parent);
            }
            const float *q = &b->rest.rotation.x;
            if (!finite_all(q, 4) || !finite_all(&b->rest.translation.x, 3) || !finite_all(&b->rest.scale.x, 3)) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "bone %u: rest pose is not finite", i);
            }
            if (!unit_quat(q)) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "bone %u: rest rotation is not a unit quaternion", i);
            }
        }
    }
    if (doc->clip_count && !doc->clips) return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clips missing");
    for (uint32_t ci = 0; ci < doc->clip_count; ci++) {
        const ganim_clip *c = &doc->clips[ci];
        if (!c->name) return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u has no name", ci);
        if (c->kind == GANIM_CLIP_OPAQUE) {
            if (c->opaque_size && !c->opaque) return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u: bytes missing", ci);
            continue;
        }
        if (!(c->fps >= GANIM_MIN_FPS && c->fps <= GANIM_MAX_FPS)) { /* also NaN */
            return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u: frame rate %g is outside %g..%g frames per second",
                              ci, c->fps, GANIM_MIN_FPS, GANIM_MAX_FPS);
        }
        if (c->frame_count == 0) return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u has no frames", ci);
        /* Exporters sample every frame of every bone: a file that announces billions of
         * frames without data for them must not make them spin. */
        uint64_t samples = (uint64_t)c->frame_count * (s && s->bone_count ? s->bone_count : 1);
        if (c->frame_count > GANIM_MAX_FRAMES || samples > GANIM_MAX_FRAME_SAMPLES) {
            return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                              "clip %u: %u frames of %u bones is more than ganim handles (%u frames, %u bone-frames)", ci,
                              c->frame_count, s ? s->bone_count : 0, (unsigned)GANIM_MAX_FRAMES,
                              (unsigned)GANIM_MAX_FRAME_SAMPLES);
        }
        if (c->track_count && !c->tracks) return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u: tracks missing", ci);
        for (uint32_t ti = 0; ti < c->track_count; ti++) {
            const ganim_track *t = &c->tracks[ti];
            if (!s || t->bone >= s->bone_count) {
                return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u track %u: bone %u is not in the skeleton", ci, ti,
                                  t->bone);
            }
            for (uint32_t tj = 0; tj < ti; tj++) {
                if (c->tracks[tj].bone == t->bone) {
                    return ganim_fail(err, GANIM_ERR_CORRUPT, GANIM_NO_OFFSET, "clip %u: two tracks animate bone %u", ci, t->bone);
                }
            }
            ganim_code code;
            if ((code = check_channel(&t->rotation, c, ci, ti, "rotation", 4, err)) != GANIM_OK) return code;
            if ((code = check_channel(&t->translation, c, ci, ti, "translation", 3, err)) != GANIM_OK) return code;
            if ((code = check_channel(&t->scale, c, ci, ti, "scale", 3, err)) != GANIM_OK) return code;
        }
    }
    return GANIM_OK;
}
