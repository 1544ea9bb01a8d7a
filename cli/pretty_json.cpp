#include "pretty_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace queuey_cli {

std::string pretty_json(std::string_view text, const std::string &margin) {
    rapidjson::Document document;
    document.Parse<rapidjson::kParseFullPrecisionFlag>(text.data(), text.size());
    if (document.HasParseError()) return std::string(text);
    rapidjson::StringBuffer buffer;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
    writer.SetIndent(' ', 2);
    document.Accept(writer);
    std::string out;
    for (const char *c = buffer.GetString(); *c != '\0'; ++c) {
        out += *c;
        if (*c == '\n') out += margin;
    }
    return out;
}

}  // namespace queuey_cli
