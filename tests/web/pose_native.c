/* The native library's poses, for the browser test to compare the page's with
 * (tests/web/run.sh builds it against the native libganim.a):
 *   pose_native FILE [NAME=VALUE...] -- CLIP TIME...
 * reads FILE as `ganim info` does (the companion skeleton found by the format's rule,
 * reader options NAME=VALUE), then prints one line per TIME: the JSON array of
 * ganim_clip_sample's 10 floats per bone (qx qy qz qw tx ty tz sx sy sz), each as the
 * shortest text that reads back as the same float32 ("%.9g"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ganim.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: pose_native FILE [NAME=VALUE...] -- CLIP TIME...\n");
        return 2;
    }
    ganim_setting settings[16];
    uint32_t count = 0;
    int i = 2;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq || count == 16) {
            fprintf(stderr, "pose_native: '%s' is not NAME=VALUE\n", argv[i]);
            return 2;
        }
        *eq = 0;
        settings[count].name = argv[i];
        settings[count].value = eq + 1;
        count++;
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "pose_native: no clip after --\n");
        return 2;
    }
    ganim_read_opts ro = { 0 };
    ro.settings = count ? settings : NULL;
    ro.setting_count = count;
    ganim_doc *doc = NULL;
    ganim_error err = { 0 };
    if (ganim_read_file(argv[1], &ro, &doc, &err) != GANIM_OK) {
        fprintf(stderr, "pose_native: %s: %s\n", argv[1], err.message);
        return 1;
    }
    unsigned long clip = strtoul(argv[i + 1], NULL, 10);
    uint32_t bones = doc->skeleton ? doc->skeleton->bone_count : 0;
    ganim_transform *pose = malloc(((size_t)bones + 1) * sizeof *pose);
    int rc = 0;
    for (int t = i + 2; t < argc && rc == 0 && pose; t++) {
        if (clip >= doc->clip_count ||
            ganim_clip_sample(&doc->clips[clip], doc->skeleton, strtod(argv[t], NULL), pose, NULL, &err) != GANIM_OK) {
            fprintf(stderr, "pose_native: clip %lu: %s\n", clip,
                    clip >= doc->clip_count ? "no such clip" : err.message);
            rc = 1;
            break;
        }
        putchar('[');
        for (uint32_t b = 0; b < bones; b++) {
            const ganim_transform *p = &pose[b];
            const float f[10] = { p->rotation.x,    p->rotation.y,    p->rotation.z, p->rotation.w, p->translation.x,
                                  p->translation.y, p->translation.z, p->scale.x,    p->scale.y,    p->scale.z };
            for (int k = 0; k < 10; k++) printf("%s%.9g", b || k ? "," : "", (double)f[k]);
        }
        puts("]");
    }
    if (!pose) rc = 1;
    free(pose);
    ganim_doc_free(doc);
    return rc;
}
