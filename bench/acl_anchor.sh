#!/usr/bin/env bash
# ganim's ACL decoding side by side with ACL 2.1's own decompressor (docs/benchmarks.md,
# "ACL decoding, side by side with ACL 2.1"). acl_anchor.cpp (ours) is built against the
# headers of an ACL source tree named by GANIM_ACL_SRC (nfrechette/acl v2.1.0; rtm v2.2.0
# from GANIM_RTM_SRC or the tree's external/rtm) in a temporary folder; nothing of ACL is
# kept in ganim.
#
#   acl_anchor.sh BENCH_ACL callgrind [FILE.acl ...]   instructions (exact)
#   acl_anchor.sh BENCH_ACL time [ROUNDS] [FILE.acl ...]   ns, interleaved rounds
#
# Without files: every .acl in $GANIM_TESTDATA/acl. BENCH_ACL is ganim's bench_acl (a
# Release build). The whole clip is measured three ways on ganim's side, each against the
# same ACL figure (initialize a context, then per frame seek + decompress_tracks into a
# clip-sized qvvf array kept across runs):
#   read         ganim_read_memory (a checked document: skeleton, names, native record,
#                validation, the buffer's FNV-1a hash), freed every run
#   decode       ganim_acl_decode_clip on a handle opened once outside the timing, into a
#                frame-major array kept across runs (no hash, as ACL's runtime)
#   open+decode  ganim_acl_open_clip + ganim_acl_decode_clip + ganim_acl_close every run
# Random access: ganim_acl_sample_pose on a handle opened once against seek +
# decompress_tracks on a context initialized once, 1000 poses.
# callgrind: each program under valgrind with collection toggled on the measured function
# only (bench_whole_once / bench_decode_once / bench_open_decode_once / bench_random_once,
# acl_whole_once / acl_random_once), one run, Ir divided by tracks x frames (whole clip)
# or tracks x 1000 poses (random access). time: ROUNDS rounds (default 5), each running, for every clip,
# bench_acl and acl_anchor one after the other (the order alternating between rounds), so
# the two are measured on the same machine at the same moment; the ratio is taken within
# each round and the median of the rounds is printed, with the median ns of each side.
# ACL is built with the flags of a CMake Release build (-O3 -DNDEBUG), for the same
# baseline x86-64 (SSE2) as ganim.
set -eu
bench="${1:?usage: acl_anchor.sh BENCH_ACL callgrind|time [ROUNDS] [FILE.acl ...]}"
mode="${2:-time}"
shift 2 || true
rounds=5
if [ "$mode" = time ] && [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then rounds="$1"; shift; fi
src="${GANIM_ACL_SRC:?GANIM_ACL_SRC must name an ACL 2.1 source tree}"
rtm="${GANIM_RTM_SRC:-$src/external/rtm}"
[ -f "$src/includes/acl/core/compressed_tracks.h" ] || { echo "acl_anchor.sh: no ACL headers in $src" >&2; exit 2; }
[ -f "$rtm/includes/rtm/quatf.h" ] || { echo "acl_anchor.sh: no rtm headers (set GANIM_RTM_SRC)" >&2; exit 2; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/ganim-aclanchor.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
"${CXX:-c++}" -std=c++17 -O3 -DNDEBUG -g -I"$src/includes" -I"$rtm/includes" "$here/acl_anchor.cpp" -o "$tmp/acl_anchor"
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    data="${GANIM_TESTDATA:-../shared/testdata}"
    mapfile -t files < <(ls "$data"/acl/*.acl)
fi

case "$mode" in
callgrind)
    printf '%-38s %5s %5s | %7s %7s %7s %7s | %6s %6s %6s | %7s %7s %6s\n' clip tracks frames "read" "decode" \
        "open+d" "ACL" "r/ACL" "d/ACL" "o/ACL" "random" "ACL" ratio
    for f in "${files[@]}"; do
        line="$("$bench" --whole --iters 1 "$f" | tail -1)"
        nt="$(echo "$line" | awk '{ print $2 }')"
        nf="$(echo "$line" | awk '{ print $3 }')"
        declare -A ir=()
        for m in whole decode open_decode random; do
            opt=--whole
            [ "$m" = random ] && opt=--random
            valgrind --tool=callgrind --callgrind-out-file="$tmp/g.$m" --collect-atstart=no \
                --toggle-collect="bench_${m}_once" "$bench" "$opt" --iters 1 "$f" > /dev/null 2>&1
            ir[g.$m]="$(callgrind_annotate "$tmp/g.$m" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')"
        done
        for m in whole random; do
            valgrind --tool=callgrind --callgrind-out-file="$tmp/a.$m" --collect-atstart=no \
                --toggle-collect="acl_${m}_once" "$tmp/acl_anchor" "--$m" --iters 1 "$f" > "$tmp/a.$m.txt" 2> /dev/null
            ir[a.$m]="$(callgrind_annotate "$tmp/a.$m" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')"
        done
        settings="$(awk 'NR == 2 { print $NF }' "$tmp/a.whole.txt")"
        awk -v c="$(basename "$f" .acl)" -v nt="$nt" -v nf="$nf" -v gw="${ir[g.whole]}" -v gd="${ir[g.decode]}" \
            -v go="${ir[g.open_decode]}" -v aw="${ir[a.whole]}" -v gr="${ir[g.random]}" -v ar="${ir[a.random]}" \
            -v s="$settings" 'BEGIN {
            tf = nt * nf; tp = nt * 1000
            printf "%-38s %5d %5d | %7.1f %7.1f %7.1f %7.1f | %6.3f %6.3f %6.3f | %7.1f %7.1f %6.3f %s\n", c, nt, nf,
                gw / tf, gd / tf, go / tf, aw / tf, gw / aw, gd / aw, go / aw, gr / tp, ar / tp, gr / ar, s }'
        unset ir
    done
    echo "(instructions per track x frame (whole clip: ganim's read, decode and open+decode, ACL's whole clip) and per"
    echo " track x pose (random access); ratios ganim / ACL)"
    ;;
time)
    : > "$tmp/runs"
    for ((r = 1; r <= rounds; r++)); do
        for f in "${files[@]}"; do
            if ((r % 2)); then order="g a"; else order="a g"; fi
            for s in $order; do
                if [ "$s" = g ]; then "$bench" "$f" | tail -1 | awk -v r="$r" '{ print r, "g", $1, $4, $5, $6, $7 }' >> "$tmp/runs"
                else "$tmp/acl_anchor" "$f" | tail -1 | awk -v r="$r" '{ print r, "a", $1, $4, $5, $6 }' >> "$tmp/runs"; fi
            done
        done
    done
    python3 - "$tmp/runs" "$rounds" <<'EOF'
import sys, statistics as st
runs = {}
for line in open(sys.argv[1]):
    p = line.split()
    runs.setdefault(p[2], {}).setdefault(p[1], {})[int(p[0])] = p[3:]
print("%-38s | %7s %7s %7s %7s | %6s %6s %6s | %7s %7s %6s  (%s rounds, medians)" % ("clip", "read", "decode", "open+d",
      "ACL", "r/ACL", "d/ACL", "o/ACL", "random", "ACL", "ratio", sys.argv[2]))
for clip in sorted(runs):
    g, a = runs[clip]["g"], runs[clip]["a"]
    rs = sorted(set(g) & set(a))
    med = lambda xs: st.median(xs)
    gv = lambda i: med([float(g[r][i]) for r in rs])
    ratio = lambda i, j: med([float(g[r][i]) / float(a[r][j]) for r in rs])
    wa, ra = med([float(a[r][0]) for r in rs]), med([float(a[r][1]) for r in rs])
    print("%-38s | %7.2f %7.2f %7.2f %7.2f | %6.3f %6.3f %6.3f | %7.2f %7.2f %6.3f %s" % (clip[:-4], gv(0), gv(2), gv(3),
          wa, ratio(0, 0), ratio(2, 0), ratio(3, 0), gv(1), ra, ratio(1, 1), a[rs[0]][2]))
print("(ns per track x frame (whole clip: ganim's read, decode and open+decode, ACL's whole clip) and per track x pose")
print(" (random access); ratios ganim / ACL, median of the per-round ratios)")
EOF
    ;;
*) echo "acl_anchor.sh: mode is callgrind or time" >&2; exit 2 ;;
esac
