// What marks a job as a schedule's fire (docs/scheduling.md): the two headers the
// scheduler puts on the fire it publishes, as a consumer reads them. A retry, deferral or
// lost-run copy of the job carries neither: only the fire as published is one.
#pragma once

#include <string>

namespace queuey {

struct ScheduledFire {
    std::string schedule;   // x-queuey-schedule: the schedule's name
    std::string fire_time;  // x-queuey-fire-time: RFC 3339 UTC, as the scheduler wrote it

    bool operator==(const ScheduledFire &) const = default;
};

}  // namespace queuey
