#include "message_lines.hpp"

#include "duration.hpp"
#include "utf8_text.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace queuey_cli {

namespace {

std::optional<std::uint64_t> age_ms(const queuey::MessageView &message, std::uint64_t now) {
    const auto envelope = message.envelope();
    if (!envelope) return std::nullopt;
    const std::uint64_t enqueued = envelope->enqueued_at_ms();
    return now > enqueued ? now - enqueued : 0;
}

}  // namespace

std::uint64_t now_ms() {
    const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count());
}

std::string utc_time(std::uint64_t epoch_ms) {
    const auto seconds = static_cast<std::time_t>(epoch_ms / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[40];
    const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(text + length, sizeof text - length, ".%03uZ",
                  static_cast<unsigned>(epoch_ms % 1000));
    return text;
}

JsonLine message_json(const queuey::MessageView &message, std::uint64_t now) {
    JsonLine line;
    line.add("job_id", message.job_id())
        .add("job_type", message.job_type())
        .add("attempt", static_cast<std::int64_t>(message.attempt()));
    if (const auto age = age_ms(message, now)) line.add("age_ms", static_cast<std::int64_t>(*age));
    line.add("original_queue", message.original_queue());
    if (!message.reason().empty()) line.add("reason", message.reason());
    line.add("redelivered", message.redelivered());
    if (!message.envelope()) line.add("decode_error", message.decode_error());
    return line;
}

std::string message_human(const queuey::MessageView &message, std::uint64_t now) {
    std::string line = std::string(message.job_id()) + "  " + std::string(message.job_type()) +
                       "  attempt " + std::to_string(message.attempt());
    if (const auto age = age_ms(message, now))
        line += "  age " + describe_duration(std::chrono::milliseconds(*age));
    else
        line += "  (not an envelope: " + std::string(message.decode_error()) + ")";
    if (!message.reason().empty())
        line += "  from '" + std::string(message.original_queue()) +
                "': " + std::string(message.reason());
    return terminal_text(line);  // one line on the terminal, whatever the fields hold
}

}  // namespace queuey_cli
