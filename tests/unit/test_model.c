/* Document arena, memory limit, warnings, validation, the IO layer. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "io/bits.h"
#include "io/reader.h"
#include "io/writer.h"
#include "support/tbuild.h"
#include "test.h"

TEST(arena_and_limit)
{
    ganim_doc *doc = ganim_doc_create(NULL, 200 * 1024);
    uint8_t *small = ganim_doc_alloc(doc, 10);
    CHECK(small && ((uintptr_t)small & 15) == 0);
    CHECK_EQ_INT(small[9], 0);
    CHECK(ganim_doc_alloc(doc, 100 * 1024) != NULL); /* large block */
    CHECK(ganim_doc_alloc(doc, 10) != NULL);         /* small ones keep working */
    CHECK(ganim_doc_alloc(doc, 150 * 1024) == NULL); /* over the limit */
    CHECK(ganim_doc_alloc_array(doc, SIZE_MAX / 2, 4) == NULL);
    CHECK_EQ_STR(ganim_doc_strndup(doc, "abc\0def", 7), "abc");
    ganim_doc_free(doc);
}

/* The names readers make up: as ganim_doc_printf's "%s%u" gives them. */
TEST(made_up_names)
{
    ganim_doc *doc = ganim_doc_create(NULL, 0);
    static const uint32_t n[] = { 0, 1, 9, 10, 99, 100, 4095, 65536, 999999999, 1000000000, 4294967295u };
    char want[64];
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        snprintf(want, sizeof want, "bone_%u", n[i]);
        CHECK_EQ_STR(ganim_doc_name_u32(doc, "bone_", n[i]), want);
    }
    CHECK_EQ_STR(ganim_doc_name_u32(doc, "", 42), "42");
    CHECK_EQ_STR(ganim_doc_name_u32(doc, "weapon_", 7), "weapon_7");
    ganim_doc_free(doc);
}

/* A counting allocator: calls, and live bytes by the sizes given back to ganim_free. */
typedef struct small_count {
    long calls;
    long long live;
} small_count;
static void *sc_alloc(void *u, size_t n)
{
    small_count *c = u;
    c->calls++;
    c->live += (long long)n;
    return malloc(n ? n : 1);
}
static void *sc_realloc(void *u, void *p, size_t o, size_t n)
{
    small_count *c = u;
    c->calls++;
    c->live += (long long)n - (long long)o;
    return realloc(p, n ? n : 1);
}
static void sc_free(void *u, void *p, size_t n)
{
    small_count *c = u;
    c->live -= (long long)n;
    free(p);
}

/* A small read's arena (ganim_doc_size_for_input): the document's first block 4 n + 4 KiB
 * (in 4 KiB), the scratch's inside its own allocation, both counted against the memory
 * limit; marks, releases and frees give back exactly what was taken; a large input keeps
 * 64 KiB blocks. */
