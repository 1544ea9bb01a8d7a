// The jobs of the in-process backend that wait for a delay (a delayed enqueue, a retry
// backoff, a deferral): a min-heap by due time, first in first out among equal times.
// Not synchronized: the MemoryBroker's mutex guards it, and its timer thread drains it.
#pragma once

#include "memory_message.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace queuey {

struct HeldMessage {
    std::chrono::steady_clock::time_point due;
    std::uint64_t sequence = 0;  // orders equal due times
    std::string queue;           // where it goes when due
    MemoryMessage message;
};

class HoldSchedule {
public:
    using Clock = std::chrono::steady_clock;

    void add(Clock::time_point due, std::string queue, MemoryMessage message);
    // The earliest due time, if anything is held.
    std::optional<Clock::time_point> next_due() const;
    // Removes and returns what is due at now, in due order.
    std::vector<HeldMessage> take_due(Clock::time_point now);
    // Everything held, in due order.
    std::vector<HeldMessage> in_due_order() const;

    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    void clear() { heap_.clear(); }

private:
    std::vector<HeldMessage> heap_;  // std::push_heap order with later_than: earliest on top
    std::uint64_t next_sequence_ = 0;
};

}  // namespace queuey
