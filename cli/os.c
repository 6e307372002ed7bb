/* Everything the tool asks of the operating system, POSIX or Windows: the one file of
 * cli/ with system calls. On Windows every path stays UTF-8 inside the tool: the command
 * line is taken as UTF-16 and turned to UTF-8 once, and each call here turns its path
 * back to UTF-16 for the wide-character API; standard streams are binary, so what goes
 * through them is byte for byte what it is on Linux. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>
/* after windows.h, which it needs */
#include <shellapi.h>
#else
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#endif

/* ---- Windows: paths as UTF-16, errors as errno ------------------------------------- */
#ifdef _WIN32

static int errno_of(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_NETPATH:
    case ERROR_INVALID_DRIVE: return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION: return EACCES;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS: return EEXIST;
    case ERROR_DIRECTORY: return ENOTDIR;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY: return ENOMEM;
    case ERROR_FILENAME_EXCED_RANGE: return ENAMETOOLONG;
    case ERROR_NO_UNICODE_TRANSLATION: return EILSEQ;
    default: return EIO;
    }
}

/* UTF-8 -> UTF-16 (malloc'd, `suffix` appended); NULL with errno (EILSEQ: not UTF-8). */
static wchar_t *widen(const char *s, const wchar_t *suffix)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) {
        errno = errno_of(GetLastError());
        return NULL;
    }
    size_t extra = wcslen(suffix);
    wchar_t *w = cli_xmalloc(((size_t)n + extra) * sizeof *w);
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    memcpy(w + n - 1, suffix, (extra + 1) * sizeof *w);
    return w;
}

/* UTF-16 -> UTF-8 (malloc'd). */
static char *narrow(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    if (n <= 0) return cli_xstrdup("");
    char *s = cli_xmalloc((size_t)n);
    WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    return s;
}

static UINT console_cp;
static void restore_console(void) { SetConsoleOutputCP(console_cp); }

void cli_os_init(int *argc, char ***argv)
{
    int n = 0;
    wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &n);
    if (wargv && n > 0) {
        char **args = cli_xmalloc(((size_t)n + 1) * sizeof *args);
        for (int i = 0; i < n; i++) args[i] = narrow(wargv[i]);
        args[n] = NULL;
        LocalFree(wargv);
        *argc = n;
        *argv = args; /* the process keeps them */
    }
    _setmode(_fileno(stdin), _O_BINARY);
    _setmode(_fileno(stdout), _O_BINARY);
    _setmode(_fileno(stderr), _O_BINARY);
    /* Names and messages are UTF-8: so is the console while ganim runs. */
    if ((console_cp = GetConsoleOutputCP()) != 0 && console_cp != CP_UTF8 && SetConsoleOutputCP(CP_UTF8))
        atexit(restore_console);
}

double cli_now(void)
{
    static LARGE_INTEGER freq;
    LARGE_INTEGER t;
    if (!freq.QuadPart) QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&t);
    return (double)t.QuadPart / (double)freq.QuadPart;
}

unsigned cli_processors(void)
{
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwNumberOfProcessors ? (unsigned)si.dwNumberOfProcessors : 1;
}

int cli_stderr_is_terminal(void)
{
    /* A console (not a file or a pipe, and not NUL, which _isatty calls a terminal)
     * that takes the escape sequences of the progress bar (Windows 10 and later). */
    HANDLE h = GetStdHandle(STD_ERROR_HANDLE);
    DWORD mode;
    if (h == INVALID_HANDLE_VALUE || !GetConsoleMode(h, &mode)) return 0;
    return (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) || SetConsoleMode(h, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
}

void cli_stderr_raw(const char *s, size_t n)
{
    HANDLE h = GetStdHandle(STD_ERROR_HANDLE);
    while (n > 0) {
        DWORD w = 0, chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n;
        if (!WriteFile(h, s, chunk, &w, NULL) || w == 0) return; /* nowhere left to complain */
        s += w;
        n -= w;
    }
}

/* A handle on `path` to ask what it is (no access to its data: devices open too). */
static HANDLE open_for_info(const char *path, int follow)
{
    wchar_t *w = widen(path, L"");
    if (!w) return INVALID_HANDLE_VALUE;
    DWORD flags = FILE_FLAG_BACKUP_SEMANTICS | (follow ? 0 : FILE_FLAG_OPEN_REPARSE_POINT);
    HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_EXISTING, flags, NULL);
    if (h == INVALID_HANDLE_VALUE) errno = errno_of(GetLastError());
    free(w);
    return h;
}

