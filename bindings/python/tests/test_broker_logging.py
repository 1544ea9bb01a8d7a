"""The library's log lines against a real broker: a connection the broker closes shows as
a WARNING of logger queuey.library, the reconnect as an INFO; exiting while lines are
logged neither crashes nor hangs."""
import logging
import subprocess
import sys
import uuid

import queuey
from broker_ctl import broker_ctl  # noqa: F401 - a fixture
from conftest import HERE
from test_logging import LIBRARY, records_of


def test_a_closed_connection_is_a_warning_and_the_reconnect_info(broker_url, broker_ctl,
                                                                 caplog, queue_name):
    caplog.set_level(logging.INFO, logger=LIBRARY)
    name = f"py-log-{uuid.uuid4().hex[:8]}"
    with queuey.Client(broker_url, connection_name=name) as client:
        client.declare(queuey.QueueConfig(queue_name, durable=False))
        assert broker_ctl.close_connections(name) == 1  # publishing; nothing consumes yet
        reconnected = records_of(caplog, LIBRARY,
                                 lambda r: r.getMessage().startswith("reconnected"), 20)
        with client.producer() as producer:
            producer.enqueue(queue_name, "t", {})  # the connection works again
        assert client.queue_counts(queue_name).ready == 1
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == LIBRARY]
    lost = [line for line in lines if line[1].startswith("connection lost: ")]
    assert len(lost) == 1 and lost[0][0] == logging.WARNING, lines
    assert "closed by a Python binding test" in lost[0][1]
    assert [(r.levelno, r.getMessage()) for r in reconnected] == [
        (logging.INFO, "reconnected to the broker after 1 attempt(s)")]
    assert lines.index(lost[0]) < lines.index((logging.INFO, reconnected[0].getMessage()))


def test_exit_while_the_log_thread_is_in_a_python_handler(broker_url, broker_ctl):
    name = f"py-exit-{uuid.uuid4().hex[:8]}"
    child = subprocess.Popen([sys.executable, str(HERE / "exit_while_logging.py"), broker_url,
                              name], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        assert broker_ctl.close_connections(name) == 1
        _, stderr = child.communicate("go\n", timeout=30)
    finally:
        child.kill()
        child.wait()
    assert child.returncode == 0, stderr
    # The line under way at exit and the one after it were delivered, in order.
    logged = [line for line in stderr.splitlines() if line.startswith("logged ")]
    assert logged[0].startswith("logged WARNING connection lost: "), stderr
    assert "Fatal Python error" not in stderr and "terminate" not in stderr, stderr
