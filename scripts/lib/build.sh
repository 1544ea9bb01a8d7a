# shellcheck shell=bash
# How build/ is configured, shared by scripts/test and scripts/demo so that neither
# reconfigures it away from the other. Source it; it defines names and runs nothing.
#
#   source scripts/lib/build.sh
#   queuey_setup build "${QUEUEY_BUILD_OPTIONS[@]}"    # configure (or reconfigure) build/

# shellcheck disable=SC2034  # used by the scripts that source this file
# build/: gcc, every feature on (auto_features also turns on feature options added later),
# warnings are errors (werror is off by default, so that a user's newer compiler with a
# new warning still builds queuey; our own builds may not warn at all).
QUEUEY_BUILD_OPTIONS=(-Dauto_features=enabled -Dtests=enabled -Dabi_check=enabled -Dbenchmarks=enabled
    -Dwerror=true)
# build-release/ (scripts/bench's) and build-release-clang/ (CI compiles it): what ships,
# -O3 and NDEBUG, warning-free, with the C++ programs (tests, benchmarks, examples, the
# queuey command) but none of the binding or broker-fault harnesses.
QUEUEY_RELEASE_OPTIONS=(-Dbuildtype=release -Dwerror=true -Dauto_features=disabled -Dtests=enabled
    -Dbenchmarks=enabled -Dcli=enabled)

# meson setup DIR ARGS..., reusing DIR when it is already a build directory. There the
# options go through `meson configure` and a regeneration (`ninja build.ninja`), so that
# errors in meson.build files show up here: Meson 1.0.1's `meson setup --reconfigure
# -Dcpp_args=...` records new compiler arguments but builds with the old ones. A
# directory that `meson configure` rejects (another Meson version) is wiped.
queuey_setup() {
    local dir=$1
    shift
    if [[ ! -f $dir/meson-private/coredata.dat ]]; then
        meson setup "$dir" "$@"
    elif meson configure "$dir" "$@"; then
        ninja -C "$dir" build.ninja
    else
        echo "setup: meson cannot reuse $dir; wiping it" >&2
        meson setup --wipe "$dir" "$@"
    fi
}
