#!/usr/bin/env bash
# The browser viewer against the native tool: tests/web/run.sh BUILD DIST
#   BUILD  a native build folder (its ganim and libganim.a: make check-web uses build/)
#   DIST   the page (make web: web/dist)
# Builds tests/web/pose_native.c against BUILD's library, runs samples_test.mjs (every
# sample and fixture through the page's bridge in Node, against the tool), then
# viewer_test.mjs in headless Chromium over one file set of every family: the real samples under
# $GANIM_TESTDATA when there are some (else the project's own fixtures, and a note in
# the skip log), and the project's fixtures of the families the samples do not have
# (glTF, BVH, an Argonaut archive). Screenshots go to BUILD/web-test/.
# Ends with "N passed, N failed"; exit status 1 on any failure.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="$(cd "${1:?usage: run.sh BUILD DIST}" && pwd)"
dist="$(cd "${2:?usage: run.sh BUILD DIST}" && pwd)"
[ -x "$build/ganim" ] && [ -f "$build/libganim.a" ] || { echo "run.sh: no ganim or libganim.a in $build"; echo "0 passed, 1 failed"; exit 1; }
[ -f "$dist/index.html" ] && [ -f "$dist/ganim.wasm" ] || { echo "run.sh: no page in $dist (make web)"; echo "0 passed, 1 failed"; exit 1; }
[ -d "$repo/web/node_modules/playwright-core" ] || { echo "run.sh: web/node_modules missing: run 'npm ci' in web/ (make web does)"; echo "0 passed, 1 failed"; exit 1; }
command -v "${CHROMIUM:-chromium}" >/dev/null || { echo "run.sh: no chromium (sudo apt-get install -y chromium)"; echo "0 passed, 1 failed"; exit 1; }

data="${GANIM_TESTDATA:-${GANIM_TESTDATA_DEFAULT:-$repo/../shared/testdata}}"
if [ -d "$data" ]; then
    data="$(cd "$data" && pwd)"
elif [ -n "${GANIM_TESTDATA:-}" ] || [ "${CI:-}" = true ]; then
    echo "run.sh: test data not found in '$data'"; echo "0 passed, 1 failed"; exit 1
else
    echo "SKIPPED: the viewer on the real samples: no test data in '$data' (set GANIM_TESTDATA=/path/to/testdata); the fixtures run"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "web viewer on the real samples (fixtures checked)" >> "$GANIM_SKIP_LOG"
    data=-
fi

out="$build/web-test"
rm -rf "$out" && mkdir -p "$out"
cc="${CC:-cc}"
# A sanitizer build's library (make check's) links only with the sanitizers' runtimes;
# leaks are the unit tests' business here, as in tests/interop/run.sh.
san=()
if nm "$build/libganim.a" 2>/dev/null | grep -q __asan_; then
    san=(-fsanitize=address,undefined)
    export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi
"$cc" -std=c11 -O1 "${san[@]}" -I"$repo/include" "$here/pose_native.c" "$build/libganim.a" -lm -o "$out/pose_native" ||
    { echo "run.sh: cannot build pose_native"; echo "0 passed, 1 failed"; exit 1; }

# One case a line: id, folder, via (input: the file input; drop: drag-and-drop; hook:
# window.ganimViewer.open), files (the first is opened), reader options, archive member.
case_json() { # id dir via "file file..." ["k=v ..."] [member]
    local files opts=""
    files=$(printf '"%s",' $4); files="[${files%,}]"
    if [ -n "${5:-}" ]; then for kv in $5; do opts="$opts\"${kv%%=*}\":\"${kv#*=}\","; done; fi
    printf '{"id":"%s","dir":"%s","via":"%s","files":%s,"options":{%s},"member":%s}' \
        "$1" "$2" "$3" "$files" "${opts%,}" "$([ -n "${6:-}" ] && echo "\"$6\"" || echo null)"
}
cases=()
if [ "$data" != - ]; then
    cases+=("$(case_json alamo "$data/alamo" input "BM_BERTH_D_DIE_00.ala BM_BERTH_D.ALO")")
    cases+=("$(case_json ff7 "$data/ff7" drop "humanoid_bkey2.da humanoid_bkey2.aa")")
    cases+=("$(case_json acl "$data/acl" hook "acl20_walk_f100_r30_b52.acl")")
    cases+=("$(case_json civ7 "$data/acl" hook "acl20_walk_f100_r30_b52.civ")")
    cases+=("$(case_json argonaut "$data/argonaut" hook "croc2_level.wad")")
    cases+=("$(case_json argonaut-model "$data/argonaut" hook "hp_level.wad" "argonaut.model=0")")
else
    cases+=("$(case_json alamo "$repo/examples" input "crane_wave_00.ala crane.alo")")
    cases+=("$(case_json ff7 "$repo/tests/data/ff7" drop "fixture_pack.da fixture_pack.aa")")
    cases+=("$(case_json acl "$repo/tests/data/acl" hook "synth_metadata_v10.acl")")
    cases+=("$(case_json civ7 "$repo/tests/data/acl" hook "fixture.v0.civ")")
    cases+=("$(case_json argonaut "$repo/tests/data/argonaut" hook "fixture_croc2.wad")")
    cases+=("$(case_json argonaut-model "$repo/tests/data/argonaut" hook "fixture_croc2.wad" "argonaut.model=1")")
fi
cases+=("$(case_json argonaut-dir "$repo/tests/data/argonaut" hook "FIXTURE.DIR FIXTURE.DAT" "" LEVEL1.WAD)")
cases+=("$(case_json glb "$repo/tests/data/gltf" hook "threejs_run.glb")")
cases+=("$(case_json gltf "$repo/tests/data/gltf" drop "threejs_run.gltf")")
cases+=("$(case_json bvh "$repo/tests/data/bvh" input "blender_rig.bvh")")
json="[$(IFS=,; echo "${cases[*]}")]"

# Every sample and fixture through the page's bridge in Node (samples_test.mjs), then
# the page itself in Chromium (viewer_test.mjs).
folders=()
if [ "$data" != - ]; then for d in "$data"/*/; do folders+=("\"${d%/}\""); done; fi
for d in "$repo"/tests/data/*/ "$repo"/tests/data/regress/*/ "$repo/examples/"; do
    [ "$(basename "$d")" = regress ] || folders+=("\"${d%/}\"")
done
total_pass=0 total_fail=0
tally() { # the output of a test: its lines (to stderr), and its "N passed, N failed"
    # (not tee /dev/stderr: opening that truncates a log file stderr was sent to)
    local l line="" p f
    while IFS= read -r l; do printf '%s\n' "$l" >&2; line=$l; done
    p=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1/p' <<< "$line")
    f=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\2/p' <<< "$line")
    echo "${p:-0} ${f:-1}"
}
read -r p f < <(GANIM="$build/ganim" POSE_NATIVE="$out/pose_native" WASM="$dist/ganim.wasm" \
    FOLDERS="[$(IFS=,; echo "${folders[*]}")]" node "$here/samples_test.mjs" 2>&1 | tally)
total_pass=$((total_pass + p)) total_fail=$((total_fail + f))
read -r p f < <(GANIM="$build/ganim" POSE_NATIVE="$out/pose_native" DIST="$dist" OUT="$out" CASES="$json" \
    node "$here/viewer_test.mjs" 2>&1 | tally)
total_pass=$((total_pass + p)) total_fail=$((total_fail + f))
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
