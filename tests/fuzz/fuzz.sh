#!/usr/bin/env bash
# libFuzzer runs of every harness, seeded with every file of its format and given the
# format's dictionary (tests/fuzz/dict/):
#
#   tests/fuzz/fuzz.sh BUILD_FUZZ_DIR [--smoke] [--seconds N | --runs N] [--only TEXT]
#                      [--corpus DIR] [--jobs N] [--report FILE] [--lean] [--max-len N]
#                      [--fixtures-only] [--keep DIR [--minimise-only]]
#
# The targets (the formats and their families and extensions come from `ganim formats`):
#   read-FORMAT        fuzz_format, GANIM_FUZZ_FORMAT=FORMAT, seeded with FORMAT's files
#   roundtrip-WRITER   fuzz_roundtrip, GANIM_FUZZ_WRITER=WRITER, seeded with every file
#   resample-export    fuzz_resample_export, seeded with every file
#   NAME               a family's own harness (tests/formats/FAMILY/NAME.c), its family's files
# --smoke (make check) runs one roundtrip target for every writer at once instead of one
# per writer. Each run lasts --seconds N (default 5, 10 under CI=true or GANIM_FULL=1) or
# --runs N executions; --jobs runs go at once (default 2). --corpus keeps each target's
# corpus in DIR/TARGET between runs; --report appends a Markdown row per target
# (executions, coverage, corpus, time, result) to FILE. --lean (the long campaigns) sets
# GANIM_FUZZ_LEAN=1: the reader targets skip what the other harnesses cover; --max-len
# bounds the inputs libFuzzer makes (default 262144). With both --runs and --seconds a
# run stops at whichever comes first; the round-trip and resample targets (a read, write
# and read again each) get a tenth of --runs. --fixtures-only seeds the runs with the
# project's own files only (tests/data, examples/), never the real samples: what
# --keep DIR keeps is committed. --keep DIR (make fuzz-campaign: tests/fuzz/corpus) seeds
# each target with DIR/TARGET too and, after a clean run, replaces DIR/TARGET with the
# smallest set of inputs of it and the run's corpus that covers the same edges (libFuzzer
# -set_cover_merge=1 -use_counters=0: the committed corpus stays small, inputs of at most
# 8 KB, 2 KB for the round-trip and resample targets; the run's whole corpus stays in
# --corpus), which make check replays. --minimise-only does that to each
# DIR/TARGET without fuzzing. A crash, leak, timeout or sanitizer report fails the run; the inputs are kept
# in /tmp/ganim-fuzz-failures/TARGET.
set -u
build=$(cd "${1:?usage: fuzz.sh BUILD_FUZZ_DIR [options]}" && pwd) || { echo "fuzz: no build directory $1"; echo "0 passed, 1 failed"; exit 1; }
shift
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
smoke=0 secs="" runs="" only="" corpus="" jobs=${GANIM_FUZZ_JOBS:-2} report="" maxlen=262144 fixtures_only=0 keep="" minimise_only=0
while [ $# -gt 0 ]; do
    case "$1" in
    --smoke) smoke=1 ;;
    --seconds) secs=$2; shift ;;
    --runs) runs=$2; shift ;;
    --only) only=$2; shift ;;
    --corpus) corpus=$2; shift ;;
    --jobs) jobs=$2; shift ;;
    --report) report=$2; shift ;;
    --lean) export GANIM_FUZZ_LEAN=1 ;;
    --max-len) maxlen=$2; shift ;;
    --fixtures-only) fixtures_only=1 ;;
    --keep) keep=$2; shift ;;
    --minimise-only) minimise_only=1 ;;
    *) echo "fuzz: unknown option $1"; echo "0 passed, 1 failed"; exit 1 ;;
    esac
    shift
done
if [ -z "$secs" ] && [ -z "$runs" ]; then
    if [ "${CI:-}" = true ] || [ "${GANIM_FULL:-}" = 1 ]; then secs=10; else secs=5; fi
fi
[ -n "$corpus" ] && { mkdir -p "$corpus" && corpus=$(cd "$corpus" && pwd); }
[ -n "$keep" ] && { mkdir -p "$keep" && keep=$(cd "$keep" && pwd); }
data=${GANIM_TESTDATA:-$repo/../shared/testdata}
if [ "$fixtures_only" = 1 ]; then
    data=""
