/* Reading documents: the probe picks a format (or the caller names one), the format's
 * reader fills a new document, and the result is validated before the caller sees it.
 * Reading a file also finds its companion skeleton by the format's rule and falls back
 * to the format of the file's extension when nothing recognises the bytes. */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "formats/format.h"
#include "formats/read_files.h"
#include "io/fs.h"

/* Warnings to put first on the document (what happened before the reader ran). */
typedef struct pending {
    ganim_warning_code code;
    char message[768];
} pending;

/* `lend`: the buffer holding `data` when the read may keep it (a file loaded for this
 * read; ganim_doc_keep_input), else NULL (then the caller's bytes are kept as they are
 * when opts->input_outlives_doc says they outlive the document, else copied). */
/* `probed`: the format ganim_probe found for these bytes (its score `probed_score`) when
 * the caller already asked it and opts->format names none (NULL: read_bytes probes). */
static ganim_code read_bytes(const void *data, size_t size, ganim_buffer *lend, const ganim_read_opts *opts,
                             const ganim_format *probed, int probed_score, const pending *notes, int note_count,
                             ganim_doc **out, ganim_error *err)
{
    *out = NULL;
    ganim_error_clear(err);
    const ganim_format *fmt;
    int score = -1; /* the probe's score of fmt when known */
    if (!opts->format && probed) {
        fmt = probed;
        score = probed_score;
    } else if (opts->format) {
        fmt = ganim_format_find(opts->format);
        if (!fmt) {
            return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                              "unknown format name '%s' (see 'ganim formats')", opts->format);
        }
    } else {
        fmt = ganim_probe(data, size, &score); /* the best score is fmt's (ganim_format_probe) */
        if (!fmt) {
            return ganim_fail(err, GANIM_ERR_UNKNOWN_FORMAT, 0,
                              "not a file ganim recognises (%zu bytes; see 'ganim formats')", size);
        }
    }
    if (!fmt->impl || !fmt->impl->read)
        return ganim_fail(err, GANIM_ERR_UNSUPPORTED, GANIM_NO_OFFSET, "%s: reading is not supported", fmt->name);
    ganim_code code = ganim_settings_check(fmt, opts->settings, opts->setting_count, GANIM_OPTION_READ, err);
    if (code != GANIM_OK) return code;
    ganim_limits lim = ganim_limits_resolve(&opts->limits);
    if (size > lim.input_bytes)
        return ganim_fail(err, GANIM_ERR_LIMIT, GANIM_NO_OFFSET,
                          "the input has %zu bytes, more than the input limit of %llu bytes (ganim_limits.input_bytes)",
                          size, (unsigned long long)lim.input_bytes);
    ganim_doc *doc = fmt->impl->sized_for_input ? ganim_doc_create_for_input(&opts->allocator, opts->memory_limit, size)
                                                : ganim_doc_create(&opts->allocator, opts->memory_limit);
    if (!doc) return GANIM_NOMEM(err);
    ganim_doc_put_limits(doc, &lim);
    doc->format = fmt;
    doc->probe_score = score >= 0 ? score : ganim_format_probe(fmt, data, size);
    for (int i = 0; i < note_count; i++) ganim_doc_warn(doc, notes[i].code, GANIM_NO_OFFSET, "%s", notes[i].message);
    static const uint8_t empty[1];
    if (lend) ganim_doc_lend_input(doc, lend);
    else if (opts->input_outlives_doc) ganim_doc_borrow_input(doc, data, size);
    code = fmt->impl->read(doc, size ? (const uint8_t *)data : empty, size, opts, err);
    if (code == GANIM_OK) code = ganim_doc_validate(doc, err);
    ganim_doc_vouch_end(doc); /* a reader's vouch covers this validation only */
    if (code != GANIM_OK) {
        if (err && err->code == GANIM_OK) {
            ganim_fail(err, code, GANIM_NO_OFFSET, "%s: %s", fmt->name, ganim_code_name(code));
        }
        ganim_doc_free(doc);
        return code;
    }
    if (opts->skeleton && opts->skeleton_must_fit) {
        uint32_t misfits = 0;
        const ganim_warning *first = NULL;
        for (uint32_t i = 0; i < doc->warning_count; i++)
            if (doc->warnings[i].code == GANIM_WARN_SKELETON && !misfits++) first = &doc->warnings[i];
        if (misfits) {
            code = ganim_fail(err, GANIM_ERR_MISMATCH, first->offset, "the skeleton does not fit: %.400s%s",
                              first->message, misfits > 1 ? " (and more like it)" : "");
            ganim_doc_free(doc);
            return code;
        }
    }
    if (opts->up != GANIM_UP_AS_READ) doc->axes = (ganim_axes)(opts->up - 1);
    ganim_doc_lend_end(doc, 1); /* a kept buffer is the document's now (a failed read never takes it) */
    *out = doc;
    return GANIM_OK;
}

