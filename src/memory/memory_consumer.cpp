#include "memory_consumer.hpp"

namespace queuey {

MemoryConsumer::MemoryConsumer(std::shared_ptr<MemoryBroker> broker,
                               std::shared_ptr<MemorySubscription> subscription,
                               std::shared_ptr<ConsumerObserver> observer)
    : broker_(std::move(broker)),
      subscription_(std::move(subscription)),
      observer_(std::move(observer)) {}

MemoryConsumer::~MemoryConsumer() { broker_->cancel(subscription_); }

void MemoryConsumer::stop() { broker_->stop(subscription_); }

std::shared_ptr<Delivery> MemoryConsumer::next(std::chrono::milliseconds timeout) {
    const auto deadline = deadline_after(timeout);
    for (;;) {
        MemoryBroker::Taken taken = broker_->take(subscription_, deadline);
        std::shared_ptr<Delivery> delivery;
        if (taken.lease) {
            try {
                delivery = std::make_shared<MemoryDelivery>(broker_, std::move(taken.lease));
            } catch (...) {
                // The allocation failed: not lost, back in the queue.
                if (taken.lease) broker_->release(*taken.lease);
                throw;
            }
        }
        // Outside the broker's lock, and with the lease owned by a delivery that gives it
        // back should the observer throw.
        if (observer_)
            for (const MalformedBody &body : taken.malformed) observer_->malformed_body(body);
        if (delivery || taken.malformed.empty()) return delivery;
    }
}

MemoryDelivery::MemoryDelivery(std::shared_ptr<MemoryBroker> broker,
                               std::unique_ptr<MemoryLease> lease)
    : broker_(std::move(broker)), lease_(std::move(lease)) {}

MemoryDelivery::~MemoryDelivery() { broker_->release(*lease_); }

bool MemoryDelivery::stale() const { return broker_->revoked(*lease_); }

void MemoryDelivery::set_aside() { broker_->set_aside(*lease_); }

void MemoryDelivery::ack() { broker_->ack(*lease_); }

void MemoryDelivery::retry(const Envelope &next, std::chrono::nanoseconds delay) {
    broker_->republish(*lease_, MemoryBroker::Republish::retry, next, delay);
}

void MemoryDelivery::defer(const Envelope &next, std::chrono::nanoseconds delay) {
    broker_->republish(*lease_, MemoryBroker::Republish::defer, next, delay);
}

void MemoryDelivery::dead_letter(const DeadLetterCause &cause) {
    broker_->dead_letter(*lease_, cause);
}

void MemoryDelivery::requeue_lost(std::uint32_t lost_runs) {
    broker_->requeue_lost(*lease_, lost_runs);
}

}  // namespace queuey
