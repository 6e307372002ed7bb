/* The two Alamo formats: animations (.ALA) and model skeletons (.ALO). */
#include "formats/alamo/ala.h"

const ganim_format ganim_format_alamo_ala = {
    ALA,
    "Petroglyph Alamo animation (Star Wars: Empire at War / Forces of Corruption), formats 1 and 2",
    ".ala",
    0,
    alamo_ala_probe,
    alamo_ala_read,
    alamo_ala_write,
    NULL,
    alamo_ala_describe,
};

const ganim_format ganim_format_alamo_alo = {
    ALO,
    "Petroglyph Alamo model skeleton (.ALO, chunk 0x200); meshes are ignored",
    ".alo",
    1,
    alamo_alo_probe,
    alamo_alo_read,
    alamo_alo_write,
    NULL,
    NULL,
};
