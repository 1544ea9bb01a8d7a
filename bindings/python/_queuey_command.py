"""The console script `queuey` of the wheel (pyproject.toml): runs the queuey command
(cli/, C++), which the wheel carries inside the package as queuey/_bin/queuey.

The binary lives in the package, not among the wheel's scripts, because only there is its
place relative to queuey/libqueuey.so.0 fixed: its RUNPATH is $ORIGIN/.., in a venv, a
--user install and a system's dist-packages alike, and auditwheel repair adds the path to
the libraries it vendors the same way. bin/ is wherever the installer puts it.

A module beside the package, not in it: importing queuey would load cffi and libqueuey
(150 ms) for nothing. Without a bin/ (pip install --target): python -m _queuey_command.
"""
import os
import sys

BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "queuey", "_bin", "queuey")


def main() -> None:
    """Replaces this process with the binary (exec: the exit status, signals, stdin and
    stdout are the command's own), named `queuey` in its argv[0]."""
    if not os.path.isfile(BINARY):
        sys.exit("queuey: this installation of queuey-rabbitmq has no queuey command: its "
                 "wheel was built without it (it needs CLI11 and libcurl, Debian's libcli11-dev and "
                 "libcurl4-openssl-dev); "
                 "pip install -v shows what Meson found")
    os.execv(BINARY, ["queuey", *sys.argv[1:]])


if __name__ == "__main__":
    main()