TEST(small_read_arena)
{
    small_count c = { 0, 0 };
    ganim_allocator a = { sc_alloc, sc_realloc, sc_free, &c };
    ganim_doc *doc = ganim_doc_create(&a, 0);
    CHECK(doc != NULL);
    if (!doc) return;
    ganim_doc_size_for_input(doc, 291); /* 4 * 291 + 4096 -> 8 KiB */
    long calls = c.calls;
    long long live = c.live;
    CHECK(ganim_doc_alloc(doc, 100) != NULL);
    CHECK_EQ_INT(c.calls, calls + 1);
    CHECK(c.live - live >= 8192 && c.live - live < 8192 + 256); /* an 8 KiB block, not 64 */
    ganim_doc *s = ganim_doc_scratch(doc);
    CHECK(s != NULL);
    if (!s) return;
    calls = c.calls;
    ganim_doc_mark_t m = ganim_doc_mark(s);
    for (int i = 0; i < 60; i++) CHECK(ganim_doc_alloc(s, 100) != NULL); /* 60 x 112 in the embedded 8 KiB */
    CHECK_EQ_INT(c.calls, calls);
    ganim_doc_release(s, m);
    CHECK(ganim_doc_alloc(s, 8000) != NULL); /* the whole embedded block again */
    CHECK_EQ_INT(c.calls, calls);
    CHECK(ganim_doc_alloc(s, 300) != NULL); /* then a 64 KiB block */
    CHECK_EQ_INT(c.calls, calls + 1);
    ganim_doc_free(s);
    ganim_doc_free(doc);
    CHECK_EQ_INT(c.live, 0);

    /* the limit: the scratch's embedded 8 KiB count against the document's limit */
    ganim_doc *lim = ganim_doc_create(&a, 24 * 1024);
    ganim_doc_size_for_input(lim, 291);
    CHECK(ganim_doc_alloc(lim, 16) != NULL); /* 8 KiB */
    ganim_doc *ls = ganim_doc_scratch(lim);  /* 8 KiB more: 16 + headers of 24 */
    CHECK(ls != NULL);
    CHECK(ganim_doc_alloc(lim, 8190) == NULL); /* a second block (64 KiB) would pass 24 KiB... */
    CHECK(ganim_doc_alloc(lim, 8000) != NULL); /* ...which the rest of the first still holds */
    ganim_doc_free(ls);
    CHECK(ganim_doc_alloc(lim, 8190) == NULL); /* a second small block is 64 KiB: over */
    ganim_doc_free(lim);
    CHECK_EQ_INT(c.live, 0);

    /* the embedded block counts for the document too */
    ganim_doc *first = ganim_doc_create(&a, 12 * 1024);
    ganim_doc_size_for_input(first, 291);
    ganim_doc *fs = ganim_doc_scratch(first); /* its 8 KiB inside */
    CHECK(fs && ganim_doc_alloc(fs, 16) != NULL);
    CHECK(ganim_doc_alloc(first, 16) == NULL); /* the document's 8 KiB: 16 of 12 */
    ganim_doc_free(fs);
    CHECK(ganim_doc_alloc(first, 16) != NULL); /* alone: 8 of 12 */
    ganim_doc_free(first);
    CHECK_EQ_INT(c.live, 0);

    /* a scratch whose embedded block the limit refuses has none, and fails as before */
    ganim_doc *tight = ganim_doc_create(&a, 10 * 1024);
    ganim_doc_size_for_input(tight, 291);
    CHECK(ganim_doc_alloc(tight, 16) != NULL);
    ganim_doc *ts = ganim_doc_scratch(tight);
    CHECK(ts != NULL);
    CHECK(ts && ganim_doc_alloc(ts, 16) == NULL); /* 8 + 8 KiB over 10 */
    ganim_doc_free(ts);
    ganim_doc_free(tight);
    CHECK_EQ_INT(c.live, 0);

    /* a large input: 64 KiB blocks and no embedded block, as before */
    ganim_doc *big = ganim_doc_create(&a, 0);
    ganim_doc_size_for_input(big, 16 * 1024);
    live = c.live;
    CHECK(ganim_doc_alloc(big, 16) != NULL);
    CHECK(c.live - live >= 64 * 1024);
    live = c.live;
    ganim_doc *bs = ganim_doc_scratch(big);
    CHECK(bs && c.live - live < 4096);
    ganim_doc_free(bs);
    ganim_doc_free(big);
    CHECK_EQ_INT(c.live, 0);
}

/* A document made for a small input (ganim_doc_create_for_input, the BVH reader's): one
 * allocation holds the document and its first block (4 n + 4 KiB), which the limit counts;
 * its scratch embeds its own; a limit that refuses the block leaves none (and the first
 * allocation fails as it did); a large input's document is the usual one. A read of a small
 * BVH text through ganim_read_memory makes one allocation fewer than a document made the
 * usual way would. */
