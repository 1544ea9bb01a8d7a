// Why RabbitMQ dead-lettered a message itself, not a worker: its x-first-death-reason
// ("delivery_limit", "expired", "rejected", "maxlen"), as queuey's tools show it where
// queuey's own dead-letter publishes carry their x-death-reason.
#pragma once

#include <string>
#include <string_view>

namespace queuey {

// The headers RabbitMQ puts on a message it dead-letters itself (besides x-death).
inline constexpr std::string_view first_death_reason_header = "x-first-death-reason";
inline constexpr std::string_view first_death_queue_header = "x-first-death-queue";

std::string broker_death_reason(std::string_view first_death_reason);

}  // namespace queuey
