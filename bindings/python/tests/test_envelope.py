"""Envelopes made in Python: payloads, correlation ids, transitions, bad input."""
import datetime
import json
import uuid

import pytest

import queuey


def test_new_envelope_from_a_dict():
    with queuey.Envelope.new("emails", "send-email", {"to": "a@b.c", "n": [1, 2.5]}) as env:
        assert uuid.UUID(env.job_id).version == 4
        assert (env.queue, env.job_type, env.attempt, env.deferrals, env.priority) == \
            ("emails", "send-email", 1, 0, 0)
        assert env.payload == {"to": "a@b.c", "n": [1, 2.5]}
        assert env.payload_json == '{"to":"a@b.c","n":[1,2.5]}'
        assert env.correlation_id is None
        assert 0 <= env.age_ms < 10_000
        decoded = json.loads(env.to_bytes())
        assert list(decoded) == ["job_id", "job_type", "queue", "attempt", "enqueued_at_ms",
                                 "deferrals", "priority", "payload"]


def test_json_text_payload_is_kept_digit_for_digit():
    with queuey.Envelope.new("q", "t", '{ "big": 12345678901234567890.000, "k": "é" }') as env:
        assert env.payload_json == '{"big":12345678901234567890.000,"k":"é"}'
    with queuey.Envelope.new("q", "t", b"[1, 2]") as env:
        assert env.payload == [1, 2]


def test_correlation_id_is_set_and_removed():
    with queuey.Envelope.new("q", "t", {}, correlation_id="order-7") as env:
        assert env.correlation_id == "order-7"
        assert json.loads(env.to_bytes())["correlation_id"] == "order-7"
        env.set_correlation_id(None)
        assert env.correlation_id is None
        assert b"correlation_id" not in env.to_bytes()


def test_transitions_keep_identity():
    with queuey.Envelope.new("q", "t", {"a": 1}) as env:
        with env.next_attempt() as retry, env.deferred(10) as deferred:
            assert (retry.job_id, retry.attempt, retry.deferrals) == (env.job_id, 2, 0)
            assert (deferred.attempt, deferred.deferrals, deferred.priority) == (1, 1, 10)
            assert retry.enqueued_at_ms == deferred.enqueued_at_ms == env.enqueued_at_ms


@pytest.mark.parametrize("payload", ['{"a":', "not json", "", b"\xff", "[1] [2]", "\ud800"])
def test_bad_json_payload_raises(payload):
    with pytest.raises(queuey.EnvelopeError) as raised:
        queuey.Envelope.new("q", "t", payload)
    assert raised.value.status == queuey.Status.BAD_JSON
    assert raised.value.field == "payload"


@pytest.mark.parametrize("payload", [{"x": float("nan")}, {"x": object()}, {1j: 2}])
def test_payload_json_cannot_write_raises(payload):
    with pytest.raises(queuey.InvalidArgumentError, match="payload"):
        queuey.Envelope.new("q", "t", payload)


@pytest.mark.parametrize("queue, job_type, exc", [
    ("", "t", queuey.InvalidArgumentError),
    ("q", "", queuey.InvalidArgumentError),
    ("q\0x", "t", queuey.InvalidArgumentError),
    ("q", "\udc80", queuey.InvalidArgumentError),
    (None, "t", TypeError),
    ("q", 7, TypeError),
    (b"q", "t", TypeError),
])
def test_bad_names_raise(queue, job_type, exc):
    with pytest.raises(exc):
        queuey.Envelope.new(queue, job_type, {})


def test_bad_arguments_raise():
    with queuey.Envelope.new("q", "t", {}) as env:
        with pytest.raises(queuey.InvalidArgumentError):
            env.deferred(256)
        with pytest.raises(TypeError):
            env.deferred("10")
        with pytest.raises(TypeError):
            env.set_correlation_id(5)
        with pytest.raises(queuey.InvalidArgumentError):
            env.set_correlation_id("a\0b")
    with pytest.raises(TypeError):
        queuey.Envelope.from_bytes("a str is not a body")


def test_closed_envelope_raises_closed_error():
    env = queuey.Envelope.new("q", "t", {})
    env.close()
    env.close()  # idempotent
    for use in (lambda: env.job_id, env.to_bytes, env.next_attempt, lambda: env.deferred(1)):
        with pytest.raises(queuey.ClosedError) as raised:
            use()
        assert raised.value.status == queuey.Status.CLOSED
    assert repr(env) == "<Envelope closed>"


def test_copy_is_independent():
    with queuey.Envelope.new("q", "t", {"a": 1}, correlation_id="c") as env:
        copy = env.copy()
    assert copy.payload == {"a": 1} and copy.correlation_id == "c"
    copy.close()


def test_durations_accept_timedelta():
    from queuey import _convert
    assert _convert.milliseconds(datetime.timedelta(seconds=1.5), "d") == 1500
    assert _convert.milliseconds(0.0011, "d") == 2  # rounded up, never shorter
    assert _convert.milliseconds(0.001, "d") == 1
    for bad in (-1, float("inf"), float("nan")):
        with pytest.raises(queuey.InvalidArgumentError):
            _convert.milliseconds(bad, "d")
    with pytest.raises(TypeError):
        _convert.milliseconds("1", "d")
