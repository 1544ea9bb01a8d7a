"""Producer and Worker on memory://: outcomes, retries, deferrals and dead letters seen
through the memory inspection API."""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import queuey
from conftest import HERE
from queuey import MemoryCount
from workers import run_until, run_until_idle

PACKAGE = HERE.parent
FAST = queuey.QueueConfig("jobs", delay_granularity=0.001)


@pytest.fixture
def client(memory):
    memory.declare(FAST)
    return memory


@pytest.fixture
def worker(client):
    with queuey.Worker(client, "jobs", retry=queuey.RetryPolicy.fixed(3, 0.001)) as worker:
        yield worker


def dead_letters(client):
    return [(env.job_type, env.attempt, reason) for env, reason in client.memory_dead_letters()]


def test_handler_sees_the_job(client, producer, worker):
    seen = []

    @worker.handler("send-email")
    def send(job: queuey.Job):
        seen.append((job.job_id, job.job_type, job.queue, job.attempt, job.deferrals,
                     job.priority, job.correlation_id, job.payload, job.age >= 0))

    job_id = producer.enqueue("jobs", "send-email", {"to": "a@b.c"}, correlation_id="c-1")
    run_until_idle(client, worker)
    assert seen == [(job_id, "send-email", "jobs", 1, 0, 0, "c-1", {"to": "a@b.c"}, True)]
    assert client.memory_count(MemoryCount.ACKED, "jobs") == 1
    assert worker.counter(queuey.Counter.SUCCEEDED) == 1


def test_retry_until_exhausted_then_dead_letter(client, producer, worker):
    attempts = []

    @worker.handler("flaky")
    def flaky(job):
        attempts.append(job.attempt)
        raise queuey.Retry("smtp down")

    producer.enqueue("jobs", "flaky", {})
    run_until_idle(client, worker)
    assert attempts == [1, 2, 3]
    assert client.memory_count(MemoryCount.RETRIED) == 2
    assert dead_letters(client) == [
        ("flaky", 3, "max attempts (3) exhausted after attempt 3: smtp down")]
    assert worker.counter(queuey.Counter.DEAD_LETTERED_EXHAUSTED) == 1


def test_retry_once_then_success(client, producer, worker):
    attempts = []

    @worker.handler("retry-once")
    def once(job):
        attempts.append(job.attempt)
        if job.attempt == 1:
            raise queuey.Retry("first time")

    producer.enqueue("jobs", "retry-once", {})
    run_until_idle(client, worker)
    assert attempts == [1, 2]
    assert client.memory_count(MemoryCount.ACKED) == 1
    assert dead_letters(client) == []


def test_any_other_exception_is_retryable_with_its_type_and_message(client, producer, worker):
    @worker.handler("buggy")
    def buggy(job):
        return {}["missing"]

    @worker.handler("silent")
    def silent(job):
        raise RuntimeError()

    producer.enqueue("jobs", "buggy", {})
    run_until_idle(client, worker)
    producer.enqueue("jobs", "silent", {})
    with queuey.Worker(client, "jobs") as second:
        second.add_handler("silent", silent)
        run_until_idle(client, second)
    assert dead_letters(client) == [
        ("buggy", 3, "max attempts (3) exhausted after attempt 3: KeyError: 'missing'"),
        ("silent", 1, "max attempts (1) exhausted after attempt 1: RuntimeError")]


class NoSuchCustomer(LookupError):
    """An application's own exception, for the x-exception header's type line."""


