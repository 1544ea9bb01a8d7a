#include "json_writer.hpp"

#include <gtest/gtest.h>

namespace queuey {
namespace {

std::string escaped(std::string_view text) {
    std::string out;
    append_json_string(out, text);
    return out;
}

TEST(JsonString, EscapesLikeSerdeJson) {
    EXPECT_EQ(escaped("plain"), "\"plain\"");
    EXPECT_EQ(escaped("q\"b\\"), "\"q\\\"b\\\\\"");
    EXPECT_EQ(escaped("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
    EXPECT_EQ(escaped(std::string_view("\x00\x01\x1f", 3)), "\"\\u0000\\u0001\\u001f\"");
    // Not escaped: slash, DEL and non-ASCII UTF-8.
    EXPECT_EQ(escaped("/\x7f\xc3\xa9"), "\"/\x7f\xc3\xa9\"");
}

TEST(JsonWriter, WritesCompactNestedValues) {
    std::string out;
    JsonWriter writer(out);
    writer.start_object();
    writer.key("a");
    writer.start_array();
    writer.raw_number("18446744073709551615");
    writer.raw_number("2.50");
    writer.boolean(true);
    writer.null();
    writer.start_object();
    writer.end_object();
    writer.end_array();
    writer.key("b");
    writer.start_object();
    writer.key("c");
    writer.start_array();
    writer.end_array();
    writer.end_object();
    writer.end_object();
    EXPECT_EQ(out, R"({"a":[18446744073709551615,2.50,true,null,{}],"b":{"c":[]}})");
}

}  // namespace
}  // namespace queuey
