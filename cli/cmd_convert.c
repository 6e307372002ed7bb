/* ganim convert: many inputs, one output kind, N worker threads.
 *
 * The command runs in three steps: collect the inputs (files, directories), plan one
 * primary output path per input (so name collisions are found before anything is
 * written, in a deterministic order), then convert in parallel. Each job writes its
 * messages to its own log, printed in one piece when the job ends. */
#include "cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void help_convert(FILE *out)
{
    fprintf(out,
            "Usage: ganim convert INPUT... -o OUTPUT [OPTIONS]\n"
            "\n"
            "Convert animation files. INPUTs are files or directories (their files, or the\n"
            "whole tree with -r; files are picked by content or by a known extension, and\n"
            "companion skeletons found there are skipped when their animations are present).\n"
            "\n"
            "The output kind comes from --to or from OUTPUT's extension: .glb, .gltf (+ .bin\n"
            "next to it), .bvh, .json (the lossless dump), or a writable format's extension\n"
            "(ganim formats). With no known extension and no --to, a file is written back in\n"
            "its own format. With several inputs or a directory, OUTPUT is a directory\n"
            "(created; default kind glb) and each output is named <input stem>.<ext>.\n"
            "Existing outputs are kept unless --force; an input is never overwritten.\n"
            "\n"
            "Options:\n"
            "  -o, --output PATH    output file, or directory for several inputs\n"
            "  --to KIND            glb, gltf, bvh, json, or a format name (ganim formats)\n"
            "  -r, --recursive      descend into subdirectories of directory inputs\n"
            "  --skeleton FILE      take the skeleton from FILE (any file with bones); without\n"
            "                       it each format's rule finds the companion (listed below)\n"
            "  --no-companion       do not look for companion skeletons\n"
            "  --format NAME        read the inputs as NAME instead of detecting it\n"
            "  --clip N|NAME|all    only clip N (from 0, as in ganim info) or the clip named\n"
            "                       NAME; 'all' for BVH writes one file per clip,\n"
            "                       <stem>_<clip>.bvh (default: every clip; BVH: the first)\n"
            "  --fps F              play the clips at F frames per second\n"
            "  --resample K         insert K-1 interpolated frames between frames (fps x K)\n"
            "  --scale S            multiply translations by S (exports)\n"
            "  --keep-axes          keep the file's axes instead of turning them to +Y up\n"
            "  --up y|z|y-down      which way is up in the input, when the format does not say\n"
            "                       (default: the reader's, see ganim info)\n"
            "  --bvh-order ORDER    BVH rotation channel order for every joint, e.g. ZXY;\n"
            "                       default: ZXY, or per joint an order clear of gimbal lock\n"
            "  --bvh-joint-positions  BVH: also write the animated translations of joints\n"
            "                       (default: positions on the root only, the usual layout)\n"
            "  -O, --option NAME=VALUE  a format's reader or writer option (listed below\n"
            "                       and by ganim formats); may be repeated\n"
            "  -j, --jobs N         convert N files at once (0: one per processor)\n"
            "  -f, --force          replace existing output files\n"
            "  -q, --quiet          no warnings, no summary line (errors are still printed)\n"
            "  -v, --verbose        say what was read (format, skeleton) and written\n"
            "  -h, --help           show this help\n"
            "\n"
            "A progress bar is shown on a terminal; the last line is always\n"
            "  converted N files (M failed) in X.XX s\n"
            "and the exit status is 1 if any input failed (the others are still converted).\n"
            "\n"
            "Examples:\n"
            "  ganim convert MODEL_DIE_00.ala -o die.glb\n"
            "  ganim convert walk.anim -o walk.gltf --fps 60\n"
            "  ganim convert pack -o pack.bvh --clip all --bvh-order XYZ\n"
            "  ganim convert pack -o pack.new --to FORMAT --resample 4\n"
            "  ganim convert anims/ -r -o out/ --to glb -j 4\n");
    cli_help_formats(out);
}

