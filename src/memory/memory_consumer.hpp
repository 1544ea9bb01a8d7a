// Consuming from the in-process backend, and settling what was consumed.
#pragma once

#include "../backend.hpp"
#include "memory_broker.hpp"

#include <memory>

namespace queuey {

// next() may be called from several threads at once; each message goes to one of them.
class MemoryConsumer final : public Consumer {
public:
    // observer may be null.
    MemoryConsumer(std::shared_ptr<MemoryBroker> broker,
                   std::shared_ptr<MemorySubscription> subscription,
                   std::shared_ptr<ConsumerObserver> observer);
    // As when a consumer's channel closes on RabbitMQ: its unsettled deliveries go back
    // to their queues, and settling them later fails with QY_ERR_STALE_DELIVERY. Such a
    // job does not come back redelivered(): this process gave it back, none was lost.
    ~MemoryConsumer() override;

    // Throws Error(QY_ERR_CLOSED) once the backend is closed.
    std::shared_ptr<Delivery> next(std::chrono::milliseconds timeout) override;
    // Nothing is buffered here: once stopped, next() returns nullptr at once, also in
    // the threads already waiting in it. Deliveries taken before stay settleable.
    void stop() override;

private:
    std::shared_ptr<MemoryBroker> broker_;
    std::shared_ptr<MemorySubscription> subscription_;
    const std::shared_ptr<ConsumerObserver> observer_;
};

// Thread-safe: it may be settled from any thread, also after its consumer is gone.
class MemoryDelivery final : public Delivery {
public:
    MemoryDelivery(std::shared_ptr<MemoryBroker> broker, std::unique_ptr<MemoryLease> lease);
    // An unsettled delivery goes back to its place in its queue, marked redelivered.
    ~MemoryDelivery() override;

    const Envelope &envelope() const override { return lease_->message.message.envelope; }
    const QueueConfig &queue() const override { return lease_->config; }
    bool redelivered() const override { return lease_->message.redelivered; }
    bool cut_by_consumer_timeout() const override { return false; }  // no such timeout here
    std::uint32_t lost_runs() const override { return lease_->message.message.lost_runs; }
    std::uint32_t broker_returns() const override {
        return lease_->config.type == QueueType::quorum ? lease_->message.returns : 0;
    }
    const ScheduledFire *fire() const override {
        return lease_->message.message.fire ? &*lease_->message.message.fire : nullptr;
    }
    bool stale() const override;
    bool publishing_blocked() const override { return false; }  // nothing blocks it
    void set_aside() override;
    void ack() override;
    // next arrives in this delivery's queue after exactly delay (zero: at once).
    void retry(const Envelope &next, std::chrono::nanoseconds delay) override;
    void defer(const Envelope &next, std::chrono::nanoseconds delay) override;
    // The envelope goes to the queue's dead-letter queue; the reason is in the history.
    using Delivery::dead_letter;
    void dead_letter(const DeadLetterCause &cause) override;
    void requeue_lost(std::uint32_t lost_runs) override;

private:
    std::shared_ptr<MemoryBroker> broker_;
    std::unique_ptr<MemoryLease> lease_;
};

}  // namespace queuey
