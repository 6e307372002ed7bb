#!/usr/bin/env bash
# Assembles the viewer's static site: web/build.sh WASM OUT_DIR
#   WASM     ganim.wasm built by web/wasm.mk
#   OUT_DIR  where index.html and its assets go (make web: web/dist)
# The page's JavaScript (web/src/*.js) and three.js (web/node_modules, pinned by
# web/package-lock.json) become one minified module, viewer.js, by Debian's esbuild;
# three.js's licence goes beside it. Nothing is fetched at run time from anywhere but
# the page's own folder.
set -eu
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
wasm="${1:?usage: build.sh WASM OUT_DIR}"
out="${2:?usage: build.sh WASM OUT_DIR}"
[ -d "$here/node_modules/three" ] || { echo "build.sh: web/node_modules/three missing: run 'npm ci' in web/ (make web does)" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
esbuild "$here/src/viewer.js" --bundle --minify --format=esm --target=es2020 \
  --legal-comments=none --log-level=warning --outfile="$out/viewer.js"
cp "$here/src/index.html" "$here/src/viewer.css" "$out/"
cp "$wasm" "$out/ganim.wasm"
cp "$here/node_modules/three/LICENSE" "$out/three.js-LICENSE.txt"
echo "ganim: the viewer is in $out ($(du -sk "$out" | cut -f1) KB: ganim.wasm $(wc -c < "$out/ganim.wasm") bytes, viewer.js $(wc -c < "$out/viewer.js") bytes)"
echo "       serve it with: python3 -m http.server -d $out   (then open http://localhost:8000)"
