"""The producer's asyncio methods on memory://: the results of their blocking
counterparts, from a thread of the loop's executor."""
import asyncio

import queuey
from queuey import MemoryCount


def jobs(count):
    return [("jobs", "t", {"i": i}) for i in range(count)] + [("absent", "t", {})]


def test_async_enqueues_give_what_the_sync_ones_give(memory):
    memory.declare(queuey.QueueConfig("jobs", delay_granularity=0.001))
    memory.declare("single")

    async def main(producer):
        job_id = await producer.enqueue_async("single", "t", {"n": 1}, correlation_id="c")
        after_id = await producer.enqueue_after_async("jobs", "t", {"n": 2}, 0.01)
        defer_id = await producer.defer_async("jobs", "t", {"n": 3}, 0.01)
        batch = await producer.enqueue_batch_async(iter(jobs(1000)))
        return job_id, after_id, defer_id, batch

    with memory.producer() as producer:
        job_id, after_id, defer_id, batch = asyncio.run(main(producer))
        sync_batch = producer.enqueue_batch(jobs(1000))
    assert [(r.ok, r.status) for r in batch] == [(r.ok, r.status) for r in sync_batch]
    assert [r.status for r in batch[-2:]] == [queuey.Status.OK, queuey.Status.UNROUTABLE]
    ids = {job_id, after_id, defer_id} | {r.job_id for r in batch + sync_batch}
    assert len(ids) == 3 + 2002
    held = memory.memory_count(MemoryCount.HELD, "jobs")
    pending = memory.memory_count(MemoryCount.PENDING, "jobs")
    assert held + pending == 2 + 2000  # nothing consumes: every job waits
    with memory.consumer("single") as consumer, consumer.next(timeout=5) as first:
        assert (first.job_id, first.payload, first.correlation_id) == (job_id, {"n": 1}, "c")


def test_an_async_error_is_the_sync_error(memory):
    async def main(producer):
        return await producer.enqueue_async("absent", "t", {})

    with memory.producer() as producer:
        try:
            asyncio.run(main(producer))
        except queuey.BrokerError as e:
            assert e.status == queuey.Status.UNROUTABLE
        else:
            raise AssertionError("no BrokerError")
