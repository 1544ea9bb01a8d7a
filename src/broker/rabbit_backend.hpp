// The Backend on RabbitMQ: the topology of behaviour.md section 3, publish-before-ack
// settles, malformed bodies to the dead letters. Two connections, as RabbitMQ advises: one
// publishes and declares, one consumes and settles, so that a broker that blocks
// publishers (a memory or disk alarm) never stops deliveries and acks.
#pragma once

#include "../backend.hpp"
#include "../mutex.hpp"
#include "rabbit_connection.hpp"

#include <map>
#include <memory>

namespace queuey {

struct RabbitBackendOptions {
    ConnectionOptions connection;
    // How long a publish waits for its confirm; also bounds declares and subscribes.
    std::chrono::milliseconds publish_timeout{30000};
};

class RabbitBackend final : public Backend {
public:
    explicit RabbitBackend(RabbitBackendOptions options);

    void declare(const QueueConfig &config) override;
    QueueConfig config_of(const std::string &queue) const override;
    std::vector<PublishOutcome> publish(EnvelopeRefs envelopes,
                                        std::optional<std::chrono::nanoseconds> delay) override;
    // In the calling thread's reusable batch (PublishBatch::reusable): no allocation.
    PublishOutcome publish_one(const Envelope &envelope,
                               std::optional<std::chrono::nanoseconds> delay) override;
    using Backend::consume;
    std::unique_ptr<Consumer> consume(const std::vector<std::string> &queues,
                                      std::shared_ptr<ConsumerObserver> observer) override;
    // On the publishing connection, each call bounded by the publish timeout.
    QueueCounts counts(const std::string &queue_name) override;
    std::unique_ptr<QueueBrowser> browse(const std::string &queue_name) override;
    void close() override;

    // Publishes prepared messages (into no hold queue) and waits for their outcomes (used
    // by settles too).
    std::vector<PublishOutcome> publish_messages(std::vector<OutgoingMessage> messages);
    // The same for a batch of one message the caller filled in (PublishBatch::reusable),
    // declaring its holds first (see RabbitConnection::publish): its outcome alone.
    PublishOutcome publish_single(std::shared_ptr<PublishBatch> batch);
    // Publishes and declares; connected with the backend ("NAME (publish)").
    RabbitConnection &publishing() { return publisher_; }
    // Consumes and settles; connected by the first consumer ("NAME (consume)"). Throws
    // Error when it cannot connect, QY_ERR_CLOSED after close().
    RabbitConnection &consuming();
    // Both connections' counters, added up.
    ConnectionCounters counters() const;
    std::chrono::milliseconds publish_timeout() const { return publish_timeout_; }

private:
    RabbitConnection::Clock::time_point deadline() const;
    // Sets each message of batch (its size) to envelopes, to their queues or their holds
    // after delay, referring to long payloads with refer_payloads (set_message), and the
    // batch's holds to declare first, one per queue (added to those it has: none when
    // reused).
    void fill_batch(PublishBatch &batch, EnvelopeRefs envelopes,
                    std::optional<std::chrono::nanoseconds> delay, bool refer_payloads) const;
    // Hands batch to the publishing connection; true when every outcome came in time.
    bool publish_and_wait(const std::shared_ptr<PublishBatch> &batch);
    // The outcome of the publishes of batch that did not get theirs in time.
    PublishOutcome unconfirmed_outcome(PublishBatch &batch) const;
    // The outcome of a publish never handed to the connection, or abandoned before it
    // was written.
    PublishOutcome not_sent_outcome() const;

    const std::chrono::milliseconds publish_timeout_;
    const ConnectionOptions consumer_options_;
    RabbitConnection publisher_;
    mutable Mutex mutex_;  // guards the fields below
    std::map<std::string, QueueConfig, std::less<>> configs_ QY_GUARDED_BY(mutex_);
    std::unique_ptr<RabbitConnection> consumer_ QY_GUARDED_BY(mutex_);
    bool closed_ QY_GUARDED_BY(mutex_) = false;
};

}  // namespace queuey
