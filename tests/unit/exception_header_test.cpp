// The x-exception header of a dead letter: its value (type, newline, detail), its bound
// of 4096 bytes with a marker, cut at a UTF-8 character boundary, and where it goes.
#include "exception_header.hpp"
#include "amqp_properties.hpp"
#include "envelope.hpp"
#include "utf8.hpp"

#include <gtest/gtest.h>

#include <string>

namespace queuey {
namespace {

std::string repeat(std::string_view unit, std::size_t times) {
    std::string out;
    for (std::size_t i = 0; i < times; ++i) out += unit;
    return out;
}

TEST(ExceptionHeader, IsTheTypeANewlineAndTheDetail) {
    EXPECT_EQ(exception_header_value("std::runtime_error", "boom"), "std::runtime_error\nboom");
    EXPECT_EQ(exception_header_value("app::Oops", ""), "app::Oops\n");
    EXPECT_EQ(exception_header_value("T", "line 1\nline 2"), "T\nline 1\nline 2");
}

TEST(ExceptionHeader, ThatFitsIsKeptWhole) {
    const std::string detail = repeat("a", exception_header_max - 2);  // "T\n" + detail
    const std::string value = exception_header_value("T", detail);
    EXPECT_EQ(value.size(), exception_header_max);
    EXPECT_EQ(value, "T\n" + detail);
}

TEST(ExceptionHeader, ALongOneIsCutToTheBoundWithTheMarker) {
    const std::string detail = repeat("x", 10000);
    const std::string value = exception_header_value("T", detail);
    EXPECT_EQ(value.size(), exception_header_max);
    EXPECT_EQ(value, "T\n" + repeat("x", exception_header_max - 2 - 12) + "\n[truncated]");
    EXPECT_EQ(exception_truncated_marker, "\n[truncated]");
}

TEST(ExceptionHeader, IsCutAtACharacterBoundary) {
    // "T\n" then 3-byte characters (U+20AC): 4084 bytes are left before the marker, and
    // the character that would straddle byte 4084 is dropped whole.
    const std::string value = exception_header_value("T", repeat("\xE2\x82\xAC", 2000));
    EXPECT_EQ(value.size(), 2 + 1360 * 3 + exception_truncated_marker.size());
    EXPECT_EQ(value, "T\n" + repeat("\xE2\x82\xAC", 1360) + "\n[truncated]");
    EXPECT_TRUE(is_valid_utf8(value));
}

TEST(ExceptionHeader, BytesThatAreNotUtf8BecomeReplacementCharacters) {
    EXPECT_EQ(exception_header_value("T\xFF", "a\xC3(b\xE2\x82"),
              "T\xEF\xBF\xBD\na\xEF\xBF\xBD(b\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ExceptionHeader, GoesOnADeadLetterOnlyWhenThereIsOne) {
    const Envelope env = Envelope::create("t", "q", "{}");
    const AmqpProperties plain = dead_letter_properties(env, DeadLetterCause{"fatal error: x"});
    EXPECT_EQ(plain.headers, dead_letter_properties(env, "fatal error: x").headers);
    const AmqpProperties noted =
        dead_letter_properties(env, DeadLetterCause{"fatal error: x", "T\nboom"});
    ASSERT_EQ(noted.headers.size(), plain.headers.size() + 1);
    EXPECT_EQ(noted.headers.back(), (AmqpHeader{"x-exception", std::string("T\nboom")}));
    EXPECT_EQ(std::vector(noted.headers.begin(), noted.headers.end() - 1), plain.headers);
}

}  // namespace
}  // namespace queuey
