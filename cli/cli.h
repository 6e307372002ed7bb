/* The ganim command-line tool: what the command files share.
 * The CLI uses pthreads (winpthreads on Windows) and, in os.c alone, the system's calls
 * (POSIX or Windows); the library (include/ganim.h) uses neither.
 * This header must be the first include of every CLI source file (it sets the POSIX level). */
#ifndef GANIM_CLI_H
#define GANIM_CLI_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath */
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ganim.h"

#if defined(__MINGW32__) /* MinGW's C99 printf (__USE_MINGW_ANSI_STDIO) */
#define CLI_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define CLI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLI_PRINTF(a, b)
#endif

/* Exit statuses: every input fine / some input failed / the command line is wrong. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_FAILED = 1, CLI_EXIT_USAGE = 2 };

/* ---- commands (cmd_*.c) ---------------------------------------------------------- */
typedef struct cli_command {
    const char *name;
    const char *summary;               /* one line for `ganim --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    void (*help)(FILE *out);
} cli_command;

int cmd_info(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_formats(int argc, char **argv);
void help_info(FILE *out);
void help_convert(FILE *out);
void help_dump(FILE *out);
void help_formats(FILE *out);

/* ---- option parsing (args.c) ----------------------------------------------------- */
typedef struct cli_option {
    const char *long_name; /* without "--", or NULL */
    char short_name;       /* or 0 */
    int has_value;
    int id; /* > 0 */
} cli_option;

typedef struct cli_args {
    const char *cmd; /* for messages: "convert" */
    int argc;
    char **argv;
    int index;           /* next argv element */
    int cluster;         /* position inside a "-abc" cluster, 0 if none */
    int only_positional; /* after "--" */
} cli_args;

#define CLI_ARG_END 0 /* no more arguments */
#define CLI_ARG_POSITIONAL (-1)
#define CLI_ARG_ERROR (-2) /* a usage message was printed */

/* Next option id, CLI_ARG_POSITIONAL (value = the argument), CLI_ARG_END, or
 * CLI_ARG_ERROR. "--name=value", "--name value", "-x value", "-xvalue", "-qr" work. */
int cli_next(cli_args *a, const cli_option *opts, const char **value);
/* Prints "ganim: CMD: message" and the --help hint; returns CLI_EXIT_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Strict number parsing: the whole string, within range. 0 on success. */
int cli_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out);
int cli_parse_double(const char *s, double *out); /* finite */

/* ---- format options (settings.c) --------------------------------------------------- */
struct cli_str;
typedef struct cli_settings {
    ganim_setting *list; /* names point into the library's option tables, values
                                   into argv */
    size_t count;
} cli_settings;

/* `base` (ended by a zero entry) plus one entry --ALIAS VALUE per format option with an
 * alias, with ids alias_base + k (k counts every option of every format in registry
 * order), and one per deprecated alias, with ids alias_base + N + k (N: every option).
 * An alias equal to an option of `base` or to an earlier alias is a broken registry: the
 * tool says so and exits. malloc'd. */
cli_option *cli_options_with_aliases(const cli_option *base, int alias_base);
/* -O NAME=VALUE; --ALIAS VALUE (k as above; a deprecated alias adds a note on stderr
 * naming the new spelling). Checked against the option tables: a usage message and
 * CLI_EXIT_USAGE when wrong, else 0. */
int cli_settings_add(cli_settings *s, const char *cmd, const char *spec);
int cli_settings_add_alias(cli_settings *s, const char *cmd, int index, const char *value);
/* Is any setting an option that applies to reading / writing (GANIM_OPTION_*)? */
int cli_settings_has(const cli_settings *s, uint32_t applies);
/* The settings that are `format`'s writer options, into `out` (room for s->count):
 * their number. Reader options are the reader's business, whatever is written. */
size_t cli_settings_for_writer(const cli_settings *s, const ganim_format *format, ganim_setting *out);
/* Is a setting an option of neither side of a convert (reading: any format, or `reader`
 * when the inputs are read as one; writing: `writer`'s options, none when `exports`, any
 * when `writer` is NULL: the input's own format)? 1 and a sentence in `why` naming the
 * side the option belongs to (`writes`: what the command writes, in words); else 0. */
int cli_settings_misplaced(const cli_settings *s, const ganim_format *reader, const ganim_format *writer, int exports,
                           const char *writes, struct cli_str *why);
/* The first setting that only applies to writing, or NULL (info and dump only read). */
const char *cli_settings_writer_only(const cli_settings *s);
void cli_settings_free(cli_settings *s);
/* For the help texts: how each format finds its companion skeleton, and every format
 * option (-O NAME=VALUE and its alias), from the registry. */
void cli_help_formats(FILE *out);

