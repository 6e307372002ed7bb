#!/usr/bin/env bash
# multiseg_groups_v10.acl and its references (test_acl's segments_grouped_differently_match_acl).
#
#   GANIM_ACL_SRC=/path/to/acl GANIM_RTM_SRC=/path/to/rtm bash tests/data/acl/make_multiseg.sh build/test_acl
#
# 1. test_acl --write-multiseg writes the buffer: ganim's ACL writer on the motion of
#    test_acl.c's multiseg_doc (three segments that store and group their sub-tracks
#    differently). Run by hand; the committed buffer is kept as it was made (the writer
#    may later make another one, for which the references would have to be made again).
# 2. multiseg_reference.cpp (ours), built against ACL 2.1's headers (nfrechette/acl v2.1.0,
#    rtm v2.2.0) in a temporary folder, decodes it with ACL's own decompressor: .keys.txt
#    (every key) and .times.txt (three times between every two keys). Nothing of ACL is
#    kept in ganim.
set -eu
test_acl="${1:?usage: make_multiseg.sh TEST_ACL}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="${GANIM_ACL_SRC:?GANIM_ACL_SRC must name an ACL 2.1 source tree}"
rtm="${GANIM_RTM_SRC:-$src/external/rtm}"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/ganim-multiseg.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
"$test_acl" --write-multiseg "$here"
"${CXX:-c++}" -std=c++17 -O2 -ffp-contract=off -I"$src/includes" -I"$rtm/includes" \
    "$here/multiseg_reference.cpp" -o "$tmp/ref"
"$tmp/ref" "$here/multiseg_groups_v10.acl" "$here/multiseg_groups_v10.keys.txt" "$here/multiseg_groups_v10.times.txt"
