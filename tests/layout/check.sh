#!/usr/bin/env bash
# The tree's naming promises (docs/architecture.md, "Where things are"):
#   - every file name under src/ is unique, so a stack trace, __FILE__, a profile or grep
#     names one file;
#   - every file in a family folder src/formats/FAMILY/ starts with FAMILY.
#   - no call circle between the files of one folder of src/ or cli/ (calls.py).
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
fail=0 pass=0
dups="$(find src -type f -printf '%f\n' | sort | uniq -d)"
if [ -n "$dups" ]; then
    for d in $dups; do echo "FAIL: '$d' is the name of several files: $(find src -name "$d" | tr '\n' ' ')"; done
    fail=$((fail + 1))
else pass=$((pass + 1)); fi
for dir in src/formats/*/; do
    fam="$(basename "$dir")"
    bad="$(find "$dir" -type f ! -name "${fam}.*" ! -name "${fam}_*" -printf '%f ')"
    if [ -n "$bad" ]; then echo "FAIL: in $dir, files without the family prefix '${fam}': $bad"; fail=$((fail + 1))
    else pass=$((pass + 1)); fi
done
if python3 tests/layout/calls.py; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
