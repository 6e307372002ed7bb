/* The BVH hierarchy's one-pass joints (bvh_parse.c's joint_in_place: a ROOT, JOINT or End
 * Site laid out as writers lay them out, read without the word-by-word loop) against the
 * reference path (bvh_set_reference_hierarchy: words one byte at a time, no fast path):
 * texts in writers' layouts (tabs, spaces, CRLF, names with spaces, every channel order,
 * joints to depth 6, End Sites, numbers of every shape), spoilt by replaced, deleted and
 * inserted bytes and cut anywhere, read with memory limits and allocators that fail at
 * the k-th allocation: the same code, error offset and message, document (its JSON dump),
 * details record and warnings, and the fast path taken on most joints. */
#include <math.h>
#include <stdlib.h>

#include "formats/bvh/bvh.h"
#include "test.h"

static uint64_t rng = 0x2545F4914F6CDD1Du;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)((rng >> 11) % n);
}

typedef struct text {
    char s[32768];
    size_t n;
} text;

static void put(text *t, const char *s)
{
    size_t k = strlen(s);
    if (t->n + k >= sizeof t->s) return;
    memcpy(t->s + t->n, s, k);
    t->n += k;
    t->s[t->n] = 0;
}

/* one text's layout */
typedef struct layout {
    const char *indent; /* per depth */
    const char *eol;
    int space_before_brace; /* "ROOT name {" */
} layout;

static void line_start(text *t, const layout *l, int depth)
{
    for (int k = 0; k < depth; k++) put(t, l->indent);
}

static void number(text *t)
{
    static const char *const nums[] = { "0",
                                        "-0",
                                        "1",
                                        "7",
                                        "1.5",
                                        "-37.28461",
                                        "12.000000",
                                        "0.000100",
                                        "1e3",
                                        "1.5e-05",
                                        "-2.3239016e-23",
                                        ".5",
                                        "5.",
                                        "+2",
                                        "1e39",
                                        "3.4e38",
                                        "123456789.123456789",
                                        "0.1",
                                        "-0.5",
                                        "100",
                                        "2.5E+2",
                                        "1,5",
                                        "x",
                                        "0x10",
                                        "--1",
                                        "1e",
                                        "99999999999999999999" };
    char buf[40];
    uint32_t k = rnd(40);
    if (k < 20) put(t, nums[rnd(4)]);
    else if (k < 39) {
        snprintf(buf, sizeof buf, "%s%u.%06u", rnd(3) ? "" : "-", rnd(300), rnd(1000000));
        put(t, buf);
    } else put(t, nums[rnd(sizeof nums / sizeof *nums)]);
}

static const char *const chan_names[6] = {
    "Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"
};

static void channels(text *t, unsigned *count, int root)
{
    int order[6] = { 0, 1, 2, 3, 4, 5 };
    for (int k = 5; k > 0; k--) { /* a random order of the six */
        int j = (int)rnd((uint32_t)k + 1), x = order[k];
        order[k] = order[j];
        order[j] = x;
    }
    int nch;
    uint32_t kind = rnd(8);
    if (root && kind < 5) { /* the positions, then the rotations in any order */
        nch = 6;
        int r[3] = { 3, 4, 5 };
        for (int k = 2; k > 0; k--) {
            int j = (int)rnd((uint32_t)k + 1), x = r[k];
            r[k] = r[j];
            r[j] = x;
        }
        for (int k = 0; k < 3; k++) order[k] = k, order[k + 3] = r[k];
    } else if (kind < 6) { /* rotations only */
        nch = 3;
        for (int k = 0, m = 0; k < 6; k++)
            if (order[k] >= 3) order[m++] = order[k];
    } else {
        nch = (int)rnd(7);
    }
    char buf[16];
    snprintf(buf, sizeof buf, "CHANNELS %d", nch);
    put(t, buf);
    for (int k = 0; k < nch; k++) {
        put(t, " ");
        put(t, chan_names[!rnd(60) ? (int)rnd(6) : order[k]]); /* now and then one twice */
    }
    *count += (unsigned)nch;
}

static void offset(text *t)
{
    put(t, "OFFSET");
    for (int k = 0; k < 3; k++) {
        put(t, rnd(40) ? " " : "  ");
        number(t);
    }
}

/* A joint's or End Site's '{': on its name's line after a space, or on a line of its own */
static void open_brace(text *t, const layout *l, int depth)
{
    if (l->space_before_brace) put(t, " {");
    else {
        put(t, l->eol);
        line_start(t, l, depth);
        put(t, "{");
    }
}

