/* ganim convert: one input. Read it, apply --clip/--resample/--fps, then write a game
 * format or export glTF, BVH or JSON; messages go to the job's own log. */
#include "convert.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- one job --------------------------------------------------------------------- */

typedef struct work {
    settings *s;
    size_t index;
    job *j;
    const ganim_doc *doc; /* what was read: its companion and the other files it used */
} work;

/* Is `id` a file this input was read from (the companion skeleton, an archive, an
 * archive's data file, a glTF's buffers)? */
static int used_by_read(const ganim_doc *doc, const file_id *id)
{
    for (uint32_t i = 0; i < doc->used_file_count; i++) {
        file_id u;
        if (convert_id_of(doc->used_files[i], &u) == 0 && u.dev == id->dev && u.ino == id->ino) return 1;
    }
    return 0;
}

/* May this job write `path`? It claims the path; it is refused (with the reason) when
 * another job writes it, it is a file this input was read from, or it exists without
 * --force. Every output of a job is checked before any is written: a refused command
 * writes nothing. */
static int output_allowed(work *w, const char *path)
{
    settings *s = w->s;
    cli_log *log = &w->j->log;
    size_t holder;
    if (convert_claim_path(s, path, w->index, &holder) != 0) {
        cli_errorf(log, w->j->input, "output %s is also written for %s; not written", path, s->jobs[holder].input);
        return -1;
    }
    file_id id;
    cli_file_info st;
    int regular = cli_info(path, 1, &st) == 0 && st.kind == CLI_FILE; /* devices and FIFOs are written through */
    if (strcmp(path, "-") != 0 && regular && convert_id_of(path, &id) == 0) {
        int is_input = used_by_read(w->doc, &id);
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
    return 0;
}

/* Writes an output output_allowed accepted (its folder made when missing), from its
 * parts one after the other. */
static int put_parts(work *w, const char *path, const cli_part *parts, size_t count)
{
    cli_log *log = &w->j->log;
    int e = 0;
    if (strcmp(path, "-") != 0) {
        char *dir = cli_dirname(path);
        e = cli_is_dir(dir) ? 0 : cli_mkdirs(dir);
        free(dir);
    }
    if (!e) e = cli_write_parts(path, parts, count);
    if (e) {
        cli_errorf(log, path, "cannot write: %s", strerror(e));
        return -1;
    }
    size_t size = 0;
    for (size_t i = 0; i < count; i++) size += parts[i].size;
    if (w->s->verbose) cli_notef(log, w->j->input, "wrote %s (%zu bytes)", path, size);
    return 0;
}

static int put_output(work *w, const char *path, const ganim_buffer *data)
{
    cli_part one = { data->data, data->size };
    return put_parts(w, path, &one, 1);
}

static int write_output(work *w, const char *path, const ganim_buffer *data)
{
    return output_allowed(w, path) == 0 ? put_output(w, path, data) : -1;
}

#define CLIP_DEFAULT (-1)
#define CLIP_ALL (-2)

/* --clip against this document: CLIP_DEFAULT, CLIP_ALL or an index; -3 on error. */
static long resolve_clip(const char *spec, const ganim_doc *doc, cli_log *log, const char *path)
{
    if (!spec) return CLIP_DEFAULT;
    if (cli_strcaseeq(spec, "all")) return CLIP_ALL;
    uint32_t index;
    ganim_error err = { 0 };
    if (ganim_doc_find_clip(doc, spec, &index, &err) == GANIM_OK) return (long)index;
    cli_errorf(log, path, "%s", err.message);
    return -3;
}

/* "<dir>/<stem of path><suffix>" */
static char *sibling(const char *path, const char *suffix)
{
    char *dir = cli_dirname(path), *stem = cli_stem(path);
    cli_str name = { 0 };
    cli_str_puts(&name, stem);
    cli_str_puts(&name, suffix);
    char *r = strcmp(dir, ".") == 0 && cli_basename(path) == path ? cli_xstrdup(name.s) : cli_join(dir, name.s);
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
    /* every file's name, each allowed, before any is written */
    char **paths = cli_xmalloc((size_t)count * sizeof *paths + 1);
    cli_str used = { 0 }; /* "\n"-separated names already given, to keep them unique */
    cli_str_puts(&used, "\n");
    for (uint32_t k = 0; k < count; k++) {
        uint32_t i = list[k];
        if (count == 1) {
            paths[k] = cli_xstrdup(w->j->output);
        } else {
            cli_str part = { 0 };
            if (doc->clips[i].name[0]) {
                char *c = cli_file_component(doc->clips[i].name);
                cli_str_puts(&part, c);
                free(c);
            } else {
                cli_str_printf(&part, "%u", i);
            }
            cli_str key = { 0 };
            cli_str_printf(&key, "\n%s\n", part.s);
            if (strstr(used.s, key.s)) cli_str_printf(&part, "_%u", i);
            cli_str_printf(&used, "%s\n", part.s);
            cli_str_free(&key);
            cli_str suffix = { 0 };
            cli_str_printf(&suffix, "_%s.bvh", part.s);
            paths[k] = sibling(w->j->output, suffix.s);
            cli_str_free(&suffix);
            cli_str_free(&part);
        }
        if (rc == 0 && output_allowed(w, paths[k]) != 0) rc = -1;
    }
    for (uint32_t k = 0; k < count && rc == 0; k++) {
        uint32_t i = list[k];
        eo->only_clip = clip != CLIP_DEFAULT ? i + 1 : 0; /* the default: the exporter's choice, and it says so */
        ganim_buffer out = { 0 };
        ganim_error err = { 0 };
        if (ganim_export_bvh(doc, eo, &out, &err) != GANIM_OK) {
            cli_error(log, in, &err);
            rc = -1;
        } else {
            rc = put_output(w, paths[k], &out);
        }
        ganim_buffer_free(&out);
    }
    for (uint32_t k = 0; k < count; k++) free(paths[k]);
    free(paths);
    cli_str_free(&used);
    free(list);
    return rc;
}

/* A document holding clip `ci` of `doc` alone, on its skeleton (--clip with --into), with
 * the partner it plays with when it has one (ganim's glb gives a body_3+weapon_9
 * animation back as the two clips). */
static ganim_doc *only_clip(const ganim_doc *doc, uint32_t ci, ganim_error *err)
{
    ganim_doc *one = NULL;
    if (ganim_doc_new(NULL, &one, err) != GANIM_OK) return NULL;
    one->axes = doc->axes;
    ganim_clip c = doc->clips[ci];
    uint32_t p = c.partner;
    int with = p && p <= doc->clip_count && p - 1 != ci && doc->clips[p - 1].kind == GANIM_CLIP_ANIMATION;
    c.partner = with ? 2 : 0;
    ganim_clip pc = with ? doc->clips[p - 1] : c;
    pc.partner = 0;
    if ((doc->skeleton && ganim_doc_set_skeleton(one, doc->skeleton, err) != GANIM_OK) ||
        ganim_doc_add_clip(one, &c, NULL, err) != GANIM_OK ||
        (with && ganim_doc_add_clip(one, &pc, NULL, err) != GANIM_OK)) {
        ganim_doc_free(one);
        return NULL;
    }
    return one;
}

/* A game format: the document whole, or with --into its clips (--clip: that one) put into
 * the original. */
static int write_format(work *w, const ganim_doc *doc, const ganim_format *format, long clip)
{
    settings *s = w->s;
    job *j = w->j;
    cli_log *log = &j->log;
    ganim_error err = { 0 };
    ganim_doc *one = NULL;
    if (s->into && clip >= 0 && !(one = only_clip(doc, (uint32_t)clip, &err))) {
        cli_error(log, j->input, &err);
        return -1;
    }
    ganim_write_opts wo = { 0 };
    ganim_setting *writer = cli_xmalloc((s->settings.count + 1) * sizeof *writer);
    wo.settings = writer;
    wo.setting_count = (uint32_t)cli_settings_for_writer(&s->settings, format, writer);
    wo.into = s->into;
    wo.slot = s->slot;
    /* --fps, else the format's or the original clip's rate; --resample asks for more
     * frames: they are kept */
    wo.fps = s->has_fps ? s->fps : s->resample > 1 ? GANIM_WRITE_KEEP_RATE : 0;
    export_log wlog = { log, j->input, s->quiet };
    wo.warn = export_warning;
    wo.warn_user = &wlog;
    ganim_buffer out = { 0 };
    int rc = -1;
    if (ganim_write(one ? one : doc, format->name, &wo, &out, &err) != GANIM_OK) cli_error(log, j->input, &err);
    else rc = write_output(w, j->output, &out);
    ganim_buffer_free(&out);
    free(writer);
    ganim_doc_free(one);
    return rc;
}

/* ---- a glTF written as the export makes it (ganim_export_glb_stream) -------------- */

/* The outputs of a streamed export: the .glb, or the .gltf and its .bin (part 1). They are
 * opened at the first bytes (the export has then passed every check of the document:
 * a refused export writes nothing), where output_allowed takes them as it takes the
 * others; the files are temporary until streamed_end renames them. */
typedef struct streamed {
    work *w;
    const char *path[2]; /* part 0, part 1 (NULL: none) */
    cli_out out[2];
    int opened;
    int failed; /* ours, and reported: the export's error is not */
} streamed;

/* May the export be streamed to these outputs (regular files or new ones)? */
static int can_stream(const char *path, const char *bin_path)
{
    return cli_out_writable(path) && (!bin_path || cli_out_writable(bin_path));
}

static int streamed_open(streamed *st)
{
    cli_log *log = &st->w->j->log;
    for (int i = 0; i < 2 && st->path[i]; i++)
        if (output_allowed(st->w, st->path[i]) != 0) return -1;
    for (int i = 0; i < 2 && st->path[i]; i++) {
        char *dir = cli_dirname(st->path[i]);
        int e = cli_is_dir(dir) ? 0 : cli_mkdirs(dir);
        free(dir);
        if (!e) e = cli_out_open(&st->out[i], st->path[i]);
        if (e) {
            cli_errorf(log, st->path[i], "cannot write: %s", strerror(e));
            return -1;
        }
    }
    return 0;
}

static int streamed_sink(void *user, uint32_t part, uint64_t offset, const void *data, size_t size)
{
    streamed *st = user;
    if (st->failed) return 1;
    if (!st->opened) {
        st->opened = 1;
        if (streamed_open(st) != 0) {
            st->failed = 1;
            return 1;
        }
    }
    int e = part < 2 && st->path[part] ? cli_out_write_at(&st->out[part], offset, data, size) : EINVAL;
    if (e) {
        cli_errorf(&st->w->j->log, st->path[part < 2 ? part : 0], "cannot write: %s", strerror(e));
        st->failed = 1;
    }
    return e != 0;
}

/* After the export (`code`): the files renamed into place (the .bin before its .gltf), or
 * removed; 0 or -1 (reported). */
static int streamed_end(streamed *st, ganim_code code, const ganim_error *err)
{
    cli_log *log = &st->w->j->log;
    int rc = code == GANIM_OK && !st->failed ? 0 : -1;
    if (rc && !st->failed) cli_error(log, st->w->j->input, err);
    for (int k = 0; k < 2; k++) {
        int i = st->path[1] ? 1 - k : k; /* the .bin first */
        if (!st->path[i] || !st->out[i].tmp) continue;
        if (rc) {
            cli_out_abort(&st->out[i]);
            continue;
        }
        uint64_t size = st->out[i].size;
        int e = cli_out_commit(&st->out[i]);
        if (e) {
            cli_errorf(log, st->path[i], "cannot write: %s", strerror(e));
            rc = -1;
        } else if (st->w->s->verbose) {
            cli_notef(log, st->w->j->input, "wrote %s (%llu bytes)", st->path[i], (unsigned long long)size);
        }
    }
    return rc;
}

/* glTF, BVH or the JSON dump of the document (--clip: one clip). */
static int export_doc(work *w, const ganim_doc *doc, out_kind kind, long clip)
{
    settings *s = w->s;
    job *j = w->j;
    cli_log *log = &j->log;
    ganim_error err = { 0 };
    /* Exports: unnamed clips (Alamo) take the input's name, so the animation in the
     * glTF says where it came from. The dump stays exactly what the file holds. */
    char *stem = cli_stem(cli_input_name(j->input));
    export_log elog = { log, j->input, s->quiet };
    ganim_export_opts eo = { 0 };
    eo.default_clip_name = stem;
    eo.warn = export_warning;
    eo.warn_user = &elog;
    eo.keep_axes = s->keep_axes;
    eo.unit_scale = s->scale;
    eo.bvh_order = s->bvh_order;
    eo.bvh_joint_positions = s->bvh_joint_positions;
    eo.sparse_keys = s->sparse_keys;
    eo.unscaled_rest = s->unscaled_rest;
    if (clip >= 0) {
        eo.only_clip = (uint32_t)clip + 1;
    }
    int rc = -1;
    ganim_buffer out = { 0 }, bin = { 0 };
    switch (kind) {
    case KIND_GLB:
        if (can_stream(j->output, NULL)) { /* written as it is made: never held */
            streamed st = { w, { j->output, NULL }, { { 0 } }, 0, 0 };
            rc = streamed_end(&st, ganim_export_glb_stream(doc, &eo, streamed_sink, &st, &err), &err);
            break;
        }
        /* standard output, a device: from its head and its binary chunk, one after the other */
        if (ganim_export_glb_parts(doc, &eo, &out, &bin, &err) != GANIM_OK) {
            cli_error(log, j->input, &err);
        } else if (output_allowed(w, j->output) == 0) {
            cli_part parts[2] = { { out.data, out.size }, { bin.data, bin.size } };
            rc = put_parts(w, j->output, parts, 2);
        }
        break;
    case KIND_JSON:
        if (ganim_export_json(doc, &eo, &out, &err) != GANIM_OK) cli_error(log, j->input, &err);
        else rc = write_output(w, j->output, &out);
        break;
    case KIND_GLTF: {
        char *bin_path = sibling(j->output, ".bin");
        eo.bin_uri = cli_basename(bin_path); /* the exporter percent-encodes it */
        /* both files allowed before either is written (in.gltf -o in.gltf leaves no in.bin) */
        if (can_stream(j->output, bin_path)) {
            streamed st = { w, { j->output, bin_path }, { { 0 } }, 0, 0 };
            rc = streamed_end(&st, ganim_export_gltf_stream(doc, &eo, streamed_sink, &st, &err), &err);
        } else if (ganim_export_gltf(doc, &eo, &out, &bin, &err) != GANIM_OK) cli_error(log, j->input, &err);
        else if (output_allowed(w, j->output) == 0 && output_allowed(w, bin_path) == 0 &&
                 put_output(w, bin_path, &bin) == 0)
            rc = put_output(w, j->output, &out);
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

/* The first WAD an archive's directory lists (its details), or NULL. */
static char *first_wad(const ganim_doc *doc)
{
    ganim_details *d = NULL;
    char *name = NULL;
    if (ganim_doc_details(doc, -1, GANIM_DETAILS_SUMMARY, NULL, &d, NULL) != GANIM_OK) return NULL;
    for (uint32_t i = 0; d->root && i < d->root->count && !name; i++) {
        const ganim_detail *l = &d->root->items[i];
        if (l->type != GANIM_DETAIL_LIST || !l->key || strcmp(l->key, "entries") != 0) continue;
        for (uint32_t k = 0; k < l->count && !name; k++) {
            const char *n = NULL;
            int wad = 0;
            for (uint32_t m = 0; m < l->items[k].count; m++) {
                const ganim_detail *f = &l->items[k].items[m];
                if (f->key && !strcmp(f->key, "name") && f->type == GANIM_DETAIL_STRING) n = f->value.s;
                if (f->key && !strcmp(f->key, "wad") && f->type == GANIM_DETAIL_BOOL) wad = f->value.b;
            }
            if (n && wad) name = cli_xstrdup(n);
        }
    }
    ganim_details_free(d);
    return name;
}

/* An export of a document with no skeleton, animation or mesh would be an empty file:
 * refused, saying what to read instead (an archive's directory: a level inside it). */
static int nothing_to_export(work *w, const ganim_doc *doc)
{
    for (uint32_t i = 0; i < doc->clip_count; i++)
        if (doc->clips[i].kind == GANIM_CLIP_ANIMATION) return 0;
    if ((doc->skeleton && doc->skeleton->bone_count) || doc->mesh_count) return 0;
    job *j = w->j;
    if (doc->format && !strcmp(doc->format->name, "argonaut-dir")) {
        char *wad = first_wad(doc);
        cli_errorf(&j->log, j->input,
                   "this archive directory lists the files of its .DAT and holds no animation to export; "
                   "name a level inside it: %s:%s (ganim info %s lists them)",
                   j->input, wad ? wad : "NAME.WAD", j->input);
        free(wad);
    } else {
        cli_errorf(&j->log, j->input, "the file holds no skeleton, animation or mesh to export; nothing written");
    }
    return 1;
}

static int convert_doc(work *w, ganim_doc *doc)
{
    settings *s = w->s;
    job *j = w->j;
    cli_log *log = &j->log;
    ganim_error err = { 0 };
    out_kind kind = s->kind;
    const ganim_format *format = s->format;

    if (kind == KIND_NATIVE) {
        if (!doc->format || !(doc->format->flags & GANIM_FORMAT_WRITE)) {
            cli_errorf(log, j->input,
                       "cannot tell what to write from the name %s: add --to "
                       "(glb, gltf, bvh, json or a writable format, see ganim formats)",
                       j->output);
            return -1;
        }
        kind = KIND_FORMAT;
        format = doc->format;
    }
    long clip = resolve_clip(s->clip, doc, log, j->input);
    if (clip == -3) return -1;
    if (clip >= 0 && (kind != KIND_FORMAT || s->into) && doc->clips[clip].kind != GANIM_CLIP_ANIMATION) {
        cli_errorf(log, j->input, "clip %ld is an opaque slot, not an animation", clip);
        return -1;
    }
    if (kind == KIND_FORMAT) {
        if (clip >= 0 && !s->into) {
            cli_errorf(log, j->input, "--clip selects clips for exports; %s is written whole", format->name);
            return -1;
        }
        if (s->export_only) {
            cli_errorf(log, j->input, "%s applies to exports (glb, gltf, bvh, json), not to %s", s->export_only,
                       format->name);
            return -1;
        }
        cli_str why = { 0 };
        if (cli_settings_misplaced(&s->settings, s->load.format, format, 0, format->name, &why)) {
            cli_errorf(log, j->input, "%s", why.s);
            cli_str_free(&why);
            return -1;
        }
    }

    if (kind != KIND_FORMAT && kind != KIND_JSON && nothing_to_export(w, doc)) return -1;
    if (s->resample > 1 && ganim_doc_resample(doc, s->resample, &err) != GANIM_OK) {
        cli_error(log, j->input, &err);
        return -1;
    }
    if (s->has_fps)
        for (uint32_t i = 0; i < doc->clip_count; i++)
            if (doc->clips[i].kind == GANIM_CLIP_ANIMATION) doc->clips[i].fps = s->fps;

    return kind == KIND_FORMAT ? write_format(w, doc, format, clip) : export_doc(w, doc, kind, clip);
}

static int run_job(settings *s, size_t index)
{
    job *j = &s->jobs[index];
    cli_loaded l;
    const folder_list *f = j->folder ? &s->folders[j->folder - 1] : NULL;
    if (cli_load_listed(j->input, &s->load, f ? (const char *const *)f->names : NULL, f ? f->count : 0, &l, &j->log) !=
        0)
        return -1;
    work w = { s, index, j, l.doc };
    if (s->verbose) {
        cli_str note = { 0 };
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

void *convert_worker(void *arg)
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
