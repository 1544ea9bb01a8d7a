#include "utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace queuey {
namespace {

std::string repeat(std::string_view unit, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += unit;
    return out;
}

TEST(Utf8, TruncatesAtACharacterBoundary) {
    // The spec's example: 400 x "é" (2 bytes each) becomes 127 characters, 254 bytes.
    const std::string long_text = repeat("\xc3\xa9", 400);
    const auto cut = truncate_utf8(long_text, 255);
    EXPECT_EQ(cut.size(), 254u);
    EXPECT_TRUE(is_valid_utf8(cut));
    // A 4-byte character straddling the limit is dropped whole.
    const std::string emoji_tail = repeat("a", 253) + "\xf0\x9f\x98\x80";
    EXPECT_EQ(truncate_utf8(emoji_tail, 255), repeat("a", 253));
    // Short and exactly-fitting text is unchanged.
    EXPECT_EQ(truncate_utf8("abc", 255), "abc");
    EXPECT_EQ(truncate_utf8(repeat("a", 255), 255).size(), 255u);
}

TEST(Utf8, ValidatesStrictly) {
    EXPECT_TRUE(is_valid_utf8(""));
    EXPECT_TRUE(is_valid_utf8("h\xc3\xa9llo \xf0\x9f\x98\x80"));
    EXPECT_FALSE(is_valid_utf8("\xff"));
    EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));          // overlong "/"
    EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));      // a UTF-16 surrogate
    EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));  // past U+10FFFF
    EXPECT_FALSE(is_valid_utf8("\xc3"));              // cut short
}

// ASCII is skipped 64 or 8 bytes at a time, then byte by byte: a bad byte is found at
// every offset, and a good character there is accepted.
TEST(Utf8, ChecksEveryOffsetOfLongText) {
    for (std::size_t offset = 0; offset < 140; ++offset) {
        std::string text = repeat("a", static_cast<int>(offset)) + "\xc3\xa9" + repeat("b", 70);
        EXPECT_TRUE(is_valid_utf8(text)) << offset;
        text[offset] = '\xff';
        EXPECT_FALSE(is_valid_utf8(text)) << offset;
    }
}

}  // namespace
}  // namespace queuey