int cli_info(const char *path, int follow, cli_file_info *out)
{
    memset(out, 0, sizeof *out);
    HANDLE h = open_for_info(path, follow);
    if (h == INVALID_HANDLE_VALUE) return errno;
    BY_HANDLE_FILE_INFORMATION bi;
    if (GetFileType(h) != FILE_TYPE_DISK) {
        out->kind = CLI_OTHER; /* NUL, CON, a pipe */
    } else if (GetFileInformationByHandle(h, &bi)) {
        FILE_ATTRIBUTE_TAG_INFO tag = { 0, 0 };
        if (!follow && (bi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) &&
            GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag, sizeof tag) &&
            (tag.ReparseTag == IO_REPARSE_TAG_SYMLINK || tag.ReparseTag == IO_REPARSE_TAG_MOUNT_POINT))
            out->kind = CLI_LINK;
        else out->kind = (bi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? CLI_DIR : CLI_FILE;
        out->size = (uint64_t)bi.nFileSizeHigh << 32 | bi.nFileSizeLow;
        out->dev = bi.dwVolumeSerialNumber;
        out->ino = (uint64_t)bi.nFileIndexHigh << 32 | bi.nFileIndexLow;
    } else {
        int e = errno_of(GetLastError());
        CloseHandle(h);
        return e;
    }
    CloseHandle(h);
    return 0;
}

int cli_mkdir(const char *path)
{
    wchar_t *w = widen(path, L"");
    if (!w) return errno;
    int rc = CreateDirectoryW(w, NULL) ? 0 : errno_of(GetLastError());
    free(w);
    return rc;
}

int cli_list_dir(const char *dir, char ***names, size_t *count)
{
    size_t len = strlen(dir);
    wchar_t *pattern = widen(dir, len && cli_is_sep(dir[len - 1]) ? L"*" : L"\\*");
    if (!pattern) return errno;
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileW(pattern, &fd);
    free(pattern);
    char **list = NULL;
    size_t n = 0, cap = 0;
    if (h == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        if (e != ERROR_FILE_NOT_FOUND) return errno_of(e);
    } else {
        do {
            if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0) continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 32;
                list = cli_xrealloc(list, cap * sizeof *list);
            }
            list[n++] = narrow(fd.cFileName);
        } while (FindNextFileW(h, &fd));
        FindClose(h);
    }
    cli_sort_names(list, n);
    *names = list;
    *count = n;
    return 0;
}

static int write_handle(HANDLE h, const void *data, size_t size)
{
    const uint8_t *p = data;
    while (size > 0) {
        DWORD w = 0, chunk = size > (1u << 30) ? (1u << 30) : (DWORD)size;
        if (!WriteFile(h, p, chunk, &w, NULL)) return errno_of(GetLastError());
        p += w;
        size -= w;
    }
    return 0;
}

static int write_handle_parts(HANDLE h, const cli_part *parts, size_t count)
{
    int rc = 0;
    for (size_t i = 0; i < count && !rc; i++) rc = write_handle(h, parts[i].data, parts[i].size);
    return rc;
}

/* A device or a pipe, written through. */
static int write_through(const char *path, const cli_part *parts, size_t count)
{
    wchar_t *w = widen(path, L"");
    if (!w) return errno;
    HANDLE h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) return errno_of(GetLastError());
    int rc = write_handle_parts(h, parts, count);
    if (!CloseHandle(h) && !rc) rc = errno_of(GetLastError());
    return rc;
}

/* The file beside `path` that replaces it: created empty, its name in *tmp and, when
 * wtmp is not NULL, widened in *wtmp (both the caller's to free), its handle in *h; 0 or
 * errno (then nothing to free). */
