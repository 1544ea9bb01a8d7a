"""The producer's asyncio methods against a broker that blocks publishing (a memory
alarm): the enqueues wait and the event loop runs on; the library logs the block."""
import asyncio
import logging

import queuey
from broker_ctl import broker_ctl  # noqa: F401 - a fixture
from test_logging import LIBRARY, records_of


class Ticker:
    """Counts event-loop turns, to show that an await did not block the loop."""

    def __init__(self) -> None:
        self.ticks = 0
        self._task: "asyncio.Task[None] | None" = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(0.005)
            self.ticks += 1

    def __enter__(self) -> "Ticker":
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


def test_blocked_enqueues_leave_the_event_loop_running(broker_url, broker_ctl, queue_name,
                                                       caplog):
    caplog.set_level(logging.INFO, logger=LIBRARY)
    batch = [(queue_name, "t", {"i": i}) for i in range(1000)]

    async def main(producer):
        with Ticker() as ticker, broker_ctl.memory_alarm():
            single = asyncio.ensure_future(producer.enqueue_async(queue_name, "t", {"i": -1}))
            many = asyncio.ensure_future(producer.enqueue_batch_async(batch))
            await asyncio.sleep(1.0)
            blocked = (single.done(), many.done(), ticker.ticks)
        # The alarm is cleared: the broker reads and confirms what waited.
        return blocked, await single, await many

    with queuey.Client(broker_url, connection_name="py-async", publish_timeout=60) as client:
        client.declare(queuey.QueueConfig(queue_name, durable=False))
        with client.producer() as producer:
            (single_done, many_done, ticks), job_id, results = asyncio.run(main(producer))
            sync_results = producer.enqueue_batch(batch)
        assert (single_done, many_done) == (False, False)
        assert ticks >= 20, f"the loop turned only {ticks} times in 1 s"
        assert isinstance(job_id, str) and len(job_id) == 36
        assert [(r.ok, r.status) for r in results] == [(r.ok, r.status) for r in sync_results]
        assert all(r.ok for r in results)
        assert client.queue_counts(queue_name).ready == 1 + 1000 + 1000
    # Lines logged while the broker blocked us arrived.
    records_of(caplog, LIBRARY, lambda r: "unblocked" in r.getMessage())
    assert [(r.levelno, r.getMessage()) for r in caplog.records
            if r.name == LIBRARY and "blocked publishing" in r.getMessage()] == [
        (logging.WARNING, "the broker blocked publishing (low on memory); publishes wait until "
                          "it unblocks or they time out"),
        (logging.INFO, "the broker unblocked publishing")]
