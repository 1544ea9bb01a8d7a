"""Fixtures of the chaos suite (its broker and Toxiproxy) and the table of figures that
ends the run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from chaos_harness import (SOURCE_ROOT, Broker, Figures, Toxiproxy, require_built_programs,  # noqa: E402
                           write_figures)

FIGURES: list[Figures] = []


@pytest.fixture(scope="session")
def broker():
    require_built_programs("chaos")
    node = Broker(os.environ.get("QUEUEY_CHAOS_BROKER_DIR", os.path.abspath("chaos-broker")))
    node.start()
    yield node
    node.stop()


@pytest.fixture(scope="session")
def toxiproxy():
    server = Toxiproxy()
    yield server
    server.close()


@pytest.fixture(scope="session")
def rust_worker() -> str:
    """The program of the Rust worker (xlang-rust of tests/interop/rust), built with cargo
    as the interop suite builds it (tests/xlang/implementations.py: once per machine,
    offline once the crates are fetched). meson sets QUEUEY_CHAOS_RUST to the Cargo project
    when the interop suite can run (cargo found, -Dinterop not disabled)."""
    project = os.environ.get("QUEUEY_CHAOS_RUST")
    if not project:
        pytest.skip("the Rust worker needs cargo and the interop option (QUEUEY_CHAOS_RUST unset)")
    sys.path.insert(0, str(SOURCE_ROOT / "tests" / "xlang"))
    from implementations import build_cargo

    return build_cargo("rust", Path(project))[0]


@pytest.fixture
def record():
    """Collects a scenario's figures for the table, also when its assertions fail."""
    return FIGURES.append


def pytest_terminal_summary(terminalreporter):
    write_figures(terminalreporter, "chaos figures", FIGURES)
