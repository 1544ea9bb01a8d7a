#include "json_writer.hpp"

#include "json_plain_bytes.hpp"

#include <cstring>

namespace queuey {

namespace {

// The bytes of a JSON string that serde_json writes as a two-byte escape; every other
// byte that is not plain takes six (\u00XX).
char short_escape(unsigned char byte) {
    switch (byte) {
        case '"': return '"';
        case '\\': return '\\';
        case '\b': return 'b';
        case '\f': return 'f';
        case '\n': return 'n';
        case '\r': return 'r';
        case '\t': return 't';
        default: return 0;
    }
}

}  // namespace

std::size_t json_string_size(std::string_view text) {
    std::size_t size = text.size() + 2;
    const char *const end = text.data() + text.size();
    for (const char *at = skip_json_plain_bytes(text.data(), end); at != end;
         at = skip_json_plain_bytes(at + 1, end))
        size += short_escape(static_cast<unsigned char>(*at)) != 0 ? 1 : 5;
    return size;
}

char *write_json_string(char *at, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    *at++ = '"';
    const char *from = text.data();
    const char *const end = from + text.size();
    for (;;) {
        const char *special = skip_json_plain_bytes(from, end);
        if (special != from) {  // memcpy takes no null pointer, even for no bytes
            std::memcpy(at, from, static_cast<std::size_t>(special - from));
            at += special - from;
        }
        if (special == end) break;
        from = special + 1;
        const auto byte = static_cast<unsigned char>(*special);
        *at++ = '\\';
        if (const char escape = short_escape(byte)) {
            *at++ = escape;
            continue;
        }
        std::memcpy(at, "u00", 3);
        at[3] = hex[byte >> 4];
        at[4] = hex[byte & 0xF];
        at += 5;
    }
    *at++ = '"';
    return at;
}

void append_json_string(std::string &out, std::string_view text) {
    const std::size_t start = out.size();
    out.resize(start + json_string_size(text));
    write_json_string(out.data() + start, text);
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (first_in_level_.empty()) return;
    if (first_in_level_.back())
        first_in_level_.back() = false;
    else
        out_.push_back(',');
}

void JsonWriter::start_object() {
    before_value();
    out_.push_back('{');
    first_in_level_.push_back(true);
}

void JsonWriter::end_object() {
    out_.push_back('}');
    first_in_level_.pop_back();
}

void JsonWriter::start_array() {
    before_value();
    out_.push_back('[');
    first_in_level_.push_back(true);
}

void JsonWriter::end_array() {
    out_.push_back(']');
    first_in_level_.pop_back();
}

void JsonWriter::key(std::string_view name) {
    before_value();
    append_json_string(out_, name);
    out_.push_back(':');
    after_key_ = true;
}

void JsonWriter::string(std::string_view text) {
    before_value();
    append_json_string(out_, text);
}

void JsonWriter::raw_number(std::string_view digits) {
    before_value();
    out_.append(digits);
}

void JsonWriter::boolean(bool value) {
    before_value();
    out_.append(value ? "true" : "false");
}

void JsonWriter::null() {
    before_value();
    out_.append("null");
}

}  // namespace queuey
