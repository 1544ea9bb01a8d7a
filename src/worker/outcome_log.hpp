// The log line of a settled job: what happened to it, never what might (issue 41: a
// line said "will be retried" of a job on its final attempt, which was dead-lettered).
// Written once the settle went through, by every worker whatever its language.
#pragma once

#include "../envelope.hpp"
#include "../log.hpp"
#include "settle_action.hpp"

#include <chrono>
#include <string>

namespace queuey {

// "250ms", "1.5s", "30s": a duration as the dead-letter reasons and the log show it.
std::string format_duration(std::chrono::milliseconds duration);

// A retry is a warning ("job J (type `t`, queue q) failed at attempt 1: why; retried as
// attempt 2 in 1.5s"), a dead letter an error ("... dead-lettered to q.dead at attempt 3:
// reason"); other settles are not logged (a lost run's requeue has its own line).
void log_settled(const Logger &logger, const SettleAction &action, const Envelope &envelope);

}  // namespace queuey
