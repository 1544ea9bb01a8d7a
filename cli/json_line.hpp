// One JSON object on one line, for --json output: scripts read one object a line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace queuey_cli {

class JsonLine {
public:
    JsonLine &add(std::string_view key, std::string_view text);
    JsonLine &add(std::string_view key, std::int64_t number);
    JsonLine &add(std::string_view key, bool flag);
    // A member whose value is JSON text already (an envelope, an object of headers).
    JsonLine &add_json(std::string_view key, std::string_view json);
    // The object, without the newline.
    std::string str() const { return "{" + members_ + "}"; }

private:
    void key(std::string_view name);
    std::string members_;
};

// text as a JSON string, quotes included; control characters escaped, UTF-8 kept, each
// byte that is no UTF-8 as \ufffd.
std::string json_string(std::string_view text);

}  // namespace queuey_cli
