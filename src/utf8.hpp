// UTF-8 helpers for strings that cross into AMQP short strings and JSON.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace queuey {

bool is_valid_utf8(std::string_view text);

// text with each byte that does not belong to a valid UTF-8 character replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// The longest prefix of text that is at most max_bytes long and does not end inside a
// UTF-8 character. Text that is not valid UTF-8 is cut at max_bytes.
std::string_view truncate_utf8(std::string_view text, std::size_t max_bytes);

}  // namespace queuey
