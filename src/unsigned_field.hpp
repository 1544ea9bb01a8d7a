// Reading an unsigned integer field from the digits of a JSON number, strictly: the
// Rust implementation's u8/u32/u64 fields refuse negative, fractional and too-large
// numbers, and so does queuey, with the reason in the message.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace queuey {

// The value, or a message such as "-1 is negative; expected an unsigned 32-bit integer".
// bits is 8, 32 or 64.
std::variant<std::uint64_t, std::string> parse_unsigned_field(std::string_view json_number,
                                                              unsigned bits);

}  // namespace queuey
