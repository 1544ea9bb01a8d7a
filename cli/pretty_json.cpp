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
    // HasMember, not FindMember: clang finds RapidJSON's iterator == ambiguous in C++20.
    if (document.HasParseError() || !document.IsObject() || !document.HasMember(name)) return {};
    const rapidjson::Value &member = document[name];
    if (!member.IsString()) return {};
    return {member.GetString(), member.GetStringLength()};
}

}  // namespace queuey_cli
