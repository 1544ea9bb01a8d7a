// Durations on the command line: a number and a unit, one or more times ("250ms", "30s",
// "5m", "2h", "1d", "1h30m").
#pragma once

#include <chrono>
#include <string>

namespace queuey_cli {

// Throws UsageError naming text and the accepted form.
std::chrono::milliseconds parse_duration(const std::string &text);

// A duration for people: "250 ms", "30 s", "1 h 30 min" (whole units, largest first).
std::string describe_duration(std::chrono::milliseconds duration);

}  // namespace queuey_cli