ganim_code ganim_read_memory(const void *data, size_t size, const ganim_read_opts *opts, ganim_doc **out,
                             ganim_error *err)
{
    static const ganim_read_opts defaults;
    if (!opts) opts = &defaults;
    if (!out || (!data && size)) {
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ganim_read_memory: no data or no output");
    }
    return read_bytes(data, size, NULL, opts, NULL, 0, NULL, 0, out, err);
}

/* The companion skeleton of `path` for `fmt`, read into *companion (NULL when there is
 * none or it cannot be used; then a note says why). */
static void read_companion(const char *path, const ganim_format *fmt, const ganim_read_opts *opts, char *cpath,
                           size_t csize, ganim_doc **companion, pending *note, int *notes)
{
    *companion = NULL;
    if (!fmt || !fmt->impl || !fmt->impl->companion) return;
    if (opts->folder_names
            ? !ganim_find_companion_in(path, fmt, opts->folder_names, opts->folder_name_count, cpath, csize)
            : !ganim_find_companion(path, fmt, cpath, csize))
        return;
    ganim_read_opts co;
    memset(&co, 0, sizeof co);
    co.allocator = opts->allocator;
    co.memory_limit = opts->memory_limit;
    co.limits = opts->limits;
    co.companion = GANIM_COMPANION_NONE;
    ganim_error cerr;
    ganim_error_clear(&cerr);
    ganim_doc *c = NULL;
    if (ganim_read_file(cpath, &co, &c, &cerr) != GANIM_OK) {
        note->code = GANIM_WARN_COMPANION;
        snprintf(note->message, sizeof note->message,
                 "companion skeleton %.300s could not be read (%.400s); reading without it", cpath, cerr.message);
        (*notes)++;
    } else if (!c->skeleton) {
        note->code = GANIM_WARN_COMPANION;
        snprintf(note->message, sizeof note->message, "companion %.300s holds no skeleton; reading without it", cpath);
        (*notes)++;
        ganim_doc_free(c);
    } else {
        *companion = c;
    }
}

/* Reads the bytes of a file (or of an archive member): the format by name, probe or the
 * extension of `name_path`; the companion from the folder of `companion_path` (NULL: none). */
static ganim_code read_loaded(ganim_buffer *buf, const char *name_path, const char *companion_path, ganim_read_opts o,
                              const ganim_read_opts *opts, used_files *used, ganim_doc **out, ganim_error *err)
{
    int score = 0;
    const ganim_format *fmt = o.format ? ganim_format_find(o.format) : ganim_probe(buf->data, buf->size, &score);
    if (!o.format && fmt && score < GANIM_PROBE_CERTAIN) {
        /* Two formats without a magic number may both take the bytes (an FF7 pack and
         * an Argonaut animation block are both counts and records): the file's name
         * decides between them when its extension's format recognises the bytes too. */
        const ganim_format *named = ganim_format_for_path(name_path);
        if (named && named != fmt && ganim_format_probe(named, buf->data, buf->size) > 0) {
            fmt = named;
            o.format = fmt->name;
        }
    }
    if (!o.format && !fmt) {
        /* Nothing recognises the bytes: a damaged file of a known kind gets its own
         * reader's precise error rather than "unknown format". */
        fmt = ganim_format_for_path(name_path);
        if (fmt) o.format = fmt->name;
    }
    pending notes[2];
    int note_count = 0;
    char cpath[4096];
    ganim_doc *companion = NULL;
    if (companion_path && !o.skeleton && o.companion == GANIM_COMPANION_FIND) {
        read_companion(companion_path, fmt, opts, cpath, sizeof cpath, &companion, &notes[0], &note_count);
        if (companion) o.skeleton = companion->skeleton;
    }
    const ganim_format *probed = o.format ? NULL : fmt; /* found by the probe above */
    ganim_code code = read_bytes(buf->data, buf->size, buf, &o, probed, score, notes, note_count, out, err);
    if (code == GANIM_ERR_MISMATCH && companion) {
        /* A guessed companion that does not fit is not the caller's fault. */
        notes[note_count].code = GANIM_WARN_COMPANION;
        snprintf(notes[note_count].message, sizeof notes[note_count].message,
                 "companion %.300s does not fit (%.400s); reading without it", cpath, err ? err->message : "mismatch");
        note_count++;
        ganim_doc_free(companion);
        companion = NULL;
        o.skeleton = NULL;
        code = read_bytes(buf->data, buf->size, buf, &o, probed, score, notes, note_count, out, err);
    }
    if (code == GANIM_OK && companion && !((*out)->skeleton_file = ganim_doc_strdup(*out, cpath))) {
        ganim_doc_free(*out);
        *out = NULL;
        code = GANIM_NOMEM(err);
    }
    if (code == GANIM_OK && companion) ganim_used_add(used, cpath);
    ganim_doc_free(companion);
    return code;
}

