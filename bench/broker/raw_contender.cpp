// The baseline: the same work done with rabbitmq-c directly, on one thread, no queuey.
#include "jobs.hpp"
#include "raw_amqp.hpp"
#include "workload.hpp"

namespace {

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
    publish_pipelined(connection, w.queue, *w.jobs, w.count, w.batch);
    return stopwatch.elapsed();
}

Timing consume_ack(const Workload &w) {
    RawConnection connection(w.url);
    const Stopwatch stopwatch;
    connection.consume(w.queue, w.prefetch);
    connection.ack_next(w.count);
    return stopwatch.elapsed();
}

}  // namespace

const Contender ceiling_contender{"ceiling", enqueue_single, enqueue_batch, consume_ack, true};
const Contender raw_contender{"raw", enqueue_single, enqueue_batch, consume_ack, false};

// Untimed setup of consume_ack, for both sides: the same pipelined publishing.
void preload(const Workload &w) {
    RawConnection connection(w.url);
    connection.confirm_select();
    publish_pipelined(connection, w.queue, *w.jobs, w.count, w.batch);
}
