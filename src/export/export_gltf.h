/* The glTF 2.0 exporter's insides, shared by its files: export_gltf.c (the document and the
 * entry points), export_gltf_buffer.c (the binary buffer and its accessors, which every other
 * file fills), export_gltf_skeleton.c (nodes, skin and the bone mesh), export_gltf_mesh.c
 * (the document's meshes), export_gltf_anim.c (animations) and export_gltf_carry.c (what
 * the document needs that glTF cannot say). */
#ifndef GANIM_EXPORT_GLTF_H
#define GANIM_EXPORT_GLTF_H

#include <math.h>
#include <string.h>

#include "core/internal.h"
#include "export/export.h"
#include "io/writer.h"

enum {
    GL_UNSIGNED_BYTE = 5121,
    GL_UNSIGNED_SHORT = 5123,
    GL_UNSIGNED_INT = 5125,
    GL_FLOAT = 5126,
    GL_ARRAY_BUFFER = 34962,
    GL_ELEMENT_ARRAY_BUFFER = 34963
};

#define NO_ACC UINT32_MAX
#define GL_BAKED UINT32_MAX
#define TIME_CACHE 16

/* A time accessor already written for the current clip, reused by later channels. */
typedef struct time_key {
    const float *times;  /* keyed frame times, or NULL for frames 0..count-1 */
    uint32_t count;      /* source keys */
    const uint8_t *hold; /* step bits that inserted hold keys, or NULL */
    int baked;           /* keyed times baked on every frame (plan_keys) */
    int down;            /* times rounded down (frame_time_down) */
    uint32_t acc;
} time_key;

typedef struct gl {
    const ganim_doc *doc;
    const ganim_skeleton *sk; /* NULL when there are no bones */
    uint32_t nb;
    ganim_allocator alloc;
    ganim_export_opts o;
    gx_conv cv;
    gx_names names;
    gx_children kids;
    ganim_error *err;
    ganim_transform *rest; /* converted rest pose per bone */
    ganim_writer js, bin, acc, views, chans, samps;
    ganim_buffer js_buf, bin_buf, acc_buf, views_buf, chans_buf, samps_buf; /* js_buf, bin_buf: streamed */
    size_t bin_base;
    /* streamed (the writers are sink writers, export_gltf.c): the JSON positions where the
     * accessors' and the bufferViews' entries start (the acc and views writers' first
     * positions), and where the build found them */
    size_t acc_start, views_start, acc_at, views_at;
    uint32_t acc_count, view_count;
    uint32_t root_node;    /* skin.skeleton: the single root bone or the added common root */
    uint32_t mesh_nodes;   /* the document's meshes written (0: the bone-stick mesh instead) */
    uint32_t mesh_written; /* meshes written so far (export_gltf_mesh.c) */
    int extra_root;        /* 1: several root bones, node nb is their common parent */
    /* current animation: a clip, and its partner's tracks (gx_partner) */
    uint8_t *absorbed; /* gx_absorbed_make: clips written inside another's animation */
    size_t absorbed_size;
    const ganim_track **bone_track; /* per bone: the track that animates it, or NULL */
    uint8_t *hide;                  /* per bone: GL_SHOWN, GL_HIDE_SCALE or GL_HIDE_JOINT (gl_hidden_make) */
    uint32_t span;                  /* frames of the animation (gx_span) */
    const ganim_clip *clip;         /* the clip whose tracks are being written */
    const char *clip_name;          /* its name as exported (gx_clip_name) */
    char clip_name_buf[256];
    uint32_t sampler_count, ends_acc, frames_acc, cache_n, cache_next;
    int step_keys; /* plan_keys: the keys are for a STEP sampler (visibility) */
    int warned;    /* warnings given once per export: 1 nlerp, 2 visibility */
    time_key cache[TIME_CACHE];
    uint32_t *map; /* output key -> source key, or GL_BAKED: the channel at frame at[key] */
    int map_ident; /* plan_keys: output key k is source key k (map not written) */
    float *times;  /* output key times, seconds */
    double *at;    /* output key frames (baked keys) */
    size_t keys_cap;
    /* the first value written that is not a finite number (0: none), and where */
    uint32_t nonfinite, nonfinite_acc;
} gl;

