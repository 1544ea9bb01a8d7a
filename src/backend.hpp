// The seam between what users call (producer, consumer, worker) and where jobs live:
// RabbitMQ (broker/rabbit_backend) or the process itself (memory backend). Both keep
// the same promises, so the layers above never know which one they talk to.
#pragma once

#include "broker/publish_waiter.hpp"
#include "consumer_observer.hpp"
#include "dead_letter_cause.hpp"
#include "envelope.hpp"
#include "scheduled_fire.hpp"
#include "topology.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

// Deliveries set aside (Delivery::set_aside) stop holding prefetch slots until this many
// prefetches of their queue are unsettled: a bound on what a consumer holds.
inline constexpr std::size_t max_set_aside_windows = 16;

// The envelopes of one publish, borrowed for the call: a publish reads them and copies
// nothing it does not send (the C API's handles hold the envelopes it publishes).
using EnvelopeRefs = std::span<const Envelope *const>;

// Pointers to each of envelopes, for a publish of them all.
inline std::vector<const Envelope *> refs_to(const std::vector<Envelope> &envelopes) {
    std::vector<const Envelope *> refs;
    refs.reserve(envelopes.size());
    for (const Envelope &envelope : envelopes) refs.push_back(&envelope);
    return refs;
}

// One received job. Settle it exactly once; every settle throws Error on failure and
// then leaves the delivery unsettled (the job is not lost: it is redelivered).
class Delivery {
public:
    virtual ~Delivery() = default;

    virtual const Envelope &envelope() const = 0;
    // The configuration of the queue it was consumed from.
    virtual const QueueConfig &queue() const = 0;
    // The job was delivered before to a consumer that was lost without settling it: it
    // may have been running when its worker died. Redeliveries that this process caused
    // itself (jobs it held when its connection or channel was replaced) do not count.
    virtual bool redelivered() const = 0;
    // The redelivery follows a run that the broker's consumer timeout cut (RabbitMQ closed
    // the channel while the job ran here: docs/worker.md, long jobs); redelivered() too.
    virtual bool cut_by_consumer_timeout() const = 0;
    // How often the job was lost before this delivery: the count a requeue_lost() copy
    // carries (0 for any other delivery).
    virtual std::uint32_t lost_runs() const = 0;
    // How often the queue took the job back unsettled since it was published (RabbitMQ's
    // x-delivery-count on a quorum queue: every reject or nack with requeue, closed
    // channel and lost connection, of jobs that ran or not); 0 on a classic queue, which
    // counts nothing. Not a count of lost runs: the worker only keeps it below the
    // queue's delivery limit (worker/lost_runs.hpp).
    virtual std::uint32_t broker_returns() const = 0;
    // The schedule and fire time when the job is a schedule's fire as the scheduler
    // published it (its headers say so); nullptr for any other job.
    virtual const ScheduledFire *fire() const = 0;
    // The job went back to its queue without this delivery: its channel or connection
    // was replaced (RabbitMQ), or its consumer was closed. The job is delivered again;
    // settling this delivery fails (QY_ERR_STALE_DELIVERY) and publishes nothing.
    virtual bool stale() const = 0;
    // The broker blocks publishing (a memory or disk alarm): a settle that publishes
    // (every one but ack) would wait, unsent, until it unblocks or the publish times out.
    virtual bool publishing_blocked() const = 0;
    // The delivery is kept unsettled for a while (its settle failed, or must wait): it
    // stops holding one of its consumer's prefetch slots, so that other jobs keep coming,
    // as long as fewer than max_set_aside_windows prefetches of its queue are unsettled
    // (docs/worker.md, parked jobs). Never throws.
    virtual void set_aside() = 0;

    virtual void ack() = 0;
    // Publishes next into the hold queue for delay, then acks. next is what the retry
    // policy made of envelope(): next_attempt() for a retry, deferred() for a deferral.
    virtual void retry(const Envelope &next, std::chrono::nanoseconds delay) = 0;
    virtual void defer(const Envelope &next, std::chrono::nanoseconds delay) = 0;
    // Publishes the envelope to the dead-letter queue with the cause's headers, then acks.
    // (An implementation says `using Delivery::dead_letter;` to keep the overload below.)
    virtual void dead_letter(const DeadLetterCause &cause) = 0;
    void dead_letter(const std::string &reason) { dead_letter(DeadLetterCause{reason}); }
    // Publishes the same job again to the back of its queue, carrying lost_runs (the
    // lost-run count after this loss), then acks: how a redelivered job comes to run.
    virtual void requeue_lost(std::uint32_t lost_runs) = 0;
};

