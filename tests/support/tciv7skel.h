/* Civilization VII skeleton blobs ("RootNode", format civ7-skeleton) made in tests: the
 * layout docs/formats/acl.md describes, 296 bytes a bone. ganim only reads these files;
 * this is the project's own writer of them, for fixtures and tests. */
#ifndef GANIM_TEST_TCIV7SKEL_H
#define GANIM_TEST_TCIV7SKEL_H

#include <stddef.h>
#include <stdint.h>

#define TCIV7_RECORD 296u

/* One bone: name (at most 159 bytes), parent (-1 or an earlier bone), local translation
 * and rotation (x, y, z, w). */
typedef struct tciv7_bone {
    const char *name;
    int32_t parent;
    float t[3];
    float q[4];
} tciv7_bone;

/* The blob of `n` bones (malloc'd, n * 296 bytes): name, two identity quaternions as
 * blp-studio saw them (+0xA0 0,0,0,1; +0xB0 1,0,0,0), the world pose composed from the
 * locals in double (+0xC0, +0xD0), the locals (+0xE0, +0xF0), the world position times
 * `scale` with `scale` (+0x100), the world rotation again (+0x110), FNV-1a 32 of the name
 * as the hash (the game's hash function is not known) and the parent (+0x124). */
uint8_t *tciv7_skel(const tciv7_bone *bones, uint32_t n, float scale, size_t *size);

#endif
