"""Client.queue_counts(), browse() and the replay and purge of dead letters, on memory://
(test_broker.py has the RabbitMQ case). Dead letters are made the way they come about:
a worker whose handler fails."""
import datetime
import json

import pytest

import queuey
from queuey import MemoryCount, Status, messages
from queuey._ffi import lib
from workers import run_until_idle

QUEUE = "jobs"
DEAD = "jobs.dead"


@pytest.fixture
def client(memory):
    memory.declare(queuey.QueueConfig(QUEUE, delay_granularity=0.001))
    return memory


def dead_letter_all(client, attempts=1):
    """Runs a worker, one job at a time, until every pending job of QUEUE is dead-lettered
    in order: retried up to `attempts` times in all, then "max attempts" (or fatally, for
    attempts 1) with the reason the job's payload names."""
    with queuey.Worker(client, QUEUE, concurrency=1,
                       retry=queuey.RetryPolicy.fixed(attempts, 0.001)) as worker:
        def fail(job):
            if attempts == 1:
                raise queuey.Fatal(job.payload["why"])
            raise queuey.Retry(job.payload["why"])
        for job_type in ("email", "report"):
            worker.add_handler(job_type, fail)
        run_until_idle(client, worker)


def run_all(client):
    """Runs a worker that succeeds, one job at a time, until QUEUE is idle; the (job id,
    attempt) of each run, in order."""
    runs = []
    with queuey.Worker(client, QUEUE, concurrency=1) as worker:
        for job_type in ("email", "report"):
            worker.add_handler(job_type, lambda job: runs.append((job.job_id, job.attempt)))
        run_until_idle(client, worker)
    return runs


def ids(found):
    return [m.job_id for m in found]


def test_counts_tell_ready_messages_and_consumers(client, producer):
    for n in range(3):
        producer.enqueue(QUEUE, "email", {"n": n})
    assert client.queue_counts(QUEUE) == queuey.QueueCounts(ready=3, consumers=0)
    assert client.queue_counts(DEAD) == queuey.QueueCounts(ready=0, consumers=0)

    seen = []
    with queuey.Worker(client, QUEUE) as worker:
        worker.add_handler("email", lambda job: seen.append(client.queue_counts(QUEUE)))
        run_until_idle(client, worker)
    assert [counts.consumers for counts in seen] == [1, 1, 1]
    assert client.queue_counts(QUEUE).ready == 0


def test_a_missing_queue_is_not_found_and_named(client, producer):
    for call in (lambda: client.queue_counts("no.such.queue"),
                 lambda: client.browse("no.such.queue"),
                 lambda: client.replay_dead_letters("no.such.queue"),
                 lambda: client.purge_dead_letters("no.such.queue")):
        with pytest.raises(queuey.BrokerError) as raised:
            call()
        assert raised.value.status == Status.NOT_FOUND
        assert "no.such.queue" in raised.value.message
    producer.enqueue(QUEUE, "email", {})  # the client goes on
    assert client.queue_counts(QUEUE).ready == 1


def test_browsing_leaves_every_job_in_its_place(client, producer):
    enqueued = [producer.enqueue(QUEUE, "report" if n % 2 else "email", {"n": n},
                                 correlation_id=f"c-{n}") for n in range(5)]

    first = client.browse(QUEUE)
    assert ids(first) == enqueued
    assert ids(client.browse(QUEUE)) == enqueued, "a second browse sees the same, in order"
    assert ids(client.browse(QUEUE, limit=2)) == enqueued[:2]
    assert ids(client.browse(QUEUE, job_type="report")) == [enqueued[1], enqueued[3]]
    assert ids(client.browse(QUEUE, job_ids=[enqueued[4], enqueued[0]])) == [enqueued[0], enqueued[4]]
    assert client.queue_counts(QUEUE).ready == 5

    job = first[1]
    assert (job.job_type, job.attempt, job.reason, job.original_queue, job.decode_error) == (
        "report", 1, "", QUEUE, "")
    assert job.envelope is not None and not job.envelope.closed  # a copy of its own
    assert (job.envelope.job_id, job.envelope.payload, job.envelope.correlation_id) == (
        enqueued[1], {"n": 1}, "c-1")
    assert queuey.Envelope.from_bytes(job.body).job_id == enqueued[1]
    assert isinstance(job.headers, dict)

    assert run_all(client) == [(job_id, 1) for job_id in enqueued]


