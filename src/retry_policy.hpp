// What happens after a job fails with a retryable error (behaviour.md section 5).
#pragma once

#include "backoff.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>

namespace queuey {

struct RetryPolicy {
    enum class Backoff { none, fixed, exponential };

    // Counts the first attempt: 1 means no retries (0 counts as 1).
    std::uint32_t max_attempts = 1;
    Backoff backoff = Backoff::none;
    std::chrono::nanoseconds fixed_delay{0};
    ExponentialBackoff exponential{};

    // After attempt n failed: the wait before the next attempt, or nothing when the job
    // gives up (n >= max_attempts). Never throws, whatever the fields hold.
    std::optional<std::chrono::nanoseconds> retry_after(std::uint32_t attempt,
                                                        std::mt19937_64 &random) const;
};

// The policies that may apply to one failed job, highest precedence first; each may be
// absent. The first one present wins, else the default.
struct RetryPolicyChoices {
    const RetryPolicy *chosen_by_handler = nullptr;  // for this job, at run time
    const RetryPolicy *job_type_override = nullptr;  // set on the worker
    const RetryPolicy *queue_override = nullptr;     // set on the worker
    const RetryPolicy *job_type_policy = nullptr;    // registered with the handler
    const RetryPolicy *queue_policy = nullptr;       // part of the queue's configuration
};

const RetryPolicy &effective_retry_policy(const RetryPolicyChoices &choices,
                                          const RetryPolicy &default_policy);

}  // namespace queuey
