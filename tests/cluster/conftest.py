"""Fixtures of the cluster suite: a three-node RabbitMQ cluster (scripts/cluster) and the
table of figures that ends the run (the chaos suite's, with the fail-over times)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "chaos"))

from chaos_harness import Broker, Figures, parse_env, require_built_programs, run_script, write_figures  # noqa: E402

FIGURES: list[Figures] = []


class Cluster:
    """Three nodes started by scripts/cluster in DIR; node N (1 to 3) is a scripts/broker
    node in DIR/nodeN, driven as the chaos suite drives its broker."""

    def __init__(self, directory: str):
        self.dir = directory
        self.env: dict[str, str] = {}

    def start(self) -> None:
        self.env = parse_env(run_script("cluster", "start", self.dir))

    def stop(self) -> None:
        run_script("cluster", "stop", self.dir)

    @property
    def urls(self) -> str:
        """The three nodes' AMQP URLs, comma-separated, node 1 first."""
        return self.env["QUEUEY_CLUSTER_URLS"]

    def url(self, node: int) -> str:
        return self.env[f"QUEUEY_CLUSTER_URL{node}"]

    def node_name(self, node: int) -> str:
        return self.env[f"QUEUEY_CLUSTER_NODE{node}"]

    def node(self, node: int) -> Broker:
        return Broker(self.env[f"QUEUEY_CLUSTER_DIR{node}"])

    def kill(self, node: int) -> None:
        """SIGKILL to the node's Erlang VM: a crash."""
        self.node(node).kill()

    def stop_node(self, node: int) -> None:
        """A graceful stop of one node (a deploy, a maintenance)."""
        run_script("broker", "stop", self.env[f"QUEUEY_CLUSTER_DIR{node}"])

    def restart(self, node: int) -> None:
        """Starts a stopped or killed node again with its data; it rejoins the cluster."""
        self.node(node).restart()

    def messages_in(self, queue: str, running: int = 1) -> dict[str, int]:
        """The messages (ready and unacknowledged) in queue, its dead letters and its hold
        queues, by name; asked of node running."""
        listing = self.node(running).ctl("list_queues", "--no-table-headers", "name", "messages")
        return {words[0]: int(words[1]) for words in (line.split() for line in listing.splitlines())
                if len(words) == 2 and words[0].startswith(queue) and words[1].isdigit() and words[1] != "0"}

    def home_of(self, queue: str, running: int = 1) -> int:
        """The node that holds queue: a quorum queue's leader, a classic queue's node;
        asked of node running."""
        listing = self.node(running).ctl("list_queues", "--no-table-headers", "name", "type", "leader", "pid")
        for line in listing.splitlines():
            words = line.split()
            if words and words[0] == queue:
                home = words[2] if words[1] == "quorum" else words[-1]
                for node in (1, 2, 3):
                    if self.node_name(node) in home:
                        return node
        raise RuntimeError(f"queue {queue} not found: {listing}")


@pytest.fixture(scope="session")
def cluster():
    require_built_programs("cluster")
    nodes = Cluster(os.environ.get("QUEUEY_CLUSTER_DIR", os.path.abspath("cluster")))
    nodes.start()
    yield nodes
    nodes.stop()


@pytest.fixture
def record():
    """Collects a scenario's figures for the table, also when its assertions fail."""
    return FIGURES.append


def pytest_terminal_summary(terminalreporter):
    write_figures(terminalreporter, "cluster figures", FIGURES)