static void joint(text *t, const layout *l, int depth, unsigned *count, int *joints)
{
    static const char *const names[] = {
        "root", "bone_0",   "Hips",      "Left Arm", "mixamorig:Spine", "joint1", "a_long_name_of_a_bone_here",
        "b",    "Bone.001", "ganim_root"
    };
    line_start(t, l, depth);
    put(t, !rnd(30) ? (rnd(2) ? "JOINT" : "ROOT") : depth ? "JOINT" : "ROOT"); /* now and then the wrong one */
    put(t, rnd(20) ? " " : "\t");
    put(t, names[rnd(sizeof names / sizeof *names)]);
    if (!rnd(20)) put(t, " ");
    char num[16];
    snprintf(num, sizeof num, "_%u", rnd(100));
    if (rnd(2)) put(t, num);
    open_brace(t, l, depth);
    put(t, l->eol);
    line_start(t, l, depth + 1);
    offset(t);
    put(t, l->eol);
    line_start(t, l, depth + 1);
    channels(t, count, !depth);
    put(t, l->eol);
    ++*joints;
    unsigned kids = depth < 6 && *joints < 60 ? rnd(3) : 0;
    for (unsigned k = 0; k < kids; k++) joint(t, l, depth + 1, count, joints);
    if (!kids || !rnd(6)) {
        line_start(t, l, depth + 1);
        put(t, "End Site");
        open_brace(t, l, depth + 1);
        put(t, l->eol);
        line_start(t, l, depth + 2);
        offset(t);
        put(t, l->eol);
        line_start(t, l, depth + 1);
        put(t, "}");
        put(t, l->eol);
    }
    line_start(t, l, depth);
    put(t, "}");
    put(t, l->eol);
}

static void document(text *t)
{
    static const char *const indents[] = { "\t", "\t", "  ", "    ", "", " \t" };
    layout l = { indents[rnd(6)], rnd(4) ? "\n" : "\r\n", !rnd(5) };
    t->n = 0;
    t->s[0] = 0;
    unsigned count = 0;
    int joints = 0;
    put(t, "HIERARCHY");
    put(t, l.eol);
    joint(t, &l, 0, &count, &joints);
    if (!rnd(8)) joint(t, &l, 0, &count, &joints); /* a second root */
    if (!rnd(30)) {                                /* an End Site outside any joint */
        put(t, "End Site");
        put(t, l.eol);
        put(t, "{");
        put(t, l.eol);
        offset(t);
        put(t, l.eol);
        put(t, "}");
        put(t, l.eol);
    }
    if (!rnd(10)) return; /* a skeleton */
    put(t, "MOTION");
    put(t, l.eol);
    unsigned frames = 1 + rnd(3);
    static const char *const times[] = { "0.0333333333",
                                         "0.0333333333",
                                         "0.041667",
                                         "0.008333",
                                         "1",
                                         "0.04",
                                         "0.0000000000000001",
                                         "1e-2",
                                         "00.0200",
                                         "0",
                                         "0.01666666666666667",
                                         "-0.04",
                                         "x" };
    static const char *const counts[] = { "", "", "", "", "0", "00", "0001", "999999999", "1000000000", "2.0", "1e0" };
    char buf[128];
    const char *fc = counts[rnd(sizeof counts / sizeof *counts)];
    char own[16];
    snprintf(own, sizeof own, "%u", frames);
    snprintf(buf, sizeof buf, "Frames:%s%s%sFrame%sTime:%s%s%s", rnd(8) ? " " : "\t", *fc ? fc : own, l.eol,
             rnd(8) ? " " : "  ", rnd(8) ? " " : "\t", times[rnd(sizeof times / sizeof *times)], l.eol);
    put(t, buf);
    for (unsigned f = 0; f < frames; f++) {
        for (unsigned c = 0; c < count; c++) {
            if (c) put(t, " ");
            put(t, rnd(3) ? "0" : "12.5");
        }
        put(t, l.eol);
    }
}

/* bytes that the one-pass joints look at or must refuse */
static const char spoil[] = { ' ', '\t', '\n', '\r', '\v', '\f', '{', '}', '0',        '5',       '-',
                              '.', 'e',  '+',  'x',  'X',  'Y',  'Z', 'o', 'O',        'i',       'I',
                              'n', 'N',  't',  'T',  's',  'S',  'E', 'd', 'D',        'J',       'R',
                              'C', 'H',  'A',  'L',  'F',  ':',  '_', 0,   (char)0x80, (char)0xFF };

