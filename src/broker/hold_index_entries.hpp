// When this connection next writes an entry for each hold queue into its work queue's
// hold index (hold_index.hpp): at a declare of the hold, at most once per refresh. Used
// by the session's holder only (rabbit_connection.hpp), which writes the declares.
#pragma once

#include <chrono>
#include <string>
#include <unordered_map>

namespace queuey {

class HoldIndexEntries {
public:
    using Clock = std::chrono::steady_clock;

    // Whether a declare of the hold named hold written now writes an entry; if so, the
    // next is due refresh later (hold_index_times).
    bool take_due(const std::string &hold, Clock::duration refresh, Clock::time_point now);
    // The connection was lost: a broker that restarted may have lost its index.
    void forget_all() { next_due_.clear(); }

private:
    std::unordered_map<std::string, Clock::time_point> next_due_;
};

}  // namespace queuey
