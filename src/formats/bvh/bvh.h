/* BVH (Biovision hierarchy): what the files of src/formats/bvh share. Read only: ganim
 * writes BVH with its exporter (src/export/export_bvh.c).
 *
 *   bvh.c          the descriptor, options, probe and the read
 *   bvh_parse.c    the text: HIERARCHY (joints, OFFSETs, CHANNELS, End Sites), MOTION
 *                  (Frames, Frame Time) and the frame values
 *   bvh_model.c    the model: bones, rest offsets, per-frame translations and rotations
 *                  (Euler angles in each joint's own channel order), ganim's own
 *                  conventions undone
 *   bvh_details.c  the details record and what `ganim info` shows
 * Conventions and evidence: docs/formats/bvh.md. */
#ifndef GANIM_FORMATS_BVH_BVH_H
#define GANIM_FORMATS_BVH_BVH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "formats/format.h"
#include "io/reader.h"

#define BVH_FORMAT "bvh"

/* Channel codes: positions X Y Z, then rotations X Y Z. */
enum { BVH_XPOS = 0, BVH_YPOS, BVH_ZPOS, BVH_XROT, BVH_YROT, BVH_ZROT };

typedef struct bvh_joint {
    const char *name; /* in the document (the bone's name), NUL-terminated */
    int32_t parent;   /* joint index, -1 for a ROOT */
    float offset[3];  /* OFFSET */
    uint8_t nch;      /* channels, 0..6 */
    uint8_t ch[6];    /* their codes in file order */
    uint32_t first;   /* index of its first channel in a frame */
    uint8_t end_site; /* has an End Site */
    float end[3];     /* its OFFSET */
    uint64_t at;      /* file offset of ROOT/JOINT */
} bvh_joint;

/* A joint's rotation to compute: its angles in order, and where its floats go. */
typedef struct bvh_rot {
    double deg[3];
    const int *order;
    int code;
    const double *undo;
    float *q;
} bvh_rot;

typedef struct bvh_file {
    ganim_doc *doc;
    ganim_doc *scratch;
    const ganim_read_opts *opts;
    ganim_error *err;
    const uint8_t *data;
    size_t size;
    bvh_joint *joints;
    uint32_t joint_count, joint_cap;
    uint32_t end_sites;
    uint32_t channels;                 /* per frame */
    uint32_t frames_declared, frames;  /* as the file says; complete frames read */
    double frame_time;                 /* as written */
    int frame_time_digits;             /* its significant digits */
    double frame_time_unit;            /* the place of its last one (0.041667: 1e-6) */
    uint64_t frame_time_at, motion_at; /* file offsets */
    int has_motion;                    /* the text has a MOTION section */
    size_t values_at;                  /* where the frame values start */
    uint32_t frame_room;               /* frames the per-frame arrays have room for */
    struct bvh_state *state;           /* per joint: what its frames made so far */
    double undo_q[4], *undo;           /* bvh.axes: roots turned back by this (NULL: none) */
    int maybe_synthetic;               /* joint 0 looks like ganim's synthetic root so far */
    int redo;                          /* the frames must be read again (bvh_frame said why) */
    /* decisions, for the details */
    double fps;
    int fps_fallback;   /* Frame Time unusable: the rate came from elsewhere */
    int synthetic_root; /* ganim's `ganim_root` was dropped */
    int positions_add;  /* position channels are added to the OFFSET (bvh.positions=add) */
    int axes_undone;    /* bvh.axes: a ganim_axes + 1, or 0 */
    uint32_t position_joints, offset_and_positions;
    int fast_rotation;       /* the processor has the fast sine and cosine (bvh_model.c) */
    uint64_t libm_rotations; /* rotations the fast path left to libm's sine and cosine */
    /* rotations waiting for the fast path's four lanes (bvh_model.c), up to 3 of them from
     * the frame before (pend_fr: the frame of each) */
    bvh_rot pend[4];
    float pend_q[4][4]; /* pend[k]'s floats (pend[k].q): a joint may wait in several frames */
    struct bvh_state *pend_st[4];
    uint32_t pend_fr[4];
    int npend;
} bvh_file;

/* ---- bvh_parse.c ---------------------------------------------------------------------------- */
ganim_code bvh_parse(bvh_file *f);
/* For the tests: the hierarchy and MOTION header read by the reference path (on != 0: words
 * one byte at a time, channel names and numbers by the general comparisons and gdec) or by
 * the fast one (0, the default: 16 bytes at a time where 16 are left, the common shapes
 * first); on != 0 also reads the frame values' last 31 bytes from the text, without the
 * padded copy. Not thread-safe: the tests' switch only. */
