// The x-exception header of a dead letter: what a handler threw (its type, then its
// message or trace), bounded so that a long trace cannot swell the dead letter
// (docs/worker.md, outcomes).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace queuey {

inline constexpr std::string_view exception_header = "x-exception";
// The most bytes its value holds, the truncation marker included.
inline constexpr std::size_t exception_header_max = 4096;
// Ends a value that was cut to fit.
inline constexpr std::string_view exception_truncated_marker = "\n[truncated]";

// type, a newline, then detail, as valid UTF-8 (an invalid byte becomes U+FFFD). Longer
// than exception_header_max: cut at a character boundary so that it ends with the
// marker and is at most exception_header_max bytes.
std::string exception_header_value(std::string_view type, std::string_view detail);

}  // namespace queuey
