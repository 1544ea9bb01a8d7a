#include "json_line.hpp"

#include "utf8_text.hpp"

#include <cstdio>

namespace queuey_cli {

std::string json_string(std::string_view text) {
    std::string out = "\"";
    for (std::size_t at = 0; at < text.size(); ++at) {
        const char c = text[at];
        if (static_cast<unsigned char>(c) >= 0x80) {
            const std::size_t length = utf8_char_length(text, at);
            if (length == 0) {
                out += "\\ufffd";  // a byte that is no UTF-8: JSON text must be
                continue;
            }
            out.append(text.substr(at, length));
            at += length - 1;
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char escaped[8];
                    std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
                    out += escaped;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

void JsonLine::key(std::string_view name) {
    if (!members_.empty()) members_ += ',';
    members_ += json_string(name) + ':';
}

JsonLine &JsonLine::add(std::string_view name, std::string_view text) {
    key(name);
    members_ += json_string(text);
    return *this;
}

JsonLine &JsonLine::add(std::string_view name, std::int64_t number) {
    key(name);
    members_ += std::to_string(number);
    return *this;
}

JsonLine &JsonLine::add(std::string_view name, bool flag) {
    key(name);
    members_ += flag ? "true" : "false";
    return *this;
}

JsonLine &JsonLine::add_json(std::string_view name, std::string_view json) {
    key(name);
    members_ += json;
    return *this;
}

}  // namespace queuey_cli
