#include "compact_envelope_reader.hpp"

#include "compact_json.hpp"
#include "utf8.hpp"

#include <cstddef>
#include <cstring>

namespace queuey {

namespace {

rapidjson::SizeType size_between(const char *begin, const char *end) {
    return static_cast<rapidjson::SizeType>(end - begin);
}

// Reads the key and colon at `at` into fields; one past them, or nullptr.
const char *read_key(const char *at, const char *end, EnvelopeReader &fields) {
    // The key encoders write next is compared in place: no scan, no look-up.
    const std::string_view next = fields.next_field_name();
    const auto quoted_key_size = static_cast<std::ptrdiff_t>(next.size() + 3);  // "name":
    if (!next.empty() && end - at > quoted_key_size && at[0] == '"' &&
        std::memcmp(at + 1, next.data(), next.size()) == 0 && at[next.size() + 1] == '"' &&
        at[next.size() + 2] == ':')
        return fields.next_field_key() ? at + quoted_key_size : nullptr;
    // A key with an escape is not its own text: RapidJSON decodes that.
    const char *key_end = compact_string_end(at, end, false);
    if (key_end == nullptr || key_end == end || *key_end != ':' ||
        !fields.Key(at + 1, size_between(at + 2, key_end), false))
        return nullptr;
    return key_end + 1;
}

// Reads the member value at `at` into fields; one past it, or nullptr.
const char *read_member_value(const char *at, const char *end, EnvelopeReader &fields,
                              PlainRunSkipper *known_plain) {
    if (at == end) return nullptr;
    if (fields.reading_opaque_value()) {
        bool non_ascii = false;
        const char *value_end = compact_value_end(at, end, non_ascii, known_plain);
        if (value_end == nullptr) return nullptr;
        const std::string_view text(at, value_end - at);
        return (!non_ascii || is_valid_utf8(text)) && fields.compact_value(text) ? value_end
                                                                                 : nullptr;
    }
    // A field's string is scanned once, refused with an escape: then its text is not its
    // value, and RapidJSON decodes that.
    bool non_ascii = false;  // unused: a field that is a string goes to fields.String
    const char *value_end =
        *at == '"' ? compact_string_end(at, end, false) : compact_value_end(at, end, non_ascii);
    if (value_end == nullptr) return nullptr;
    bool read = false;
    switch (*at) {
        case '"': read = fields.String(at + 1, size_between(at + 2, value_end), false); break;
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

bool read_compact_envelope(std::string_view body, EnvelopeReader &fields,
                           PlainRunSkipper *known_plain) {
    const char *at = body.data();
    const char *const end = at + body.size();
    if (at == end || *at != '{' || !fields.StartObject()) return false;
    ++at;
    rapidjson::SizeType members = 0;
    while (at != end && *at != '}') {
        if (members > 0 && *at++ != ',') return false;
        at = read_key(at, end, fields);
        if (at == nullptr) return false;
        at = read_member_value(at, end, fields, known_plain);
        if (at == nullptr) return false;
        ++members;
    }
    // The closing brace must be the last byte: RapidJSON words what follows it.
    return at != end && at + 1 == end && fields.EndObject(members);
}

}  // namespace queuey