def test_a_dead_letter_carries_the_exception_type_and_traceback(client, producer, worker):
    @worker.handler("lookup")
    def lookup(job):
        raise NoSuchCustomer("customer 7")

    @worker.handler("refuse")
    def refuse(job):
        raise queuey.Fatal("card declined")

    @worker.handler("once")
    def once(job):
        if job.attempt == 1:
            raise RuntimeError("the first run fails")
        raise queuey.Retry("then an explicit retry")

    for job_type in ("lookup", "refuse", "once"):
        producer.enqueue("jobs", job_type, {})
    run_until_idle(client, worker)
    headers = {m.job_type: m.headers.get("x-exception") for m in client.browse("jobs.dead")}
    kind, trace = headers["lookup"].split("\n", 1)
    assert kind == "test_memory_worker.NoSuchCustomer"
    assert trace.startswith("Traceback (most recent call last):\n"), trace
    assert 'raise NoSuchCustomer("customer 7")' in trace
    assert trace.rstrip().endswith("test_memory_worker.NoSuchCustomer: customer 7"), trace
    # queuey's own outcomes give a reason and no header; and the header is the last run's:
    # the RuntimeError of attempt 1 is not kept once attempt 2 ends in a queuey.Retry.
    assert headers["refuse"] is None
    assert headers["once"] is None


def test_base_exceptions_never_escape_into_c(client, producer, worker):
    raised = iter([SystemExit(3), KeyboardInterrupt(), GeneratorExit()])

    @worker.handler("exits")
    def exits(job):
        raise next(raised)

    producer.enqueue("jobs", "exits", {})
    run_until_idle(client, worker)
    assert dead_letters(client) == [("exits", 3, "max attempts (3) exhausted after attempt 3: GeneratorExit")]


def test_fatal_dead_letters_at_once(client, producer, worker):
    @worker.handler("poison")
    def poison(job):
        raise queuey.Fatal("cannot parse order")

    producer.enqueue("jobs", "poison", {})
    run_until_idle(client, worker)
    assert dead_letters(client) == [("poison", 1, "fatal error: cannot parse order")]


def test_defer_comes_back_at_max_priority_without_spending_an_attempt(client, producer, worker):
    runs = []

    @worker.handler("later")
    def later(job):
        runs.append((job.attempt, job.deferrals, job.priority, time.monotonic()))
        if job.deferrals == 0:
            raise queuey.Defer(0.05, "not yet")

    producer.enqueue("jobs", "later", {})
    run_until_idle(client, worker)
    assert [run[:3] for run in runs] == [(1, 0, 0), (1, 1, 10)]
    assert runs[1][3] - runs[0][3] >= 0.045
    assert client.memory_count(MemoryCount.DEFERRED) == 1
    assert worker.counter(queuey.Counter.DEFERRED) == 1


def test_unknown_job_type_is_dead_lettered(client, producer, worker):
    producer.enqueue("jobs", "nobody-handles-this", [1])
    run_until_idle(client, worker)
    assert dead_letters(client) == [
        ("nobody-handles-this", 1, "no handler for job type `nobody-handles-this`")]


def test_handler_and_raised_policies_take_precedence(client, producer, worker):
    attempts = {"own": [], "raised": []}

    @worker.handler("own", retry=queuey.RetryPolicy.fixed(2, 0))
    def own(job):
        attempts["own"].append(job.attempt)
        raise queuey.Retry("own policy")

    @worker.handler("raised")
    def raised(job):
        attempts["raised"].append(job.attempt)
        raise queuey.Retry("per job", policy=queuey.RetryPolicy.exponential(4, 0.001, max_delay=0.002))

    producer.enqueue("jobs", "own", {})
    producer.enqueue("jobs", "raised", {})
    run_until_idle(client, worker)
    assert attempts == {"own": [1, 2], "raised": [1, 2, 3, 4]}


def test_dead_letter_hook_gets_envelope_and_reason(client, producer, worker):
    hooked = []

    @worker.on_dead_letter
    def hook(envelope, reason):
        hooked.append((envelope.job_type, envelope.payload, reason))
        raise ValueError("a failing hook is logged, not fatal")

    @worker.handler("poison")
    def poison(job):
        raise queuey.Fatal("bad")

    producer.enqueue("jobs", "poison", {"id": 9})
    run_until_idle(client, worker)
    assert hooked == [("poison", {"id": 9}, "fatal error: bad")]


