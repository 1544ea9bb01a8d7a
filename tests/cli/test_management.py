"""`queuey stats` and `queuey queues` with RabbitMQ's management API, on a node of their
own with the plugin enabled (scripts/broker, QUEUEY_BROKER_PLUGINS), and what the same
commands say on it without the API."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from conftest import REPO, Amqp, Cli, Run


def _env_file(path: Path) -> dict[str, str]:
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {key: value.strip("'") for key, value in pairs}


@pytest.fixture(scope="module")
def managed(build_root: Path) -> Iterator[dict[str, str]]:
    """QUEUEY_URL and QUEUEY_MANAGEMENT_URL of a node with the management plugin."""
    directory = build_root / "management-broker"
    broker = str(REPO / "scripts" / "broker")
    env = {**os.environ, "QUEUEY_BROKER_PLUGINS": "rabbitmq_management"}
    subprocess.run([broker, "start", str(directory)], env=env, check=True, capture_output=True,
                   timeout=180)
    yield _env_file(directory / "env")
    subprocess.run([broker, "stop", str(directory)], capture_output=True, timeout=60)


@pytest.fixture
def api_cli(cli: Cli, managed: dict[str, str]) -> Callable[..., Run]:
    """The queuey command on the managed node, with or without its management API."""
    def run(*args: str, api: bool = True) -> Run:
        previous = os.environ.pop("QUEUEY_MANAGEMENT_URL", None)
        try:
            if api:
                os.environ["QUEUEY_MANAGEMENT_URL"] = managed["QUEUEY_MANAGEMENT_URL"]
            return cli(*args, url=managed["QUEUEY_URL"])
        finally:
            os.environ.pop("QUEUEY_MANAGEMENT_URL", None)
            if previous is not None:
                os.environ["QUEUEY_MANAGEMENT_URL"] = previous
    return run


def _enqueue_held(api_cli: Callable[..., Run], queue: str, *delays: str) -> None:
    for delay in delays:
        done = api_cli("enqueue", "--after", delay, queue, "remind", "{}")
        assert done.status == 0, done.stderr


def test_stats_counts_jobs_held_ten_minutes_and_two_hours(api_cli, queue, managed):
    _enqueue_held(api_cli, queue, "90s", "10m", "2h")
    # Named like a hold, but no TTL: not one.
    Amqp(managed["QUEUEY_URL"]).declare(queue + ".deferred.later")
    (line,) = api_cli("--json", "stats", queue).json_lines()
    assert line["held"] == 3, line
    assert line["holds_counted"] == "all"
    assert line["holds"] == {f"{queue}.deferred.90000": 1, f"{queue}.deferred.600000": 1,
                             f"{queue}.deferred.7200000": 1}
    assert line["unacknowledged"] == 0
    human = api_cli("stats", queue).stdout
    assert human == (f"{queue}: 0 ready, 0 unacknowledged, 0 consumer(s), 3 held in 3 hold "
                     f"queue(s), 0 dead\n")


def test_without_the_api_stats_counts_the_holds_queuey_indexed(api_cli, queue, managed):
    # Each hold queue queuey declares is named in QUEUE.deferred.index (docs/broker.md, the
    # hold index); entries that name no hold of this queue are passed over.
    _enqueue_held(api_cli, queue, "90s", "10m", "2h")
    amqp = Amqp(managed["QUEUEY_URL"])
    for junk in ("not a queue", queue + ".dead", "other.deferred.5000", queue + ".deferred.x"):
        amqp.publish(queue + ".deferred.index", junk)
    (line,) = api_cli("--json", "stats", queue, api=False).json_lines()
    assert (line["held"], line["holds_counted"]) == (3, "indexed, and up to 5m probed"), line
    assert line["holds"] == {f"{queue}.deferred.90000": 1, f"{queue}.deferred.600000": 1,
                             f"{queue}.deferred.7200000": 1}
    assert "unacknowledged" not in line
    human = api_cli("stats", queue, api=False).stdout
    assert "3 held in 3 hold queue(s) (indexed, and up to 5m probed)" in human, human
    # Browsed, not consumed: the index is whole for the next look.
    (again,) = api_cli("--json", "stats", queue, api=False).json_lines()
    assert again["held"] == 3, again


def test_without_the_api_or_the_index_stats_counts_up_to_its_probe(api_cli, queue, managed):
    # Holds the Rust crates declared are not indexed: stats finds those up to --probe-up-to.
    _enqueue_held(api_cli, queue, "90s", "10m", "2h")
    amqp = Amqp(managed["QUEUEY_URL"])
    amqp.delete(queue + ".deferred.index")
    try:
        (line,) = api_cli("--json", "stats", queue, api=False).json_lines()
        assert (line["held"], list(line["holds"])) == (1, [f"{queue}.deferred.90000"]), line
        (line,) = api_cli("--json", "stats", "--probe-up-to", "10m", queue,
                          api=False).json_lines()
        assert line["held"] == 2, line
    finally:
        for ttl in ("90000", "600000", "7200000"):
            amqp.delete(f"{queue}.deferred.{ttl}")


def test_queues_lists_the_queuey_work_queues_of_the_vhost(api_cli, queue, managed):
    other, plain = queue + ".b", queue + ".plain"
    amqp = Amqp(managed["QUEUEY_URL"])
    try:
        _enqueue_held(api_cli, queue, "10m")
        _enqueue_held(api_cli, other, "2h", "2h")
        amqp.declare(plain)  # no .dead beside it: not queuey's
        lines = {line["queue"]: line for line in api_cli("--json", "queues").json_lines()}
        assert {**lines[queue], "held": None} == {
            "queue": queue, "ready": 0, "unacknowledged": 0, "consumers": 0, "held": None,
            "hold_queues": 1, "dead": 0}
        assert lines[other]["hold_queues"] == 1
        for name in (plain, queue + ".dead", queue + ".deferred.600000"):
            assert name not in lines, name
        # The API's figures lag its statistics interval (500 ms on this node).
        deadline = time.monotonic() + 10
        while (lines[queue]["held"], lines[other]["held"]) != (1, 2) and time.monotonic() < deadline:
            time.sleep(0.25)
            lines = {line["queue"]: line for line in api_cli("--json", "queues").json_lines()}
        assert (lines[queue]["held"], lines[other]["held"]) == (1, 2)
        assert api_cli("queues").stdout.endswith(f"{len(lines)} queuey queue(s)\n")
    finally:
        for name in (other, other + ".dead", other + ".deferred.7200000", plain):
            amqp.delete(name)


def test_stats_lists_the_consumers_of_a_queue(api_cli, queue, managed, counting_worker):
    worker = subprocess.Popen([counting_worker, managed["QUEUEY_URL"], queue, "1", "60"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
        deadline, consumers = time.monotonic() + 15, []
        while not consumers and time.monotonic() < deadline:
            (line,) = api_cli("--json", "stats", "--consumers", queue).json_lines()
            consumers = line.get("consumer_details", [])
            time.sleep(0.25)
        (consumer,) = consumers
        assert consumer["connection_name"].startswith("queuey"), consumer
        assert consumer["prefetch"] > 0 and consumer["ack_required"] is True, consumer
        assert consumer["peer"].startswith("127.0.0.1:"), consumer
        human = api_cli("stats", "--consumers", queue).stdout
        assert f"\n  consumer {consumer['tag']}: connection '{consumer['connection_name']}' from " \
               f"{consumer['peer']}, prefetch {consumer['prefetch']}\n" in human, human
    finally:
        worker.kill()
        worker.wait()


def test_what_needs_the_api_says_so_without_it(api_cli, queue):
    _enqueue_held(api_cli, queue, "10s")
    for args in (("queues",), ("stats", "--consumers", queue)):
        done = api_cli(*args, api=False)
        assert done.status == 2, (args, done)
        assert "needs RabbitMQ's management API: pass --management-url or set " \
               "QUEUEY_MANAGEMENT_URL" in done.stderr, done.stderr


def test_a_refused_password_or_a_closed_port_is_named(api_cli, managed, queue):
    _enqueue_held(api_cli, queue, "10s")
    url = managed["QUEUEY_MANAGEMENT_URL"]
    wrong = url.replace("guest:guest@", "guest:wrong@")
    done = api_cli("--management-url", wrong, "queues")
    assert done.status == 1
    assert "the management API at http://guest:***@127.0.0.1:" in done.stderr, done.stderr
    assert "401, the user or password is refused" in done.stderr, done.stderr
    closed = api_cli("--management-url", "http://127.0.0.1:1", "stats", queue)
    assert closed.status == 1 and "the management API at http://127.0.0.1:1" in closed.stderr, \
        closed.stderr
