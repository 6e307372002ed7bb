/* pose_world: every joint's world matrix, as ganim_clip_sample poses it, for the client
 * comparisons of tests/interop (pose_compare.mjs, blender_pose.py).
 *
 * usage: pose_world FILE [-O name=value]... [--steps N] > poses.json
 *
 * For every animation a glTF export holds (an animation clip, with its partner when the
 * partner runs at its rate; a partner so played is not an animation of its own), at the
 * times frame / fps for frame = 0, 1/N, 2/N, ... up to the last frame (N = --steps,
 * default 4: whole, quarter and half frames): the world matrix of every bone, in glTF's
 * space (the exporter's default conversion: roots turned to +Y up, unit scale 1), 16
 * numbers column-major as three.js keeps them. A hidden bone (ganim_clip_sample's
 * `visible` = 0) is posed with scale 0, so its subtree collapses onto it, unless only the
 * skeleton hides it and a bone below it is shown (docs/clients.md). The partner's tracks win only on bones the clip does not animate
 * (as the exporter writes them). Prints JSON: {"bones":[names], "parents":[...],
 * "rest":[16 * bones numbers: the rest pose's world matrices], "rest_turn":[4 * bones numbers:
 * the rest pose's world rotations x y z w, without the scales],
 * "animations":[{"clip":i, "partner":j|-1, "fps":f, "frames":n, "times":[...],
 * "world":[[16 * bones numbers per time]...]}]}. Uses the public API only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ganim.h"

typedef struct mat4 {
    double m[16]; /* column-major */
} mat4;

static mat4 trs(const ganim_transform *t, double scale_factor, ganim_quat turn, int turned)
{
    double x = t->rotation.x, y = t->rotation.y, z = t->rotation.z, w = t->rotation.w;
    double tx = t->translation.x, ty = t->translation.y, tz = t->translation.z;
    if (turned) { /* q' = C q, t' = C t */
        double cx = turn.x, cy = turn.y, cz = turn.z, cw = turn.w;
        double nx = cw * x + cx * w + cy * z - cz * y, ny = cw * y - cx * z + cy * w + cz * x;
        double nz = cw * z + cx * y - cy * x + cz * w, nw = cw * w - cx * x - cy * y - cz * z;
        x = nx, y = ny, z = nz, w = nw;
        /* rotate the translation by C */
        double ux = cy * tz - cz * ty, uy = cz * tx - cx * tz, uz = cx * ty - cy * tx;
        double vx = cy * uz - cz * uy, vy = cz * ux - cx * uz, vz = cx * uy - cy * ux;
        tx += 2 * (cw * ux + vx), ty += 2 * (cw * uy + vy), tz += 2 * (cw * uz + vz);
    }
    double len = sqrt(x * x + y * y + z * z + w * w);
    if (len > 0) x /= len, y /= len, z /= len, w /= len;
    double sx = t->scale.x * scale_factor, sy = t->scale.y * scale_factor, sz = t->scale.z * scale_factor;
    mat4 r;
    r.m[0] = (1 - 2 * (y * y + z * z)) * sx;
    r.m[1] = (2 * (x * y + z * w)) * sx;
    r.m[2] = (2 * (x * z - y * w)) * sx;
    r.m[3] = 0;
    r.m[4] = (2 * (x * y - z * w)) * sy;
    r.m[5] = (1 - 2 * (x * x + z * z)) * sy;
    r.m[6] = (2 * (y * z + x * w)) * sy;
    r.m[7] = 0;
    r.m[8] = (2 * (x * z + y * w)) * sz;
    r.m[9] = (2 * (y * z - x * w)) * sz;
    r.m[10] = (1 - 2 * (x * x + y * y)) * sz;
    r.m[11] = 0;
    r.m[12] = tx, r.m[13] = ty, r.m[14] = tz, r.m[15] = 1;
    return r;
}

