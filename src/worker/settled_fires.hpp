// The schedule fires (docs/scheduling.md) whose jobs a worker settled lately, by job id (a
// fire's id is derived from its schedule and time). A second copy of a fire, which two
// leaders on either side of a network partition or a wall clock stepped back can send, is
// then dropped instead of run again. One worker's memory: a copy that another worker
// process receives is not seen here. Thread-safe.
#pragma once

#include "../mutex.hpp"

#include <chrono>
#include <cstddef>
#include <deque>
#include <string>
#include <unordered_set>
#include <utility>

namespace queuey {

class SettledFires {
public:
    using Clock = std::chrono::steady_clock;

    // Ids are kept for window after they were added, and at most capacity of them (the
    // oldest go first).
    SettledFires(Clock::duration window, std::size_t capacity)
        : window_(window), capacity_(capacity) {}

    bool contains(const std::string &job_id, Clock::time_point now);
    // Adding an id kept already changes nothing: it expires as first added.
    void add(const std::string &job_id, Clock::time_point now);

private:
    void expire(Clock::time_point now);  // mutex_ held

    const Clock::duration window_;
    const std::size_t capacity_;
    Mutex mutex_;
    std::deque<std::pair<Clock::time_point, std::string>> added_;  // oldest first
    std::unordered_set<std::string> ids_;
};

}  // namespace queuey
