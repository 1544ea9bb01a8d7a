// How the commands that browse (dead list, peek) print one message: a --json object and
// a line for people, with the job's age from its envelope's enqueue time.
#pragma once

#include "json_line.hpp"

#include <queuey/queuey.hpp>

#include <cstdint>
#include <string>

namespace queuey_cli {

// Milliseconds since the Unix epoch, now.
std::uint64_t now_ms();
// An epoch time in ms as UTC, ISO 8601 to the millisecond: "2026-12-01T09:21:25.723Z".
std::string utc_time(std::uint64_t epoch_ms);

// job_id, job_type, attempt, age_ms (when the body is an envelope), original_queue,
// reason (dead letters), redelivered, and decode_error for a body that is no envelope.
JsonLine message_json(const queuey::MessageView &message, std::uint64_t now);

// "JOB_ID  TYPE  attempt N  age 2 h 5 min  [from 'q': REASON]"
std::string message_human(const queuey::MessageView &message, std::uint64_t now);

}  // namespace queuey_cli
