"""Producer and Worker against a real RabbitMQ (the `broker` fixture of conftest.py)."""
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse

import pytest

import queuey
from conftest import HERE, REPO
from workers import run_until


@pytest.fixture
def queue(broker, queue_name):
    # Short delay steps, so that retries and deferrals come back within the test.
    broker.declare(queuey.QueueConfig(queue_name, durable=False, delay_granularity=0.05))
    return queue_name


class Recorder:
    """Counts handler invocations (thread-safe) and keeps what the handlers saw."""

    def __init__(self):
        self.lock = threading.Lock()
        self.runs = []
        self.dead = []

    def add(self, job):
        with self.lock:
            self.runs.append((job.job_type, job.attempt, job.deferrals, job.priority))

    def __len__(self):
        with self.lock:
            return len(self.runs)


def make_worker(broker, queue, recorder):
    worker = queuey.Worker(broker, queue, retry=queuey.RetryPolicy.fixed(3, 0.05))

    @worker.handler("ok")
    def ok(job):
        recorder.add(job)

    @worker.handler("retry-once")
    def retry_once(job):
        recorder.add(job)
        if job.attempt == 1:
            raise queuey.Retry("python retry")

    @worker.handler("always-retry")
    def always_retry(job):
        recorder.add(job)
        raise RuntimeError("python retry")

    @worker.handler("fatal")
    def fatal(job):
        recorder.add(job)
        raise queuey.Fatal("python fatal")

    @worker.handler("defer-once")
    def defer_once(job):
        recorder.add(job)
        if job.deferrals == 0:
            raise queuey.Defer(0.05, "python defer")

    @worker.on_dead_letter
    def dead(envelope, reason):
        with recorder.lock:
            recorder.dead.append((envelope.job_type, envelope.attempt, reason))

    return worker


def test_every_outcome_on_the_broker(broker, queue):
    recorder = Recorder()
    with broker.producer() as producer, make_worker(broker, queue, recorder) as worker:
        ids = {t: producer.enqueue(queue, t, {"type": t})
               for t in ["ok", "retry-once", "always-retry", "fatal", "defer-once", "unknown"]}
        assert len(set(ids.values())) == 6
        # ok 1 + retry-once 2 + always-retry 3 + fatal 1 + defer-once 2 = 9 invocations,
        # then the unknown type's dead letter.
        run_until(worker, lambda: len(recorder) >= 9 and len(recorder.dead) >= 3)
        counters = worker.counters()
    assert sorted(recorder.runs) == sorted([
        ("ok", 1, 0, 0), ("retry-once", 1, 0, 0), ("retry-once", 2, 0, 0),
        ("always-retry", 1, 0, 0), ("always-retry", 2, 0, 0), ("always-retry", 3, 0, 0),
        ("fatal", 1, 0, 0), ("defer-once", 1, 0, 0), ("defer-once", 1, 1, 10)])
    assert sorted(recorder.dead) == sorted([
        ("always-retry", 3,
         "max attempts (3) exhausted after attempt 3: RuntimeError: python retry"),
        ("fatal", 1, "fatal error: python fatal"),
        ("unknown", 1, "no handler for job type `unknown`")])
    assert (counters["succeeded"], counters["retried"], counters["deferred"]) == (3, 3, 1)
    assert (counters["dead_lettered_fatal"], counters["dead_lettered_exhausted"],
            counters["dead_lettered_unknown_type"]) == (1, 1, 1)


def test_job_context_and_delays_on_the_broker(broker, queue):
    seen = {}
    with broker.producer() as producer, queuey.Worker(broker, queue) as worker:
        @worker.handler("timed")
        def timed(job):
            seen[job.payload["kind"]] = (time.monotonic(), job.job_id, job.correlation_id,
                                         job.priority, job.age)

        start = time.monotonic()
        now_id = producer.enqueue(queue, "timed", {"kind": "now"}, correlation_id="corr-1")
        producer.enqueue_after(queue, "timed", {"kind": "after"}, 0.3)
        producer.defer(queue, "timed", {"kind": "defer"}, 0.3)
        run_until(worker, lambda: len(seen) == 3)
    assert seen["now"][1:4] == (now_id, "corr-1", 0)
    assert seen["after"][0] - start >= 0.3 and seen["after"][3] == 0
    assert seen["defer"][0] - start >= 0.3 and seen["defer"][3] == 10
    assert seen["after"][4] >= 0.3  # age counts from the enqueue


def test_batch_on_the_broker(broker, queue):
    done = []
    with broker.producer() as producer, queuey.Worker(broker, queue) as worker:
        worker.add_handler("b", lambda job: done.append(job.payload["i"]))
        results = producer.enqueue_batch(
            [(queue, "b", {"i": i}) for i in range(50)] + [(queue + ".absent", "b", {})])
        assert [r.ok for r in results] == [True] * 50 + [False]
        assert results[-1].status == queuey.Status.UNROUTABLE
        run_until(worker, lambda: len(done) == 50)
    assert sorted(done) == list(range(50))


