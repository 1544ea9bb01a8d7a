#include "envelope_codec.hpp"

#include "error.hpp"
#include "json_forwarder.hpp"
#include "json_writer.hpp"
#include "unsigned_field.hpp"
#include "utf8.hpp"
#include "uuid.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>

#include <array>
#include <optional>

namespace queuey {

namespace {

enum class Field { job_id, job_type, queue, attempt, enqueued_at_ms, deferrals, priority,
                   correlation_id, payload, unknown };

constexpr std::array<std::string_view, 9> field_names = {
    "job_id", "job_type", "queue", "attempt", "enqueued_at_ms",
    "deferrals", "priority", "correlation_id", "payload"};

Field field_named(std::string_view name) {
    for (std::size_t i = 0; i < field_names.size(); ++i)
        if (field_names[i] == name) return static_cast<Field>(i);
    return Field::unknown;
}

const char *json_type_name(rapidjson::Type type) {
    switch (type) {
        case rapidjson::kNullType: return "null";
        case rapidjson::kFalseType:
        case rapidjson::kTrueType: return "a boolean";
        case rapidjson::kObjectType: return "an object";
        case rapidjson::kArrayType: return "an array";
        case rapidjson::kStringType: return "a string";
        case rapidjson::kNumberType: return "a number";
    }
    return "a value";
}

// Reader events for one body. The root object is depth 1. After a key at depth 1 its
// value is read into the Envelope (reading_value_); a payload is copied through a
// JsonWriter as it streams by; values of unknown fields are skipped. A handler that
// returns false stops the parse with the error it recorded.
class EnvelopeReader : public NumbersAsTextHandler {
public:
    EnvelopeReader() : payload_writer_(envelope_.payload), payload_forwarder_(payload_writer_) {}

    bool Null() {
        if (in_payload()) return payload_forwarder_.Null() && value_done();
        if (at_field_value() && field_ == Field::correlation_id) {
            envelope_.correlation_id.reset();
            return value_done();
        }
        return scalar(rapidjson::kNullType);
    }
    bool Bool(bool b) {
        if (in_payload()) return payload_forwarder_.Bool(b) && value_done();
        return scalar(b ? rapidjson::kTrueType : rapidjson::kFalseType);
    }
    bool RawNumber(const char *str, rapidjson::SizeType len, bool copy) {
        if (in_payload()) return payload_forwarder_.RawNumber(str, len, copy) && value_done();
        if (!at_field_value()) return scalar(rapidjson::kNumberType);
        const std::string_view digits(str, len);
        switch (field_) {
            case Field::attempt: return set_unsigned(envelope_.attempt, digits);
            case Field::enqueued_at_ms: return set_unsigned(envelope_.enqueued_at_ms, digits);
            case Field::deferrals: return set_unsigned(envelope_.deferrals, digits);
            case Field::priority: return set_unsigned(envelope_.priority, digits);
            default: return wrong_type(rapidjson::kNumberType);
        }
    }
    bool String(const char *str, rapidjson::SizeType len, bool copy) {
        if (in_payload()) return payload_forwarder_.String(str, len, copy) && value_done();
        const std::string_view text(str, len);
        if (!is_valid_utf8(text)) return false;  // reported as BAD_JSON, see json_parse_flags
        if (!at_field_value()) return scalar(rapidjson::kStringType);
        switch (field_) {
            case Field::job_id: {
                auto id = normalize_hyphenated_uuid(text);
                if (!id) return fail("is not a hyphenated UUID (8-4-4-4-12 hex digits)");
                envelope_.job_id = std::move(*id);
                return value_done();
            }
            case Field::job_type: return set_name(envelope_.job_type, text);
            case Field::queue: return set_name(envelope_.queue, text);
            case Field::correlation_id: return set_name(envelope_.correlation_id.emplace(), text);
            default: return wrong_type(rapidjson::kStringType);
        }
    }
    bool StartObject() {
        if (depth_ == 0) return ++depth_, true;
        if (!open_container(rapidjson::kObjectType)) return false;
        return !in_payload() || payload_forwarder_.StartObject();
    }
    bool Key(const char *str, rapidjson::SizeType len, bool copy) {
        if (in_payload()) return payload_forwarder_.Key(str, len, copy);
        if (!is_valid_utf8({str, len})) return false;  // reported as BAD_JSON
        if (depth_ != 1) return true;
        field_name_.assign(str, len);
        field_ = field_named(field_name_);
        reading_value_ = true;
        if (field_ == Field::unknown) return true;
        const unsigned bit = 1u << static_cast<unsigned>(field_);
        if (seen_ & bit) return fail("appears more than once");
        seen_ |= bit;
        return true;
    }
    bool EndObject(rapidjson::SizeType count) {
        if (--depth_ == 0) return true;  // the root object is complete
        if (in_payload() && !payload_forwarder_.EndObject(count)) return false;
        return value_done();
    }
    bool StartArray() {
        if (depth_ == 0) return wrong_root(rapidjson::kArrayType);
        if (!open_container(rapidjson::kArrayType)) return false;
        return !in_payload() || payload_forwarder_.StartArray();
    }
    bool EndArray(rapidjson::SizeType count) {
        --depth_;
        if (in_payload() && !payload_forwarder_.EndArray(count)) return false;
        return value_done();
    }

