#!/usr/bin/env bash
# The install tree works for consumers. Usage: tests/install/run.sh BUILD_DIR
#
# Runs `cmake --install BUILD_DIR --prefix TMP/prefix` into a temporary folder, checks
# what it holds (header, libganim.a, libganim.so with its soname and links, bin/ganim,
# ganim.pc, the CMake package), then builds tests/install/consumer.c against it four
# ways and runs each: pkg-config with the shared library, pkg-config --static with
# libganim.a, and a CMake project (tests/install/consumer/) that finds the package
# with find_package(ganim) and links ganim::ganim, then ganim::ganim_static.
# Ends with "N passed, N failed"; exit status 1 on any failure.
#
# Environment (ctest sets them, see CMakeLists.txt): GANIM_CONSUMER_CC the C compiler
# (default: $CC or cc), GANIM_CONSUMER_FLAGS extra compile and link flags for the
# consumers (-fsanitize=address,undefined for a sanitized libganim), GANIM_CMAKE the
# cmake to use (default: cmake). GANIM_INSTALL_KEEP=1 keeps the temporary folder.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$(cd "$here/../.." && pwd)"
build="${1:?usage: run.sh BUILD_DIR}"
[ -f "$build/cmake_install.cmake" ] ||
    { echo "run.sh: '$build' is not a configured ganim build folder"; echo "0 passed, 1 failed"; exit 1; }
build="$(cd "$build" && pwd)"

cmake="${GANIM_CMAKE:-cmake}"
cc="${GANIM_CONSUMER_CC:-${CC:-cc}}"
read -r -a extra <<< "${GANIM_CONSUMER_FLAGS:-}"
missing=""
for tool in "$cmake" "$cc" pkg-config readelf; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    echo "run.sh: missing command(s):$missing"
    case "$missing" in *pkg-config*) echo "        install pkg-config: apt-get install -y pkg-config";; esac
    echo "0 passed, 1 failed"; exit 1
fi
# The consumers of a sanitized library: leaks are the unit tests' business.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/ganim-install.XXXXXX")"
if [ "${GANIM_INSTALL_KEEP:-0}" = 1 ]; then echo "run.sh: temporary folder kept in $tmp"
else trap 'rm -rf "$tmp"' EXIT; fi
prefix="$tmp/prefix"

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { # description command...
    local what="$1"; shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }
