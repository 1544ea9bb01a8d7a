#include "job_metrics.hpp"

#include <algorithm>

namespace queuey {

const char *job_metric_outcome_name(JobMetricOutcome outcome) {
    switch (outcome) {
        case JobMetricOutcome::succeeded: return "succeeded";
        case JobMetricOutcome::retried: return "retried";
        case JobMetricOutcome::deferred: return "deferred";
        case JobMetricOutcome::dead_lettered: return "dead_lettered";
        case JobMetricOutcome::timed_out: return "timed_out";
    }
    return "unknown";
}

JobSeries &JobMetrics::series(std::string_view queue, std::string_view job_type) {
    if (last_ != nullptr && last_->job_type == job_type && last_->queue == queue) return *last_;
    auto by_queue = series_.find(queue);
    if (by_queue == series_.end()) by_queue = series_.try_emplace(std::string(queue)).first;
    auto &by_type = by_queue->second;
    auto found = by_type.find(job_type);
    if (found == by_type.end()) {
        JobSeries made;
        made.queue = queue;
        made.job_type = job_type;
        found = by_type.try_emplace(std::string(job_type), std::move(made)).first;
    }
    last_ = &found->second;
    return *last_;
}

void JobMetrics::add_series(std::string_view queue, std::string_view job_type) {
    MutexLock lock(mutex_);
    series(queue, job_type);
}

void JobMetrics::count(std::string_view queue, std::string_view job_type,
                       JobMetricOutcome outcome) {
    MutexLock lock(mutex_);
    ++series(queue, job_type).outcomes[static_cast<std::size_t>(outcome)];
}

void JobMetrics::observe(std::string_view queue, std::string_view job_type,
                         std::chrono::steady_clock::duration duration) {
    const double seconds = std::chrono::duration<double>(duration).count();
    // The first bucket whose upper bound is at least seconds; past the last: +Inf.
    const auto bucket = static_cast<std::size_t>(
        std::lower_bound(job_duration_bounds.begin(), job_duration_bounds.end(), seconds) -
        job_duration_bounds.begin());
    MutexLock lock(mutex_);
    JobSeries &target = series(queue, job_type);
    ++target.buckets[bucket];
    target.duration_sum_seconds += seconds;
}

std::vector<JobSeries> JobMetrics::snapshot() const {
    MutexLock lock(mutex_);
    std::vector<JobSeries> copy;
    for (const auto &by_queue : series_)
        for (const auto &by_type : by_queue.second) copy.push_back(by_type.second);
    return copy;
}

}  // namespace queuey
