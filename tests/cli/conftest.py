"""The queuey command under test (QUEUEY_CLI), a broker, and fresh queue names.

The broker is QUEUEY_TEST_URL when set; else scripts/broker starts (or reuses) the private
node in QUEUEY_TEST_BROKER_DIR (the integration suite's; scripts/test stops it).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "chaos"))

from chaos_harness import Broker  # noqa: E402  (scripts/broker, as the chaos suite drives it)


@dataclass
class Run:
    status: int
    stdout: str
    stderr: str

    def json_lines(self) -> list[dict]:
        return [json.loads(line) for line in self.stdout.splitlines()]


class Cli:
    """Runs the queuey command with QUEUEY_URL set to the test broker."""

    def __init__(self, program: str, url: str) -> None:
        self.program = program
        self.url = url

    def __call__(self, *args: str, stdin: str | None = None, url: str | None = "") -> Run:
        env = {k: v for k, v in os.environ.items() if k != "QUEUEY_URL"}
        if url is not None:
            env["QUEUEY_URL"] = url or self.url
        done = subprocess.run([self.program, *args], input=stdin, capture_output=True,
                              text=True, env=env, timeout=60)
        return Run(done.returncode, done.stdout, done.stderr)


def _broker_url() -> str:
    url = os.environ.get("QUEUEY_TEST_URL")
    if url:
        return url
    node = Broker(os.environ.get("QUEUEY_TEST_BROKER_DIR", str(REPO / "build" / "integration-broker")))
    node.start()  # or reuse: scripts/test stops it at the end
    return node.url


@pytest.fixture(scope="session")
def broker_url() -> str:
    return _broker_url()


@pytest.fixture(scope="session")
def cli(broker_url: str) -> Cli:
    program = os.environ.get("QUEUEY_CLI", str(REPO / "build" / "cli" / "queuey"))
    return Cli(program, broker_url)


@pytest.fixture(scope="session")
def build_root() -> Path:
    """The build directory whose queuey command and library the suite runs."""
    return Path(os.environ.get("QUEUEY_BUILD_ROOT", str(REPO / "build")))


@pytest.fixture(scope="session")
def counting_worker() -> str:
    """The path of tests/cli/counting_worker, a queuey worker that prints each job it runs."""
    return os.environ.get("QUEUEY_COUNTING_WORKER",
                          str(REPO / "build" / "tests" / "cli" / "counting_worker"))


@pytest.fixture(scope="session")
def xlang_c() -> str:
    """The path of tests/xlang/xlang_c, whose `schedule` command runs a queuey scheduler of
    one schedule that fires every second (the C API)."""
    return os.environ.get("QUEUEY_XLANG_C", str(REPO / "build" / "tests" / "xlang" / "xlang_c"))


class Amqp:
    """The broker seen with Debian's amqp-tools, not with queuey."""

    def __init__(self, url: str) -> None:
        self.url = url

    def declare(self, queue: str) -> None:
        subprocess.run(["amqp-declare-queue", "-u", self.url, "-d", "-q", queue],
                       check=True, capture_output=True)

    def delete(self, queue: str) -> None:
        subprocess.run(["amqp-delete-queue", "-u", self.url, "-q", queue], capture_output=True)

    def publish(self, queue: str, body: str) -> None:
        subprocess.run(["amqp-publish", "-u", self.url, "-r", queue, "-b", body],
                       check=True, capture_output=True)

    def get(self, queue: str) -> dict | None:
        """The envelope at the head of queue (taken off it), or None when it is empty."""
        done = subprocess.run(["amqp-get", "-u", self.url, "-q", queue], capture_output=True)
        return json.loads(done.stdout) if done.returncode == 0 else None


@pytest.fixture
def amqp(broker_url: str) -> Amqp:
    return Amqp(broker_url)


@pytest.fixture
def queue(request: pytest.FixtureRequest, amqp: Amqp) -> Iterator[str]:
    """A fresh queue name; it and what queuey declares for it are deleted afterwards."""
    name = f"cli.{re.sub(r'[^A-Za-z0-9_.-]', '_', request.node.name)[:80]}.{uuid.uuid4().hex[:8]}"
    yield name
    for suffix in ("", ".dead", ".deferred.1000", ".deferred.2000", ".deferred.240000",
                   ".deferred.index"):
        amqp.delete(name + suffix)
