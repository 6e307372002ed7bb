/* Strings, paths and files for the CLI (the system calls are in os.c). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory and strings ---------------------------------------------------------- */

static void out_of_memory(void)
{
    static const char msg[] = "ganim: out of memory\n";
    cli_stderr_raw(msg, sizeof msg - 1);
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

/* ---- paths ----------------------------------------------------------------------- */

const char *cli_basename(const char *path)
{
    const char *base = path + cli_root_len(path);
    for (const char *p = base; *p; p++)
        if (cli_is_sep(*p)) base = p + 1;
    return base;
}

const char *cli_extension(const char *path)
{
    const char *base = cli_basename(path);
    const char *dot = strrchr(base, '.');
    return dot && dot != base ? dot : base + strlen(base);
}

const char *cli_input_name(const char *path)
{
    const char *colon = strrchr(path, ':');
    if (!colon || colon == path || !colon[1] || cli_exists(path)) return path;
    char *archive = cli_xmalloc((size_t)(colon - path) + 1);
    memcpy(archive, path, (size_t)(colon - path));
    archive[colon - path] = 0;
    cli_file_info st;
    int member = cli_info(archive, 1, &st) == 0 && st.kind == CLI_FILE;
    free(archive);
    return member ? colon + 1 : path;
}

char *cli_stem(const char *path)
{
    const char *base = cli_basename(path);
    size_t n = (size_t)(cli_extension(path) - base);
    char *s = cli_xmalloc(n + 1);
    memcpy(s, base, n);
    s[n] = 0;
    return s;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = cli_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *cli_dirname(const char *path)
{
    size_t root = cli_root_len(path);
    const char *slash = NULL;
    for (const char *p = path + root; *p; p++)
        if (cli_is_sep(*p)) slash = p;
    if (!slash) return root ? dup_n(path, root) : cli_xstrdup("."); /* "/", "C:\" */
    return dup_n(path, (size_t)(slash - path));
}

char *cli_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    int slash = a > 0 && !cli_is_sep(dir[a - 1]);
    char *s = cli_xmalloc(a + (size_t)slash + b + 1);
    memcpy(s, dir, a);
    if (slash) s[a] = '/';
    memcpy(s + a + (size_t)slash, name, b + 1);
    return s;
}

int cli_is_dir(const char *path)
{
    cli_file_info st;
    return cli_info(path, 1, &st) == 0 && st.kind == CLI_DIR;
}

int cli_exists(const char *path)
{
    cli_file_info st;
    return cli_info(path, 1, &st) == 0;
}

int cli_mkdirs(const char *path)
{
    char *p = cli_xstrdup(path);
    int rc = 0;
    size_t root = cli_root_len(p);
    for (char *q = p + (root ? root : 1);; q++) {
        if (cli_is_sep(*q) || *q == 0) {
            char c = *q;
            *q = 0;
            int e = cli_mkdir(p);
            if (e != 0 && e != EEXIST) rc = e;
            else if (!cli_is_dir(p)) rc = ENOTDIR;
            *q = c;
            if (rc || !c) break;
        }
    }
    free(p);
    return rc;
}

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
