"""release_thread_memory and release_cached_memory: callable from any thread, before and
after publishing, and publishing goes on after them (the Go binding's
TestBrokerReleaseThreadMemory measures what they give back on RabbitMQ)."""
import threading

import queuey


def test_release_from_threads_that_published_and_that_did_not(memory, queue_name):
    memory.declare(queue_name)
    errors = []

    def publish_then_release(publish):
        try:
            if publish:
                with memory.producer() as producer:
                    producer.enqueue(queue_name, "noop", {"n": 1})
                    producer.enqueue_batch([(queue_name, "noop", {"n": i}) for i in range(10)])
            queuey.release_thread_memory()
            queuey.release_thread_memory()  # twice: nothing left, a no-op
        except Exception as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=publish_then_release, args=(i % 2 == 0,))
               for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    queuey.release_cached_memory()
    assert errors == []
    with memory.producer() as producer:  # publishing after a release takes new memory
        producer.enqueue(queue_name, "noop", {"n": 2})
    assert memory.memory_count(queuey.MemoryCount.PENDING, queue_name) == 45
