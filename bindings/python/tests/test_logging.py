"""The library's log lines as records of Python's logging (Client(log=...)), on memory://."""
import logging
import time

import pytest

import queuey
from queuey import _ffi, _log
from workers import run_until

LIBRARY = "queuey.library"
TIMED_OUT = "returned after it had timed out; its outcome is ignored"


def records_of(caplog, name, predicate, timeout=5.0):
    """The records of logger name that satisfy predicate, once there is one (the lines
    come from the client's log thread), or [] after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = [r for r in caplog.records if r.name == name and predicate(r)]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.01)


def run_a_job_past_its_timeout(client):
    """A job whose handler outlives the worker's job timeout: the library logs a warning
    when it returns. The job's id."""
    client.declare("jobs")
    returned = []
    with client.producer() as producer, queuey.Worker(client, "jobs", job_timeout=0.05) as worker:
        worker.add_handler("slow", lambda job: (time.sleep(0.3), returned.append(job.job_id)))
        job_id = producer.enqueue("jobs", "slow", {})
        run_until(worker, lambda: returned == [job_id])
    return job_id


def test_library_lines_reach_the_queuey_library_logger_by_default(caplog):
    caplog.set_level(logging.DEBUG, logger=LIBRARY)
    with queuey.Client("memory://") as client:
        job_id = run_a_job_past_its_timeout(client)
        found = records_of(caplog, LIBRARY, lambda r: TIMED_OUT in r.getMessage())
    assert [(r.levelno, r.getMessage()) for r in found] == [
        (logging.WARNING, f"job {job_id} {TIMED_OUT}")]
    assert logging.getLogger(LIBRARY).parent is logging.getLogger("queuey")


def test_a_logger_of_ones_own_and_log_false(caplog):
    caplog.set_level(logging.DEBUG)
    mine = logging.getLogger("my.app.queuey")
    with queuey.Client("memory://", log=mine) as client:
        job_id = run_a_job_past_its_timeout(client)
        found = records_of(caplog, "my.app.queuey", lambda r: TIMED_OUT in r.getMessage())
    assert [r.getMessage() for r in found] == [f"job {job_id} {TIMED_OUT}"]

    caplog.clear()
    with queuey.Client("memory://", log=False) as client:
        run_a_job_past_its_timeout(client)
    # Closed: a client delivers its waiting lines before qy_client_free returns.
    assert [r.getMessage() for r in caplog.records if TIMED_OUT in r.getMessage()] == []


def test_each_library_level_maps_to_its_logging_level(caplog):
    caplog.set_level(logging.DEBUG, logger="queuey.test.levels")
    index = _log._target_index(logging.getLogger("queuey.test.levels"))
    lib, ffi = _ffi.lib, _ffi.ffi
    # Called as the library's log thread calls it: through the C function pointer.
    for level in (lib.QY_LOG_DEBUG, lib.QY_LOG_INFO, lib.QY_LOG_WARN, lib.QY_LOG_ERROR, 9):
        _log._LOG_CB(level, ffi.new("char[]", f"line {level} \u00e9".encode()),
                     ffi.cast("void *", index))
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (logging.DEBUG, "line 0 \u00e9"), (logging.INFO, "line 1 \u00e9"),
        (logging.WARNING, "line 2 \u00e9"), (logging.ERROR, "line 3 \u00e9"),
        (logging.WARNING, "line 9 \u00e9")]  # a level this version does not know


def test_a_handler_that_raises_loses_its_line_and_nothing_else():
    class FirstRaises(logging.Handler):
        def __init__(self):
            super().__init__()
            self.messages = []

        def emit(self, record):
            self.messages.append(record.getMessage())
            if len(self.messages) == 1:
                raise RuntimeError("the first line breaks this handler")

    handler = FirstRaises()
    logger = logging.getLogger("queuey.test.raising")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with queuey.Client("memory://", log=logger) as client:
            first = run_a_job_past_its_timeout(client)
            second = run_a_job_past_its_timeout(client)
    finally:
        logger.removeHandler(handler)
    # The exception stayed in Python; the log thread went on with the next lines (each
    # job's dead letter, then its handler's late return).
    assert [m for m in handler.messages if TIMED_OUT in m] == [
        f"job {first} {TIMED_OUT}", f"job {second} {TIMED_OUT}"]
    assert len(handler.messages) == 4 and "dead-lettered" in handler.messages[0]


def test_log_takes_true_false_or_a_logger():
    with pytest.raises(TypeError, match="log must be True, False or a logging.Logger"):
        queuey.Client("memory://", log="queuey")


def test_the_log_says_what_became_of_each_failed_job(caplog):
    """Issue 41: "handler failed, the job will be retried" was logged of a job on its last
    attempt, which went to the dead letters, and a job without a handler had no line."""
    caplog.set_level(logging.DEBUG, logger=LIBRARY)
    with queuey.Client("memory://") as client:
        client.declare(queuey.QueueConfig("jobs", delay_granularity=0.001))
        retry = queuey.RetryPolicy.fixed(2, 0.001)
        with client.producer() as producer, queuey.Worker(client, "jobs", retry=retry) as worker:
            def flaky(job: queuey.Job) -> None:
                raise KeyError("to")

            worker.add_handler("flaky", flaky)
            flaky_id = producer.enqueue("jobs", "flaky", {})
            orphan_id = producer.enqueue("jobs", "nobody", {})
            run_until(worker, lambda: (
                worker.counter(queuey.Counter.DEAD_LETTERED_EXHAUSTED) == 1
                and worker.counter(queuey.Counter.DEAD_LETTERED_UNKNOWN_TYPE) == 1))
        found = records_of(caplog, LIBRARY, lambda r: "dead-lettered" in r.getMessage())
        lines = [(r.levelno, r.getMessage()) for r in caplog.records
                 if r.name in (LIBRARY, "queuey")]
    assert len(found) >= 1
    assert (logging.WARNING, f"job {flaky_id} (type `flaky`, queue jobs) failed at attempt 1: "
            "KeyError: 'to'; retried as attempt 2 in 1ms") in lines
    assert (logging.ERROR, f"job {flaky_id} (type `flaky`, queue jobs) dead-lettered to jobs.dead "
            "at attempt 2: max attempts (2) exhausted after attempt 2: KeyError: 'to'") in lines
    assert (logging.ERROR, f"job {orphan_id} (type `nobody`, queue jobs) dead-lettered to "
            "jobs.dead at attempt 1: no handler for job type `nobody`") in lines
    assert not [line for line in lines if "will be retried" in line[1]], lines