static int tmp_create(const char *path, cli_str *tmp, wchar_t **wtmp, HANDLE *h)
{
    char *dir = cli_dirname(path);
    *tmp = (cli_str){ 0 };
    cli_str_printf(tmp, "%s\\.%s.ganim-tmp%lu", dir, cli_basename(path), (unsigned long)GetCurrentProcessId());
    free(dir);
    wchar_t *w = widen(tmp->s, L"");
    if (!w) {
        int e = errno;
        cli_str_free(tmp);
        return e;
    }
    *h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    if (*h == INVALID_HANDLE_VALUE) {
        int e = errno_of(GetLastError());
        free(w);
        cli_str_free(tmp);
        return e;
    }
    if (wtmp) *wtmp = w;
    else free(w);
    return 0;
}

/* Written beside `path` under a temporary name, then moved over it. */
static int replace_file(const char *path, const cli_part *parts, size_t count)
{
    cli_str tmp;
    wchar_t *wtmp;
    HANDLE h;
    int rc = tmp_create(path, &tmp, &wtmp, &h);
    if (rc) return rc;
    rc = write_handle_parts(h, parts, count);
    if (!CloseHandle(h) && !rc) rc = errno_of(GetLastError());
    wchar_t *wpath = rc ? NULL : widen(path, L"");
    if (!rc && !wpath) rc = errno;
    /* rename() will not replace an existing file on Windows: MoveFileExW does. */
    if (!rc && !MoveFileExW(wtmp, wpath, MOVEFILE_REPLACE_EXISTING)) rc = errno_of(GetLastError());
    if (rc) DeleteFileW(wtmp);
    free(wtmp);
    free(wpath);
    cli_str_free(&tmp);
    return rc;
}

static int out_create(cli_out *o)
{
    cli_str tmp;
    HANDLE h;
    int e = tmp_create(o->path, &tmp, NULL, &h);
    if (e) return e;
    o->handle = (intptr_t)h;
    o->tmp = tmp.s;
    return 0;
}

int cli_out_write_at(cli_out *o, uint64_t offset, const void *data, size_t size)
{
    const uint8_t *p = data;
    while (size > 0) {
        OVERLAPPED at = { 0 };
        at.Offset = (DWORD)offset;
        at.OffsetHigh = (DWORD)(offset >> 32);
        DWORD w = 0, chunk = size > (1u << 30) ? (1u << 30) : (DWORD)size;
        if (!WriteFile((HANDLE)o->handle, p, chunk, &w, &at)) return errno_of(GetLastError());
        p += w, offset += w, size -= w;
    }
    if (offset > o->size) o->size = offset;
    return 0;
}

static int out_close(cli_out *o) { return CloseHandle((HANDLE)o->handle) ? 0 : errno_of(GetLastError()); }

static int out_rename(cli_out *o)
{
    wchar_t *wtmp = widen(o->tmp, L""), *wpath = wtmp ? widen(o->path, L"") : NULL;
    int rc = wpath ? 0 : errno;
    /* rename() will not replace an existing file on Windows: MoveFileExW does. */
    if (!rc && !MoveFileExW(wtmp, wpath, MOVEFILE_REPLACE_EXISTING)) rc = errno_of(GetLastError());
    free(wtmp);
    free(wpath);
    return rc;
}

static void out_remove(cli_out *o)
{
    wchar_t *w = widen(o->tmp, L"");
    if (w) DeleteFileW(w);
    free(w);
}

