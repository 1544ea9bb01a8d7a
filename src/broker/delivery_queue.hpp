// Deliveries handed from the I/O thread to the thread that consumes them. Bounded in
// practice by the consumer's prefetch: the broker sends no more unacknowledged ones.
#pragma once

#include "../error.hpp"
#include "message_body.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

namespace queuey {

struct IncomingDelivery {
    std::uint64_t delivery_tag = 0;
    std::uint16_t channel = 0;     // of the subscription it came on
    std::uint64_t generation = 0;  // of that channel; see Subscription
    bool redelivered = false;
    std::string message_id;       // the job id, for a body that is an envelope
    std::uint32_t lost_runs = 0;  // the x-lost-runs header; 0 when absent or not a count
    std::uint32_t returns = 0;    // the x-delivery-count header (quorum queues); 0 likewise
    MessageBody body;
};

class DeliveryQueue {
public:
    void push(IncomingDelivery delivery);
    // From now on pop() throws error (the consumer cannot go on: closed, gave up, cancelled).
    void fail(const Error &error);
    // The next delivery, or nothing when the deadline passes first or when nudged: a
    // consumer that waits is asked to read the socket itself (RabbitConnection).
    std::optional<IncomingDelivery> pop(std::chrono::steady_clock::time_point deadline);
    // Makes a consumer waiting in pop() return, if more wait than there are deliveries
    // to take; false when none would be left without one.
    bool nudge();
    // More consumers wait in pop() than there are deliveries to take.
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

private:
    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<IncomingDelivery> deliveries_;
    std::optional<Error> failure_;
    std::size_t waiters_ = 0;  // threads in pop()
    bool nudged_ = false;
    std::atomic<int> takers_{0};
    std::atomic<bool> shared_{false};
};

}  // namespace queuey
