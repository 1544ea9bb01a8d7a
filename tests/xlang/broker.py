"""The broker of the pair tests, found as tests/integration finds it: QUEUEY_TEST_URL
when set, else a private node that scripts/broker starts (or reuses) in
<build>/integration-broker. scripts/test stops it at the end."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def read_env_file(path: Path) -> dict[str, str]:
    entries = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        if len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1].replace("'\\''", "'")
        entries[key] = value
    return entries


def broker_url() -> str:
    url = os.environ.get("QUEUEY_TEST_URL")
    if url:
        return url
    build = os.environ.get("QUEUEY_BUILD_ROOT")
    if not build:
        raise RuntimeError("no broker: set QUEUEY_TEST_URL, or "
                           "QUEUEY_BUILD_ROOT for a private one (meson test sets it)")
    source = Path(os.environ.get("QUEUEY_SOURCE_ROOT") or Path(__file__).resolve().parents[2])
    directory = Path(build) / "integration-broker"
    script = os.environ.get("QUEUEY_TEST_BROKER_SCRIPT") or str(source / "scripts" / "broker")
    done = subprocess.run([script, "start", str(directory)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{script} start {directory} failed:\n{done.stderr}")
    return read_env_file(directory / "env")["QUEUEY_URL"]
