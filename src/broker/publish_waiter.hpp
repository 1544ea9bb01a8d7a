// The caller's side of one or more publishes handed to the I/O thread: it waits here
// while the I/O thread fills in each publish's outcome as confirms and returns arrive.
// The caller sleeps on a wake word, not a condition variable: it wakes without taking a
// mutex back (which would cost the confirm's reader a futex call per publish), and a
// caller that reads its own confirms is never woken (no futex call at all).
#pragma once

#include <queuey/queuey.h>

#include "../mutex.hpp"
#include "wake_word.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace queuey {

struct PublishOutcome {
    qy_status status = QY_ERR_INTERNAL;  // until completed
    std::string message;                 // empty on success
};

class PublishWaiter {
public:
    explicit PublishWaiter(std::size_t publishes) : state_(all_in) { reset(publishes); }

    // Waits for publishes new ones. Only while nobody else holds the waiter (so without
    // the mutex): a batch reused by its thread (PublishBatch::reusable) keeps its vectors'
    // capacity.
    void reset(std::size_t publishes) QY_NO_THREAD_SAFETY_ANALYSIS;

    // Called once per index by the I/O thread.
    void complete(std::size_t index, PublishOutcome outcome);
    // True when every publish has its outcome before the deadline.
    bool wait_until(std::chrono::steady_clock::time_point deadline);
    // Every publish has its outcome; does not wait.
    bool finished();
    // Valid after wait_until returned true: the word's acquire load ordered the outcomes'
    // writes before it, as the mutex would.
    const std::vector<PublishOutcome> &outcomes() const QY_NO_THREAD_SAFETY_ANALYSIS {
        return outcomes_;
    }
    // The same, moved out for the caller (once, after wait_until returned true): a copy
    // would be an allocation per publish. A stray complete() after it finds no index.
    std::vector<PublishOutcome> take_outcomes();
    // One outcome moved out (after wait_until returned true), the vector left as it is:
    // a batch reused by its thread keeps the vector's capacity for its next publish.
    PublishOutcome take_outcome(std::size_t index);
    // The outcomes so far, with `pending` for those not completed yet.
    std::vector<PublishOutcome> outcomes_or(const PublishOutcome &pending);

private:
    Mutex mutex_;
    // outcomes_pending, then caller_may_sleep once the caller may sleep on it, all_in
    // once every publish has its outcome.
    enum : std::uint32_t { outcomes_pending = 0, all_in = 1, caller_may_sleep = 2 };
    WakeWord state_;
    std::vector<PublishOutcome> outcomes_ QY_GUARDED_BY(mutex_);
    std::vector<bool> completed_ QY_GUARDED_BY(mutex_);
    std::size_t pending_ QY_GUARDED_BY(mutex_);
};

}  // namespace queuey
