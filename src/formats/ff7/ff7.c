/* The two FF7 battle formats: animation packs (??da) and skeletons (??aa). */
#include "formats/ff7/ff7.h"

const ganim_option ff7_options[] = {
    { "ff7.bkey", "ff7-bkey", GANIM_OPTION_CHOICE, GANIM_OPTION_WRITE, "0|2|4",
      "rotation precision key: angles are stored in steps of 2^K of 4096 per turn",
      "each animation keeps the key it was read with; others get the smallest whose stream fits 65535 bytes" },
};

static const struct ganim_format_impl battle_impl = {
    .probe = ff7_battle_probe,
    .read = ff7_battle_read,
    .write = ff7_battle_write,
    .resample = ff7_battle_resample,
    .companion = ff7_battle_companion,
    .details = ff7_battle_details,
    .axes = 1 + GANIM_AXES_Y_DOWN,
    .fps = FF7_FPS,
};

const ganim_format ganim_format_ff7_battle = {
    "ff7-battle",
    "FF7 PC battle animation pack (??da, *.a00)",
    "ff7",
    ".da;.a00",
    GANIM_FORMAT_READ | GANIM_FORMAT_WRITE | GANIM_FORMAT_RESAMPLE,
    ff7_options,
    1,
    "a pack xxda uses the skeleton xxaa (NAME.da uses NAME.aa) in the same folder",
    &battle_impl,
};

static const struct ganim_format_impl skeleton_impl = {
    .probe = ff7_skeleton_probe,
    .read = ff7_skeleton_read,
    .details = ff7_skeleton_details,
    .axes = 1 + GANIM_AXES_Y_DOWN,
};

const ganim_format ganim_format_ff7_skeleton = {
    "ff7-skeleton",
    "FF7 PC battle skeleton (??aa)",
    "ff7",
    ".aa",
    GANIM_FORMAT_READ | GANIM_FORMAT_COMPANION,
    NULL,
    0,
    NULL,
    &skeleton_impl,
};