TEST(document_for_input)
{
    small_count c = { 0, 0 };
    ganim_allocator a = { sc_alloc, sc_realloc, sc_free, &c };
    ganim_doc *doc = ganim_doc_create_for_input(&a, 0, 291);
    CHECK(doc != NULL);
    if (!doc) return;
    CHECK_EQ_INT(c.calls, 1);
    /* the document and an 8 KiB block, and room for the scratch and its own 8 KiB */
    CHECK(c.live >= 2 * 8192 && c.live < 2 * 8192 + 2048);
    unsigned char *mine[70];
    for (int i = 0; i < 70; i++) { /* 70 x 112 inside */
        mine[i] = ganim_doc_alloc(doc, 100);
        CHECK(mine[i] != NULL);
        if (mine[i]) memset(mine[i], 0xA5, 100);
    }
    CHECK_EQ_INT(c.calls, 1);
    ganim_doc *s = ganim_doc_scratch(doc); /* in the document's allocation, its 8 KiB too */
    unsigned char *theirs = s ? ganim_doc_alloc(s, 8000) : NULL;
    CHECK(theirs != NULL);
    if (theirs) memset(theirs, 0x5A, 8000);
    CHECK_EQ_INT(c.calls, 1); /* the scratch and its 8,000 bytes: no allocation */
    int intact = 1;
    for (int i = 0; i < 70; i++)
        for (int k = 0; k < 100; k++) intact &= mine[i] && mine[i][k] == 0xA5;
    CHECK(intact); /* the scratch's bytes are not the document's */
    long calls = c.calls;
    CHECK(ganim_doc_alloc(doc, 1000) != NULL); /* past the 8 KiB: a 64 KiB block */
    CHECK_EQ_INT(c.calls, calls + 1);
    ganim_doc_free(doc); /* the document first: the scratch frees the allocation */
    CHECK(s && ganim_doc_alloc(s, 16) != NULL);
    ganim_doc_free(s);
    CHECK_EQ_INT(c.live, 0);

    /* the scratch first; then the room is free for the next scratch; one linked at a time */
    c.calls = 0;
    doc = ganim_doc_create_for_input(&a, 0, 291);
    s = doc ? ganim_doc_scratch(doc) : NULL;
    CHECK(s != NULL);
    ganim_doc *other = doc ? ganim_doc_scratch(doc) : NULL; /* a second one: its own allocation */
    CHECK(other && ganim_doc_alloc(other, 16) != NULL);
    CHECK_EQ_INT(c.calls, 2);
    ganim_doc_free(other);
    ganim_doc_free(s);
    s = doc ? ganim_doc_scratch(doc) : NULL; /* the room again */
    CHECK(s && ganim_doc_alloc(s, 16) != NULL);
    CHECK_EQ_INT(c.calls, 2);
    ganim_doc_free(s);
    ganim_doc_free(doc);
    CHECK_EQ_INT(c.live, 0);

    /* the limit counts the embedded block: 8 of 10 KiB, the scratch's 8 more refused */
    ganim_doc *lim = ganim_doc_create_for_input(&a, 10 * 1024, 291);
    CHECK(lim && ganim_doc_alloc(lim, 16) != NULL);
    ganim_doc *ls = lim ? ganim_doc_scratch(lim) : NULL;
    CHECK(ls && ganim_doc_alloc(ls, 16) == NULL);
    ganim_doc_free(ls);
    CHECK(lim && ganim_doc_alloc(lim, 16) != NULL);
    ganim_doc_free(lim);
    CHECK_EQ_INT(c.live, 0);

    /* a limit under the block: no embedded block, and the first allocation fails */
    ganim_doc *tiny = ganim_doc_create_for_input(&a, 4 * 1024, 291);
    CHECK(tiny != NULL);
    CHECK(tiny && c.live < 1024);
    CHECK(tiny && ganim_doc_alloc(tiny, 16) == NULL);
    ganim_doc_free(tiny);
    CHECK_EQ_INT(c.live, 0);

    /* a large input: the usual document, its first block 64 KiB when first needed */
    ganim_doc *big = ganim_doc_create_for_input(&a, 0, 16 * 1024);
    CHECK(big && c.live < 1024);
    long long live = c.live;
    CHECK(big && ganim_doc_alloc(big, 16) != NULL);
    CHECK(c.live - live >= 64 * 1024);
    ganim_doc_free(big);
    CHECK_EQ_INT(c.live, 0);

    /* a small BVH read: the document's block in its allocation */
    static const char text[] = "HIERARCHY\nROOT hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Zrotation Xrotation "
                               "Yrotation\n\tEnd Site\n\t{\n\t\tOFFSET 0 1 0\n\t}\n}\nMOTION\nFrames: 2\n"
                               "Frame Time: 0.033333\n0 0 0\n10 20 30\n";
    ganim_read_opts ro = { 0 };
    ro.allocator = a;
    ro.format = "bvh";
    ganim_doc *d = NULL;
    c.calls = 0;
    CHECK(ganim_read_memory(text, sizeof text - 1, &ro, &d, NULL) == GANIM_OK);
    long read_calls = c.calls;
    CHECK(d && d->clip_count == 1 && d->clips[0].frame_count == 2);
    ganim_doc_free(d);
    CHECK_EQ_INT(c.live, 0);
    CHECK_EQ_INT(read_calls, 1); /* the document, the scratch and their blocks (2 before, 3 before that) */
}