enum {
    OPT_OUTPUT = 1, OPT_TO, OPT_RECURSIVE, OPT_SKELETON, OPT_NO_COMPANION, OPT_FORMAT, OPT_CLIP,
    OPT_FPS, OPT_RESAMPLE, OPT_SCALE, OPT_KEEP_AXES, OPT_UP, OPT_BVH_ORDER, OPT_BVH_JOINT_POS, OPT_SETTING,
    OPT_JOBS, OPT_FORCE, OPT_QUIET, OPT_VERBOSE, OPT_HELP, OPT_ALIAS = 1000
};
static const cli_option options[] = {
    {"output", 'o', 1, OPT_OUTPUT},
    {"to", 0, 1, OPT_TO},
    {"recursive", 'r', 0, OPT_RECURSIVE},
    {"skeleton", 0, 1, OPT_SKELETON},
    {"no-companion", 0, 0, OPT_NO_COMPANION},
    {"format", 0, 1, OPT_FORMAT},
    {"clip", 0, 1, OPT_CLIP},
    {"fps", 0, 1, OPT_FPS},
    {"resample", 0, 1, OPT_RESAMPLE},
    {"scale", 0, 1, OPT_SCALE},
    {"keep-axes", 0, 0, OPT_KEEP_AXES},
    {"up", 0, 1, OPT_UP},
    {"bvh-order", 0, 1, OPT_BVH_ORDER},
    {"bvh-joint-positions", 0, 0, OPT_BVH_JOINT_POS},
    {"option", 'O', 1, OPT_SETTING},
    {"jobs", 'j', 1, OPT_JOBS},
    {"force", 'f', 0, OPT_FORCE},
    {"quiet", 'q', 0, OPT_QUIET},
    {"verbose", 'v', 0, OPT_VERBOSE},
    {"help", 'h', 0, OPT_HELP},
    {NULL, 0, 0, 0},
};

typedef enum out_kind { KIND_GLB, KIND_GLTF, KIND_BVH, KIND_JSON, KIND_FORMAT, KIND_NATIVE } out_kind;

typedef struct file_id { dev_t dev; ino_t ino; } file_id;

typedef struct job {
    char *input;
    char *output;       /* primary output path */
    int from_dir;       /* found in a directory (may be skipped as a companion) */
    int is_companion;
    int failed;
    cli_log log;
} job;

typedef struct claim { char *path; size_t owner; } claim;

typedef struct settings {
    out_kind kind;
    const ganim_format *format;   /* KIND_FORMAT */
    const char *output;
    int out_is_dir;
    const char *clip;             /* NULL: default */
    int has_fps;
    double fps;
    unsigned resample;
    float scale;
    int keep_axes;
    const char *bvh_order;
    int bvh_joint_positions;
    cli_settings settings;        /* -O and the formats' aliases */
    int export_only_options;      /* some of --scale/--keep-axes/--bvh-order given */
    int force, quiet, verbose;
    cli_load_opts load;
    file_id *inputs;              /* identities of every input, never overwritten */
    size_t input_count;
    /* shared by the workers */
    pthread_mutex_t lock;
    job *jobs;
    size_t job_count, next, failed;
    claim *claims;
    size_t claim_count, claim_cap;
} settings;

/* ---- inputs ---------------------------------------------------------------------- */

static void add_job(job **jobs, size_t *n, size_t *cap, const char *path, int from_dir, int companion)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *jobs = cli_xrealloc(*jobs, *cap * sizeof **jobs);
    }
    job *j = &(*jobs)[(*n)++];
    memset(j, 0, sizeof *j);
    j->input = cli_xstrdup(path);
    j->from_dir = from_dir;
    j->is_companion = companion;
}

/* Whether a file found in a directory is an animation input; by extension, else by
 * content (files up to 64 MiB: a directory may hold anything). */
static int pick(const char *path, int *companion)
{
    const ganim_format *f = ganim_format_for_path(path);
    if (!f) {
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 20)) return 0;
        ganim_buffer b = {0};
        if (ganim_load_file(path, NULL, &b, NULL) != GANIM_OK) return 0;
        int score = 0;
        f = ganim_probe(b.data, b.size, &score);
        ganim_buffer_free(&b);
        if (!f || score <= 0) return 0;
    }
    *companion = (f->flags & GANIM_FORMAT_COMPANION) != 0;
    return 1;
}

static int scan_dir(const char *dir, int recursive, int depth, job **jobs, size_t *n, size_t *cap)
{
    char **names;
    size_t count;
    int e = cli_list_dir(dir, &names, &count);
    if (e) {
        cli_errorf(NULL, dir, "cannot read directory: %s", strerror(e));
        return -1;
    }
    for (size_t i = 0; i < count; i++) {
        if (names[i][0] == '.') continue; /* hidden files, and our own temporary files */
        char *path = cli_join(dir, names[i]);
        struct stat st;
        if (lstat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                if (recursive && depth < 64) scan_dir(path, recursive, depth + 1, jobs, n, cap);
            } else if (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && !cli_is_dir(path))) {
                int companion = 0;
                if (pick(path, &companion)) add_job(jobs, n, cap, path, 1, companion);
            }
        }
        free(path);
    }
    cli_free_list(names, count);
    return 0;
}

static int id_of(const char *path, file_id *id)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    return 0;
}

/* Drop companion files found in directories when an animation of the batch uses them
 * (or when --skeleton names them): they are inputs of other conversions. */
