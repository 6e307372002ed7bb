/* The two Alamo formats: animations (.ALA) and model skeletons (.ALO). */
#include "formats/alamo/alamo_ala.h"

const ganim_option alamo_options[] = {
    { "alamo.version", "alamo-version", GANIM_OPTION_CHOICE, GANIM_OPTION_WRITE, "1|2",
      "write ALA format 1 (Empire at War: per-track chunks) or 2 (Forces of Corruption: frame blocks)",
      "the version of the file the animation was read from, else 2" },
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
    ALA,
    "Petroglyph Alamo animation (Star Wars: Empire at War / Forces of Corruption), formats 1 and 2",
    "alamo",
    ".ala",
    GANIM_FORMAT_READ | GANIM_FORMAT_WRITE,
    alamo_options,
    1,
    "MODEL_ANIM_NN.ala uses MODEL.alo in the same folder",
    &ala_impl,
};

static const struct ganim_format_impl alo_impl = {
    .probe = alamo_alo_probe,
    .read = alamo_alo_read,
    .write = alamo_alo_write,
    .axes = 1 + GANIM_AXES_Z_UP,
};

const ganim_format ganim_format_alamo_alo = {
    ALO,
    "Petroglyph Alamo model skeleton (.ALO, chunk 0x200); meshes are ignored",
    "alamo",
    ".alo",
    GANIM_FORMAT_READ | GANIM_FORMAT_WRITE | GANIM_FORMAT_COMPANION,
    NULL,
    0,
    NULL,
    &alo_impl,
};
