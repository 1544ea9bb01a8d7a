// Job ids: random UUIDs from libuuid, and the hyphenated form that envelopes carry.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace queuey {

// A fresh random (version 4) UUID, lowercase and hyphenated.
std::string new_uuid_v4();

// The name-based (version 5, SHA-1) UUID of `name` in the namespace `namespace_id` (a
// hyphenated UUID), lowercase and hyphenated: the same inputs give the same id anywhere.
std::string name_based_uuid_v5(std::string_view namespace_id, std::string_view name);

// The lowercase form of a hyphenated UUID (8-4-4-4-12 hex digits, any case), or nothing
// when text is not one. Braced, URN and unhyphenated forms are not accepted.
std::optional<std::string> normalize_hyphenated_uuid(std::string_view text);

}  // namespace queuey