void bvh_set_reference_hierarchy(int on);
/* For the tests: the joints and End Sites the fast path read in one pass (joint_in_place)
 * since the last call, counted from now on while on != 0. Not thread-safe: the tests only. */
unsigned long bvh_count_joints_in_place(int on);
/* The decimal digits of 0 < m < 10^15 (frame_time_plain's; for the tests). */
int bvh_decimal_len(uint64_t m);
/* 10^k: pow(10, k), from a table of the correctly rounded powers for -22 <= k <= 22 (the
 * frame time's digits; test_bvh holds it to pow for every k it may take). */
double bvh_pow10(int k);

/* ---- bvh_model.c ---------------------------------------------------------------------------- */
/* The frames are converted as they are read, one frame of doubles at a time: bvh_begin
 * after the MOTION header (and again when bvh_frame set f->redo: the frames are then
 * read again from the first), bvh_frame for each whole frame (`v`: its channels' values,
 * then v[channels] == 0),
 * bvh_build at the end (the skeleton, the clip and the warnings). */
ganim_code bvh_begin(bvh_file *f);
ganim_code bvh_frame(bvh_file *f, const double *v, uint32_t fr);
/* After the last frame bvh_frame was given: the rotations it left waiting, finished. */
ganim_code bvh_frames_end(bvh_file *f);
ganim_code bvh_build(bvh_file *f);
/* Euler angles in degrees by axis (x, y, z), applied in `order` (axis indices), to a
 * quaternion x y z w in double (not normalised). */
void bvh_euler_to_quat(const double deg[3], const int order[3], double q[4]);
/* The reader's rotation as floats, for the tests: angles by axis applied in `order`, turned
 * by undo (or NULL); path 1 is libm's sines and cosines (the reference), path 0 the
 * reader's (the fast ones where they give the same floats). Returns 1 where the fast path
 * gave them. */
int bvh_rotation(const double deg[3], const int order[3], const double *undo, float q[4], int path);
/* For the tests: two rotations side by side as the reader puts two joints of a frame through
 * the fast path (bvh_rotation's arguments, for a and b); bit 0 set where a took it, bit 1 for b. */
int bvh_rotation_pair(const double deg_a[3], const int order_a[3], const double *undo_a, float qa[4],
                      const double deg_b[3], const int order_b[3], const double *undo_b, float qb[4]);
/* For the tests: four rotations of one order without a turn, a vector lane each, as the
 * reader puts four joints of a frame through the fast path; bit k set where q[k] took it
 * (the others libm's path). */
int bvh_rotation_quad(const double deg[4][3], const int order[3], float q[4][4]);
/* For the tests: the fast path's doubles before the cast to float and their bound E (0 if
 * the angles are outside its domain or there is no fast path), and libm's doubles (ref). */
int bvh_rotation_bound(const double deg[3], const int order[3], const double *undo, double fast[4], double e[4],
                       double ref[4]);
/* For the tests: reads from now on take libm's path for every rotation (on != 0), or the
 * fast path where they can (0, the default). Not thread-safe: the tests' switch only. */
void bvh_set_libm_only(int on);
/* For the tests: each frame's rotations finished within the frame (on != 0: the fours taken
 * from each frame's first rotation, the rest at its end), or waiting for the next frame's
 * where no allocation can come of it (0, the default). Not thread-safe: the tests' switch only. */
void bvh_set_frame_local(int on);
/* The processor has the fast path (AVX2 and FMA on x86; elsewhere 0: libm's throughout). */
int bvh_has_fast_rotation(void);
/* The fast sines and cosines of three angles x (pi / 360), or 0 where the reader leaves
 * them to libm (or has no fast path). */
int bvh_fast_half_sincos(const double deg[3], double s[3], double c[3]);
/* For the tests: the fast path's ganim_dq_mul in one vector (r = a * b), 0 where there is
 * no fast path (r untouched). */
int bvh_fast_dq_mul(const double a[4], const double b[4], double r[4]);

/* The double nearest a number gdec_scan read (gdec_double's), by one 128-bit division where
 * it has 1 to 19 digits and 10^-1 to 10^-31 after them; 0 otherwise (out untouched).
 * *inexact: the double differs from the number. The frame values' and OFFSETs' slow path
 * takes it; exported for the tests. */
struct gdec;
int bvh_decimal_double(const struct gdec *d, double *out, int *inexact);

/* ---- bvh_details.c -------------------------------------------------------------------------- */
ganim_code bvh_record(bvh_file *f);
ganim_code bvh_details(const ganim_doc *doc, int clip, ganim_details_level level, gd_builder *b, ganim_error *err);

#endif
