/* Strings, paths and files for the CLI (POSIX). */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- memory and strings ---------------------------------------------------------- */

static void out_of_memory(void)
{
    static const char msg[] = "ganim: out of memory\n";
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */
    }
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

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
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
    struct stat st;
    int member = stat(archive, &st) == 0 && S_ISREG(st.st_mode);
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

char *cli_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return cli_xstrdup(".");
    if (slash == path) return cli_xstrdup("/");
    size_t n = (size_t)(slash - path);
    char *s = cli_xmalloc(n + 1);
    memcpy(s, path, n);
    s[n] = 0;
    return s;
}

char *cli_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    int slash = a > 0 && dir[a - 1] != '/';
    char *s = cli_xmalloc(a + (size_t)slash + b + 1);
    memcpy(s, dir, a);
    if (slash) s[a] = '/';
    memcpy(s + a + (size_t)slash, name, b + 1);
    return s;
}

int cli_is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cli_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int cli_mkdirs(const char *path)
{
    char *p = cli_xstrdup(path);
    int rc = 0;
    for (char *q = p + 1;; q++) {
        if (*q == '/' || *q == 0) {
            char c = *q;
            *q = 0;
            if (mkdir(p, 0777) != 0 && errno != EEXIST) rc = errno;
            else if (!cli_is_dir(p)) rc = ENOTDIR;
            *q = c;
            if (rc || !c) break;
        }
    }
    free(p);
    return rc;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int cli_list_dir(const char *dir, char ***names, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) return errno;
    size_t n = 0, cap = 0;
    char **list = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 32;
            list = cli_xrealloc(list, cap * sizeof *list);
        }
        list[n++] = cli_xstrdup(e->d_name);
    }
    closedir(d);
    if (n) qsort(list, n, sizeof *list, compare_names);
    *names = list;
    *count = n;
    return 0;
}

void cli_free_list(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++) free(names[i]);
    free(names);
}

static int write_all(int fd, const void *data, size_t size)
{
    const uint8_t *p = data;
    while (size > 0) {
        ssize_t w = write(fd, p, size > (1u << 30) ? (1u << 30) : size);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        p += w;
        size -= (size_t)w;
    }
    return 0;
}

/* A regular file (or a new one): written beside it under a hidden name, then renamed
 * over it, so a failed run never leaves half a file. */
static int replace_file(const char *path, const void *data, size_t size)
{
    char *dir = cli_dirname(path);
    cli_str tmp = { 0 };
    cli_str_printf(&tmp, "%s/.%s.ganim-tmp%ld", dir, cli_basename(path), (long)getpid());
    free(dir);
    int fd = open(tmp.s, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        int e = errno;
        cli_str_free(&tmp);
        return e;
    }
    int rc = write_all(fd, data, size);
    if (close(fd) != 0 && !rc) rc = errno;
    if (!rc && rename(tmp.s, path) != 0) rc = errno;
    if (rc) unlink(tmp.s);
    cli_str_free(&tmp);
    return rc;
}

int cli_write_file(const char *path, const void *data, size_t size)
{
    if (strcmp(path, "-") == 0) { /* standard output */
        if (size && fwrite(data, 1, size, stdout) != size) return errno ? errno : EIO;
        return fflush(stdout) == 0 ? 0 : (errno ? errno : EIO);
    }
    struct stat st;
    int exists = stat(path, &st) == 0; /* follows a symbolic link */
    if (exists && S_ISDIR(st.st_mode)) return EISDIR;
    if (exists && !S_ISREG(st.st_mode)) {
        /* A device, a FIFO, a socket (or a link to one, as /dev/stdout): written through,
         * never replaced. */
        int fd = open(path, O_WRONLY);
        if (fd < 0) return errno;
        int rc = write_all(fd, data, size);
        if (close(fd) != 0 && !rc) rc = errno;
        return rc;
    }
    struct stat lst;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        /* A link to a regular file stays a link: the file it points at is replaced. A
         * dangling link is refused rather than replaced by a file. */
        if (!exists) return ENOENT;
        char *target = realpath(path, NULL);
        if (!target) return errno;
        int rc = replace_file(target, data, size);
        free(target);
        return rc;
    }
    return replace_file(path, data, size);
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
