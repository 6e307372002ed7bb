#!/usr/bin/env bash
# Does every client show ganim's pose? For each input: ganim's glb, then every joint's
# world matrix in three.js (pose_three.mjs: whole, half- and quarter-frames) and in
# Blender's stock glTF importer (blender_pose.py: whole and half-way frames, when Blender
# is installed) against ganim_clip_sample's (tools/pose_world), as a fraction of the
# pose's extent; and in Blender also ganim's bone mesh as its armature modifier deforms it
# (reported, not held to the limit: Blender's importer drops rest scales, docs/clients.md).
# Prints one line per input and the worst per family.
#
#   tests/interop/pose_measure.sh BUILD_DIR [--limit E] [--one-per-family] [--no-blender] [--only SUBSTR]
#
# BUILD_DIR holds ganim and pose_world. The inputs: every real sample cases.mjs lists
# (the interop test's), Argonaut WADs also once per model with --argonaut-model; with
# --one-per-family, the first of each family. --limit E: exit 1 when a client is further
# than E from ganim anywhere (tests/interop's pose test: 1e-4). Run by hand on every
# sample (docs/clients.md has the table); CMake's test `interop_pose` runs
# `--one-per-family --limit 1e-4`. Skips (77) without the test data, as run.sh does.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(cd "${1:?usage: pose_measure.sh BUILD_DIR [--limit E] [--one-per-family] [--no-blender] [--only SUBSTR]}" && pwd)"
shift
limit="" one=0 blender=1 only=""
while [ $# -gt 0 ]; do
    case "$1" in
    --limit) limit="$2"; shift 2 ;;
    --one-per-family) one=1; shift ;;
    --no-blender) blender=0; shift ;;
    --only) only="$2"; shift 2 ;;
    *) echo "pose_measure.sh: unknown option '$1'"; exit 2 ;;
    esac
done
ganim="$build/ganim" pose="$build/pose_world"
[ -x "$ganim" ] && [ -x "$pose" ] || { echo "pose_measure.sh: no ganim or pose_world in $build"; echo "0 passed, 1 failed"; exit 1; }
data="${GANIM_TESTDATA:-${GANIM_TESTDATA_DEFAULT:-$here/../../../shared/testdata}}"
if [ ! -d "$data" ]; then
    if [ -n "${GANIM_TESTDATA:-}" ] || [ "${CI:-}" = true ]; then
        echo "pose_measure.sh: test data not found in '$data'"; echo "0 passed, 1 failed"; exit 1
    fi
    echo "SKIPPED: client poses: no test data in '$data'"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "interop_pose (client poses on the real samples)" >> "$GANIM_SKIP_LOG"
    exit 77
fi
[ -d "$here/node_modules/three" ] || { echo "pose_measure.sh: run 'npm ci' in tests/interop (make check does)"; echo "0 passed, 1 failed"; exit 1; }
if [ "$blender" = 1 ] && ! command -v blender >/dev/null 2>&1; then
    echo "pose_measure.sh: no Blender: three.js only"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "interop_pose in Blender (no Blender)" >> "$GANIM_SKIP_LOG"
    blender=0
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
out="$(mktemp -d "${TMPDIR:-/tmp}/ganim-pose.XXXXXX")"
[ -n "${GANIM_KEEP:-}" ] && echo "pose_measure.sh: output kept in $out" || trap 'rm -rf "$out"' EXIT

node "$here/cases.mjs" "$ganim" "$data" "$(cd "$here/../.." && pwd)" "$out" | awk -F'\t' '$4 == "sample"' > "$out/all.tsv"
# family, input, ganim options (argonaut: each model too)
: > "$out/cases.tsv"
while IFS=$'\t' read -r id family input kind prefix; do
    [ -n "$only" ] && [[ "$input" != *"$only"* ]] && continue
    printf '%s\t%s\t\n' "$family" "$input" >> "$out/cases.tsv"
    if [ "$family" = argonaut ]; then
        "$ganim" info --json "$input" 2>/dev/null | node -e '
            let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
              for (const m of JSON.parse(s).native?.models ?? [])
                if ((m.fitting_animations ?? []).length) console.log(m.index);
            });' | while read -r m; do printf '%s\t%s\t%s\n' "$family" "$input" "$m" >> "$out/cases.tsv"; done
    fi