/* ---- memory and strings (strings.c) ---------------------------------------------- */
typedef struct cli_str {
    char *s; /* always NUL-terminated once anything was appended */
    size_t len;
    size_t cap;
} cli_str;

void cli_str_append(cli_str *b, const char *s, size_t n);
void cli_str_puts(cli_str *b, const char *s);
void cli_str_printf(cli_str *b, const char *fmt, ...) CLI_PRINTF(2, 3);
void cli_str_vprintf(cli_str *b, const char *fmt, va_list ap);
/* Text from a file (names, messages) made safe for a terminal: control bytes become
 * "\xNN", so a hostile name cannot move the cursor or hide itself. */
void cli_str_printable(cli_str *b, const char *s);
void cli_str_free(cli_str *b);
/* A clip name made safe as part of a file name. */
char *cli_file_component(const char *name);

void *cli_xmalloc(size_t n); /* exits with a message when memory runs out */
void *cli_xrealloc(void *p, size_t n);
char *cli_xstrdup(const char *s);
int cli_strcaseeq(const char *a, const char *b);
int cli_strncaseeq(const char *a, const char *b, size_t n);
/* Sorts names bytewise, in place. */
void cli_sort_names(char **names, size_t count);
void cli_free_list(char **names, size_t count);

/* ---- paths as text (paths.c) -------------------------------------------------------- */
/* A path separator: '/', and on Windows '\' too. */
int cli_is_sep(int c);
/* The length of the root a path starts with: "/" (1); on Windows also "C:\" (3),
 * "C:" (2) and "\\server\share\"; 0 for a relative path. */
size_t cli_root_len(const char *path);
const char *cli_basename(const char *path);  /* points into path */
const char *cli_extension(const char *path); /* ".ext", or "" (points into path) */
char *cli_stem(const char *path);            /* base name without its extension */
char *cli_dirname(const char *path);         /* "." when none */
char *cli_join(const char *dir, const char *name);

/* ---- files (files.c, on os.c's calls) ------------------------------------------------ */
/* An input's name for naming outputs: MEMBER for ARCHIVE:MEMBER (a path that does not
 * exist, whose part before the last ':' is a file), else the path. Points into path. */
const char *cli_input_name(const char *path);
int cli_is_dir(const char *path);
int cli_exists(const char *path);
int cli_mkdirs(const char *path); /* mkdir -p; 0 or errno */

/* ---- the operating system (os.c, the only file with system calls) ------------------ */
/* Windows: the arguments as UTF-8 (from the UTF-16 command line), standard streams in
 * binary mode, UTF-8 on the console. Elsewhere nothing. Every path the tool handles is
 * UTF-8; os.c turns it to UTF-16 for Windows' calls. */
void cli_os_init(int *argc, char ***argv);
double cli_now(void); /* monotonic seconds */
unsigned cli_processors(void);
/* For a batch: memory a job frees stays in the process for the next job instead of going
 * back to the system, which would hand it back as fresh pages, each paid for with a page
 * fault (on glibc; elsewhere nothing). The most memory the batch holds is then the most
 * one job needs (per worker), not more. */
void cli_batch_memory(void);
/* Is stderr a terminal that shows the progress bar (and its escape sequences)? */
int cli_stderr_is_terminal(void);
/* Writes to stderr as it is, unbuffered (what cli_stderr_write and the bar use). */
void cli_stderr_raw(const char *s, size_t n);
typedef enum cli_kind { CLI_NONE, CLI_FILE, CLI_DIR, CLI_LINK, CLI_OTHER } cli_kind;
typedef struct cli_file_info {
    cli_kind kind; /* CLI_LINK only when not following links; CLI_OTHER: a device, FIFO,
                      socket (NUL, CON or a pipe on Windows) */
    uint64_t size;
    uint64_t dev, ino; /* the file's identity (Windows: volume serial, file index) */
} cli_file_info;
/* stat (follow) or lstat: 0, or errno with kind CLI_NONE. */
int cli_info(const char *path, int follow, cli_file_info *out);
int cli_mkdir(const char *path); /* 0 or errno (EEXIST when something is there) */
/* Sorted entry names of a directory (no "." / ".."); 0 or errno. */
int cli_list_dir(const char *dir, char ***names, size_t *count);
/* Standard input, whole (at most GANIM_DEFAULT_INPUT_BYTES). */
ganim_code cli_read_stdin_bytes(ganim_buffer *out, ganim_error *err);
/* Writes an output. A regular file (new or not) is written through a temporary file
 * renamed into place, so a failed run never leaves a half-written output; a link to a
 * regular file keeps the link and replaces the file it points at; a device, FIFO or
 * socket (or a link to one) is written through, never replaced; "-" is standard output.
 * 0 or errno (ENOENT for a dangling link, EISDIR for a folder). */
