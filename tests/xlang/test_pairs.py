"""One implementation enqueues, another runs the jobs (docs/interop.md): every handler
type of the contract, delayed enqueues and deferrals, the counters of the envelope table
(behaviour.md section 1), the dead letters with their headers (sections 2 and 6), and
declarations in either order."""

from __future__ import annotations

import json
import time

import pytest
from steps import (MAX_PRIORITY, PAYLOAD, assert_drained, dead_letters, enqueue,
                   work)

def counters(lines):
    """(attempt, deferrals, priority, outcome) of each invocation line."""
    return [(x["attempt"], x["deferrals"], x["priority"], x["outcome"]) for x in lines]


def assert_lines_of(lines, worker, job_id, job_type):
    for line in lines:
        assert line["impl"] == worker.name
        assert line["job_id"] == job_id
        assert line["job_type"] == job_type
        assert line["payload"] == PAYLOAD


def assert_dead_letter(letter, job_id, queue, reason, attempt):
    """The dead-letter publish of behaviour.md section 2: the envelope as it was last
    run, x-attempt/x-deferrals/x-attempts as 32-bit unsigned fields, reason and queue
    as strings, no x-death."""
    body, headers, kinds = letter["body"], letter["headers"], letter["header_kinds"]
    assert body["job_id"] == job_id
    assert (body["attempt"], body["deferrals"], body["priority"]) == (attempt, 0, 0)
    assert body["payload"] == PAYLOAD
    assert headers == {"x-attempt": attempt, "x-deferrals": 0, "x-death-reason": reason,
                       "x-original-queue": queue, "x-attempts": attempt}
    assert kinds == {"x-attempt": "i", "x-deferrals": "i", "x-death-reason": "S",
                     "x-original-queue": "S", "x-attempts": "i"}
    assert letter["priority"] == 0


def test_ok(producer, worker, c_impl, url, queue):
    job_id = enqueue(producer, url, queue, "ok")
    lines = work(worker, url, queue, 1)
    assert_lines_of(lines, worker, job_id, "ok")
    assert counters(lines) == [(1, 0, 0, "ok")]
    assert_drained(c_impl, url, queue)


def test_retry_once_runs_the_next_attempt_after_the_backoff(
        producer, worker, c_impl, url, queue):
    job_id = enqueue(producer, url, queue, "retry-once")
    started = time.monotonic()
    lines = work(worker, url, queue, 2)
    assert time.monotonic() - started >= 1.0  # fixed backoff of 1000 ms, never early
    assert_lines_of(lines, worker, job_id, "retry-once")
    assert counters(lines) == [(1, 0, 0, "retry"), (2, 0, 0, "ok")]
    assert_drained(c_impl, url, queue)


def test_always_retry_ends_dead_lettered(producer, worker, c_impl, url, queue):
    job_id = enqueue(producer, url, queue, "always-retry")
    lines = work(worker, url, queue, 3)
    assert_lines_of(lines, worker, job_id, "always-retry")
    assert counters(lines) == [(1, 0, 0, "retry"), (2, 0, 0, "retry"), (3, 0, 0, "retry")]
    [letter] = dead_letters(c_impl, url, queue, 1)
    assert_dead_letter(letter, job_id, queue,
                       "max attempts (3) exhausted after attempt 3: xlang retry", 3)
    assert_drained(c_impl, url, queue)


def test_fatal_is_dead_lettered_at_once(producer, worker, c_impl, url, queue):
    job_id = enqueue(producer, url, queue, "fatal")
    lines = work(worker, url, queue, 1)
    assert_lines_of(lines, worker, job_id, "fatal")
    assert counters(lines) == [(1, 0, 0, "fatal")]
    [letter] = dead_letters(c_impl, url, queue, 1)
    assert_dead_letter(letter, job_id, queue, "fatal error: xlang fatal", 1)
    assert_drained(c_impl, url, queue)


def test_defer_once_comes_back_at_top_priority_without_spending_an_attempt(
        producer, worker, c_impl, url, queue):
    job_id = enqueue(producer, url, queue, "defer-once")
    started = time.monotonic()
    lines = work(worker, url, queue, 2)
    assert time.monotonic() - started >= 1.0
    assert_lines_of(lines, worker, job_id, "defer-once")
    assert counters(lines) == [(1, 0, 0, "defer"), (1, 1, MAX_PRIORITY, "ok")]
    assert_drained(c_impl, url, queue)


@pytest.mark.parametrize("flag, priority", [("--after-ms", 0), ("--defer-ms", MAX_PRIORITY)],
                         ids=["enqueue_after", "defer"])
