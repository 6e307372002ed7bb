/* The two FF7 battle formats: animation packs (??da) and skeletons (??aa). */
#include "formats/ff7/ff7.h"

const ganim_format ganim_format_ff7_battle = {
    "ff7-battle",
    "FF7 PC battle animation pack (??da, *.a00)",
    ".da;.a00",
    0,
    ff7_battle_probe,
    ff7_battle_read,
    ff7_battle_write,
    ff7_battle_resample,
    ff7_battle_describe,
};

const ganim_format ganim_format_ff7_skeleton = {
    "ff7-skeleton",
    "FF7 PC battle skeleton (??aa)",
    ".aa",
    1,
    ff7_skeleton_probe,
    ff7_skeleton_read,
    NULL,
    NULL,
    ff7_skeleton_describe,
};
