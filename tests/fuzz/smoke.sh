#!/usr/bin/env bash
# Short libFuzzer runs of every harness, seeded with the real samples:
#   tests/fuzz/smoke.sh BUILD_FUZZ_DIR [SECONDS]
# A crash, leak, timeout or sanitizer report fails the run (libFuzzer exits non-zero and
# leaves crash-* files in a temporary directory, whose path is printed).
set -u
build=$(cd "${1:?usage: smoke.sh BUILD_FUZZ_DIR [SECONDS]}" && pwd) || { echo "smoke: no build directory $1"; echo "0 passed, 1 failed"; exit 1; }
secs=${2:-15}
data=${GANIM_TESTDATA:-$(dirname "$0")/../../../shared/testdata}
[ -d "$data" ] || { echo "smoke: test data '$data' is missing"; echo "0 passed, 1 failed"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pass=0 fail=0
seed() { # harness -> which sample files seed it
    case "$1" in
    fuzz_alamo) ls "$data"/alamo/*.[aA][lL][aAoO] ;;
    fuzz_ff7)   ls "$data"/ff7/*.da "$data"/ff7/*.aa ;;
    fuzz_acl)   ls "$data"/acl/*.acl ;;
    fuzz_civ7)  ls "$data"/acl/*.civ ;;
    *)          ls "$data"/*/* 2>/dev/null | grep -v -e '\.txt$' -e '\.json$' -e '\.md$' ;;
    esac
}
for h in "$build"/fuzz_*; do
    name=$(basename "$h")
    case "$name" in *_replay) continue ;; esac
    [ -x "$h" ] || continue
    mkdir -p "$work/$name/corpus" "$work/$name/seeds" "$work/$name/art"
    seed "$name" | while read -r f; do cp "$f" "$work/$name/seeds/"; done
    if (cd "$work/$name/art" && "$h" -max_total_time="$secs" -max_len=262144 -rss_limit_mb=2048 -timeout=20 \
            -print_final_stats=1 "$work/$name/corpus" "$work/$name/seeds" >"$work/$name/log" 2>&1); then
        pass=$((pass + 1))
        echo "PASS $name: $(grep -a number_of_executed_units "$work/$name/log" | grep -o "[0-9]*$") runs in ${secs}s"
    else
        fail=$((fail + 1))
        echo "FAIL $name:"
        tail -40 "$work/$name/log"
        mkdir -p /tmp/ganim-fuzz-failures && cp -r "$work/$name" /tmp/ganim-fuzz-failures/ 2>/dev/null
        echo "(inputs kept in /tmp/ganim-fuzz-failures/$name)"
    fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
