// Text from the broker as the commands print it: a header or a job type may hold any
// bytes (another producer, a handler's message), but a --json line must stay valid JSON
// and a terminal must not run escape sequences or take a newline inside a field.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace queuey_cli {

// The length of the valid UTF-8 character that starts at text[at] (1 to 4), 0 when the
// byte there starts none (a stray continuation byte, an overlong form, a surrogate,
// past U+10FFFF, cut short).
std::size_t utf8_char_length(std::string_view text, std::size_t at);

// text for a line of a terminal: control characters escaped as in C ("\n", "\t",
// "\x1b"), a backslash doubled, each invalid byte as U+FFFD.
std::string terminal_text(std::string_view text);

}  // namespace queuey_cli