def test_delayed_enqueues_arrive_after_their_delay(client, producer, worker):
    arrivals = {}

    @worker.handler("timed")
    def timed(job):
        arrivals[job.payload["kind"]] = (time.monotonic(), job.priority)

    start = time.monotonic()
    producer.enqueue_after("jobs", "timed", {"kind": "after"}, 0.1)
    producer.defer("jobs", "timed", '{"kind": "defer"}', 0.05)
    run_until_idle(client, worker)
    assert arrivals["after"][0] - start >= 0.095 and arrivals["after"][1] == 0
    assert arrivals["defer"][0] - start >= 0.045 and arrivals["defer"][1] == 10


def test_batch_reports_each_job(client, producer, worker):
    done = []
    worker.add_handler("b", lambda job: done.append(job.job_id))
    env = queuey.Envelope.new("jobs", "b", {"from": "envelope"})
    results = producer.enqueue_batch([("jobs", "b", {"i": 1}), ("no-such-queue", "b", {}),
                                      ("jobs", "b", "[2]", "corr"), env])
    assert [r.status for r in results] == [queuey.Status.OK, queuey.Status.UNROUTABLE,
                                           queuey.Status.OK, queuey.Status.OK]
    assert [r.ok for r in results] == [True, False, True, True]
    assert results[3].job_id == env.job_id
    run_until_idle(client, worker)
    assert sorted(done) == sorted(r.job_id for r in results if r.ok)
    assert producer.enqueue_batch([]) == []


def test_many_jobs_with_concurrency(client, producer):
    seen = set()
    lock = threading.Lock()
    with queuey.Worker(client, ["jobs"], concurrency=4) as worker:
        @worker.handler("n")
        def n(job):
            with lock:
                seen.add(job.payload["i"])

        results = producer.enqueue_batch([("jobs", "n", {"i": i}) for i in range(200)])
        assert all(r.ok for r in results)
        run_until_idle(client, worker)
        assert seen == set(range(200))
        assert worker.counters()["succeeded"] == 200


def test_shutdown_from_a_handler(client, producer, worker):
    @worker.handler("stop")
    def stop(job):
        worker.shutdown()

    producer.enqueue("jobs", "stop", {})
    worker.run()  # returns because the handler shut it down
    assert worker.counter(queuey.Counter.SUCCEEDED) == 1


def test_sigterm_stops_run_gracefully(client, producer, worker):
    started = threading.Event()

    @worker.handler("slow")
    def slow(job):
        started.set()
        time.sleep(0.2)

    previous = signal.getsignal(signal.SIGTERM)
    producer.enqueue("jobs", "slow", {})
    def terminate():
        started.wait(5)  # signalled even if the job never starts: run() must return
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=terminate).start()
    worker.run()
    assert worker.counter(queuey.Counter.SUCCEEDED) == 1  # the running job was finished
    assert signal.getsignal(signal.SIGTERM) is previous


def test_shutdown_before_run_returns_at_once(worker):
    worker.shutdown()
    worker.run()


def test_job_is_unusable_after_its_handler(client, producer, worker):
    kept = []
    worker.add_handler("keep", kept.append)
    producer.enqueue("jobs", "keep", {})
    run_until_idle(client, worker)
    with pytest.raises(queuey.ClosedError):
        kept[0].attempt
    assert repr(kept[0]) == "<Job finished>"


def test_registration_errors(worker):
    worker.add_handler("dup", lambda job: None)
    with pytest.raises(queuey.InvalidArgumentError):
        worker.add_handler("dup", lambda job: None)
    with pytest.raises(TypeError):
        worker.add_handler("x", "not callable")
    with pytest.raises(TypeError):
        worker.handler("x", retry="3 times")(lambda job: None)
    with pytest.raises(queuey.InvalidArgumentError):
        worker.handler("x", retry=queuey.RetryPolicy(0))(lambda job: None)
    with pytest.raises(queuey.InvalidArgumentError):
        worker.set_retry(queuey.RetryPolicy(2), queue="jobs", job_type="x")


def test_worker_on_an_undeclared_queue_fails_to_run(client):
    with queuey.Worker(client, "never-declared") as worker:
        with pytest.raises(queuey.QueueyError):
            worker.run()


