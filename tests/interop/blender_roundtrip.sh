#!/usr/bin/env bash
# Back into the game through Blender, as a modder does it (docs/roundtrip.md), for one
# file of every writable format: ganim exports a glb; Debian's Blender imports it with its
# own glTF importer and exports it again with its own exporter, once untouched and once
# with one bone rotated at one frame; ganim puts the result `--into` the original file.
# Then the two game files are compared value by value (compare_dumps.py, on `ganim dump`):
# untouched, nothing may move by more than the case's tolerance (Blender's float noise
# after the format's own quantisation); edited, exactly that bone at that frame turns and
# nothing else moves.
#
#   tests/interop/blender_roundtrip.sh GANIM
#
# Skips (exit 77) without Blender (make check installs it when root: apt blender,
# python3-numpy) or without the real samples (an error under CI=true or GANIM_TESTDATA).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ganim="$(cd "$(dirname "${1:?usage: blender_roundtrip.sh GANIM}")" && pwd)/$(basename "$1")"
data="${GANIM_TESTDATA:-${GANIM_TESTDATA_DEFAULT:-$here/../../../shared/testdata}}"
skip() {
    echo "SKIPPED: blender round trip: $1"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "blender_roundtrip (game -> Blender -> game, $1)" >> "$GANIM_SKIP_LOG"
    echo "0 passed, 0 failed, 1 skipped"; exit 77
}
if [ ! -d "$data" ]; then
    if [ -n "${GANIM_TESTDATA:-}" ] || [ "${CI:-}" = true ]; then
        echo "blender round trip: test data '$data' is missing"; echo "0 passed, 1 failed"; exit 1
    fi
    skip "no test data in '$data'"
fi
command -v blender >/dev/null 2>&1 || skip "no Blender (apt-get install blender python3-numpy)"
# Debian's Blender runs the system Python 3: a PATH without other Python installs.
blender_run() { env -i HOME="${HOME:-/tmp}" PATH=/usr/bin:/bin blender -b --factory-startup --python-exit-code 1 -P "$here/blender_roundtrip.py" -- "$@"; }

work="$(mktemp -d "${TMPDIR:-/tmp}/ganim-blender.XXXXXX")"
[ -n "${GANIM_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
passed=0 failed=0
# file | fps | animation | its clip in the file | bone | frame | degrees | tolerance | ganim options
cases=(
    "ff7/humanoid_bkey0.da|15|body_2+weapon_8|2|bone_3|5|25|2e-3|"
    "alamo/VCCo_IPV1_D_DIE_00.ALA|30|VCCo_IPV1_D_DIE_00|0|IPV1|20|30|2e-3|"
    "alamo/BM_BERTH_D_DIE_00.ala|30|BM_BERTH_D_DIE_00|0|front|10|30|2e-3|"
    "acl/short_f16_r30_b33.v0.civ|30|short_f16_r30_b33.v0|0|track_5|7|30|1e-4|"
    "argonaut/hp_level.wad|30|hp_level_1|1|group_1|5|30|2e-3|"
)
for c in "${cases[@]}"; do
    IFS='|' read -r rel fps anim clip bone frame deg tol opts <<< "$c"
    name="$(basename "$rel")"
    src="$data/$rel"
    [ -f "$src" ] || { echo "FAIL: $rel: missing"; failed=$((failed + 1)); continue; }
    d="$work/$name"; mkdir -p "$d"
    # shellcheck disable=SC2086
    if ! "$ganim" convert "$src" $opts -o "$d/game.glb" > "$d/log" 2>&1; then
        echo "FAIL: $rel: export"; sed 's/^/  /' "$d/log"; failed=$((failed + 1)); continue
    fi
    "$ganim" dump "$src" $opts > "$d/orig.json" 2>> "$d/log"
    # the written file has no companion beside it: its dump takes the original's skeleton
    skel="$(python3 -c 'import json, sys; s = json.load(sys.stdin).get("skeleton") or {}; print(s.get("file") or "")' < <("$ganim" info --json "$src" $opts))"
    skelopt=(); [ -n "$skel" ] && skelopt=(--skeleton "$skel")
    for mode in untouched edited; do
        if [ "$mode" = edited ]; then edit=("$anim" "$bone" "$frame" "$deg"); else edit=(); fi
        if ! blender_run "$d/game.glb" "$d/$mode.glb" "$fps" "${edit[@]}" > "$d/blender-$mode.log" 2>&1; then
            echo "FAIL: $rel $mode: Blender"; grep -E "FAIL|Error|Traceback" "$d/blender-$mode.log" | head -5 | sed 's/^/  /'
            failed=$((failed + 1)); continue
        fi
        ext="${name##*.}"
        out="$d/$mode.$ext"
        if ! "$ganim" convert "$d/$mode.glb" --into "$src" -o "$out" > "$d/into-$mode.log" 2>&1; then
            echo "FAIL: $rel $mode: ganim convert --into"; sed 's/^/  /' "$d/into-$mode.log" | head -5
            failed=$((failed + 1)); continue
        fi
        "$ganim" dump "$out" "${skelopt[@]}" $opts > "$d/$mode.json" 2>> "$d/log"
        if [ "$mode" = edited ]; then cmp=(--edit "$clip" "$bone" "$frame"); else cmp=(); fi
        if python3 "$here/compare_dumps.py" "$d/orig.json" "$d/$mode.json" --tol "$tol" "${cmp[@]}" > "$d/compare-$mode.txt"; then
            echo "ok: $rel $mode ($(grep -o 'the edit landed.*' "$d/compare-$mode.txt" || echo 'nothing moved'))"
            passed=$((passed + 1))
        else
            echo "FAIL: $rel $mode:"; grep -v passed "$d/compare-$mode.txt" | head -5 | sed 's/^/  /'
            failed=$((failed + 1))
        fi
    done
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
