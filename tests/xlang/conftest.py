"""pytest options and fixtures of the cross-implementation tests (docs/interop.md).

    pytest tests/xlang --impl c=build/tests/xlang/xlang_c --impl rust=cargo:tests/interop/rust \
        [--require rust [--require ...]]

Every test over a `pair` runs once per (producer, worker) pair of the given
implementations (with --require, only the pairs that involve one of the NAMEs given);
every test over a `side` once per implementation.
"""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from broker import broker_url  # noqa: E402
from implementations import Impl, pairs, parse_impls  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--impl", action="append", default=[], metavar="NAME=COMMAND",
                     help="an implementation of the xlang contract (repeatable)")
    parser.addoption("--require", action="append", default=[], metavar="NAME",
                     help="run only the pairs that involve implementation NAME (repeatable: "
                          "any of them)")


def pytest_generate_tests(metafunc):
    config = metafunc.config
    names = [spec.partition("=")[0] for spec in config.getoption("--impl")]
    if "pair" in metafunc.fixturenames:
        chosen = pairs(names, config.getoption("--require"))
        metafunc.parametrize("pair", chosen, ids=[f"{p}-to-{w}" for p, w in chosen])
    if "side_name" in metafunc.fixturenames:
        metafunc.parametrize("side_name", names)


@pytest.fixture(scope="session")
def impls(pytestconfig) -> dict[str, Impl]:
    return parse_impls(pytestconfig.getoption("--impl"))


def impl_named(impls: dict[str, Impl], name: str) -> Impl:
    if name not in impls:
        pytest.fail(f"this test needs the {name} implementation (--impl {name}=...)")
    return impls[name]


@pytest.fixture(scope="session")
def c_impl(impls) -> Impl:
    """xlang_c: the only implementation with `dead` and, with Rust, `codec`."""
    return impl_named(impls, "c")


@pytest.fixture(scope="session")
def rust_impl(impls) -> Impl:
    return impl_named(impls, "rust")


@pytest.fixture(scope="session")
def url() -> str:
    return broker_url()


_queue_numbers = itertools.count()


@pytest.fixture
def queue(request) -> str:
    """A queue name of its own for each test (and each run: the broker may be reused)."""
    case = request.node.name.replace("[", ".").replace("]", "")
    return f"xlang.{os.getpid()}.{next(_queue_numbers)}.{case}"


@pytest.fixture
def producer(pair, impls) -> Impl:
    return impls[pair[0]]


@pytest.fixture
def worker(pair, impls) -> Impl:
    return impls[pair[1]]


@pytest.fixture
def side(side_name, impls) -> Impl:
    return impls[side_name]
