/* The two FF7 battle formats: animation packs (??da) and skeletons (??aa). */
#include "formats/ff7/ff7.h"

const ganim_option ff7_options[FF7_OPT_COUNT] = {
    [FF7_OPT_BKEY] = {
        .name = "ff7.bkey",
        .alias = "ff7-bkey",
        .type = GANIM_OPTION_CHOICE,
        .flags = GANIM_OPTION_WRITE,
        .values = "0|2|4",
        .help = "rotation precision key: angles are stored in steps of 2^K of 4096 per turn",
        .when_unset = "each animation keeps the key it was read with; others get the smallest whose stream fits 65535 "
            "bytes",
    },
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
    .name = "ff7-battle",
    .description = "FF7 PC battle animation pack (??da, *.a00)",
    .family = "ff7",
    .extensions = ".da;.a00",
    .flags = GANIM_FORMAT_READ | GANIM_FORMAT_WRITE | GANIM_FORMAT_RESAMPLE,
    .options = ff7_options,
    .option_count = GANIM_COUNT_OF(ff7_options),
    .companion = "a pack xxda uses the skeleton xxaa (NAME.da uses NAME.aa) in the same folder",
    .impl = &battle_impl,
};

static const struct ganim_format_impl skeleton_impl = {
    .probe = ff7_skeleton_probe,
    .read = ff7_skeleton_read,
    .details = ff7_skeleton_details,
    .axes = 1 + GANIM_AXES_Y_DOWN,
};

const ganim_format ganim_format_ff7_skeleton = {
    .name = "ff7-skeleton",
    .description = "FF7 PC battle skeleton (??aa)",
    .family = "ff7",
    .extensions = ".aa",
    .flags = GANIM_FORMAT_READ | GANIM_FORMAT_COMPANION,
    .impl = &skeleton_impl,
};
