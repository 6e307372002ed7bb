#!/usr/bin/env bash
# Short libFuzzer runs of every harness, seeded with every file of its format:
#   tests/fuzz/smoke.sh BUILD_FUZZ_DIR [SECONDS]
# SECONDS per run defaults to 10 under CI=true or GANIM_FULL=1, else 5; GANIM_FUZZ_JOBS
# runs (default 2) go at once.
# fuzz_format runs once per readable format (GANIM_FUZZ_FORMAT=name), seeded with that
# format's real samples ($GANIM_TESTDATA/<family>/ by its extensions) and the project's
# own fixtures (tests/data/<family>/, examples/); a family's own harness
# (tests/formats/<family>/fuzz_*.c) with every file of its family. The formats, their
# families and extensions come from `ganim formats`. A crash, leak, timeout or
# sanitizer report fails the run (libFuzzer exits non-zero; the inputs are kept in
# /tmp/ganim-fuzz-failures/).
set -u
build=$(cd "${1:?usage: smoke.sh BUILD_FUZZ_DIR [SECONDS]}" && pwd) || { echo "smoke: no build directory $1"; echo "0 passed, 1 failed"; exit 1; }
if [ "${CI:-}" = true ] || [ "${GANIM_FULL:-}" = 1 ]; then secs=${2:-10}; else secs=${2:-5}; fi
jobs=${GANIM_FUZZ_JOBS:-2}
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
data=${GANIM_TESTDATA:-$repo/../shared/testdata}
if [ ! -d "$data" ]; then
    if [ -n "${GANIM_TESTDATA:-}" ] || [ "${CI:-}" = true ]; then
        echo "smoke: test data '$data' is missing"; echo "0 passed, 1 failed"; exit 1
    fi
    echo "SKIPPED: the real samples as fuzz seeds: no test data in '$data' (the fixtures seed the runs)"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "libFuzzer smoke runs seeded with the real samples (fixtures seeded them)" >> "$GANIM_SKIP_LOG"
    data=""
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT


# FORMAT FAMILY EXTENSIONS for each readable format, from the table of `ganim formats`.
"$build/ganim" formats | awk 'NR > 1 && NF == 0 { exit } NR > 1 && $2 == "yes" { print $1, $5, $6 }' > "$work/formats"
[ -s "$work/formats" ] || { echo "smoke: no formats from $build/ganim formats"; echo "0 passed, 1 failed"; exit 1; }

# Every extension some format claims; a file with none of them belongs to the format its
# probe picks (as the tool picks the files of a folder: by extension, else by content).
all_exts=$(awk '$3 != "-" { print $3 }' "$work/formats" | tr ';\n' '  ')
claimed() { # lower-case file name
    local e
    for e in $all_exts; do case "$1" in *"$e") return 0 ;; esac; done
    return 1
}

# seeds DIR EXTENSIONS|* FORMAT -> copies the matching files of DIR into the seed folder
seeds_from() { # folder, extensions (";"-separated) or "*", destination, format name
    local dir="$1" exts="$2" dest="$3" name="${4:-}" f e lower
    [ -d "$dir" ] || return 0
    for f in "$dir"/*; do
        [ -f "$f" ] || continue
        case "$f" in *.md|*.txt|*.json) continue ;; esac
        lower=$(printf '%s' "$f" | tr '[:upper:]' '[:lower:]')
        if [ "$exts" = "*" ]; then cp "$f" "$dest/"; continue; fi
        for e in ${exts//;/ }; do
            case "$lower" in *"$e") cp "$f" "$dest/"; continue 2 ;; esac
        done
        if [ -n "$name" ] && ! claimed "$lower" &&
            [ "$("$build/ganim" info --json --no-companion "$f" 2>/dev/null | sed -n 's/^"format":"\(.*\)",$/\1/p')" = "$name" ]; then
            cp "$f" "$dest/"
        fi
    done
}

run() { # label, harness, seed folder (GANIM_FUZZ_FORMAT from the caller's environment)
    local label="$1" h="$2" seeds="$3" dir="$work/$1"
    mkdir -p "$dir/corpus" "$dir/art"
    if (cd "$dir/art" && "$h" -max_total_time="$secs" -max_len=262144 -rss_limit_mb=2048 -timeout=20 \
            -print_final_stats=1 "$dir/corpus" "$seeds" >"$dir/log" 2>&1); then
        echo pass > "$dir/result"
        echo "PASS $label: $(grep -a number_of_executed_units "$dir/log" | grep -o "[0-9]*$") runs in ${secs}s, $(ls "$seeds" | wc -l) seeds"
    else
        echo fail > "$dir/result"
        { echo "FAIL $label:"
          tail -40 "$dir/log"
          mkdir -p /tmp/ganim-fuzz-failures && cp -r "$dir" /tmp/ganim-fuzz-failures/ 2>/dev/null
          echo "(inputs kept in /tmp/ganim-fuzz-failures/$label)"; } > "$dir/report"
        cat "$dir/report"
    fi
}
start() { # like run, in the background, at most $jobs at once
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    run "$@" &
}
echo "smoke: $(wc -l < "$work/formats") formats and the family harnesses, ${secs} s each, $jobs at a time"

while read -r name family exts; do
    s="$work/seeds-$name"
    mkdir -p "$s"
    [ -n "$data" ] && seeds_from "$data/$family" "$exts" "$s" "$name"
    seeds_from "$repo/tests/data/$family" "$exts" "$s" "$name"
    seeds_from "$repo/examples" "$exts" "$s" "$name"
    GANIM_FUZZ_FORMAT="$name" start "fuzz_format-$name" "$build/fuzz_format" "$s"
done < "$work/formats"

for src in "$repo"/tests/formats/*/fuzz_*.c; do
    [ -e "$src" ] || continue
    name=$(basename "$src" .c)
    family=$(basename "$(dirname "$src")")
        [ -x "$build/$name" ] || { mkdir -p "$work/$name"; echo fail > "$work/$name/result"; echo "FAIL $name: not built in $build"; continue; }
    s="$work/seeds-$name"
    mkdir -p "$s"
    [ -n "$data" ] && seeds_from "$data/$family" "*" "$s"
    seeds_from "$repo/tests/data/$family" "*" "$s"
        start "$name" "$build/$name" "$s"
done
wait
pass=$(cat "$work"/*/result 2>/dev/null | grep -c pass)
fail=$(cat "$work"/*/result 2>/dev/null | grep -c fail)
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
