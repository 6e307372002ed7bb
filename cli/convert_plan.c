/* ganim convert: the inputs (files, directories, companions found there) and the output
 * planned for each, so that name collisions are found before anything is written, in a
 * deterministic order. */
#include "convert.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- inputs ---------------------------------------------------------------------- */

void convert_add_job(job **jobs, size_t *n, size_t *cap, const char *path, const char *subdir, int companion)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *jobs = cli_xrealloc(*jobs, *cap * sizeof **jobs);
    }
    job *j = &(*jobs)[(*n)++];
    memset(j, 0, sizeof *j);
    j->input = cli_xstrdup(path);
    j->subdir = subdir ? cli_xstrdup(subdir) : NULL;
    j->from_dir = subdir != NULL;
    j->is_companion = companion;
}

/* Whether a file found in a directory is an animation input; by extension, else by
 * content (files up to 64 MiB: a directory may hold anything). */
static int pick(const char *path, int *companion)
{
    const ganim_format *f = ganim_format_for_path(path);
    if (!f) {
        cli_file_info st;
        if (cli_info(path, 1, &st) != 0 || st.kind != CLI_FILE || st.size > (64 << 20)) return 0;
        ganim_buffer b = { 0 };
        if (ganim_load_file(path, NULL, 0, &b, NULL) != GANIM_OK) return 0;
        int score = 0;
        f = ganim_probe(b.data, b.size, &score);
        ganim_buffer_free(&b);
        if (!f || score <= 0) return 0;
    }
    *companion = (f->flags & GANIM_FORMAT_COMPANION) != 0;
    return 1;
}

int convert_scan_dir(const char *root, const char *dir, int recursive, int depth, const char *skip_ext, job **jobs,
                     size_t *n, size_t *cap, size_t *subdirs)
{
    /* the folder below the argument: dir minus "root/" */
    size_t rl = strlen(root);
    const char *sub = strncmp(dir, root, rl) == 0 ? dir + rl : dir;
    while (cli_is_sep(*sub)) sub++;
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
        cli_file_info st;
        if (cli_info(path, 0, &st) == 0) {
            if (st.kind == CLI_DIR) {
                (*subdirs)++;
                if (recursive && depth < 64)
                    convert_scan_dir(root, path, recursive, depth + 1, skip_ext, jobs, n, cap, subdirs);
            } else if (skip_ext && cli_strcaseeq(cli_extension(path), skip_ext)) {
                /* an export an earlier run wrote here: not an input of this one */
            } else if (st.kind == CLI_FILE || (st.kind == CLI_LINK && !cli_is_dir(path))) {
                int companion = 0;
                if (pick(path, &companion)) convert_add_job(jobs, n, cap, path, sub, companion);
            }
        }
        free(path);
    }
    cli_free_list(names, count);
    return 0;
}

int convert_id_of(const char *path, file_id *id)
{
    cli_file_info st;
    if (cli_info(path, 1, &st) != 0) return -1;
    id->dev = st.dev;
    id->ino = st.ino;
    return 0;
}

/* Drop companion files found in directories when an animation of the batch uses them
 * (or when --skeleton names them): they are inputs of other conversions. */
/* The listing of the folder of `path` (1 + its index), listed when it is not the last
 * one listed: the inputs of a folder come one after the other. 0 when it cannot be read. */
static size_t folder_of(settings *s, const char *path)
{
    char *dir = cli_dirname(path);
    if (s->folder_count && strcmp(s->folders[s->folder_count - 1].dir, dir) == 0) {
        free(dir);
        return s->folder_count;
    }
    char **names;
    size_t count;
    if (cli_list_dir(dir, &names, &count) != 0) {
        free(dir);
        return 0;
    }
    s->folders = cli_xrealloc(s->folders, (s->folder_count + 1) * sizeof *s->folders);
    s->folders[s->folder_count] = (folder_list){ dir, names, count };
    return ++s->folder_count;
}

void convert_folders_free(settings *s)
{
    for (size_t i = 0; i < s->folder_count; i++) {
        free(s->folders[i].dir);
        cli_free_list(s->folders[i].names, s->folders[i].count);
    }
    free(s->folders);
    s->folders = NULL;
    s->folder_count = 0;
}

