#!/usr/bin/env bash
# Real clients read what ganim writes. Usage: tests/interop/run.sh PATH/TO/ganim
#
# Converts every input (cases.mjs: the real samples under $GANIM_TESTDATA of every
# readable format, by the registry's families and extensions, and the project's own
# fixtures in tests/data and examples/) to .glb, .gltf + .bin and .bvh in a temporary
# folder, with the companion skeleton ganim finds itself, then checks them with the
# Khronos glTF validator (0 errors, 0 warnings), three.js GLTFLoader + AnimationMixer
# (joints, tracks, durations, one bone's rotation at t = 0 against `ganim dump`) and
# three.js BVHLoader (bones, frames). For real samples the expected numbers come from the
# test data (tests/formats/<family>/expect.mjs), not from ganim.
# Ends with "N passed, N failed"; exit status 1 on any failure.
#
# Environment: GANIM_TESTDATA (default $GANIM_TESTDATA_DEFAULT, else ../shared/testdata
# next to the repository; without it only the fixtures run, unless CI=true or
# GANIM_TESTDATA is set), GANIM_INTEROP_KEEP=1 keeps the output folder,
# GANIM_INTEROP_ONLY=substring limits the inputs to matching file names.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ganim="${1:?usage: run.sh PATH/TO/ganim}"
[ -x "$ganim" ] || { echo "run.sh: '$ganim' is not an executable"; echo "0 passed, 1 failed"; exit 1; }
ganim="$(cd "$(dirname "$ganim")" && pwd)/$(basename "$ganim")"
data="${GANIM_TESTDATA:-${GANIM_TESTDATA_DEFAULT:-$here/../../../shared/testdata}}"
if [ -d "$data" ]; then
    data="$(cd "$data" && pwd)"
elif [ -n "${GANIM_TESTDATA:-}" ] || [ "${CI:-}" = true ]; then
    echo "run.sh: test data not found in '$data'"; echo "0 passed, 1 failed"; exit 1
else
    echo "SKIPPED: interop on the real samples: no test data in '$data' (set GANIM_TESTDATA=/path/to/testdata to run it); the fixtures run"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "interop on the real samples (fixtures checked)" >> "$GANIM_SKIP_LOG"
    data=-
fi
repo="$(cd "$here/../.." && pwd)"
if [ ! -d "$here/node_modules/three" ] || [ ! -d "$here/node_modules/gltf-validator" ]; then
    echo "run.sh: node modules missing: run 'npm ci' in tests/interop (make check does)"
    echo "0 passed, 1 failed"; exit 1
fi
# The sanitizer build's leak checker must not turn a clean exit into a failure here:
# leaks are the unit tests' business; this script is about the files.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

out="$(mktemp -d "${TMPDIR:-/tmp}/ganim-interop.XXXXXX")"
if [ "${GANIM_INTEROP_KEEP:-0}" = 1 ]; then echo "run.sh: output kept in $out"
else trap 'rm -rf "$out"' EXIT; fi

passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

only="${GANIM_INTEROP_ONLY:-}"
cases="$out/cases.tsv"
node "$here/cases.mjs" "$ganim" "$data" "$repo" "$out" > "$out/all.tsv" ||
    { echo "run.sh: cases.mjs failed"; echo "0 passed, 1 failed"; exit 1; }
if [ -n "$only" ]; then awk -F'\t' -v o="$only" 'index($3, o)' "$out/all.tsv" > "$cases"; else cp "$out/all.tsv" "$cases"; fi
n=$(wc -l < "$cases")
echo "run.sh: $n inputs ($(grep -c $'\tsample\t' "$cases") real samples from $data, $(grep -c $'\tfixture\t' "$cases") fixtures)"

# ---- 1. conversions (two at a time: the machine has two cores) ----------------------
convert_one() { # id family input kind prefix (ganim finds the companion skeleton itself)
    local id="$1" input="$3" p="$5" log="$5.log" rc=0 kind
    : > "$log"
    for kind in glb gltf bvh; do
        if ! "$ganim" convert "$input" -o "$p.$kind" >>"$log" 2>&1 || [ ! -s "$p.$kind" ]; then
            echo "convert-$kind $input" >> "$p.failed"; rc=1
        fi
    done
    "$ganim" info --json "$input" > "$p.info.json" 2>>"$log" || { echo "info $input" >> "$p.failed"; rc=1; }
    "$ganim" dump "$input" > "$p.dump.json" 2>>"$log" || { echo "dump $input" >> "$p.failed"; rc=1; }
    return $rc
}
export -f convert_one
export ganim
t0=$SECONDS
cut -f1-5 "$cases" | tr '\t' '\n' | xargs -d '\n' -n 5 -P 2 bash -c 'convert_one "$@"' _ || true
while IFS=$'\t' read -r id family input kind p; do
    for step in convert-glb convert-gltf convert-bvh info dump; do
        if [ -e "$p.failed" ] && grep -q "^$step " "$p.failed"; then
            fail "$step ${input##*/}"
            sed 's/^/    /' "$p.log" | head -5
        else pass; fi
    done
done < "$cases"
echo "run.sh: conversions done in $((SECONDS - t0)) s"

# ---- 2. validator, three.js glTF, three.js BVH (one Node process each, in parallel) --
gltfs=()
while IFS=$'\t' read -r id family input kind p; do
    for f in "$p.glb" "$p.gltf"; do [ -s "$f" ] && gltfs+=("$f"); done
done < "$cases"
t0=$SECONDS
node "$here/validate.mjs" "${gltfs[@]}" > "$out/validate.txt" 2>&1 &
vpid=$!
node "$here/three_check.mjs" "$cases" "$data" > "$out/three.txt" 2>&1 &
tpid=$!
wait $vpid; wait $tpid
node "$here/three_bvh.mjs" "$cases" "$data" > "$out/bvh.txt" 2>&1
for r in validate three bvh; do
    grep -v '^PASS ' "$out/$r.txt" | grep -v '^[0-9]* passed, [0-9]* failed$'
    last="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out/$r.txt" | tail -1)"
    if [ -z "$last" ]; then fail "$r.mjs did not finish"; continue; fi
    set -- $last
    passed=$((passed + $1)); failed=$((failed + $3))
    echo "run.sh: $r: $last"
done
echo "run.sh: clients done in $((SECONDS - t0)) s"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
