#include "publish_waiter.hpp"

#include <utility>

namespace queuey {

void PublishWaiter::complete(std::size_t index, PublishOutcome outcome) {
    {
        std::lock_guard lock(mutex_);
        // Each index completes once: a repeated or out-of-range call must not release the
        // waiter early.
        if (index >= outcomes_.size() || completed_[index]) return;
        completed_[index] = true;
        outcomes_[index] = std::move(outcome);
        if (--pending_ != 0) return;
    }
    // Notified unlocked, so that the waiter does not wake into a held mutex. Whoever
    // calls complete() holds a shared_ptr to this waiter, so it outlives the wait.
    done_.notify_all();
}

std::vector<PublishOutcome> PublishWaiter::outcomes_or(const PublishOutcome &pending) {
    std::lock_guard lock(mutex_);
    std::vector<PublishOutcome> outcomes = outcomes_;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
        if (!completed_[i]) outcomes[i] = pending;
    return outcomes;
}

bool PublishWaiter::wait_until(std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    // The predicate form re-checks after every (possibly spurious) wakeup.
    return done_.wait_until(lock, deadline, [this] { return pending_ == 0; });
}

bool PublishWaiter::finished() {
    std::lock_guard lock(mutex_);
    return pending_ == 0;
}

}  // namespace queuey
