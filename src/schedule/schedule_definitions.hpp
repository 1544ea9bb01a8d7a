// What a leader fires, as it publishes it to its group's definitions queue when it takes
// the lead (schedule_queues.hpp): who leads, since when, and its schedules. The other
// schedulers read it to log once how their own definitions differ (the leader's win);
// `queuey schedule list` reads it to show the schedules and the leader.
//
// The message is JSON:
//   {"leader":{"connection":"billing-1","host":"web-3","pid":4242,
//              "since":"2026-12-08T02:00:00Z"},
//    "schedules":[{"name":"nightly","queue":"reports","job_type":"report.build",
//                  "payload":"{\"full\":true}","cron":"0 2 * * *","time_zone":"UTC",
//                  "missed":"skip"},
//                 {"name":"tick","queue":"q","job_type":"t","payload":"null",
//                  "interval_ms":1000,"missed":"catch_up","catch_up_at_most":3}]}
// The payload is the compact JSON text of the fires' payload, as a string. Members a
// reader does not know are passed over (a newer leader may write more).
#pragma once

#include "../json_writer.hpp"
#include "fire_times.hpp"
#include "schedule.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

struct LeaderIdentity {
    std::string connection;  // the connection name it gave the broker
    std::string host;
    std::int64_t pid = 0;
    FireTime since;  // when it took the lead (its clock)

    bool operator==(const LeaderIdentity &) const = default;
};

struct PublishedDefinitions {
    LeaderIdentity leader;
    std::vector<ScheduleDefinition> schedules;
};

std::string encode_definitions(const LeaderIdentity &leader,
                               const std::vector<Schedule> &schedules);
// The parts of it, for other documents that show them: the members of one schedule's
// object, and the leader's object.
void write_schedule_members(JsonWriter &out, const ScheduleDefinition &definition);
void write_leader(JsonWriter &out, const LeaderIdentity &leader);

// Throws Error(QY_ERR_BAD_JSON, field) naming what is wrong ("leader.pid",
// "schedules[2].cron", ...), also for a schedule its Schedule would refuse.
PublishedDefinitions decode_definitions(std::string_view body);

// How own differs from the leader's definitions, one line per schedule (none when they
// agree), naming the fields that differ: what a scheduler that does not lead logs.
std::vector<std::string> definition_differences(const std::vector<Schedule> &own,
                                                const PublishedDefinitions &leaders);

}  // namespace queuey
