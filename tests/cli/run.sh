#!/usr/bin/env bash
# Command-line behaviour of ganim: runs real commands on the real test data and checks
# exit statuses, messages and the files written.
#   bash tests/cli/run.sh path/to/ganim        (GANIM_TESTDATA: the test data directory)
#   GANIM_RUNNER=wine bash tests/cli/run.sh path/to/ganim.exe    (the Windows build)
# Prints one line per check and a final "N passed, N failed"; exits 1 on any failure.
# Without the test data (and without GANIM_TESTDATA or CI=true, which require it), the
# checks on the project's own files run and the rest are reported as skipped.
set -u

G=${1:?usage: run.sh path/to/ganim}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
# The Windows build (ganim.exe) runs through GANIM_RUNNER (wine); a few checks differ.
read -r -a RUNNER <<<"${GANIM_RUNNER:-}"
gan() { "${RUNNER[@]}" "$G" "$@"; }
WINDOWS=0
case "$G" in *.exe) WINDOWS=1 ;; esac
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
    gan "$@" >"$OUT" 2>"$ERR"
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
    "$(json_eval "$OUT" 'len(d)')" = "$(gan formats | sed -n '2,/^$/p' | grep -c .)"
check "formats --json: alamo-alo is a companion" test \
    "$(json_eval "$OUT" '[f["companion"] for f in d if f["name"]=="alamo-alo"]')" = "[True]"
# docs/cli.md's alias table says what the registry says: one row per option with an alias
# (alias, option, deprecated spelling or -), no more, no fewer
DOCS=$SRC/docs/cli.md
alias_table_agrees() {
    python3 - "$OUT" "$DOCS" <<'PY'
import json, re, sys
fmts = json.load(open(sys.argv[1]))
want = sorted((o["alias"], o["name"], o.get("deprecated_alias") or "-")
              for f in fmts for o in f["options"] if o["alias"])
text = open(sys.argv[2], encoding="utf-8").read()
section = text.split("## Format option aliases", 1)[1].split("\n## ", 1)[0]
got = sorted((m.group(1), m.group(2), m.group(3) or "-")
             for m in re.finditer(r"^\| `--([a-z0-9-]+)[^`]*` \| `([a-z0-9.-]+)` \| (?:`--([a-z0-9-]+)`|-) \|", section, re.M))
if got != want:
    print("docs/cli.md:", got, "\nganim formats --json:", want, file=sys.stderr)
    sys.exit(1)
PY
}
check "docs/cli.md's alias table agrees with formats --json" alias_table_agrees
# every command that takes aliases builds its option table (an alias equal to one of its
# own options stops it with an internal error)
for cmd in info convert dump; do
    run "$cmd" --help
    expect_rc "$cmd --help exits 0 with the formats' aliases in its table" 0
done

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

# ---- promises kept: never success for a result not delivered (on the project's files) ---
EX=$SRC/examples
FX=$SRC/tests/data

# 1. a write to standard output that fails fails the command
for args in "dump $EX/crane_wave_00.ala" "info $EX/crane_wave_00.ala" "info --json $EX/crane_wave_00.ala" "formats" "--version"; do
    # shellcheck disable=SC2086
    gan $args >/dev/full 2>"$W/full.err"
    RC=$?
    check "stdout full: '$args' exits 1" test "$RC" = 1
    check "stdout full: '$args' says so" grep -q "cannot write to standard output" "$W/full.err"
done

# 2. -o never replaces a device, a FIFO or a link: it writes through (or refuses)
ln -sf /dev/null "$W/nul.json"
run dump "$EX/crane_wave_00.ala" -o "$W/nul.json"
expect_rc "dump -o link-to-device exits 0" 0
check "dump -o link-to-device: the link is still a link to /dev/null" test "$(readlink "$W/nul.json")" = /dev/null
if [ "$WINDOWS" = 1 ]; then
    # Wine shows a Unix symbolic link to a Windows program as the file it leads to (no
    # reparse point): the links below cannot be told from files there.
    echo "skip -o a symbolic link (not visible as a link to a Windows program under Wine)"
else
    echo old >"$W/target.json"
    ln -sf target.json "$W/link.json"
    run dump "$EX/crane_wave_00.ala" -o "$W/link.json"
    check "dump -o link: the link stays a link" test -L "$W/link.json"
    check "dump -o link: the file it points at gets the dump" grep -q '"ganim_dump"' "$W/target.json"
    run convert "$EX/crane_wave_00.ala" -o "$W/link.json" -f
    check "convert -f -o link: the link stays a link" test -L "$W/link.json"
    ln -sf missing.json "$W/dangling.json"
    run dump "$EX/crane_wave_00.ala" -o "$W/dangling.json"
    expect_rc "dump -o dangling link exits 1" 1
    check "dump -o dangling link: the link is not replaced" test -L "$W/dangling.json"
