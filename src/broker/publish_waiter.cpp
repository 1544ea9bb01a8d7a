#include "publish_waiter.hpp"

#include <utility>

namespace queuey {

void PublishWaiter::complete(std::size_t index, PublishOutcome outcome) {
    std::lock_guard lock(mutex_);
    // The tracker completes each index once; out-of-range or extra calls must not make
    // the count wrap and release the waiter early.
    if (index >= outcomes_.size() || pending_ == 0) return;
    outcomes_[index] = std::move(outcome);
    if (--pending_ == 0) done_.notify_all();
}

bool PublishWaiter::wait_until(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    // The predicate form re-checks after every (possibly spurious) wakeup.
    return done_.wait_until(lock, deadline, [this] { return pending_ == 0; });
}

}  // namespace queuey
