// The broker's limit on one message's body (RabbitMQ's max_message_size, 128 MiB by
// default). A publish over it closes the whole publishing channel, and the broker drops
// every publish written after it; so a body over the limit is refused before it is
// written, and the limit is learnt from the broker's own words when it is lower.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace queuey {

// RabbitMQ's default max_message_size.
constexpr std::uint64_t default_max_message_size = 134217728;

struct MessageSizeViolation {
    std::uint64_t size;   // of the body the broker refused
    std::uint64_t limit;  // the broker's max_message_size
};

// Reads RabbitMQ's reason for closing a channel over a message's size ("... message size
// 2097152 is larger than configured max size 1048576"); nothing for any other reason.
std::optional<MessageSizeViolation> message_size_violation(std::string_view reason);

// Why a body of size bytes is refused before sending: names the size and the limit.
std::string over_size_limit(std::uint64_t size, std::uint64_t limit);

}  // namespace queuey
