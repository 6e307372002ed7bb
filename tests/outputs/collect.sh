#!/usr/bin/env bash
# Every output ganim makes from every real sample, for byte-for-byte comparisons.
#
#   tests/outputs/collect.sh GANIM OUTDIR
#
# For each file under $GANIM_TESTDATA (every sub-folder, notes excluded) it runs a fixed
# list of commands (info, info --json, dump, every export with and without options,
# writes into every writable format, format options) and keeps, for each command, its
# standard output, standard error (the timing of the summary line removed) and exit
# status in OUTDIR, together with every file it wrote. All paths are relative, so two
# builds give the same bytes wherever they behave the same. Then it prints the SHA-256
# of every file in OUTDIR, sorted: the manifest tests/outputs/check.sh compares.
#
# The writable formats, their writer options (each value in turn) and their own
# resamplers come from `ganim formats`; nothing here names a format family.
set -u
ganim="${1:?usage: collect.sh GANIM OUTDIR}"
outdir="${2:?usage: collect.sh GANIM OUTDIR}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
data="${GANIM_TESTDATA:-$here/../../../shared/testdata}"
[ -d "$data" ] || { echo "collect.sh: test data '$data' is missing" >&2; exit 2; }
data="$(cd "$data" && pwd)"
ganim="$(cd "$(dirname "$ganim")" && pwd)/$(basename "$ganim")"
jobs="${GANIM_OUTPUTS_JOBS:-2}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

rm -rf "$outdir"
mkdir -p "$outdir/work"
outdir="$(cd "$outdir" && pwd)"
ln -s "$data" "$outdir/work/data"

# Writable formats, from the registry: the table's WRITE column.
writable="$("$ganim" formats | awk 'NR > 1 && NF == 0 { exit } NR > 1 && $3 == "yes" { print $1 }' | tr '\n' ' ')"
[ -n "$writable" ] || { echo "collect.sh: no writable formats in 'ganim formats'" >&2; exit 2; }
# Writer options ("FORMAT OPTION VALUES" lines) and the formats with their own resampler,
# from `ganim formats --json`.
"$ganim" formats --json | node -e '
  const f = JSON.parse(require("fs").readFileSync(0, "utf8"));
  for (const x of f) for (const o of x.options) if (o.applies !== "read") console.log(x.name, o.name, o.values.join("|"));
' > "$outdir/options" || { echo "collect.sh: cannot list the options" >&2; exit 2; }
resampling="$("$ganim" formats --json | node -e '
  const f = JSON.parse(require("fs").readFileSync(0, "utf8"));
  console.log(f.filter(x => x.write && x.resample).map(x => x.name).join(" "));
')"
export ganim writable resampling outdir

one_input() { # relative path under data/
    local rel="$1" key="${1//\//__}" w
    cd "$outdir/work" || exit 1
    mkdir -p "out/$key"
    run() { # name, then the ganim arguments
        local name="$1"; shift
        "$ganim" "$@" > "out/$key/$name.stdout" 2> "out/$key/$name.stderr.raw"
        echo "$?" > "out/$key/$name.exit"
        sed -E 's/ in [0-9]+\.[0-9]+ s$/ in T s/' "out/$key/$name.stderr.raw" > "out/$key/$name.stderr"
        rm -f "out/$key/$name.stderr.raw"
    }
    local in="data/$rel" o="out/$key"
    run info info "$in"
    run info-bones-nc info --bones --no-companion "$in"
    run info-json info --json "$in"
    run dump dump "$in"
    run dump-nc dump --no-companion "$in"
    run glb convert "$in" -o "$o/x.glb"
    run gltf convert "$in" -o "$o/x.gltf"
    run glb-nc-r3-fps convert --no-companion --resample 3 --fps 48 "$in" -o "$o/r3.glb"
    run glb-keep-axes convert --keep-axes --scale 0.01 "$in" -o "$o/ka.glb"
    run glb-up-z convert --up z "$in" -o "$o/upz.glb"
    run bvh convert "$in" -o "$o/x.bvh"
    run bvh-all convert --clip all "$in" -o "$o/all.bvh"
    run bvh-xyz-jp convert --bvh-order XYZ --bvh-joint-positions "$in" -o "$o/xyz.bvh"
    run own convert "$in" -o "$o/own"
    for w in $writable; do
        run "to-$w" convert --to "$w" "$in" -o "$o/to.$w"
        run "to-$w-nc" convert --no-companion --to "$w" "$in" -o "$o/nc.$w"
    done
    local line opt values fmt v
    while read -r fmt opt values; do # every value of every writer option
        for v in ${values//|/ }; do
            run "to-$fmt-$opt=$v" convert --to "$fmt" -O "$opt=$v" "$in" -o "$o/$opt=$v.$fmt"
        done
    done < "$outdir/options"
    for w in $resampling; do
        run "to-$w-r4" convert --to "$w" --resample 4 "$in" -o "$o/r4.$w"
    done
}
export -f one_input

# GANIM_OUTPUTS_SAMPLE=N keeps one input in N, chosen by a fixed hash of its path (the
# same ones every run); the keys of the inputs kept are listed in OUTDIR/inputs.
sample="${GANIM_OUTPUTS_SAMPLE:-1}"
(cd "$data" && find . -type f ! -name '*.md' ! -name '*.txt' ! -name '*.json' | sed 's|^\./||' | sort) |
    while IFS= read -r rel; do
        [ "$sample" -le 1 ] || [ $(($(printf '%s' "$rel" | cksum | cut -d' ' -f1) % sample)) -eq 0 ] && printf '%s\n' "$rel"
    done > "$outdir/inputs"
xargs -d '\n' -P "$jobs" -I{} bash -c 'one_input "$1"' _ {} < "$outdir/inputs"

rm -f "$outdir/options"
sed -i 's|/|__|g' "$outdir/inputs"
cd "$outdir/work/out" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs -d '\n' sha256sum