def test_closed_handles_raise_closed_error(client, producer, worker):
    worker.close()
    with pytest.raises(queuey.ClosedError):
        worker.run()
    with pytest.raises(queuey.ClosedError):
        worker.add_handler("t", lambda job: None)
    producer.close()
    with pytest.raises(queuey.ClosedError):
        producer.enqueue("jobs", "t", {})
    other = client.producer()
    client.close()
    with pytest.raises(queuey.ClosedError):
        client.declare("jobs")
    with pytest.raises(queuey.ClosedError) as raised:  # closed inside the library
        other.enqueue("jobs", "t", {})
    assert raised.value.status == queuey.Status.CLOSED


def test_handles_left_to_the_garbage_collector():
    import gc
    client = queuey.Client("memory://")
    client.declare("gc")
    producer = client.producer()
    producer.enqueue("gc", "t", {})
    worker = queuey.Worker(client, "gc")
    worker.add_handler("t", lambda job: None)
    del client, producer, worker
    gc.collect()


EXIT_WHILE_RUNNING = """
import threading, time, queuey
client = queuey.Client("memory://")
client.declare("q")
producer = client.producer()
worker = queuey.Worker(client, "q", concurrency=4)
worker.add_handler("t", lambda job: time.sleep(0.001))
producer.enqueue_batch([("q", "t", {"i": i}) for i in range(2000)])
threading.Thread(target=worker.run, daemon=True).start()
time.sleep(0.2)
print("exiting", flush=True)
"""


def test_interpreter_exit_while_a_worker_runs():
    # Without the atexit shutdown, a handler call during finalization aborts the process.
    for _ in range(3):
        result = subprocess.run([sys.executable, "-c", EXIT_WHILE_RUNNING], capture_output=True,
                                text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(PACKAGE)))
        assert (result.returncode, result.stdout) == (0, "exiting\n"), result.stderr


def test_a_timed_out_job_is_cancelled_and_retried(client, producer):
    seen = []
    with queuey.Worker(client, "jobs", job_timeout=0.05) as worker:
        @worker.handler("slow")
        def slow(job):
            start = time.monotonic()
            while not job.cancelled and time.monotonic() - start < 5:
                time.sleep(0.005)
            seen.append(job.cancelled)

        producer.enqueue("jobs", "slow", {})
        run_until_idle(client, worker)
        assert worker.counter(queuey.Counter.TIMED_OUT) == 1
    assert seen == [True]
    assert dead_letters(client) == [
        ("slow", 1, "max attempts (1) exhausted after attempt 1: job timed out after 50ms")]


SLOW_WORKER = """
import sys, time, queuey
client = queuey.Client("memory://")
client.declare("jobs")
with client.producer() as producer:
    for _ in range(3):
        producer.enqueue("jobs", "slow", {})
worker = queuey.Worker(client, "jobs", concurrency=1)

@worker.handler("slow")
def slow(job):
    print("started", flush=True)
    time.sleep(30)

worker.run()
print("run returned", flush=True)
"""


def test_a_second_sigint_ends_the_process_at_once():
    """Issue 41: a second Ctrl-C did not hurry a Python worker, and the first said nothing
    (six prefetched 5 s jobs took 13.7 s to drain in silence)."""
    env = {**os.environ, "PYTHONPATH": str(PACKAGE)}
    process = subprocess.Popen([sys.executable, "-c", SLOW_WORKER], env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert process.stdout.readline() == "started\n"
        process.send_signal(signal.SIGINT)
        time.sleep(0.5)
        assert process.poll() is None, "the first SIGINT did not wait for the running job"
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        process.wait(timeout=5)
        took = time.monotonic() - sent
    finally:
        process.kill()
        out, err = process.communicate()
    assert process.returncode == -signal.SIGINT, (process.returncode, out, err)
    assert took < 2, f"the second SIGINT took {took:.1f} s to end the process"
    assert "SIGINT: shutting down, the running jobs run to their end first; send it again " \
           "to exit at once" in err, err
    assert "SIGINT again: exiting now" in err, err
    assert "run returned" not in out