    Envelope take_envelope() {
        for (std::size_t i = 0; i < field_names.size(); ++i) {
            const auto field = static_cast<Field>(i);
            const bool optional = field == Field::deferrals || field == Field::priority ||
                                  field == Field::correlation_id;
            if (!optional && !(seen_ & (1u << i)))
                throw Error(QY_ERR_BAD_ENVELOPE, std::string(field_names[i]),
                            "missing required field");
        }
        return std::move(envelope_);
    }

    // The field whose value was being read when the parse stopped, "body" between fields.
    std::string error_field() const { return reading_value_ ? field_name_ : "body"; }
    const std::optional<Error> &error() const { return error_; }

private:
    bool in_payload() const { return reading_value_ && field_ == Field::payload; }
    bool at_field_value() const { return depth_ == 1 && field_ != Field::unknown; }

    // A scalar that is not the value of a known field: the root (an error), an unknown
    // field's value, or something nested inside one.
    bool scalar(rapidjson::Type type) {
        if (depth_ == 0) return wrong_root(type);
        if (at_field_value()) return wrong_type(type);
        return value_done();
    }

    bool open_container(rapidjson::Type type) {
        if (at_field_value() && field_ != Field::payload) return wrong_type(type);
        ++depth_;
        return true;
    }

    // Called after every complete value; a value at depth 1 ends the current field.
    bool value_done() {
        if (depth_ == 1) reading_value_ = false;
        return true;
    }

    template <typename Unsigned>
    bool set_unsigned(Unsigned &target, std::string_view digits) {
        auto parsed = parse_unsigned_field(digits, 8 * sizeof(Unsigned));
        if (auto *problem = std::get_if<std::string>(&parsed)) return fail(*problem);
        target = static_cast<Unsigned>(std::get<std::uint64_t>(parsed));
        return value_done();
    }

    bool set_name(std::string &target, std::string_view text) {
        if (text.find('\0') != std::string_view::npos) return fail("contains a NUL character");
        target.assign(text);
        return value_done();
    }

    bool wrong_type(rapidjson::Type got) {
        const char *expected = "a string";
        switch (field_) {
            case Field::attempt:
            case Field::deferrals: expected = "an unsigned 32-bit integer"; break;
            case Field::enqueued_at_ms: expected = "an unsigned 64-bit integer"; break;
            case Field::priority: expected = "an unsigned 8-bit integer"; break;
            case Field::job_id: expected = "a UUID string"; break;
            case Field::correlation_id: expected = "a string or null"; break;
            default: break;
        }
        return fail(std::string("expected ") + expected + ", got " + json_type_name(got));
    }

    bool wrong_root(rapidjson::Type got) {
        field_name_ = "body";
        return fail(std::string("expected a JSON object, got ") + json_type_name(got));
    }

    bool fail(const std::string &message) {
        error_.emplace(QY_ERR_BAD_ENVELOPE, field_name_, message);
        return false;
    }

    Envelope envelope_;
    JsonWriter payload_writer_;
    JsonForwarder payload_forwarder_;
    std::optional<Error> error_;
    std::string field_name_;
    Field field_ = Field::unknown;
    unsigned seen_ = 0;
    int depth_ = 0;
    bool reading_value_ = false;
};

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
    out += env.payload;
    out += '}';
}

std::string encode_envelope(const Envelope &env) {
    std::string out;
    encode_envelope(env, out);
    return out;
}

Envelope decode_envelope(std::string_view body) {
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
        throw Error(QY_ERR_BAD_JSON, "body",
                    "unexpected data after the JSON object at byte " + std::to_string(stream.Tell()));
    return handler.take_envelope();
}

std::string compact_json_value(std::string_view json, std::string_view field) {
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
        throw Error(QY_ERR_BAD_JSON, std::string(field),
                    "unexpected data after the JSON value at byte " + std::to_string(stream.Tell()));
    return compact;
}

}  // namespace queuey
