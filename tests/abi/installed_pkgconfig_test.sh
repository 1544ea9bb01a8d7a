#!/bin/sh
# installed_pkgconfig_test.sh BUILDDIR SOURCEDIR SONAME
# Installs the build into a fresh DESTDIR, then builds and runs a consumer with nothing
# but `pkg-config --cflags --libs queuey`: the installed header, library and queuey.pc
# must work on their own. Also checks what the installed library exports and that
# queuey.pc does not leak the private RapidJSON dependency. $PYTHON runs check_symbols.py.
set -eu
builddir=$1
srcdir=$2
expected_soname=$3
fail() { echo "FAIL: $*"; exit 1; }

dest=$(mktemp -d "${TMPDIR:-/tmp}/queuey-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT
trap 'exit 1' INT TERM

meson install -C "$builddir" --no-rebuild --destdir "$dest" --quiet
pc=$(find "$dest" -path '*/pkgconfig/queuey.pc')
library=$(find "$dest" -name libqueuey.so)
header=$(find "$dest" -path '*/queuey/queuey.h')
[ -f "$pc" ] && [ -f "$library" ] && [ -f "$header" ] ||
    fail "install lacks queuey.pc, libqueuey.so or queuey/queuey.h: $(find "$dest" -type f)"
libdir=$(dirname "$library")

echo "== $pc"
cat "$pc"
if grep -qi rapidjson "$pc"; then fail "queuey.pc mentions RapidJSON, a private dependency"; fi

flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest \
    pkg-config --cflags --libs queuey)
echo "== pkg-config --cflags --libs queuey: $flags"
for flag in $flags; do
    case $flag in
        -I"$dest"/* | -L"$dest"/* | -l*) ;;
        -I* | -L*) fail "$flag is outside the install" ;;
    esac
done

cc -std=c99 -pedantic -Wall -Wextra -Werror -o "$dest/consumer" \
    "$srcdir/tests/abi/pkgconfig_consumer.c" "$srcdir/tests/capi/vectors.c" $flags
resolved=$(LD_LIBRARY_PATH=$libdir ldd "$dest/consumer" | grep libqueuey || true)
case $resolved in
    *"$dest"/*) ;;
    *) fail "the consumer does not load the installed library: $resolved" ;;
esac
LD_LIBRARY_PATH=$libdir "$dest/consumer" "$srcdir/tests/vectors" || fail "the consumer failed"

soname=$(objdump -p "$library" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = "$expected_soname" ] || fail "SONAME is '$soname', expected $expected_soname"
echo "== exported symbols of $library (SONAME $soname)"
"${PYTHON:-python3}" "$srcdir/tests/abi/check_symbols.py" \
    "$library" "$srcdir/capi/queuey.map" "$header" ||
    fail "the installed library exports other names than queuey.h and queuey.map list"
echo "installed package ok"
