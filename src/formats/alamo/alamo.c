/* The two Alamo formats: animations (.ALA) and model skeletons (.ALO). */
#include "formats/alamo/alamo_ala.h"

const ganim_option alamo_options[ALAMO_OPT_COUNT] = {
    [ALAMO_OPT_VERSION] = {
        .name = "alamo.version",
        .alias = "alamo-version",
        .type = GANIM_OPTION_CHOICE,
        .flags = GANIM_OPTION_WRITE,
        .values = "1|2",
        .help = "write ALA format 1 (Empire at War: per-track chunks) or 2 (Forces of Corruption: frame blocks)",
        .when_unset = "the version of the file the animation was read from, else 2",
    },
};

static const struct ganim_format_impl ala_impl = {
    .probe = alamo_ala_probe,
    .read = alamo_ala_read,
    .write = alamo_ala_write,
    .companion = alamo_ala_companion,
    .details = alamo_ala_details,
    .axes = 1 + GANIM_AXES_Z_UP,
};

const ganim_format ganim_format_alamo_ala = {
    .name = ALA,
    .description = "Petroglyph Alamo animation (Star Wars: Empire at War / Forces of Corruption), formats 1 and 2",
    .family = "alamo",
    .extensions = ".ala",
    .flags = GANIM_FORMAT_READ | GANIM_FORMAT_WRITE,
    .options = alamo_options,
    .option_count = GANIM_COUNT_OF(alamo_options),
    .companion = "MODEL_ANIM_NN.ala uses MODEL.alo in the same folder",
    .impl = &ala_impl,
};

static const struct ganim_format_impl alo_impl = {
    .probe = alamo_alo_probe,
    .read = alamo_alo_read,
    .write = alamo_alo_write,
    .axes = 1 + GANIM_AXES_Z_UP,
};

const ganim_format ganim_format_alamo_alo = {
    .name = ALO,
    .description = "Petroglyph Alamo model skeleton (.ALO, chunk 0x200); meshes are ignored",
    .family = "alamo",
    .extensions = ".alo",
    .flags = GANIM_FORMAT_READ | GANIM_FORMAT_WRITE | GANIM_FORMAT_COMPANION,
    .impl = &alo_impl,
};