done < "$out/all.tsv"
if [ "$one" = 1 ]; then awk -F'\t' '!seen[$1]++' "$out/cases.tsv" > "$out/c.tsv" && mv "$out/c.tsv" "$out/cases.tsv"; fi

failed=0 passed=0 n=0
printf '%-9s %-48s %-29s %s\n' family "file" "three.js whole/half/quarter" "Blender whole/half (mesh)"
while IFS=$'\t' read -r family input model; do
    n=$((n + 1)); p="$out/$n"
    copt=() popt=() label="${input##*/}"
    if [ -n "$model" ]; then copt=(--argonaut-model "$model"); popt=(-O "argonaut.model=$model"); label="$label --model $model"; fi
    if ! "$ganim" convert "${copt[@]}" "$input" -o "$p.glb" > "$p.log" 2>&1 || ! "$pose" "${popt[@]}" "$input" > "$p.json" 2>> "$p.log"; then
        echo "FAIL $label: conversion"; sed 's/^/    /' "$p.log" | head -3; failed=$((failed + 1)); continue
    fi
    t="$(node "$here/pose_three.mjs" "$p.glb" "$p.json" 2>&1 | tail -1)"
    b='{}'
    if [ "$blender" = 1 ]; then
        b="$(env -i HOME="${HOME:-/tmp}" PATH=/usr/bin:/bin blender -b --factory-startup --python-exit-code 1 \
            -P "$here/blender_pose.py" -- "$p.glb" "$p.json" 2>&1 | sed -n 's/^RESULT //p' | tail -1)"
        [ -n "$b" ] || b='{"failed":true}'
    fi
    line="$(node -e '
        const [fam, label, t, b, limit] = process.argv.slice(1);
        let tr, br; try { tr = JSON.parse(t); } catch { tr = { failed: t }; } br = JSON.parse(b);
        const f = v => v === undefined ? "-" : v.toExponential(1);
        const worst = [tr.whole, tr.half, tr.quarter, br.whole, br.half].filter(v => v !== undefined);
        const bad = tr.failed || br.failed || (limit && worst.some(v => !(v <= Number(limit))));
        console.log(`${bad ? "FAIL" : "ok"}\t${fam}\t${label}\t${f(tr.whole)} ${f(tr.half)} ${f(tr.quarter)}\t${br.whole === undefined ? (br.failed ? "failed" : "-") : f(br.whole) + " " + f(br.half) + " (" + f(br.mesh) + ")"}\t${JSON.stringify(tr.worst ?? tr.failed ?? "")}\t${JSON.stringify(br.worst ?? "")}\t${[tr.whole, tr.half, tr.quarter].join(",")}\t${[br.whole, br.half, br.mesh].join(",")}`);
    ' "$family" "$label" "$t" "$b" "$limit")"
    echo "$line" >> "$out/results.tsv"
    IFS=$'\t' read -r verdict fam lab tcol bcol tw bw _ _ <<< "$line"
    printf '%-9s %-48s %-29s %s\n' "$fam" "$lab" "$tcol" "$bcol"
    if [ "$verdict" = FAIL ] && [ -n "$limit" ]; then
        failed=$((failed + 1)); echo "    FAIL (limit $limit): three.js worst $tw; Blender worst $bw"
    else passed=$((passed + 1)); fi
done < "$out/cases.tsv"

echo
echo "worst per family (files): three.js whole / half / quarter; Blender whole / half (bone mesh)"
node -e '
    const rows = require("fs").readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean).map(l => l.split("\t"));
    const fam = new Map();
    for (const r of rows) {
        const e = fam.get(r[1]) ?? { n: 0, t: [0, 0, 0], b: [0, 0, 0] };
        e.n++;
        r[7].split(",").forEach((v, i) => { if (v !== "") e.t[i] = Math.max(e.t[i], Number(v)); });
        r[8].split(",").forEach((v, i) => { if (v !== "") e.b[i] = Math.max(e.b[i], Number(v)); });
        fam.set(r[1], e);
    }
    const x = v => v.toExponential(1);
    for (const [k, e] of fam) console.log(`${k} (${e.n}): ${e.t.map(x).join(" / ")}; ${x(e.b[0])} / ${x(e.b[1])} (${x(e.b[2])})`);
' "$out/results.tsv" 2>/dev/null
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
