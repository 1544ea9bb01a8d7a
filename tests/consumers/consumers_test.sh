#!/bin/sh
# consumers_test.sh cmake BUILDDIR SOURCEDIR PREFIX VERSION
# consumers_test.sh meson SOURCEDIR
# Builds roundtrip.c (next to this script) as another project would, with queuey found
# by CMake or by Meson, and runs it against a broker: QUEUEY_TEST_URL, else the private
# node in $QUEUEY_TEST_BROKER_DIR (scripts/broker starts or reuses it; scripts/test
# stops it). roundtrip exits 0 only if every job it enqueued ran once.
#   cmake  installs BUILDDIR into a fresh DESTDIR and builds cmake/ there with
#          find_package(queuey) and CMAKE_PREFIX_PATH=DESTDIR/PREFIX: the program must
#          compile against the installed headers and link and load the installed
#          library; queueyConfigVersion.cmake must accept VERSION and refuse the next
#          major version.
#   meson  builds meson/ in a temporary copy whose subprojects/queuey is a symlink to
#          SOURCEDIR: dependency('queuey') must come from the subproject, which must
#          configure the library and the queuey command only (no tests, no benchmarks).
# $PYTHON (default python3) reads `meson introspect`.
set -eu
mode=$1
fail() { echo "FAIL: $*"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/queuey-consumers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM

broker_url() {
    if [ -n "${QUEUEY_TEST_URL:-}" ]; then
        echo "$QUEUEY_TEST_URL"
        return
    fi
    dir=${QUEUEY_TEST_BROKER_DIR:?set QUEUEY_TEST_URL or QUEUEY_TEST_BROKER_DIR}
    "$srcdir/scripts/broker" start "$dir" >/dev/null
    sed -n 's/^QUEUEY_URL=//p' "$dir/env"
}

# run_roundtrip PROGRAM: 20 jobs on a queue of its own, two minutes at most. One SIGTERM
# (--foreground: to PROGRAM only; a second one would end it at once) stops its worker, and
# it says how many jobs ran.
run_roundtrip() {
    url=$(broker_url)
    [ -n "$url" ] || fail "no broker URL"
    timeout --foreground -k 10 120 "$1" "$url" "consumers.$mode.$(date +%s).$$" 20 ||
        fail "$1 failed"
}

# library_of PROGRAM: the libqueuey that PROGRAM loads (no LD_LIBRARY_PATH: its RUNPATH).
library_of() {
    env -u LD_LIBRARY_PATH ldd "$1" | awk '/libqueuey/ { print $3 }'
}

cmake_consumer() {
    builddir=$1 srcdir=$2 prefix=$3 version=$4
    dest=$tmp/dest
    meson install -C "$builddir" --no-rebuild --destdir "$dest" --quiet
    config=$(find "$dest" -path '*/cmake/queuey/queueyConfig.cmake')
    [ -f "$config" ] && [ -f "${config%/*}/queueyConfigVersion.cmake" ] ||
        fail "install lacks cmake/queuey/queueyConfig.cmake or queueyConfigVersion.cmake"
    echo "== $config"
    cat "$config"
    # Paths start from PACKAGE_PREFIX_DIR; only @PACKAGE_INIT@'s guard for a /usr move
    # (prefix /usr only) names the prefix itself.
    if grep -v -e '_realOrig "' -e 'PACKAGE_PREFIX_DIR "' "$config" | grep -F "$prefix/"; then
        fail "queueyConfig.cmake names paths under $prefix instead of PACKAGE_PREFIX_DIR"
    fi

    project=$srcdir/tests/consumers/cmake
    cmake -S "$project" -B "$tmp/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$dest$prefix" \
        -DQUEUEY_VERSION="$version" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON ||
        fail "find_package(queuey $version) did not find the installed package"
    found=$(sed -n 's/^queuey_DIR:PATH=//p' "$tmp/cmake/CMakeCache.txt")
    [ "$found" = "${config%/*}" ] || fail "CMake found queuey in '$found', not in ${config%/*}"
    cmake --build "$tmp/cmake" || fail "the CMake consumer does not build"
    grep -q -- "-isystem $dest$prefix/" "$tmp/cmake/compile_commands.json" ||
        fail "roundtrip.c is not compiled with the installed include directory"
    library=$(library_of "$tmp/cmake/roundtrip")
    case $library in
        "$dest"/*) ;;
        *) fail "the CMake consumer does not load the installed library: '$library'" ;;
    esac
    run_roundtrip "$tmp/cmake/roundtrip"

    next=$((${version%%.*} + 1)).0
    if cmake -S "$project" -B "$tmp/cmake-next" -G Ninja -DCMAKE_PREFIX_PATH="$dest$prefix" \
        -DQUEUEY_VERSION="$next" >"$tmp/next.log" 2>&1; then
        fail "find_package(queuey $next) accepted queuey $version"
    fi
    # CMake wraps its message: read it as one line.
    tr -s ' \n' '  ' <"$tmp/next.log" | grep -q "compatible with requested version \"$next\"" || {
        cat "$tmp/next.log"
        fail "find_package(queuey $next) failed for another reason than the version"
    }
    echo "CMake consumer ok"
}

meson_consumer() {
    srcdir=$1
    cp -R "$srcdir/tests/consumers" "$tmp/consumers"
    project=$tmp/consumers/meson
    rm -rf "$project/subprojects"
    mkdir "$project/subprojects"
    ln -s "$srcdir" "$project/subprojects/queuey"
    # A queuey installed on this machine must not stand in for the subproject.
    meson setup "$tmp/build" "$project" --force-fallback-for=queuey ||
        fail "the Meson consumer does not configure"

    # The subproject's targets, one "type name" line each, and the number of tests.
    meson introspect --targets "$tmp/build" >"$tmp/targets.json"
    meson introspect --tests "$tmp/build" >"$tmp/tests.json"
    "${PYTHON:-python3}" - "$tmp/targets.json" "$tmp/tests.json" >"$tmp/subproject.txt" <<'EOF'
import json, sys
targets = json.load(open(sys.argv[1]))
for t in targets:
    if t.get("subproject") == "queuey":
        print(t["type"], t["name"])
print("tests", len(json.load(open(sys.argv[2]))))
EOF
    echo "== targets of the subproject"
    cat "$tmp/subproject.txt"
    grep -qx 'shared library queuey' "$tmp/subproject.txt" || fail "the subproject has no libqueuey"
    grep -qx 'tests 0' "$tmp/subproject.txt" || fail "the subproject configured tests"
    unexpected=$(grep -v -x -e 'tests 0' -e 'shared library queuey' -e 'executable queuey' \
        -e 'static library queuey-core' -e 'static library queuey-broker' "$tmp/subproject.txt" ||
        true)
    [ -z "$unexpected" ] || fail "the subproject configured more than the library and the command:
$unexpected"

    # The program and what it links: the library again, but not the queuey command.
    ninja -C "$tmp/build" roundtrip || fail "the Meson consumer does not build"
    library=$(library_of "$tmp/build/roundtrip")
    case $library in
        "$tmp/build/subprojects/queuey/"*) ;;
        *) fail "the Meson consumer does not load the subproject's library: '$library'" ;;
    esac
    run_roundtrip "$tmp/build/roundtrip"
    echo "Meson consumer ok"
}

case $mode in
    cmake) [ $# -eq 5 ] || fail "usage: $0 cmake BUILDDIR SOURCEDIR PREFIX VERSION"
        cmake_consumer "$2" "$3" "$4" "$5" ;;
    meson) [ $# -eq 2 ] || fail "usage: $0 meson SOURCEDIR"
        meson_consumer "$2" ;;
    *) fail "unknown mode '$mode' (cmake or meson)" ;;
esac