static void drop_used_companions(job *jobs, size_t *n, const char *skeleton_path, int find)
{
    size_t used_count = 0;
    file_id *used = cli_xmalloc((*n + 1) * sizeof *used);
    if (skeleton_path && id_of(skeleton_path, &used[used_count]) == 0) used_count++;
    for (size_t i = 0; i < *n && find && !skeleton_path; i++) {
        if (jobs[i].is_companion) continue;
        char c[4096];
        if (ganim_find_companion(jobs[i].input, NULL, c, sizeof c) && id_of(c, &used[used_count]) == 0) used_count++;
    }
    size_t out = 0;
    for (size_t i = 0; i < *n; i++) {
        int drop = 0;
        file_id id;
        if (jobs[i].from_dir && jobs[i].is_companion && id_of(jobs[i].input, &id) == 0)
            for (size_t k = 0; k < used_count && !drop; k++)
                drop = used[k].dev == id.dev && used[k].ino == id.ino;
        if (drop) free(jobs[i].input);
        else jobs[out++] = jobs[i];
    }
    *n = out;
    free(used);
}

/* ---- output kinds and names -------------------------------------------------------- */

static const char *kind_ext(out_kind k)
{
    switch (k) {
    case KIND_GLB: return ".glb";
    case KIND_GLTF: return ".gltf";
    case KIND_BVH: return ".bvh";
    case KIND_JSON: return ".json";
    default: return "";
    }
}

static int kind_from_name(const char *name, out_kind *k)
{
    static const char *const names[] = {"glb", "gltf", "bvh", "json"};
    for (int i = 0; i < 4; i++)
        if (cli_strcaseeq(name, names[i]) || (name[0] == '.' && cli_strcaseeq(name + 1, names[i]))) {
            *k = (out_kind)i;
            return 0;
        }
    return -1;
}


/* <stem>.<ext> in the output directory; a game format keeps the input's own name when
 * its extension already fits (FF7 packs have none: "rtda" stays "rtda"). `keep_ext`:
 * <name>.<input ext>.<ext>, for inputs that share a stem (walk.acl and walk.civ). */
static char *planned_output(const settings *s, const char *input, int keep_ext)
{
    if (!s->out_is_dir) return cli_xstrdup(s->output);
    char *stem = keep_ext ? cli_xstrdup(cli_basename(input)) : cli_stem(input);
    cli_str name = {0};
    if (s->kind == KIND_FORMAT) {
        const char *ext = cli_extension(input);
        const char *exts = s->format->extensions ? s->format->extensions : "";
        if (!*exts || ganim_format_has_extension(s->format, ext)) {
            cli_str_puts(&name, cli_basename(input));
        } else {
            const char *end = strchr(exts, ';');
            cli_str_puts(&name, stem);
            cli_str_append(&name, exts, end ? (size_t)(end - exts) : strlen(exts));
        }
    } else {
        cli_str_puts(&name, stem);
        cli_str_puts(&name, kind_ext(s->kind));
    }
    char *path = cli_join(s->output, name.s);
    cli_str_free(&name);
    free(stem);
    return path;
}

typedef struct named { const char *name; size_t index; } named;

static int compare_named(const void *pa, const void *pb)
{
    const named *a = pa, *b = pb;
    for (const char *x = a->name, *y = b->name;; x++, y++) {
        int cx = (unsigned char)*x, cy = (unsigned char)*y;
        if (cx >= 'A' && cx <= 'Z') cx += 32;
        if (cy >= 'A' && cy <= 'Z') cy += 32;
        if (cx != cy || !cx) return cx < cy ? -1 : cx > cy;
    }
}

/* Output names for every job. Names that differ only by case count as the same: the
 * output may be on a case-insensitive file system. */
static void plan_outputs(settings *s)
{
    named *list = cli_xmalloc((s->job_count + 1) * sizeof *list);
    for (size_t i = 0; i < s->job_count; i++) {
        s->jobs[i].output = planned_output(s, s->jobs[i].input, 0);
        list[i].name = s->jobs[i].output;
        list[i].index = i;
    }
    if (s->out_is_dir && s->job_count > 1) {
        qsort(list, s->job_count, sizeof *list, compare_named);
        char *shared = cli_xmalloc(s->job_count);
        memset(shared, 0, s->job_count);
        for (size_t i = 1; i < s->job_count; i++)
            if (compare_named(&list[i - 1], &list[i]) == 0) shared[list[i - 1].index] = shared[list[i].index] = 1;
        for (size_t i = 0; i < s->job_count; i++)
            if (shared[i]) {
                free(s->jobs[i].output);
                s->jobs[i].output = planned_output(s, s->jobs[i].input, 1);
            }
        free(shared);
    }
    free(list);
}

