// Settles that fail on demand, on either backend alike: with_settle_faults() wraps a
// Backend so that a failing settle throws QY_ERR_NOT_SENT before it reaches the backend
// underneath. The delivery stays unsettled there, as when a successor could not be
// published (a memory alarm, a lost connection); block_publishing() makes them say what
// a delivery says during a memory alarm. Everything else goes straight through.
#pragma once

#include "backend.hpp"

#include <chrono>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace queuey_wt {

// One settle tried through the wrapper.
struct SettleTry {
    std::string job_id;
    std::chrono::steady_clock::time_point at;
    bool failed = false;
};

// Thread-safe.
class SettleFaults {
public:
    // The next n settles fail (added to those still to fail).
    void fail_next(std::size_t n);
    // While on, every settle fails.
    void fail_all(bool on);
    // While on, the deliveries say that the broker blocks publishing.
    void block_publishing(bool on);
    bool publishing_blocked() const;
    // The settles of one job tried so far, oldest first.
    std::vector<SettleTry> tries_of(const std::string &job_id) const;

    // For the wrapped deliveries: records a try, and throws when it is to fail.
    void check(const std::string &job_id);

private:
    mutable std::mutex mutex_;  // guards the fields below
    std::size_t fail_next_ = 0;
    bool fail_all_ = false;
    bool publishing_blocked_ = false;
    std::vector<SettleTry> tries_;
};

// inner, whose deliveries settle only when faults lets them.
std::shared_ptr<queuey::Backend> with_settle_faults(std::shared_ptr<queuey::Backend> inner,
                                                    std::shared_ptr<SettleFaults> faults);

}  // namespace queuey_wt
