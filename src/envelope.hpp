// The envelope: one job as it travels on a queue, and the transitions between deliveries.
#pragma once

#include "payload.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace queuey {

struct Envelope {
    std::string job_id;  // lowercase hyphenated UUID
    std::string job_type;
    std::string queue;
    std::uint32_t attempt = 1;
    std::uint64_t enqueued_at_ms = 0;
    std::uint32_t deferrals = 0;
    std::uint8_t priority = 0;
    std::optional<std::string> correlation_id;
    Payload payload;  // one JSON value, compact

    // A first-attempt envelope with a fresh v4 job id, enqueued now. The payload is any
    // JSON text; it is validated and stored in compact form.
    static Envelope create(std::string_view job_type, std::string_view queue,
                           std::string_view payload_json);

    // A retry: attempt + 1 (saturating), priority 0.
    Envelope next_attempt() const;
    // A deferral: deferrals + 1 (saturating), priority set to the queue's max.
    Envelope deferred(std::uint8_t max_priority) const;
    // Milliseconds since the first enqueue, 0 if that lies in the future.
    std::uint64_t age_ms(std::uint64_t now_ms) const;

    bool operator==(const Envelope &) const = default;
};

// Unix epoch milliseconds, 0 if the clock is before the epoch.
std::uint64_t unix_now_ms();

// Throws Error(QY_ERR_INVALID_ARGUMENT, field) unless text is usable as a job type,
// queue or correlation id: valid UTF-8 without NUL characters (non-empty if required).
void check_name_argument(std::string_view field, std::string_view text, bool allow_empty);

}  // namespace queuey