def test_a_delayed_enqueue_arrives_late_as_a_first_attempt(
        producer, worker, c_impl, url, queue, flag, priority):
    """enqueue_after arrives at priority 0, a producer's defer at the queue's maximum."""
    started = time.monotonic()
    job_id = enqueue(producer, url, queue, "ok", flag, "1000")
    lines = work(worker, url, queue, 1)
    assert time.monotonic() - started >= 1.0
    assert_lines_of(lines, worker, job_id, "ok")
    assert counters(lines) == [(1, 0, priority, "ok")]
    assert_drained(c_impl, url, queue)


def test_unknown_job_type_is_dead_lettered_by_the_worker(producer, worker, c_impl, url, queue):
    """The worker stops after its first handler run: the known job comes a second after the
    unknown one, which the worker has dead-lettered by then. Enqueued together, a worker
    thread could run the known job before another started the unknown one, which the
    shutdown then gave back to q (2 of 25 runs with the Go worker, before this change too)."""
    unknown = enqueue(producer, url, queue, "no-such-type")
    known = enqueue(producer, url, queue, "ok", "--after-ms", "1000")
    lines = work(worker, url, queue, 1)
    assert [line["job_id"] for line in lines] == [known]
    [letter] = dead_letters(c_impl, url, queue, 1)
    assert_dead_letter(letter, unknown, queue, "no handler for job type `no-such-type`", 1)


def test_both_sides_declare_the_same_queues_in_either_order(producer, worker, url, queue):
    """Each side declares q, q.dead and the hold queues of a 1 s delay and a 1 s
    deferral with its defaults, the producer first, then the worker's side, then the
    producer again: no PRECONDITION_FAILED (either enqueue would exit 1)."""
    ids = []
    for side in (producer, worker, producer):
        ids.append(enqueue(side, url, queue, "ok"))
        ids.append(enqueue(side, url, queue, "ok", "--after-ms", "1000"))
        ids.append(enqueue(side, url, queue, "ok", "--defer-ms", "1000"))
    lines = work(worker, url, queue, len(ids))
    assert sorted(line["job_id"] for line in lines) == sorted(ids)


def exact_tokens(line):
    """A JSON line with objects as lists of pairs and numbers as their text."""
    return json.loads(line, object_pairs_hook=list, parse_int=str, parse_float=str)


def test_payload_text_survives_unless_the_rust_crate_reencodes_it(
        producer, worker, c_impl, url, queue, pair):
    """queuey keeps a payload's key order and number digits through every hop
    (behaviour.md section 1); the Rust crate's serde_json sorts keys and turns integers
    beyond 64 bits into doubles when it enqueues or re-publishes (docs/interop.md)."""
    enqueue(producer, url, queue, "fatal", payload='{"z":1,"a":18446744073709551616,"m":1.50}')
    work(worker, url, queue, 1)
    out = c_impl.run("dead", "--url", url, "--queue", queue, "--count", "1",
                     "--timeout-s", "10").stdout.decode()
    payload = dict(exact_tokens(out))["body"]
    payload = dict(payload)["payload"]
    if "rust" in pair:
        assert payload == [("a", "1.8446744073709552e+19"), ("m", "1.5"), ("z", "1")]
    else:
        assert payload == [("z", "1"), ("a", "18446744073709551616"), ("m", "1.50")]


def test_retries_and_deferrals_cross_from_one_worker_to_the_other(
        producer, worker, c_impl, url, queue):
    """The first implementation enqueues and runs attempt 1 (it retries or defers), the
    second runs what comes back: its counters are the ones the first one published."""
    cases = {
        "retry-once": [(2, 0, 0, "ok")],
        "defer-once": [(1, 1, MAX_PRIORITY, "ok")],
        "always-retry": [(2, 0, 0, "retry"), (3, 0, 0, "retry")],
    }
    first_outcome = {"retry-once": "retry", "defer-once": "defer", "always-retry": "retry"}
    for job_type, rest in cases.items():
        q = f"{queue}.{job_type}"
        job_id = enqueue(producer, url, q, job_type)
        first = work(producer, url, q, 1)
        assert counters(first) == [(1, 0, 0, first_outcome[job_type])]
        then = work(worker, url, q, len(rest))
        assert_lines_of(then, worker, job_id, job_type)
        assert counters(then) == rest
    [letter] = dead_letters(c_impl, url, f"{queue}.always-retry", 1)
    assert_dead_letter(letter, job_id, f"{queue}.always-retry",
                       "max attempts (3) exhausted after attempt 3: xlang retry", 3)
