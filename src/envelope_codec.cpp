#include "envelope_codec.hpp"

#include "compact_envelope_reader.hpp"
#include "compact_json.hpp"
#include "envelope_reader.hpp"
#include "error.hpp"
#include "json_forwarder.hpp"
#include "json_writer.hpp"
#include "utf8.hpp"

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

}  // namespace

void encode_envelope(const Envelope &env, std::string &out) {
    out.reserve(out.size() + 160 + env.job_type.size() + env.queue.size() + env.payload.size() +
                (env.correlation_id ? env.correlation_id->size() : 0));
    // The field names and punctuation are fixed: appended as literals, not escaped each time.
    out += R"({"job_id":)";
    append_json_string(out, env.job_id);
    out += R"(,"job_type":)";
    append_json_string(out, env.job_type);
    out += R"(,"queue":)";
    append_json_string(out, env.queue);
    out += R"(,"attempt":)";
    append_json_unsigned(out, env.attempt);
    out += R"(,"enqueued_at_ms":)";
    append_json_unsigned(out, env.enqueued_at_ms);
    out += R"(,"deferrals":)";
    append_json_unsigned(out, env.deferrals);
    out += R"(,"priority":)";
    append_json_unsigned(out, env.priority);
    if (env.correlation_id) {
        out += R"(,"correlation_id":)";
        append_json_string(out, *env.correlation_id);
    }
    out += R"(,"payload":)";
    out += env.payload.view();
    out += '}';
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

Envelope decode_envelope_sharing(std::shared_ptr<char> body, std::size_t size) {
    const std::string_view text(body.get(), size);
    if (EnvelopeReader fields(body); read_compact_envelope(text, fields))
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
