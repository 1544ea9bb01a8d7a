// Deliveries handed from the I/O thread to the thread that consumes them. Bounded in
// practice by the consumer's prefetch: the broker sends no more unacknowledged ones.
#pragma once

#include "../error.hpp"
#include "../mutex.hpp"
#include "../scheduled_fire.hpp"
#include "message_body.hpp"
#include "wake_word.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace queuey {

struct IncomingDelivery {
    std::uint64_t delivery_tag = 0;
    std::uint16_t channel = 0;     // of the subscription it came on
    std::uint64_t generation = 0;  // of that channel; see Subscription
    bool redelivered = false;
    std::string message_id;             // the job id, for a body that is an envelope
    std::uint32_t lost_runs = 0;        // the x-lost-runs header; 0 when absent or not a count
    std::uint32_t returns = 0;          // the x-delivery-count header (quorum queues); 0 likewise
    std::optional<ScheduledFire> fire;  // both schedule headers, when texts
    MessageBody body;
};

class DeliveryQueue {
public:
    // Hands the delivery to a consumer waiting in pop(), or keeps it for the next pop().
    // The consumer handed one is woken by wake_handed(): the reader calls it once its
    // turn's frames are read, so that a consumer woken on its core does not preempt the
    // reader at each delivery. Until then that consumer wakes at its deadline at most.
    void push(IncomingDelivery delivery);
    void wake_handed();
    // From now on pop() throws error (the consumer cannot go on: closed, gave up, cancelled).
    void fail(const Error &error);
    // The next delivery, or nothing when the deadline passes first or when nudged: a
    // consumer that waits is asked to read the socket itself (RabbitConnection).
    std::optional<IncomingDelivery> pop(std::chrono::steady_clock::time_point deadline);
    // Makes one consumer waiting in pop() return without a delivery; false when none
    // waits (a consumer waits only while no delivery does).
    bool nudge();
    // A consumer waits in pop().
    bool wants_nudge();

    // A thread taking deliveries (RabbitConnection::next_delivery) for its lifetime.
    // Once two take at the same time the queue is shared, for good.
    class Taking {
    public:
        explicit Taking(DeliveryQueue &queue);
        ~Taking();
        Taking(const Taking &) = delete;
        Taking &operator=(const Taking &) = delete;

    private:
        DeliveryQueue &queue_;
    };
    bool shared() const { return shared_.load(); }
    // Nothing waits to be taken.
    bool empty();
    // Removes the deliveries of channel that wait to be taken (a channel just closed: they
    // are stale) and returns their message ids: the jobs of that channel that no consumer
    // started. The queue may hold other channels' deliveries too (a consumer of several
    // queues): they stay.
    std::unordered_set<std::string> drop_waiting(std::uint16_t channel);

private:
    // A thread asleep in pop(), on its own stack. Whoever ends its wait takes it off
    // waiters_ and sets its word: a push hands it the delivery, so that it returns
    // without taking the mutex again, and wakes it (a push, in wake_handed).
    struct Waiter {
        enum : std::uint32_t { asleep, handed, failed, nudged };
        WakeWord word{asleep};
        std::optional<IncomingDelivery> delivery;
    };
    // Ends the wait of the thread that waited last (its cache is the warmest).
    Waiter *take_waiter() QY_REQUIRES(mutex_);

    Mutex mutex_;
    std::deque<IncomingDelivery> deliveries_ QY_GUARDED_BY(mutex_);  // only while no thread waits
    std::vector<Waiter *> waiters_ QY_GUARDED_BY(mutex_);            // only while no delivery waits
    std::vector<WakeWord::Address> handed_
        QY_GUARDED_BY(mutex_);  // handed a delivery, not woken yet
    std::optional<Error> failure_ QY_GUARDED_BY(mutex_);
    std::atomic<int> takers_{0};
    std::atomic<bool> shared_{false};
};

}  // namespace queuey
