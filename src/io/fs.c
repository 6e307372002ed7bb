/* Files and folders, the library's only calls to the operating system: POSIX (fopen,
 * opendir, stat) or Windows, where paths are UTF-8 and go to the wide-character calls
 * (_wfopen, FindFirstFileW, GetFileAttributesW) as UTF-16. */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include "io/fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#ifdef _WIN32
#include <windows.h>

/* Paths as UTF-16 in a buffer of the caller's (no allocation behind the allocator's
 * back): 0, or -1 with errno EILSEQ for a name that is not UTF-8 and ENAMETOOLONG for
 * one longer than the buffer. `suffix` is appended. */
#define WPATH_MAX 4096
static int widen(const char *utf8, const wchar_t *suffix, wchar_t *w, size_t cap)
{
    size_t extra = wcslen(suffix);
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, NULL, 0);
    if (n <= 0) {
        errno = GetLastError() == ERROR_NO_UNICODE_TRANSLATION ? EILSEQ : ENAMETOOLONG;
        return -1;
    }
    if ((size_t)n + extra > cap) {
        errno = ENAMETOOLONG;
        return -1;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8, -1, w, n);
    memcpy(w + n - 1, suffix, (extra + 1) * sizeof *w);
    return 0;
}

FILE *ganim_fs_open(const char *path, const char *mode)
{
    wchar_t wmode[8], w[WPATH_MAX];
    size_t i = 0;
    for (; mode[i] && i < 7; i++) wmode[i] = (wchar_t)(unsigned char)mode[i];
    wmode[i] = 0;
    return widen(path, L"", w, WPATH_MAX) == 0 ? _wfopen(w, wmode) : NULL;
}

int ganim_fs_is_dir(const char *path)
{
    wchar_t w[WPATH_MAX];
    if (!path || widen(path, L"", w, WPATH_MAX) != 0) return 0;
    DWORD attr = GetFileAttributesW(w);
    return attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY);
}

int ganim_fs_is_plain_file(const char *path)
{
    wchar_t w[WPATH_MAX];
    if (!path || widen(path, L"", w, WPATH_MAX) != 0) return -1;
    DWORD attr = GetFileAttributesW(w);
    if (attr == INVALID_FILE_ATTRIBUTES) return -1;
    return !(attr & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DEVICE));
}

const char *ganim_fs_not_plain(const char *path)
{
    wchar_t w[WPATH_MAX];
    if (!path || widen(path, L"", w, WPATH_MAX) != 0) return NULL;
    DWORD attr = GetFileAttributesW(w);
    if (attr == INVALID_FILE_ATTRIBUTES) return NULL;
    if (attr & FILE_ATTRIBUTE_REPARSE_POINT) return "a link";
    if (attr & FILE_ATTRIBUTE_DIRECTORY) return "a folder";
    if (attr & FILE_ATTRIBUTE_DEVICE) return "a device";
    return NULL;
}

/* The names of a folder, one at a time, as UTF-8. */
typedef struct fs_dir {
    HANDLE h;
    WIN32_FIND_DATAW data;
    int have; /* data holds a name not yet returned */
    wchar_t pattern[WPATH_MAX];
    char name[MAX_PATH * 3 + 1];
} fs_dir;

static int dir_first(fs_dir *d)
{
    d->h = FindFirstFileW(d->pattern, &d->data);
    d->have = d->h != INVALID_HANDLE_VALUE;
    if (d->have) return 0;
    DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND) return 0; /* a folder with nothing in it (a drive root) */
    errno = e == ERROR_PATH_NOT_FOUND  ? ENOENT
            : e == ERROR_ACCESS_DENIED ? EACCES
            : e == ERROR_DIRECTORY     ? ENOTDIR
                                       : EIO;
    return -1;
}

static int dir_open(fs_dir *d, const char *path)
{
    memset(d, 0, sizeof *d);
    size_t len = strlen(path);
    int sep = len > 0 && (path[len - 1] == '/' || path[len - 1] == '\\');
    if (widen(path, sep ? L"*" : L"\\*", d->pattern, WPATH_MAX) != 0) return -1;
    return dir_first(d);
}

