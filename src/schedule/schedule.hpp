// A periodic job: what to enqueue (queue, job type, payload) and when (a cron expression in
// a time zone, or a fixed interval), with the policy for fires a scheduler comes to late.
// Validated once, where it is defined; a Schedule that exists is usable.
#pragma once

#include "../envelope.hpp"
#include "fire_times.hpp"
#include "missed_fires.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace queuey {

struct ScheduleDefinition {
    std::string name;  // unique among the cluster's schedules; part of every fire's job id
    std::string queue;
    std::string job_type;
    std::string payload_json = "null";
    // Exactly one of the two: a cron expression (time_zone applies to it), or an interval.
    std::optional<std::string> cron;
    std::string time_zone = "UTC";
    std::optional<std::chrono::milliseconds> interval;
    MissedFires missed;
};

// Longest schedule name, in bytes: it is spelled into records and log lines.
inline constexpr std::size_t max_schedule_name_bytes = 200;

class Schedule {
public:
    // Throws Error(QY_ERR_INVALID_ARGUMENT, field, ...) naming the field that is wrong
    // ("name", "queue", "job_type", "payload", "cron", "time_zone", "interval",
    // "missed_fires") and its value.
    explicit Schedule(ScheduleDefinition definition);

    const ScheduleDefinition &definition() const { return definition_; }
    const FireTimes &fire_times() const { return times_; }

    // The job of one fire: its id derived from the name and fire time (fire_id.hpp),
    // enqueued now.
    Envelope envelope_for(FireTime fire) const;

private:
    ScheduleDefinition definition_;
    FireTimes times_;
    Envelope prototype_;
};

}  // namespace queuey