void convert_drop_used_companions(settings *s, const char *skeleton_path, int find)
{
    job *jobs = s->jobs;
    size_t *n = &s->job_count;
    size_t used_count = 0;
    file_id *used = cli_xmalloc((*n + 1) * sizeof *used);
    if (skeleton_path && convert_id_of(skeleton_path, &used[used_count]) == 0) used_count++;
    /* Each folder listed once, not once per input (a folder of thousands of animations
     * would take a time that grows with the square of their number, before any worker
     * starts); the reads look for their companions in the same listing. */
    for (size_t i = 0; i < *n && find && !skeleton_path; i++) {
        if (strcmp(jobs[i].input, "-") == 0) continue;
        jobs[i].folder = folder_of(s, jobs[i].input);
        if (jobs[i].is_companion || !jobs[i].folder) continue;
        const folder_list *f = &s->folders[jobs[i].folder - 1];
        char c[4096];
        if (ganim_find_companion_in(jobs[i].input, NULL, (const char *const *)f->names, f->count, c, sizeof c) &&
            convert_id_of(c, &used[used_count]) == 0)
            used_count++;
    }
    size_t out = 0;
    for (size_t i = 0; i < *n; i++) {
        int drop = 0;
        file_id id;
        if (jobs[i].from_dir && jobs[i].is_companion && convert_id_of(jobs[i].input, &id) == 0)
            for (size_t k = 0; k < used_count && !drop; k++) drop = used[k].dev == id.dev && used[k].ino == id.ino;
        if (drop) {
            free(jobs[i].input);
            free(jobs[i].subdir);
        } else {
            jobs[out++] = jobs[i];
        }
    }
    *n = out;
    free(used);
}

/* ---- output kinds and names -------------------------------------------------------- */

const char *convert_kind_ext(out_kind k)
{
    switch (k) {
    case KIND_GLB: return ".glb";
    case KIND_GLTF: return ".gltf";
    case KIND_BVH: return ".bvh";
    case KIND_JSON: return ".json";
    default: return "";
    }
}

int convert_kind_from_name(const char *name, out_kind *k)
{
    static const char *const names[] = { "glb", "gltf", "bvh", "json" };
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
static char *planned_output(const settings *s, const job *j, int keep_ext)
{
    const char *input = cli_input_name(j->input);
    if (!s->out_is_dir) return cli_xstrdup(s->output);
    char *stem = keep_ext ? cli_xstrdup(cli_basename(input)) : cli_stem(input);
    cli_str name = { 0 };
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
        cli_str_puts(&name, convert_kind_ext(s->kind));
    }
    /* files found in subfolders of a directory argument keep their folder under -o */
    char *dir = j->subdir && *j->subdir ? cli_join(s->output, j->subdir) : cli_xstrdup(s->output);
    char *path = cli_join(dir, name.s);
    free(dir);
    cli_str_free(&name);
    free(stem);
    return path;
}

typedef struct named {
    const char *name;
    size_t index;
} named;

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
void convert_plan_outputs(settings *s)
{
    named *list = cli_xmalloc((s->job_count + 1) * sizeof *list);
    for (size_t i = 0; i < s->job_count; i++) {
        s->jobs[i].output = planned_output(s, &s->jobs[i], 0);
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
                s->jobs[i].output = planned_output(s, &s->jobs[i], 1);
            }
        free(shared);
    }
    free(list);
}

/* Reserve an output path for job `owner`; fails if another job of this run has it. */
int convert_claim_path(settings *s, const char *path, size_t owner, size_t *holder)
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

void convert_known_extensions(cli_str *out)
{
    cli_str_puts(out, ".glb, .gltf, .bvh, .json");
    size_t count;
    const ganim_format *const *all = ganim_formats(&count);
    for (size_t i = 0; i < count; i++) {
        if (!(all[i]->flags & GANIM_FORMAT_WRITE) || !all[i]->extensions) continue;
        for (const char *p = all[i]->extensions; *p;) {
            const char *end = strchr(p, ';');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            cli_str_puts(out, ", ");
            cli_str_append(out, p, len);
            p += len + (end ? 1 : 0);
        }
    }
}