/* Bones the skeleton hides (GANIM_BONE_HIDDEN) that no clip's visibility shows: with every
 * bone below them hidden too, they get a scale of 0 in every animation (as hidden frames
 * do); with a bone below them shown (FF7: a joint without a model of its own, whose
 * children have theirs), a scale of 0 would hide those too, so they keep their scale. The
 * bone mesh draws neither. */
enum { GL_SHOWN = 0, GL_HIDE_SCALE = 1, GL_HIDE_JOINT = 2 };

/* JSON text built in a local array and appended with one gw_bytes: GL_LIT copies a string
 * literal (its length known to the compiler), gl_dec writes v's decimal digits
 * (gw_dec_chars); both return the end. */
#define GL_LIT(p, s) (memcpy((p), (s), sizeof(s) - 1), (p) + sizeof(s) - 1)
static inline char *gl_dec(char *p, uint64_t v) { return gw_dec_chars(p, v); }

/* ---- export_gltf_buffer.c: the binary buffer and accessors ------------------------------------- */
size_t gl_bin_align(gl *g);
/* Notes a value that is not finite among the n (the export then fails: glTF holds only
 * finite numbers). */
void gl_check_finite(gl *g, const float *v, int n);
/* The n floats appended to the binary buffer (little-endian), non-finite ones noted. */
static inline void gl_put_f32s(gl *g, const float *v, int n)
{
    size_t bytes = (size_t)n * 4u;
    ganim_buffer *buf = g->bin.buf;
    if (n <= 0) return;
    if (g->bin.failed || (bytes > buf->capacity - buf->size && !gw_reserve(&g->bin, bytes))) {
        gl_check_finite(g, v, n); /* noted even when nothing more can be written */
        return;
    }
    /* straight into the reserved bytes, little-endian; a non-finite value (exponent all
     * ones) is noted as gl_check_finite notes it */
    uint8_t *b = buf->data + buf->size;
    uint32_t bad = 0;
    for (int i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        bad |= (u & 0x7F800000u) == 0x7F800000u;
        b[i * 4] = (uint8_t)u, b[i * 4 + 1] = (uint8_t)(u >> 8), b[i * 4 + 2] = (uint8_t)(u >> 16);
        b[i * 4 + 3] = (uint8_t)(u >> 24);
    }
    buf->size += bytes;
    if (bad && !g->nonfinite) {
        g->nonfinite = 1;
        g->nonfinite_acc = g->acc_count;
    }
}
void gl_json_floats(ganim_writer *w, const float *v, int n);
/* Running min/max of the float elements written for one accessor. */
typedef struct fstat {
    float mn[16], mx[16];
    int n;
    uint32_t count;
} fstat;
void gl_fs_begin(fstat *s, int n);
void gl_fs_put(gl *g, fstat *s, const float *v);
/* An accessor over the binary bytes written since `start`; returns its index. */
uint32_t gl_accessor(gl *g, size_t start, int comp, uint32_t count, const char *type, int target, const fstat *bounds);

/* ---- export_gltf_skeleton.c ------------------------------------------------------------------------ */
ganim_code gl_convert_rest(gl *g);
void gl_write_nodes(gl *g);
ganim_code gl_write_skeleton(gl *g);

/* ---- export_gltf_mesh.c --------------------------------------------------------------------------- */
/* Whether a mesh of the document is written (it has vertices and triangles). */
int gl_mesh_exported(const ganim_mesh *m);
/* `,"meshes":[...]` for the document's meshes, skinned to skin 0. */
ganim_code gl_write_meshes(gl *g);

/* ---- export_gltf_anim.c ------------------------------------------------------------------------ */
ganim_code gl_write_clip(gl *g, uint32_t ci, int first);

/* ---- export_gltf_carry.c: what the document needs and glTF cannot say (extras.ganim) ------------- */
/* The value of asset.extras.ganim.source_format: the format of the document's reader; for
 * a document read from ganim's own glTF, the format that file names (so that glb -> read
 * -> glb gives the same bytes). */
ganim_code gl_carry_source_format(gl *g, ganim_writer *w);
/* Members of asset.extras.ganim: clip_count, native_record, opaque_clips. */
void gl_carry_asset(gl *g);
/* `,"extras":{...}` of the skin: the skeleton's native record (nothing without one). */
void gl_carry_skin(gl *g);
/* `,"clips":[...]` of an animation's extras.ganim: clip ci and the partner played with it
 * (NULL: none), after their tracks were written (g->bone_track). */
void gl_carry_clips(gl *g, uint32_t ci, const ganim_clip *partner);

#endif
