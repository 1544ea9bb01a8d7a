#include "hold_index_entries.hpp"

#include "../hold_index.hpp"

namespace queuey {
namespace {

// Past this many holds, take_due() drops those whose entry is due anyway.
constexpr std::size_t holds_before_pruning = 256;

}  // namespace

bool HoldIndexEntries::take_due(const QueueSpec &hold, Clock::time_point now) {
    const HoldIndexTimes times = hold_index_times(hold);
    std::lock_guard lock(mutex_);
    const auto found = next_due_.find(hold.name);
    if (found != next_due_.end() && now < found->second) return false;
    if (next_due_.size() >= holds_before_pruning)
        std::erase_if(next_due_, [&](const auto &entry) { return entry.second <= now; });
    next_due_.insert_or_assign(hold.name, now + times.refresh);
    return true;
}

void HoldIndexEntries::forget_all() {
    std::lock_guard lock(mutex_);
    next_due_.clear();
}

}  // namespace queuey