static void mutate(text *t)
{
    if (!t->n) return;
    size_t at = rnd((uint32_t)t->n);
    uint32_t how = rnd(3);
    char c = spoil[rnd(sizeof spoil)];
    if (how == 0) {
        t->s[at] = c;
    } else if (how == 1) {
        memmove(t->s + at, t->s + at + 1, t->n - at - 1);
        t->n--;
    } else if (t->n + 1 < sizeof t->s) {
        memmove(t->s + at + 1, t->s + at, t->n - at);
        t->s[at] = c;
        t->n++;
    }
    t->s[t->n] = 0;
}

/* an allocator that fails its k-th call (alloc or realloc) and every one after it */
typedef struct failing {
    long calls, fail_at;
} failing;

static void *f_alloc(void *user, size_t size)
{
    failing *f = user;
    if (f->fail_at >= 0 && f->calls++ >= f->fail_at) return NULL;
    return malloc(size ? size : 1);
}

static void *f_realloc(void *user, void *p, size_t old_size, size_t size)
{
    (void)old_size;
    failing *f = user;
    if (f->fail_at >= 0 && f->calls++ >= f->fail_at) return NULL;
    return realloc(p, size ? size : 1);
}

static void f_free(void *user, void *p, size_t size)
{
    (void)user, (void)size;
    free(p);
}

typedef struct out {
    ganim_code code;
    ganim_error e;
    ganim_buffer dump;
    uint8_t *rec;
    size_t rec_size;
} out;

/* one read: memory_limit (0: none) and the allocator failing at fail_at (< 0: never) */
static void read_one(const char *s, size_t n, size_t memory_limit, long fail_at, out *o)
{
    failing fl = { 0, fail_at };
    ganim_read_opts ro = { 0 };
    ro.format = "bvh";
    ro.memory_limit = memory_limit;
    ro.allocator = (ganim_allocator){ f_alloc, f_realloc, f_free, &fl };
    ganim_doc *d = NULL;
    memset(o, 0, sizeof *o);
    o->code = ganim_read_memory(s, n, &ro, &d, &o->e);
    if (o->code != GANIM_OK) return;
    ganim_export_opts eo = { 0 };
    CHECK(ganim_export_json(d, &eo, &o->dump, NULL) == GANIM_OK);
    size_t size = d->native_size;
    for (uint32_t w = 0; w < d->warning_count; w++) size += 12 + strlen(d->warnings[w].message);
    o->rec = malloc(size + 1);
    if (o->rec) {
        memcpy(o->rec, d->native, d->native_size);
        size_t at = d->native_size;
        for (uint32_t w = 0; w < d->warning_count; w++) {
            uint32_t code = (uint32_t)d->warnings[w].code;
            uint64_t off = d->warnings[w].offset;
            memcpy(o->rec + at, &code, 4);
            memcpy(o->rec + at + 4, &off, 8);
            memcpy(o->rec + at + 12, d->warnings[w].message, strlen(d->warnings[w].message));
            at += 12 + strlen(d->warnings[w].message);
        }
        o->rec_size = size;
    }
    ganim_doc_free(d);
}

static long reads, reads_ok, nomem;

/* s[0..n) read by the fast path and by the reference path: 1 when they agree */
static int agree(const char *s, size_t n, size_t memory_limit, long fail_at, const char *what)
{
    out r[2];
    for (int ref = 0; ref < 2; ref++) {
        bvh_set_reference_hierarchy(ref);
        read_one(s, n, memory_limit, fail_at, &r[ref]);
    }
    bvh_set_reference_hierarchy(0);
    int same = r[0].code == r[1].code && r[0].e.offset == r[1].e.offset && !strcmp(r[0].e.message, r[1].e.message) &&
               r[0].dump.size == r[1].dump.size &&
               (!r[0].dump.size || !memcmp(r[0].dump.data, r[1].dump.data, r[0].dump.size)) &&
               r[0].rec_size == r[1].rec_size && (!r[0].rec_size || !memcmp(r[0].rec, r[1].rec, r[0].rec_size));
    CHECK_MSG(same, "%s (%zu bytes, limit %zu, failing at %ld): fast %d at %llu '%s', reference %d at %llu '%s'", what,
              n, memory_limit, fail_at, r[0].code, (unsigned long long)r[0].e.offset, r[0].e.message, r[1].code,
              (unsigned long long)r[1].e.offset, r[1].e.message);
    if (!same) fwrite(s, 1, n, stdout);
    reads++;
    reads_ok += r[0].code == GANIM_OK;
    nomem += r[0].code == GANIM_ERR_NOMEM;
    for (int k = 0; k < 2; k++) {
        ganim_buffer_free(&r[k].dump);
        free(r[k].rec);
    }
    return same;
}