elif [ ! -d "$data" ]; then
    if [ -n "${GANIM_TESTDATA:-}" ] || [ "${CI:-}" = true ]; then
        echo "fuzz: test data '$data' is missing"; echo "0 passed, 1 failed"; exit 1
    fi
    echo "SKIPPED: the real samples as fuzz seeds: no test data in '$data' (the fixtures seed the runs)"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "libFuzzer runs seeded with the real samples (fixtures seeded them)" >> "$GANIM_SKIP_LOG"
    data=""
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# FORMAT WRITE FAMILY EXTENSIONS of each readable format, from the table of `ganim formats`.
"$build/ganim" formats | awk 'NR > 1 && NF == 0 { exit } NR > 1 && $2 == "yes" { print $1, $3, $5, $6 }' > "$work/formats"
[ -s "$work/formats" ] || { echo "fuzz: no formats from $build/ganim formats"; echo "0 passed, 1 failed"; exit 1; }

# Every extension some format claims; a file with none of them belongs to the format its
# probe picks (as the tool picks the files of a folder: by extension, else by content).
all_exts=$(awk '$4 != "-" { print $4 }' "$work/formats" | tr ';\n' '  ')
claimed() { # lower-case file name
    local e
    for e in $all_exts; do case "$1" in *"$e") return 0 ;; esac; done
    return 1
}

