#!/usr/bin/env bash
# valgrind --leak-check=full over the command line on every real sample and fixture:
# info, info --json, dump, every export (glb, gltf + bin, bvh, json), and the file written
# back in its own format. Any error or leak valgrind reports fails the run.
#
#   tests/valgrind/run.sh path/to/ganim      (a build without sanitizers: make valgrind)
#
# Prints one line per file and "N passed, N failed". GANIM_VALGRIND_JOBS (default 2)
# files at once.
set -u
ganim="$(cd "$(dirname "${1:?usage: run.sh path/to/ganim}")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
data=${GANIM_TESTDATA:-$repo/../shared/testdata}
command -v valgrind >/dev/null || { echo "valgrind: not installed (apt-get install valgrind)"; echo "0 passed, 1 failed"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    [ -d "$data" ] && find "$data" -type f ! -name '*.md' ! -name '*.txt' ! -name '*.json'
    find "$repo/examples" "$repo/tests/data" -type f ! -name '*.md' ! -name '*.txt' ! -name '*.json' ! -name '*.py' ! -name '*.sh' ! -name '*.mjs'
} | sort > "$work/files"
export ganim work
one() { # one file: every command under valgrind
    local f="$1" d
    d=$(mktemp -d "$work/f.XXXXXX")
    local vg=(valgrind --quiet --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all
              --error-exitcode=99 --log-file="$d/vg.%p")
    local bad=0
    "${vg[@]}" "$ganim" info "$f" >/dev/null 2>&1; [ $? = 99 ] && bad=1
    "${vg[@]}" "$ganim" info --json "$f" >/dev/null 2>&1; [ $? = 99 ] && bad=1
    "${vg[@]}" "$ganim" dump "$f" >/dev/null 2>&1; [ $? = 99 ] && bad=1
    for ext in glb gltf bvh json; do
        "${vg[@]}" "$ganim" convert -q "$f" -o "$d/out.$ext" >/dev/null 2>&1; [ $? = 99 ] && bad=1
    done
    "${vg[@]}" "$ganim" convert -q "$f" -o "$d/own" >/dev/null 2>&1; [ $? = 99 ] && bad=1
    if [ "$bad" = 1 ]; then
        echo "FAIL $f"
        cat "$d"/vg.* | head -40
    else
        echo "ok   $f"
    fi
}
export -f one
xargs -d '\n' -P "${GANIM_VALGRIND_JOBS:-2}" -I{} bash -c 'one "$1"' _ {} < "$work/files" > "$work/results"
cat "$work/results"
pass=$(grep -c '^ok' "$work/results")
fail=$(grep -c '^FAIL' "$work/results")
echo "valgrind: $(wc -l < "$work/files") files, 8 commands each"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
