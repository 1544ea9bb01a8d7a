// The job id of a schedule's fire: a name-based UUID of the schedule's name and the fire
// time, so that a fire enqueued twice (a leader that died between publishing it and
// recording it) carries the same id both times and the worker can drop the second.
#pragma once

#include "fire_times.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace queuey {

// The UUID namespace of queuey's fire ids (docs/scheduling.md gives the derivation, for
// other implementations to match).
inline constexpr std::string_view fire_id_namespace = "ef1e1828-dfe8-4381-9764-707fd195a854";

// UUIDv5(fire_id_namespace, name + "@" + fire time as RFC 3339 UTC, "2026-12-07T16:00:00Z").
std::string fire_job_id(std::string_view schedule_name, FireTime fire);

// The fire time as fire_job_id spells it.
std::string rfc3339_utc(FireTime fire);

// A time spelt exactly as rfc3339_utc spells one (a fire record's header), between
// first_fire_time and fire_times_end; nullopt for any other text.
std::optional<FireTime> parse_rfc3339_utc(std::string_view text);

}  // namespace queuey
