"""python -m queuey worker against a real broker: every job runs exactly once, at the
concurrency asked for, and SIGTERM stops the worker gracefully (exit status 0)."""
import signal
import time

import queuey
import cli

JOBS = 40


def test_worker_command_runs_every_job_once_then_stops_on_sigterm(broker, queue_name,
                                                                  broker_url, tmp_path):
    record = tmp_path / "record"
    record.touch()
    broker.declare(queuey.QueueConfig(queue_name, durable=False))  # as cli_app declares it
    with broker.producer() as producer:
        results = producer.enqueue_batch(
            [(queue_name, "record", {"n": n, "sleep": 0.1}) for n in range(JOBS)])
    assert all(r.ok for r in results)

    worker = cli.start(["cli_app:worker", "--concurrency", "4", "--log-level", "INFO"],
                       QUEUEY_URL=broker_url, CLI_APP_QUEUE=queue_name,
                       CLI_APP_RECORD=str(record))
    try:
        deadline = time.monotonic() + 60
        while len(record.read_text().splitlines()) < JOBS and time.monotonic() < deadline:
            assert worker.poll() is None, worker.communicate()[1]
            time.sleep(0.05)
        worker.send_signal(signal.SIGTERM)
        _, stderr = worker.communicate(timeout=60)
    finally:
        worker.kill()
        worker.wait()
    assert worker.returncode == 0, stderr
    lines = [line.split() for line in record.read_text().splitlines()]
    assert sorted(int(n) for n, _ in lines) == list(range(JOBS))  # each exactly once
    assert max(int(at_once) for _, at_once in lines) == 4  # --concurrency 4
    assert "INFO queuey.worker_cli: running cli_app:worker until SIGTERM or SIGINT" in stderr
    assert "stopped gracefully" in stderr
    assert broker.queue_counts(queue_name) == queuey.QueueCounts(ready=0, consumers=0)
