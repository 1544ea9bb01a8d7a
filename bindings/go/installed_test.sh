#!/bin/sh
# installed_test.sh BUILDDIR GO: installs the build into a fresh DESTDIR and runs the Go
# binding's tests (but the broker ones) against it, found with nothing but the installed
# queuey.pc: go test ./... must pass against the installed library.
set -eu
builddir=$1
go=$2
fail() { echo "FAIL: $*"; exit 1; }

dest=$(mktemp -d "${TMPDIR:-/tmp}/queuey-go-install.XXXXXX")
trap 'rm -rf "$dest"' EXIT
trap 'exit 1' INT TERM

meson install -C "$builddir" --no-rebuild --destdir "$dest" --quiet
pc=$(find "$dest" -path '*/pkgconfig/queuey.pc')
library=$(find "$dest" -name libqueuey.so)
[ -f "$pc" ] && [ -f "$library" ] || fail "the install lacks queuey.pc or libqueuey.so"

# Only the installed package: no uninstalled .pc, the paths of the .pc moved into DESTDIR.
PKG_CONFIG_PATH=$(dirname "$pc")
PKG_CONFIG_SYSROOT_DIR=$dest
LD_LIBRARY_PATH=$(dirname "$library")
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR LD_LIBRARY_PATH
unset QUEUEY_TEST_URL

"$go" build -o "$dest/xlang" ./internal/xlang
case $(ldd "$dest/xlang" | grep libqueuey) in
    *"$dest"/*) ;;
    *) fail "the Go program does not load the installed library: $(ldd "$dest/xlang")" ;;
esac
"$go" test -count=1 ./...
