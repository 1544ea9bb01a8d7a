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
    ccache                              # readme_quick_start: its second build, from cache
    cmake                               # queueyConfigVersion.cmake; the CMake consumer test
    clang libclang-rt-14-dev            # sanitizer build and libFuzzer targets
    libgtest-dev libbenchmark-dev       # tests and benchmarks
    libcli11-dev libcurl4-openssl-dev   # the queuey command: arguments, the management API
    rapidjson-dev uuid-dev librabbitmq-dev # the library
    libhowardhinnant-date-dev tzdata    # cron schedules in time zones
    abigail-tools                       # abidw / abidiff for the ABI check
    valgrind
    python3                             # scripts/lib/summary.py, bindings
    python3-venv                        # python_wheel: the wheel into a fresh venv
    rabbitmq-server amqp-tools          # private broker for integration tests (scripts/broker)
    mmdebstrap                          # RabbitMQ 4.0's Debian 13 root (scripts/lib/rabbitmq-root)
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

# Python modules of the bindings suite, for the python3 that Meson finds (pip; Debian's
# own python3 refuses pip installs (PEP 668), so there Debian's python3-MODULE packages,
# with the module's underscores as hyphens). prometheus_client: queuey.metrics' tests;
# mypy: the handler type's test (test_handler_types.py).
# Not meson-python: pip fetches it and meson from PyPI into the build environment of
# `pip wheel .` (test python_wheel), as it does for a user's `pip install .`.
QUEUEY_PYTHON_MODULES=(cffi pytest prometheus_client mypy)

queuey_install_python_deps() {
    local module missing=()
    for module in "${QUEUEY_PYTHON_MODULES[@]}"; do
        python3 -c "import $module" 2>/dev/null || missing+=("$module")
    done
    ((${#missing[@]})) || return 0
    echo "deps: installing Python modules ${missing[*]}" >&2
    local debian=("${missing[@]//_/-}")
    python3 -m pip install --quiet "${missing[@]}" </dev/null 2>/dev/null ||
        queuey_install_deps "${debian[@]/#/python3-}"
}

# Celery for the binding benchmarks (bench/bindings/celery_rates.py), pinned, in a venv
# of its own under DIR (it sees the system's site-packages for cffi). Installs it once;
# prints the venv's python to run celery_rates.py with.
QUEUEY_CELERY_REQUIREMENT='celery==5.7.0'

queuey_celery_python() {
    local venv=$1/celery-venv
    if ! "$venv/bin/python" -c "import celery" 2>/dev/null; then
        echo "deps: installing $QUEUEY_CELERY_REQUIREMENT into $venv" >&2
        python3 -m venv --system-site-packages "$venv" >&2 &&
            "$venv/bin/python" -m pip install --quiet "$QUEUEY_CELERY_REQUIREMENT" </dev/null >&2 ||
            return 1
    fi
    printf '%s\n' "$venv/bin/python"
}

# Toxiproxy (a TCP proxy that injects faults, for the chaos suite), pinned, built with
# `go install` from the Go module proxy into a cache directory of its own (the binary of
# cmd/server is named `server`). Installs it once; prints the server's path.
QUEUEY_TOXIPROXY_VERSION=v2.5.0

queuey_toxiproxy_server() {
    local bin=${XDG_CACHE_HOME:-$HOME/.cache}/queuey/toxiproxy-$QUEUEY_TOXIPROXY_VERSION
    if [[ ! -x $bin/server ]]; then
        command -v go >/dev/null 2>&1 || {
            echo "deps: go is needed to install Toxiproxy (go install)" >&2
            return 1
        }
        echo "deps: installing Toxiproxy $QUEUEY_TOXIPROXY_VERSION into $bin" >&2
        GOBIN=$bin go install "github.com/Shopify/toxiproxy/v2/cmd/server@$QUEUEY_TOXIPROXY_VERSION" \
            </dev/null >&2 || return 1
    fi
    printf '%s\n' "$bin/server"
}