/* Random texts in writers' layouts, spoilt or not, cut or not, with memory limits and
 * failing allocators now and then. */
TEST(random_layouts_match_reference)
{
    static text t;
    long n = test_full() ? 1000000 : 100000, spoilt = 0;
    reads = reads_ok = nomem = 0;
    bvh_count_joints_in_place(1);
    for (long i = 0; i < n; i++) {
        document(&t);
        if (rnd(2)) {
            spoilt++;
            for (uint32_t k = 1 + rnd(3); k > 0; k--) mutate(&t);
        }
        size_t len = rnd(6) ? t.n : rnd((uint32_t)t.n + 1);
        uint32_t mem = rnd(16);
        size_t limit = mem == 0 ? 1024 + rnd(16384) : 0;
        long fail_at = mem == 1 ? (long)rnd(24) : -1;
        if (!agree(t.s, len, limit, fail_at, "random text")) break;
    }
    unsigned long fast = bvh_count_joints_in_place(0);
    printf("  %ld texts (%ld spoilt), %ld read, %ld out of memory, %lu joints in one pass\n", n, spoilt, reads_ok,
           nomem, fast);
    /* reads that succeed and that fail both common; the one-pass joints many (a text has ~2-60 joints,
     * End Sites included, and reads twice: the fast path's and the reference's) */
    CHECK_MSG(reads_ok > n / 5 && reads_ok < n - n / 10, "%ld of %ld read", reads_ok, n);
    CHECK_MSG(nomem > n / 100, "%ld of %ld reads out of memory", nomem, n);
    CHECK_MSG(fast > (unsigned long)n, "%lu joints in one pass over %ld texts", fast, n);
}

/* Four writers' texts (ganim's export, Blender's spaces, CRLF with a brace on the name's
 * line, no indentation), cut at every length, every byte replaced by each of the spoiling bytes, deleted,
 * and a spoiling byte inserted before it; the one-pass joints counted. */
TEST(every_cut_and_byte_matches_reference)
{
    static const char *const texts[] = {
        "HIERARCHY\nROOT root\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
        "Yrotation\n\tJOINT bone_0\n\t{\n\t\tOFFSET 0 0 0\n\t\tCHANNELS 3 Zrotation Xrotation Yrotation\n\t\tEnd "
        "Site\n\t\t{\n\t\t\tOFFSET 0 0 0\n\t\t}\n\t}\n}\nMOTION\nFrames: 1\nFrame Time: 0.0333333333\n0 0 0 -180 0 "
        "-180 -0 0 -0\n",
        "HIERARCHY\nROOT Hips\n{\n  OFFSET 0.000000 0.000000 0.000000\n  CHANNELS 6 Xposition Yposition Zposition "
        "Xrotation Yrotation Zrotation\n  JOINT Left Arm\n  {\n    OFFSET -1.500000 12.250000 -0.000100\n    CHANNELS "
        "3 Xrotation Yrotation Zrotation\n    End Site\n    {\n      OFFSET 0.000000 4.000000 0.000000\n    }\n  "
        "}\n  JOINT Spine\n  {\n    OFFSET 0 1e1 -0\n    CHANNELS 3 Yrotation Zrotation Xrotation\n    End Site\n   "
        " {\n      OFFSET 0 1 0\n    }\n  }\n}\nMOTION\nFrames: 2\nFrame Time: 0.041667\n0 1 2 3 4 5 6 7 8 9 10 11\n"
        "1 1 2 3 4 5 6 7 8 9 10 11\n",
        "HIERARCHY\r\nROOT ganim_root {\r\n\tOFFSET 0 0 0\r\n\tCHANNELS 6 Xposition Yposition Zposition Yrotation "
        "Xrotation Zrotation\r\n\tJOINT j {\r\n\t\tOFFSET 1.25 -2.5 3\r\n\t\tCHANNELS 0\r\n\t\tEnd Site {\r\n\t\t\t"
        "OFFSET 0 0 1\r\n\t\t}\r\n\t}\r\n}\r\nMOTION\r\nFrames: 1\r\nFrame Time: 0.0333333333\r\n0 0 0 0 0 0\r\n",
        /* no indentation: one byte deleted glues a number to the next keyword */
        "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\nJOINT b\n{\nOFFSET 0 0 "
        "0\nCHANNELS 3 Xrotation Yrotation Zrotation\nEnd Site\n{\nOFFSET 0 0 0\n}\n}\n}\nMOTION\nFrames: "
        "1\nFrame Time: 0.04\n0 0 0 0 0 0\n",
    };
    static text t;
    long before = reads;
    bvh_count_joints_in_place(1);
    for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
        const char *s = texts[k];
        size_t n = strlen(s);
        int ok = 1;
        for (size_t len = 0; len <= n && ok; len++) ok = agree(s, len, 0, -1, "cut");
        for (size_t at = 0; at < n && ok; at++)
            for (size_t c = 0; c <= sizeof spoil && ok; c++) {
                memcpy(t.s, s, n);
                t.n = n;
                if (c < sizeof spoil) {
                    t.s[at] = spoil[c];
                } else {
                    memmove(t.s + at, t.s + at + 1, n - at - 1);
                    t.n = n - 1;
                }
                ok = agree(t.s, t.n, 0, -1, "byte replaced or deleted");
                if (!ok || c == sizeof spoil) break;
                memcpy(t.s, s, at);
                t.s[at] = spoil[c];
                memcpy(t.s + at + 1, s + at, n - at);
                ok = agree(t.s, n + 1, 0, -1, "byte inserted");
            }
        for (long fail = 0; fail < 24 && ok; fail++) ok = agree(s, n, 0, fail, "failing allocator");
    }
    unsigned long fast = bvh_count_joints_in_place(0);
    printf("  %ld reads, %lu joints in one pass\n", reads - before, fast);
    /* the unspoilt texts' joints (2 + 1, 3 + 2, 2 + 2, 2 + 1 a read) take it */
    CHECK_MSG(fast > (unsigned long)(reads - before), "%lu joints in one pass", fast);
}

