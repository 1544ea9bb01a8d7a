#include "producer.hpp"

#include "error.hpp"

namespace queuey {

void Producer::publish_one(const Envelope &envelope,
                           std::optional<std::chrono::nanoseconds> delay) {
    const PublishOutcome outcome = backend_->publish_one(envelope, delay);
    if (outcome.status != QY_OK) throw Error(outcome.status, "", outcome.message);
}

void Producer::enqueue(const Envelope &envelope) { publish_one(envelope, std::nullopt); }

void Producer::enqueue_after(Envelope envelope, std::chrono::nanoseconds delay) {
    envelope.priority = 0;
    publish_one(envelope, delay);
}

void Producer::defer(Envelope envelope, std::chrono::nanoseconds delay) {
    envelope.priority = backend_->config_of(envelope.queue).deferral_priority();
    publish_one(envelope, delay);
}

std::vector<PublishOutcome> Producer::enqueue_batch(const std::vector<Envelope> &envelopes) {
    return backend_->publish(refs_to(envelopes), std::nullopt);
}

std::vector<PublishOutcome> Producer::enqueue_batch(EnvelopeRefs envelopes) {
    return backend_->publish(envelopes, std::nullopt);
}

}  // namespace queuey
