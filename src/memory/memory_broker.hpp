// The in-process broker behind MemoryBackend: queues, held jobs, consumers' deliveries
// and histories under one mutex, with RabbitMQ's semantics wherever a producer, a worker
// or a test can observe them. Every public member is thread-safe.
#pragma once

#include "../backend.hpp"
#include "../mutex.hpp"
#include "hold_schedule.hpp"
#include "memory_history.hpp"
#include "memory_queue.hpp"
#include "memory_snapshot.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace queuey {

// What one consumer consumes: a source per queue, each with its prefetch. Guarded by the
// broker's mutex.
struct MemorySubscription {
    struct Source {
        QueueConfig config;
        MemoryQueue *queue = nullptr;  // queues are never removed: stable
        std::uint32_t unsettled = 0;   // this consumer's unsettled deliveries from it
        std::uint32_t set_aside = 0;   // of those, the ones that hold no prefetch slot
    };
    std::vector<Source> sources;
    std::size_t cursor = 0;  // the source to try first: round robin, so that none starves
    bool stopped = false;    // Consumer::stop(): no new deliveries
    bool counted = false;    // among its queues' consumers (until stopped or cancelled)
};

// One delivered message until it is settled or goes back to its queue.
struct MemoryLease {
    enum class State { unsettled, settled, revoked };

    std::shared_ptr<MemorySubscription> subscription;
    std::size_t source = 0;
    QueueConfig config;     // a copy: a delivery may outlive its consumer
    QueuedMessage message;  // never changed while the delivery lives: read without the lock
    State state = State::unsettled;  // guarded by the broker's mutex
    bool set_aside = false;          // guarded by the broker's mutex
};

class MemoryBroker {
public:
    using Clock = std::chrono::steady_clock;
    enum class Republish { retry, defer };

    // history_limit: the newest entries of each history kept (MemoryHistory).
    explicit MemoryBroker(std::size_t history_limit) : history_(history_limit) {}

    // As Backend::declare: creates q and q.dead; a queue that exists with other arguments
    // gives Error(QY_ERR_PRECONDITION_FAILED) naming the queue and the argument.
    void declare(const QueueConfig &config);
    QueueConfig config_of(const std::string &queue) const;
    std::vector<PublishOutcome> publish(EnvelopeRefs envelopes,
                                        std::optional<std::chrono::nanoseconds> delay);
    // A schedule's fire, at once: the job, marked as the fire (Delivery::fire()).
    PublishOutcome publish_fire(const Envelope &envelope, ScheduledFire fire);

    // Throws unless every queue was declared (and at least one is given).
    std::shared_ptr<MemorySubscription> subscribe(const std::vector<std::string> &queues);
    // A consumer's end. Its unsettled deliveries go back to their queues, as when a
    // consumer's channel closes on RabbitMQ, unmarked (this process gave them back, none
    // was lost); settling them later fails with QY_ERR_STALE_DELIVERY.
    void cancel(const std::shared_ptr<MemorySubscription> &subscription);
    // No new deliveries for the subscription: take() returns no lease from now on, also
    // in the threads that wait in it. Its unsettled deliveries stay settleable.
    void stop(const std::shared_ptr<MemorySubscription> &subscription);
    // What one take() got: the next message, and the malformed ones it dead-lettered on
    // the way there (for the consumer to report once the lock is released).
    struct Taken {
        std::unique_ptr<MemoryLease> lease;
        std::vector<MalformedBody> malformed;
    };
    // The next message for the subscription; returns early, without one, after it
    // dead-lettered malformed ones. Nothing once deadline passes or the subscription is
    // stopped. Throws Error(QY_ERR_CLOSED) after close().
    Taken take(const std::shared_ptr<MemorySubscription> &subscription, Clock::time_point deadline);

    // Settles; each throws Error and leaves the lease unsettled on failure.
    void ack(MemoryLease &lease);
    void republish(MemoryLease &lease, Republish kind, const Envelope &next,
                   std::chrono::nanoseconds delay);
    void dead_letter(MemoryLease &lease, const DeadLetterCause &cause);
    // The same job to the back of its queue, carrying lost_runs.
    void requeue_lost(MemoryLease &lease, std::uint32_t lost_runs);
    // The lease stops holding a prefetch slot (Delivery::set_aside).
    void set_aside(MemoryLease &lease);
    // The lease's consumer was closed (or the backend): its job went back to its queue.
    bool revoked(const MemoryLease &lease) const;
    // For a delivery freed unsettled: back to its place in its queue, marked redelivered
    // (its holder may have been running it), as after a crash on RabbitMQ.
    void release(MemoryLease &lease);