fi
mkfifo "$W/fifo"
(cat "$W/fifo" >"$W/from_fifo" &)
run dump "$EX/crane_wave_00.ala" -o "$W/fifo"
expect_rc "dump -o FIFO exits 0" 0
sleep 0.2
check "dump -o FIFO: still a FIFO" test -p "$W/fifo"
check "dump -o FIFO: the reader got the dump" grep -q '"ganim_dump"' "$W/from_fifo"

# 3. an extension nothing knows is an error naming the known ones
run convert "$EX/crane_wave_00.ala" -o "$W/berth.gbl"
expect_rc "typo in the output extension is bad usage" 2
expect_in "typo in the output extension: names the known ones" "$ERR" "known ones are \.glb, \.gltf, \.bvh, \.json"
check "typo in the output extension: nothing written" test ! -e "$W/berth.gbl"
run convert "$EX/crane_wave_00.ala" -o "$W/berth.gbl" --to glb
expect_rc "an unknown extension with --to writes" 0
check "an unknown extension with --to: a glb" is_glb "$W/berth.gbl"

# 4. an explicit --skeleton that does not fit, or that is an animation, is an error
run info --skeleton "$EX/antenna.alo" "$EX/crane_wave_00.ala"
expect_rc "--skeleton of another model exits 1" 1
expect_in "--skeleton of another model: says it does not fit" "$ERR" "the skeleton does not fit"
run info --skeleton "$EX/crane_wave_00.ala" "$EX/antenna_spin_00.ala"
expect_rc "--skeleton of an animation file exits 1" 1
expect_in "--skeleton of an animation file: says so" "$ERR" "holds no skeleton of its own"
run info --skeleton "$EX/crane.alo" "$EX/crane_wave_00.ala"
expect_rc "--skeleton that fits exits 0" 0

# 5. convert -r mirrors the input tree under -o
mkdir -p tree/a tree/b
cp "$EX/crane_wave_00.ala" tree/a/x.ala
cp "$EX/antenna_spin_00.ala" tree/b/x.ala
run convert -r tree -o mirrored --no-companion
expect_rc "convert -r with equal names in two folders exits 0" 0
check "convert -r: tree/a/x.ala -> mirrored/a/x.glb" is_glb mirrored/a/x.glb
check "convert -r: tree/b/x.ala -> mirrored/b/x.glb" is_glb mirrored/b/x.glb

# 6. one true summary: an input with nothing to convert counts as failed
mkdir -p nothing
echo text >nothing/readme.txt
run convert nothing -o nout
expect_rc "a folder with nothing to convert exits 1" 1
expect_in "a folder with nothing to convert: the summary counts it" "$ERR" "converted 0 files \(1 failed\)"
expect_not_in "no -r advice without subfolders" "$ERR" "subfolders"
mkdir -p nothing/sub
run convert nothing "$EX/crane_wave_00.ala" -o nout2
expect_rc "one good input and an empty folder exit 1" 1
expect_in "one good input and an empty folder: 1 converted, 1 failed" "$ERR" "converted 1 file \(1 failed\)"
expect_in "an empty folder with subfolders: advises -r" "$ERR" "subfolders are read with -r"

# a file the read used (the companion) is never the output, dump -o included
mkdir -p used
cp "$EX/crane_wave_00.ala" "$EX/crane.alo" used/
run dump used/crane_wave_00.ala -o used/crane.alo
expect_rc "dump -o COMPANION is refused" 1
check "dump -o COMPANION: the companion is unchanged" cmp -s used/crane.alo "$EX/crane.alo"

# reader options work in info and dump too; writer options are refused there
run info -O alamo.version=1 "$EX/crane_wave_00.ala"
expect_rc "info -O WRITER_OPTION is bad usage" 2
expect_in "info -O WRITER_OPTION: says it is a writer option" "$ERR" "writer option"
run dump --alamo-version 1 "$EX/crane_wave_00.ala"
expect_rc "dump --WRITER_ALIAS is bad usage" 2