/* Reserve an output path for job `owner`; fails if another job of this run has it. */
static int claim_path(settings *s, const char *path, size_t owner, size_t *holder)
{
    int ok = 1;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->claim_count && ok; i++)
        if (cli_strcaseeq(s->claims[i].path, path) && s->claims[i].owner != owner) {
            ok = 0;
            *holder = s->claims[i].owner;
        }
    if (ok) {
        if (s->claim_count == s->claim_cap) {
            s->claim_cap = s->claim_cap ? s->claim_cap * 2 : 64;
            s->claims = cli_xrealloc(s->claims, s->claim_cap * sizeof *s->claims);
        }
        s->claims[s->claim_count].path = cli_xstrdup(path);
        s->claims[s->claim_count++].owner = owner;
    }
    pthread_mutex_unlock(&s->lock);
    return ok ? 0 : -1;
}

/* ---- one job --------------------------------------------------------------------- */

typedef struct work {
    settings *s;
    size_t index;
    job *j;
    const char *companion;
} work;

static int write_output(work *w, const char *path, const ganim_buffer *data)
{
    settings *s = w->s;
    cli_log *log = &w->j->log;
    size_t holder;
    if (claim_path(s, path, w->index, &holder) != 0) {
        cli_errorf(log, w->j->input, "output %s is also written for %s; not written", path,
                   s->jobs[holder].input);
        return -1;
    }
    file_id id;
    if (id_of(path, &id) == 0) {
        file_id cid;
        int is_input = w->companion && id_of(w->companion, &cid) == 0 && cid.dev == id.dev &&
                       cid.ino == id.ino;
        for (size_t i = 0; i < s->input_count && !is_input; i++)
            is_input = s->inputs[i].dev == id.dev && s->inputs[i].ino == id.ino;
        if (is_input) {
            cli_errorf(log, w->j->input, "refusing to overwrite the input file %s", path);
            return -1;
        }
        if (!s->force) {
            cli_errorf(log, w->j->input, "%s already exists (use --force to replace it)", path);
            return -1;
        }
    }
    char *dir = cli_dirname(path);
    int e = cli_is_dir(dir) ? 0 : cli_mkdirs(dir);
    free(dir);
    if (!e) e = cli_write_file(path, data->data, data->size);
    if (e) {
        cli_errorf(log, path, "cannot write: %s", strerror(e));
        return -1;
    }
    if (s->verbose) cli_notef(log, w->j->input, "wrote %s (%zu bytes)", path, data->size);
    return 0;
}

#define CLIP_DEFAULT (-1)
#define CLIP_ALL (-2)

/* --clip against this document: CLIP_DEFAULT, CLIP_ALL or an index; -3 on error. */
static long resolve_clip(const char *spec, const ganim_doc *doc, cli_log *log, const char *path)
{
    if (!spec) return CLIP_DEFAULT;
    if (cli_strcaseeq(spec, "all")) return CLIP_ALL;
    uint32_t index;
    ganim_error err = {0};
    if (ganim_doc_find_clip(doc, spec, &index, &err) == GANIM_OK) return (long)index;
    cli_errorf(log, path, "%s", err.message);
    return -3;
}

/* "<dir>/<stem of path><suffix>" */
static char *sibling(const char *path, const char *suffix)
{
    char *dir = cli_dirname(path), *stem = cli_stem(path);
    cli_str name = {0};
    cli_str_puts(&name, stem);
    cli_str_puts(&name, suffix);
    char *r = strcmp(dir, ".") == 0 && !strchr(path, '/') ? cli_xstrdup(name.s) : cli_join(dir, name.s);
    cli_str_free(&name);
    free(dir);
    free(stem);
    return r;
}

/* What an export could not carry, printed with the job's messages (unless --quiet). */
typedef struct export_log {
    cli_log *log;
    const char *input;
    int quiet;
} export_log;

static void export_warning(void *user, const ganim_warning *w)
{
    export_log *e = user;
    if (!e->quiet) cli_warning(e->log, e->input, w->message, w->offset);
}

