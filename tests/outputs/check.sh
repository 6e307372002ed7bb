#!/usr/bin/env bash
# Are ganim's outputs on every real sample the same bytes as recorded?
#
#   tests/outputs/check.sh GANIM            compare with tests/outputs/expected.sha256
#   tests/outputs/check.sh GANIM --update   record the current outputs as expected
#
# collect.sh makes every output (info, dumps, every export, every writable format) of
# every sample; this compares their SHA-256 with the manifest, which was made by an
# earlier build. A change of output is then either a bug or a deliberate change whose
# commit updates the manifest and says why. Prints the files that differ and keeps the
# outputs of the failed run (the path is printed) for a look with diff.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ganim="${1:?usage: check.sh GANIM [--update]}"
manifest="$here/expected.sha256"
data="${GANIM_TESTDATA:-${GANIM_TESTDATA_DEFAULT:-$here/../../../shared/testdata}}"
if [ ! -d "$data" ]; then
    if [ -n "${GANIM_TESTDATA:-}" ] || [ "${CI:-}" = true ]; then
        echo "outputs: test data '$data' is missing"; echo "0 passed, 1 failed"; exit 1
    fi
    echo "SKIPPED: outputs: no test data in '$data' (set GANIM_TESTDATA=/path/to/testdata to run it)"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "outputs (every output of every real sample)" >> "$GANIM_SKIP_LOG"
    echo "0 passed, 0 failed, 1 skipped"; exit 77
fi
# make check compares the outputs of one input in 3 (the same ones every run: a fixed
# hash of the path); CI=true, GANIM_FULL=1 and --update take every input.
sample=3
if { [ "${CI:-}" = true ] && [ "${GANIM_FULL:-}" != 0 ]; } || [ "${GANIM_FULL:-}" = 1 ] || [ "${2:-}" = --update ]; then sample=1; fi
out="$(mktemp -d "${TMPDIR:-/tmp}/ganim-outputs.XXXXXX")"
GANIM_OUTPUTS_SAMPLE=$sample GANIM_TESTDATA="$data" bash "$here/collect.sh" "$ganim" "$out" > "$out.sha256" ||
    { echo "outputs: collect.sh failed"; echo "0 passed, 1 failed"; exit 1; }
if [ "$sample" != 1 ]; then # the manifest's lines for the inputs compared
    awk 'NR == FNR { keep[$0] = 1; next } { split($2, p, "/"); if (p[1] in keep) print }' \
        "$out/inputs" "$manifest" > "$out.expected"
    echo "outputs: comparing the outputs of $(wc -l < "$out/inputs") of the inputs (every input under CI=true or GANIM_FULL=1)"
    manifest="$out.expected"
fi
if [ "${2:-}" = --update ]; then
    cp "$out.sha256" "$manifest"
    echo "outputs: recorded $(wc -l < "$manifest") files in $manifest"
    rm -rf "$out" "$out.sha256"
    exit 0
fi
total=$(wc -l < "$manifest")
if diff -q "$manifest" "$out.sha256" > /dev/null; then
    echo "outputs: all $total outputs are byte-identical to the manifest"
        rm -rf "$out" "$out.sha256" "$out.expected"
    echo "1 passed, 0 failed"; exit 0
fi
echo "outputs: these outputs differ from the manifest (< expected, > now):"
diff "$manifest" "$out.sha256" | grep '^[<>]' | head -40
echo "outputs: $(diff "$manifest" "$out.sha256" | grep -c '^>') of $total differ; outputs kept in $out/work/out"
echo "0 passed, 1 failed"; exit 1
