// Job ids: random UUIDs from libuuid, and the hyphenated form that envelopes carry.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace queuey {

// A fresh random (version 4) UUID, lowercase and hyphenated.
std::string new_uuid_v4();

// The lowercase form of a hyphenated UUID (8-4-4-4-12 hex digits, any case), or nothing
// when text is not one. Braced, URN and unhyphenated forms are not accepted.
std::optional<std::string> normalize_hyphenated_uuid(std::string_view text);

}  // namespace queuey
