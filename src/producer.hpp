// Putting jobs on queues (behaviour.md section 7), on whichever backend.
#pragma once

#include "backend.hpp"

#include <chrono>
#include <memory>
#include <vector>

namespace queuey {

class Producer {
public:
    explicit Producer(std::shared_ptr<Backend> backend) : backend_(std::move(backend)) {}

    // Each throws Error unless the backend accepted the job (for RabbitMQ: confirmed
    // and not returned).
    void enqueue(const Envelope &envelope);
    // Through the queue's hold queue; arrives at priority 0.
    void enqueue_after(Envelope envelope, std::chrono::nanoseconds delay);
    // Through the hold queue at the queue's max priority: ahead of the backlog.
    void defer(Envelope envelope, std::chrono::nanoseconds delay);
    // Publishes all, many in flight at once; one outcome per envelope, in order.
    std::vector<PublishOutcome> enqueue_batch(const std::vector<Envelope> &envelopes);
    std::vector<PublishOutcome> enqueue_batch(EnvelopeRefs envelopes);

private:
    void publish_one(const Envelope &envelope, std::optional<std::chrono::nanoseconds> delay);

    std::shared_ptr<Backend> backend_;
};

}  // namespace queuey
