// A compact JSON emitter whose bytes match Rust's serde_json, so that a body written by
// queuey and one written by the Rust implementation are the same for the same envelope.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace queuey {

class JsonWriter {
public:
    explicit JsonWriter(std::string &out) : out_(out) {}

    void start_object();
    void end_object();
    void start_array();
    void end_array();
    void key(std::string_view name);
    void string(std::string_view text);
    // A number exactly as its JSON text was written (the digits are kept verbatim).
    void raw_number(std::string_view digits);
    void boolean(bool value);
    void null();

private:
    void before_value();

    std::string &out_;
    // One entry per open object or array: true until its first member is written.
    std::vector<bool> first_in_level_;
    bool after_key_ = false;
};

// Appends `text` as a JSON string literal (quotes included) with serde_json's escaping.
void append_json_string(std::string &out, std::string_view text);
// The size of `text` as a JSON string literal, as write_json_string writes it.
std::size_t json_string_size(std::string_view text);
// Room enough for `text` as a JSON string literal: its exact size when it is long, and
// for a short one the most it could take (6 bytes a byte, "\u001f"), which spares a
// second pass over it (an id, a type or a queue name).
inline std::size_t json_string_room(std::string_view text) {
    constexpr std::size_t short_string = 40;
    return text.size() <= short_string ? 6 * text.size() + 2 : json_string_size(text);
}
// Writes `text` as a JSON string literal at `at`, which has json_string_room(text) bytes;
// returns one past it. For a writer that sizes its output once (encode_envelope).
char *write_json_string(char *at, std::string_view text);

}  // namespace queuey
