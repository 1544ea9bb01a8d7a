#include "memory_consumer.hpp"

namespace queuey {

MemoryConsumer::MemoryConsumer(std::shared_ptr<MemoryBroker> broker,
                               std::shared_ptr<MemorySubscription> subscription)
    : broker_(std::move(broker)), subscription_(std::move(subscription)) {}

MemoryConsumer::~MemoryConsumer() { broker_->cancel(subscription_); }

void MemoryConsumer::stop() { broker_->stop(subscription_); }

std::unique_ptr<Delivery> MemoryConsumer::next(std::chrono::milliseconds timeout) {
    auto lease = broker_->take(subscription_, deadline_after(timeout));
    if (!lease) return nullptr;
    try {
        return std::make_unique<MemoryDelivery>(broker_, std::move(lease));
    } catch (...) {
        if (lease) broker_->release(*lease);  // the allocation failed: not lost, back in the queue
        throw;
    }
}

MemoryDelivery::MemoryDelivery(std::shared_ptr<MemoryBroker> broker,
                               std::unique_ptr<MemoryLease> lease)
    : broker_(std::move(broker)), lease_(std::move(lease)) {}

MemoryDelivery::~MemoryDelivery() { broker_->release(*lease_); }

void MemoryDelivery::ack() { broker_->ack(*lease_); }

void MemoryDelivery::retry(const Envelope &next, std::chrono::nanoseconds delay) {
    broker_->republish(*lease_, MemoryBroker::Republish::retry, next, delay);
}

void MemoryDelivery::defer(const Envelope &next, std::chrono::nanoseconds delay) {
    broker_->republish(*lease_, MemoryBroker::Republish::defer, next, delay);
}

void MemoryDelivery::dead_letter(const std::string &reason) {
    broker_->dead_letter(*lease_, reason);
}

void MemoryDelivery::requeue_lost(std::uint32_t lost_runs) {
    broker_->requeue_lost(*lease_, lost_runs);
}

}  // namespace queuey