static mat4 mul(const mat4 *a, const mat4 *b)
{
    mat4 r;
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double s = 0;
            for (int k = 0; k < 4; k++) s += a->m[k * 4 + row] * b->m[c * 4 + k];
            r.m[c * 4 + row] = s;
        }
    return r;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') printf("\\%c", ch);
        else if (ch < 0x20) printf("\\u%04x", ch);
        else putchar(ch);
    }
    putchar('"');
}

static int fail(const char *what, const ganim_error *err)
{
    fprintf(stderr, "pose_world: %s: %s\n", what, err->message);
    return 1;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    ganim_setting settings[16];
    uint32_t nset = 0;
    long steps = 4;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-O") && i + 1 < argc && nset < 16) {
            char *eq = strchr(argv[++i], '=');
            if (!eq) return fprintf(stderr, "pose_world: -O wants name=value\n"), 2;
            *eq = 0;
            settings[nset].name = argv[i];
            settings[nset++].value = eq + 1;
        } else if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
            steps = strtol(argv[++i], NULL, 10);
        } else if (!path) {
            path = argv[i];
        } else {
            return fprintf(stderr, "usage: pose_world FILE [-O name=value]... [--steps N]\n"), 2;
        }
    }
    if (!path || steps < 1 || steps > 64)
        return fprintf(stderr, "usage: pose_world FILE [-O name=value]... [--steps N]\n"), 2;
    ganim_read_opts ro = { 0 };
    ro.settings = settings;
    ro.setting_count = nset;
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    if (ganim_read_file(path, &ro, &doc, &err) != GANIM_OK) return fail(path, &err);
    const ganim_skeleton *sk = doc->skeleton;
    uint32_t nb = sk ? sk->bone_count : 0;
    ganim_quat turn = ganim_axes_to_y_up(doc->axes);
    int turned = !(turn.x == 0 && turn.y == 0 && turn.z == 0);
    size_t n = nb ? nb : 1;
    ganim_transform *pose = malloc(n * sizeof *pose), *pose2 = malloc(n * sizeof *pose2);
    uint8_t *vis = malloc(n), *vis2 = malloc(n), *own = malloc(n), *absorbed = calloc(doc->clip_count + 1, 1);
    uint8_t *own_vis = malloc(n), *below = malloc(n);
    mat4 *world = malloc(n * sizeof *world);
    ganim_quat *turns = malloc(n * sizeof *turns);
    /* the partner played with clip i: an animation clip at its rate */
    const ganim_clip **partner = calloc(doc->clip_count + 1, sizeof *partner);
    int rc = 0;
    if (!pose || !pose2 || !vis || !vis2 || !own || !absorbed || !world || !own_vis || !below || !turns || !partner) {
        fprintf(stderr, "pose_world: memory\n");
        rc = 1;
        goto out;
    }
    for (uint32_t i = 0; i < doc->clip_count; i++) {
        const ganim_clip *c = &doc->clips[i];
        if (c->kind != GANIM_CLIP_ANIMATION || !c->partner || c->partner > doc->clip_count) continue;
        const ganim_clip *p = &doc->clips[c->partner - 1];
        if (p->kind == GANIM_CLIP_ANIMATION && p->fps == c->fps) partner[i] = p, absorbed[c->partner - 1] = 1;
    }
    printf("{\"bones\":[");
    for (uint32_t b = 0; b < nb; b++) {
        if (b) putchar(',');
        json_string(sk->bones[b].name);
    }
    printf("],\"parents\":[");
    for (uint32_t b = 0; b < nb; b++) printf("%s%d", b ? "," : "", (int)sk->bones[b].parent);
    printf("],\"rest\":[");
    for (uint32_t b = 0; b < nb; b++) { /* the rest pose's world matrices */
        int32_t par = sk->bones[b].parent;
        mat4 local = trs(&sk->bones[b].rest, 1.0, turn, turned && par < 0);
        world[b] = par >= 0 && (uint32_t)par < b ? mul(&world[par], &local) : local;
        for (int e = 0; e < 16; e++) printf("%s%.9g", b || e ? "," : "", world[b].m[e]);
    }
    printf("],\"rest_turn\":[");
    for (uint32_t b = 0; b < nb; b++) { /* the rest's world rotations, scales left out */
        int32_t par = sk->bones[b].parent;
        ganim_quat q = sk->bones[b].rest.rotation;
        ganim_quat base = par >= 0 && (uint32_t)par < b ? turns[par] : turned ? turn : ganim_quat_identity();
        turns[b] = ganim_quat_normalize(ganim_quat_mul(base, q));
        printf("%s%.9g,%.9g,%.9g,%.9g", b ? "," : "", (double)turns[b].x, (double)turns[b].y, (double)turns[b].z,
               (double)turns[b].w);
    }
    printf("],\"animations\":[");
    int first = 1;
    for (uint32_t ci = 0; nb && ci < doc->clip_count && !rc; ci++) {
        const ganim_clip *c = &doc->clips[ci], *p = partner[ci];
        if (c->kind != GANIM_CLIP_ANIMATION || absorbed[ci]) continue;
        uint32_t span = p && p->frame_count > c->frame_count ? p->frame_count : c->frame_count;
        memset(own, 0, n);
        memset(own_vis, 0, n);
        for (uint32_t t = 0; t < c->track_count; t++)
            if (c->tracks[t].bone < nb)
                own[c->tracks[t].bone] = 1, own_vis[c->tracks[t].bone] = c->tracks[t].visibility != NULL;
        for (uint32_t t = 0; p && t < p->track_count; t++)
            if (p->tracks[t].bone < nb && !own[p->tracks[t].bone])
                own_vis[p->tracks[t].bone] = p->tracks[t].visibility != NULL;
        printf("%s{\"clip\":%u,\"partner\":%d,\"fps\":%.17g,\"frames\":%u,\"world\":[", first ? "" : ",", ci,
               p ? (int)(p - doc->clips) : -1, c->fps, span);
        first = 0;
        long count = (long)(span - 1) * steps + 1;
        for (long k = 0; k < count && !rc; k++) {
            double frame = (double)k / (double)steps, time = frame / c->fps;
            if (ganim_clip_sample(c, sk, time, pose, vis, &err) != GANIM_OK) {
                rc = fail("sample", &err);
                break;
            }
            if (p) {
                if (ganim_clip_sample(p, sk, time, pose2, vis2, &err) != GANIM_OK) {
                    rc = fail("sample", &err);
                    break;
                }
                for (uint32_t t = 0; t < p->track_count; t++) {
                    uint32_t b = p->tracks[t].bone;
                    if (b < nb && !own[b]) pose[b] = pose2[b], vis[b] = vis2[b];
                }
            }
            /* a hidden bone shows nothing; its scale of 0 hides its subtree too, except for a
             * bone only the skeleton hides (no visibility of its own in the clip) with a
             * shown bone below it: an FF7 joint without a model, whose children have theirs */
            for (uint32_t b = 0; b < nb; b++) below[b] = vis[b];
            for (uint32_t b = nb; b-- > 0;) {
                int32_t par = sk->bones[b].parent;
                if (par >= 0 && (uint32_t)par < b && below[b]) below[par] = 1;
            }
            printf("%s[", k ? "," : "");
            for (uint32_t b = 0; b < nb; b++) {
                int32_t par = sk->bones[b].parent;
                int zero = !vis[b] && (own_vis[b] || !below[b]);
                mat4 local = trs(&pose[b], zero ? 0.0 : 1.0, turn, turned && par < 0);
                world[b] = par >= 0 && (uint32_t)par < b ? mul(&world[par], &local) : local;
                for (int e = 0; e < 16; e++) printf("%s%.9g", b || e ? "," : "", world[b].m[e]);
            }
            putchar(']');
        }
        printf("]}");
    }
    printf("]}\n");
out:
    free(pose), free(pose2), free(vis), free(vis2), free(own), free(absorbed), free(world), free((void *)partner);
    free(own_vis), free(below), free(turns);
    ganim_doc_free(doc);
    return rc;
}
