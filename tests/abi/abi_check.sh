#!/bin/sh
# abi_check.sh ABIDIFF BASELINE LIBRARY BUILDDIR
# Compares the built library with the checked-in ABI baseline and fails on any change
# abidiff reports, harmless ones included (a dropped `const` on a pointed-to parameter is
# "harmless" to libabigail but breaks callers). No --headers-dir: it would hide changes
# to types that are not defined in queuey.h, such as uint8_t -> uint32_t.
abidiff=$1 baseline=$2 library=$3 builddir=$4

report=$("$abidiff" --harmless "$baseline" "$library" 2>&1)
status=$?
printf '%s\n' "$report"
if [ "$status" -eq 0 ]; then
    echo "ABI unchanged against $baseline"
    exit 0
fi

echo
echo "abidiff exit status $status:"
if [ "$status" -gt 15 ]; then
    echo "  - abidiff crashed (is the baseline a file that abidw wrote?)"
else
    [ $((status & 1)) -ne 0 ] && echo "  - abidiff itself failed"
    [ $((status & 2)) -ne 0 ] && echo "  - abidiff was called wrongly"
    [ $((status & 4)) -ne 0 ] && echo "  - the ABI changed"
    [ $((status & 8)) -ne 0 ] && echo "  - the change is incompatible: it breaks existing binaries"
fi
cat <<HINT

If the change is unintended, fix the code. If it is intended, regenerate the baseline
in the same commit (and see docs/abi.md for what a release must do):
    tests/abi/update-baseline $builddir
HINT
exit 1