static const char *dir_next(fs_dir *d)
{
    while (d->have) {
        int n = WideCharToMultiByte(CP_UTF8, 0, d->data.cFileName, -1, d->name, (int)sizeof d->name, NULL, NULL);
        d->have = FindNextFileW(d->h, &d->data) != 0;
        if (n > 0) return d->name;
    }
    return NULL;
}

static void dir_close(fs_dir *d)
{
    if (d->h != INVALID_HANDLE_VALUE && d->h) FindClose(d->h);
    d->h = INVALID_HANDLE_VALUE;
}

static int dir_rewind(fs_dir *d)
{
    dir_close(d);
    return dir_first(d);
}

static void dir_free(fs_dir *d) { dir_close(d); }

#else /* POSIX */
#include <dirent.h>
#include <sys/stat.h>

FILE *ganim_fs_open(const char *path, const char *mode) { return fopen(path, mode); }

int ganim_fs_is_dir(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int ganim_fs_is_plain_file(const char *path)
{
    struct stat st;
    if (!path || lstat(path, &st) != 0) return -1;
    return S_ISREG(st.st_mode) ? 1 : 0;
}

const char *ganim_fs_not_plain(const char *path)
{
    struct stat st;
    if (!path || lstat(path, &st) != 0 || S_ISREG(st.st_mode)) return NULL;
    if (S_ISLNK(st.st_mode)) return "a symbolic link";
    if (S_ISDIR(st.st_mode)) return "a folder";
    if (S_ISFIFO(st.st_mode)) return "a pipe (FIFO)";
    if (S_ISSOCK(st.st_mode)) return "a socket";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
    return "not a regular file";
}

typedef struct fs_dir {
    DIR *d;
} fs_dir;

static int dir_open(fs_dir *d, const char *path) { return (d->d = opendir(path)) ? 0 : -1; }

static const char *dir_next(fs_dir *d)
{
    struct dirent *e = readdir(d->d);
    return e ? e->d_name : NULL;
}

static int dir_rewind(fs_dir *d)
{
    rewinddir(d->d);
    return 0;
}

static void dir_free(fs_dir *d) { closedir(d->d); }
#endif

static int by_bytes(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

ganim_code ganim_fs_list(const char *dir, const ganim_allocator *a, ganim_fs_names *out, ganim_error *err)
{
    memset(out, 0, sizeof *out);
    /* Two passes over the folder: sizes, then names (a folder that changes in between
     * gives at most the names that fit). */
    size_t count = 0, chars = 0;
    fs_dir d;
    if (dir_open(&d, dir) != 0)
        return ganim_fail(err, GANIM_ERR_IO, GANIM_NO_OFFSET, "cannot list the folder: %s", strerror(errno));
    const char *name;
    while ((name = dir_next(&d)) != NULL) {
        if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
        count++;
        chars += strlen(name) + 1;
    }
    size_t ptrs, bytes;
    if (!ganim_mul_size(count, sizeof(char *), &ptrs) || !ganim_add_size(ptrs + 1u, chars, &bytes)) {
        dir_free(&d);
        return GANIM_NOMEM(err);
    }
    char **names = ganim_alloc(a, bytes);
    if (!names) {
        dir_free(&d);
        return GANIM_NOMEM(err);
    }
    char *p = (char *)(names + count), *end = (char *)names + bytes;
    size_t n = 0;
    if (dir_rewind(&d) == 0) {
        while (n < count && (name = dir_next(&d)) != NULL) {
            if (!strcmp(name, ".") || !strcmp(name, "..")) continue;
            size_t len = strlen(name) + 1;
            if (len > (size_t)(end - p)) break;
            memcpy(p, name, len);
            names[n++] = p;
            p += len;
        }
    }
    dir_free(&d);
    qsort(names, n, sizeof *names, by_bytes);
    out->names = names;
    out->count = n;
    out->bytes = bytes;
    return GANIM_OK;
}

void ganim_fs_names_free(const ganim_allocator *a, ganim_fs_names *names)
{
    if (names->names) ganim_free(a, names->names, names->bytes);
    memset(names, 0, sizeof *names);
}
