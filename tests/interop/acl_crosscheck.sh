#!/usr/bin/env bash
# ACL 2.1 itself reads ganim's ACL buffers: an optional check, run when GANIM_ACL_SRC names
# an ACL source tree (nfrechette/acl v2.1.0; rtm from GANIM_RTM_SRC or the tree's
# external/rtm). Nothing of ACL is kept in ganim: acl_crosscheck.cpp (ours) is built
# against its headers in a temporary folder.
#
#   acl_crosscheck.sh TEST_ACL_ENCODE [RUNS] [v0]
#
# With v0, the buffers checked are those of the inputs made into Civ VII V0 files (no
# parents: the encoder does not know the hierarchy), and ACL measures them with the real
# parents; their size against ACL's is reported, not checked (see docs/formats/acl.md).
#
# test_acl_encode encodes every clip of $GANIM_TESTDATA/acl and keeps the buffers and its
# own decode of them; for each, ACL must accept the buffer (initialize and is_valid(true),
# hash included), ACL's calculate_compression_error (qvvf) must stay within
# max(0.01, the error of ACL's own buffer for the same input), the size within 1.15x of
# ACL's, and ACL's decode must equal ganim's (1e-5 on rotation components, 1e-4 relative
# on translations and scales: values near zero inside a clip range of hundreds of units
# differ by an ulp of the range). RUNS (default 1) times ACL's compress_track_list.
set -u
enc="${1:?usage: acl_crosscheck.sh TEST_ACL_ENCODE [RUNS]}"
runs="${2:-1}"
v0="${3:-}"
keepvar=GANIM_ACL_KEEP
[ "$v0" = v0 ] && keepvar=GANIM_ACL_KEEP_V0
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
skip() {
    echo "SKIPPED: ACL cross-check: $1"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "acl_crosscheck (ACL 2.1 reads ganim's buffers, $1)" >> "$GANIM_SKIP_LOG"
    echo "0 passed, 0 failed, 1 skipped"; exit 77
}
src="${GANIM_ACL_SRC:-}"
[ -n "$src" ] && [ -f "$src/includes/acl/core/compressed_tracks.h" ] || skip "GANIM_ACL_SRC does not name an ACL source tree"
rtm="${GANIM_RTM_SRC:-$src/external/rtm}"
[ -f "$rtm/includes/rtm/quatf.h" ] || skip "no rtm headers (set GANIM_RTM_SRC)"
data="${GANIM_TESTDATA:-}"
[ -n "$data" ] && [ -d "$data/acl" ] || skip "no test data (GANIM_TESTDATA)"
cxx="${CXX:-c++}"
command -v "$cxx" >/dev/null 2>&1 || skip "no C++ compiler"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/ganim-aclcc.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
"$cxx" -std=c++17 -O2 -ffp-contract=off -I"$src/includes" -I"$rtm/includes" "$here/acl_crosscheck.cpp" -o "$tmp/cc" ||
    { echo "FAIL: acl_crosscheck.cpp does not build against $src"; exit 1; }
mkdir "$tmp/keep"
env "$keepvar=$tmp/keep" "$enc" > "$tmp/enc.log" || { cat "$tmp/enc.log"; echo "FAIL: test_acl_encode"; exit 1; }
pass=0 fail=0
printf '%-40s %9s %9s %6s %10s %10s %9s %9s\n' clip ganim_B acl_B ratio ganim_err acl_err acl_s keys
for buf in "$tmp"/keep/*.acl; do
    name="$(basename "$buf" .acl)"
    rate="$(printf '%s' "$name" | sed 's/.*_r\([0-9]*\)_b[0-9]*$/\1/')"
    out="$tmp/$name.out"
    "$tmp/cc" "$data/acl/$name.input.txt" "$rate" "$buf" "$runs" > "$out" 2> "$tmp/err"
    valid="$(awk '$1 == "valid" { print $2 }' "$out")"
    err="$(awk '$1 == "error" { print $2 }' "$out")"
    aerr="$(awk '$1 == "acl_error" { print $2 }' "$out")"
    asize="$(awk '$1 == "acl_size" { print $2 }' "$out")"
    asec="$(awk '$1 == "acl_seconds" { print $2 }' "$out")"
    size="$(wc -c < "$buf")"
    keys="$(python3 "$here/acl_compare_keys.py" "$out" "$tmp/keep/$name.ganim.txt" 1e-5 1e-4)"; keys_ok=$?
    printf '%-40s %9s %9s %6s %10s %10s %9s %s\n' "$name" "$size" "$asize" \
        "$(awk -v a="$size" -v b="$asize" 'BEGIN { printf "%.3f", a / b }')" "$err" "$aerr" "$asec" "$keys"
    ok=1
    [ "$valid" = 1 ] || { echo "  FAIL: ACL does not accept the buffer: $(grep '^valid' "$out")"; ok=0; }
    awk -v e="$err" -v a="$aerr" 'BEGIN { l = a > 0.01 ? a : 0.01; exit !(e != "" && e <= l * 1.0001) }' ||
        { echo "  FAIL: ACL measures error $err, above max(0.01, $aerr)"; ok=0; }
    [ "$v0" = v0 ] || awk -v a="$size" -v b="$asize" 'BEGIN { exit !(b > 0 && a <= 1.15 * b) }' ||
        { echo "  FAIL: $size bytes, above 1.15 x ACL's $asize"; ok=0; }
    [ "$keys_ok" = 0 ] || { echo "  FAIL: ACL's decode differs from ganim's"; ok=0; }
    if [ "$ok" = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
