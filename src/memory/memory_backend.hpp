// The Backend in the process itself (memory://): for tests of users' handlers and for
// running without a broker. Queues, delays, settles and dead letters behave as on
// RabbitMQ wherever a producer or a worker can tell (docs: "The in-memory backend"),
// plus inspection: what is pending, held, in flight, and what was settled how.
#pragma once

#include "../backend.hpp"
#include "../mutex.hpp"
#include "memory_history.hpp"
#include "memory_snapshot.hpp"

#include <chrono>
#include <memory>
#include <thread>

namespace queuey {

class MemoryBroker;

// Every member is thread-safe.
class MemoryBackend final : public Backend {
public:
    using Snapshot = MemorySnapshot;

    // Starts the hold timer's thread. The histories of the snapshot keep the newest
    // history_limit entries of each kind (their totals stay exact).
    explicit MemoryBackend(std::size_t history_limit = default_memory_history_limit);
    // Closes.
    ~MemoryBackend() override;
    MemoryBackend(const MemoryBackend &) = delete;
    MemoryBackend &operator=(const MemoryBackend &) = delete;

    // Creates q and q.dead. Idempotent for the same queue arguments (durable,
    // x-max-priority, x-message-ttl); other arguments for an existing queue throw
    // Error(QY_ERR_PRECONDITION_FAILED) naming the queue and the argument.
    void declare(const QueueConfig &config) override;
    QueueConfig config_of(const std::string &queue) const override;
    // Without a delay, an envelope for a queue that does not exist fails alone with
    // QY_ERR_UNROUTABLE. With one, every queue must have been declared (else
    // Error(QY_ERR_INVALID_ARGUMENT, "queue")) and the delay be within 0 and max_delay_ms
    // (else Error(QY_ERR_INVALID_ARGUMENT, "delay")); it is exact, and zero is immediate.
    std::vector<PublishOutcome> publish(EnvelopeRefs envelopes,
                                        std::optional<std::chrono::nanoseconds> delay) override;
    // A schedule's fire, at once: the job, marked as its headers mark it on RabbitMQ.
    PublishOutcome publish_fire(const Envelope &envelope, ScheduledFire fire);
    using Backend::consume;
    // Every queue must have been declared (else Error(QY_ERR_INVALID_ARGUMENT, "queue")).
    // At most prefetch unsettled deliveries per queue and consumer (0: no limit); the
    // queues take turns. Freeing the consumer puts its unsettled deliveries back.
    std::unique_ptr<Consumer> consume(const std::vector<std::string> &queues,
                                      std::shared_ptr<ConsumerObserver> observer) override;
    // Any queue, q.dead included; hold queues are not queues here (snapshot().held).
    QueueCounts counts(const std::string &queue_name) override;
    std::unique_ptr<QueueBrowser> browse(const std::string &queue_name) override;
    // Wakes every blocked next() (it throws QY_ERR_CLOSED), stops the hold timer and drops
    // the held jobs, and puts unsettled deliveries back into their queues (their settles
    // then throw QY_ERR_CLOSED). The snapshot stays readable. Idempotent.
    void close() override;

    // A consistent copy of everything at one moment.
    Snapshot snapshot() const;
    // Forgets the histories (acked, retried, deferred, dead_lettered, expired) and their
    // totals; the queues keep their jobs.
    void clear_history();
    // True once nothing is pending in a declared queue, held or in flight (dead-letter
    // queues do not count); false when the timeout passes first or the backend is closed.
    bool wait_until_idle(std::chrono::milliseconds timeout) const;

private:
    std::shared_ptr<MemoryBroker> broker_;
    Mutex close_mutex_;
    std::thread hold_timer_;
};

}  // namespace queuey