int cli_write_file(const char *path, const void *data, size_t size);
/* The same, of parts written one after the other (a .glb's head and binary chunk). */
typedef struct cli_part {
    const void *data;
    size_t size;
} cli_part;
int cli_write_parts(const char *path, const cli_part *parts, size_t count);
/* An output written in pieces at their offsets (ganim_export_glb_stream's bytes come out
 * of order), into a temporary file beside it that cli_out_commit renames into place, as
 * cli_write_file does; a link to a regular file keeps the link. cli_out_open: 0, or
 * errno (ENOTSUP for standard output and for what is written through: a device, FIFO
 * or socket, which the caller writes whole with cli_write_parts instead). */
typedef struct cli_out {
    intptr_t handle; /* the temporary file (a descriptor; a HANDLE on Windows) */
    char *tmp;       /* its name */
    char *path;      /* the file it replaces */
    uint64_t size;   /* the end of the last byte written */
} cli_out;
int cli_out_writable(const char *path); /* 1: cli_out_open would take it, 0: ENOTSUP */
int cli_out_open(cli_out *o, const char *path);
int cli_out_write_at(cli_out *o, uint64_t offset, const void *data, size_t size); /* 0 or errno */
int cli_out_commit(cli_out *o); /* closes and renames (removed when it fails); 0 or errno */
void cli_out_abort(cli_out *o); /* closes and removes the temporary file */

/* ---- diagnostics (progress.c) ---------------------------------------------------- */
/* Messages go through a log: NULL writes at once; a job's log is written in one piece
 * when the job ends, so parallel jobs never interleave their lines. */
typedef struct cli_log {
    cli_str text;
} cli_log;

/* "ganim: FILE: message (at byte 0x1a2b)" */
void cli_error(cli_log *log, const char *file, const ganim_error *err);
void cli_errorf(cli_log *log, const char *file, const char *fmt, ...) CLI_PRINTF(3, 4);
/* "ganim: FILE: warning: message (at byte 0x1a2b)" */
void cli_warning(cli_log *log, const char *file, const char *message, uint64_t offset);
void cli_warningf(cli_log *log, const char *file, const char *fmt, ...) CLI_PRINTF(3, 4);
/* "ganim: FILE: message" (informational, verbose output) */
void cli_notef(cli_log *log, const char *file, const char *fmt, ...) CLI_PRINTF(3, 4);
void cli_log_flush(cli_log *log);
/* Every document warning in the standard form (and how many were dropped). */
void cli_doc_warnings(cli_log *log, const char *file, const ganim_doc *doc);

/* A progress bar on stderr, only when stderr is a terminal. Thread-safe; messages
 * written meanwhile clear the bar first and redraw it after. */
void cli_progress_start(size_t total, int enabled);
void cli_progress_step(const char *name, int failed);
void cli_progress_end(void);
/* Writes text to stderr as one piece (locked, progress-aware). */
void cli_stderr_write(const char *text, size_t len);

/* ---- details (details_text.c) ------------------------------------------------------- */
/* The items of a details root (a GROUP) as indented "label: value" lines; items whose
 * line is the same as one of `except`'s (the document's, when these are a clip's; may
 * be NULL) are left out. */
void cli_details_text(cli_str *b, const ganim_detail *root, const ganim_detail *except, const char *indent);

/* ---- loading documents (load.c) --------------------------------------------------- */
typedef struct cli_load_opts {
    const ganim_format *format;     /* --format, or NULL: probe */
    const ganim_skeleton *skeleton; /* --skeleton, or NULL */
    int find_companion;             /* look for the companion skeleton next to the input */
    int up;                         /* --up: a ganim_up (0: the file's own axes) */
    const cli_settings *settings;   /* -O reader options, or NULL */
    double fps;                     /* --fps: the rate formats that store times put keys on (0: theirs) */
} cli_load_opts;

/* "y", "z" or "y-down" (any case) -> a ganim_up; 0 if none of them. */
int cli_parse_up(const char *s);

typedef struct cli_loaded {
    ganim_doc *doc; /* doc->probe_score, doc->skeleton_file say more */
} cli_loaded;

/* Read `path` into `out`; on failure print the error to `log` and return nonzero. */
int cli_load(const char *path, const cli_load_opts *opts, cli_loaded *l, cli_log *log);
/* The same, the companion looked for among the entries of the input's folder listed once
 * for a batch (sorted by bytes; NULL: the read lists the folder). */
int cli_load_listed(const char *path, const cli_load_opts *opts, const char *const *folder_names, size_t count,
                    cli_loaded *l, cli_log *log);
void cli_loaded_free(cli_loaded *l);
/* Standard input, whole ("-" as an input). */
ganim_code cli_read_stdin(ganim_buffer *out, ganim_error *err);
/* Load a --skeleton FILE (prints errors); returns the document holding it or NULL. */
ganim_doc *cli_load_skeleton(const char *path);

#endif
