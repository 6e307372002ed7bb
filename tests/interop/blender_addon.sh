#!/usr/bin/env bash
# The Blender add-on (docs/blender.md) in Debian's Blender, headless, as a user has it:
# dist/ganim_blender.zip installed into a throw-away Blender user folder
# (BLENDER_USER_SCRIPTS, BLENDER_USER_CONFIG), enabled, and for one file of every
# writable family (an FF7 pack with weapon animations, an ALA format 1 with hidden frames,
# an ALA format 2, a Civ VII V0 and a V1 file, a Harry Potter level WAD with a model as a
# skinned mesh, a Croc 2 level WAD without one): import (bones, actions, fps, frame range,
# bone positions against ganim: tests/interop/blender_addon.py), export untouched (the
# original's bytes), and one bone rotated at one frame exported (compare_dumps.py on
# `ganim dump`: that rotation lands, no other value of any clip of the file moves).
#
#   tests/interop/blender_addon.sh ZIP GANIM
#   tests/interop/blender_addon.sh --lib LIBGANIM.so GANIM   (packs the zip first: the ctest)
#
# Skips (exit 77) without Blender or without the real samples (an error under CI=true or
# with GANIM_TESTDATA set). Takes about ten seconds.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage="usage: blender_addon.sh ZIP GANIM, or --lib LIBGANIM.so GANIM"
lib="" zip=""
if [ "${1:-}" = --lib ]; then
    lib="${2:?$usage}"; shift 2
else
    zip="$(cd "$(dirname "${1:?$usage}")" && pwd)/$(basename "$1")"; shift
fi
ganim="$(cd "$(dirname "${1:?$usage}")" && pwd)/$(basename "$1")"
data="${GANIM_TESTDATA:-${GANIM_TESTDATA_DEFAULT:-$here/../../../shared/testdata}}"
skip() {
    echo "SKIPPED: blender add-on: $1"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "blender_addon (the Blender add-on, $1)" >> "$GANIM_SKIP_LOG"
    echo "0 passed, 0 failed, 1 skipped"; exit 77
}
if [ ! -d "$data" ]; then
    if [ -n "${GANIM_TESTDATA:-}" ] || [ "${CI:-}" = true ]; then
        echo "blender add-on: test data '$data' is missing"; echo "0 passed, 1 failed"; exit 1
    fi
    skip "no test data in '$data'"
fi
data="$(cd "$data" && pwd)"
command -v blender >/dev/null 2>&1 || skip "no Blender (apt-get install blender python3-numpy)"
work="$(mktemp -d "${TMPDIR:-/tmp}/ganim-addon.XXXXXX")"
[ -n "${GANIM_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
if [ -n "$lib" ]; then
    zip="$work/ganim_blender.zip"
    bash "$here/../../blender/package.sh" "$lib" "$zip" || { echo "0 passed, 1 failed"; exit 1; }
fi
[ -f "$zip" ] || { echo "blender add-on: $zip is missing (make blender-addon)"; echo "0 passed, 1 failed"; exit 1; }

mkdir -p "$work/scripts" "$work/config" "$work/out"
# a file of another game, for the refused export (the project's own fixture)
cp "$here/../data/acl/fixture.v0.civ" "$work/out/other.civ"
# file | animation | bone | frame | degrees | Argonaut model | the edited clip's index |
# how far an untouched value may move: 0 (to the bit) everywhere but in a Civ VII V1 file,
# whose ACL body the encoder compresses again, each value within its precision (0.01 at
# the shell distance: docs/formats/acl.md)
cases=(
    "ff7/humanoid_bkey0.da|body_2+weapon_8|bone_3|5|25||2|0"
    "alamo/VCCo_IPV1_D_DIE_00.ALA|VCCo_IPV1_D_DIE_00|IPV1|20|30||0|0"
    "alamo/BM_BERTH_D_DIE_00.ala|BM_BERTH_D_DIE_00|front|10|30||0|0"
    "acl/short_f16_r30_b33.v0.civ|short_f16_r30_b33.v0|track_5|7|30||0|0"
    "acl/short_f16_r30_b33.civ|short_f16_r30_b33|track_5|7|30||0|0.01"
    "argonaut/hp_level.wad|hp_level_1|group_1|5|30|1|1|0"
    "argonaut/croc2_level.wad|croc2_level_3|group_2|2|30||3|0"
)
args=()
for c in "${cases[@]}"; do
    IFS='|' read -r rel anim bone frame deg model clip tol <<< "$c"
    args+=("$data/$rel|$anim|$bone|$frame|$deg|$model")
done
# Debian's Blender runs the system Python 3: a PATH without other Python installs.
env -i HOME="$work" PATH=/usr/bin:/bin BLENDER_USER_SCRIPTS="$work/scripts" BLENDER_USER_CONFIG="$work/config" \
    blender -b --factory-startup --python-exit-code 1 -P "$here/blender_addon.py" -- "$zip" "$work/out" "${args[@]}" \
    > "$work/blender.log" 2>&1
status=$?
grep -E "^(ok|FAIL|blender:)" "$work/blender.log"
passed=$(grep -c "^ok:" "$work/blender.log") failed=$(grep -c "^FAIL:" "$work/blender.log")
if [ "$status" != 0 ] && [ "$failed" = 0 ]; then
    echo "FAIL: Blender exited with $status:"; grep -E "Error|Traceback" -A3 "$work/blender.log" | head -20 | sed 's/^/  /'
    failed=$((failed + 1))
fi
for c in "${cases[@]}"; do
    IFS='|' read -r rel anim bone frame deg model clip tol <<< "$c"
    name="$(basename "$rel")" src="$data/$rel" o="$work/out/$(basename "$rel")"
    if cmp -s "$src" "$o.untouched"; then
        echo "ok: $rel: untouched export is the original, byte for byte"; passed=$((passed + 1))
    else
        echo "FAIL: $rel: untouched export differs from the original"; failed=$((failed + 1))
    fi
    opts=(); [ -n "$model" ] && opts=(--argonaut-model "$model")
    skel="$("$ganim" info --json "$src" | python3 -c 'import json, sys; s = json.load(sys.stdin).get("skeleton") or {}; print(s.get("file") or "")')"
    skelopt=(); [ -n "$skel" ] && skelopt=(--skeleton "$skel")
    "$ganim" dump "$src" "${opts[@]}" > "$o.orig.json" 2> "$o.log"
    if ! [ -s "$o.edited" ] || ! "$ganim" dump "$o.edited" --format "$("$ganim" info --json "$src" | python3 -c 'import json,sys; print(json.load(sys.stdin)["format"])')" \
            "${skelopt[@]}" "${opts[@]}" > "$o.edited.json" 2>> "$o.log"; then
        echo "FAIL: $rel: the edited export cannot be read"; sed 's/^/  /' "$o.log" | head -5; failed=$((failed + 1)); continue
    fi
    # the edit lands; every other value of every clip is the original's (to the bit, or
    # within the lossy encoder's precision)
    if python3 "$here/compare_dumps.py" "$o.orig.json" "$o.edited.json" --tol "$tol" --edit "$clip" "$bone" "$frame" > "$o.compare.txt"; then
        echo "ok: $rel: edited export: $(grep -o 'the edit landed.*' "$o.compare.txt"), nothing else moved by more than $tol"
        passed=$((passed + 1))
    else
        echo "FAIL: $rel: edited export:"; grep -v passed "$o.compare.txt" | head -5 | sed 's/^/  /'; failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
