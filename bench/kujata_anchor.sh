#!/usr/bin/env bash
# The FF7 anchor of issue 23, side by side: kujata's battle animation loader under Node
# against ganim's FF7 read of the same pack, interleaved, in the same run. Optional: run
# when KUJATA_SRC names a checkout of picklejar76/kujata (its ff7-asset-loader/ folder; the
# npm registry this machine reaches has no "kujata" package). Nothing of kujata is kept in
# ganim: kujata_anchor.cjs (ours) loads it from KUJATA_SRC.
#
#   KUJATA_SRC=/tmp/kujata-src bash bench/kujata_anchor.sh build-rel/bench_ganim [ROUNDS] [PACK BONES+1 BODY]
#   KUJATA_SRC=/tmp/kujata-src bash bench/kujata_anchor.sh build-rel/bench_ganim [ROUNDS] --samples DIR
#
# --samples DIR: every NAME.da in DIR with its skeleton NAME.aa beside it (the shared FF7
# samples: $GANIM_TESTDATA/ff7), one after the other, the slots (nBones + 1, 1 for a
# 1-bone skeleton, as kujata's loadBattleAnimationPack counts them) and the body entries
# (nsSkeletonAnims) read from the .aa's header (u32 LE at 0x0C and 0x1C); one ratio line
# a pack.
#
# Without PACK, the pack is the issue's synthetic one (60 animations x 100 frames x 25
# slots), written by bench_ganim --save. Each round runs kujata (best of 15 decodes) and
# ganim (bench_ganim's "read" row, best of 3 rounds of at least 40 ms) one after the
# other; the last line gives each round's ratio.
set -eu
bench="${1:?usage: kujata_anchor.sh BENCH_GANIM [ROUNDS] [PACK BONES+1 BODY]}"
rounds="${2:-3}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -z "${KUJATA_SRC:-}" ] || [ ! -f "$KUJATA_SRC/ff7-asset-loader/battle-animation-loader.js" ]; then
    echo "kujata_anchor: set KUJATA_SRC to a checkout of picklejar76/kujata" >&2
    exit 77
fi
command -v node >/dev/null || { echo "kujata_anchor: node is not installed" >&2; exit 77; }
if [ "${3:-}" = "--samples" ]; then
    dir="${4:?kujata_anchor: --samples needs a folder}"
    u32() { od -An -tu4 -j "$2" -N4 --endian=little "$1" | tr -d ' '; }
    found=0
    for pack in "$dir"/*.da; do
        aa="${pack%.da}.aa"
        [ -f "$aa" ] || continue
        bones="$(u32 "$aa" 12)" body="$(u32 "$aa" 28)"
        slots=$((bones > 1 ? bones + 1 : 1))
        printf '%s (slots %s, body %s): ' "$(basename "$pack")" "$slots" "$body"
        bash "${BASH_SOURCE[0]}" "$bench" "$rounds" "$pack" "$slots" "$body" | tail -n 1
        found=1
    done
    [ "$found" = 1 ] || { echo "kujata_anchor: no NAME.da with NAME.aa in $dir" >&2; exit 1; }
    exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
if [ $# -ge 5 ]; then
    pack="$3" slots="$4" body="$5"
else
    "$bench" --no-samples --quick --only "ff7 pack" --save "$tmp" >/dev/null
    pack="$tmp/synthetic_60x100x25.da" slots=25 body=60
fi
ratios=""
for r in $(seq 1 "$rounds"); do
    k="$(node "$here/kujata_anchor.cjs" "$KUJATA_SRC" "$pack" "$slots" "$body" 15)"
    kms="$(printf '%s\n' "$k" | sed -n 's/.*best \([0-9.]*\) ms.*/\1/p')"
    g="$("$bench" --no-synthetic --quick --json --only read "$pack")"
    gns="$(printf '%s\n' "$g" | sed -n 's/.*"path": "read", "ok": true, .*"ns": \([0-9.]*\),.*/\1/p' | head -n 1)"
    gms="$(awk -v n="$gns" 'BEGIN { printf "%.3f", n / 1e6 }')"
    echo "round $r: $k; ganim read: $gms ms"
    ratios="$ratios $(awk -v a="$kms" -v b="$gms" 'BEGIN { printf "%.1f", a / b }')"
done
echo "kujata / ganim per round:$ratios"