static int export_bvh(work *w, const ganim_doc *doc, ganim_export_opts *eo, long clip)
{
    const char *in = w->j->input;
    cli_log *log = &w->j->log;
    uint32_t *list = cli_xmalloc((size_t)doc->clip_count * sizeof *list + 1);
    uint32_t count = 0, anims = 0;
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION) {
            anims++;
            if (clip == CLIP_ALL || (clip == CLIP_DEFAULT && count == 0)) list[count++] = i;
        }
    if (clip >= 0) list[count++] = (uint32_t)clip;
    int rc = 0;
    if (!count) {
        cli_errorf(log, in, "no animation clip to write as BVH");
        rc = -1;
    }
    cli_str used = {0}; /* "\n"-separated names already given, to keep them unique */
    cli_str_puts(&used, "\n");
    for (uint32_t k = 0; k < count && rc == 0; k++) {
        uint32_t i = list[k];
        char *path;
        if (count == 1) {
            path = cli_xstrdup(w->j->output);
        } else {
            cli_str part = {0};
            if (doc->clips[i].name[0]) {
                char *c = cli_file_component(doc->clips[i].name);
                cli_str_puts(&part, c);
                free(c);
            } else {
                cli_str_printf(&part, "%u", i);
            }
            cli_str key = {0};
            cli_str_printf(&key, "\n%s\n", part.s);
            if (strstr(used.s, key.s)) cli_str_printf(&part, "_%u", i);
            cli_str_printf(&used, "%s\n", part.s);
            cli_str_free(&key);
            cli_str suffix = {0};
            cli_str_printf(&suffix, "_%s.bvh", part.s);
            path = sibling(w->j->output, suffix.s);
            cli_str_free(&suffix);
            cli_str_free(&part);
        }
        eo->only_clip = clip != CLIP_DEFAULT; /* the default: the exporter's choice, and it says so */
        eo->clip = (int)i;
        ganim_buffer out = {0};
        ganim_error err = {0};
        if (ganim_export_bvh(doc, eo, &out, &err) != GANIM_OK) {
            cli_error(log, in, &err);
            rc = -1;
        } else {
            rc = write_output(w, path, &out);
        }
        ganim_buffer_free(&out);
        free(path);
    }
    cli_str_free(&used);
    free(list);
    return rc;
}

static int convert_doc(work *w, ganim_doc *doc)
{
    settings *s = w->s;
    job *j = w->j;
    cli_log *log = &j->log;
    ganim_error err = {0};
    out_kind kind = s->kind;
    const ganim_format *format = s->format;

    if (kind == KIND_NATIVE) {
        if (!doc->format || !(doc->format->flags & GANIM_FORMAT_WRITE)) {
            cli_errorf(log, j->input, "cannot tell what to write from the name %s: add --to "
                       "(glb, gltf, bvh, json or a writable format, see ganim formats)", j->output);
            return -1;
        }
        kind = KIND_FORMAT;
        format = doc->format;
    }
    long clip = resolve_clip(s->clip, doc, log, j->input);
    if (clip == -3) return -1;
    if (kind == KIND_FORMAT) {
        if (clip >= 0) {
            cli_errorf(log, j->input, "--clip selects clips for exports; %s is written whole", format->name);
            return -1;
        }
        if (s->export_only_options) {
            cli_errorf(log, j->input, "--scale, --keep-axes and --bvh-order apply to exports, not to %s",
                       format->name);
            return -1;
        }
    } else if (clip >= 0 && doc->clips[clip].kind != GANIM_CLIP_ANIMATION) {
        cli_errorf(log, j->input, "clip %ld is an opaque slot, not an animation", clip);
        return -1;
    }

    if (s->resample > 1 && ganim_doc_resample(doc, s->resample, &err) != GANIM_OK) {
        cli_error(log, j->input, &err);
        return -1;
    }
    if (s->has_fps)
        for (uint32_t i = 0; i < doc->clip_count; i++)
            if (doc->clips[i].kind == GANIM_CLIP_ANIMATION) doc->clips[i].fps = s->fps;

    if (kind == KIND_FORMAT) {
        ganim_write_opts wo = {0};
        wo.settings = s->settings.list;
        wo.setting_count = (uint32_t)s->settings.count;
        ganim_buffer out = {0};
        int rc = -1;
        if (ganim_write(doc, format->name, &wo, &out, &err) != GANIM_OK) cli_error(log, j->input, &err);
        else rc = write_output(w, j->output, &out);
        ganim_buffer_free(&out);
        return rc;
    }

    /* Exports: unnamed clips (Alamo) take the input's name, so the animation in the
     * glTF says where it came from. The dump stays exactly what the file holds. */
    char *stem = cli_stem(j->input);
    export_log elog = {log, j->input, s->quiet};
    ganim_export_opts eo = {0};
    eo.default_clip_name = stem;
    eo.warn = export_warning;
    eo.warn_user = &elog;
    eo.keep_axes = s->keep_axes;
    eo.unit_scale = s->scale;
    eo.bvh_order = s->bvh_order;
    eo.bvh_joint_positions = s->bvh_joint_positions;
    if (clip >= 0) {
        eo.only_clip = 1;
        eo.clip = (int)clip;
    }
    int rc = -1;
    ganim_buffer out = {0}, bin = {0};
    switch (kind) {
    case KIND_GLB:
        if (ganim_export_glb(doc, &eo, &out, &err) != GANIM_OK) cli_error(log, j->input, &err);
        else rc = write_output(w, j->output, &out);
        break;
    case KIND_JSON:
        if (ganim_export_json(doc, &eo, &out, &err) != GANIM_OK) cli_error(log, j->input, &err);
        else rc = write_output(w, j->output, &out);
        break;
    case KIND_GLTF: {
        char *bin_path = sibling(j->output, ".bin");
        eo.bin_uri = cli_basename(bin_path); /* the exporter percent-encodes it */
        if (ganim_export_gltf(doc, &eo, &out, &bin, &err) != GANIM_OK) cli_error(log, j->input, &err);
        else if (write_output(w, bin_path, &bin) == 0) rc = write_output(w, j->output, &out);
        free(bin_path);
        break;
    }
    case KIND_BVH: rc = export_bvh(w, doc, &eo, clip); break;
    default: break;
    }
    ganim_buffer_free(&out);
    ganim_buffer_free(&bin);
    free(stem);
    return rc;
}

