#!/usr/bin/env bash
# Command-line behaviour of ganim: runs real commands on the real test data and checks
# exit statuses, messages and the files written.
#   bash tests/cli/run.sh path/to/ganim        (GANIM_TESTDATA: the test data directory)
# Prints one line per check and a final "N passed, N failed"; exits 1 on any failure.
# Without the test data (and without GANIM_TESTDATA or CI=true, which require it), the
# checks on the project's own files run and the rest are reported as skipped.
set -u

G=${1:?usage: run.sh path/to/ganim}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
T=${GANIM_TESTDATA:-${GANIM_TESTDATA_DEFAULT:-$SRC/../shared/testdata}}
W=$(mktemp -d "${TMPDIR:-/tmp}/ganim-cli.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1

PASS=0
FAIL=0
ok() { PASS=$((PASS + 1)); echo "ok   $1"; }
bad() { FAIL=$((FAIL + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && printf '     %s\n' "$2"; }
check() { # check NAME COMMAND...: passes when the command succeeds
    local name=$1; shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}

# run ARGS...: runs ganim, sets RC, OUT (stdout file) and ERR (stderr file).
N=0
run() {
    N=$((N + 1))
    OUT=$W/out.$N
    ERR=$W/err.$N
    "$G" "$@" >"$OUT" 2>"$ERR"
    RC=$?
}
expect_rc() { # expect_rc NAME WANT
    if [ "$RC" -eq "$2" ]; then ok "$1"; else bad "$1" "exit status $RC, wanted $2; stderr: $(head -c 400 "$ERR")"; fi
}
has() { grep -Eq -- "$2" "$1"; }
expect_in() { # expect_in NAME FILE REGEX
    if has "$2" "$3"; then ok "$1"; else bad "$1" "no line matching /$3/ in: $(head -c 400 "$2")"; fi
}
expect_not_in() {
    if has "$2" "$3"; then bad "$1" "unexpected /$3/ in: $(head -c 400 "$2")"; else ok "$1"; fi
}
json_ok() { # json_ok FILE
    if command -v node >/dev/null 2>&1; then
        node -e 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))' "$1" 2>/dev/null
    else
        python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null
    fi
}
json_eval() { # json_eval FILE EXPR(d): prints the value (python3)
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
is_glb() { [ "$(head -c 4 "$1" 2>/dev/null)" = "glTF" ]; }

A=$T/alamo
F=$T/ff7
HAVE_DATA=1
[ -f "$A/BM_BERTH_D_DIE_00.ala" ] && [ -f "$F/humanoid_bkey2.da" ] || {
    if [ -n "${GANIM_TESTDATA:-}" ] || [ "${CI:-}" = true ]; then
        echo "FAIL test data missing under $T"
        echo "0 passed, 1 failed"
        exit 1
    fi
    HAVE_DATA=0
}

# ---- version and help ---------------------------------------------------------------
VERSION=$(sed -n 's/^#define GANIM_VERSION_STRING "\(.*\)"/\1/p' "$SRC/include/ganim.h")
run --version
expect_rc "--version exits 0" 0
check "--version prints 'ganim $VERSION'" test "$(cat "$OUT")" = "ganim $VERSION"
run --help
expect_rc "--help exits 0" 0
expect_in "--help lists the commands" "$OUT" "convert"
for c in info convert dump formats; do
    run "$c" --help
    expect_rc "$c --help exits 0" 0
    expect_in "$c --help shows its usage" "$OUT" "^Usage: ganim $c"
    run help "$c"
    expect_rc "help $c exits 0" 0
    expect_in "help $c shows its usage" "$OUT" "^Usage: ganim $c"
done

# ---- bad usage: exit 2, a message and a hint ----------------------------------------
usage_case() { # usage_case NAME ARGS...
    local name=$1; shift
    run "$@"
    expect_rc "usage: $name exits 2" 2
    expect_in "usage: $name hints at --help" "$ERR" "--help"
}
usage_case "no command" 
usage_case "unknown command" frobnicate
usage_case "unknown option" convert "$A/BM_BERTH_D_DIE_00.ala" -o x.glb --frobnicate
usage_case "convert without input" convert -o x.glb
usage_case "convert without -o" convert "$A/BM_BERTH_D_DIE_00.ala"
usage_case "bad --fps" convert "$A/BM_BERTH_D_DIE_00.ala" -o x.glb --fps fast
usage_case "bad -j" convert "$A/BM_BERTH_D_DIE_00.ala" -o x.glb -j -3
usage_case "unknown --to" convert "$A/BM_BERTH_D_DIE_00.ala" -o x.out --to mp4
usage_case "option without value" convert "$A/BM_BERTH_D_DIE_00.ala" -o
usage_case "info without file" info
usage_case "unknown --format" info --format nope "$A/BM_BERTH_D_DIE_00.ala"
usage_case "dump two files" dump "$F/one_bone.da" "$F/frog_entry.da"
check "bad usage wrote nothing" test ! -e x.glb

# ---- formats ------------------------------------------------------------------------
run formats
expect_rc "formats exits 0" 0
expect_in "formats lists alamo-ala" "$OUT" "^alamo-ala +yes +yes +no +alamo +\.ala"
expect_in "formats lists ff7-skeleton as a companion" "$OUT" "^ff7-skeleton +yes +(yes|no) +yes +ff7"
run formats --json
expect_rc "formats --json exits 0" 0
check "formats --json is valid JSON" json_ok "$OUT"
check "formats --json has every format of the table" test \
    "$(json_eval "$OUT" 'len(d)')" = "$("$G" formats | sed -n '2,/^$/p' | grep -c .)"
check "formats --json: alamo-alo is a companion" test \
    "$(json_eval "$OUT" '[f["companion"] for f in d if f["name"]=="alamo-alo"]')" = "[True]"

# ---- errors: missing, empty, directory, corrupt --------------------------------------
run info "$W/missing.ala"
expect_rc "missing file exits 1" 1
expect_in "missing file: 'ganim: FILE: message'" "$ERR" "^ganim: $W/missing.ala: cannot open: "
: >empty.ala
run info empty.ala
expect_rc "empty file exits 1" 1
expect_in "empty file: error line" "$ERR" "^ganim: empty.ala: "
mkdir -p adir
run info adir
expect_rc "directory given to info exits 1" 1
expect_in "directory given to info: says so" "$ERR" "^ganim: adir: is a directory"

head -c 3000 "$SRC/examples/antenna_spin_00.ala" >cut.ala
run info cut.ala
expect_rc "truncated .ala exits 1" 1
expect_in "truncated .ala: error with the byte offset" "$ERR" "^ganim: cut\.ala: .*\(at byte 0x[0-9a-f]+\)$"
head -c 150 "$SRC/tests/data/ff7/fixture_pack.da" >cut.da
run info --no-companion cut.da
expect_rc "truncated FF7 pack exits 1" 1
expect_in "truncated FF7 pack: error with the byte offset" "$ERR" "^ganim: cut\.da: .*\(at byte 0x[0-9a-f]+\)$"

# ---- glTF and BVH as inputs (the project's own files) -----------------------------------
run convert "$SRC/examples/crane_wave_00.ala" -o crane.glb -q
expect_rc "convert .ala -> .glb for the readers" 0
run info crane.glb
expect_rc "info .glb exits 0" 0
expect_in "info .glb: read as gltf" "$OUT" "format: gltf, probe score 100"
expect_in "info .glb: ganim's conversion undone (z-up again)" "$OUT" "axes: z-up"
run convert crane.glb -o again.glb -q
expect_rc "convert .glb -> .glb exports" 0
check "convert .glb -> .glb wrote a GLB" is_glb again.glb
run convert crane.glb -o crane.bvh -q
run convert crane.bvh -o fromb.glb --bvh-axes z-up -q
expect_rc "convert .bvh -> .glb exits 0" 0
check "convert .bvh -> .glb wrote a GLB" is_glb fromb.glb
run info fromb.glb
expect_in "--bvh-axes z-up: the model is z-up again" "$OUT" "axes: z-up"
run convert crane.glb -o x.glb -O gltf.skin=nobody
expect_rc "-O gltf.skin naming no skin exits 1" 1
expect_in "-O gltf.skin naming no skin: says which there are" "$ERR" "names no skin of the file \(0 'skeleton'\)"
run convert "$SRC/tests/data/gltf/threejs_run.glb" -o t.json --fps 60 -q
check "--fps 60 puts glTF keys on 60 fps" test "$(json_eval t.json 'd["clips"][0]["fps"]')" = 60
mkdir -p rdir
cp crane.glb crane.bvh "$SRC/examples/crane_wave_00.ala" "$SRC/examples/crane.alo" rdir/
run convert rdir -o rdout -q
expect_rc "directory with .glb and .bvh inputs exits 0" 0
check "directory: the .bvh is an input, the .glb (an earlier export) is not" \
    test "$(ls rdout | tr '\n' ' ')" = "crane.glb crane_wave_00.glb "
run convert "$SRC/examples/crane_wave_00.ala" -o "read me.gltf" -q
run info "read me.gltf"
expect_rc "info .gltf with its .bin next to it exits 0" 0
mv "read me.bin" moved.bin
run info "read me.gltf"
expect_rc "info .gltf without its .bin exits 1" 1
expect_in "info .gltf without its .bin names the file" "$ERR" "read me\.bin"

if [ "$HAVE_DATA" = 0 ]; then
    echo "SKIPPED: the CLI checks on the real samples (info, dump, convert): no test data in '$T' (set GANIM_TESTDATA=/path/to/testdata to run them)"
    [ -n "${GANIM_SKIP_LOG:-}" ] && echo "cli checks on the real samples (info, dump, convert)" >> "$GANIM_SKIP_LOG"
    echo "$PASS passed, $FAIL failed"
    [ "$FAIL" = 0 ]
    exit
fi

# ---- info -----------------------------------------------------------------------------
run info "$A/BM_BERTH_D_DIE_00.ala"
expect_rc "info .ala exits 0" 0
expect_in "info .ala: format alamo-ala" "$OUT" "format: alamo-ala, probe score [0-9]+"
# README: BM_BERTH_D_DIE_00.ala: 101 frames @ 30 fps, 12 bone tracks; BM_BERTH_D.ALO: 13 bones
expect_in "companion: MODEL_ANIM_NN.ala finds MODEL.ALO (13 bones)" "$OUT" "skeleton: 13 bones.*from .*BM_BERTH_D\.ALO"
expect_in "info .ala: clip line (README: 101 frames at 30 fps, 12 tracks)" "$OUT" "clip 0.*30 fps, 101 frames, 3\.333 s, 12 tracks"
run info --no-companion "$A/BM_BERTH_D_DIE_00.ala"
expect_not_in "--no-companion: no companion skeleton" "$OUT" "BM_BERTH_D\.ALO"
run info --skeleton "$A/BM_BERTH_D.ALO" "$A/BM_BERTH_D_DIE_00.ala"
expect_in "--skeleton FILE gives the 13 bones" "$OUT" "skeleton: 13 bones"

mkdir -p lower
cp "$A/BM_BERTH_D_DIE_00.ala" lower/bm_berth_d_die_00.ala
cp "$A/BM_BERTH_D.ALO" lower/Bm_Berth_D.alo
run info lower/bm_berth_d_die_00.ala
expect_in "companion names match case-insensitively" "$OUT" "skeleton: 13 bones.*from lower/Bm_Berth_D\.alo"

mkdir -p ff7pack
cp "$F/humanoid_bkey2.da" ff7pack/rtda
cp "$F/humanoid_bkey2.aa" ff7pack/rtaa
run info --skeleton "$F/humanoid_bkey2.aa" "$F/humanoid_bkey2.da"
BONES=$(sed -n 's/^  skeleton: \([0-9]*\) bones.*/\1/p' "$OUT")
run info ff7pack/rtda
expect_rc "info FF7 pack rtda exits 0" 0
expect_in "companion: xxda finds xxaa" "$OUT" "skeleton: $BONES bones.*from ff7pack/rtaa"
# README (humanoid_bkey2.expected.json): 8 entries, entry 0 has 24 frames at 15 fps
expect_in "info FF7: 8 clips" "$OUT" "clips: 8"
expect_in "info FF7: clip 0 has 24 frames at 15 fps" "$OUT" "clip 0.*15 fps, 24 frames"

run info "$F/edge_frames.da"
expect_in "warnings: 'ganim: FILE: warning: ... (at byte 0x..)'" "$ERR" "^ganim: .*edge_frames\.da: warning: .*\(at byte 0x[0-9a-f]+\)$"

run info --json "$A/BM_BERTH_D_DIE_00.ala"
expect_rc "info --json exits 0" 0
check "info --json is one JSON document" json_ok "$OUT"
check "info --json is an object for one file" test "$(json_eval "$OUT" 'type(d).__name__')" = dict
run info --json "$A/BM_BERTH_D_DIE_00.ala" "$W/missing.ala" "$F/one_bone.da"
expect_rc "info --json with a missing file exits 1" 1
check "info --json for several files is an array (null for the failure)" test \
    "$(json_eval "$OUT" '[type(x).__name__ for x in d]')" = "['dict', 'NoneType', 'dict']"

# ---- dump -------------------------------------------------------------------------------
run dump "$F/one_bone.da"
expect_rc "dump exits 0" 0
check "dump prints valid JSON" json_ok "$OUT"
DUMP=$OUT
run dump "$F/one_bone.da" -o one.json
expect_rc "dump -o exits 0" 0
check "dump -o writes the same bytes as stdout" cmp -s one.json "$DUMP"
cp "$F/one_bone.da" victim.da
run dump victim.da -o victim.da
expect_rc "dump refuses to overwrite its input" 1
check "dump left the input alone" cmp -s victim.da "$F/one_bone.da"

# ---- convert: single files ---------------------------------------------------------------
run convert "$A/BM_BERTH_D_DIE_00.ala" -o berth.glb
expect_rc "convert .ala -> .glb exits 0" 0
check "convert wrote a GLB" is_glb berth.glb
expect_in "convert prints the summary line" "$ERR" "^converted 1 file \(0 failed\) in [0-9]+\.[0-9]{2} s$"
run convert "$A/BM_BERTH_D_DIE_00.ala" -o berth.glb
expect_rc "existing output without --force exits 1" 1
expect_in "existing output: says --force" "$ERR" "--force"
run convert "$A/BM_BERTH_D_DIE_00.ala" -o berth.glb --force -q
expect_rc "--force replaces the output" 0
check "-q prints nothing on success" test ! -s "$ERR"

run convert "$A/BM_BERTH_D_DIE_00.ala" -o "my anim.gltf"
expect_rc "convert -> .gltf exits 0" 0
check ".gltf writes its .bin next to it" test -s "my anim.bin"
check ".gltf is valid JSON" json_ok "my anim.gltf"
check ".gltf points at the .bin (URI-encoded)" test \
    "$(json_eval "my anim.gltf" 'd["buffers"][0]["uri"]')" = "my%20anim.bin"
check ".gltf buffer length equals the .bin size" test \
    "$(json_eval "my anim.gltf" 'd["buffers"][0]["byteLength"]')" = "$(wc -c <"my anim.bin" | tr -d ' ')"

run convert "$A/BM_BERTH_D_DIE_00.ala" -o berth.json
expect_rc "convert -> .json exits 0" 0
check "convert -> .json equals dump" cmp -s berth.json <("$G" dump "$A/BM_BERTH_D_DIE_00.ala")

run convert "$A/BM_BERTH_D_DIE_00.ala" -o berth.bvh
expect_rc "convert -> .bvh exits 0" 0
check "BVH starts with HIERARCHY" test "$(head -c 9 berth.bvh)" = HIERARCHY

# FF7 pack: BVH with --clip all gives one file per animation (README: 8 entries)
mkdir -p bvh
run convert ff7pack/rtda -o bvh/rt.bvh --clip all
expect_rc "BVH --clip all exits 0" 0
check "BVH --clip all: one file per clip" test "$(ls bvh | grep -c '^rt_.*\.bvh$')" = 8
run convert ff7pack/rtda -o first.bvh
expect_in "BVH of a multi-clip pack warns it wrote one clip" "$ERR" "warning: .*--clip all"
run convert ff7pack/rtda -o clip2.glb --clip 2
expect_rc "--clip N exits 0" 0
run convert ff7pack/rtda -o clip99.glb --clip 99
expect_rc "--clip out of range exits 1" 1
expect_in "--clip out of range: says how many clips" "$ERR" "no clip 99"

# Writing back in the file's own format: an unmodified FF7 pack comes back byte for byte.
run convert ff7pack/rtda -o ff7pack/rtda.new
expect_rc "convert rtda -o rtda.new (own format) exits 0" 0
check "unmodified FF7 pack is rewritten byte for byte" cmp -s ff7pack/rtda.new "$F/humanoid_bkey2.da"
run convert ff7pack/rtda -o ff7pack/rtda.r4 --to ff7-battle --resample 4
expect_rc "--to ff7-battle --resample 4 exits 0" 0
run info ff7pack/rtda.r4 --skeleton ff7pack/rtaa
# 24 frames resampled by 4: 4 * (24 - 1) + 1 = 93 (an FF7 pack stores no rate: 15 fps)
expect_in "--resample 4: 24 frames become 93" "$OUT" "clip 0.*15 fps, 93 frames"
run convert ff7pack/rtda -o r4.json --resample 4
check "--resample 4 in the model: 93 frames at 60 fps" test \
    "$(json_eval r4.json '(d["clips"][0]["frame_count"], d["clips"][0]["fps"])')" = "(93, 60)"
run convert ff7pack/rtda -o fps.json --fps 24
check "--fps 24 sets the clip rate" test "$(json_eval fps.json 'd["clips"][0]["fps"]')" = 24
run convert ff7pack/rtda -o ff7pack/rtda --to ff7-battle --force
expect_rc "refuses to overwrite the input" 1
expect_in "refusal says why" "$ERR" "refusing to overwrite"
check "the input is unchanged" cmp -s ff7pack/rtda "$F/humanoid_bkey2.da"

# ---- convert: batches ---------------------------------------------------------------------
mkdir -p batch
cp "$A/BM_BERTH_D_DIE_00.ala" "$A/BM_BERTH_D.ALO" "$A/W_Grenade_Idle_00.ala" "$A/W_Grenade.alo" batch/
head -c 2000 "$A/RB_TLTower_Attack_00.ala" >batch/broken_00.ala
run convert batch/BM_BERTH_D_DIE_00.ala batch/broken_00.ala batch/W_Grenade_Idle_00.ala -o bout
expect_rc "batch with one bad input exits 1" 1
check "batch: the good inputs are converted" is_glb bout/BM_BERTH_D_DIE_00.glb
check "batch: the good inputs are converted (2)" is_glb bout/W_Grenade_Idle_00.glb
check "batch: no output for the bad input" test ! -e bout/broken_00.glb
expect_in "batch: the bad input is named" "$ERR" "^ganim: batch/broken_00\.ala: .*\(at byte 0x[0-9a-f]+\)$"
expect_in "batch: summary line" "$ERR" "^converted 2 files \(1 failed\) in [0-9]+\.[0-9]{2} s$"

run convert batch -o dout
expect_rc "directory input with a bad file exits 1" 1
check "directory input: companions (.alo) are not converted" test ! -e dout/BM_BERTH_D.glb
check "directory input: animations are converted" is_glb dout/W_Grenade_Idle_00.glb

NALA=$(ls "$A" | grep -ci '\.ala$')
run convert "$A" -o j1 -j 1
expect_rc "-j 1 over the alamo directory exits 0" 0
check "-j 1: one GLB per .ala ($NALA)" test "$(ls j1 | grep -c '\.glb$')" = "$NALA"
run convert "$A" -o j2 -j 2
expect_rc "-j 2 over the alamo directory exits 0" 0
check "-j 2 gives the same files as -j 1, byte for byte" diff -r j1 j2
expect_in "-j 2: summary line" "$ERR" "^converted $NALA files \(0 failed\) in [0-9]+\.[0-9]{2} s$"
BAD=0
for f in j2/*.glb; do is_glb "$f" || BAD=1; done
check "-j 2: every output is a GLB" test $BAD = 0

run convert "$F" -o ff7out -j 2 -q
expect_rc "FF7 directory -> glb exits 0" 0
check "FF7 directory: .aa skeletons are skipped" test -z "$(ls ff7out | grep -i 'aa\.glb')"
check "FF7 directory: one GLB per pack" test "$(ls ff7out | grep -c '\.glb$')" = "$(ls "$F" | grep -c '\.da$')"

run convert "$F" -o dir.glb
expect_rc "directory input with -o FILE.glb is bad usage" 2
run convert "$F/one_bone.da" -o new/sub/one.glb -q
expect_rc "a file output's missing directories are created" 0
check "a file output's missing directories are created (file)" is_glb new/sub/one.glb

# A hostile file name cannot send escape sequences to the terminal.
EVIL=$(printf 'evil\033[2J.ala')
cp cut.ala "$EVIL"
run info "$EVIL"
check "control bytes in names are escaped in messages" test "$(grep -c $'\033' "$ERR")" = 0
expect_in "control bytes in names are shown as \\x1b" "$ERR" 'evil\\x1b\[2J\.ala'

mkdir -p empty_dir
run convert empty_dir -o eout
expect_rc "directory without animations exits 1" 1
expect_in "directory without animations: says so" "$ERR" "no animation files"

# --up declares the input's axes (ACL stores none): the glTF records the conversion
run convert "$T/acl/metadata_f70_r30_b34.acl" -o "$W/up.glb" --up z -q
expect_rc "--up z converts" 0
check "--up z: the glTF says it turned z-up to y-up" \
    grep -aq '"axes":"z-up","axis_conversion":"rotate -90 deg about X"' "$W/up.glb"
run convert "$T/acl/metadata_f70_r30_b34.acl" -o "$W/up2.glb" --up sideways
expect_rc "--up with a bad value is bad usage" 2

# BVH: a default BVH names the joints whose animated translation it drops;
# --bvh-joint-positions keeps them as position channels
run convert "$A/BM_BERTH_D_DIE_00.ala" -o "$W/berth.bvh"
expect_in "BVH warns about dropped joint translations" "$ERR" "warning: BVH clip 0: 2 joint\(s\) with animated translation .*back, front"
run convert "$A/BM_BERTH_D_DIE_00.ala" -o "$W/berth_pos.bvh" --bvh-joint-positions
expect_not_in "--bvh-joint-positions: no warning" "$ERR" "animated translation"
check "--bvh-joint-positions: 3 joints with position channels" test "$(grep -c 'CHANNELS 6' "$W/berth_pos.bvh")" = 3

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
