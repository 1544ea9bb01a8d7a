// The baseline: a worker's wire work done with rabbitmq-c directly, on one thread.
//
// drain: basic.qos(prefetch), basic.consume, then basic.ack each of the `count`
// preloaded jobs as it arrives.
// retry_once: the wire work of a worker whose every job fails once. For each delivery
// of the work queue, publish a copy (the same body and properties) to a second queue
// on a second connection in confirm mode, wait for its confirm, then ack the delivery;
// afterwards consume that second queue and ack each copy. What queuey does beyond this:
// it encodes the next attempt's envelope, declares the hold queue before each such
// publish (the redeclare renews the hold queue's x-expires lease; spec behaviour.md),
// and its copies come back to the work queue through the hold queue's TTL (100 ms).
#include "jobs.hpp"
#include "raw_amqp.hpp"
#include "workload.hpp"

Timing raw_run(const WorkerWorkload &w) {
    RawConnection consumer(w.url);
    if (!w.fail_once) {
        const Stopwatch stopwatch;
        consumer.consume(w.queue, w.prefetch);
        consumer.ack_next(w.count);
        return stopwatch.elapsed();
    }
    RawConnection publisher(w.url);  // own socket: confirms and deliveries do not mix
    publisher.confirm_select();
    const Stopwatch stopwatch;
    consumer.consume(w.queue, w.prefetch);
    for (std::size_t i = 0; i < w.count; ++i) {
        const std::uint64_t tag = consumer.next_delivery_tag();
        publisher.publish(w.retry_queue, (*w.jobs)[i].message);
        publisher.await_confirms();
        consumer.ack(tag);
    }
    consumer.consume(w.retry_queue, w.prefetch);
    consumer.ack_next(w.count);
    return stopwatch.elapsed();
}
