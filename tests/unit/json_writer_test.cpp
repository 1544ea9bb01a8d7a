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

TEST(JsonString, WritesInPlaceExactlyItsSize) {
    const std::pair<std::string_view, std::string_view> cases[] = {
        {std::string_view(), R"("")"},
        {"plain", R"("plain")"},
        {"q\"b\\\n", R"("q\"b\\\n")"},
        {std::string_view("\x00\x1f\x7f", 3), "\"\\u0000\\u001f\x7f\""},
        {"\xc3\xa9\t", "\"\xc3\xa9\\t\""},
    };
    for (const auto &[text, literal] : cases) {
        EXPECT_EQ(json_string_size(text), literal.size()) << literal;
        std::string written(literal.size() + 1, '#');  // a byte past it stays as it was
        EXPECT_EQ(write_json_string(written.data(), text), written.data() + literal.size());
        EXPECT_EQ(written, std::string(literal) + "#");
    }
}

TEST(JsonString, RoomHoldsTheWorstShortStringAndMeasuresLongOnes) {
    // Short strings get the most they could take, unscanned: 40 control bytes fill it.
    const std::string controls(40, '\x01');
    EXPECT_EQ(json_string_room(controls), json_string_size(controls));
    EXPECT_EQ(json_string_room(controls), 2 + 40 * 6);
    EXPECT_EQ(json_string_room("plain"), 2 + 5 * 6);
    // Longer ones are measured exactly.
    const std::string long_plain(41, 'a');
    EXPECT_EQ(json_string_room(long_plain), 43);
    EXPECT_EQ(json_string_room(controls + "\x01"), 2 + 41 * 6);
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
