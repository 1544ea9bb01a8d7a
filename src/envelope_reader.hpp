// The envelope's fields as reader events arrive: what both body readers (RapidJSON's, for
// any JSON, and the compact one, for the form encoders write) feed, so that the checks
// and error messages of every field live in one place.
#pragma once

#include "envelope.hpp"
#include "error.hpp"
#include "json_forwarder.hpp"
#include "json_writer.hpp"
#include "unsigned_field.hpp"
#include "utf8.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace queuey {

// Reader events for one body. The root object is depth 1. After a key at depth 1 its
// value is read into the Envelope (reading_value_); a payload is copied through a
// JsonWriter as it streams by; values of unknown fields are skipped. A handler that
// returns false stops the parse with the error it recorded.
class EnvelopeReader : public NumbersAsTextHandler {
public:
    EnvelopeReader()
        : payload_writer_(envelope_.payload.writable()), payload_forwarder_(payload_writer_) {}
    // Reads a body that the payload may then share (decode_envelope_sharing): a payload in
    // the compact form is kept as its slice of body, which take_envelope() terminates.
    explicit EnvelopeReader(std::shared_ptr<char> body) : EnvelopeReader() {
        shared_body_ = std::move(body);
    }

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
        return field_string(text);
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
        return field_key({str, len});
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

    // True after a key at depth 1 whose value is kept or skipped as a whole: the
    // payload's, or an unknown field's.
    bool reading_opaque_value() const {
        return reading_value_ && depth_ == 1 &&
               (field_ == Field::payload || field_ == Field::unknown);
    }
    // That value in one piece instead of as events, when it is already valid JSON in the
    // compact form the encoder writes: a payload keeps these very bytes.
    bool compact_value(std::string_view json) {
        if (field_ == Field::payload) {
            if (shared_body_)
                payload_slice_ = json;  // terminated once the whole body is read
            else
                envelope_.payload.writable().assign(json);
        }
        return value_done();
    }

    // The name of the field that encoders write after the one just read (they write them
    // in one order); empty after the last. A compact body's next key is compared with it
    // in place, instead of being scanned and looked up.
    std::string_view next_field_name() const;
    // Key() for that name, when the key was found to be it.
    bool next_field_key();

    // Throws Error(QY_ERR_BAD_ENVELOPE) naming the first missing required field. A payload
    // kept as its slice of a shared body gets a NUL written after it there.
    Envelope take_envelope();

    // The field whose value was being read when the parse stopped, "body" between fields.
    std::string error_field() const { return std::string(reading_value_ ? field_name_ : "body"); }
    const std::optional<Error> &error() const { return error_; }

private:
    enum class Field {
        job_id,
        job_type,
        queue,
        attempt,
        enqueued_at_ms,
        deferrals,
        priority,
        correlation_id,
        payload,
        unknown
    };

    bool in_payload() const { return reading_value_ && field_ == Field::payload; }
    bool at_field_value() const { return depth_ == 1 && field_ != Field::unknown; }

    bool field_key(std::string_view name);
    bool known_field_key(Field field);
    std::size_t next_field_index() const;
    bool field_string(std::string_view text);

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

    bool set_name(std::string &target, std::string_view text);
    bool wrong_type(rapidjson::Type got);
    bool wrong_root(rapidjson::Type got);
    bool fail(const std::string &message);

    Envelope envelope_;
    std::shared_ptr<char> shared_body_;  // set: a compact payload stays in this body
    std::string_view payload_slice_;     // that payload, inside shared_body_
    JsonWriter payload_writer_;
    JsonForwarder payload_forwarder_;
    std::optional<Error> error_;
    std::string_view field_name_;     // one of field_names, unknown_field_name_ or "body"
    std::string unknown_field_name_;  // copied: a reader's key text does not outlive the event
    Field field_ = Field::unknown;
    unsigned seen_ = 0;
    int depth_ = 0;
    bool reading_value_ = false;
};

}  // namespace queuey