/* A reader's scratch (ganim_doc_scratch) and its document share the memory limit while
 * both live, whichever is freed first. */
TEST(scratch_shares_the_limit)
{
    for (int scratch_first = 0; scratch_first < 2; scratch_first++) {
        ganim_doc *doc = ganim_doc_create(NULL, 400 * 1024);
        ganim_doc *s = ganim_doc_scratch(doc);
        CHECK(doc && s);
        if (!doc || !s) return;
        CHECK(ganim_doc_alloc(doc, 150 * 1024) != NULL);
        CHECK(ganim_doc_alloc(s, 150 * 1024) != NULL);
        CHECK(ganim_doc_alloc(s, 150 * 1024) == NULL);   /* 450 KiB of both: over */
        CHECK(ganim_doc_alloc(doc, 150 * 1024) == NULL); /* the same from the document */
        CHECK(ganim_doc_alloc(doc, 60 * 1024) != NULL);  /* within it */
        ganim_doc *other = ganim_doc_scratch(doc);       /* a second one counts alone */
        CHECK(other && ganim_doc_alloc(other, 300 * 1024) != NULL);
        ganim_doc_free(other);
        if (scratch_first) {
            ganim_doc_free(s);
            CHECK(ganim_doc_alloc(doc, 150 * 1024) != NULL); /* the scratch's share is back */
            ganim_doc_free(doc);
        } else {
            ganim_doc_free(doc);
            CHECK(ganim_doc_alloc(s, 200 * 1024) != NULL); /* alone again */
            ganim_doc_free(s);
        }
    }
}

/* ganim_doc_reserve: what a reader reserves comes from one block (one allocator call),
 * a reserve the allocator or the limit refuses changes nothing. */
typedef struct counting {
    int calls, fail;
} counting;
static void *cnt_alloc(void *user, size_t size)
{
    counting *c = user;
    c->calls++;
    return c->fail ? NULL : malloc(size);
}
static void *cnt_realloc(void *user, void *p, size_t old_size, size_t new_size)
{
    (void)user;
    (void)old_size;
    return realloc(p, new_size);
}
static void cnt_free(void *user, void *p, size_t size)
{
    (void)user;
    (void)size;
    free(p);
}

