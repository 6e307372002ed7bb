/* Every format descriptor, defined in its own file and listed in registry.c. */
#ifndef GANIM_FORMATS_FORMAT_H
#define GANIM_FORMATS_FORMAT_H

#include "ganim.h"

extern const ganim_format ganim_format_alamo_ala;   /* alamo/alamo.c */
extern const ganim_format ganim_format_alamo_alo;   /* alamo/alamo.c */
extern const ganim_format ganim_format_ff7_battle;  /* ff7_battle.c: ??da packs */
extern const ganim_format ganim_format_ff7_skeleton;/* ff7_battle.c: ??aa skeletons */
extern const ganim_format ganim_format_acl;         /* acl.c */
extern const ganim_format ganim_format_civ7;        /* civ7.c */

#endif
