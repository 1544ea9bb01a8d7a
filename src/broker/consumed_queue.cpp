#include "consumed_queue.hpp"

#include <algorithm>

namespace queuey {

std::shared_ptr<const QueueSpec> ConsumedQueue::hold_for(std::chrono::nanoseconds delay) const {
    const std::uint64_t ttl_ms = hold_ttl_ms(delay, config_.delay_granularity);
    const auto kept = [&]() QY_REQUIRES(mutex_) {
        return std::find_if(holds_.begin(), holds_.end(),
                            [&](const auto &hold) { return hold.first == ttl_ms; });
    };
    {
        MutexLock lock(mutex_);
        if (const auto found = kept(); found != holds_.end()) return found->second;
    }
    // Built outside the lock; a thread that built the same one meanwhile wins.
    auto spec = std::make_shared<const QueueSpec>(hold_queue_spec(config_, ttl_ms));
    MutexLock lock(mutex_);
    if (const auto found = kept(); found != holds_.end()) return found->second;
    if (holds_.size() < max_kept_holds) holds_.emplace_back(ttl_ms, spec);
    return spec;
}

}  // namespace queuey
