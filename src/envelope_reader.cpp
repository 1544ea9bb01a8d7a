#include "envelope_reader.hpp"

#include "uuid.hpp"

#include <array>

namespace queuey {

namespace {

// In the order of EnvelopeReader::Field.
constexpr std::array<std::string_view, 9> field_names = {"job_id",   "job_type",       "queue",
                                                         "attempt",  "enqueued_at_ms", "deferrals",
                                                         "priority", "correlation_id", "payload"};

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

}  // namespace

std::size_t EnvelopeReader::next_field_index() const {
    return seen_ == 0 ? 0 : static_cast<std::size_t>(field_) + 1;  // Field::unknown is last
}

std::string_view EnvelopeReader::next_field_name() const {
    const std::size_t next = next_field_index();
    return next < field_names.size() ? field_names[next] : std::string_view();
}

bool EnvelopeReader::next_field_key() {
    return known_field_key(static_cast<Field>(next_field_index()));
}

bool EnvelopeReader::field_key(std::string_view name) {
    for (std::size_t i = 0; i < field_names.size(); ++i)
        if (field_names[i] == name) return known_field_key(static_cast<Field>(i));
    reading_value_ = true;
    field_ = Field::unknown;
    field_name_ = unknown_field_name_.assign(name);
    return true;
}

bool EnvelopeReader::known_field_key(Field field) {
    reading_value_ = true;
    field_ = field;
    field_name_ = field_names[static_cast<std::size_t>(field_)];
    const unsigned bit = 1u << static_cast<unsigned>(field_);
    if (seen_ & bit) return fail("appears more than once");
    seen_ |= bit;
    return true;
}

bool EnvelopeReader::field_string(std::string_view text) {
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

bool EnvelopeReader::set_name(std::string &target, std::string_view text) {
    if (text.find('\0') != std::string_view::npos) return fail("contains a NUL character");
    target.assign(text);
    return value_done();
}

bool EnvelopeReader::wrong_type(rapidjson::Type got) {
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

bool EnvelopeReader::wrong_root(rapidjson::Type got) {
    field_name_ = "body";
    return fail(std::string("expected a JSON object, got ") + json_type_name(got));
}

bool EnvelopeReader::fail(const std::string &message) {
    error_.emplace(QY_ERR_BAD_ENVELOPE, std::string(field_name_), message);
    return false;
}

Envelope EnvelopeReader::take_envelope() {
    for (std::size_t i = 0; i < field_names.size(); ++i) {
        const auto field = static_cast<Field>(i);
        const bool optional =
            field == Field::deferrals || field == Field::priority || field == Field::correlation_id;
        if (!optional && !(seen_ & (1u << i)))
            throw Error(QY_ERR_BAD_ENVELOPE, std::string(field_names[i]), "missing required field");
    }
    if (payload_slice_.data() != nullptr) {
        // The byte after the payload (the comma or brace that ended it) is read no more.
        const auto end = static_cast<std::size_t>(payload_slice_.data() - shared_body_.get()) +
                         payload_slice_.size();
        shared_body_.get()[end] = '\0';
        envelope_.payload = Payload::shared(std::move(shared_body_), payload_slice_);
    }
    envelope_.payload.share_if_long();  // written through writable(): done now
    return std::move(envelope_);
}

}  // namespace queuey
