#include "tally.hpp"

#include <algorithm>

namespace queuey_stress {

Plan plan_of(std::uint64_t n) {
    switch (n % 10) {
        case 4: return Plan::give_back_then_ack;
        case 5: return Plan::retry_then_ack;
        case 6: return Plan::defer_then_ack;
        case 7: return Plan::dead_letter;
        case 8: return Plan::retry_then_dead_letter;
        default: return Plan::ack;
    }
}

bool ends_dead(Plan plan) {
    return plan == Plan::dead_letter || plan == Plan::retry_then_dead_letter;
}

const char *dead_reason(Plan plan) {
    switch (plan) {
        case Plan::dead_letter: return "stress: dead on arrival";
        case Plan::retry_then_dead_letter: return "stress: gave up after a retry";
        default: return "";
    }
}

const char *call_name(Call call) {
    switch (call) {
        case Call::enqueue: return "qy_producer_enqueue";
        case Call::consumer_new: return "qy_consumer_new";
        case Call::consumer_next: return "qy_consumer_next";
        case Call::ack: return "qy_delivery_ack";
        case Call::retry: return "qy_delivery_retry";
        case Call::defer: return "qy_delivery_defer";
        case Call::dead_letter: return "qy_delivery_dead_letter";
        case Call::give_back: return "qy_delivery_free (unsettled)";
        case Call::free_after_consumer: return "qy_delivery_free (after consumer)";
        case Call::consumer_free: return "qy_consumer_free";
        case Call::ack_after_timeout: return "qy_delivery_ack (held past timeout)";
        case Call::count_: break;
    }
    return "?";
}

void CallLog::record(Call call, qy_status status, Clock::duration took, const char *message) {
    std::lock_guard lock(mutex_);
    Stats &stats = stats_[static_cast<std::size_t>(call)];
    stats.calls++;
    if (status == QY_OK) {
        stats.ok++;
    } else {
        stats.failed[status]++;
        if (stats.first_failures.size() < 3)
            stats.first_failures.push_back(std::string(qy_status_name(status)) + ": " + message);
    }
    stats.longest = std::max(stats.longest, took);
}

CallLog::Stats CallLog::stats(Call call) const {
    std::lock_guard lock(mutex_);
    return stats_[static_cast<std::size_t>(call)];
}

void JobTally::enqueued(std::uint64_t n, qy_status status) {
    {
        std::lock_guard lock(mutex_);
        JobRecord &job = jobs_.at(n);
        job.enqueue_tried = true;
        job.enqueue = status;
        totals_.enqueue_calls++;
        if (status == QY_OK) {
            totals_.enqueued_ok++;
            if (job.ends > 0) totals_.ended_ok_jobs++;  // it ran before its confirm came
        } else {
            totals_.enqueue_failed++;
        }
    }
    changed_.notify_all();
}

JobTally::Run JobTally::ran(std::uint64_t n, bool redelivered) {
    std::lock_guard lock(mutex_);
    totals_.runs++;
    if (redelivered) totals_.redelivered++;
    if (n >= jobs_.size()) {
        totals_.foreign_runs++;
        return {};
    }
    JobRecord &job = jobs_[n];
    job.runs++;
    const bool after_end = job.ends > 0;
    if (after_end) {
        job.runs_after_end++;
        totals_.runs_after_end++;
    }
    return {true, job.given_back, after_end};
}

void JobTally::gave_back(std::uint64_t n) {
    std::lock_guard lock(mutex_);
    jobs_.at(n).given_back = true;
}

void JobTally::ended(std::uint64_t n, bool dead) {
    {
        std::lock_guard lock(mutex_);
        JobRecord &job = jobs_.at(n);
        totals_.ends++;
        if (job.ends++ == 0) {
            job.dead = dead;
            totals_.ended_jobs++;
            if (job.enqueue_tried && job.enqueue == QY_OK) totals_.ended_ok_jobs++;
        }
    }
    changed_.notify_all();
}

JobTally::Totals JobTally::totals() const {
    std::lock_guard lock(mutex_);
    return totals_;
}

bool JobTally::wait_until(const std::function<bool(const Totals &)> &done,
                          Clock::time_point until) {
    std::unique_lock lock(mutex_);
    return changed_.wait_until(lock, until, [&] { return done(totals_); });
}

std::vector<JobRecord> JobTally::records() const {
    std::lock_guard lock(mutex_);
    return jobs_;
}

void LogTally::on_line(qy_log_level level, const char *message, void *user_data) {
    static_cast<LogTally *>(user_data)->line(level, message);
}

void LogTally::line(qy_log_level level, const std::string &message) {
    const auto has = [&](const char *text) { return message.find(text) != std::string::npos; };
    {
        std::lock_guard lock(mutex_);
        bool note = false;
        if (has("connection lost: ")) {
            counts_.lost++;
        } else if (has("reconnected to the broker after")) {
            counts_.reconnected++;
        } else if (has("reconnect attempt ")) {
            counts_.reconnect_failed++;
        } else if (has("the broker closed channel ")) {
            const bool timeout = has("delivery acknowledgement on channel") && has("timed out");
            (timeout ? counts_.timeout_closes : counts_.other_closes)++;
            note = !timeout || counts_.timeout_closes == 1;
        } else if (level >= QY_LOG_WARN && !has("run longer than the broker's consumer timeout")) {
            counts_.other_warnings++;
            note = true;
        }
        if (note && notable_.size() < 20) notable_.push_back(message);
    }
    changed_.notify_all();
}

LogTally::Counts LogTally::counts() const {
    std::lock_guard lock(mutex_);
    return counts_;
}

bool LogTally::wait_until(const std::function<bool(const Counts &)> &done,
                          Clock::time_point until) {
    std::unique_lock lock(mutex_);
    return changed_.wait_until(lock, until, [&] { return done(counts_); });
}

std::vector<std::string> LogTally::notable() const {
    std::lock_guard lock(mutex_);
    return notable_;
}

}  // namespace queuey_stress
