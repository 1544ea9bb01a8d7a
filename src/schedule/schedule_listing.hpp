// What `queuey schedule list` shows (qy_client_list_schedules): a group's schedules as its
// newest leader published them, each with its last fire (its record) and its next, the
// leader, and how many schedulers stand in the election. Read with browses and a passive
// declare: nothing is consumed, and it works with or without a scheduler running.
#pragma once

#include "../backend.hpp"
#include "schedule_definitions.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

struct ListedSchedule {
    ScheduleDefinition definition;
    std::optional<FireTime> last_fire;  // the record's time; none before the first fire
    std::optional<FireTime> next_fire;  // after now, by the definition
};

struct ScheduleListing {
    std::optional<LeaderIdentity> leader;  // the newest to publish definitions
    std::uint32_t schedulers = 0;          // consumers of the election queue
    std::vector<ListedSchedule> schedules;
};

// Throws Error (the backend's; QY_ERR_BAD_JSON when the definitions do not read).
ScheduleListing list_schedules(Backend &backend, std::string_view group, FireTime now);

// As one JSON object: {"group":..,"leader":{..}|null,"schedulers":N,"schedules":[{..,
// "last_fire":"..."|null,"next_fire":"..."|null}]}, each schedule's members those of the
// definitions message (schedule_definitions.hpp).
std::string listing_json(std::string_view group, const ScheduleListing &listing);

}  // namespace queuey
