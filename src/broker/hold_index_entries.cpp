#include "hold_index_entries.hpp"

namespace queuey {
namespace {

// Past this many holds, take_due() drops those whose entry is due anyway.
constexpr std::size_t holds_before_pruning = 256;

}  // namespace

bool HoldIndexEntries::take_due(const std::string &hold, Clock::duration refresh,
                                Clock::time_point now) {
    const auto found = next_due_.find(hold);
    if (found != next_due_.end() && now < found->second) return false;
    if (next_due_.size() >= holds_before_pruning)
        std::erase_if(next_due_, [&](const auto &entry) { return entry.second <= now; });
    next_due_.insert_or_assign(hold, now + refresh);
    return true;
}

}  // namespace queuey
