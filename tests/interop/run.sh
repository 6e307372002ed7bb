#!/usr/bin/env bash
# Real clients read what ganim writes. Usage: tests/interop/run.sh PATH/TO/ganim
#
# Converts every real sample under $GANIM_TESTDATA (Alamo .ALA with its .ALO, FF7 .da
# with its .aa, ACL .acl/.civ/.v0.civ) to .glb, .gltf + .bin and .bvh in a temporary
# folder, then checks them with the Khronos glTF validator (0 errors, 0 warnings),
# three.js GLTFLoader + AnimationMixer (joints, tracks, durations, one bone's rotation at
# t = 0 against `ganim dump`) and three.js BVHLoader (bones, frames). The expected
# numbers come from the test-data READMEs and expected JSON files, not from ganim.
# Ends with "N passed, N failed"; exit status 1 on any failure.
#
# Environment: GANIM_TESTDATA (default ../shared/testdata next to the repository),
# GANIM_INTEROP_KEEP=1 keeps the output folder, GANIM_INTEROP_ONLY=substring limits the
# inputs to matching file names.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ganim="${1:?usage: run.sh PATH/TO/ganim}"
[ -x "$ganim" ] || { echo "run.sh: '$ganim' is not an executable"; echo "0 passed, 1 failed"; exit 1; }
ganim="$(cd "$(dirname "$ganim")" && pwd)/$(basename "$ganim")"
data="${GANIM_TESTDATA:-$here/../../../shared/testdata}"
[ -d "$data/alamo" ] && [ -d "$data/ff7" ] && [ -d "$data/acl" ] ||
    { echo "run.sh: test data not found in '$data' (set GANIM_TESTDATA)"; echo "0 passed, 1 failed"; exit 1; }
data="$(cd "$data" && pwd)"
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

lower() { printf '%s' "$1" | tr '[:upper:]' '[:lower:]'; }
stem() { local b="${1##*/}"; printf '%s' "${b%.*}"; }

# The companion skeleton among "$@" for animation $anim: same stem, or the longest stem
# that is a prefix followed by "_" (VSF_XWING.ALO for VSF_XWING_DEPLOY_00.ALA).
companion_of() {
    local anim="$1"; shift
    local s best="" bestlen=0 c b
    s="$(lower "$(stem "$anim")")"
    for c in "$@"; do
        [ -e "$c" ] || continue
        b="$(lower "$(stem "$c")")"
        if [ "$s" = "$b" ] || [ "${s#"${b}_"}" != "$s" ]; then
            [ ${#b} -gt $bestlen ] && { best="$c"; bestlen=${#b}; }
        fi
    done
    printf '%s' "$best"
}

only="${GANIM_INTEROP_ONLY:-}"
cases="$out/cases.tsv"
: > "$cases"
n=0
add_case() { # family input skeleton ("-" when none: bash's read would drop an empty field)
    local family="$1" input="$2" skel="${3:--}"
    [ -n "$only" ] && [[ "$input" != *"$only"* ]] && return
    n=$((n + 1))
    printf '%s\t%s\t%s\t%s\t%s\n' "c$n" "$family" "$input" "$skel" "$out/c$n" >> "$cases"
}

shopt -s nullglob nocaseglob
alos=("$data"/alamo/*.alo)
for f in "$data"/alamo/*.ala; do add_case alamo "$f" "$(companion_of "$f" "${alos[@]}")"; done
aas=("$data"/ff7/*.aa)
for f in "$data"/ff7/*.da; do add_case ff7 "$f" "$(companion_of "$f" "${aas[@]}")"; done
for f in "$data"/acl/*.acl "$data"/acl/*.civ; do add_case acl "$f" ""; done
shopt -u nullglob nocaseglob
echo "run.sh: $n inputs from $data"

# ---- 1. conversions (two at a time: the machine has two cores) ----------------------
convert_one() { # id family input skeleton prefix
    local id="$1" input="$3" skel="$4" p="$5" log="$5.log" rc=0 kind
    local -a sk=()
    [ "$skel" != - ] && sk=(--skeleton "$skel")
    : > "$log"
    for kind in glb gltf bvh; do
        if ! "$ganim" convert "${sk[@]}" "$input" -o "$p.$kind" >>"$log" 2>&1 || [ ! -s "$p.$kind" ]; then
            echo "convert-$kind $input" >> "$p.failed"; rc=1
        fi
    done
    "$ganim" info --json "${sk[@]}" "$input" > "$p.info.json" 2>>"$log" || { echo "info $input" >> "$p.failed"; rc=1; }
    "$ganim" dump "${sk[@]}" "$input" > "$p.dump.json" 2>>"$log" || { echo "dump $input" >> "$p.failed"; rc=1; }
    return $rc
}
export -f convert_one
export ganim
t0=$SECONDS
cut -f1-5 "$cases" | tr '\t' '\n' | xargs -d '\n' -n 5 -P 2 bash -c 'convert_one "$@"' _ || true
while IFS=$'\t' read -r id family input skel p; do
    for step in convert-glb convert-gltf convert-bvh info dump; do
        if [ -e "$p.failed" ] && grep -q "^$step " "$p.failed"; then
            fail "$step ${input##*/}$([ "$skel" != - ] && echo " (skeleton ${skel##*/})")"
            sed 's/^/    /' "$p.log" | head -5
        else pass; fi
    done
done < "$cases"
echo "run.sh: conversions done in $((SECONDS - t0)) s"

# ---- 2. validator, three.js glTF, three.js BVH (one Node process each, in parallel) --
gltfs=()
while IFS=$'\t' read -r id family input skel p; do
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
