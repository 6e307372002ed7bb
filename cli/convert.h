/* ganim convert: what its three files share. cmd_convert.c parses the command line and
 * runs the batch; convert_plan.c collects the inputs (files, directories) and plans one
 * output per input; convert_job.c converts one input (read, resample, write or export). */
#ifndef GANIM_CLI_CONVERT_H
#define GANIM_CLI_CONVERT_H

#include "cli.h"

#include <pthread.h>

typedef enum out_kind { KIND_GLB, KIND_GLTF, KIND_BVH, KIND_JSON, KIND_FORMAT, KIND_NATIVE } out_kind;

typedef struct file_id {
    uint64_t dev, ino;
} file_id;

/* A folder's entries, listed once for every input of the batch in it (its companions are
 * looked for among them). */
typedef struct folder_list {
    char *dir;
    char **names;
    size_t count;
} folder_list;

typedef struct job {
    char *input;
    char *subdir; /* the input's folder below the directory argument it was found in ("" at
                     its top), mirrored under -o; NULL for a file given by name */
    char *output; /* primary output path */
    int from_dir; /* found in a directory (may be skipped as a companion) */
    int is_companion;
    int failed;
    size_t folder; /* 1 + its folder's index in settings.folders; 0: none listed */
    cli_log log;
} job;

typedef struct claim {
    char *path;
    size_t owner;
} claim;

typedef struct settings {
    out_kind kind;
    const ganim_format *format; /* KIND_FORMAT */
    const char *output;
    int out_is_dir;
    const char *clip; /* NULL: default */
    int has_fps;
    double fps;
    unsigned resample;
    float scale;
    int keep_axes;
    const char *bvh_order;
    int bvh_joint_positions;
    int sparse_keys;         /* --sparse-keys */
    int unscaled_rest;       /* --unscaled-rest */
    cli_settings settings;   /* -O and the formats' aliases */
    const char *export_only; /* the first option given that only exports take ("--scale"), or NULL */
    const ganim_doc *into;   /* --into: the original the inputs' clips are put into, or NULL */
    const char *slot;        /* --slot: the original's clip the input's one animation goes into */
    int force, quiet, verbose;
    cli_load_opts load;
    file_id *inputs; /* identities of every input, never overwritten */
    size_t input_count;
    /* shared by the workers */
    pthread_mutex_t lock;
    job *jobs;
    size_t job_count, next, failed;
    folder_list *folders; /* listed before the workers start; only read by them */
    size_t folder_count;
    claim *claims;
    size_t claim_count, claim_cap;
} settings;

/* ---- convert_plan.c ---------------------------------------------------------------------- */
void convert_add_job(job **jobs, size_t *n, size_t *cap, const char *path, const char *subdir, int companion);
/* The animation files of directory `dir` below the argument `root` (-r: the whole tree)
 * appended as jobs, except files ending in `skip_ext` (the export being written, which
 * formats may also read); -1 if it cannot be read (the message is printed). *subdirs
 * counts the folders seen (for the advice to add -r). */
int convert_scan_dir(const char *root, const char *dir, int recursive, int depth, const char *skip_ext, job **jobs,
                     size_t *n, size_t *cap, size_t *subdirs);
int convert_id_of(const char *path, file_id *id);
/* Companion files found in directories are dropped when an animation of the batch (or
 * --skeleton) uses them: they are inputs of other conversions. */
void convert_drop_used_companions(settings *s, const char *skeleton_path, int find);
void convert_folders_free(settings *s);
const char *convert_kind_ext(out_kind k);
/* "glb", ".gltf", ... -> the kind; -1 if none. */
int convert_kind_from_name(const char *name, out_kind *k);
/* ".glb, .gltf, .bvh, .json" and every writable format's extensions. */
void convert_known_extensions(cli_str *out);
/* One primary output path per job (names shared by two inputs keep their extension). */
void convert_plan_outputs(settings *s);
/* Reserve an output path for job `owner`; -1 if another job of this run has it. */
int convert_claim_path(settings *s, const char *path, size_t owner, size_t *holder);

/* ---- convert_job.c ----------------------------------------------------------------------- */
/* The batch's worker thread: takes jobs until none is left. */
void *convert_worker(void *arg);

#endif