static int run_job(settings *s, size_t index)
{
    job *j = &s->jobs[index];
    cli_loaded l;
    if (cli_load(j->input, &s->load, &l, &j->log) != 0) return -1;
    work w = {s, index, j, l.doc->skeleton_file};
    if (s->verbose) {
        cli_str note = {0};
        cli_str_printf(&note, "read as %s (probe score %d)", l.doc->format ? l.doc->format->name : "?",
                       l.doc->probe_score);
        if (l.doc->skeleton_file) cli_str_printf(&note, ", skeleton from %s", l.doc->skeleton_file);
        else if (s->load.skeleton) cli_str_puts(&note, ", skeleton from --skeleton");
        else if (!l.doc->skeleton) cli_str_puts(&note, ", no skeleton");
        cli_notef(&j->log, j->input, "%s", note.s);
        cli_str_free(&note);
    }
    if (!s->quiet) cli_doc_warnings(&j->log, j->input, l.doc);
    int rc = convert_doc(&w, l.doc);
    cli_loaded_free(&l);
    return rc;
}

static void *worker(void *arg)
{
    settings *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->lock);
        size_t i = s->next < s->job_count ? s->next++ : s->job_count;
        pthread_mutex_unlock(&s->lock);
        if (i >= s->job_count) break;
        job *j = &s->jobs[i];
        if (!j->failed && run_job(s, i) != 0) j->failed = 1;
        cli_log_flush(&j->log);
        pthread_mutex_lock(&s->lock);
        if (j->failed) s->failed++;
        pthread_mutex_unlock(&s->lock);
        cli_progress_step(j->input, j->failed);
    }
    return NULL;
}

/* ---- the command ------------------------------------------------------------------- */

static int parse_kind(settings *s, const char *to)
{
    if (kind_from_name(to, &s->kind) == 0) return 0;
    const ganim_format *f = ganim_format_find(to);
    if (!f) return cli_usage("convert", "unknown output kind '%s': glb, gltf, bvh, json or a format "
                             "name (see 'ganim formats')", to);
    if (!(f->flags & GANIM_FORMAT_WRITE))
        return cli_usage("convert", "ganim cannot write %s files (see 'ganim formats')", f->name);
    s->kind = KIND_FORMAT;
    s->format = f;
    return 0;
}

