// Recognizing JSON that is already in the compact form queuey's encoder writes (and
// serde_json, the Rust implementation's): no whitespace, strings with the encoder's own
// escapes only. Text in that form can be kept as it is, byte for byte, where a full reader
// would rebuild it token by token; everything else goes to the full reader, so these
// functions may refuse valid JSON, but never accept what RapidJSON's reader (with
// json_parse_flags) would refuse or write differently.
#pragma once

#include "plain_runs.hpp"

#include <string_view>

namespace queuey {

// True when json is exactly one JSON value in the compact form, in valid UTF-8.
bool is_compact_json(std::string_view json);

// The scanners below do not check UTF-8: a caller checks the bytes it keeps with
// is_valid_utf8.

// One past the string that starts at `at` (its opening quote), or nullptr when there is
// none in the compact form (or it has an escape and escapes_allowed is false).
const char *compact_string_end(const char *at, const char *end, bool escapes_allowed = true);

// One past the JSON value (any type) that starts at `at`, or nullptr when there is none
// in the compact form, or when it is nested deeper than 64 levels. In the same pass it
// sets non_ascii when a byte of the value may be 0x80 or above (maybe for ASCII, never
// missing another): a value that leaves it unset is ASCII and needs no UTF-8 check.
// known_plain, when given, knows runs of plain ASCII bytes in the value's text, which are
// then stepped over unread (plain_runs.hpp).
const char *compact_value_end(const char *at, const char *end, bool &non_ascii,
                              PlainRunSkipper *known_plain = nullptr);

}  // namespace queuey