def test_a_dead_letter_shows_why_where_from_and_at_which_attempt(client, producer):
    job_id = producer.enqueue(QUEUE, "email", {"why": "KeyError('to')"})
    dead_letter_all(client, attempts=3)

    letters = client.browse(DEAD)
    assert len(letters) == 1
    letter = letters[0]
    reason = "max attempts (3) exhausted after attempt 3: KeyError('to')"
    assert (letter.job_id, letter.job_type, letter.reason, letter.original_queue,
            letter.attempt) == (job_id, "email", reason, QUEUE, 3)
    assert letter.headers["x-death-reason"] == reason
    assert letter.headers["x-original-queue"] == QUEUE
    assert letter.headers["x-attempts"] == 3
    assert letter.envelope is not None and letter.envelope.attempt == 3
    assert letter.envelope.payload == {"why": "KeyError('to')"}
    assert json.loads(letter.body)["job_id"] == job_id
    assert client.queue_counts(DEAD).ready == 1, "browsing removed nothing"


def test_a_replayed_job_runs_again_as_attempt_one(client, producer):
    job_id = producer.enqueue(QUEUE, "email", {"why": "smtp down"})
    dead_letter_all(client, attempts=3)

    assert client.replay_dead_letters(QUEUE) == 1
    assert client.queue_counts(DEAD).ready == 0
    back = client.browse(QUEUE)
    assert [(m.job_id, m.attempt, m.reason) for m in back] == [(job_id, 1, "")]
    assert "x-death-reason" not in back[0].headers
    assert run_all(client) == [(job_id, 1)]


def test_keep_attempt_replays_the_job_as_it_is(client, producer):
    job_id = producer.enqueue(QUEUE, "email", {"why": "smtp down"})
    dead_letter_all(client, attempts=3)

    assert client.replay_dead_letters(QUEUE, keep_attempt=True) == 1
    assert run_all(client) == [(job_id, 3)]


def test_replay_and_purge_take_only_the_selected_letters(client, producer):
    dead = [producer.enqueue(QUEUE, "email" if n < 3 else "report",
                             {"why": "timeout after 30 s" if n % 2 else "bad address"})
            for n in range(6)]
    dead_letter_all(client)
    assert ids(client.browse(DEAD)) == dead
    assert ids(client.browse(DEAD, reason_contains="timeout")) == dead[1::2]

    assert client.replay_dead_letters(QUEUE, job_ids=[dead[1], dead[4]]) == 2
    assert ids(client.browse(DEAD)) == [dead[0], dead[2], dead[3], dead[5]]
    assert ids(client.browse(QUEUE)) == [dead[1], dead[4]]

    assert client.purge_dead_letters(QUEUE, job_type="email", reason_contains="bad address") == 2
    assert ids(client.browse(DEAD)) == [dead[3], dead[5]]
    assert client.purge_dead_letters(QUEUE, older_than=3600) == 0, "none is an hour old"
    assert client.purge_dead_letters(QUEUE, older_than=datetime.timedelta(0)) == 2
    assert client.queue_counts(DEAD).ready == 0
    assert client.purge_dead_letters(QUEUE) == 0
    assert client.memory_count(MemoryCount.PENDING, QUEUE) == 2


@pytest.mark.parametrize("raised", [RuntimeError("copy failed"), KeyboardInterrupt()])
def test_an_exception_in_the_visit_stops_the_browse_and_is_raised(client, producer, monkeypatch,
                                                                  raised):
    enqueued = [producer.enqueue(QUEUE, "email", {"n": n}) for n in range(3)]
    copy, visits = messages._copy, []

    def failing_copy(message):
        visits.append(1)
        if len(visits) == 2:
            raise raised
        return copy(message)

    monkeypatch.setattr(messages, "_copy", failing_copy)
    with pytest.raises(type(raised)) as caught:
        client.browse(QUEUE)
    assert caught.value is raised
    assert len(visits) == 2, "the browse stopped at the failure"
    monkeypatch.undo()
    assert ids(client.browse(QUEUE)) == enqueued, "everything went back"


def test_a_failed_replay_or_purge_says_how_many_were_done(client):
    def partial(client_p, queue, selection, *rest):
        *_, done, err = rest
        done[0] = 2
        return lib.QY_ERR_UNROUTABLE

    with pytest.raises(queuey.BrokerError) as raised:
        client._walk_dead_letters(partial, QUEUE, (), None, None, None)
    assert (raised.value.status, raised.value.done) == (Status.UNROUTABLE, 2)


def test_bad_selections_are_refused_before_the_library_sees_them(client):
    with pytest.raises(TypeError):
        client.browse(QUEUE, job_ids="not-a-list")
    with pytest.raises(queuey.InvalidArgumentError):
        client.purge_dead_letters(QUEUE, older_than=-1)
    with pytest.raises(queuey.InvalidArgumentError):
        client.browse(QUEUE, limit=-1)
    with pytest.raises(queuey.InvalidArgumentError):
        client.replay_dead_letters(QUEUE, job_type="a\0b")
    client.close()
    with pytest.raises(queuey.ClosedError):
        client.queue_counts(QUEUE)
