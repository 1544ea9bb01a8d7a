#include "compact_envelope_reader.hpp"

#include "compact_json.hpp"
#include "utf8.hpp"

namespace queuey {

namespace {

rapidjson::SizeType size_between(const char *begin, const char *end) {
    return static_cast<rapidjson::SizeType>(end - begin);
}

// Reads the member value at `at` into fields; one past it, or nullptr.
const char *read_member_value(const char *at, const char *end, EnvelopeReader &fields) {
    const char *value_end = compact_value_end(at, end);
    if (value_end == nullptr) return nullptr;
    const std::string_view text(at, value_end - at);
    if (fields.reading_opaque_value())
        return is_valid_utf8(text) && fields.compact_value(text) ? value_end : nullptr;
    bool read = false;
    switch (*at) {
        case '"':
            // With an escape the text is not the string's value: RapidJSON decodes that.
            read = compact_string_end(at, end, false) == value_end &&
                   fields.String(at + 1, size_between(at + 2, value_end), false);
            break;
        case 'n': read = fields.Null(); break;
        case 't': read = fields.Bool(true); break;
        case 'f': read = fields.Bool(false); break;
        case '{':
        case '[': break;  // no field read here is an object or array: RapidJSON words the error
        default: read = fields.RawNumber(at, size_between(at, value_end), false);
    }
    return read ? value_end : nullptr;
}

}  // namespace

bool read_compact_envelope(std::string_view body, EnvelopeReader &fields) {
    const char *at = body.data();
    const char *const end = at + body.size();
    if (at == end || *at != '{' || !fields.StartObject()) return false;
    ++at;
    rapidjson::SizeType members = 0;
    while (at != end && *at != '}') {
        if (members > 0 && *at++ != ',') return false;
        // A key with an escape is not its own text: RapidJSON decodes that.
        const char *key_end = compact_string_end(at, end, false);
        if (key_end == nullptr || key_end == end || *key_end != ':' ||
            !fields.Key(at + 1, size_between(at + 2, key_end), false))
            return false;
        at = read_member_value(key_end + 1, end, fields);
        if (at == nullptr) return false;
        ++members;
    }
    // The closing brace must be the last byte: RapidJSON words what follows it.
    return at != end && at + 1 == end && fields.EndObject(members);
}

}  // namespace queuey
