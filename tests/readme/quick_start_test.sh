#!/bin/sh
# quick_start_test.sh SOURCEDIR: runs the first ```sh block of README.md's "Quick start"
# section, word for word, in a copy of the repository (no build directories) with a
# fresh $HOME, so that it installs nothing outside a temporary directory. As root, `sudo`
# runs its command directly (CI has no sudo). Fails on the first failing command.
set -eu
src=$1
fail() { echo "FAIL: $*"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/queuey-quick-start.XXXXXX")
trap 'sudo_stop; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM
sudo_stop() { "$src/scripts/broker" stop /tmp/my-broker >/dev/null 2>&1 || true; }

block=$(awk '/^## Quick start/ { in_section = 1; next }
             in_section && /^## / { exit }
             in_section && /^```sh$/ { in_block = 1; next }
             in_section && in_block && /^```$/ { exit }
             in_block { print }' "$src/README.md")
[ -n "$block" ] || fail "README.md has no \`\`\`sh block under '## Quick start'"
echo "== the README's commands"
echo "$block"

mkdir "$work/queuey" "$work/home"
tar -C "$src" --exclude='./build*' --exclude=./.git --exclude=./.broker -cf - . |
    tar -C "$work/queuey" -xf -
cat >"$work/run.sh" <<SCRIPT
set -eux
cd "$work/queuey"
if [ "\$(id -u)" = 0 ]; then sudo() { "\$@"; }; fi
$block
SCRIPT
echo "== running them"
HOME="$work/home" sh "$work/run.sh" >"$work/out" 2>&1 || { cat "$work/out"; fail "a command of the quick start failed"; }
cat "$work/out"
grep -q "^example.emails: 0 ready" "$work/out" || fail "the worker left jobs in example.emails"
grep -q "Installing cli/queuey to $work/home/.local/bin" "$work/out" ||
    fail "the queuey command was not installed in ~/.local/bin"
if [ -d "$work/home/.local" ]; then  # the uninstall removes the directories it emptied
    left=$(find "$work/home/.local" -type f)
    [ -z "$left" ] || fail "the uninstall left files in ~/.local: $left"
fi
echo "the README's quick start works as written"
