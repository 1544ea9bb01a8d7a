// What a worker's jobs did, per queue and job type, for the Prometheus metrics
// (docs/metrics.md): how many finished with each outcome, and how long their handlers ran
// (a histogram with fixed buckets). Worker threads record, any thread takes a snapshot.
#pragma once

#include "../mutex.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

// How a run of a job ended, as queuey_jobs_total counts it: each run once.
enum class JobMetricOutcome : std::size_t {
    succeeded,
    retried,
    deferred,
    dead_lettered,
    timed_out,  // ran past the job timeout, whatever its settle then was
};
inline constexpr std::size_t job_metric_outcome_count = 5;

// "succeeded", "retried", ...: the value of the outcome label.
const char *job_metric_outcome_name(JobMetricOutcome outcome);

// The upper bounds of the handler-duration buckets, in seconds; +Inf comes after them.
inline constexpr std::array<double, 14> job_duration_bounds{
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};

// One (queue, job type) series, copied out.
struct JobSeries {
    std::string queue;
    std::string job_type;
    std::array<std::uint64_t, job_metric_outcome_count> outcomes{};  // by JobMetricOutcome
    // Handler runs per bucket, not cumulative: [i] counts the runs in
    // (bounds[i-1], bounds[i]], the last one those above the last bound.
    std::array<std::uint64_t, job_duration_bounds.size() + 1> buckets{};
    double duration_sum_seconds = 0;
};

// Thread-safe. Recording into a series that exists allocates nothing: one lock, a
// comparison with the last series recorded (a worker's jobs mostly share one) or two map
// lookups by string_view, a few increments.
class JobMetrics {
public:
    // Makes the series of (queue, job_type) exist, at zero, so that it shows before its
    // first job.
    void add_series(std::string_view queue, std::string_view job_type);
    // One run ended with outcome.
    void count(std::string_view queue, std::string_view job_type, JobMetricOutcome outcome);
    // One handler run took duration.
    void observe(std::string_view queue, std::string_view job_type,
                 std::chrono::steady_clock::duration duration);
    // Every series, by queue then job type.
    std::vector<JobSeries> snapshot() const;

private:
    // The series of (queue, job_type), made when missing. Call with mutex_ held.
    JobSeries &series(std::string_view queue, std::string_view job_type) QY_REQUIRES(mutex_);

    mutable Mutex mutex_;
    // By queue, then by job type.
    std::map<std::string, std::map<std::string, JobSeries, std::less<>>, std::less<>> series_
        QY_GUARDED_BY(mutex_);
    JobSeries *last_ QY_GUARDED_BY(mutex_) =
        nullptr;  // the series series() returned last: map nodes stay put
};

}  // namespace queuey
