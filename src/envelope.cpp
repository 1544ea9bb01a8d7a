#include "envelope.hpp"

#include "envelope_codec.hpp"
#include "error.hpp"
#include "utf8.hpp"
#include "uuid.hpp"

#include <chrono>
#include <limits>

namespace queuey {

namespace {

template <typename Counter>
Counter saturating_increment(Counter value) {
    return value == std::numeric_limits<Counter>::max() ? value : static_cast<Counter>(value + 1);
}

}  // namespace

std::uint64_t unix_now_ms() {
    const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count();
    return ms < 0 ? 0 : static_cast<std::uint64_t>(ms);
}

void check_name_argument(std::string_view field, std::string_view text, bool allow_empty) {
    if (!allow_empty && text.empty())
        throw Error(QY_ERR_INVALID_ARGUMENT, std::string(field), "must not be empty");
    if (text.find('\0') != std::string_view::npos)
        throw Error(QY_ERR_INVALID_ARGUMENT, std::string(field), "contains a NUL character");
    if (!is_valid_utf8(text))
        throw Error(QY_ERR_INVALID_ARGUMENT, std::string(field), "is not valid UTF-8");
}

Envelope Envelope::create(std::string_view job_type, std::string_view queue,
                          std::string_view payload_json) {
    check_name_argument("job_type", job_type, false);
    check_name_argument("queue", queue, false);
    Envelope envelope;
    envelope.job_id = new_uuid_v4();
    envelope.job_type = job_type;
    envelope.queue = queue;
    envelope.enqueued_at_ms = unix_now_ms();
    envelope.payload = compact_json_value(payload_json, "payload");
    return envelope;
}

Envelope Envelope::next_attempt() const {
    Envelope next = *this;
    next.attempt = saturating_increment(attempt);
    next.priority = 0;
    return next;
}

Envelope Envelope::deferred(std::uint8_t max_priority) const {
    Envelope next = *this;
    next.deferrals = saturating_increment(deferrals);
    next.priority = max_priority;
    return next;
}

std::uint64_t Envelope::age_ms(std::uint64_t now_ms) const {
    return now_ms > enqueued_at_ms ? now_ms - enqueued_at_ms : 0;
}

}  // namespace queuey