# seeds_from FOLDER EXTENSIONS|* DEST [FORMAT]: copies FOLDER's files of the format into DEST
seeds_from() {
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

# The seeds and dictionary of each format, and of all formats together.
mkdir -p "$work/seeds-all"
: > "$work/all.dict"
while read -r name write family exts; do
    s="$work/seeds-$name"
    mkdir -p "$s"
    [ -n "$data" ] && seeds_from "$data/$family" "$exts" "$s" "$name"
    seeds_from "$repo/tests/data/$family" "$exts" "$s" "$name"
    seeds_from "$repo/examples" "$exts" "$s" "$name"
    cp "$s"/* "$work/seeds-all/" 2>/dev/null
    [ -f "$here/dict/$name.dict" ] && cat "$here/dict/$name.dict" >> "$work/all.dict"
done < "$work/formats"
for d in "$repo"/tests/data/regress/*/; do [ -d "$d" ] && cp "$d"* "$work/seeds-all/" 2>/dev/null; done

# LABEL HARNESS ENV SEEDS DICT, one target a line
{
    while read -r name write family exts; do
        dict="$here/dict/$name.dict"; [ -f "$dict" ] || dict=-
        echo "read-$name fuzz_format GANIM_FUZZ_FORMAT=$name $work/seeds-$name $dict"
    done < "$work/formats"
    if [ "$smoke" = 1 ]; then
        echo "roundtrip fuzz_roundtrip GANIM_FUZZ_WRITER= $work/seeds-all $work/all.dict"
    else
        while read -r name write family exts; do
            [ "$write" = yes ] && echo "roundtrip-$name fuzz_roundtrip GANIM_FUZZ_WRITER=$name $work/seeds-all $work/all.dict"
        done < "$work/formats"
    fi
    echo "resample-export fuzz_resample_export GANIM_FUZZ_NONE= $work/seeds-all $work/all.dict"
    for src in "$repo"/tests/formats/*/fuzz_*.c; do
        [ -e "$src" ] || continue
        family=$(basename "$(dirname "$src")")
        s="$work/seeds-family-$family"
        mkdir -p "$s"
        [ -n "$data" ] && seeds_from "$data/$family" "*" "$s"
        seeds_from "$repo/tests/data/$family" "*" "$s"
        echo "$(basename "$src" .c) $(basename "$src" .c) GANIM_FUZZ_NONE= $s -"
    done
} > "$work/targets"

keep_min() { # label harness env workdir corpus: the edge cover of DIR/label and corpus replaces DIR/label
    local label="$1" h="$2" env="$3" dir="$4" c="$5" ml=$maxlen
    # committed, so small: inputs of at most 8 KB, 2 KB for the round trips and
    # resample-export (which read whole documents: their cover of full-size inputs is
    # over a megabyte a target)
    [ "$ml" -gt 8192 ] && ml=8192
    case "$label" in roundtrip*|resample*) [ "$ml" -gt 2048 ] && ml=2048 ;; esac
    rm -rf "$dir/min" && mkdir -p "$dir/min" "$dir/art"
    (cd "$dir/art" && env "$env" "$h" -set_cover_merge=1 -use_counters=0 -max_len="$ml" -rss_limit_mb=2048 \
        -timeout=20 "$dir/min" "$keep/$label" "$c" >"$dir/merge.log" 2>&1) || return 1
    rm -rf "${keep:?}/$label" && mv "$dir/min" "$keep/$label"
}

run() { # label harness env seeds dict
    local label="$1" h="$build/$2" env="$3" seeds="$4" dict="$5" dir="$work/$1" c
    mkdir -p "$dir/art"
    c=${corpus:+$corpus/$label}
    c=${c:-$dir/corpus}
    mkdir -p "$c"
    if [ ! -x "$h" ]; then
        echo fail > "$dir/result"; echo "FAIL $label: $h is not built"; return
    fi
    local limit=() n_runs="$runs"
    case "$label" in roundtrip*|resample*) [ -n "$runs" ] && n_runs=$((runs / 10)) ;; esac
    [ -n "$secs" ] && limit+=(-max_total_time="$secs")
    [ -n "$runs" ] && limit+=(-runs="$n_runs")
    local kept=()
    if [ -n "$keep" ]; then mkdir -p "$keep/$label"; kept=("$keep/$label"); fi
    # make check: a fixed seed, so every run (and CI) tries the same inputs in the same
    # order; a finding there is found again by running the smoke locally
    [ "$smoke" = 1 ] && limit+=(-seed=1)
    local dictarg=()
    [ "$dict" != - ] && dictarg=(-dict="$dict")
    local t0=$SECONDS
    if [ "$minimise_only" = 1 ]; then
        keep_min "$label" "$h" "$env" "$dir" "$c" && echo pass >"$dir/result" || echo fail >"$dir/result"
        echo "$(cat "$dir/result") $label: $(ls "$keep/$label" | wc -l) inputs kept ($(du -sb "$keep/$label" | cut -f1) bytes)"
        return
    fi
    if (cd "$dir/art" && env "$env" "$h" "${limit[@]}" "${dictarg[@]}" -max_len="$maxlen" -rss_limit_mb=2048 -timeout=20 \
            -print_final_stats=1 "$c" "$seeds" "${kept[@]}" >"$dir/log" 2>&1); then
        echo pass > "$dir/result"
        local n cov ft units
        n=$(grep -a number_of_executed_units "$dir/log" | grep -o "[0-9]*$")
        cov=$(grep -a -o 'cov: [0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*')
        ft=$(grep -a -o 'ft: [0-9]*' "$dir/log" | tail -1 | grep -o '[0-9]*')
        units=$(ls "$c" | wc -l)
        [ -n "$keep" ] && keep_min "$label" "$h" "$env" "$dir" "$c" && units="$(ls "$keep/$label" | wc -l) kept"
        echo "PASS $label: $n runs in $((SECONDS - t0)) s, coverage $cov edges ($ft features), corpus $units, $(ls "$seeds" | wc -l) seeds"
        [ -n "$report" ] && echo "| \`$label\` | $n | $cov | $ft | $units | $((SECONDS - t0)) s | none |" >> "$report"
    else
        echo fail > "$dir/result"
        { echo "FAIL $label:"
          tail -40 "$dir/log"
          mkdir -p /tmp/ganim-fuzz-failures && cp -r "$dir" /tmp/ganim-fuzz-failures/ 2>/dev/null
          echo "(inputs kept in /tmp/ganim-fuzz-failures/$label)"; } > "$dir/report"
        cat "$dir/report"
        [ -n "$report" ] && echo "| \`$label\` | - | - | - | - | $((SECONDS - t0)) s | **finding**: see /tmp/ganim-fuzz-failures/$label |" >> "$report"
    fi
}
start() { # like run, in the background, at most $jobs at once
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    run "$@" &
}

count=$(grep -c . "$work/targets")
[ -n "$only" ] && count=$(grep -c -- "$only" "$work/targets")
echo "fuzz: $count targets, ${runs:+$runs runs }${secs:+$secs s }each, $jobs at a time"
while read -r label harness env seeds dict; do
    [ -n "$only" ] && case "$label" in *"$only"*) ;; *) continue ;; esac
    start "$label" "$harness" "$env" "$seeds" "$dict"
done < "$work/targets"
wait
pass=$(cat "$work"/*/result 2>/dev/null | grep -c pass)
fail=$(cat "$work"/*/result 2>/dev/null | grep -c fail)
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