# 7. standard input and output, --fps limits, names, rates, tables
run info - <"$EX/crane_wave_00.ala"
expect_rc "info - reads standard input" 0
expect_in "info -: the format" "$OUT" "format: alamo-ala"
gan convert "$EX/crane_wave_00.ala" -o - --to glb >"$W/stdout.glb" 2>"$W/stdout.err"
check "convert -o - writes the glb to standard output" is_glb "$W/stdout.glb"
run convert "$EX/crane_wave_00.ala" "$EX/antenna_spin_00.ala" -o -
expect_rc "-o - with two inputs is bad usage" 2
run convert "$EX/crane_wave_00.ala" -o - --to gltf
expect_rc "-o - as .gltf (two files) is bad usage" 2
run convert "$EX/crane_wave_00.ala" -o x.glb --fps 1e9
expect_rc "--fps 1e9 is bad usage" 2
expect_in "--fps 1e9: says the limit" "$ERR" "1e\+06|1000000"
# 8. file names: UTF-8 beyond ASCII and spaces, in folders and files, one at a time and
# in a batch with -j 2 (on Windows the names go through UTF-16 and back)
U="$W/mods ünïcödé/モデル dir"
mkdir -p "$U"
cp "$EX/crane_wave_00.ala" "$U/Grúa ölçü 起重機_wave_00.ala"
cp "$EX/crane.alo" "$U/Grúa ölçü 起重機.alo"
cp "$EX/antenna_spin_00.ala" "$U/Ñandú antenna_spin_00.ala"
cp "$EX/antenna.alo" "$U/Ñandú antenna.alo"
run info "$U/Grúa ölçü 起重機_wave_00.ala"
expect_rc "info on a UTF-8 name with spaces exits 0" 0
expect_in "info on a UTF-8 name: finds the companion of that name" "$OUT" \
    "skeleton: 4 bones.*from $U/Grúa ölçü 起重機\.alo\)"
run convert "$U/Grúa ölçü 起重機_wave_00.ala" -o "$U/sortie été.glb"
expect_rc "convert to a UTF-8 output name exits 0" 0
check "convert to a UTF-8 output name: a glb of that name" is_glb "$U/sortie été.glb"
# The exporters write each byte >= 0x80 of a name as \u00XX (game files carry code-page
# names, not UTF-8): the escapes are the UTF-8 bytes of the name as it was typed.
ESCAPED=$(python3 -c 'import sys; print("".join(c if ord(c) < 128 else "".join("\\u00%02x" % b for b in c.encode()) for c in sys.argv[1]))' "Grúa ölçü 起重機_wave_00")
check "the glb's clip is named after the input, byte for byte" grep -aqF "\"name\":\"$ESCAPED\"" "$U/sortie été.glb"
run dump "$U/Grúa ölçü 起重機_wave_00.ala" -o "$U/dump ü.json"
check "dump -o UTF-8 name: the same bytes as dump to standard output" cmp -s "$U/dump ü.json" <(gan dump "$U/Grúa ölçü 起重機_wave_00.ala")
run convert "$U" -o "$W/sortie ü j1" -j 1
run convert "$U" -o "$W/sortie ü j2" -j 2
expect_rc "-j 2 over a UTF-8 folder exits 0" 0
expect_in "-j 2 over a UTF-8 folder: the two animations (the companions were used)" "$ERR" "^converted 2 files \(0 failed\)"
check "-j 2 over a UTF-8 folder: outputs named after the inputs" \
    test -s "$W/sortie ü j2/Grúa ölçü 起重機_wave_00.glb" -a -s "$W/sortie ü j2/Ñandú antenna_spin_00.glb"
check "-j 2 over a UTF-8 folder: the same files as -j 1" diff -r "$W/sortie ü j1" "$W/sortie ü j2"
run convert "$U" -o "$W/sortie ü j2" -j 2
expect_rc "a batch again without --force exits 1 (outputs exist)" 1
expect_in "a batch again without --force: says so" "$ERR" "already exists \(use --force"
run convert "$U" -o "$W/sortie ü j2" -j 2 --force
expect_rc "a batch again with --force replaces its outputs" 0
# -j 2 and -j 1 give the same files: the examples to glb and BVH, and the whole test data
# to glb when it is here (on Windows tests/windows/run.sh compares that with Linux)
for kind in glb bvh; do
    srcs=("$EX")
    [ "$HAVE_DATA" = 1 ] && [ "$kind" = glb ] && [ "$WINDOWS" = 0 ] && srcs+=("$T")
    for src in "${srcs[@]}"; do
        name=$(basename "$src")
        gan convert "$src" -r -o "$W/par1-$kind-$name" --to $kind -j 1 -q >/dev/null 2>"$W/par1.err"
        gan convert "$src" -r -o "$W/par2-$kind-$name" --to $kind -j 2 -q >/dev/null 2>"$W/par2.err"
        check "-j 2 and -j 1 over $name to $kind: the same files" diff -r "$W/par1-$kind-$name" "$W/par2-$kind-$name"
        check "-j 2 and -j 1 over $name to $kind: the same messages" cmp -s <(sort "$W/par1.err") <(sort "$W/par2.err")
        check "-j 2 and -j 1 over $name to $kind: files were written" test -n "$(ls -A "$W/par1-$kind-$name")"
    done
