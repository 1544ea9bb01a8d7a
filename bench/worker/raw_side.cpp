// The baseline: a worker's wire work done with rabbitmq-c directly, on one thread.
//
// drain: basic.qos(prefetch), basic.consume, then basic.ack each of the `count`
// preloaded jobs as it arrives.
// retry_once: the wire work of a worker whose every job fails once. For each of the
// first `count` deliveries (the preloaded jobs), publish a copy (the same body and
// properties) to a hold queue on a second connection in confirm mode, wait for its
// confirm, then ack the delivery. The hold queue (declared once, untimed, with
// queuey's TTL and dead-lettering back to the work queue) returns each copy after the
// TTL to the same consumer, which acks the next `count` deliveries. What queuey does
// beyond this: it decodes and encodes envelopes, and it redeclares its hold queue
// before each publish into it (which renews the hold queue's x-expires lease; spec
// behaviour.md).
#include "jobs.hpp"
#include "raw_amqp.hpp"
#include "workload.hpp"

Timing raw_run(const WorkerWorkload &w) {
    RawConnection consumer(w.url);
    if (!w.fail_once) {
        const Stopwatch stopwatch;
        consumer.consume(w.queue, w.prefetch);
        consumer.ack_next(w.count, w.after_job);
        return stopwatch.elapsed();
    }
    RawConnection publisher(w.url);  // own socket: confirms and deliveries do not mix
    publisher.confirm_select();
    const Stopwatch stopwatch;
    consumer.consume(w.queue, w.prefetch);
    // The copies queue up behind every preloaded job (one priority, FIFO).
    for (std::size_t i = 0; i < w.count; ++i) {
        const std::uint64_t tag = consumer.next_delivery_tag();
        publisher.publish(w.hold_queue, (*w.jobs)[i].message);
        publisher.await_confirms();
        consumer.ack(tag);
    }
    consumer.ack_next(w.count);
    return stopwatch.elapsed();
}
