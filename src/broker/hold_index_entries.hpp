// When this connection next writes an entry for each hold queue into its work queue's
// hold index (hold_index.hpp): at a declare of the hold, at most once per refresh. A
// declare runs wherever the session is (the I/O thread, or a caller that borrowed it);
// hence the lock.
#pragma once

#include "../topology.hpp"

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace queuey {

class HoldIndexEntries {
public:
    using Clock = std::chrono::steady_clock;

    // Whether a declare of hold written now writes an entry; if so, the next is due a
    // refresh later.
    bool take_due(const QueueSpec &hold, Clock::time_point now);
    // The connection was lost: a broker that restarted may have lost its index.
    void forget_all();

private:
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Clock::time_point> next_due_;
};

}  // namespace queuey