done
if [ "$WINDOWS" = 1 ]; then
    # Windows' own spellings: backslashes (relative and absolute), and the NUL device
    (cd "$W" && gan info 'mods ünïcödé\モデル dir\Grúa ölçü 起重機_wave_00.ala' >bs.out 2>bs.err)
    RC=$?
    check "info with backslashes exits 0" test "$RC" = 0
    expect_in "info with backslashes: finds the companion" "$W/bs.out" "skeleton: 4 bones.*起重機\.alo\)"
    (cd "$W" && gan convert 'mods ünïcödé\モデル dir' -o 'bs out\a\b' -j 2 >bs.out 2>bs.err)
    check "convert with backslashes: nested output folders made, outputs in them" \
        test -s "$W/bs out/a/b/Grúa ölçü 起重機_wave_00.glb"
    run convert "$U/Grúa ölçü 起重機_wave_00.ala" -o "Z:${U//\//\\}\\zdrive.glb"
    check "convert -o Z:\\...: a drive letter path" is_glb "$U/zdrive.glb"
    (cd "$W" && gan convert "$EX/crane_wave_00.ala" -o NUL --to glb >nul.out 2>nul.err)
    RC=$?
    check "convert -o NUL exits 0" test "$RC" = 0
    check "convert -o NUL: the device, not a file named NUL" test ! -e "$W/NUL"
    (cd "$W" && gan dump "$EX/crane_wave_00.ala" -o nul >nul.out 2>nul.err)
    RC=$?
    check "dump -o nul (any case) exits 0, nothing written" test "$RC" = 0 -a ! -e "$W/nul"
fi

run info --json "$FX/acl/fixture.v0.civ"
check "civ7 V0 names made-up bones like ACL does (track_N)" test "$(json_eval "$OUT" 'd["skeleton"]["names"][0]')" = track_0
# the civ7 writer takes the acl.* options for a V1 body, and refuses them for V0
run convert "$FX/acl/fixture.v0.civ" -o "$W/body_fine.civ" --civ7-version 1 -q
expect_rc "civ7 V1 from a V0 file is written" 0
run convert "$FX/acl/fixture.v0.civ" -o "$W/body_coarse.civ" --civ7-version 1 --acl-precision 0.5 -O acl.shell=1 -q
expect_rc "civ7 V1 takes --acl-precision and -O acl.shell" 0
check "a coarser precision gives a smaller V1 file" test "$(wc -c <"$W/body_coarse.civ")" -lt "$(wc -c <"$W/body_fine.civ")"
run convert "$FX/acl/fixture.v0.civ" -o "$W/body_v0.civ" --civ7-version 0 --acl-precision 0.5 -q
expect_rc "civ7 V0 refuses an acl.* option" 1
expect_in "civ7 V0: the refusal names the option and V1" "$ERR" "acl.precision.*V0.*civ7.version=1"
check "civ7 V0: a refused write leaves no file" test ! -e "$W/body_v0.civ"
run formats
expect_in "formats: acl.* options are the acl and civ7 writers'" "$OUT" "acl.precision=NUMBER  .acl, civ7, writing"
# a Civ VII skeleton blob: read alone (a skeleton, no clips), and given to a V0 file
run info "$FX/acl/fixture_humanoid.skel"
expect_in "info: a RootNode blob is a civ7-skeleton of 20 bones" "$OUT" "format: civ7-skeleton"
expect_in "info: the blob's hierarchy" "$OUT" "skeleton: 20 bones, 1 root, 5 leaves, depth 8"
run convert "$FX/acl/fixture_humanoid.skel" -o "$W/humanoid.glb" -q
expect_rc "a skeleton blob alone converts to glb" 0
run convert "$FX/acl/fixture.v0.civ" --skeleton "$FX/acl/fixture_humanoid.skel" -o "$W/v0_humanoid.glb" -q
expect_rc "--skeleton with another bone count is refused" 1
expect_in "--skeleton mismatch: says both counts" "$ERR" "the skeleton has 20 bones but the animation has 3"
run info --json "$EX/crane_wave_00.ala"
check "info --json names the companion skeleton" test "$(json_eval "$OUT" 'd["skeleton"]["file"].endswith("crane.alo")')" = True
run convert "$FX/ff7/fixture_pack.da" -o "$W/pack60" --resample 4
expect_rc "a pack resampled to 60 fps is written" 0
expect_in "a pack stores no rate: the writer says so" "$ERR" "stores no frame rate.*--fps 60"
run info "$FX/ff7/fixture_pack.da"
expect_in "info shows the clips as a table" "$OUT" "#  name +kind +fps +frames"
expect_not_in "info without -v: no per-entry details" "$OUT" "dwChunkSize"
run info -v "$FX/ff7/fixture_pack.da"
expect_in "info -v: the per-entry details" "$OUT" "dwChunkSize"

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
expect_in "info .ala: clip table row (README: 101 frames at 30 fps, 12 tracks)" "$OUT" "^ +0 +animation +30 +101 +3\.333s +12 "
expect_not_in "info without -v: no per-track lines" "$OUT" "^ +0: name "
run info -v "$A/BM_BERTH_D_DIE_00.ala"
expect_in "info -v: the clip's detail line" "$OUT" "clip 0: animation, 30 fps, 101 frames, 3\.333 s, 12 tracks"
expect_in "info -v: per-track lines" "$OUT" "^ +0: name back, index 1, rotation per-frame"
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
expect_in "info FF7: clip 0 has 24 frames at 15 fps" "$OUT" "^ +0 .* 15 +24 "
check "info FF7: a table, one line per entry (not ~14)" test "$(wc -l <"$OUT")" -lt 30

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
check "convert -> .json equals dump" cmp -s berth.json <(gan dump "$A/BM_BERTH_D_DIE_00.ala")

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
expect_rc "-o NAME.new: an extension nothing writes is a usage error" 2
run convert ff7pack/rtda -o ff7pack/rtda.new --to ff7-battle
expect_rc "convert rtda -o rtda.new --to ff7-battle exits 0" 0
check "unmodified FF7 pack is rewritten byte for byte" cmp -s ff7pack/rtda.new "$F/humanoid_bkey2.da"
run convert ff7pack/rtda -o ff7pack/ztda
expect_rc "-o NAME without an extension writes the input's own format" 0
check "... byte for byte" cmp -s ff7pack/ztda "$F/humanoid_bkey2.da"
run convert ff7pack/rtda -o ff7pack/rtda.r4 --to ff7-battle --resample 4
expect_rc "--to ff7-battle --resample 4 exits 0" 0
expect_in "--resample 4 into a pack: says the rate is not stored" "$ERR" "warning: .*stores no frame rate.*--fps 60"
run info ff7pack/rtda.r4 --skeleton ff7pack/rtaa
# 24 frames resampled by 4: 4 * (24 - 1) + 1 = 93 (an FF7 pack stores no rate: 15 fps)
expect_in "--resample 4: 24 frames become 93" "$OUT" "^ +0 .* 15 +93 "
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