TEST(arena_reserve)
{
    counting c = { 0, 0 };
    ganim_allocator al = { cnt_alloc, cnt_realloc, cnt_free, &c };
    ganim_doc *doc = ganim_doc_create(&al, 0);
    CHECK_EQ_INT(c.calls, 1); /* the document */
    CHECK_EQ_INT(ganim_doc_reserve(doc, 300 * 1024), 1);
    CHECK_EQ_INT(c.calls, 2); /* one block */
    /* 300 KiB in pieces small and large (each rounded to 16 bytes): no other call */
    for (int i = 0; i < 100; i++) CHECK(ganim_doc_alloc(doc, 1000) != NULL);
    uint8_t *big = ganim_doc_alloc_array_raw(doc, 150 * 1024, 1);
    CHECK(big != NULL && ((uintptr_t)big & 15) == 0);
    CHECK_EQ_INT(c.calls, 2);
    CHECK_EQ_INT(ganim_doc_reserve(doc, 1000), 1); /* room left: nothing made */
    CHECK_EQ_INT(c.calls, 2);
    CHECK(ganim_doc_alloc(doc, 60 * 1024) != NULL); /* past the reserve: blocks as before */
    CHECK_EQ_INT(c.calls, 3);
    c.fail = 1;
    CHECK_EQ_INT(ganim_doc_reserve(doc, 1 << 20), 0); /* refused: nothing changes */
    c.fail = 0;
    CHECK(ganim_doc_alloc(doc, 16) != NULL);
    ganim_doc_free(doc);
    ganim_doc *lim = ganim_doc_create(NULL, 100 * 1024);
    CHECK_EQ_INT(ganim_doc_reserve(lim, 200 * 1024), 0); /* above the memory limit */
    CHECK(ganim_doc_alloc(lim, 50 * 1024) != NULL);      /* the limit still has room */
    ganim_doc_free(lim);
}

/* The default allocator's large blocks (offered huge pages on Linux, core/alloc.c):
 * allocated, grown and shrunk with their bytes kept, below and above the 4 MiB mark and at
 * sizes that are no multiple of a page. */
TEST(default_allocator_large_blocks)
{
    ganim_allocator a = ganim_allocator_resolve(NULL);
    CHECK(ganim_allocator_is_default(&a));
    static const size_t sizes[] = { 1u << 20, (4u << 20) - 1, 4u << 20, (9u << 20) + 12345, 3u << 20, 21u << 20 };
    size_t have = 0;
    uint8_t *p = NULL;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        uint8_t *q = ganim_realloc(&a, p, have, n);
        CHECK(q != NULL);
        if (!q) break;
        p = q;
        size_t kept = have < n ? have : n, bad = 0;
        for (size_t j = 0; j < kept; j += 4093) bad += p[j] != (uint8_t)(j * 7u + 1u);
        CHECK_MSG(bad == 0, "%zu bytes grown or shrunk to %zu: %zu bytes changed", have, n, bad);
        for (size_t j = 0; j < n; j += 4093) p[j] = (uint8_t)(j * 7u + 1u);
        p[n - 1] = 0xA5;
        have = n;
    }
    ganim_free(&a, p, have);
    uint8_t *big = ganim_alloc(&a, 6u << 20);
    CHECK(big != NULL);
    if (big) {
        memset(big, 0x5A, 6u << 20);
        CHECK(big[0] == 0x5A && big[(6u << 20) - 1] == 0x5A);
    }
    ganim_free(&a, big, 6u << 20);
}

/* ganim_doc_mark / ganim_doc_release: what was allocated after the mark is given back
 * (blocks to the allocator, counted no more against the limit; the mark's block handed
 * out again from where it stood), what was before stays. */
