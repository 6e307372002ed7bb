#!/usr/bin/env bash
# Packs the Blender add-on: blender/package.sh LIBGANIM.so OUT.zip [GANIM.dll]
# OUT.zip holds ganim_blender/ (the add-on, its blender_manifest.toml for Blender 4.2+ and
# bl_info for 3.4) with the Python binding in ganim_blender/ganim/ and the native
# libraries beside it: libganim.so (Linux x86_64) and, when given, ganim.dll (Windows
# x86_64). Used by `make blender-addon` and by the add-on's test.
set -eu
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lib="${1:?usage: package.sh LIBGANIM.so OUT.zip [GANIM.dll]}"
out="${2:?usage: package.sh LIBGANIM.so OUT.zip [GANIM.dll]}"
dll="${3:-}"
stage="$(mktemp -d "${TMPDIR:-/tmp}/ganim-addon-stage.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/ganim_blender/ganim"
cp "$repo"/blender/ganim_blender/*.py "$repo/blender/ganim_blender/blender_manifest.toml" "$stage/ganim_blender/"
cp "$repo"/python/ganim/*.py "$stage/ganim_blender/ganim/"
cp -L "$lib" "$stage/ganim_blender/ganim/libganim.so"
[ -z "$dll" ] || cp "$dll" "$stage/ganim_blender/ganim/ganim.dll"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
rm -f "$out"
(cd "$stage" && python3 -m zipfile -c "$out" ganim_blender)
