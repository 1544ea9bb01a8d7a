#include "unsigned_field.hpp"

#include <gtest/gtest.h>

namespace queuey {
namespace {

std::uint64_t value_of(std::string_view digits, unsigned bits) {
    auto parsed = parse_unsigned_field(digits, bits);
    EXPECT_TRUE(std::holds_alternative<std::uint64_t>(parsed)) << std::get<std::string>(parsed);
    return std::get<std::uint64_t>(parsed);
}

std::string problem_of(std::string_view digits, unsigned bits) {
    auto parsed = parse_unsigned_field(digits, bits);
    EXPECT_TRUE(std::holds_alternative<std::string>(parsed));
    return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : "";
}

TEST(UnsignedField, AcceptsTheWholeRange) {
    EXPECT_EQ(value_of("0", 8), 0u);
    EXPECT_EQ(value_of("255", 8), 255u);
    EXPECT_EQ(value_of("4294967295", 32), 4294967295u);
    EXPECT_EQ(value_of("18446744073709551615", 64), 18446744073709551615u);
    // 19 digits are read on a short path, 20 by from_chars: both ends of each.
    EXPECT_EQ(value_of("9999999999999999999", 64), 9999999999999999999u);
    EXPECT_EQ(value_of("10000000000000000000", 64), 10000000000000000000u);
    EXPECT_EQ(value_of("0000000000000000007", 8), 7u);
}

TEST(UnsignedField, NamesTheReason) {
    EXPECT_EQ(problem_of("256", 8), "256 is out of range; expected an unsigned 8-bit integer");
    EXPECT_EQ(problem_of("4294967296", 32),
              "4294967296 is out of range; expected an unsigned 32-bit integer");
    EXPECT_EQ(problem_of("18446744073709551616", 64),
              "18446744073709551616 is out of range; expected an unsigned 64-bit integer");
    EXPECT_EQ(problem_of("9999999999999999999", 32),
              "9999999999999999999 is out of range; expected an unsigned 32-bit integer");
    EXPECT_EQ(problem_of("-1", 32), "-1 is negative; expected an unsigned 32-bit integer");
    EXPECT_EQ(problem_of("-0", 32), "-0 is negative; expected an unsigned 32-bit integer");
    EXPECT_EQ(problem_of("1.5", 32), "1.5 is not an integer; expected an unsigned 32-bit integer");
    EXPECT_EQ(problem_of("2.0", 32), "2.0 is not an integer; expected an unsigned 32-bit integer");
    EXPECT_EQ(problem_of("1e2", 32), "1e2 is not an integer; expected an unsigned 32-bit integer");
}

TEST(UnsignedField, ShortensLongNumbersInTheMessage) {
    const std::string huge(400, '9');
    const std::string message = problem_of(huge, 64);
    EXPECT_EQ(message,
              std::string(37, '9') + "... is out of range; expected an unsigned 64-bit integer");
}

}  // namespace
}  // namespace queuey