/* The file a link leads to (malloc'd), or NULL with errno. */
static char *link_target(const char *path)
{
    HANDLE h = open_for_info(path, 1);
    if (h == INVALID_HANDLE_VALUE) return NULL;
    wchar_t buf[32768];
    DWORD n = GetFinalPathNameByHandleW(h, buf, 32768, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    CloseHandle(h);
    if (n == 0 || n >= 32768) {
        errno = n ? ENAMETOOLONG : errno_of(GetLastError());
        return NULL;
    }
    return narrow(buf);
}

ganim_code cli_read_stdin_bytes(ganim_buffer *out, ganim_error *err)
{
    /* Windows has no path for standard input: read the stream, never more than the
     * library would take from a file (GANIM_DEFAULT_INPUT_BYTES). */
    memset(out, 0, sizeof *out);
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
        if (n > GANIM_DEFAULT_INPUT_BYTES - out->size) {
            ganim_buffer_free(out);
            err->code = GANIM_ERR_LIMIT;
            err->offset = GANIM_NO_OFFSET;
            snprintf(err->message, sizeof err->message,
                     "the input has more than the input limit of %llu bytes (ganim_limits.input_bytes)",
                     (unsigned long long)GANIM_DEFAULT_INPUT_BYTES);
            return err->code;
        }
        if (out->size + n > out->capacity) {
            size_t cap = out->capacity ? out->capacity : sizeof chunk;
            while (cap < out->size + n) cap *= 2;
            out->data = cli_xrealloc(out->data, cap); /* malloc'd: ganim_buffer_free's default */
            out->capacity = cap;
        }
        memcpy(out->data + out->size, chunk, n);
        out->size += n;
    }
    if (ferror(stdin)) {
        ganim_buffer_free(out);
        err->code = GANIM_ERR_IO;
        err->offset = GANIM_NO_OFFSET;
        snprintf(err->message, sizeof err->message, "cannot read standard input");
        return err->code;
    }
    return GANIM_OK;
}

/* ---- POSIX -------------------------------------------------------------------------- */
#else

void cli_os_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

unsigned cli_processors(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (unsigned)cpus : 1;
}

int cli_stderr_is_terminal(void) { return isatty(2); }

void cli_stderr_raw(const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0) return; /* nowhere left to complain */
        s += w;
        n -= (size_t)w;
    }
}

int cli_info(const char *path, int follow, cli_file_info *out)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) return errno;
    out->kind = S_ISREG(st.st_mode)   ? CLI_FILE
                : S_ISDIR(st.st_mode) ? CLI_DIR
                : S_ISLNK(st.st_mode) ? CLI_LINK
                                      : CLI_OTHER;
    out->size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    return 0;
}

int cli_mkdir(const char *path) { return mkdir(path, 0777) == 0 ? 0 : errno; }

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
    cli_sort_names(list, n);
    *names = list;
    *count = n;
    return 0;
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

static int write_all_parts(int fd, const cli_part *parts, size_t count)
{
    int rc = 0;
    for (size_t i = 0; i < count && !rc; i++) rc = write_all(fd, parts[i].data, parts[i].size);
    return rc;
}

/* A device, a FIFO, a socket (or a link to one, as /dev/stdout): written through. */
static int write_through(const char *path, const cli_part *parts, size_t count)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0) return errno;
    int rc = write_all_parts(fd, parts, count);
    if (close(fd) != 0 && !rc) rc = errno;
    return rc;
}

/* The hidden file beside `path` that replaces it: created empty, its name in *tmp (the
 * caller's to free) and its descriptor in *fd; 0 or errno (then nothing to free). */