int cmd_convert(int argc, char **argv)
{
    cli_args a = {"convert", argc, argv, 1, 0, 0};
    settings s;
    memset(&s, 0, sizeof s);
    const char **args = cli_xmalloc((size_t)argc * sizeof *args);
    size_t arg_count = 0;
    const char *to = NULL, *skeleton_path = NULL, *format_name = NULL, *v;
    int recursive = 0, find_companion = 1, id;
    unsigned long jobs_n = 1, u;
    s.load.find_companion = 1;
    int rc = CLI_EXIT_USAGE;
#define USAGE(...) do { rc = cli_usage("convert", __VA_ARGS__); goto done_args; } while (0)
    static cli_option *table; /* the options and the formats' aliases, for the process */
    if (!table) table = cli_options_with_aliases(options, OPT_ALIAS);
    while ((id = cli_next(&a, table, &v)) != CLI_ARG_END) {
        switch (id) {
        case CLI_ARG_ERROR: goto done_args;
        case CLI_ARG_POSITIONAL: args[arg_count++] = v; break;
        case OPT_OUTPUT: s.output = v; break;
        case OPT_TO: to = v; break;
        case OPT_RECURSIVE: recursive = 1; break;
        case OPT_SKELETON: skeleton_path = v; break;
        case OPT_NO_COMPANION: find_companion = 0; break;
        case OPT_FORMAT: format_name = v; break;
        case OPT_CLIP:
            if (!*v) USAGE("--clip wants a number, a name or 'all'");
            s.clip = v;
            break;
        case OPT_FPS:
            if (cli_parse_double(v, &s.fps) != 0 || s.fps <= 0 || s.fps > 1e6)
                USAGE("--fps wants a positive number of frames per second, not '%s'", v);
            s.has_fps = 1;
            break;
        case OPT_RESAMPLE:
            if (cli_parse_uint(v, 1, 1000, &u) != 0) USAGE("--resample wants a factor from 1 to 1000, not '%s'", v);
            s.resample = (unsigned)u;
            break;
        case OPT_SCALE: {
            double d;
            if (cli_parse_double(v, &d) != 0 || d == 0 || d > 1e30 || d < -1e30)
                USAGE("--scale wants a non-zero number, not '%s'", v);
            s.scale = (float)d;
            s.export_only_options = 1;
            break;
        }
        case OPT_KEEP_AXES: s.keep_axes = 1; s.export_only_options = 1; break;
        case OPT_BVH_JOINT_POS: s.bvh_joint_positions = 1; s.export_only_options = 1; break;
        case OPT_UP:
            if (!(s.load.up = cli_parse_up(v))) USAGE("--up wants y, z or y-down, not '%s'", v);
            break;
        case OPT_BVH_ORDER: {
            static const char *const orders[] = {"XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX"};
            int ok = 0;
            for (int i = 0; i < 6; i++)
                if (cli_strcaseeq(v, orders[i])) { s.bvh_order = orders[i]; ok = 1; }
            if (!ok) USAGE("--bvh-order wants XYZ, XZY, YXZ, YZX, ZXY or ZYX, not '%s'", v);
            s.export_only_options = 1;
            break;
        }
        case OPT_SETTING:
            if ((rc = cli_settings_add(&s.settings, "convert", v)) != 0) goto done_args;
            rc = CLI_EXIT_USAGE;
            break;
        case OPT_JOBS:
            if (cli_parse_uint(v, 0, 256, &jobs_n) != 0) USAGE("--jobs wants a number from 0 to 256, not '%s'", v);
            break;
        case OPT_FORCE: s.force = 1; break;
        case OPT_QUIET: s.quiet = 1; break;
        case OPT_VERBOSE: s.verbose = 1; break;
        case OPT_HELP: help_convert(stdout); cli_settings_free(&s.settings); free(args); return CLI_EXIT_OK;
        default:
            if ((rc = cli_settings_add_alias(&s.settings, "convert", id - OPT_ALIAS, v)) != 0) goto done_args;
            rc = CLI_EXIT_USAGE;
            break;
        }
    }
    if (!arg_count) USAGE("no input");
    if (!s.output) USAGE("no output: add -o FILE or -o DIRECTORY");
    if (!*s.output) USAGE("the output name is empty");
    if (format_name && !(s.load.format = ganim_format_find(format_name)))
        USAGE("unknown format '%s' (see 'ganim formats')", format_name);
    s.load.find_companion = find_companion;
    s.load.settings = &s.settings;

    /* Is OUTPUT a directory? */
    size_t olen = strlen(s.output);
    int any_dir = 0;
    for (size_t i = 0; i < arg_count; i++) any_dir |= cli_is_dir(args[i]);
    s.out_is_dir = arg_count > 1 || any_dir || s.output[olen - 1] == '/' || cli_is_dir(s.output);
    if (s.out_is_dir && cli_exists(s.output) && !cli_is_dir(s.output))
        USAGE("%s is not a directory (with several inputs or a directory, -o names a directory)", s.output);
    if (s.out_is_dir && !cli_exists(s.output) && kind_from_name(cli_extension(s.output), &s.kind) == 0)
        USAGE("with several inputs or a directory, -o names a directory, not a %s file; "
              "use -o DIR --to %s", cli_extension(s.output), cli_extension(s.output) + 1);

    /* What to write. */
    if (to) {
        if (parse_kind(&s, to) != 0) goto done_args;
    } else if (s.out_is_dir) {
        s.kind = KIND_GLB;
    } else if (kind_from_name(cli_extension(s.output), &s.kind) != 0) {
        const ganim_format *f = ganim_format_for_path(s.output);
        if (f && !(f->flags & GANIM_FORMAT_WRITE)) USAGE("ganim cannot write %s files (see 'ganim formats')", f->name);
        s.kind = f ? KIND_FORMAT : KIND_NATIVE;
        s.format = f;
    }
    if (s.kind == KIND_FORMAT) {
        if (s.export_only_options)
            USAGE("--scale, --keep-axes and --bvh-order apply to exports (glb, gltf, bvh, json), not to %s",
                  s.format->name);
        if (s.clip && !cli_strcaseeq(s.clip, "all"))
            USAGE("--clip selects clips for exports; a %s file is written whole", s.format->name);
    }
    if (cli_settings_has(&s.settings, GANIM_OPTION_WRITE) && s.kind != KIND_FORMAT && s.kind != KIND_NATIVE)
        USAGE("writer options (-O) apply when writing a game format, not to exports");
    if (s.kind == KIND_FORMAT && cli_settings_foreign(&s.settings, s.format))
        USAGE("option %s is not an option of %s (ganim formats lists each format's options)",
              cli_settings_foreign(&s.settings, s.format), s.format->name);
    rc = CLI_EXIT_OK;
done_args:
#undef USAGE
    if (rc != CLI_EXIT_OK) {
        cli_settings_free(&s.settings);
        free(args);
        return rc;
    }

    double start = cli_now();
    rc = CLI_EXIT_OK;
    ganim_doc *skeleton_doc = NULL;
    if (skeleton_path) {
        if (!(skeleton_doc = cli_load_skeleton(skeleton_path))) {
            cli_settings_free(&s.settings);
            free(args);
            return CLI_EXIT_FAILED;
        }
        s.load.skeleton = skeleton_doc->skeleton;
    }

    /* Inputs. */
    size_t cap = 0;
    for (size_t i = 0; i < arg_count; i++) {
        if (cli_is_dir(args[i])) {
            size_t before = s.job_count;
            if (scan_dir(args[i], recursive, 0, &s.jobs, &s.job_count, &cap) != 0) {
                rc = CLI_EXIT_FAILED;
            } else if (s.job_count == before) {
                cli_errorf(NULL, args[i], "no animation files found%s", recursive ? "" : " (add -r for subdirectories)");
                rc = CLI_EXIT_FAILED;
            }
        } else {
            add_job(&s.jobs, &s.job_count, &cap, args[i], 0, 0);
        }
    }
    drop_used_companions(s.jobs, &s.job_count, skeleton_path, find_companion);
    s.inputs = cli_xmalloc((s.job_count + 1) * sizeof *s.inputs);
    for (size_t i = 0; i < s.job_count; i++)
        if (id_of(s.jobs[i].input, &s.inputs[s.input_count]) == 0) s.input_count++;
    if (skeleton_path) {
        s.inputs = cli_xrealloc(s.inputs, (s.input_count + 1) * sizeof *s.inputs);
        if (id_of(skeleton_path, &s.inputs[s.input_count]) == 0) s.input_count++;
    }

    /* Plan the outputs; the first input keeps a name two inputs would share. */
    if (pthread_mutex_init(&s.lock, NULL) != 0) {
        cli_errorf(NULL, NULL, "cannot create a mutex");
        return CLI_EXIT_FAILED;
    }
    if (s.out_is_dir && s.job_count) {
        int e = cli_mkdirs(s.output);
        if (e) {
            cli_errorf(NULL, s.output, "cannot create directory: %s", strerror(e));
            for (size_t i = 0; i < s.job_count; i++) s.jobs[i].failed = 1;
        }
    }
    plan_outputs(&s);
    for (size_t i = 0; i < s.job_count; i++) {
        job *j = &s.jobs[i];
        size_t holder;
        if (!j->failed && claim_path(&s, j->output, i, &holder) != 0) {
            cli_errorf(&j->log, j->input, "output %s is also written for %s; not written", j->output,
                       s.jobs[holder].input);
            j->failed = 1;
        }
    }

    /* Convert. */
    if (jobs_n == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        jobs_n = cpus > 0 ? (unsigned long)cpus : 1;
    }
    if (jobs_n > s.job_count) jobs_n = s.job_count ? s.job_count : 1;
    cli_progress_start(s.job_count, !s.quiet);
    if (jobs_n <= 1) {
        worker(&s);
    } else {
        pthread_t *threads = cli_xmalloc(jobs_n * sizeof *threads);
        size_t started = 0;
        for (; started < jobs_n; started++)
            if (pthread_create(&threads[started], NULL, worker, &s) != 0) break;
        if (!started) worker(&s); /* no threads to be had: do it here */
        for (size_t i = 0; i < started; i++) pthread_join(threads[i], NULL);
        free(threads);
    }
    cli_progress_end();

    if (s.failed) rc = CLI_EXIT_FAILED;
    if (!s.quiet) {
        char line[128];
        int n = snprintf(line, sizeof line, "converted %zu file%s (%zu failed) in %.2f s\n",
                         s.job_count - s.failed, s.job_count - s.failed == 1 ? "" : "s", s.failed,
                         cli_now() - start);
        if (n > 0) cli_stderr_write(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }

    for (size_t i = 0; i < s.job_count; i++) {
        free(s.jobs[i].input);
        free(s.jobs[i].output);
        cli_str_free(&s.jobs[i].log.text);
    }
    for (size_t i = 0; i < s.claim_count; i++) free(s.claims[i].path);
    free(s.claims);
    free(s.jobs);
    free(s.inputs);
    pthread_mutex_destroy(&s.lock);
    ganim_doc_free(skeleton_doc);
    cli_settings_free(&s.settings);
    free(args);
    return rc;
}
