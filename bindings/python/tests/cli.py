"""Runs `python -m queuey worker ...` as a subprocess, from the tests directory (so that
cli_app imports), for the worker command's tests on memory:// and on the broker."""
import os
import subprocess
import sys

from conftest import HERE

COMMAND = [sys.executable, "-m", "queuey", "worker"]


def environment(**extra: str) -> dict[str, str]:
    """This process's environment without QUEUEY_URL, with the package importable."""
    env = {k: v for k, v in os.environ.items() if k != "QUEUEY_URL"}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])
    return {**env, **extra}


def start(args: list[str], **env: str) -> subprocess.Popen:
    return subprocess.Popen(COMMAND + args, cwd=HERE, env=environment(**env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(COMMAND + args, cwd=HERE, env=environment(**env), capture_output=True,
                          text=True, timeout=60)
