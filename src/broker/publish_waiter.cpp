#include "publish_waiter.hpp"

#include <utility>

namespace queuey {

void PublishWaiter::reset(std::size_t publishes) {
    outcomes_.assign(publishes, PublishOutcome{});
    completed_.assign(publishes, false);
    pending_ = publishes;
    state_.set(publishes == 0 ? all_in : outcomes_pending);
}

void PublishWaiter::complete(std::size_t index, PublishOutcome outcome) {
    bool asleep = false;
    {
        MutexLock lock(mutex_);
        // Each index completes once: a repeated or out-of-range call must not release the
        // waiter early.
        if (index >= outcomes_.size() || completed_[index]) return;
        completed_[index] = true;
        outcomes_[index] = std::move(outcome);
        if (--pending_ != 0) return;
        asleep = state_.exchange(all_in) == caller_may_sleep;
    }
    // Whoever calls complete() holds a shared_ptr to this waiter, so it outlives the wait.
    if (asleep) WakeWord::wake(state_.address());
}

std::vector<PublishOutcome> PublishWaiter::outcomes_or(const PublishOutcome &pending) {
    MutexLock lock(mutex_);
    std::vector<PublishOutcome> outcomes = outcomes_;
    for (std::size_t i = 0; i < outcomes.size(); ++i)
        if (!completed_[i]) outcomes[i] = pending;
    return outcomes;
}

bool PublishWaiter::wait_until(std::chrono::steady_clock::time_point deadline) {
    // The outcomes were written under the mutex before the word was set: its acquire
    // load makes them visible here. Marked first, so that the last complete() wakes it.
    if (state_.load() == all_in) return true;
    state_.compare_exchange(outcomes_pending, caller_may_sleep);  // or a wait before marked it
    return state_.wait_while(caller_may_sleep, deadline) == all_in;
}

std::vector<PublishOutcome> PublishWaiter::take_outcomes() {
    MutexLock lock(mutex_);
    std::vector<PublishOutcome> outcomes;
    outcomes.swap(outcomes_);
    return outcomes;
}

PublishOutcome PublishWaiter::take_outcome(std::size_t index) {
    MutexLock lock(mutex_);
    return std::move(outcomes_.at(index));
}

bool PublishWaiter::finished() { return state_.load() == all_in; }

}  // namespace queuey
