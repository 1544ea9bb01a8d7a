# shellcheck shell=bash
# Debian packages that building and testing queuey needs, and a function that installs
# the missing ones. Source it; it defines names and runs nothing.
#
#   source scripts/lib/deps.sh
#   queuey_install_deps            # the whole list below
#   queuey_install_deps PKG...     # just these
#
# The list is the one place that names what the build, the tests, the fuzzers and the
# broker need. Add a package here, never in a script of its own.

QUEUEY_DEB_PACKAGES=(
    meson ninja-build pkgconf g++       # build
    clang libclang-rt-14-dev            # sanitizer build and libFuzzer targets
    libgtest-dev libbenchmark-dev       # tests and benchmarks
    rapidjson-dev uuid-dev librabbitmq-dev
    abigail-tools                       # abidw / abidiff for the ABI check
    valgrind
    python3                             # scripts/lib/summary.py, bindings
    python3-pytest                      # tests/xlang harness (suite interop) with Debian's python3
    rabbitmq-server amqp-tools          # private broker for integration tests (scripts/broker)
)

_queuey_apt_updated=${_queuey_apt_updated:-0}

# Prints, one per line, the given packages that are not installed.
queuey_missing_packages() {
    local pkg
    for pkg in "$@"; do
        # "ii" = wanted install, installed; anything else (absent, "rc", half-configured)
        # counts as missing.
        if [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null) != ii* ]]; then
            printf '%s\n' "$pkg"
        fi
    done
}

# Installs the packages among "$@" (default: QUEUEY_DEB_PACKAGES) that are missing.
# Runs apt-get update once per shell before the first install. Needs root, or sudo.
queuey_install_deps() {
    local -a wanted missing sudo=()
    if (($#)); then wanted=("$@"); else wanted=("${QUEUEY_DEB_PACKAGES[@]}"); fi
    mapfile -t missing < <(queuey_missing_packages "${wanted[@]}")
    ((${#missing[@]})) || return 0

    if ((EUID != 0)); then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "deps: these Debian packages are missing: ${missing[*]}" >&2
            echo "deps: not root and no sudo; install them as root with:" >&2
            echo "      apt-get update && apt-get install -y ${missing[*]}" >&2
            return 1
        fi
    fi

    echo "deps: installing ${missing[*]}" >&2
    if ((_queuey_apt_updated == 0)); then
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq </dev/null || return 1
        _queuey_apt_updated=1
    fi
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq -o Dpkg::Use-Pty=0 "${missing[@]}" </dev/null || {
        echo "deps: apt-get install failed for: ${missing[*]}" >&2
        return 1
    }
}