TEST(arena_mark_release)
{
    ganim_doc *doc = ganim_doc_create(NULL, 400 * 1024);
    uint8_t *before = ganim_doc_alloc(doc, 100);
    CHECK(before != NULL);
    if (!before) return;
    memset(before, 7, 100);
    for (int round = 0; round < 3; round++) {
        ganim_doc_mark_t m = ganim_doc_mark(doc);
        uint8_t *first = ganim_doc_alloc(doc, 10);
        CHECK(first == before + 112); /* the next 16 bytes of the mark's block, each round */
        /* blocks small and large, 300 KiB in all: a second round fits only if the first
         * went back */
        for (int i = 0; i < 200; i++) CHECK(ganim_doc_alloc(doc, 1000) != NULL);
        CHECK(ganim_doc_alloc(doc, 100 * 1024) != NULL);
        CHECK(ganim_doc_alloc(doc, 150 * 1024) == NULL); /* over the limit */
        ganim_doc_release(doc, m);
    }
    CHECK(before[0] == 7 && before[99] == 7);
    ganim_doc_mark_t empty = ganim_doc_mark(doc);
    ganim_doc_release(doc, empty); /* nothing since: nothing changes */
    CHECK(ganim_doc_alloc(doc, 16) == before + 112);
    ganim_doc_free(doc);
    ganim_doc *none = ganim_doc_create(NULL, 0); /* a mark before any block */
    ganim_doc_mark_t m0 = ganim_doc_mark(none);
    CHECK(ganim_doc_alloc(none, 20 * 1024) != NULL && ganim_doc_alloc(none, 10) != NULL);
    ganim_doc_release(none, m0);
    CHECK(ganim_doc_alloc(none, 10) != NULL);
    ganim_doc_free(none);
}

TEST(warnings_are_capped)
{
    ganim_doc *doc = ganim_doc_create(NULL, 0);
    for (int i = 0; i < 1005; i++) ganim_doc_warn(doc, GANIM_WARN_INCONSISTENT, (uint64_t)i, "warning %d", i);
    CHECK_EQ_INT(doc->warning_count, 1000);
    CHECK_EQ_INT(doc->warnings_dropped, 5);
    CHECK_EQ_STR(doc->warnings[999].message, "warning 999");
    CHECK_EQ_INT(doc->warnings[3].offset, 3);
    CHECK_EQ_INT(doc->warnings[3].code, GANIM_WARN_INCONSISTENT);
    ganim_doc_free(doc);
}

TEST(validate_rejects_bad_models)
{
    ganim_doc *doc = tb_doc(2, NULL);
    ganim_error err = { 0 };
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_OK);
    doc->skeleton->bones[0].parent = 1; /* parent after child */
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    CHECK(strstr(err.message, "bone 0") != NULL);
    doc->skeleton->bones[0].parent = -1;
    doc->skeleton->bones[1].rest.rotation.w = 2; /* not unit */
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    doc->skeleton->bones[1].rest.rotation.w = 1;
    tb_clip(doc, "c", 30, 2);
    tb_track(doc, 0, 5, NULL, NULL); /* not in the skeleton: the building functions leave that to validation */
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    doc->clips[0].tracks[0].bone = 1;
    static const float nan3[3] = { 0, NAN, 0 };
    tb_channel(doc, 0, 0, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_CONSTANT, 1, NULL, nan3);
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    static const float ok3[6] = { 0, 1, 0, 0, 1, 0 };
    tb_channel(doc, 0, 0, GANIM_TARGET_TRANSLATION, GANIM_CHANNEL_PER_FRAME, 2, NULL, ok3);
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_OK);
    /* below: counts the building functions refuse, put in place to test validation */
    doc->clips[0].tracks[0].translation.count = 3; /* 3 != 2 */
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    doc->clips[0].tracks[0].translation.count = 2;
    /* a clip announcing more frames than exporters can sample is refused */
    doc->clips[0].tracks[0].translation.kind = GANIM_CHANNEL_ABSENT;
    doc->clips[0].frame_count = GANIM_MAX_FRAMES + 1;
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_LIMIT);
    doc->clips[0].frame_count = GANIM_MAX_FRAMES; /* 2^20 frames x 2 bones: within limits */
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_OK);
    /* frame rates whose durations overflow or lose all precision */
    static const double bad_fps[] = { 2.2e-38, 1e-5, 2e6, 0, -30, NAN, INFINITY };
    for (size_t i = 0; i < sizeof bad_fps / sizeof bad_fps[0]; i++) {
        doc->clips[0].fps = bad_fps[i];
        CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    }
    doc->clips[0].fps = GANIM_MIN_FPS;
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_OK);
    ganim_doc_free(doc);
}

