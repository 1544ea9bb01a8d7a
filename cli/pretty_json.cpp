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

std::string json_string_member(std::string_view text, const char *name) {
    rapidjson::Document document;
    document.Parse(text.data(), text.size());
    if (document.HasParseError() || !document.IsObject()) return {};
    const auto member = document.FindMember(name);
    if (member == document.MemberEnd() || !member->value.IsString()) return {};
    return {member->value.GetString(), member->value.GetStringLength()};
}

}  // namespace queuey_cli