/* Known answers: ganim's export of one_bone.aa read by the one-pass joints. */
TEST(one_pass_known_answers)
{
    const char *s = "HIERARCHY\nROOT root\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation "
                    "Xrotation Yrotation\n\tJOINT bone_0\n\t{\n\t\tOFFSET 1.5 -2 0.25\n\t\tCHANNELS 3 Zrotation "
                    "Xrotation Yrotation\n\t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 3 0\n\t\t}\n\t}\n}\nMOTION\nFrames: "
                    "2\nFrame Time: 0.041667\n1 2 3 0 0 0 0 0 0\n1 2 3 0 0 0 0 0 90\n";
    ganim_read_opts ro = { 0 };
    ro.format = "bvh";
    ganim_doc *d = NULL;
    ganim_error e = { 0 };
    bvh_count_joints_in_place(1);
    CHECK(ganim_read_memory(s, strlen(s), &ro, &d, &e) == GANIM_OK);
    CHECK_EQ_INT(bvh_count_joints_in_place(0), 3); /* ROOT, JOINT, End Site */
    if (!d) return;
    CHECK_EQ_INT(d->skeleton->bone_count, 2);
    CHECK_EQ_STR(d->skeleton->bones[0].name, "root");
    CHECK_EQ_STR(d->skeleton->bones[1].name, "bone_0");
    CHECK_EQ_INT(d->skeleton->bones[0].parent, -1);
    CHECK_EQ_INT(d->skeleton->bones[1].parent, 0);
    CHECK(d->skeleton->bones[1].rest.translation.x == 1.5f);
    CHECK(d->skeleton->bones[1].rest.translation.y == -2.0f);
    CHECK(d->skeleton->bones[1].rest.translation.z == 0.25f);
    CHECK_EQ_INT(d->clip_count, 1);
    if (d->clip_count == 1) {
        const ganim_clip *c = &d->clips[0];
        CHECK_EQ_INT(c->frame_count, 2);
        CHECK(c->fps == 24.0); /* 0.041667 s: 24 fps (the rate's snapping) */
        CHECK_EQ_INT(c->track_count, 2);
        const ganim_channel *t = &c->tracks[0].translation;
        CHECK(t->kind == GANIM_CHANNEL_CONSTANT && t->values[0] == 1.0f && t->values[1] == 2.0f &&
              t->values[2] == 3.0f);
        const ganim_channel *r = &c->tracks[1].rotation; /* 90 degrees about Y in the second frame */
        CHECK(r->kind == GANIM_CHANNEL_PER_FRAME && r->count == 2);
        if (r->count == 2) {
            CHECK(r->values[3] == 1.0f && r->values[0] == 0.0f && r->values[1] == 0.0f);
            CHECK_NEAR(r->values[5], 0.70710678, 1e-7);
            CHECK_NEAR(r->values[7], 0.70710678, 1e-7);
        }
    }
    ganim_doc_free(d);
}