# BVH: a default BVH writes every joint whose translation is not its rest offset with
# position channels (back and front move; the other tracks hold constants a little off
# the ALO's offsets): the root and 10 joints, no translation lost; it names the joints it
# cannot hide; --bvh-joint-positions adds nothing here (no animated translation at rest)
run convert "$A/BM_BERTH_D_DIE_00.ala" -o "$W/berth.bvh" --force
expect_not_in "BVH keeps joint translations (no warning)" "$ERR" "keep the offset"
check "BVH: 11 joints with position channels" test "$(grep -c 'CHANNELS 6' "$W/berth.bvh")" = 11
expect_in "BVH warns about dropped visibility" "$ERR" "BVH holds no visibility: 12 joint\(s\) hidden in some frames"
run convert "$A/BM_BERTH_D_DIE_00.ala" -o "$W/berth_pos.bvh" --bvh-joint-positions
expect_not_in "--bvh-joint-positions: no translation lost" "$ERR" "keep the offset"
# ... and back into the game: the ALO as the skeleton (joints matched by the exported
# names), the BVH's axes declared (a reader option, not refused by the ALA writer)
run convert "$W/berth.bvh" -o "$W/berth_back.ala" --skeleton "$A/BM_BERTH_D.ALO" --bvh-axes z-up
expect_rc "BVH -> ALA with --skeleton and --bvh-axes" 0
run info "$W/berth_back.ala"
expect_in "BVH -> ALA: an ALA with a track per bone moved or off its rest (10)" "$OUT" "animation +30 +101 +3.333s +10 "
run convert "$T/acl/acl20_walk_f100_r30_b52.acl" -o "$W/walk.bvh"
expect_in "BVH warns about dropped scales" "$ERR" "BVH holds no scale: 7 joint\(s\) with a scale other than 1"
run convert "$T/ff7/humanoid_bkey0.da" -o "$W/humanoid.gltf"
expect_in "FF7: body and weapon animation i are one glTF animation" "$W/humanoid.gltf" '"name":"body_5\+weapon_11"'
check "--bvh-joint-positions: 11 joints with position channels" test "$(grep -c 'CHANNELS 6' "$W/berth_pos.bvh")" = 11

