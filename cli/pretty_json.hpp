// JSON for people (queuey dead show): indented, keys in their order.
#pragma once

#include <string>
#include <string_view>

namespace queuey_cli {

// text indented by two spaces a level, every line after the first prefixed by margin;
// text as it is when it is not JSON (a malformed body is shown, not hidden).
std::string pretty_json(std::string_view text, const std::string &margin);

// The text of the string member name of the JSON object text (a message's headers), as
// it reads unescaped; empty when there is none.
std::string json_string_member(std::string_view text, const char *name);

}  // namespace queuey_cli
