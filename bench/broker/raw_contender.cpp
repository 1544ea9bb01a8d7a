// The baseline: the same work done with rabbitmq-c directly, on one thread, no queuey.
#include "jobs.hpp"
#include "raw_amqp.hpp"
#include "workload.hpp"

#include <algorithm>

namespace {

// Publishes jobs [0, count) with up to `batch` unconfirmed at a time.
void publish_pipelined(RawConnection &connection, const Workload &w) {
    for (std::size_t first = 0; first < w.count; first += w.batch) {
        const std::size_t end = std::min(w.count, first + w.batch);
        for (std::size_t i = first; i < end; ++i) connection.publish(w.queue, (*w.jobs)[i].message);
        connection.await_confirms();
    }
}

Timing enqueue_single(const Workload &w) {
    RawConnection connection(w.url);
    connection.confirm_select();
    const Stopwatch stopwatch;
    for (std::size_t i = 0; i < w.count; ++i) {
        connection.publish(w.queue, (*w.jobs)[i].message);
        connection.await_confirms();
    }
    return stopwatch.elapsed();
}

Timing enqueue_batch(const Workload &w) {
    RawConnection connection(w.url);
    connection.confirm_select();
    const Stopwatch stopwatch;
    publish_pipelined(connection, w);
    return stopwatch.elapsed();
}

Timing consume_ack(const Workload &w) {
    RawConnection connection(w.url);
    const Stopwatch stopwatch;
    connection.consume(w.queue, w.prefetch);
    for (std::size_t i = 0; i < w.count; ++i) connection.ack(connection.next_delivery_tag());
    return stopwatch.elapsed();
}

}  // namespace

const Contender raw_contender{"raw", enqueue_single, enqueue_batch, consume_ack};

// Untimed setup of consume_ack, for both sides: the same pipelined publishing.
void preload(const Workload &w) {
    RawConnection connection(w.url);
    connection.confirm_select();
    publish_pipelined(connection, w);
}