# 7. ACL flag words: no "no scale, no scale"; the same data in two containers, the same names
run info -v "$T/acl/no_scale_f64_r24_b48.acl"
expect_in "ACL flags: 'no scale' said once" "$OUT" "flags text: no scale \(every scale 1\), rotation"
run info --json "$T/acl/short_f16_r30_b33.acl"
A1=$(json_eval "$OUT" 'd["skeleton"]["names"][:3]')
run info --json "$T/acl/short_f16_r30_b33.v0.civ"
check "the same ACL data as .acl and .v0.civ: the same bone names" test "$(json_eval "$OUT" 'd["skeleton"]["names"][:3]')" = "$A1"
check "... and they are track_N" test "$A1" = "['track_0', 'track_1', 'track_2']"

# ARCHIVE:MEMBER inputs: outputs are named after the member, and neither the archive
# nor its data file is ever overwritten
mkdir -p arch
cat "$T/argonaut/croc2_level.wad" "$T/argonaut/hp_level.wad" > arch/CROCII.DAT
python3 - "$T/argonaut" arch/CROCII.DIR <<'PY'
import os, struct, sys
a = os.path.getsize(os.path.join(sys.argv[1], "croc2_level.wad"))
b = os.path.getsize(os.path.join(sys.argv[1], "hp_level.wad"))
entries = [(b"LEVEL1.WAD", a, 0), (b"LEVEL2.WAD", b, a)]
with open(sys.argv[2], "wb") as f:
    f.write(struct.pack("<I", len(entries)))
    for name, size, at in entries:
        f.write(name.ljust(12, b"\0") + struct.pack("<II", size, at))
PY
cp arch/CROCII.DAT arch/dat.orig
run convert arch/CROCII.DIR:LEVEL1.WAD arch/CROCII.DIR:level2.wad -o arch/out/
expect_rc "convert ARCHIVE:MEMBER (any case) exits 0" 0
check "ARCHIVE:MEMBER outputs are named after the member" test -s arch/out/LEVEL1.glb -a -s arch/out/level2.glb
run convert arch/CROCII.DIR:LEVEL1.WAD -o arch/CROCII.DAT --to argonaut --force
expect_rc "convert -o THE_ARCHIVE'S_DATA_FILE --force is refused" 1
run dump arch/CROCII.DIR:LEVEL1.WAD -o arch/CROCII.DIR
expect_rc "dump -o THE_ARCHIVE is refused" 1
check "the archive's data file is unchanged" cmp -s arch/CROCII.DAT arch/dat.orig
run convert arch/CROCII.DIR:LEVEL1.WAD -o arch/l1.wad --to argonaut
check "a member written back is the member's bytes" cmp -s arch/l1.wad "$T/argonaut/croc2_level.wad"

# a reader option through info and dump (README: model 1 has 7 vertices, 3 quads and 2 triangles)
run info --argonaut-model 1 "$T/argonaut/croc2_level.wad"
expect_in "info --argonaut-model 1 (reader option alias): the model's mesh" "$OUT" "mesh 0 \"model_1\": 7 vertices, 8 triangles"
expect_not_in "info --argonaut-model 1: no deprecation note" "$ERR" "deprecated"
run info --model 1 "$T/argonaut/croc2_level.wad"
expect_in "info --model 1 (deprecated alias) still reads the model's mesh" "$OUT" "mesh 0 \"model_1\": 7 vertices, 8 triangles"
expect_in "info --model 1 says which spelling replaces it" "$ERR" "^ganim: info: --model is deprecated: use --argonaut-model"
check "the deprecation note is one line" test "$(grep -c deprecated "$ERR")" = 1
run dump -O argonaut.model=1 "$T/argonaut/croc2_level.wad"
check "dump -O argonaut.model=1: the mesh in the dump" test "$(json_eval "$OUT" '(d["meshes"][0]["vertex_count"], len(d["meshes"][0]["positions"]))')" = "(7, 7)"

# ---- --into: back into the game file ------------------------------------------------------
mkdir -p into
# every writable family, game -> glb -> --into the original: byte for byte (test_into
# checks every sample and an edit)
for f in "$A/W_Grenade_Idle_00.ala" "$A/VSF_XWING_DEPLOY_00.ALA" "$F/humanoid_bkey0.da" \
    "$T/acl/const_and_identity_f48_r30_b30.v0.civ" "$T/argonaut/hp_level.wad" "$T/argonaut/croc2_style_2anims.bin"; do
    b=$(basename "$f")
    run convert "$f" -o "into/$b.glb"
    run convert "into/$b.glb" --into "$f" -o "into/$b.new"
    expect_rc "--into $b exits 0" 0
    check "$b -> glb -> --into $b: byte for byte" cmp -s "into/$b.new" "$f"