TEST(unknown_input_is_an_error)
{
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    static const uint8_t junk[16] = { 1, 2, 3 };
    CHECK_EQ_INT(ganim_read_memory(junk, sizeof junk, NULL, &doc, &err), GANIM_ERR_UNKNOWN_FORMAT);
    CHECK(doc == NULL);
    CHECK(err.message[0] != 0);
    ganim_read_opts o = { .format = "no-such-format" };
    CHECK_EQ_INT(ganim_read_memory(junk, sizeof junk, &o, &doc, &err), GANIM_ERR_INVALID_ARG);
    CHECK_EQ_INT(ganim_read_file("/nonexistent/file.ala", NULL, &doc, &err), GANIM_ERR_IO);
}

TEST(formats_by_extension)
{
    CHECK_EQ_STR(ganim_format_for_path("Data/Art/VSF_XWING_DEPLOY_00.ALA")->name, "alamo-ala");
    CHECK_EQ_STR(ganim_format_for_path("C:\\mods\\x.alo")->name, "alamo-alo");
    CHECK_EQ_STR(ganim_format_for_path("limea2.A00")->name, "ff7-battle");
    CHECK(ganim_format_for_path("rtda") == NULL);         /* FF7 packs have no extension */
    CHECK(ganim_format_for_path("dir.ala/file") == NULL); /* the dot is in a directory */
    CHECK(ganim_format_has_extension(ganim_format_find("civ7"), ".CIV"));
    CHECK(!ganim_format_has_extension(ganim_format_find("civ7"), ".ci"));
    CHECK(!ganim_format_has_extension(ganim_format_find("civ7"), ""));
}

TEST(reader_bounds)
{
    static const uint8_t b[6] = { 0x01, 0x02, 0x03, 0x04, 0xff, 0xfe };
    ganim_reader r = gr_init(b, sizeof b, 100);
    uint32_t v;
    CHECK(gr_u32le(&r, &v));
    CHECK_EQ_INT(v, 0x04030201);
    CHECK_EQ_INT(gr_offset(&r), 104);
    CHECK(!gr_u32le(&r, &v)); /* only 2 left: fails without moving */
    CHECK_EQ_INT(r.pos, 4);
    int16_t s;
    CHECK(gr_i16le(&r, &s));
    CHECK_EQ_INT(s, -257);
    CHECK(!gr_skip(&r, 1));
    ganim_reader r2 = gr_init(b, sizeof b, 0);
    ganim_reader sub;
    CHECK(gr_sub(&r2, 2, &sub));
    CHECK_EQ_INT(sub.base, 0);
    CHECK(!gr_sub(&r2, 5, &sub));
}

TEST(bit_readers_and_writer)
{
    /* MSB first: 0xA5 0x0F = 1010 0101 0000 1111 */
    static const uint8_t b[2] = { 0xA5, 0x0F };
    ganim_bits m = gb_init(b, 2);
    uint32_t u;
    int32_t s;
    CHECK(gb_msb_u(&m, 3, &u));
    CHECK_EQ_INT(u, 5); /* 101 */
    CHECK(gb_msb_s(&m, 5, &s));
    CHECK_EQ_INT(s, 5); /* 00101 */
    CHECK(gb_msb_s(&m, 4, &s));
    CHECK_EQ_INT(s, 0);
    CHECK(gb_msb_s(&m, 4, &s));
    CHECK_EQ_INT(s, -1); /* 1111 */
    CHECK(!gb_msb_u(&m, 1, &u));
    ganim_bits l = gb_init(b, 2); /* LSB first: bits of 0xA5 from bit 0: 1,0,1,0,0,1,0,1 */
    CHECK(gb_lsb_u(&l, 1, &u));
    CHECK_EQ_INT(u, 1);
    CHECK(gb_lsb_u(&l, 1, &u));
    CHECK_EQ_INT(u, 0);
    CHECK(gb_lsb_u(&l, 6, &u));
    CHECK_EQ_INT(u, 0x29); /* 101001 read LSB-first = 0b101001 */

    ganim_buffer buf = { 0 };
    ganim_writer w = gw_init(&buf, NULL);
    ganim_bitwriter bw = gbw_init(&w);
    gbw_put(&bw, 3, 5);
    gbw_put(&bw, 16, 0xBEEF);
    gbw_put(&bw, 7, (uint32_t)-3);
    gbw_flush(&bw);
    CHECK(gw_ok(&w));
    CHECK_EQ_INT(bw.bits, 26);
    CHECK_EQ_INT(buf.size, 4);
    ganim_bits r = gb_init(buf.data, buf.size);
    CHECK(gb_msb_u(&r, 3, &u) && u == 5);
    CHECK(gb_msb_u(&r, 16, &u) && u == 0xBEEF);
    CHECK(gb_msb_s(&r, 7, &s) && s == -3);
    CHECK(gb_msb_u(&r, 6, &u) && u == 0); /* zero padding */
    ganim_buffer_free(&buf);
}

