"""queuey.Consumer on memory://: receiving jobs by hand and settling each one."""
import threading
import time

import pytest

import queuey
from queuey import MemoryCount

QUEUE = queuey.QueueConfig("hand", max_priority=5, delay_granularity=0.001)


@pytest.fixture
def client(memory):
    memory.declare(QUEUE)
    return memory


@pytest.fixture
def consumer(client):
    with client.consumer(QUEUE) as consumer:
        yield consumer


def test_next_gives_the_job_and_ack_settles_it(client, producer, consumer):
    job_id = producer.enqueue("hand", "t", {"n": 1}, correlation_id="c-1")
    with consumer.next(timeout=5) as delivery:
        assert (delivery.job_id, delivery.job_type, delivery.queue, delivery.attempt,
                delivery.deferrals, delivery.correlation_id, delivery.payload,
                delivery.redelivered) == (job_id, "t", "hand", 1, 0, "c-1", {"n": 1}, False)
        assert delivery.envelope.job_id == job_id  # a copy of one's own
        delivery.ack()
    assert client.memory_count(MemoryCount.ACKED, "hand") == 1
    assert client.memory_count(MemoryCount.PENDING, "hand") == 0


def test_next_returns_none_at_the_timeout(consumer):
    start = time.monotonic()
    assert consumer.next(timeout=0.3) is None
    assert time.monotonic() - start >= 0.3
    assert consumer.next(timeout=0) is None


def test_next_without_timeout_waits_past_its_polling_slices(producer, consumer):
    ids = []
    enqueue = threading.Timer(0.5, lambda: ids.append(producer.enqueue("hand", "late", {})))
    enqueue.start()
    with consumer.next() as delivery:
        assert (delivery.job_type, delivery.job_id) == ("late", ids[0])
        delivery.ack()
    enqueue.join()


def test_retry_brings_the_next_attempt(client, producer, consumer):
    job_id = producer.enqueue("hand", "t", {})
    with consumer.next(timeout=5) as first:
        first.retry(0.01)
    with consumer.next(timeout=5) as second:
        assert (second.job_id, second.attempt, second.deferrals) == (job_id, 2, 0)
        second.ack()
    assert client.memory_count(MemoryCount.RETRIED, "hand") == 1


def test_defer_keeps_the_attempt_at_the_queues_max_priority(client, producer, consumer):
    job_id = producer.enqueue("hand", "t", {})
    with consumer.next(timeout=5) as first:
        first.defer(0.01)
    with consumer.next(timeout=5) as second:
        assert (second.job_id, second.attempt, second.deferrals, second.priority) == (
            job_id, 1, 1, 5)
        second.defer(0, priority=2)
    with consumer.next(timeout=5) as third:
        assert (third.deferrals, third.priority) == (2, 2)
        third.ack()
    assert client.memory_count(MemoryCount.DEFERRED, "hand") == 2


def test_retry_with_an_envelope_of_ones_own(producer, consumer):
    producer.enqueue("hand", "t", {})
    with consumer.next(timeout=5) as first:
        with first.envelope.next_attempt() as again:
            again.set_correlation_id("changed")
            first.retry(0, envelope=again)
    with consumer.next(timeout=5) as second:
        assert (second.attempt, second.correlation_id) == (2, "changed")
        second.ack()


def test_dead_letter_and_a_second_settle(client, producer, consumer):
    job_id = producer.enqueue("hand", "t", {"n": 2})
    with consumer.next(timeout=5) as delivery:
        delivery.dead_letter("no such customer")
        with pytest.raises(queuey.DeliveryError) as raised:
            delivery.ack()
        assert raised.value.status == queuey.Status.ALREADY_SETTLED
    assert [(env.job_id, reason) for env, reason in client.memory_dead_letters()] == [
        (job_id, "no such customer")]


def test_a_delivery_closed_unsettled_comes_back(client, producer, consumer):
    job_id = producer.enqueue("hand", "t", {})
    with consumer.next(timeout=5) as delivery:
        assert delivery.job_id == job_id  # and not settled
    with consumer.next(timeout=5) as again:
        assert (again.job_id, again.attempt, again.redelivered) == (job_id, 1, True)
        again.ack()
    assert client.memory_count(MemoryCount.ACKED, "hand") == 1


def test_closed_consumer_and_delivery_raise(producer, client):
    producer.enqueue("hand", "t", {})
    with client.consumer("hand") as consumer:
        delivery = consumer.next(timeout=5)
    assert consumer.closed
    with pytest.raises(queuey.ClosedError):
        consumer.next(timeout=0)
    delivery.close()
    with pytest.raises(queuey.ClosedError):
        delivery.ack()
    assert repr(delivery) == "<Delivery closed>"


def test_bad_arguments(client, consumer):
    with pytest.raises(queuey.InvalidArgumentError) as raised:
        client.consumer("never.declared")
    assert (raised.value.field, raised.value.message) == (
        "queue", "queue: queue 'never.declared' was not declared by this client; declare it first")
    with pytest.raises(TypeError):
        client.consumer(7)
    with pytest.raises(queuey.InvalidArgumentError):
        consumer.next(timeout=-1)


@pytest.mark.parametrize("max_priority", [0, 1, 2, 255])
def test_any_max_priority_from_none_to_255_is_declared_and_is_the_deferral_priority(
        memory, max_priority):
    config = queuey.QueueConfig(f"priority-{max_priority}", max_priority=max_priority,
                                delay_granularity=0.001)
    memory.declare(config)
    memory.declare(config)  # the same arguments again
    with pytest.raises(queuey.BrokerError) as raised:
        memory.declare(queuey.QueueConfig(config.name, max_priority=max_priority ^ 1,
                                          delay_granularity=0.001))
    assert raised.value.status == queuey.Status.PRECONDITION_FAILED
    with memory.producer() as producer, memory.consumer(config) as consumer:
        producer.enqueue(config.name, "t", {})
        with consumer.next(timeout=5) as first:
            first.defer(0)
        with consumer.next(timeout=5) as second:
            assert (second.deferrals, second.priority) == (1, max_priority)
            second.ack()
