// When a consumer that the broker cancelled (its queue deleted, or the node holding a
// classic queue down) consumes again: a second after the cancel, then twice as long
// after each refusal, at most 15 s apart, until it succeeds or the consumer stops. A
// queue's node takes 10 to 20 s to come back; a try costs a declare and a consume, so a
// worker should not sit idle for long once its queue is back.
#pragma once

#include <algorithm>
#include <chrono>
#include <optional>

namespace queuey {

class ResubscribeSchedule {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds first_wait{1000};
    static constexpr std::chrono::milliseconds longest_wait{15000};

    // The broker cancelled the consumer at now.
    void cancelled(Clock::time_point now) { wait_at(now, first_wait); }
    // Consuming again failed at now.
    void refused(Clock::time_point now) { wait_at(now, std::min(wait_ * 2, longest_wait)); }
    // Consuming again succeeded, or the consumer stops: nothing more to try.
    void done() { due_.reset(); }

    bool pending() const { return due_.has_value(); }
    bool due(Clock::time_point now) const { return due_ && now >= *due_; }
    // When the next try is due, if one is.
    std::optional<Clock::time_point> due_at() const { return due_; }
    // How long until the next try, from the last cancel or refusal.
    std::chrono::milliseconds wait() const { return wait_; }

private:
    void wait_at(Clock::time_point now, std::chrono::milliseconds wait) {
        wait_ = wait;
        due_ = now + wait;
    }

    std::chrono::milliseconds wait_ = first_wait;
    std::optional<Clock::time_point> due_;
};

}  // namespace queuey
