// What a handler sees of a job, and what it answers.
#pragma once

#include "../envelope.hpp"
#include "../retry_policy.hpp"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace queuey {

// The outcome of one run of a handler (behaviour.md section 6).
struct JobOutcome {
    enum class Kind { success, retryable_error, fatal_error, deferral, undecodable };

    Kind kind = Kind::success;
    std::string message;  // the error, the deferral's reason, or the decode problem
    std::chrono::nanoseconds defer_delay{0};
    std::optional<RetryPolicy> retry_policy;  // chosen for this job at run time
    // What the handler threw (exception_header_value()), for the x-exception header of a
    // dead letter that this run decides; empty when it noted none. Never carried to a
    // later attempt.
    std::string exception{};

    static JobOutcome success() { return {}; }
    static JobOutcome retryable(std::string error, std::optional<RetryPolicy> policy = {}) {
        return {Kind::retryable_error, std::move(error), {}, std::move(policy)};
    }
    static JobOutcome fatal(std::string error) {
        return {Kind::fatal_error, std::move(error), {}, {}};
    }
    static JobOutcome deferred(std::chrono::nanoseconds delay, std::string reason) {
        return {Kind::deferral, std::move(reason), delay, {}};
    }
    static JobOutcome undecodable(std::string detail) {
        return {Kind::undecodable, std::move(detail), {}, {}};
    }
};

// The job a handler runs. Valid during the handler call only.
class Job {
public:
    Job(const Envelope &envelope, const std::atomic<bool> &cancelled)
        : envelope_(envelope), cancelled_(cancelled) {}

    const Envelope &envelope() const { return envelope_; }
    // Milliseconds since the job was first enqueued.
    std::uint64_t age_ms() const { return envelope_.age_ms(unix_now_ms()); }
    // Set when the job timed out: it was settled as a retryable error already, and what
    // the handler returns is ignored. A long handler should check it and return early.
    bool cancelled() const { return cancelled_.load(); }

private:
    const Envelope &envelope_;
    const std::atomic<bool> &cancelled_;
};

using Handler = std::function<JobOutcome(const Job &)>;

}  // namespace queuey
