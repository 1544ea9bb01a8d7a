// Consuming queues on RabbitMQ, and settling what was consumed.
#pragma once

#include "../backend.hpp"

#include "consumed_queue.hpp"
#include "rabbit_connection.hpp"

#include <atomic>

namespace queuey {

class RabbitBackend;

// One subscription per queue, all delivering into one DeliveryQueue.
class RabbitConsumer final : public Consumer {
public:
    // Subscribes to every queue; throws Error (and subscribes to none) if one fails.
    // observer may be null.
    RabbitConsumer(RabbitBackend &backend, const std::vector<QueueConfig> &queues,
                   std::shared_ptr<ConsumerObserver> observer);
    ~RabbitConsumer() override;

    std::shared_ptr<Delivery> next(std::chrono::milliseconds timeout) override;
    void stop() override;

private:
    struct Source {
        std::shared_ptr<const ConsumedQueue> queue;
        std::shared_ptr<Subscription> subscription;
    };
    const Source &source_of(const IncomingDelivery &delivery) const;
    // Copies a body that is not an envelope verbatim to the dead letters, then acks it;
    // rejects it without requeue when the copy fails. Tells the observer either way.
    void dead_letter_malformed(const Source &source, const IncomingDelivery &delivery,
                               const std::string &problem);
    void cancel_all();

    RabbitBackend &backend_;
    RabbitConnection &connection_;  // the backend's consuming connection
    const std::shared_ptr<ConsumerObserver> observer_;
    std::shared_ptr<DeliveryQueue> deliveries_ = std::make_shared<DeliveryQueue>();
    std::vector<Source> sources_;
    std::atomic<bool> stopped_{false};
};

class RabbitDelivery final : public Delivery {
public:
    RabbitDelivery(RabbitBackend &backend, RabbitConnection &connection,
                   std::shared_ptr<const ConsumedQueue> queue,
                   std::shared_ptr<Subscription> subscription, IncomingDelivery delivery,
                   Envelope envelope);
    // An unsettled delivery goes back to its queue; its redelivery counts as a lost run
    // (whoever dropped it may have been running it).
    ~RabbitDelivery() override;

    const Envelope &envelope() const override { return envelope_; }
    const QueueConfig &queue() const override { return queue_->config(); }
    bool redelivered() const override { return possibly_started_; }
    bool cut_by_consumer_timeout() const override {
        return own_return_ == OwnReturn::cut_by_consumer_timeout;
    }
    std::uint32_t lost_runs() const override { return delivery_.lost_runs; }
    std::uint32_t broker_returns() const override { return delivery_.returns; }
    const ScheduledFire *fire() const override {
        return delivery_.fire ? &*delivery_.fire : nullptr;
    }
    bool stale() const override { return delivery_.generation != subscription_->generation.load(); }
    bool publishing_blocked() const override;
    void set_aside() override;
    void ack() override;
    void retry(const Envelope &next, std::chrono::nanoseconds delay) override;
    void defer(const Envelope &next, std::chrono::nanoseconds delay) override;
    using Delivery::dead_letter;
    void dead_letter(const DeadLetterCause &cause) override;
    void requeue_lost(std::uint32_t lost_runs) override;

private:
    void check_unsettled() const;
    // Publishes the successor, waits for its confirm, and only then acks; a failed
    // publish leaves the delivery unsettled and throws. A stale delivery throws
    // QY_ERR_STALE_DELIVERY before it publishes anything: its job comes back anyway, and
    // a successor would double it.
    void publish_then_ack(OutgoingMessage successor);
    // The same for a batch of one message the caller filled in (PublishBatch::reusable),
    // declaring its holds first.
    void publish_batch_then_ack(std::shared_ptr<PublishBatch> batch);
    void settle(Settlement settlement);

    RabbitBackend &backend_;
    RabbitConnection &connection_;                      // the one it came on
    const std::shared_ptr<const ConsumedQueue> queue_;  // shared: it may outlive its consumer
    std::shared_ptr<Subscription> subscription_;
    IncomingDelivery delivery_;
    Envelope envelope_;
    // What this process recorded of the redelivery: nullopt when it did not cause it.
    std::optional<OwnReturn> own_return_;
    bool possibly_started_;
    bool settled_ = false;
};

}  // namespace queuey