/* ARCHIVE:MEMBER when `path` itself cannot be opened: the archive's format extracts the
 * member, which is then read as a file of that name (its companion is not looked for).
 * Returns `code` (the failure to open `path`) when `path` names no such archive. */
static ganim_code read_member(const char *path, const ganim_read_opts *opts, ganim_doc **out, ganim_code code,
                              ganim_error *err)
{
    const char *colon = strrchr(path, ':');
    if (!colon || colon == path || !colon[1] || strlen(path) >= 4096) return code;
    char archive[4096];
    memcpy(archive, path, (size_t)(colon - path));
    archive[colon - path] = 0;
    const char *member = colon + 1;
    ganim_buffer abuf = { 0 };
    ganim_error aerr;
    ganim_error_clear(&aerr);
    if (ganim_fs_is_dir(archive) ||
        ganim_load_file(archive, &opts->allocator, opts->limits.input_bytes, &abuf, &aerr) != GANIM_OK)
        return code; /* no archive there either: the first error stands */
    const ganim_format *fmt = ganim_probe(abuf.data, abuf.size, NULL);
    if (!fmt || !fmt->impl || !fmt->impl->member) fmt = ganim_format_for_path(archive);
    if (!fmt || !fmt->impl || !fmt->impl->member) {
        ganim_buffer_free(&abuf);
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET,
                          "no file '%.300s', and '%.300s' is not an archive ganim can take '%.100s' from", path,
                          archive, member);
    }
    ganim_read_opts o = *opts;
    folder_loader folder;
    used_files used;
    ganim_used_init(&used, &opts->allocator);
    ganim_used_add(&used, archive);
    o.name = ganim_path_base(archive);
    ganim_folder_loader_set(archive, opts, &folder, &o, &used);
    ganim_buffer mbuf = { 0 };
    ganim_error_clear(err);
    code = fmt->impl->member(abuf.data, abuf.size, member, &o, &mbuf, err);
    ganim_buffer_free(&abuf);
    if (code != GANIM_OK) {
        ganim_buffer_free(&mbuf);
        if (err && err->code == GANIM_OK)
            ganim_fail(err, code, GANIM_NO_OFFSET, "%s: cannot take '%.200s' out of the archive", fmt->name, member);
        return ganim_used_attach(&used, code, out, err);
    }
    o.name = member;
    code = read_loaded(&mbuf, member, NULL, o, opts, &used, out, err);
    ganim_buffer_free(&mbuf);
    return ganim_used_attach(&used, code, out, err);
}

ganim_code ganim_read_file(const char *path, const ganim_read_opts *opts, ganim_doc **out, ganim_error *err)
{
    static const ganim_read_opts defaults;
    if (!opts) opts = &defaults;
    if (!path || !out)
        return ganim_fail(err, GANIM_ERR_INVALID_ARG, GANIM_NO_OFFSET, "ganim_read_file: no path or no output");
    *out = NULL;
    if (ganim_fs_is_dir(path)) return ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "is a directory");
    ganim_buffer buf = { 0 };
    ganim_code code = ganim_load_file(path, &opts->allocator, opts->limits.input_bytes, &buf, err);
    if (code == GANIM_ERR_IO) return read_member(path, opts, out, code, err);
    if (code != GANIM_OK) return code;
    ganim_read_opts o = *opts;
    folder_loader folder;
    used_files used;
    ganim_used_init(&used, &opts->allocator);
    if (!o.name) o.name = ganim_path_base(path);
    ganim_folder_loader_set(path, opts, &folder, &o, &used);
    code = read_loaded(&buf, path, path, o, opts, &used, out, err);
    ganim_buffer_free(&buf);
    return ganim_used_attach(&used, code, out, err);
}
