/* The Argonaut formats: level WADs and bare animation blocks (one format: the bytes say
 * which), and the DAT/DIR archives that hold the WADs. */
#include "formats/argonaut/argonaut.h"

const ganim_option argonaut_options[] = {
    { "argonaut.variant", "variant", GANIM_OPTION_CHOICE, GANIM_OPTION_READ | GANIM_OPTION_WRITE, "croc2|hp",
      "the game's layout: Croc 2 (0x20-byte animation headers, 0x64-byte model headers) or Harry Potter 1/2 "
      "(0x30, 0x68; matrices or quaternion keys)",
      "reading: the variant the models and records fit; writing: the variant the file was read as, else the one "
      "its clips' records were read as, else croc2" },
    { "argonaut.convention", "convention", GANIM_OPTION_CHOICE, GANIM_OPTION_READ | GANIM_OPTION_WRITE, "sv|vs",
      "how stored rotations act on a vertex: sv = v' = S v + t with quaternions as R(q)^T; vs = v' = S^T v + t "
      "with quaternions as R(q)",
      "sv, the GTE's own layout (the file's own convention when writing a document read from one)" },
    { "argonaut.model", "model", GANIM_OPTION_INT, GANIM_OPTION_READ, "0..65535",
      "read model N of a level WAD as a mesh on its vertex groups, animated by every animation whose bone count "
      "equals its group count",
      "no mesh: the animations on a flat skeleton of as many groups as the largest animation moves" },
    { "argonaut.container", NULL, GANIM_OPTION_CHOICE, GANIM_OPTION_WRITE, "wad|block",
      "write the level WAD the document was read from, with its animation block replaced, or only the animation "
      "block (u32 count and the records)",
      "the container the document was read from; a document of another format needs the level it goes into (--into "
      "ORIGINAL.wad) or container=block" },
};

static const struct ganim_format_impl argonaut_impl = {
    .probe = argonaut_probe,
    .read = argonaut_read,
    .write = argonaut_write,
    .details = argonaut_details,
    .axes = 1 + GANIM_AXES_Y_UP,
};

const ganim_format ganim_format_argonaut = {
    AG,
    "Argonaut PS1 animations and models (Croc 2, Harry Potter 1/2): level WADs (XSPD section) and bare animation "
    "blocks",
    "argonaut",
    ".wad",
    GANIM_FORMAT_READ | GANIM_FORMAT_WRITE,
    argonaut_options,
    4,
    NULL,
    &argonaut_impl,
};

static const struct ganim_format_impl dir_impl = {
    .probe = argonaut_dir_probe,
    .read = argonaut_dir_read,
    .details = argonaut_dir_details,
    .member = argonaut_dir_member,
};

const ganim_format ganim_format_argonaut_dir = {
    AG_DIR,
    "Argonaut PS1 archive directory (CROCII.DIR, POTTER.DIR): lists the files of its .DAT; read a WAD inside as "
    "ARCHIVE.DIR:NAME.WAD",
    "argonaut",
    ".dir",
    GANIM_FORMAT_READ,
    NULL,
    0,
    NULL,
    &dir_impl,
};
