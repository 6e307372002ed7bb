/* Everything the CLI writes to stderr: diagnostics in the one standard form and the
 * progress bar of batch conversions. One lock serialises them, so lines from parallel
 * jobs never mix and the bar is cleared before a message and redrawn after it. */
#include "cli.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int active;
    size_t total, done, failed;
    double start;
    char name[64];
} bar;

static void put(const char *s, size_t n) { cli_stderr_raw(s, n); }

static void draw(void)
{
    char line[160];
    enum { WIDTH = 30 };
    size_t fill = bar.total ? bar.done * WIDTH / bar.total : 0;
    char cells[WIDTH + 1];
    for (size_t i = 0; i < WIDTH; i++) cells[i] = i < fill ? '#' : '.';
    cells[WIDTH] = 0;
    int n = snprintf(line, sizeof line, "\r\033[K[%s] %zu/%zu", cells, bar.done, bar.total);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (bar.failed) len += (size_t)snprintf(line + len, sizeof line - len, ", %zu failed", bar.failed);
    if (len < sizeof line - 2 && bar.name[0]) len += (size_t)snprintf(line + len, sizeof line - len, "  %s", bar.name);
    if (len >= sizeof line) len = sizeof line - 1;
    put(line, len);
}

static void clear(void) { put("\r\033[K", 4); }

void cli_stderr_write(const char *text, size_t len)
{
    pthread_mutex_lock(&lock);
    if (bar.active) clear();
    put(text, len);
    if (bar.active) draw();
    pthread_mutex_unlock(&lock);
}

void cli_progress_start(size_t total, int enabled)
{
    pthread_mutex_lock(&lock);
    memset(&bar, 0, sizeof bar);
    bar.active = enabled && total > 1 && cli_stderr_is_terminal();
    bar.total = total;
    bar.start = cli_now();
    if (bar.active) draw();
    pthread_mutex_unlock(&lock);
}

void cli_progress_step(const char *name, int failed)
{
    pthread_mutex_lock(&lock);
    bar.done++;
    if (failed) bar.failed++;
    /* Only printable ASCII of the name: a terminal line must not be broken by it. */
    size_t j = 0;
    for (const char *p = cli_basename(name); *p && j < sizeof bar.name - 1; p++)
        bar.name[j++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    bar.name[j] = 0;
    if (bar.active) draw();
    pthread_mutex_unlock(&lock);
}

void cli_progress_end(void)
{
    pthread_mutex_lock(&lock);
    if (bar.active) clear();
    bar.active = 0;
    pthread_mutex_unlock(&lock);
}

/* ---- diagnostics ----------------------------------------------------------------- */

static void emit(cli_log *log, cli_str *line)
{
    if (log) {
        cli_str_append(&log->text, line->s, line->len);
    } else {
        cli_stderr_write(line->s, line->len);
    }
    cli_str_free(line);
}

static void prefix(cli_str *b, const char *file)
{
    cli_str_puts(b, "ganim: ");
    if (file) {
        cli_str_printable(b, file);
        cli_str_puts(b, ": ");
    }
}

static void at(cli_str *b, uint64_t offset)
{
    if (offset != GANIM_NO_OFFSET) cli_str_printf(b, " (at byte 0x%llx)", (unsigned long long)offset);
    cli_str_puts(b, "\n");
}

void cli_error(cli_log *log, const char *file, const ganim_error *err)
{
    cli_str b = { 0 };
    prefix(&b, file);
    if (err->message[0]) cli_str_printable(&b, err->message);
    else cli_str_puts(&b, ganim_code_name(err->code));
    at(&b, err->offset);
    emit(log, &b);
}

/* "ganim: FILE: message" from a format; errors and notes look the same. */
static void vline(cli_log *log, const char *file, const char *fmt, va_list ap)
{
    cli_str b = { 0 }, m = { 0 };
    cli_str_vprintf(&m, fmt, ap);
    prefix(&b, file);
    cli_str_printable(&b, m.s ? m.s : "");
    cli_str_puts(&b, "\n");
    cli_str_free(&m);
    emit(log, &b);
}

void cli_errorf(cli_log *log, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(log, file, fmt, ap);
    va_end(ap);
}

void cli_warning(cli_log *log, const char *file, const char *message, uint64_t offset)
{
    cli_str b = { 0 };
    prefix(&b, file);
    cli_str_puts(&b, "warning: ");
    cli_str_printable(&b, message ? message : "");
    at(&b, offset);
    emit(log, &b);
}

void cli_warningf(cli_log *log, const char *file, const char *fmt, ...)
{
    cli_str m = { 0 };
    va_list ap;
    va_start(ap, fmt);
    cli_str_vprintf(&m, fmt, ap);
    va_end(ap);
    cli_warning(log, file, m.s ? m.s : "", GANIM_NO_OFFSET);
    cli_str_free(&m);
}

void cli_notef(cli_log *log, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(log, file, fmt, ap);
    va_end(ap);
}

void cli_log_flush(cli_log *log)
{
    if (log->text.len) cli_stderr_write(log->text.s, log->text.len);
    cli_str_free(&log->text);
}

void cli_doc_warnings(cli_log *log, const char *file, const ganim_doc *doc)
{
    for (uint32_t i = 0; i < doc->warning_count; i++)
        cli_warning(log, file, doc->warnings[i].message, doc->warnings[i].offset);
    if (doc->warnings_dropped) cli_warningf(log, file, "%u more warnings were not kept", doc->warnings_dropped);
}