# Runs a consumer, expects exit 0 and "consumer ok VERSION"; its output goes to $tmp.
run_consumer() { # name env... program
    local name="$1"; shift
    if env "$@" > "$tmp/$name.out" 2>&1 && grep -qx "consumer ok $version" "$tmp/$name.out"; then
        pass "$name runs"
    else
        fail "$name runs"; sed 's/^/    /' "$tmp/$name.out"
    fi
}
needed() { readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
needs_libganim() { needed "$1" | grep -qx "libganim.so.$major"; }
lacks_libganim() { ! needed "$1" | grep -q '^libganim'; }

header_define() { sed -n "s/^#define $1 *\(.*\)$/\1/p" "$source_dir/include/ganim.h" | tr -d '"'; }
version="$(header_define GANIM_VERSION_STRING)"
major="$(header_define GANIM_VERSION_MAJOR)"
minor="$(header_define GANIM_VERSION_MINOR)"
[ -n "$version" ] && [ -n "$major" ] ||
    { echo "run.sh: no version in $source_dir/include/ganim.h"; echo "0 passed, 1 failed"; exit 1; }
echo "run.sh: ganim $version from $build into $prefix"

# ---- 1. cmake --install --------------------------------------------------------------
if "$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log" 2>&1; then
    pass "cmake --install"
else
    fail "cmake --install"; sed 's/^/    /' "$tmp/install.log"; finish
fi

# ---- 2. the tree ---------------------------------------------------------------------
check "include/ganim.h is the source header" cmp -s "$prefix/include/ganim.h" "$source_dir/include/ganim.h"
static_lib="$(find "$prefix" -name libganim.a -print -quit)"
if [ -n "$static_lib" ] && [ "$(dirname "$static_lib")" != "$prefix" ]; then
    libdir="$(dirname "$static_lib")"
    pass "libganim.a in ${libdir#"$prefix"/}"
else
    fail "libganim.a in a lib folder"; find "$prefix" | sed 's/^/    /'; finish
fi
check "libganim.so -> libganim.so.$major -> libganim.so.$version" \
    test "$(readlink "$libdir/libganim.so")" = "libganim.so.$major" \
    -a "$(readlink "$libdir/libganim.so.$major")" = "libganim.so.$version" \
    -a -f "$libdir/libganim.so.$version" -a ! -L "$libdir/libganim.so.$version"
soname="$(readelf -d "$libdir/libganim.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
check "SONAME is libganim.so.$major (readelf: '$soname')" test "$soname" = "libganim.so.$major"
check "libganim.so has no run path into the build folder" \
    eval "! readelf -d '$libdir/libganim.so' | grep -E 'RPATH|RUNPATH' | grep -qF '$build'"
check "bin/ganim --version prints ganim $version" \
    eval "'$prefix/bin/ganim' --version 2>&1 | grep -qx 'ganim $version'"
check "${libdir#"$prefix"/}/pkgconfig/ganim.pc" test -f "$libdir/pkgconfig/ganim.pc"
for f in ganimConfig.cmake ganimConfigVersion.cmake ganimTargets.cmake; do
    check "${libdir#"$prefix"/}/cmake/ganim/$f" test -f "$libdir/cmake/ganim/$f"
done

# ---- 3. pkg-config -------------------------------------------------------------------
export PKG_CONFIG_PATH="$libdir/pkgconfig"
warn=(-std=c11 -Wall -Wextra -Wpedantic -Werror)
check "pkg-config --modversion ganim is $version" \
    test "$(pkg-config --modversion ganim 2>&1)" = "$version"
check "ganim.pc has the install prefix" test "$(pkg-config --variable=prefix ganim)" = "$prefix"
read -r -a pc_flags <<< "$(pkg-config --cflags --libs ganim)"
if "$cc" "${warn[@]}" "${extra[@]}" "$here/consumer.c" -o "$tmp/pc_shared" "${pc_flags[@]}" \
        > "$tmp/pc_shared.log" 2>&1; then
    pass "pkg-config: build against libganim.so (${pc_flags[*]})"
    check "pkg-config: pc_shared needs libganim.so.$major" needs_libganim "$tmp/pc_shared"
    run_consumer pc_shared LD_LIBRARY_PATH="$libdir" "$tmp/pc_shared"
else
    fail "pkg-config: build against libganim.so"; sed 's/^/    /' "$tmp/pc_shared.log"
fi
# --static: Libs.private too; -l:libganim.a makes the linker take the archive.
read -r -a pc_static <<< "$(pkg-config --static --cflags --libs ganim)"
for i in "${!pc_static[@]}"; do [ "${pc_static[$i]}" = -lganim ] && pc_static[i]=-l:libganim.a; done
if "$cc" "${warn[@]}" "${extra[@]}" "$here/consumer.c" -o "$tmp/pc_static" "${pc_static[@]}" \
        > "$tmp/pc_static.log" 2>&1; then
    pass "pkg-config --static: build against libganim.a (${pc_static[*]})"
    check "pkg-config --static: pc_static does not need libganim.so" lacks_libganim "$tmp/pc_static"
    run_consumer pc_static "$tmp/pc_static"
else
    fail "pkg-config --static: build against libganim.a"; sed 's/^/    /' "$tmp/pc_static.log"
fi

# ---- 4. find_package(ganim) ----------------------------------------------------------
cbuild="$tmp/cmake-consumer"
if "$cmake" -S "$here/consumer" -B "$cbuild" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="${extra[*]}" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DGANIM_VERSION="$major.$minor" \
        > "$tmp/cmake-configure.log" 2>&1 &&
   "$cmake" --build "$cbuild" > "$tmp/cmake-build.log" 2>&1; then
    pass "find_package(ganim $major.$minor): configure and build"
    check "find_package found ganim $version in the prefix" \
        grep -qxF -- "-- ganim $version from $libdir/cmake/ganim" "$tmp/cmake-configure.log"
    check "ganim::ganim: consumer_shared needs libganim.so.$major" needs_libganim "$cbuild/consumer_shared"
    check "ganim::ganim_static: consumer_static does not need libganim.so" \
        lacks_libganim "$cbuild/consumer_static"
    # The package passes -ffp-contract=off on to GCC and Clang (CMakeLists.txt says why).
    if printf '#if defined(__GNUC__) && !defined(__INTEL_COMPILER) && !defined(__INTEL_LLVM_COMPILER) && !defined(__apple_build_version__)\ngnu_or_clang\n#endif\n' |
            "$cc" -E -P - 2>/dev/null | grep -q gnu_or_clang; then
        check "the consumers compile with -ffp-contract=off" \
            test "$(grep -c -- '-ffp-contract=off' "$cbuild/compile_commands.json")" -eq 2
    fi
    # No LD_LIBRARY_PATH: CMake's build run path points at the prefix.
    run_consumer cmake_shared "$cbuild/consumer_shared"
    run_consumer cmake_static "$cbuild/consumer_static"
else
    fail "find_package(ganim $major.$minor): configure and build"
    sed 's/^/    /' "$tmp/cmake-configure.log" "$tmp/cmake-build.log" 2>/dev/null
fi
# ganimConfigVersion.cmake (SameMinorVersion: 0.x releases may break the API) refuses
# the next major version.
check "find_package(ganim $((major + 1)).0) fails" \
    eval "! '$cmake' -S '$here/consumer' -B '$tmp/cmake-next-major' -DCMAKE_C_COMPILER='$cc' \
        -DCMAKE_PREFIX_PATH='$prefix' -DGANIM_VERSION=$((major + 1)).0 > '$tmp/next-major.log' 2>&1"

finish