done
run convert "into/humanoid_bkey0.da.glb" --into "$F/humanoid_bkey0.da" -o into/rt.new -v
expect_in "--into -v says what it wrote" "$ERR" "wrote into/rt.new"
# one clip into a slot: the pack keeps its other slots (README: humanoid_bkey0 has 6 body and
# 6 weapon entries); slot 1 takes body_0's motion (and its weapon slot 7 the weapon's)
run convert "$F/humanoid_bkey0.da" -o into/idle.glb --clip 0
run convert into/idle.glb --into "$F/humanoid_bkey0.da" --slot 1 -o into/slot1.da
expect_rc "--slot 1 exits 0" 0
run info into/slot1.da --skeleton "$F/humanoid_bkey0.aa"
FR0=$(sed -n 's/^ *0  body_0 *animation *15 *\([0-9]*\) .*/\1/p' "$OUT")
expect_in "--slot 1: slot 1 has body_0's frame count" "$OUT" "^ +1  body_1 +animation +15 +$FR0 "
run info "$F/humanoid_bkey0.da"
ORIG2=$(grep -E '^ +2  body_2 ' "$OUT")
run info into/slot1.da --skeleton "$F/humanoid_bkey0.aa"
check "--slot 1: slot 2 untouched" grep -qF -- "$ORIG2" "$OUT"
# a glb of every action (as Blender exports): --slot wants one, --clip picks it
run convert "$F/humanoid_bkey0.da" -o into/all.glb
run convert into/all.glb --into "$F/humanoid_bkey0.da" --slot 1 -o into/all1.da
expect_rc "--slot with a glb of 6 animations exits 1" 1
expect_in "... and says to pick one with --clip" "$ERR" "the input has 6 \(pick one with --clip\)"
run convert into/all.glb --into "$F/humanoid_bkey0.da" --clip 0 --slot 1 -o into/all1.da
expect_rc "--clip 0 --slot 1 exits 0" 0
run info into/all1.da --skeleton "$F/humanoid_bkey0.aa"
expect_in "--clip 0 --slot 1: slot 1 has body_0's frame count" "$OUT" "^ +1  body_1 +animation +15 +$FR0 "
run convert into/all.glb --into "$F/humanoid_bkey0.da" --clip 3 -o into/all3.da
check "--clip 3 (unedited) alone: the pack byte for byte" cmp -s into/all3.da "$F/humanoid_bkey0.da"
# rates: a 30 fps glb put back at the pack's 15 fps keeps its duration (24 frames at 15 fps
# exported, relabelled 30 fps: 47 frames at 30 fps -> 24 at 15)
run convert into/idle.glb --fps 30 -o into/idle30.glb
run convert into/idle.glb --into "$F/humanoid_bkey0.da" --slot 1 -o into/slot1b.da
run convert "$F/humanoid_bkey0.da" -o into/w.glb --clip 0 --resample 2 --fps 30
run convert into/w.glb --into "$F/humanoid_bkey0.da" --slot 1 -o into/slot1c.da
expect_rc "a 30 fps clip into a 15 fps pack exits 0" 0
run info into/slot1c.da --skeleton "$F/humanoid_bkey0.aa"
expect_in "... sampled at 15 fps: body_0's frame count again" "$OUT" "^ +1  body_1 +animation +15 +$FR0 "
run convert into/w.glb --into "$F/humanoid_bkey0.da" --slot 1 --fps 30 -o into/slot1d.da
run info into/slot1d.da --skeleton "$F/humanoid_bkey0.aa"
expect_in "--fps 30 overrides the pack's rate: twice the frames" "$OUT" "^ +1  body_1 +animation +15 +$((2 * FR0 - 1)) "
# refused: nothing written
into_refused() { # into_refused NAME WANT_RC REGEX ARGS...
    local name=$1 want=$2 re=$3; shift 3
    rm -f into/refused.out
    run "$@"
    expect_rc "$name: exit $want" "$want"
    expect_in "$name: says why" "$ERR" "$re"
    check "$name: writes nothing" test ! -e into/refused.out
}
into_refused "--slot without --into" 2 "--slot names a clip of the original" \
    convert into/idle.glb --slot 1 -o into/refused.out --to ff7-battle
into_refused "--into and --to glb" 2 "--into writes .* format \(ff7-battle\), not --to glb" \
    convert into/idle.glb --into "$F/humanoid_bkey0.da" --to glb -o into/refused.out