def test_broker_errors(broker, queue, broker_url):
    with pytest.raises(queuey.BrokerError) as raised:
        broker.declare(queuey.QueueConfig(queue, durable=False, max_priority=3))
    assert raised.value.status == queuey.Status.PRECONDITION_FAILED
    broker.declare(queuey.QueueConfig(queue, durable=False, delay_granularity=0.05))  # usable
    with pytest.raises(queuey.BrokerError) as raised:
        broker.memory_count(queuey.MemoryCount.ACKED)
    assert raised.value.status == queuey.Status.UNSUPPORTED
    with pytest.raises(queuey.BrokerError) as raised:
        broker.producer().enqueue(queue + ".absent", "t", {})
    assert raised.value.status == queuey.Status.UNROUTABLE
    url = urllib.parse.urlsplit(broker_url)
    wrong = url._replace(netloc=f"nobody:wrong@{url.hostname}:{url.port}")
    with pytest.raises(queuey.BrokerError) as raised:
        queuey.Client(wrong.geturl())
    assert raised.value.status == queuey.Status.AUTH


def test_examples_run(broker_url):
    examples = REPO / "examples" / "python"
    env = dict(os.environ, PYTHONPATH=str(REPO / "bindings" / "python"))
    run = [sys.executable]
    produced = subprocess.run(run + [str(examples / "producer.py"), broker_url, "6"], env=env,
                              capture_output=True, text=True, timeout=60)
    assert produced.returncode == 0, produced.stderr
    assert produced.stdout.count("enqueued ") == 6
    worked = subprocess.run(run + [str(examples / "worker.py"), broker_url, "6"], env=env,
                            capture_output=True, text=True, timeout=60)
    assert worked.returncode == 0, worked.stderr
    assert worked.stdout.count("sent ") == 6


def test_xlang_cli_runs_every_contract_handler(broker_url, queue_name):
    xlang = [sys.executable, str(HERE / "xlang.py")]
    common = ["--url", broker_url, "--queue", queue_name]
    types = ["ok", "retry-once", "always-retry", "fatal", "defer-once"]
    for job_type in types:
        enqueued = subprocess.run(xlang + ["enqueue"] + common + [
            "--type", job_type, "--payload", f'{{"type": "{job_type}", "n": 1.50}}'],
            capture_output=True, text=True, timeout=60)
        assert enqueued.returncode == 0, enqueued.stderr
    worked = subprocess.run(xlang + ["work"] + common + ["--handled", "9", "--timeout-s", "30"],
                            capture_output=True, text=True, timeout=60)
    assert worked.returncode == 0, worked.stderr
    lines = [json.loads(line) for line in worked.stdout.splitlines()]
    assert all(line["impl"] == "python" and line["payload"]["type"] == line["job_type"]
               for line in lines)
    assert sorted((l["job_type"], l["attempt"], l["deferrals"], l["priority"], l["outcome"])
                  for l in lines) == sorted([
        ("ok", 1, 0, 0, "ok"), ("retry-once", 1, 0, 0, "retry"), ("retry-once", 2, 0, 0, "ok"),
        ("always-retry", 1, 0, 0, "retry"), ("always-retry", 2, 0, 0, "retry"),
        ("always-retry", 3, 0, 0, "retry"), ("fatal", 1, 0, 0, "fatal"),
        ("defer-once", 1, 0, 0, "defer"), ("defer-once", 1, 1, 10, "ok")])
    assert '"n":1.50' in worked.stdout  # the payload as it was sent, digit for digit


def test_dead_letters_browsed_and_replayed_on_the_broker(broker, queue):
    recorder = Recorder()
    dead = queue + ".dead"
    with broker.producer() as producer, make_worker(broker, queue, recorder) as worker:
        job_id = producer.enqueue(queue, "always-retry", {"n": 1})
        run_until(worker, lambda: broker.queue_counts(dead).ready == 1)
    assert broker.queue_counts(queue) == queuey.QueueCounts(ready=0, consumers=0)

    reason = "max attempts (3) exhausted after attempt 3: RuntimeError: python retry"
    for _ in range(2):  # a browse puts every letter back
        letters = broker.browse(dead)
        assert [(m.job_id, m.reason, m.original_queue, m.attempt) for m in letters] == [
            (job_id, reason, queue, 3)]
        assert letters[0].headers["x-death-reason"] == reason
        assert letters[0].envelope is not None and letters[0].envelope.payload == {"n": 1}
    assert broker.browse(dead, reason_contains="no such reason") == []

    assert broker.replay_dead_letters(queue, job_ids=[job_id]) == 1
    assert broker.queue_counts(dead).ready == 0
    runs = []
    with queuey.Worker(broker, queue) as again:
        again.add_handler("always-retry", lambda job: runs.append((job.job_id, job.attempt)))
        run_until(again, lambda: len(runs) == 1)
    assert runs == [(job_id, 1)]
    assert broker.purge_dead_letters(queue) == 0