TEST(float_text_round_trips)
{
    ganim_buffer buf = { 0 };
    ganim_writer w = gw_init(&buf, NULL);
    static const float v[] = { 0.1f, 1.0f / 3.0f, -0.0f, 123456789.0f, 1e-30f, 0.382683426f, 65535.0f };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        buf.size = 0;
        gw_float(&w, v[i]);
        gw_u8(&w, 0);
        float back = strtof((const char *)buf.data, NULL);
        CHECK_MSG(back == v[i], "%s does not read back as %.9g", buf.data, v[i]);
    }
    buf.size = 0;
    gw_float(&w, 0.1f);
    gw_u8(&w, 0);
    CHECK_EQ_STR((const char *)buf.data, "0.1");
    buf.size = 0;
    gw_json_string(&w, "a\"b\\\n\x01\xe9");
    gw_u8(&w, 0);
    CHECK_EQ_STR((const char *)buf.data, "\"a\\\"b\\\\\\n\\u0001\\u00e9\"");
    ganim_buffer_free(&buf);
}

TEST(validate_checks_meshes)
{
    ganim_doc *doc = tb_doc(2, NULL);
    static float pos[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    static uint32_t bones[3] = { 0, 1, 1 }, tri[3] = { 0, 1, 2 };
    ganim_mesh m = { "m", 3, pos, NULL, bones, 1, tri };
    doc->meshes = &m;
    doc->mesh_count = 1;
    ganim_error err = { 0 };
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_OK);
    bones[2] = 2; /* not a bone */
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "vertex 2 follows bone 2"), "%s", err.message);
    bones[2] = 1;
    tri[1] = 3; /* not a vertex */
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    tri[1] = 1;
    pos[4] = NAN;
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    pos[4] = 0;
    ganim_skeleton *sk = doc->skeleton;
    doc->skeleton = NULL; /* vertices need bones */
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    doc->skeleton = sk;
    doc->meshes = NULL; /* a count without the array */
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_ERR_CORRUPT);
    doc->mesh_count = 0;
    CHECK_EQ_INT(ganim_doc_validate(doc, &err), GANIM_OK);
    ganim_doc_free(doc);
}

int main(void)
{
    RUN(arena_and_limit);
    RUN(small_read_arena);
    RUN(document_for_input);
    RUN(arena_reserve);
    RUN(arena_mark_release);
    RUN(default_allocator_large_blocks);
    RUN(scratch_shares_the_limit);
    RUN(warnings_are_capped);
    RUN(validate_rejects_bad_models);
    RUN(validate_checks_meshes);
    RUN(unknown_input_is_an_error);
    RUN(formats_by_extension);
    RUN(made_up_names);
    RUN(reader_bounds);
    RUN(bit_readers_and_writer);
    RUN(float_text_round_trips);
    return test_finish();
}
