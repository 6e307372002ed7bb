/* Documents: the arena every reader allocates from, warnings, skeleton helpers.
 * Reading and writing (which need the formats) are in src/formats; validation is in
 * validate.c. */
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
    ganim_limits limits; /* resolved */
    size_t limit;
    size_t total;      /* bytes obtained from the allocator for blocks */
    arena_block *head; /* current small-allocation block first */
    uint32_t warning_capacity;
    ganim_doc_growth growth; /* arrays the building functions grow (build.c) */
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
    doc->internal->limits = ganim_limits_resolve(NULL);
    return doc;
}

ganim_limits ganim_limits_resolve(const ganim_limits *limits)
{
    ganim_limits l = { 0 };
    if (limits) l = *limits;
    if (!l.input_bytes) l.input_bytes = GANIM_DEFAULT_INPUT_BYTES;
    if (!l.frames || l.frames > GANIM_MAX_FRAMES) l.frames = GANIM_MAX_FRAMES;
    if (!l.bones) l.bones = GANIM_DEFAULT_BONES;
    if (!l.clips) l.clips = GANIM_DEFAULT_CLIPS;
    if (!l.keys || l.keys > GANIM_MAX_FRAMES) l.keys = GANIM_MAX_FRAMES;
    if (!l.samples || l.samples > GANIM_MAX_FRAME_SAMPLES) l.samples = GANIM_MAX_FRAME_SAMPLES;
    return l;
}

void ganim_doc_set_limits(ganim_doc *doc, const ganim_limits *limits)
{
    doc->internal->limits = ganim_limits_resolve(limits);
}

const ganim_limits *ganim_doc_limits(const ganim_doc *doc)
{
    static const ganim_limits defaults = { GANIM_DEFAULT_INPUT_BYTES, GANIM_MAX_FRAMES, GANIM_DEFAULT_BONES,
                                           GANIM_DEFAULT_CLIPS,       GANIM_MAX_FRAMES, GANIM_MAX_FRAME_SAMPLES };
    return doc->internal ? &doc->internal->limits : &defaults; /* a document a caller put together */
}

ganim_code ganim_check_counts(const ganim_doc *doc, uint64_t offset, const char *what, uint64_t frames, uint64_t bones,
                              uint64_t clips, ganim_error *err)
{
    const ganim_limits *l = ganim_doc_limits(doc);
    if (frames > l->frames)
        return ganim_fail(err, GANIM_ERR_LIMIT, offset,
                          "%s announces %llu frames, more than the limit of %u "
                          "(ganim_limits.frames)",
                          what, (unsigned long long)frames, l->frames);
    if (bones > l->bones)
        return ganim_fail(err, GANIM_ERR_LIMIT, offset,
                          "%s announces %llu bones, more than the limit of %u "
                          "(ganim_limits.bones)",
                          what, (unsigned long long)bones, l->bones);
    if (clips > l->clips)
        return ganim_fail(err, GANIM_ERR_LIMIT, offset,
                          "%s announces %llu clips, more than the limit of %u "
                          "(ganim_limits.clips)",
                          what, (unsigned long long)clips, l->clips);
    if (frames && bones && frames * bones > l->samples)
        return ganim_fail(err, GANIM_ERR_LIMIT, offset,
                          "%s announces %llu frames of %llu bones, more than the "
                          "limit of %llu bone-frames (ganim_limits.samples)",
                          what, (unsigned long long)frames, (unsigned long long)bones, (unsigned long long)l->samples);
    return GANIM_OK;
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

ganim_doc_growth *ganim_doc_growth_of(ganim_doc *doc) { return &doc->internal->growth; }

size_t ganim_doc_memory_limit(const ganim_doc *doc) { return doc->internal->limit; }

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

char *ganim_doc_strdup(ganim_doc *doc, const char *s) { return ganim_doc_strndup(doc, s ? s : "", s ? strlen(s) : 0); }

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

void ganim_doc_warn(ganim_doc *doc, ganim_warning_code code, uint64_t offset, const char *fmt, ...)
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
    doc->warnings[doc->warning_count].code = code;
    doc->warning_count++;
}

const ganim_clip *ganim_doc_first_animation(const ganim_doc *doc)
{
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION) return &doc->clips[i];
    return NULL;
}

ganim_code ganim_doc_find_clip(const ganim_doc *doc, const char *spec, uint32_t *index, ganim_error *err)
{
    if (!doc || !spec || !index)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "find clip: no document or no name");
    ganim_code valid = ganim_doc_validate(doc, err);
    if (valid != GANIM_OK) return valid;
    int digits = *spec != 0;
    uint64_t n = 0;
    for (const char *p = spec; *p && digits; p++) {
        digits = *p >= '0' && *p <= '9';
        if (digits && n <= UINT32_MAX) n = n * 10 + (uint64_t)(*p - '0');
    }
    if (digits) {
        if (n < doc->clip_count) {
            *index = (uint32_t)n;
            return GANIM_OK;
        }
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "no clip %s (the file has %u clip%s, numbered from 0)", spec, doc->clip_count,
                          doc->clip_count == 1 ? "" : "s");
    }
    for (int exact = 1; exact >= 0; exact--)
        for (uint32_t i = 0; i < doc->clip_count; i++)
            if (exact ? strcmp(doc->clips[i].name, spec) == 0 : ganim_strcasecmp(doc->clips[i].name, spec) == 0) {
                *index = i;
                return GANIM_OK;
            }
    return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "no clip named '%s' (see ganim info)", spec);
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

ganim_skeleton *ganim_skeleton_flat_named(ganim_doc *doc, uint32_t count, const char *const *names, const char *prefix)
{
    ganim_skeleton *s = ganim_doc_alloc(doc, sizeof *s);
    if (!s) return NULL;
    s->name = "";
    s->bone_count = count;
    s->bones = ganim_doc_alloc_array(doc, count ? count : 1, sizeof *s->bones);
    if (!s->bones) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        ganim_bone *b = &s->bones[i];
        b->name = names && names[i] ? ganim_doc_strdup(doc, names[i]) : ganim_doc_printf(doc, "%s%u", prefix, i);
        if (!b->name) return NULL;
        b->parent = -1;
        b->rest = ganim_transform_identity();
        b->flags = GANIM_BONE_SYNTH;
    }
    return s;
}

ganim_skeleton *ganim_skeleton_flat(ganim_doc *doc, uint32_t count, const char *const *names)
{
    return ganim_skeleton_flat_named(doc, count, names, "bone_");
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
