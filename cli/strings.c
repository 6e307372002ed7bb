/* Memory and strings for the CLI: allocations that exit when memory runs out, growable
 * strings, names compared without case and sorted, text made safe for a terminal or a
 * file name. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* ---- memory ---------------------------------------------------------------------- */

static void out_of_memory(void)
{
    static const char msg[] = "ganim: out of memory\n";
    fwrite(msg, 1, sizeof msg - 1, stderr); /* stderr is unbuffered: nothing to allocate */
    exit(CLI_EXIT_FAILED);
}

void *cli_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) out_of_memory();
    return p;
}

void *cli_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) out_of_memory();
    return q;
}

char *cli_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(cli_xmalloc(n), s, n);
}

/* ---- names ----------------------------------------------------------------------- */

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

int cli_strncaseeq(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i])) return 0;
        if (!a[i]) return 1;
    }
    return 1;
}

int cli_strcaseeq(const char *a, const char *b) { return strlen(a) == strlen(b) && cli_strncaseeq(a, b, strlen(a)); }

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void cli_sort_names(char **names, size_t count)
{
    if (count) qsort(names, count, sizeof *names, compare_names);
}

void cli_free_list(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
}

/* ---- growable strings ------------------------------------------------------------ */

static void reserve(cli_str *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) cap *= 2;
    b->s = cli_xrealloc(b->s, cap);
    b->cap = cap;
}

void cli_str_append(cli_str *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void cli_str_puts(cli_str *b, const char *s) { cli_str_append(b, s, strlen(s)); }

void cli_str_vprintf(cli_str *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return;
    reserve(b, (size_t)n);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void cli_str_printf(cli_str *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_str_vprintf(b, fmt, ap);
    va_end(ap);
}

void cli_str_printable(cli_str *b, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) cli_str_printf(b, "\\x%02x", *p);
        else cli_str_append(b, (const char *)p, 1);
    }
}

void cli_str_free(cli_str *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

char *cli_file_component(const char *name)
{
    cli_str b = { 0 };
    cli_str_puts(&b, "");
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        int c = *p;
        if (b.len >= 100 && (c & 0xC0) != 0x80) break; /* whole UTF-8 characters */
        int bad = c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':' || c == '*' || c == '?' || c == '"' ||
                  c == '<' || c == '>' || c == '|';
        cli_str_append(&b, bad ? "_" : (const char *)p, 1);
    }
    if (b.s[0] == '.') b.s[0] = '_'; /* no hidden files, no ".." */
    return b.s;
}
