/* Questions about files built on os.c's calls: does a path exist, is it a folder, is it
 * an ARCHIVE:MEMBER path, and mkdir -p. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
