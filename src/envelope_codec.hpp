// The envelope's wire form: compact JSON in the message body, byte-compatible with the
// Rust implementation's serde_json output.
#pragma once

#include "envelope.hpp"
#include "plain_runs.hpp"

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace queuey {

// Appends the body of env to out.
void encode_envelope(const Envelope &env, std::string &out);
// Appends the body of env up to its payload to out: the body is that, the payload, then
// envelope_tail.
void encode_envelope_head(const Envelope &env, std::string &out);
inline constexpr std::string_view envelope_tail = "}";
std::string encode_envelope(const Envelope &env);

// Decodes a body. Throws Error(QY_ERR_BAD_JSON or QY_ERR_BAD_ENVELOPE) naming the field.
// A body already in the compact form (compact_json.hpp) takes a fast path that keeps the
// payload as the slice of the body it is.
Envelope decode_envelope(std::string_view body);
// The same for a body of size bytes that the envelope may then share: a payload in the
// compact form stays in it, terminated in place (the byte after it becomes a NUL), so the
// body is no longer the message that came. plain_runs: what copying the body found of
// its plain bytes (plain_runs.hpp), which the payload's scan then steps over.
Envelope decode_envelope_sharing(std::shared_ptr<char> body, std::size_t size,
                                 const PlainRuns &plain_runs = {});

// Validates that json is exactly one JSON value and returns it in compact form, with key
// order and number digits unchanged. Throws Error(QY_ERR_BAD_JSON, field) otherwise.
std::string compact_json_value(std::string_view json, std::string_view field);

// The two above by RapidJSON's reader alone, without the fast path: what the fast path
// must agree with, result for result and error for error (the fuzz targets check it).
Envelope decode_envelope_by_reader(std::string_view body);
std::string compact_json_value_by_reader(std::string_view json, std::string_view field);

}  // namespace queuey
