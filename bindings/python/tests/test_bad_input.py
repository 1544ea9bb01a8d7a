"""Bad input raises a clear exception (a QueueyError naming the problem, or TypeError),
never crashes."""
import pytest

import queuey


@pytest.mark.parametrize("url, message", [
    ("", "amqp://"),
    ("not a url", "space"),
    ("http://localhost/", "scheme"),
    ("amqp://user:secret@[::1/", "IPv6"),
])
def test_bad_urls_raise_invalid_argument(url, message):
    with pytest.raises(queuey.InvalidArgumentError, match=message) as raised:
        queuey.Client(url)
    assert "secret" not in str(raised.value)


def test_unreachable_broker_raises_connection_error():
    with pytest.raises(queuey.BrokerError) as raised:
        queuey.Client("amqp://guest:secret@127.0.0.1:1/", connect_timeout=2)
    assert raised.value.status == queuey.Status.CONNECTION
    assert "secret" not in str(raised.value)


@pytest.mark.parametrize("kwargs, exc", [
    ({"fallback_urls": "amqp://x/"}, TypeError),
    ({"fallback_urls": ["ftp://x/"]}, queuey.InvalidArgumentError),
    ({"heartbeat": 70000}, queuey.InvalidArgumentError),
    ({"heartbeat": "30"}, TypeError),
    ({"connect_timeout": -1}, queuey.InvalidArgumentError),
    ({"publish_timeout": 0}, queuey.InvalidArgumentError),
    ({"reconnect_attempts": -2}, queuey.InvalidArgumentError),
    ({"connection_name": 5}, TypeError),
])
def test_bad_client_options_raise(kwargs, exc):
    with pytest.raises(exc):
        queuey.Client("memory://", **kwargs)


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError):
        queuey.Client(b"memory://")
    with queuey.Client("memory://") as client:
        with pytest.raises(TypeError):
            client.declare(42)
        with pytest.raises(TypeError):
            queuey.Worker("memory://", "q")
        with pytest.raises(TypeError):
            queuey.Worker(client, [1])
        with pytest.raises(TypeError):
            client.memory_count(queuey.MemoryCount.ACKED, queue=3)
        with pytest.raises(ValueError):
            client.memory_count(99)


@pytest.mark.parametrize("config, exc", [
    (queuey.QueueConfig("x" * 236), queuey.InvalidArgumentError),
    (queuey.QueueConfig(""), queuey.InvalidArgumentError),
    (queuey.QueueConfig("q", max_priority=256), queuey.InvalidArgumentError),
    (queuey.QueueConfig("q", prefetch=0), queuey.InvalidArgumentError),
    (queuey.QueueConfig("q", max_lost_runs=0), queuey.InvalidArgumentError),
    (queuey.QueueConfig("q", max_lost_runs=2**32), queuey.InvalidArgumentError),
    (queuey.QueueConfig("q", queue_type="stream"), ValueError),
    (queuey.QueueConfig("q", queue_type=1), TypeError),
    (queuey.QueueConfig("q", queue_type="quorum", durable=False), queuey.InvalidArgumentError),
    (queuey.QueueConfig("q", message_ttl="1s"), TypeError),
    (queuey.QueueConfig("q", retry=queuey.RetryPolicy(0)), queuey.InvalidArgumentError),
    (queuey.QueueConfig("q", retry=queuey.RetryPolicy.exponential(3, 1, factor="2")), TypeError),
])
def test_bad_queue_configs_raise(memory, config, exc):
    with pytest.raises(exc):
        memory.declare(config)


def test_a_queue_redeclared_with_another_type_raises_naming_the_argument(memory):
    memory.declare(queuey.QueueConfig("qq", queue_type="quorum"))
    with pytest.raises(queuey.BrokerError, match="x-queue-type") as raised:
        memory.declare(queuey.QueueConfig("qq"))
    assert raised.value.status == queuey.Status.PRECONDITION_FAILED


def test_a_lost_run_budget_of_zero_raises(memory):
    memory.declare("q")
    with pytest.raises(queuey.InvalidArgumentError, match="max_lost_runs"):
        queuey.Worker(memory, "q", max_lost_runs=0)


@pytest.mark.parametrize("policy, field", [
    (queuey.RetryPolicy.fixed(3, 3_000_000), "delay_ms"),  # 3,000,000,000 ms
    (queuey.RetryPolicy.exponential(3, 1, max_delay=3_000_000), "max_ms"),
    (queuey.RetryPolicy.exponential(3, 3_000_000), "base_ms"),
])
def test_retry_delays_longer_than_a_hold_are_refused(memory, policy, field):
    memory.declare("q")
    with pytest.raises(queuey.InvalidArgumentError, match="2147483647") as raised:
        queuey.Worker(memory, "q", retry=policy)
    assert field in str(raised.value)


def test_bad_enqueues_raise(memory):
    memory.declare("q")
    with memory.producer() as producer:
        with pytest.raises(queuey.EnvelopeError) as raised:
            producer.enqueue("q", "t", "{not json")
        assert raised.value.status == queuey.Status.BAD_JSON
        with pytest.raises(queuey.InvalidArgumentError):
            producer.enqueue("q", "t", {"x": {1, 2}})
        with pytest.raises(queuey.BrokerError) as raised:
            producer.enqueue("undeclared", "t", {})
        assert raised.value.status == queuey.Status.UNROUTABLE
        with pytest.raises(queuey.InvalidArgumentError):
            producer.enqueue_after("q", "t", {}, 2**31)
        with pytest.raises(queuey.InvalidArgumentError):
            producer.defer("q", "t", {}, -0.5)
        with pytest.raises(TypeError):
            producer.enqueue_after("q", "t", {}, None)
        with pytest.raises(TypeError):
            producer.enqueue_batch([("q", "t")])
        with pytest.raises(TypeError):
            producer.enqueue_envelope({"job": 1})
        with pytest.raises(TypeError):
            producer.enqueue("q", "t", {}, correlation_id=1)


def test_memory_inspection_errors(memory):
    with pytest.raises(queuey.BrokerError) as raised:
        memory.declare("q")
        memory.producer().enqueue("q", "t", {})
        memory.memory_wait_idle(0.01)
    assert raised.value.status == queuey.Status.TIMEOUT


def test_defer_with_a_bad_delay_raises_at_once():
    with pytest.raises(queuey.InvalidArgumentError):
        queuey.Defer(-1)
    with pytest.raises(TypeError):
        queuey.Defer("soon")