    // As a passive declare: any queue, q.dead included (holds are no queues here).
    // Throws Error(QY_ERR_NOT_FOUND).
    QueueCounts counts(const std::string &queue) const;
    // Browsing (MemoryBrowser): the next message of queue, out of it until the browser
    // removes it or puts it back (with the others it took, marked redelivered).
    std::optional<QueuedMessage> take_browsed(const std::string &queue);
    void remove_browsed(const std::string &queue);
    void put_back_browsed(const std::string &queue, std::vector<QueuedMessage> messages);

    MemorySnapshot snapshot();
    void clear_history();
    bool wait_until_idle(std::chrono::milliseconds timeout);

    // The hold timer's loop, for one thread: moves held jobs into their queues when due,
    // until close().
    void run_hold_timer();
    // Wakes every waiter, drops the held jobs and puts unsettled deliveries back into
    // their queues. Idempotent.
    void close();

private:
    struct QueueEntry {
        MemoryQueue queue;
        std::optional<QueueConfig> config;  // set when declared as a work queue
    };

    QueueConfig config_of_locked(const std::string &queue) const QY_REQUIRES(mutex_);
    // Takes the subscription out of its queues' consumer counts, once.
    void uncount_locked(MemorySubscription &subscription) QY_REQUIRES(mutex_);
    bool route_locked(const std::string &queue, MemoryMessage message, Clock::time_point now)
        QY_REQUIRES(mutex_);
    Taken take_locked(const std::shared_ptr<MemorySubscription> &subscription) QY_REQUIRES(mutex_);
    MalformedBody dead_letter_malformed_locked(const MemorySubscription::Source &source,
                                               QueuedMessage queued, Clock::time_point now)
        QY_REQUIRES(mutex_);
    // Messages that outlived queue's TTL: dead-lettered where it has a dead-letter target,
    // else recorded as expired (RabbitMQ drops them).
    void record_expired_locked(const std::string &queue, std::vector<MemoryMessage> &expired)
        QY_REQUIRES(mutex_);
    // What RabbitMQ does when it dead-letters a message of queue itself (why: its
    // x-first-death-reason): to the queue's dead-letter target, without queuey's headers.
    void broker_dead_letter_locked(const MemoryQueue &queue, MemoryMessage message,
                                   std::string_view why) QY_REQUIRES(mutex_);
    // Puts a delivered message back in queue, or dead-letters it past its delivery limit.
    void requeue_locked(MemoryQueue &queue, QueuedMessage message, bool redelivered)
        QY_REQUIRES(mutex_);
    void expire_all_locked(Clock::time_point now) QY_REQUIRES(mutex_);
    void check_settleable_locked(const MemoryLease &lease) QY_REQUIRES(mutex_);
    void finish_locked(MemoryLease &lease, MemoryLease::State state) QY_REQUIRES(mutex_);
    void revoke_locked(MemoryLease &lease) QY_REQUIRES(mutex_);
    bool idle_locked() const QY_REQUIRES(mutex_);
    std::optional<Clock::time_point> next_expiry_locked() const QY_REQUIRES(mutex_);

    mutable Mutex mutex_;                   // guards the fields below
    std::condition_variable available_;     // consumers: a message arrived or a slot freed
    std::condition_variable timer_wake_;    // the hold timer: an earlier due time, or close
    std::condition_variable idle_changed_;  // wait_until_idle: something settled or expired
    bool closed_ QY_GUARDED_BY(mutex_) = false;
    std::map<std::string, QueueEntry, std::less<>> queues_ QY_GUARDED_BY(mutex_);
    HoldSchedule holds_ QY_GUARDED_BY(mutex_);
    std::set<MemoryLease *> leases_ QY_GUARDED_BY(mutex_);  // every unsettled delivery
    MemoryHistory history_ QY_GUARDED_BY(mutex_);
};

// now + timeout, saturating instead of overflowing for huge timeouts.
MemoryBroker::Clock::time_point deadline_after(std::chrono::milliseconds timeout);

}  // namespace queuey