static int tmp_create(const char *path, cli_str *tmp, int *fd)
{
    char *dir = cli_dirname(path);
    *tmp = (cli_str){ 0 };
    cli_str_printf(tmp, "%s/.%s.ganim-tmp%ld", dir, cli_basename(path), (long)getpid());
    free(dir);
    *fd = open(tmp->s, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (*fd < 0) {
        int e = errno;
        cli_str_free(tmp);
        return e;
    }
    return 0;
}

/* Written beside `path` under a hidden name, then renamed over it. */
static int replace_file(const char *path, const cli_part *parts, size_t count)
{
    cli_str tmp;
    int fd, e = tmp_create(path, &tmp, &fd);
    if (e) return e;
    int rc = write_all_parts(fd, parts, count);
    if (close(fd) != 0 && !rc) rc = errno;
    if (!rc && rename(tmp.s, path) != 0) rc = errno;
    if (rc) unlink(tmp.s);
    cli_str_free(&tmp);
    return rc;
}

static char *link_target(const char *path) { return realpath(path, NULL); }

static int out_create(cli_out *o)
{
    cli_str tmp;
    int fd, e = tmp_create(o->path, &tmp, &fd);
    if (e) return e;
    o->handle = fd;
    o->tmp = tmp.s;
    return 0;
}

int cli_out_write_at(cli_out *o, uint64_t offset, const void *data, size_t size)
{
    const uint8_t *p = data;
    if (offset > (uint64_t)INT64_MAX - size) return EFBIG;
    while (size > 0) {
        ssize_t w = pwrite((int)o->handle, p, size > (1u << 30) ? (1u << 30) : size, (off_t)offset);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        p += w, offset += (uint64_t)w, size -= (size_t)w;
    }
    if (offset > o->size) o->size = offset;
    return 0;
}

static int out_close(cli_out *o) { return close((int)o->handle) == 0 ? 0 : errno; }
static int out_rename(cli_out *o) { return rename(o->tmp, o->path) == 0 ? 0 : errno; }
static void out_remove(cli_out *o) { unlink(o->tmp); }

ganim_code cli_read_stdin_bytes(ganim_buffer *out, ganim_error *err)
{
    return ganim_load_file("/dev/stdin", NULL, 0, out, err);
}

#endif

/* ---- both ---------------------------------------------------------------------------- */

void cli_batch_memory(void)
{
#if defined(__GLIBC__)
    /* Blocks up to 32 MiB from the heap rather than from their own mapping, and a heap
     * that keeps up to 1 GiB free at its top rather than handing it back: the next job
     * reuses the pages the last one touched. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

int cli_write_file(const char *path, const void *data, size_t size)
{
    cli_part one = { data, size };
    return cli_write_parts(path, &one, 1);
}

int cli_write_parts(const char *path, const cli_part *parts, size_t count)
{
    if (strcmp(path, "-") == 0) { /* standard output */
        for (size_t i = 0; i < count; i++)
            if (parts[i].size && fwrite(parts[i].data, 1, parts[i].size, stdout) != parts[i].size)
                return errno ? errno : EIO;
        return fflush(stdout) == 0 ? 0 : (errno ? errno : EIO);
    }
    cli_file_info st;
    int exists = cli_info(path, 1, &st) == 0; /* follows a symbolic link */
    if (exists && st.kind == CLI_DIR) return EISDIR;
    if (exists && st.kind != CLI_FILE) return write_through(path, parts, count); /* never replaced */
    cli_file_info lst;
    if (cli_info(path, 0, &lst) == 0 && lst.kind == CLI_LINK) {
        /* A link to a regular file stays a link: the file it points at is replaced. A
         * dangling link is refused rather than replaced by a file. */
        if (!exists) return ENOENT;
        char *target = link_target(path);
        if (!target) return errno;
        int rc = replace_file(target, parts, count);
        free(target);
        return rc;
    }
    return replace_file(path, parts, count);
}

/* What cli_write_parts replaces for `path`: the path, or the regular file a link leads to
 * (*target, malloc'd); ENOTSUP for what it writes through. */
static int replaced(const char *path, char **target)
{
    *target = NULL;
    if (strcmp(path, "-") == 0) return ENOTSUP;
    cli_file_info st;
    int exists = cli_info(path, 1, &st) == 0; /* follows a symbolic link */
    if (exists && st.kind == CLI_DIR) return EISDIR;
    if (exists && st.kind != CLI_FILE) return ENOTSUP;
    cli_file_info lst;
    if (cli_info(path, 0, &lst) == 0 && lst.kind == CLI_LINK) {
        if (!exists) return ENOENT;
        if (!(*target = link_target(path))) return errno;
    }
    return 0;
}

int cli_out_writable(const char *path)
{
    char *target = NULL;
    int e = replaced(path, &target);
    free(target);
    return e != ENOTSUP;
}

int cli_out_open(cli_out *o, const char *path)
{
    char *target = NULL;
    memset(o, 0, sizeof *o);
    int e = replaced(path, &target);
    if (e) return e;
    o->path = target ? target : cli_xstrdup(path);
    if ((e = out_create(o)) != 0) {
        free(o->path);
        o->path = NULL;
    }
    return e;
}

int cli_out_commit(cli_out *o)
{
    int rc = out_close(o);
    if (!rc) rc = out_rename(o);
    if (rc) out_remove(o);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    return rc;
}

void cli_out_abort(cli_out *o)
{
    if (!o->tmp) return;
    out_close(o);
    out_remove(o);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
}
