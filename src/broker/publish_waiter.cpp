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
        finished_.set(1);
    }
    // Whoever calls complete() holds a shared_ptr to this waiter, so it outlives the wait.
    WakeWord::wake(finished_.address());
}

std::vector<PublishOutcome> PublishWaiter::outcomes_or(const PublishOutcome &pending) {
    std::lock_guard lock(mutex_);
    std::vector<PublishOutcome> outcomes = outcomes_;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
        if (!completed_[i]) outcomes[i] = pending;
    return outcomes;
}

bool PublishWaiter::wait_until(std::chrono::steady_clock::time_point deadline) {
    // The outcomes were written under the mutex before the word was set: its acquire
    // load makes them visible here.
    return finished_.wait_while(0, deadline) == 1;
}

bool PublishWaiter::finished() { return finished_.load() == 1; }

}  // namespace queuey