/* bvh_build's bones and counts against what they must be, from the document itself: each
 * bone's rest is ganim_transform_identity() with its OFFSET as translation (the same bits),
 * and the details record's position_joints (bvh_begin's has_pos where the frames were set
 * up) is the count of tracks with a translation, on random texts with and without MOTION
 * and ganim's synthetic root. */
TEST(build_matches_oracle)
{
    static text t;
    long n = test_full() ? 200000 : 20000, with_clip = 0, positions = 0, synthetic = 0, bones = 0;
    const ganim_transform id = ganim_transform_identity();
    for (long i = 0; i < n; i++) {
        if (rnd(8)) {
            document(&t);
        } else { /* ganim's synthetic root and two children with channels of every kind */
            static const char *const chans[][2] = { { "3 Xposition Yposition Zposition", "0 0 0" },
                                                    { "6 Xposition Yposition Zposition Zrotation Xrotation Yrotation",
                                                      "1 2 3 10 20 30" },
                                                    { "3 Zrotation Xrotation Yrotation", "10 20 30" },
                                                    { "1 Yposition", "4" },
                                                    { "2 Yrotation Zposition", "5 6" },
                                                    { "0", "" } };
            uint32_t a = rnd(6), b = rnd(6);
            t.n = (size_t)snprintf(t.s, sizeof t.s,
                                   "HIERARCHY\nROOT ganim_root\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition "
                                   "Zposition Zrotation Xrotation Yrotation\nJOINT a\n{\nOFFSET %s\nCHANNELS %s\n}\n"
                                   "JOINT b\n{\nOFFSET 0 0 0\nCHANNELS %s\n}\n}\nMOTION\nFrames: 1\nFrame Time: "
                                   "0.04\n0 0 0 0 0 0 %s %s\n",
                                   rnd(2) ? "0 0 0" : "1 -2 3", chans[a][0], chans[b][0], chans[a][1], chans[b][1]);
        }
        if (rnd(4) == 0) mutate(&t);
        ganim_read_opts ro = { 0 };
        ro.format = "bvh";
        ganim_doc *d = NULL;
        ganim_error e = { 0 };
        if (ganim_read_memory(t.s, t.n, &ro, &d, &e) != GANIM_OK) continue;
        const ganim_skeleton *sk = d->skeleton;
        for (uint32_t b = 0; sk && b < sk->bone_count; b++) {
            const ganim_transform *r = &sk->bones[b].rest;
            bones++;
            if (memcmp(&r->rotation, &id.rotation, sizeof id.rotation) != 0 ||
                memcmp(&r->scale, &id.scale, sizeof id.scale) != 0) {
                CHECK_MSG(0, "text %ld bone %u: rest rotation or scale not the identity's", i, b);
                i = n;
                break;
            }
        }
        uint32_t head[8] = { 0 };
        CHECK(d->native_size >= sizeof head);
        if (d->native_size >= sizeof head)
            for (int k = 0; k < 8; k++) head[k] = ganim_ld_u32le(d->native + 4 * k);
        synthetic += head[6] != 0;
        if (d->clip_count == 1) {
            uint32_t tracks_t = 0;
            for (uint32_t k = 0; k < d->clips[0].track_count; k++)
                tracks_t += d->clips[0].tracks[k].translation.kind != GANIM_CHANNEL_ABSENT;
            with_clip++;
            positions += (long)tracks_t;
            CHECK_MSG(head[7] == tracks_t, "text %ld: position_joints %u, tracks with a translation %u", i, head[7],
                      tracks_t);
            if (head[7] != tracks_t) i = n;
        }
        ganim_doc_free(d);
    }
    printf("  %ld texts, %ld bones, %ld clips (%ld position joints), %ld with the synthetic root\n", n, bones,
           with_clip, positions, synthetic);
    CHECK_MSG(with_clip > n / 10 && positions > with_clip / 2 && synthetic > n / 1000,
              "%ld clips, %ld positions, %ld synthetic", with_clip, positions, synthetic);
}

int main(void)
{
    test_program_name = "test_bvh_layout";
    RUN(one_pass_known_answers);
    RUN(build_matches_oracle);
    RUN(every_cut_and_byte_matches_reference);
    RUN(random_layouts_match_reference);
    return test_finish();
}
