// What the stress test counts: each job's enqueue, runs and ends; each C API call's
// outcomes and longest time; and what the clients logged about the faults. Thread-safe:
// the producing, consuming and fault threads record into one tally each.
#pragma once

#include <queuey/queuey.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace queuey_stress {

using Clock = std::chrono::steady_clock;

// What the consumers do with job n, by n % 10: every settle the C API offers.
enum class Plan {
    ack,                     // 0-3: acked on its first run
    give_back_then_ack,      // 4: freed unsettled once (back to its queue), then acked
    retry_then_ack,          // 5: retried with a delay, then acked (attempt 2)
    defer_then_ack,          // 6: deferred with a delay, then acked (1 deferral)
    dead_letter,             // 7: dead-lettered on its first run
    retry_then_dead_letter,  // 8: retried with a delay, then dead-lettered
};
Plan plan_of(std::uint64_t n);
bool ends_dead(Plan plan);
// The reason a job of plan is dead-lettered with ("" for a plan that ends acked).
const char *dead_reason(Plan plan);

// The calls whose outcomes and times the table shows.
enum class Call {
    enqueue,
    consumer_new,
    consumer_next,
    ack,
    retry,
    defer,
    dead_letter,
    give_back,            // qy_delivery_free of an unsettled delivery, its consumer open
    free_after_consumer,  // qy_delivery_free of an unsettled delivery, its consumer freed
    consumer_free,
    ack_after_timeout,  // the ack of a delivery held past the broker's consumer timeout
    count_
};
const char *call_name(Call call);

class CallLog {
public:
    // message: the error's, kept for the first failures of each call.
    void record(Call call, qy_status status, Clock::duration took, const char *message = "");

    struct Stats {
        std::uint64_t calls = 0;
        std::uint64_t ok = 0;
        std::map<qy_status, std::uint64_t> failed;
        Clock::duration longest{};
        std::vector<std::string> first_failures;  // "QY_ERR_...: message", at most 3
    };
    Stats stats(Call call) const;

private:
    mutable std::mutex mutex_;
    std::array<Stats, static_cast<std::size_t>(Call::count_)> stats_;
};

// Runs fn(qy_error **) (a fallible C call), records its status, error and time; returns
// the status.
template <typename Fn>
qy_status timed(CallLog &log, Call call, Fn &&fn) {
    qy_error *err = nullptr;
    const auto start = Clock::now();
    const qy_status status = fn(&err);
    const auto took = Clock::now() - start;
    log.record(call, status, took, err != nullptr ? qy_error_message(err) : "");
    qy_error_free(err);
    return status;
}

// Runs fn() (a call that cannot fail) and records its time.
template <typename Fn>
void timed_void(CallLog &log, Call call, Fn &&fn) {
    const auto start = Clock::now();
    fn();
    log.record(call, QY_OK, Clock::now() - start);
}

// One job, by its number.
struct JobRecord {
    bool enqueue_tried = false;
    qy_status enqueue = QY_OK;         // the status of its enqueue, once tried
    std::uint32_t runs = 0;            // deliveries taken
    std::uint32_t runs_after_end = 0;  // deliveries taken once it had ended: duplicates
    std::uint32_t ends = 0;            // final settles that returned QY_OK
    bool dead = false;                 // it ended dead-lettered
    bool given_back = false;           // a consumer freed it unsettled on purpose
};

class JobTally {
public:
    explicit JobTally(std::size_t jobs) : jobs_(jobs) {}

    std::size_t jobs() const { return jobs_.size(); }
    void enqueued(std::uint64_t n, qy_status status);

    struct Run {
        bool known = false;       // n is one of the test's numbers
        bool given_back = false;  // it was given back before
        bool after_end = false;   // it had ended before: a duplicate run
    };
    Run ran(std::uint64_t n, bool redelivered);
    void gave_back(std::uint64_t n);
    void ended(std::uint64_t n, bool dead);

    struct Totals {
        std::uint64_t enqueue_calls = 0;
        std::uint64_t enqueued_ok = 0;
        std::uint64_t enqueue_failed = 0;
        std::uint64_t runs = 0;
        std::uint64_t redelivered = 0;
        std::uint64_t foreign_runs = 0;   // bodies without one of the test's numbers
        std::uint64_t ended_jobs = 0;     // distinct jobs with an end
        std::uint64_t ended_ok_jobs = 0;  // of those, enqueued OK
        std::uint64_t ends = 0;           // all ends, duplicates included
        std::uint64_t runs_after_end = 0;
    };
    Totals totals() const;
    // Waits until done(totals) holds (checked at every enqueue and end) or until; returns
    // whether it held.
    bool wait_until(const std::function<bool(const Totals &)> &done, Clock::time_point until);
    std::vector<JobRecord> records() const;

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<JobRecord> jobs_;
    Totals totals_;
};

// What the clients logged: connections lost and back, channels the broker closed.
class LogTally {
public:
    // A qy_log_fn; user_data is the LogTally.
    static void on_line(qy_log_level level, const char *message, void *user_data);

    struct Counts {
        std::uint64_t lost = 0;              // "connection lost: ..."
        std::uint64_t reconnected = 0;       // "reconnected to the broker after ..."
        std::uint64_t reconnect_failed = 0;  // "reconnect attempt N failed ..."
        std::uint64_t timeout_closes = 0;    // channels closed for the consumer timeout
        std::uint64_t other_closes = 0;      // channels the broker closed for another reason
        std::uint64_t other_warnings = 0;    // any other warning or error
    };
    Counts counts() const;
    bool wait_until(const std::function<bool(const Counts &)> &done, Clock::time_point until);
    // The first of the other warnings and errors, and the first channel closes.
    std::vector<std::string> notable() const;

private:
    void line(qy_log_level level, const std::string &message);

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    Counts counts_;
    std::vector<std::string> notable_;
};

}  // namespace queuey_stress
