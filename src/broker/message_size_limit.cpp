#include "message_size_limit.hpp"

#include <charconv>

namespace queuey {

namespace {

// The decimal number right after marker in text, if there is one.
std::optional<std::uint64_t> number_after(std::string_view text, std::string_view marker) {
    const auto at = text.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    const char *first = text.data() + at + marker.size();
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(first, text.data() + text.size(), value);
    if (error != std::errc() || end == first) return std::nullopt;
    return value;
}

}  // namespace

std::optional<MessageSizeViolation> message_size_violation(std::string_view reason) {
    const auto size = number_after(reason, "message size ");
    const auto limit = number_after(reason, "larger than configured max size ");
    if (!size || !limit) return std::nullopt;
    return MessageSizeViolation{*size, *limit};
}

std::string over_size_limit(std::uint64_t size, std::uint64_t limit) {
    return "the job's body is " + std::to_string(size) +
           " bytes, over the broker's max message size of " + std::to_string(limit) +
           " bytes; not sent (publishing it would close the publishing channel)";
}

}  // namespace queuey