class Consumer {
public:
    virtual ~Consumer() = default;
    // The next valid delivery, or nullptr when the timeout passes first. Malformed
    // bodies never come out of here: they are copied to the dead-letter queue (or
    // dropped when that fails) and reported to the consumer's observer.
    virtual std::shared_ptr<Delivery> next(std::chrono::milliseconds timeout) = 0;
    // Stops the flow of new deliveries (basic.cancel on RabbitMQ, keeping the channels);
    // what was received already still comes out of next(), which then returns nullptr
    // at once. How a worker drains before it shuts down.
    virtual void stop() = 0;
};

// What a passive queue.declare tells of a queue. AMQP has no count of the messages
// delivered and not yet acknowledged: only the management plugin knows it.
struct QueueCounts {
    std::uint64_t ready = 0;  // messages waiting to be delivered
    std::uint32_t consumers = 0;
};

// One header of a browsed message: its value as JSON (a string quoted, an integer in
// decimal, a table as an object, an array as an array), and as text or integer when
// it is one.
struct BrowsedHeader {
    std::string name;
    std::string json;
    std::optional<std::string> text;
    std::optional<std::int64_t> integer;
};

// A message taken from a queue by a browser, still the queue's until it is removed.
struct BrowsedMessage {
    std::uint64_t tag = 0;  // for QueueBrowser::remove
    bool redelivered = false;
    std::string message_id;
    std::string type;
    std::uint8_t priority = 0;
    std::vector<BrowsedHeader> headers;
    std::string body;

    const BrowsedHeader *header(std::string_view name) const {
        for (const BrowsedHeader &h : headers)
            if (h.name == name) return &h;
        return nullptr;
    }
};

// Takes the messages of one queue one at a time, in delivery order, without consuming
// it (basic.get on a channel of its own on RabbitMQ). Every message it took and did not
// remove goes back to its place in the queue when the browser is closed or destroyed,
// marked redelivered. Not thread-safe: one thread browses.
class QueueBrowser {
public:
    virtual ~QueueBrowser() = default;
    // The next message, or nullopt when the queue has no more. Throws Error.
    virtual std::optional<BrowsedMessage> next() = 0;
    // Removes a message this browser took (basic.ack). Throws Error: the message then
    // stays in the queue.
    virtual void remove(const BrowsedMessage &message) = 0;
    // Puts back every message taken and not removed. Idempotent; never throws.
    virtual void close() = 0;
};

class Backend {
public:
    virtual ~Backend() = default;

    // Creates the work and dead-letter queues (idempotent) and remembers the config.
    virtual void declare(const QueueConfig &config) = 0;
    // The config this backend declared for a queue; throws Error(QY_ERR_INVALID_ARGUMENT,
    // "queue") when it declared none.
    virtual QueueConfig config_of(const std::string &queue) const = 0;
    // Publishes each envelope to its queue, or after delay through the queue's hold
    // queue; one outcome per envelope, in order. Success means the broker took it.
    virtual std::vector<PublishOutcome> publish(EnvelopeRefs envelopes,
                                                std::optional<std::chrono::nanoseconds> delay) = 0;
    // The same for one envelope, its outcome alone (a backend may spare the vector).
    virtual PublishOutcome publish_one(const Envelope &envelope,
                                       std::optional<std::chrono::nanoseconds> delay) {
        const Envelope *const one[] = {&envelope};
        return publish(one, delay).front();
    }
    // Consumes declared queues, each with its prefetch; one consumer yields the
    // deliveries of all of them. observer (may be null) hears of what the consumer
    // settles on its own; the consumer keeps it as long as it lives.
    virtual std::unique_ptr<Consumer> consume(const std::vector<std::string> &queues,
                                              std::shared_ptr<ConsumerObserver> observer) = 0;
    std::unique_ptr<Consumer> consume(const std::vector<std::string> &queues) {
        return consume(queues, nullptr);
    }
    std::unique_ptr<Consumer> consume(const std::string &queue) {
        return consume(std::vector<std::string>{queue});
    }
    // The counts of any queue (a work queue, a q.dead, a hold). Throws Error: a queue
    // that does not exist QY_ERR_NOT_FOUND.
    virtual QueueCounts counts(const std::string &queue_name) = 0;
    // A browser of any queue. Throws Error (QY_ERR_NOT_FOUND from next() on RabbitMQ,
    // here on the memory backend).
    virtual std::unique_ptr<QueueBrowser> browse(const std::string &queue_name) = 0;
    virtual void close() = 0;
};

}  // namespace queuey
