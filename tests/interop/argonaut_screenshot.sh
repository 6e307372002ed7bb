#!/usr/bin/env bash
# The screenshot check of an Argonaut model (too slow for make check; run by hand):
#   tests/interop/argonaut_screenshot.sh PATH/TO/ganim [OUTDIR]
# Converts model 1 of hp_level.wad and model 0 of croc2_level.wad (the shared fixtures)
# with --argonaut-model to .glb, validates them with the Khronos validator (0 errors, 0
# warnings), loads them in three.js (GLTFLoader: the skinned mesh and its animations),
# and renders two frames of each in Blender (Debian's blender, headless, Cycles on the
# CPU): the model must cover the picture and the two frames must differ where it is. The
# PNGs stay in OUTDIR (default /tmp/ganim-argonaut-shots) for a look.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ganim="${1:?usage: argonaut_screenshot.sh PATH/TO/ganim [OUTDIR]}"
out="${2:-/tmp/ganim-argonaut-shots}"
data="${GANIM_TESTDATA:-$here/../../../shared/testdata}/argonaut"
mkdir -p "$out"
pass=0 fail=0
for pair in hp_level:1 croc2_level:0; do
    name=${pair%%:*} model=${pair##*:}
    glb="$out/${name}_model$model.glb"
    if "$ganim" convert --argonaut-model "$model" "$data/$name.wad" -o "$glb" --force; then pass=$((pass + 1)); else fail=$((fail + 1)); continue; fi
    if node "$here/validate.mjs" "$glb" | tail -3; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    if (cd "$here" && node -e '
      import("three/examples/jsm/loaders/GLTFLoader.js").then(async ({ GLTFLoader }) => {
        const fs = await import("node:fs");
        const buf = fs.readFileSync(process.argv[1]);
        new GLTFLoader().parse(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length), "", g => {
          let skinned = 0; g.scene.traverse(o => { if (o.isSkinnedMesh) skinned++; });
          const ok = skinned > 0 && g.animations.length > 0;
          console.log((ok ? "PASS" : "FAIL") + ` three.js: ${skinned} skinned mesh(es), ${g.animations.length} animation(s)`);
          process.exit(ok ? 0 : 1);
        }, e => { console.log("FAIL three.js: " + e); process.exit(1); });
      });' "$glb"); then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    if command -v blender >/dev/null; then
        blender -b --factory-startup -P "$here/argonaut_blender.py" -- "$glb" "$out/${name}_model$model" \
            > "$out/${name}_blender.log" 2>&1
        grep -E "^(PASS|FAIL|blender:)" "$out/${name}_blender.log"
        if grep -q "^PASS blender" "$out/${name}_blender.log"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
    else
        echo "SKIPPED blender: not installed (apt-get install blender)"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
