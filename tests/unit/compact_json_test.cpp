// Which JSON the fast path keeps as it is: exactly what the encoder writes, and nothing
// RapidJSON's reader would refuse or rewrite.
#include "compact_json.hpp"

#include <gtest/gtest.h>

#include <string>

namespace queuey {
namespace {

std::string nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(CompactJson, AcceptsWhatTheEncoderWrites) {
    const std::string accepted[] = {
        R"({"a":[1,-0.5,0,-0,1e-7,2E+308,1.5e-400,true,false,null],"b":{},"c":[]})",
        R"("\"\\\b\f\n\r\t\u0000\u0001\u001f é 🚀 /")",
        R"({"k":"v","k":"dup keys are the payload's business"})",
        "123456789012345678901234567890",
        std::string(300, '9'),
        nested(64),
    };
    for (const std::string &json : accepted) EXPECT_TRUE(is_compact_json(json)) << json;
}

TEST(CompactJson, LeavesEverythingElseToTheReader) {
    const std::string refused[] = {
        "",
        " 1",
        "1 ",
        R"({"a": 1})",
        R"([1, 2])",  // whitespace is rewritten
        R"("\/")",
        R"("\u00e9")",
        R"("\u000a")",
        R"("\u001F")",
        R"("\u007f")",
        R"("\ud83d\ude80")",
        "01",
        "1.",
        ".5",
        "-",
        "+1",
        "1e",
        "1e309",
        "1e0309",
        "NaN",
        "Infinity",
        std::string(301, '9'),  // near where RapidJSON reports a number too big
        "\"a\x01\"",
        "\"unterminated",
        "[1,]",
        R"({"a":1,})",
        R"({"a"})",
        "{1:2}",
        "tru",
        "nul",
        "[1]]",
        "[1}",
        nested(65),
        "\"\xff\"",
        std::string("\"a\0\"", 4),
    };
    for (const std::string &json : refused) EXPECT_FALSE(is_compact_json(json)) << json;
}

TEST(CompactJson, StringsWithoutEscapesOnRequest) {
    const std::string plain = R"("myapp.emails")", escaped = R"("a\nb")";
    const char *plain_end = plain.data() + plain.size();
    const char *escaped_end = escaped.data() + escaped.size();
    EXPECT_EQ(compact_string_end(plain.data(), plain_end, false), plain_end);
    EXPECT_EQ(compact_string_end(escaped.data(), escaped_end, true), escaped_end);
    EXPECT_EQ(compact_string_end(escaped.data(), escaped_end, false), nullptr);
}

// The scan goes 32 bytes at a time (AVX2, strings of 256 bytes and more), 16 or 8, then
// byte by byte: a byte that ends or spoils a string is found at every offset, and bytes
// from 0x80 up are plain text.
TEST(CompactJson, FindsEachSpecialByteAtEveryOffset) {
    for (std::size_t offset = 0; offset < 330; ++offset) {
        std::string text = '"' + std::string(offset, 'x') + '"' + std::string(40, 'y');
        const char *end = text.data() + text.size();
        EXPECT_EQ(compact_string_end(text.data(), end, false), text.data() + offset + 2) << offset;
        for (const char spoiler : {'\x01', '\x1f', '\\'}) {
            text[offset + 1] = spoiler;
            EXPECT_EQ(compact_string_end(text.data(), end, false), nullptr)
                << offset << " " << int(spoiler);
            text[offset + 1] = '"';
        }
        const std::string high = '"' + std::string(offset, '\x80') + "\xff\x20\x7f\"";
        EXPECT_EQ(compact_string_end(high.data(), high.data() + high.size(), false),
                  high.data() + high.size())
            << offset;
    }
}

// A backslash is found at every offset too, also where the string goes on after it: an
// escape the encoder does not write is refused, an escaped quote does not end the string.
TEST(CompactJson, FindsEachEscapeAtEveryOffset) {
    for (std::size_t offset = 0; offset < 330; ++offset) {
        const std::string before(offset, 'x'), after(40, 'y');
        const std::string bad_escape = '"' + before + "\\q" + after + '"';
        EXPECT_EQ(compact_string_end(bad_escape.data(), bad_escape.data() + bad_escape.size()),
                  nullptr)
            << offset;
        const std::string escaped_quote = '"' + before + "\\\"" + after + '"';
        EXPECT_EQ(
            compact_string_end(escaped_quote.data(), escaped_quote.data() + escaped_quote.size()),
            escaped_quote.data() + escaped_quote.size())
            << offset;
    }
}

// UTF-8 is checked only for a value with a byte from 0x80 up, noted while scanning: such a
// byte is noted at every offset of a key or a string, ASCII alone never is, and invalid
// UTF-8 at any offset is still refused.
TEST(CompactJson, NotesBytesAboveAsciiAtEveryOffset) {
    for (std::size_t offset = 0; offset < 330; ++offset) {
        const std::string before(offset, 'x'), after(offset % 2 == 0 ? 40 : 300, 'y');
        for (const std::string &json :
             {R"({"k":[1,")" + before + '"' + R"(,true],")" + after + R"(":null})",
              R"({")" + before + after + R"(":")" + before + R"("})"}) {
            bool non_ascii = false;
            EXPECT_EQ(compact_value_end(json.data(), json.data() + json.size(), non_ascii),
                      json.data() + json.size());
            EXPECT_FALSE(non_ascii) << json;
        }
        for (const std::string &json : {'"' + before + "\xc3\xa9" + after + '"',
                                        R"({")" + before + "\xc3\xa9" + R"(":1})",
                                        "[\"" + after + "\",\"" + before + "\xc3\xa9\"]"}) {
            bool non_ascii = false;
            EXPECT_EQ(compact_value_end(json.data(), json.data() + json.size(), non_ascii),
                      json.data() + json.size());
            EXPECT_TRUE(non_ascii) << json;
            EXPECT_TRUE(is_compact_json(json)) << json;
            std::string spoiled = json;
            spoiled[spoiled.find('\xa9')] = '\xff';
            EXPECT_FALSE(is_compact_json(spoiled)) << spoiled;
        }
    }
}

}  // namespace
}  // namespace queuey
