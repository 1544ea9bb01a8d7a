#include "memory_backend.hpp"

#include "memory_broker.hpp"
#include "memory_browser.hpp"
#include "memory_consumer.hpp"

namespace queuey {

MemoryBackend::MemoryBackend(std::size_t history_limit)
    : broker_(std::make_shared<MemoryBroker>(history_limit)),
      hold_timer_([broker = broker_] { broker->run_hold_timer(); }) {}

MemoryBackend::~MemoryBackend() { close(); }

void MemoryBackend::declare(const QueueConfig &config) { broker_->declare(config); }

QueueConfig MemoryBackend::config_of(const std::string &queue) const {
    return broker_->config_of(queue);
}

std::vector<PublishOutcome> MemoryBackend::publish(EnvelopeRefs envelopes,
                                                   std::optional<std::chrono::nanoseconds> delay) {
    return broker_->publish(envelopes, delay);
}

PublishOutcome MemoryBackend::publish_fire(const Envelope &envelope, ScheduledFire fire) {
    return broker_->publish_fire(envelope, std::move(fire));
}

std::unique_ptr<Consumer> MemoryBackend::consume(const std::vector<std::string> &queues,
                                                 std::shared_ptr<ConsumerObserver> observer) {
    return std::make_unique<MemoryConsumer>(broker_, broker_->subscribe(queues),
                                            std::move(observer));
}

QueueCounts MemoryBackend::counts(const std::string &queue_name) {
    return broker_->counts(queue_name);
}

std::unique_ptr<QueueBrowser> MemoryBackend::browse(const std::string &queue_name) {
    return std::make_unique<MemoryBrowser>(broker_, queue_name);
}

void MemoryBackend::close() {
    broker_->close();
    MutexLock lock(close_mutex_);
    if (hold_timer_.joinable()) hold_timer_.join();
}

MemoryBackend::Snapshot MemoryBackend::snapshot() const { return broker_->snapshot(); }

void MemoryBackend::clear_history() { broker_->clear_history(); }

bool MemoryBackend::wait_until_idle(std::chrono::milliseconds timeout) const {
    return broker_->wait_until_idle(timeout);
}

}  // namespace queuey
