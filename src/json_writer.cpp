#include "json_writer.hpp"

#include "json_plain_bytes.hpp"

#include <charconv>

namespace queuey {

void append_json_string(std::string &out, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    out.push_back('"');
    const char *at = text.data();
    const char *const end = at + text.size();
    for (;;) {
        const char *special = skip_json_plain_bytes(at, end);
        out.append(at, static_cast<std::size_t>(special - at));
        if (special == end) break;
        at = special + 1;
        const auto byte = static_cast<unsigned char>(*special);
        out.push_back('\\');
        switch (byte) {
            case '"': out.push_back('"'); break;
            case '\\': out.push_back('\\'); break;
            case '\b': out.push_back('b'); break;
            case '\f': out.push_back('f'); break;
            case '\n': out.push_back('n'); break;
            case '\r': out.push_back('r'); break;
            case '\t': out.push_back('t'); break;
            default:
                out.append("u00");
                out.push_back(hex[byte >> 4]);
                out.push_back(hex[byte & 0xF]);
        }
    }
    out.push_back('"');
}

void append_json_unsigned(std::string &out, std::uint64_t value) {
    char digits[20];
    out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
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
