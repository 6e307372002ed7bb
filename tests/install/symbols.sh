#!/usr/bin/env bash
# The shared library exports exactly the functions the header declares GANIM_API:
#   tests/install/symbols.sh path/to/libganim.so include/ganim.h
# Compares the defined dynamic symbols (nm -D) with the header's GANIM_API names; any
# symbol only on one side is printed and fails the test.
set -u
lib="${1:?usage: symbols.sh LIBGANIM_SO GANIM_H}"
header="${2:?usage: symbols.sh LIBGANIM_SO GANIM_H}"
command -v nm >/dev/null || { echo "symbols.sh: nm is missing (binutils)"; echo "0 passed, 1 failed"; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# GANIM_API [type...] name( -- the name is the identifier right before the first '('.
grep -E '^GANIM_API ' "$header" | sed -E 's/\(.*//; s/.*[ *]([a-z_][a-z0-9_]*)$/\1/' | sort -u > "$tmp/header"
# Defined symbols of the dynamic table, without the toolchain's own (_init, _fini, ...).
nm -D --defined-only "$lib" | awk '{print $NF}' | grep -v -E '^_' | sort -u > "$tmp/lib"
passed=0 failed=0
if cmp -s "$tmp/header" "$tmp/lib"; then
    passed=1
    echo "symbols: libganim exports the $(wc -l < "$tmp/header") functions of the header, nothing else"
else
    failed=1
    echo "symbols: exported but not in the header:"; comm -13 "$tmp/header" "$tmp/lib" | sed 's/^/  /'
    echo "symbols: in the header but not exported:"; comm -23 "$tmp/header" "$tmp/lib" | sed 's/^/  /'
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
