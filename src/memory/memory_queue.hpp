// One queue of the in-process backend, ordered as a consumer of a RabbitMQ classic
// priority queue sees it: highest priority first, publication order within a priority.
// Not synchronized: the MemoryBroker's mutex guards every queue.
#pragma once

#include "../topology.hpp"
#include "memory_message.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace queuey {

struct QueuedMessage {
    MemoryMessage message;
    std::uint64_t sequence = 0;                     // publication order; a requeue keeps it
    std::chrono::steady_clock::time_point arrived;  // for the message TTL; a requeue keeps it
    bool redelivered = false;
    // How often the queue took it back unsettled: x-delivery-count on a quorum queue.
    std::uint32_t returns = 0;
};

class MemoryQueue {
public:
    using Clock = std::chrono::steady_clock;

    // The queue as declared: its priorities (x-max-priority) and message TTL
    // (x-message-ttl) come from the spec's arguments, as on the broker.
    explicit MemoryQueue(QueueSpec spec);

    const QueueSpec &spec() const { return spec_; }
    const std::string &name() const { return spec_.name; }

    // Appends a message that arrives at now.
    void push(MemoryMessage message, Clock::time_point now);
    // Puts a delivered message back at its place in publication order (ahead of every
    // message that arrived after it), marked redelivered or not, counting the return.
    // Returns it instead when that return takes it past the queue's delivery limit
    // (x-delivery-limit): the caller dead-letters it, as RabbitMQ does.
    std::optional<QueuedMessage> requeue(QueuedMessage message, bool redelivered);
    // The next message in delivery order, or nullopt. Expires first (see expire()).
    std::optional<QueuedMessage> pop(Clock::time_point now, std::vector<MemoryMessage> &expired);

    // Removes the messages that waited longer than the message TTL (whole milliseconds),
    // appending them to expired: RabbitMQ drops them, or dead-letters them where the
    // queue has a dead-letter target.
    void expire(Clock::time_point now, std::vector<MemoryMessage> &expired);
    // Where RabbitMQ dead-letters this queue's messages itself (x-dead-letter-exchange ""
    // and x-dead-letter-routing-key): the queue's name; nullopt: it drops them.
    const std::optional<std::string> &dead_letter_target() const { return dead_letter_target_; }
    // When the next message will expire, if the queue has a TTL and a message.
    std::optional<Clock::time_point> next_expiry() const;

    // The waiting envelopes in delivery order.
    std::vector<Envelope> pending() const;
    bool empty() const { return levels_.empty(); }

    // Waiting to be delivered.
    std::size_t ready() const;
    // Consumers subscribed and not stopped, as a passive declare counts them.
    std::uint32_t consumers() const { return consumers_; }
    void count_consumer(bool added) { added ? ++consumers_ : --consumers_; }

    // Delivered and not yet settled or requeued.
    std::size_t in_flight() const { return in_flight_; }
    void count_delivered() { ++in_flight_; }
    void count_settled() { --in_flight_; }

private:
    std::uint8_t level_of(std::uint8_t priority) const;
    Clock::time_point expiry_of(const QueuedMessage &message) const;

    QueueSpec spec_;
    std::optional<std::uint8_t> max_priority_;
    std::optional<std::chrono::milliseconds> message_ttl_;
    std::optional<std::int64_t> delivery_limit_;
    std::optional<std::string> dead_letter_target_;
    // Only non-empty levels, highest priority first; each in publication order.
    std::map<std::uint8_t, std::deque<QueuedMessage>, std::greater<>> levels_;
    std::uint64_t next_sequence_ = 0;
    std::size_t in_flight_ = 0;
    std::uint32_t consumers_ = 0;
};

}  // namespace queuey
