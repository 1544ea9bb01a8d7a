"""queuey.Consumer against a real broker: each settle does what it says, and a consumer
closed with a delivery unsettled gives it back to the queue."""
import time

import queuey


def test_settling_by_hand_on_the_broker(broker, queue_name):
    config = queuey.QueueConfig(queue_name, durable=False, delay_granularity=0.05)
    broker.declare(config)
    with broker.producer() as producer:
        ids = [producer.enqueue(queue_name, kind, {"kind": kind})
               for kind in ("ack", "retry", "defer", "dead")]
    seen = []
    with broker.consumer(config) as consumer:
        while len(seen) < 6:
            delivery = consumer.next(timeout=10)
            assert delivery is not None, f"only {seen} came"
            with delivery:
                kind = delivery.payload["kind"]
                seen.append((kind, delivery.attempt, delivery.deferrals, delivery.priority))
                if kind == "retry" and delivery.attempt == 1:
                    delivery.retry(0.05)
                elif kind == "defer" and delivery.deferrals == 0:
                    delivery.defer(0.05)
                elif kind == "dead":
                    delivery.dead_letter("settled by hand")
                else:
                    delivery.ack()
    assert sorted(seen) == sorted([("ack", 1, 0, 0), ("retry", 1, 0, 0), ("retry", 2, 0, 0),
                                   ("defer", 1, 0, 0), ("defer", 1, 1, 10), ("dead", 1, 0, 0)])
    letters = broker.browse(queue_name + ".dead")
    assert [(m.job_id, m.reason, m.original_queue) for m in letters] == [
        (ids[3], "settled by hand", queue_name)]
    assert broker.queue_counts(queue_name).ready == 0


def test_closing_with_an_unsettled_delivery_gives_it_back(broker, queue_name):
    broker.declare(queuey.QueueConfig(queue_name, durable=False))
    with broker.producer() as producer:
        job_id = producer.enqueue(queue_name, "t", {})
    with broker.consumer(queue_name) as consumer:
        delivery = consumer.next(timeout=10)
        assert delivery.job_id == job_id
    delivery.close()
    deadline = time.monotonic() + 10
    while broker.queue_counts(queue_name).ready != 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert broker.queue_counts(queue_name) == queuey.QueueCounts(ready=1, consumers=0)
    with broker.consumer(queue_name) as consumer, consumer.next(timeout=10) as again:
        assert (again.job_id, again.attempt) == (job_id, 1)
        again.ack()
