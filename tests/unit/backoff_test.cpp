// Exponential backoff with full jitter: behaviour.md sections 5 and 8.
#include "backoff.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

namespace queuey {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

ExponentialBackoff no_jitter(nanoseconds base, double factor, nanoseconds max) {
    return ExponentialBackoff{base, factor, max, false};
}

TEST(Backoff, DefaultsAreOneSecondDoublingToFiveMinutesWithJitter) {
    const ExponentialBackoff backoff;
    EXPECT_EQ(backoff.base, 1s);
    EXPECT_EQ(backoff.factor, 2.0);
    EXPECT_EQ(backoff.max, 300s);
    EXPECT_TRUE(backoff.jitter);
}

TEST(Backoff, DoublesFromTheBase) {
    const ExponentialBackoff backoff = no_jitter(1s, 2.0, 300s);
    std::mt19937_64 random(1);
    EXPECT_EQ(backoff.delay(1, random), 1s);
    EXPECT_EQ(backoff.delay(2, random), 2s);
    EXPECT_EQ(backoff.delay(3, random), 4s);
    EXPECT_EQ(backoff.delay(4, random), 8s);
    EXPECT_EQ(backoff.ceiling(4), 8s);
    EXPECT_EQ(backoff.ceiling(9), 256s);
    EXPECT_EQ(backoff.ceiling(10), 300s);
}

TEST(Backoff, AttemptZeroCountsAsOne) {
    EXPECT_EQ(no_jitter(1s, 2.0, 300s).ceiling(0), 1s);
    EXPECT_EQ(no_jitter(3s, 10.0, 300s).ceiling(0), 3s);
}

TEST(Backoff, ZeroOrNegativeBaseOrMaxGivesZero) {
    EXPECT_EQ(no_jitter(0s, 2.0, 300s).ceiling(3), 0s);
    EXPECT_EQ(no_jitter(1s, 2.0, 0s).ceiling(3), 0s);
    EXPECT_EQ(no_jitter(-1s, 2.0, 300s).ceiling(3), 0s);
    EXPECT_EQ(no_jitter(1s, 2.0, -1s).ceiling(3), 0s);
    std::mt19937_64 random(1);
    EXPECT_EQ((ExponentialBackoff{0s, 2.0, 300s, true}.delay(3, random)), 0s);
}

TEST(Backoff, OddFactorsCountAsOne) {
    for (const double factor : {0.0, -1.0, -2.0, std::nan(""), HUGE_VAL, -HUGE_VAL})
        EXPECT_EQ(no_jitter(1s, factor, 300s).ceiling(5), 1s) << factor;
    // A factor below one is a valid, shrinking backoff.
    EXPECT_EQ(no_jitter(1s, 0.5, 300s).ceiling(2), 500ms);
}

TEST(Backoff, OverflowGivesMax) {
    EXPECT_EQ(no_jitter(1s, 1e308, 300s).ceiling(3), 300s);
    EXPECT_EQ(no_jitter(1s, 2.0, 300s).ceiling(std::numeric_limits<std::uint32_t>::max()), 300s);
    EXPECT_EQ(no_jitter(nanoseconds::max(), 1.0, nanoseconds::max()).ceiling(1),
              nanoseconds::max());
    EXPECT_EQ(no_jitter(nanoseconds::max(), 2.0, 5s).ceiling(1), 5s);
    EXPECT_EQ(no_jitter(1s, 2.0, nanoseconds::max()).ceiling(64), nanoseconds::max());
}

TEST(Backoff, FullJitterSpreadsOverTheWholeRange) {
    const ExponentialBackoff backoff{1s, 2.0, 300s, true};
    std::mt19937_64 random(42);
    nanoseconds low = nanoseconds::max();
    nanoseconds high = nanoseconds::min();
    std::set<nanoseconds::rep> seen;
    for (int i = 0; i < 2000; ++i) {
        const nanoseconds d = backoff.delay(3, random);
        ASSERT_GE(d, 0ns);
        ASSERT_LE(d, 4s);
        low = std::min(low, d);
        high = std::max(high, d);
        seen.insert(d.count());
    }
    EXPECT_LT(low, 400ms);
    EXPECT_GT(high, 3600ms);
    EXPECT_GT(seen.size(), 1900u);
    // Inclusive at both ends: a one-nanosecond ceiling gives 0 and 1.
    const ExponentialBackoff tiny{1ns, 1.0, 1s, true};
    std::set<nanoseconds::rep> ends;
    for (int i = 0; i < 200; ++i) ends.insert(tiny.delay(1, random).count());
    EXPECT_EQ(ends, (std::set<nanoseconds::rep>{0, 1}));
}

TEST(Backoff, SameSeedSameDelays) {
    const ExponentialBackoff backoff;
    std::mt19937_64 a(7);
    std::mt19937_64 b(7);
    for (std::uint32_t n = 1; n < 20; ++n) EXPECT_EQ(backoff.delay(n, a), backoff.delay(n, b));
}

// Every combination of extreme inputs stays within [0, max(max, 0)]; the UBSan build runs
// this too, so an overflowing conversion or arithmetic would be reported there.
TEST(Backoff, StaysInRangeForExtremeInputs) {
    const std::vector<std::uint32_t> attempts = {
        0, 1, 2, 31, 32, 63, 64, 1000, std::numeric_limits<std::uint32_t>::max()};
    const std::vector<double> factors = {0.0,
                                         -1.0,
                                         0.5,
                                         1.0,
                                         2.0,
                                         1e308,
                                         std::numeric_limits<double>::quiet_NaN(),
                                         std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(),
                                         std::numeric_limits<double>::denorm_min()};
    const std::vector<nanoseconds> durations = {
        0ns, 1ns, 1s, nanoseconds::max(), -1ns, nanoseconds::min()};
    std::mt19937_64 random(3);
    int cases = 0;
    for (const nanoseconds base : durations)
        for (const nanoseconds max : durations)
            for (const double factor : factors)
                for (const bool jitter : {false, true})
                    for (const std::uint32_t n : attempts) {
                        const ExponentialBackoff backoff{base, factor, max, jitter};
                        const nanoseconds top = std::max(max, 0ns);
                        const nanoseconds ceiling = backoff.ceiling(n);
                        const nanoseconds delay = backoff.delay(n, random);
                        ASSERT_GE(ceiling, 0ns) << base.count() << " " << factor << " " << n;
                        ASSERT_LE(ceiling, top) << base.count() << " " << factor << " " << n;
                        ASSERT_GE(delay, 0ns) << base.count() << " " << factor << " " << n;
                        ASSERT_LE(delay, ceiling) << base.count() << " " << factor << " " << n;
                        if (!jitter) {
                            ASSERT_EQ(delay, ceiling);
                        }
                        if (base <= 0ns || max <= 0ns) {
                            ASSERT_EQ(ceiling, 0ns);
                        }
                        ++cases;
                    }
    EXPECT_EQ(cases, 6 * 6 * 10 * 2 * 9);
}

}  // namespace
}  // namespace queuey
