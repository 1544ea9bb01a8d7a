"""Shared fixtures: where the golden vectors are, a memory:// client, and the broker.

The broker is QUEUEY_TEST_URL when set; else scripts/broker starts (or reuses) a private
node in QUEUEY_TEST_BROKER_DIR (Meson sets it to <build>/integration-broker, the node of
the integration suite; scripts/test stops it at the end).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Iterator

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
sys.path.insert(0, str(HERE.parent))  # the package under test, also without PYTHONPATH

import queuey  # noqa: E402

VECTORS = REPO / "tests" / "vectors"


def vector_rows(name: str) -> list[list[str]]:
    """The rows of the TSV file tests/vectors/NAME, header skipped; for parametrize, so
    read at import time (the vectors_dir fixture is for the test bodies)."""
    lines = (VECTORS / name).read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    table = [line.split("\t") for line in lines[1:] if line]
    assert all(len(row) == len(header) for row in table), f"{name}: ragged row"
    return table


def by_name(table: list[list[str]]) -> pytest.MarkDecorator:
    """One test per row, named by its first column."""
    return pytest.mark.parametrize("row", table, ids=[row[0] for row in table])


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    return Path(os.environ.get("QUEUEY_VECTORS_DIR", REPO / "tests" / "vectors"))


@pytest.fixture
def memory() -> Iterator[queuey.Client]:
    with queuey.Client("memory://") as client:
        yield client


@pytest.fixture
def producer(client: queuey.Client) -> Iterator[queuey.Producer]:
    """A producer on the `client` fixture of the test's module."""
    with client.producer() as producer:
        yield producer


@pytest.fixture
def queue_name(request: pytest.FixtureRequest) -> str:
    """A queue name of this test's own."""
    test = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)[:120]
    return f"py.{test}.{uuid.uuid4().hex[:8]}"


def _read_env(path: Path) -> dict[str, str]:
    env = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep:
            if len(value) >= 2 and value[0] == value[-1] == "'":
                value = value[1:-1].replace("'\\''", "'")
            env[key] = value
    return env


@pytest.fixture(scope="session")
def broker_url() -> str:
    url = os.environ.get("QUEUEY_TEST_URL")
    if url:
        return url
    directory = os.environ.get("QUEUEY_TEST_BROKER_DIR", str(REPO / "build" / "integration-broker"))
    script = os.environ.get("QUEUEY_TEST_BROKER_SCRIPT", str(REPO / "scripts" / "broker"))
    started = subprocess.run([script, "start", directory], capture_output=True, text=True)
    if started.returncode != 0:
        pytest.fail(f"{script} start {directory} failed:\n{started.stdout}{started.stderr}")
    return _read_env(Path(directory) / "env")["QUEUEY_URL"]


@pytest.fixture
def broker(broker_url: str) -> Iterator[queuey.Client]:
    with queuey.Client(broker_url, connection_name="queuey-python-tests") as client:
        yield client