into_refused "--into and -o x.glb" 2 "not a .glb file" \
    convert into/idle.glb --into "$F/humanoid_bkey0.da" -o into/refused.out.glb
into_refused "--into with two inputs" 2 "one input file" \
    convert into/idle.glb into/w.glb --into "$F/humanoid_bkey0.da" -o into/refused.out
into_refused "a clip named after no slot" 1 "names no clip of the original .*0 'body_0'.*--slot" \
    convert into/W_Grenade_Idle_00.ala.glb --into "$F/humanoid_bkey0.da" -o into/refused.out
into_refused "--slot of an unknown clip" 1 "no clip" \
    convert into/idle.glb --into "$F/humanoid_bkey0.da" --slot 99 -o into/refused.out
into_refused "bones the original does not have" 1 "moves 1 bone the original.s skeleton does not have: .Sphere01." \
    convert into/W_Grenade_Idle_00.ala.glb --into "$F/humanoid_bkey0.da" --slot 0 -o into/refused.out
cp "$F/humanoid_bkey0.da" into/orig.da
cp "$F/humanoid_bkey0.aa" into/orig.aa
run convert into/idle.glb --into into/orig.da --slot 1 -o into/orig.da --force
expect_rc "--into ORIGINAL -o ORIGINAL is refused" 1
check "... and the original is unchanged" cmp -s into/orig.da "$F/humanoid_bkey0.da"
run convert --help
expect_in "convert --help shows --into" "$OUT" "--into ORIGINAL"
expect_in "convert --help shows --slot" "$OUT" "--slot N"

# ---- reader options apply whatever is written; options of neither side are refused --------
run convert "$A/W_Grenade_Idle_00.ala" -o into/g.bvh
run convert into/g.bvh --bvh-axes z-up -o into/g.ala
expect_rc "a BVH reader option with an ALA output exits 0" 0
run info into/g.ala --skeleton "$A/W_Grenade.alo"
expect_in "... the ALA is z-up as --bvh-axes said" "$OUT" "axes: z-up"
run convert "$T/argonaut/hp_level.wad" --model 1 -o into/y.wad
expect_rc "--model (a reader option) with a WAD output exits 0" 0
check "... and the WAD is written back whole" cmp -s into/y.wad "$T/argonaut/hp_level.wad"
run convert "$T/argonaut/hp_level.wad" -o into/hp.glb
# ganim's glb carries the level (extras.ganim): written whole without --into
run convert into/hp.glb -o into/whole.wad
expect_rc "ganim's glb of a WAD to a .wad without --into exits 0" 0
check "... and gives the WAD's bytes" cmp -s into/whole.wad "$T/argonaut/hp_level.wad"
# a file that does not carry it (BVH: animations only) is refused
run convert "$T/argonaut/hp_level.wad" -o into/hp.bvh
run convert into/hp.bvh -o into/refused.wad
expect_rc "a BVH to a .wad without --into exits 1" 1
expect_in "... saying where the level comes from" "$ERR" "--into ORIGINAL.wad"
run convert into/hp.glb --into "$T/argonaut/hp_level.wad" -o into/hp.wad
check "a WAD's glb --into the WAD: the WAD's bytes" cmp -s into/hp.wad "$T/argonaut/hp_level.wad"
run convert into/W_Grenade_Idle_00.ala.glb --gltf-conversion keep -o into/k.ala
expect_rc "--gltf-conversion with an ALA output exits 0" 0
rm -f into/refused.glb
run convert "$A/W_Grenade_Idle_00.ala" --alamo-version 1 -o into/refused.glb
expect_rc "a writer option with an export exits 2" 2
expect_in "... naming the side it belongs to" "$ERR" "option alamo.version is an option for writing alamo-ala files; this command writes glb"
check "... and writes nothing" test ! -e into/refused.glb
run convert into/g.bvh --format bvh --gltf-skin 0 -o into/refused.glb
expect_rc "a reader option of another format than --format's exits 2" 2
expect_in "... naming the side it belongs to" "$ERR" "option gltf.skin is an option for reading gltf files; this command reads its inputs as bvh"
run convert "$A/W_Grenade_Idle_00.ala" --ff7-bkey 2 -o into/refused.ala
expect_in "another format's writer option: refused" "$ERR" "option ff7.bkey is an option for writing ff7-battle files; this command writes alamo-ala"
run convert "$A/W_Grenade_Idle_00.ala" --sparse-keys -o into/refused.ala
expect_in "an export-only option names itself" "$ERR" "--sparse-keys applies to exports"

echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
