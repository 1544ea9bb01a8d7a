#include "envelope_codec.hpp"

#include "compact_envelope_reader.hpp"
#include "compact_json.hpp"
#include "envelope_reader.hpp"
#include "error.hpp"
#include "json_forwarder.hpp"
#include "json_writer.hpp"
#include "utf8.hpp"

#include <charconv>
#include <cstring>

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>

namespace queuey {

namespace {

std::string parse_error_message(rapidjson::ParseErrorCode code, std::size_t offset) {
    return std::string("invalid JSON at byte ") + std::to_string(offset) + ": " +
           // Handlers stop the parse without an error of their own only on invalid UTF-8.
           (code == rapidjson::kParseErrorTermination
                ? "invalid UTF-8 in a string (or a \\u escape of a lone surrogate)"
                : rapidjson::GetParseError_En(code));
}

// The field names and punctuation are fixed: copied as they are, not escaped each time.
constexpr std::string_view job_id_key = R"({"job_id":)", job_type_key = R"(,"job_type":)",
                           queue_key = R"(,"queue":)", attempt_key = R"(,"attempt":)",
                           enqueued_at_key = R"(,"enqueued_at_ms":)",
                           deferrals_key = R"(,"deferrals":)", priority_key = R"(,"priority":)",
                           correlation_id_key = R"(,"correlation_id":)",
                           payload_key = R"(,"payload":)";
constexpr std::size_t max_decimal_digits = 20;  // of a 64-bit unsigned number

char *put(char *at, std::string_view text) {
    std::memcpy(at, text.data(), text.size());
    return at + text.size();
}

char *put_decimal(char *at, std::uint64_t value) {
    return std::to_chars(at, at + max_decimal_digits, value).ptr;
}

// The most bytes the body of env takes before its payload.
std::size_t envelope_head_room(const Envelope &env) {
    return job_id_key.size() + json_string_room(env.job_id) + job_type_key.size() +
           json_string_room(env.job_type) + queue_key.size() + json_string_room(env.queue) +
           attempt_key.size() + enqueued_at_key.size() + deferrals_key.size() +
           priority_key.size() + 4 * max_decimal_digits +
           (env.correlation_id ? correlation_id_key.size() + json_string_room(*env.correlation_id)
                               : 0) +
           payload_key.size();
}

// Appends the head of env's body to out, written in place into head_room bytes
// (envelope_head_room, sized once: a call per appended piece cost more than its bytes).
void put_envelope_head(const Envelope &env, std::size_t head_room, std::string &out) {
    const std::size_t start = out.size();
    out.resize(start + head_room);
    char *at = out.data() + start;
    at = write_json_string(put(at, job_id_key), env.job_id);
    at = write_json_string(put(at, job_type_key), env.job_type);
    at = write_json_string(put(at, queue_key), env.queue);
    at = put_decimal(put(at, attempt_key), env.attempt);
    at = put_decimal(put(at, enqueued_at_key), env.enqueued_at_ms);
    at = put_decimal(put(at, deferrals_key), env.deferrals);
    at = put_decimal(put(at, priority_key), env.priority);
    if (env.correlation_id)
        at = write_json_string(put(at, correlation_id_key), *env.correlation_id);
    at = put(at, payload_key);
    out.resize(static_cast<std::size_t>(at - out.data()));
}

}  // namespace

void encode_envelope(const Envelope &env, std::string &out) {
    const std::size_t head_room = envelope_head_room(env);
    out.reserve(out.size() + head_room + env.payload.size() + envelope_tail.size());
    put_envelope_head(env, head_room, out);
    out += env.payload.view();
    out += envelope_tail;
}

void encode_envelope_head(const Envelope &env, std::string &out) {
    put_envelope_head(env, envelope_head_room(env), out);
}

std::string encode_envelope(const Envelope &env) {
    std::string out;
    encode_envelope(env, out);
    return out;
}

Envelope decode_envelope(std::string_view body) {
    if (EnvelopeReader fields; read_compact_envelope(body, fields)) return fields.take_envelope();
    // Any other form, and every error.
    return decode_envelope_by_reader(body);
}

Envelope decode_envelope_sharing(std::shared_ptr<char> body, std::size_t size,
                                 const PlainRuns &plain_runs) {
    const std::string_view text(body.get(), size);
    PlainRunSkipper known_plain(body.get(), plain_runs);
    if (EnvelopeReader fields(body); read_compact_envelope(text, fields, &known_plain))
        return fields.take_envelope();
    return decode_envelope_by_reader(text);
}

Envelope decode_envelope_by_reader(std::string_view body) {
    EnvelopeReader handler;
    rapidjson::MemoryStream stream(body.data(), body.size());
    rapidjson::Reader reader;
    const rapidjson::ParseResult result = reader.Parse<json_parse_flags>(stream, handler);
    if (handler.error()) throw *handler.error();
    if (result.IsError())
        throw Error(QY_ERR_BAD_JSON, handler.error_field(),
                    parse_error_message(result.Code(), result.Offset()));
    // MemoryStream reads a NUL byte as the end of input, so the parser stops at one.
    if (stream.Tell() != body.size())
        throw Error(
            QY_ERR_BAD_JSON, "body",
            "unexpected data after the JSON object at byte " + std::to_string(stream.Tell()));
    return handler.take_envelope();
}

std::string compact_json_value(std::string_view json, std::string_view field) {
    return is_compact_json(json) ? std::string(json) : compact_json_value_by_reader(json, field);
}

std::string compact_json_value_by_reader(std::string_view json, std::string_view field) {
    std::string compact;
    compact.reserve(json.size());
    JsonWriter writer(compact);
    JsonForwarder forwarder(writer);
    rapidjson::MemoryStream stream(json.data(), json.size());
    rapidjson::Reader reader;
    const rapidjson::ParseResult result = reader.Parse<json_parse_flags>(stream, forwarder);
    if (result.IsError())
        throw Error(QY_ERR_BAD_JSON, std::string(field),
                    parse_error_message(result.Code(), result.Offset()));
    if (stream.Tell() != json.size())
        throw Error(
            QY_ERR_BAD_JSON, std::string(field),
            "unexpected data after the JSON value at byte " + std::to_string(stream.Tell()));
    return compact;
}

}  // namespace queuey
