"""What one implementation puts on the broker, read back with plain rabbitmq-c
(`xlang_c get` / `xlang_c dead`): the message properties of behaviour.md section 2, and
the copy of a malformed body in the dead-letter queue (section 6)."""

from __future__ import annotations

import json
import subprocess

from steps import MAX_PRIORITY, PAYLOAD, enqueue, take, work

def expected_headers(side, attempt, deferrals, correlation_id):
    """x-correlation-id is queuey's addition; the crate has no such header (docs/interop.md)."""
    headers = {"x-attempt": attempt, "x-deferrals": deferrals}
    if side.name != "rust":
        headers["x-correlation-id"] = correlation_id
    return headers


def test_enqueue_publishes_the_properties_of_the_spec(side, c_impl, url, queue):
    job_id = enqueue(side, url, queue, "ok", "--correlation-id", "corr-1")
    message = take(c_impl, "get", url, queue)
    assert message["properties"] == {"content_type": "application/json", "message_id": job_id,
                                     "type": "ok", "expiration": None, "delivery_mode": 2}
    assert message["priority"] == 0
    assert message["headers"] == expected_headers(side, 1, 0, "corr-1")
    assert set(message["header_kinds"].values()) <= {"i", "S"}
    assert message["header_kinds"]["x-attempt"] == message["header_kinds"]["x-deferrals"] == "i"
    body = message["body"]
    assert (body["job_id"], body["job_type"], body["queue"]) == (job_id, "ok", queue)
    assert (body["attempt"], body["deferrals"], body["priority"]) == (1, 0, 0)
    assert (body["correlation_id"], body["payload"]) == ("corr-1", PAYLOAD)


def test_a_deferred_enqueue_arrives_with_the_top_priority_property(side, c_impl, url, queue):
    job_id = enqueue(side, url, queue, "ok", "--defer-ms", "1000")
    message = take(c_impl, "get", url, queue)  # polls until the hold releases it
    assert message["properties"]["message_id"] == job_id
    assert message["properties"]["expiration"] is None  # the hold queue's TTL times it
    assert message["priority"] == MAX_PRIORITY
    assert message["body"]["priority"] == MAX_PRIORITY
    assert message["body"]["deferrals"] == 0


def test_a_malformed_body_is_copied_to_the_dead_letters(side, c_impl, url, queue):
    """Valid JSON, not an envelope: the worker copies it verbatim to q.dead."""
    before = enqueue(side, url, queue, "ok")  # declares q with the defaults
    body = '{"not":"an envelope"}'
    subprocess.run(["amqp-publish", "--url", url, "-r", queue, "-b", body], check=True,
                   timeout=30)
    after = enqueue(side, url, queue, "ok")
    lines = work(side, url, queue, 2)
    # The jobs on either side of it run (in any order: a worker may run them at once).
    assert sorted(line["job_id"] for line in lines) == sorted([before, after])
    letter = take(c_impl, "dead", url, queue)
    assert letter["body"] == json.loads(body)
    assert letter["headers"]["x-death-reason"] == "malformed envelope"
    assert letter["headers"]["x-original-queue"] == queue
    extra = set(letter["headers"]) - {"x-death-reason", "x-original-queue"}
    props = letter["properties"]
    assert props["delivery_mode"] == 2 and props["expiration"] is None
    if side.name == "rust":  # the crate sets no other property (docs/interop.md)
        assert extra == set()
        assert (props["content_type"], props["message_id"], props["type"]) == (None, None, None)
        assert letter["priority"] is None
    else:  # queuey adds the decoder's message and a message-id for confirm attribution
        assert extra == {"x-malformed-detail"}
        assert letter["headers"]["x-malformed-detail"] == "job_id: missing required field"
        assert props["content_type"] == "application/octet-stream"
        assert len(props["message_id"]) == 36 and props["type"] == ""
        assert letter["priority"] == 0


def test_the_longest_delay_and_queue_name_are_the_same_on_every_side(side, url, queue):
    """behaviour.md section 3: 2147483647 ms at most, refused (never clamped) when the
    rounding to whole seconds pushes it past; a queue name of 235 bytes at most."""
    longest = "q" * 235
    enqueue(side, url, longest, "ok", "--after-ms", "2147483000")  # whole seconds: no rounding
    for refused in (["--after-ms", "2147483001"], ["--defer-ms", "2147483648"]):
        done = side.run("enqueue", "--url", url, "--queue", queue, "--type", "ok",
                        "--payload", "{}", *refused, check=False)
        assert done.returncode == 1 and done.stderr.strip(), refused
    done = side.run("enqueue", "--url", url, "--queue", longest + "q", "--type", "ok",
                    "--payload", "{}", check=False)
    assert done.returncode == 1 and done.stderr.strip()


def test_a_redelivered_job_runs_again_as_the_same_attempt_on_every_side(side, c_impl, url, queue):
    """A consumer that took the job and gave it back unsettled (a peek, a crashed worker):
    every side runs the redelivery as attempt 1 again. queuey counts it against the job's
    lost-run budget (docs/worker.md); the Rust crate counts nothing, so a job that kills
    its worker comes back for ever there (docs/interop.md)."""
    job_id = enqueue(side, url, queue, "ok")
    c_impl.run("get", "--url", url, "--queue", queue, "--count", "1", "--requeue", "1")
    [line] = work(side, url, queue, 1)
    assert line["job_id"] == job_id
    assert line["attempt"] == 1


def test_a_shutdown_from_the_last_handler_still_settles_its_job(side, c_impl, url, queue):
    """queuey's shutdown runs and settles what the worker received (docs/worker.md). The
    crate's closes the consumer channel first: the job's dead-letter publish goes out
    but its ack fails, and the broker hands the job out again (docs/interop.md)."""
    job_id = enqueue(side, url, queue, "fatal")
    extra = ("--shutdown-in-handler", "1") if side.name == "rust" else ()
    work(side, url, queue, 1, *extra)
    assert take(c_impl, "dead", url, queue)["body"]["job_id"] == job_id
    left = c_impl.run("get", "--url", url, "--queue", queue, "--count", "1", "--timeout-s", "2",
                      check=False)
    if side.name == "rust":
        assert left.returncode == 0 and json.loads(left.stdout)["body"]["job_id"] == job_id
    else:
        assert left.returncode == 1 and left.stdout == b""
