#!/bin/sh
# quick_start_test.sh SOURCEDIR: runs the first ```sh block of README.md's "Quick start"
# section, word for word, in a copy of the repository (no build directories) with a
# fresh $HOME, so that it installs nothing outside a temporary directory: as root and as
# user nobody when run as root (CI), else as the user running it. Fails on the first
# failing command, and when the block leaves a file that git would see as untracked.
set -eu
src=$1
fail() { echo "FAIL: $*"; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/queuey-quick-start.XXXXXX")
chmod 755 "$work"  # for user nobody
brokers=""
stop_brokers() {
    for dir in $brokers; do "$src/scripts/broker" stop "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"; done
}
trap 'stop_brokers; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM

# The two runs compile the same files with the same relative paths, so one compiler cache
# (ccache, which Meson uses by itself when it is installed) shared by both makes the second
# build mostly hits: the commands run word for word, only faster. scripts/test turns the
# cache off everywhere else (CCACHE_DISABLE); here it is on, outside the copies.
unset CCACHE_DISABLE
export CCACHE_DIR="$work/ccache" CCACHE_BASEDIR="$work" CCACHE_NOHASHDIR=1 CCACHE_UMASK=000
mkdir -m 777 "$CCACHE_DIR"

block=$(awk '/^## Quick start/ { in_section = 1; next }
             in_section && /^## / { exit }
             in_section && /^```sh$/ { in_block = 1; next }
             in_section && in_block && /^```$/ { exit }
             in_block { print }' "$src/README.md")
[ -n "$block" ] || fail "README.md has no \`\`\`sh block under '## Quick start'"
echo "== the README's commands"
echo "$block"

# run_as USER [PREFIX...]: the block in a fresh copy (a git repository, to see what it
# leaves untracked) and $HOME of its own, run by PREFIX (nothing: this user).
run_as() {
    user=$1; shift
    dir="$work/$user"
    mkdir -p "$dir/queuey" "$dir/home"
    tar -C "$src" --exclude='./build*' --exclude=./.git --exclude=./.broker -cf - . |
        tar -C "$dir/queuey" -xf -
    git -C "$dir/queuey" init -q
    git -C "$dir/queuey" add -A
    git -C "$dir/queuey" -c user.name=test -c user.email=test@localhost commit -qm copy
    printf 'set -eux\ncd "%s"\n%s\n' "$dir/queuey" "$block" >"$dir/run.sh"
    [ $# = 0 ] || chown -R "$user" "$dir"
    uid=$(id -u "$user")
    brokers="$brokers /tmp/my-broker-$uid"
    echo "== running them as $user"
    "$@" env HOME="$dir/home" sh "$dir/run.sh" >"$dir/out" 2>&1 ||
        { cat "$dir/out"; fail "as $user: a command of the quick start failed"; }
    cat "$dir/out"
    grep -q "^example.emails: 0 ready" "$dir/out" || fail "as $user: the worker left jobs in example.emails"
    grep -q "Installing cli/queuey to $dir/home/.local/bin" "$dir/out" ||
        fail "as $user: the queuey command was not installed in ~/.local/bin"
    if [ -d "$dir/home/.local" ]; then  # the uninstall removes the directories it emptied
        left=$(find "$dir/home/.local" -type f)
        [ -z "$left" ] || fail "as $user: the uninstall left files in ~/.local: $left"
    fi
    untracked=$(git -c safe.directory="*" -C "$dir/queuey" status --porcelain --untracked-files=all)
    [ -z "$untracked" ] || fail "as $user: the quick start left files git sees: $untracked"
    echo "the README's quick start works as written, as $user"
}

if [ "$(id -u)" = 0 ]; then
    run_as root
    run_as nobody setpriv --reuid=nobody --regid=nogroup --clear-groups
else
    run_as "$(id -un)"
fi
