#!/usr/bin/env bash
# The shared library exports exactly the functions the header declares GANIM_API:
#   tests/install/symbols.sh path/to/libganim.so include/ganim.h
#   tests/install/symbols.sh path/to/ganim.dll include/ganim.h   (GANIM_OBJDUMP: MinGW's)
# Compares the defined dynamic symbols (nm -D; a DLL's export table) with the header's
# GANIM_API names; any symbol only on one side is printed and fails the test.
set -u
lib="${1:?usage: symbols.sh LIBGANIM_SO GANIM_H}"
header="${2:?usage: symbols.sh LIBGANIM_SO GANIM_H}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# GANIM_API [type...] name( -- the name is the identifier right before the first '('.
grep -E '^GANIM_API ' "$header" | sed -E 's/\(.*//; s/.*[ *]([a-z_][a-z0-9_]*)$/\1/' | sort -u > "$tmp/header"
case "$lib" in
*.dll)
    # The export table's names: "[   3] ganim_channel_eval" after "[Ordinal/Name Pointer] Table".
    objdump="${GANIM_OBJDUMP:-x86_64-w64-mingw32-objdump}"
    command -v "$objdump" >/dev/null || { echo "symbols.sh: $objdump is missing"; echo "0 passed, 1 failed"; exit 1; }
    "$objdump" -p "$lib" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/s/^[[:space:]]*\[ *[0-9]*\] //p' |
        sort -u > "$tmp/lib"
    ;;
*)
    command -v nm >/dev/null || { echo "symbols.sh: nm is missing (binutils)"; echo "0 passed, 1 failed"; exit 1; }
    # Defined symbols of the dynamic table, without the toolchain's own (_init, _fini, ...).
    nm -D --defined-only "$lib" | awk '{print $NF}' | grep -v -E '^_' | sort -u > "$tmp/lib"
    ;;
esac
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
