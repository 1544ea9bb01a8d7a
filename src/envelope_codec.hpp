// The envelope's wire form: compact JSON in the message body, byte-compatible with the
// Rust implementation's serde_json output.
#pragma once

#include "envelope.hpp"

#include <string>
#include <string_view>

namespace queuey {

// Appends the body of env to out.
void encode_envelope(const Envelope &env, std::string &out);
std::string encode_envelope(const Envelope &env);

// Decodes a body. Throws Error(QY_ERR_BAD_JSON or QY_ERR_BAD_ENVELOPE) naming the field.
Envelope decode_envelope(std::string_view body);

// Validates that json is exactly one JSON value and returns it in compact form, with key
// order and number digits unchanged. Throws Error(QY_ERR_BAD_JSON, field) otherwise.
std::string compact_json_value(std::string_view json, std::string_view field);

}  // namespace queuey
