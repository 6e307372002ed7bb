/* Paths as text: separators and roots (POSIX, and Windows' drive letters, UNC roots and
 * backslashes), base names, extensions, stems, folders, joins. Nothing here asks the
 * system (files.c and os.c do). */
#include "cli.h"

#include <string.h>

#ifdef _WIN32
int cli_is_sep(int c) { return c == '/' || c == '\\'; }

size_t cli_root_len(const char *path)
{
    if (cli_is_sep(path[0]) && cli_is_sep(path[1])) { /* \\server\share\ */
        size_t i = 2;
        for (int part = 0; part < 2 && path[i]; part++) {
            while (path[i] && !cli_is_sep(path[i])) i++;
            if (path[i]) i++;
        }
        return i;
    }
    if (cli_is_sep(path[0])) return 1;
    if (((path[0] | 32) >= 'a' && (path[0] | 32) <= 'z') && path[1] == ':') return cli_is_sep(path[2]) ? 3 : 2;
    return 0;
}
#else
int cli_is_sep(int c) { return c == '/'; }

size_t cli_root_len(const char *path) { return path[0] == '/' ? 1 : 0; }
#endif

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
