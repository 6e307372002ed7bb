#!/usr/bin/env bash
# Hostile inputs through the command line, one of each class an attack found (issue 20),
# each bounded in time (timeout) and, where the input is large, in memory (the peak
# resident size GNU time reports):
#   a pipe (FIFO) as a glTF's buffer and as an archive's .DAT: refused at once, no wait;
#   a symbolic link out of the glTF's folder, a folder as a buffer: refused, said so;
#   a large valid glTF (10^6 numbers in extras): read in a small multiple of its size;
#   frame rates at the library's limit (1e-4 fps): written and read back;
#   refusals write nothing: convert in.gltf -o in.gltf, an archive directory to glb;
#   an ACL buffer whose hash does not match: read, with a warning that says so;
#   FF7 clips out of the pack's order (a fuzz finding): refused, nothing written;
#   FF7 clips split into more entries than the skeleton counts: refused; --into writes them;
#   an FF7 skeleton record that is damaged: refused.
#   bash tests/cli/hostile.sh path/to/ganim
# Prints one line per check and "N passed, N failed"; exits 1 on any failure. Uses only
# the project's own files (examples/, tests/data/).
set -u

G=${1:?usage: hostile.sh path/to/ganim}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
EX=$SRC/examples
W=$(mktemp -d "${TMPDIR:-/tmp}/ganim-hostile.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '     %s\n' "$2"; }
check() { # check NAME COMMAND...
    local name=$1; shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}

# run SECONDS ARGS...: ganim under `timeout`; sets RC (124: it did not end), ERR, OUT and
# PEAK_KB (the most memory it held, when GNU time is there)
N=0
run() {
    local secs=$1; shift
    N=$((N + 1))
    OUT=$W/out.$N
    ERR=$W/err.$N
    PEAK_KB=0
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M -o "$W/peak.$N" timeout -k 2 "$secs" "$G" "$@" >"$OUT" 2>"$ERR"
        RC=$?
        PEAK_KB=$(tail -1 "$W/peak.$N" 2>/dev/null | tr -dc 0-9)
        PEAK_KB=${PEAK_KB:-0}
    else
        timeout -k 2 "$secs" "$G" "$@" >"$OUT" 2>"$ERR"
        RC=$?
    fi
}
expect_rc() { # NAME WANT
    if [ "$RC" -eq 124 ] || [ "$RC" -eq 137 ]; then bad "$1" "did not end in time (exit status $RC)"
    elif [ "$RC" -eq "$2" ]; then ok "$1"
    else bad "$1" "exit status $RC, wanted $2; stderr: $(head -c 400 "$ERR")"; fi
}
expect_in() { # NAME FILE REGEX
    if grep -Eq -- "$3" "$2"; then ok "$1"; else bad "$1" "no line matching /$3/ in: $(head -c 400 "$2")"; fi
}

"$G" convert "$EX/crane_wave_00.ala" -o "$W/crane.gltf" -q >/dev/null 2>&1 ||
    { bad "setup: export the crane to glTF"; # 10. clips out of the pack's order (a weapon clip's FF7 record at a body entry): refused
# (it was written and read back as a body animation of 4 frames, not the weapon's 8)
run 10 convert "$SRC/tests/data/regress/roundtrip/ff7_weapon_record_in_body_slot.glb" -o order.da --to ff7-battle
expect_rc "FF7 clips out of the pack's order: refused" 1
expect_in "FF7 clips out of the pack's order: says so" "$ERR" "holds a weapon entry's record but is entry 1, a body entry"
check "FF7 clips out of the pack's order: nothing written" test ! -e order.da

echo "$PASS passed, $FAIL failed"; exit 1; }

# 1. a pipe as a glTF's buffer: refused at once (it once blocked in open() for ever)
mkdir -p pipe && cp crane.gltf pipe/ && mkfifo pipe/crane.bin
run 10 info pipe/crane.gltf
expect_rc "FIFO as a glTF buffer: refused, in time" 1
expect_in "FIFO as a glTF buffer: says it is a pipe" "$ERR" "'crane.bin', which is a pipe \(FIFO\), not a regular file"

# 2. a pipe as an archive's .DAT: ARCHIVE.DIR:MEMBER refused at once
mkdir -p arc && cp "$SRC/tests/data/argonaut/FIXTURE.DIR" arc/ && mkfifo arc/FIXTURE.DAT
run 10 info arc/FIXTURE.DIR:LEVEL1.WAD
expect_rc "FIFO as an archive's .DAT: refused, in time" 1
expect_in "FIFO as an archive's .DAT: says it is a pipe" "$ERR" "'FIXTURE.DAT', which is a pipe \(FIFO\)"

# 3. a link out of the folder: not followed; 4. a folder as the buffer: says so
mkdir -p link/in && cp crane.gltf link/in/ && cp crane.bin link/secret.bin && ln -s ../secret.bin link/in/crane.bin
run 10 info link/in/crane.gltf
expect_rc "a link out of the glTF's folder: refused" 1
expect_in "a link out of the glTF's folder: says it is a link" "$ERR" "which is a symbolic link, not a regular file"
mkdir -p dir/crane.bin && cp crane.gltf dir/
run 10 info dir/crane.gltf
expect_rc "a folder as a glTF buffer: refused" 1
expect_in "a folder as a glTF buffer: says it is a folder" "$ERR" "'crane.bin', which is a folder, not a regular file"

# 5. a large valid glTF: 10^6 numbers in the extras of the asset and of a node (12 MB)
python3 - "$W/crane.gltf" "$W/big.gltf" <<'EOF'
import json, sys
g = json.load(open(sys.argv[1]))
big = list(range(10)) * 100000
g["asset"].setdefault("extras", {})["filler"] = big
g["nodes"][0].setdefault("extras", {})["filler"] = big
g["materials"] = [{"name": "m%d" % i} for i in range(100000)]
open(sys.argv[2], "w").write(json.dumps(g, separators=(",", ":")))
EOF
cp crane.bin big.bin 2>/dev/null || true
size_kb=$(( $(wc -c <big.gltf) / 1024 ))
run 60 info big.gltf
expect_rc "a large valid glTF ($size_kb KB of JSON): read" 0
expect_in "a large valid glTF: its skeleton" "$OUT" "skeleton: .*[0-9]+ bones"
# the JSON may take 8 bytes per byte; the process (a sanitizer build's too) 96 MB more
if [ "$PEAK_KB" -gt 0 ]; then
    limit_kb=$((8 * size_kb + 96 * 1024))
    if [ "$PEAK_KB" -le "$limit_kb" ]; then ok "a large valid glTF: read in $PEAK_KB KB (at most $limit_kb)"
    else bad "a large valid glTF: read in $PEAK_KB KB, more than $limit_kb"; fi
fi

# 6. frame rates at the limit: 1e-4 fps (a BVH frame time of 10000 s) written and read back
printf 'HIERARCHY\nROOT hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n  End Site\n  {\n    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: 2\nFrame Time: 10000\n0 0 0 0 0 0\n1 0 0 90 0 0\n' >slow.bvh
for ext in ala civ; do
    run 10 convert slow.bvh -o "slow.$ext" -q
    expect_rc "1e-4 fps to .$ext: written" 0
    run 10 info "slow.$ext"
    expect_rc "1e-4 fps in .$ext: read back" 0
done
expect_in "1e-4 fps in .civ: the rate read back" "$OUT" "0\.0001"

# 7. a refused command writes nothing: convert in.gltf -o in.gltf (the buffer has another
# name, so the export's in.bin would be new)
mkdir -p self && cp crane.gltf self/in.gltf && cp crane.bin self/
run 10 convert self/in.gltf -o self/in.gltf
expect_rc "convert in.gltf -o in.gltf: refused" 1
expect_in "convert in.gltf -o in.gltf: says why" "$ERR" "refusing to overwrite the input file"
check "convert in.gltf -o in.gltf: no in.bin left" test ! -e self/in.bin
# 8. an archive directory holds no animation: refused, naming a level to read instead
run 10 convert "$SRC/tests/data/argonaut/FIXTURE.DIR" -o arc.glb
expect_rc "convert ARCHIVE.DIR -o x.glb: refused" 1
expect_in "convert ARCHIVE.DIR -o x.glb: names a level inside" "$ERR" "FIXTURE.DIR:LEVEL1.WAD"
check "convert ARCHIVE.DIR -o x.glb: nothing written" test ! -e arc.glb

# 9. an ACL buffer with one byte of its track data changed: read, with a warning
cp "$SRC/tests/data/acl/synth_variable_v10.acl" hash.acl
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 0x40; open(sys.argv[1], "wb").write(b)' hash.acl
run 10 info hash.acl
expect_rc "an ACL buffer whose hash does not match: read" 0
expect_in "an ACL buffer whose hash does not match: says so" "$ERR" "differs from the FNV-1a hash of the buffer.*modified or damaged"

# 10. clips out of the pack's order (a weapon clip's FF7 record at a body entry): refused
# (it was written and read back as a body animation of 4 frames, not the weapon's 8)
run 10 convert "$SRC/tests/data/regress/roundtrip/ff7_weapon_record_in_body_slot.glb" -o order.da --to ff7-battle
expect_rc "FF7 clips out of the pack's order: refused" 1
expect_in "FF7 clips out of the pack's order: says so" "$ERR" "holds a weapon entry's record but is entry 1, a body entry"
check "FF7 clips out of the pack's order: nothing written" test ! -e order.da

# 11. a weapon clip's FF7 record past the skeleton's weapon entries (a special entry took
# its place): refused (it was written and read back as an extra entry of 4 frames in body
# slots, not the weapon's 8)
run 10 convert "$SRC/tests/data/regress/roundtrip/ff7_weapon_record_past_weapon_slots.glb" -o past.da --to ff7-battle
expect_rc "FF7 weapon record past the weapon entries: refused" 1
expect_in "FF7 weapon record past the weapon entries: says so" "$ERR" "holds a weapon entry's record but is entry 3, past the skeleton's 2 body and 1 weapon animations"
check "FF7 weapon record past the weapon entries: nothing written" test ! -e past.da

# 12. clips without FF7 records that move body and weapon, on a skeleton whose record says
# 2 body and 1 weapon animations: split into 2 body and 2 weapon entries, the pack would
# not read back with that skeleton (entry 3 an extra entry in body slots; it was written,
# with a warning only). Refused, naming the clips and both counts, nothing written; put
# into the original pack with --into, the same clips are written and read back
RS=$SRC/tests/data/regress/roundtrip/ff7_split_clips_more_weapon_entries_than_skeleton.glb
run 10 convert "$RS" -o split.da --to ff7-battle
expect_rc "FF7 split past the skeleton's counts: refused" 1
expect_in "FF7 split past the skeleton's counts: names the clips and the counts" "$ERR" "1 animation without an FF7 record moves body bones and the weapon \(clip 0 \('body_0\+weapon_2'\)\).*pack of these 2 clips needs a skeleton \(\?\?aa\) of nsSkeletonAnims 2 and nsWeaponsAnims 2, but the document's skeleton says 2 and 1"
expect_in "FF7 split past the skeleton's counts: says how to proceed" "$ERR" "into the original pack with --into"
check "FF7 split past the skeleton's counts: nothing written" test ! -e split.da
cp "$SRC/tests/data/ff7/fixture_pack.da" fxda
cp "$SRC/tests/data/ff7/fixture_pack.aa" fxaa
run 10 convert "$RS" --into fxda -o intoda
expect_rc "FF7 split clips --into the original pack: written" 0
run 10 info intoda --skeleton fxaa
expect_rc "FF7 split clips --into the original pack: reads back with its skeleton" 0
expect_in "FF7 split clips --into the original pack: 4 entries" "$OUT" "entries: 4"
expect_in "FF7 split clips --into the original pack: the weapon entry paired with body_0" "$OUT" "2 +weapon_2 +animation +15 +8 "

# 13. a skeleton whose FF7 record is damaged (nBones 524291 in 88 bytes; found by this
# session's roundtrip-ff7-battle run): the reader refuses a pack with it, so the writer
# refuses too (it wrote a pack that did not read back)
run 10 convert "$SRC/tests/data/regress/roundtrip/ff7_skeleton_record_damaged.glb" -o damaged.da --to ff7-battle
expect_rc "FF7 skeleton record damaged: refused" 1
expect_in "FF7 skeleton record damaged: says so" "$ERR" "the skeleton's FF7 record \(its \?\?aa\) is damaged: 88 bytes, its nBones \(524291\) needs 6291544"
check "FF7 skeleton record damaged: nothing written" test ! -e damaged.da

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
