"""rabbitmqctl on the tests' private broker (scripts/broker ctl), for tests that act on
the broker from its side: close a client's connections, raise a memory alarm."""
from __future__ import annotations

import contextlib
import os
import subprocess
from typing import Iterator

import pytest

from conftest import REPO


class BrokerCtl:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.script = os.environ.get("QUEUEY_TEST_BROKER_SCRIPT", str(REPO / "scripts" / "broker"))

    def __call__(self, *args: str) -> str:
        done = subprocess.run([self.script, "ctl", self.directory, *args], capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == 0, f"rabbitmqctl {' '.join(args)}: {done.stderr}"
        return done.stdout

    def close_connections(self, name: str) -> int:
        """Closes every connection of the client called name ("NAME (publish)", "NAME
        (consume)"); returns how many."""
        # A line per connection: its pid, a tab, the client properties as an Erlang list
        # such as [{"product","queuey"}, ..., {"connection_name","NAME (publish)"}].
        listed = self("-q", "list_connections", "--no-table-headers", "pid", "client_properties")
        pids = [line.split("\t")[0] for line in listed.splitlines()
                if f'{{"connection_name","{name} (' in line.partition("\t")[2]]
        for pid in pids:
            self("close_connection", pid, "closed by a Python binding test")
        return len(pids)

    @contextlib.contextmanager
    def memory_alarm(self) -> Iterator[None]:
        """The broker blocks every publisher while the block runs."""
        self("eval", "rabbit_alarm:set_alarm({{resource_limit, memory, node()}, []}).")
        try:
            yield
        finally:
            self("eval", "rabbit_alarm:clear_alarm({resource_limit, memory, node()}).")


@pytest.fixture
def broker_ctl(broker_url: str) -> BrokerCtl:
    """rabbitmqctl of the private broker; the test is skipped on QUEUEY_TEST_URL's."""
    if os.environ.get("QUEUEY_TEST_URL"):
        pytest.skip("acts on the broker: needs the private node, not QUEUEY_TEST_URL's")
    return BrokerCtl(os.environ.get("QUEUEY_TEST_BROKER_DIR",
                                    str(REPO / "build" / "integration-broker")))
