// queuey through its C API, as a program linked with libqueuey uses it.
#include "jobs.hpp"
#include "workload.hpp"

#include <queuey/queuey.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace {

// A client with the benchmark queue declared (prefetch w.prefetch), untimed.
Owned<qy_client> connect(const Workload &w) {
    return connect_declared(w.url, w.queue, w.prefetch, 1000, w.shape);  // default granularity
}

Owned<qy_producer> new_producer(qy_client *client) {
    qy_error *err = nullptr;
    qy_producer *producer = nullptr;
    check_qy(qy_producer_new(client, &producer, &err), err, "creating a producer");
    return {producer, qy_producer_free};
}

Timing enqueue_single(const Workload &w) {
    const auto client = connect(w);
    const auto producer = new_producer(client.get());
    const Stopwatch stopwatch;
    for (std::size_t i = 0; i < w.count; ++i) {
        qy_error *err = nullptr;
        check_qy(qy_producer_enqueue(producer.get(), (*w.jobs)[i].envelope.get(), &err), err,
                 "enqueueing");
    }
    return stopwatch.elapsed();
}

Timing enqueue_batch(const Workload &w) {
    const auto client = connect(w);
    const auto producer = new_producer(client.get());
    std::vector<const qy_envelope *> envelopes(w.count);
    for (std::size_t i = 0; i < w.count; ++i) envelopes[i] = (*w.jobs)[i].envelope.get();
    const Stopwatch stopwatch;
    for (std::size_t first = 0; first < w.count; first += w.batch) {
        const std::size_t size = std::min(w.batch, w.count - first);
        qy_error *err = nullptr;
        check_qy(qy_producer_enqueue_batch(producer.get(), &envelopes[first], size, nullptr, &err),
                 err, "enqueueing a batch");
    }
    return stopwatch.elapsed();
}

Timing consume_ack(const Workload &w) {
    const auto client = connect(w);
    qy_error *err = nullptr;
    const Stopwatch stopwatch;
    qy_consumer *consumer = nullptr;
    check_qy(qy_consumer_new(client.get(), w.queue.c_str(), &consumer, &err), err, "subscribing");
    const Owned<qy_consumer> owned(consumer, qy_consumer_free);
    for (std::size_t i = 0; i < w.count; ++i) {
        qy_delivery *delivery = nullptr;
        check_qy(qy_consumer_next(consumer, 30000, &delivery, &err), err, "receiving");
        if (delivery == nullptr) check_qy(QY_ERR_TIMEOUT, nullptr, "receiving: nothing for 30 s");
        const qy_status acked = qy_delivery_ack(delivery, &err);
        qy_delivery_free(delivery);
        check_qy(acked, err, "acknowledging");
    }
    return stopwatch.elapsed();
}

}  // namespace

const Contender queuey_contender{"queuey", enqueue_single, enqueue_batch, consume_ack, false};
