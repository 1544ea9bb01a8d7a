"""The implementations of the xlang contract under test and how to run them.

An implementation is given as NAME=COMMAND (`--impl`, repeatable). COMMAND is split
like a shell word list (`python=python3 /path/xlang.py`), except for the form
`cargo:DIR`, a Cargo project whose binary xlang-NAME is built once per session with
`cargo build --locked --release` into a cache directory outside the source tree
(QUEUEY_INTEROP_TARGET_DIR, else ${XDG_CACHE_HOME:-~/.cache}/queuey/interop-target), so
that a clean clone pays for the Rust build once per machine.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Impl:
    name: str
    command: tuple[str, ...]

    def run(self, *args: str, timeout: float = 120,
            check: bool = True) -> subprocess.CompletedProcess:
        """Runs COMMAND ARGS; with check, fails the test with stderr on a non-zero exit."""
        done = subprocess.run([*self.command, *args], capture_output=True, timeout=timeout)
        if check and done.returncode != 0:
            raise AssertionError(
                f"{self.name} {' '.join(args[:1])} exited {done.returncode}: "
                f"{done.stderr.decode(errors='replace').strip()}")
        return done

    def json_lines(self, *args: str, timeout: float = 120) -> list[dict]:
        out = self.run(*args, timeout=timeout).stdout.decode()
        return [json.loads(line) for line in out.splitlines() if line.strip()]


def cargo_target_dir() -> Path:
    explicit = os.environ.get("QUEUEY_INTEROP_TARGET_DIR")
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "queuey" / "interop-target"


def find_cargo() -> str:
    cargo = (os.environ.get("CARGO") or shutil.which("cargo")
             or str(Path.home() / ".cargo" / "bin" / "cargo"))
    if not Path(cargo).exists():
        raise RuntimeError("cargo not found (on PATH or in ~/.cargo/bin): the Rust "
                           "implementation cannot be built")
    return cargo


def build_cargo(name: str, project: Path) -> tuple[str, ...]:
    target = cargo_target_dir()
    started = time.monotonic()
    done = subprocess.run(
        [find_cargo(), "build", "--locked", "--release", "--quiet",
         "--manifest-path", str(project / "Cargo.toml")],
        env={**os.environ, "CARGO_TARGET_DIR": str(target)},
        capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"cargo build of {project} failed:\n{done.stderr}")
    print(f"xlang: cargo build of {name} took {time.monotonic() - started:.1f} s "
          f"(target dir {target})", file=sys.stderr)
    return (str(target / "release" / f"xlang-{name}"),)


def parse_impls(specs: list[str]) -> dict[str, Impl]:
    impls: dict[str, Impl] = {}
    for spec in specs:
        name, sep, command = spec.partition("=")
        if not sep or not name or not command:
            raise ValueError(f"--impl wants NAME=COMMAND, not {spec!r}")
        if name in impls:
            raise ValueError(f"--impl {name} given twice")
        words = (build_cargo(name, Path(command[len("cargo:"):])) if command.startswith("cargo:")
                 else tuple(shlex.split(command)))
        impls[name] = Impl(name, words)
    return impls


def pairs(names: list[str], required: list[str]) -> list[tuple[str, str]]:
    """Every (producer, worker) pair, or only those involving one of `required`."""
    return [(p, w) for p in names for w in names
            if not required or p in required or w in required]
