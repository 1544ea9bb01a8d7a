// The window of fires a worker settled (worker/settled_fires.hpp): what it keeps, for how
// long, and which ids go first when it is full.
#include "worker/settled_fires.hpp"

#include <gtest/gtest.h>

namespace {

using namespace std::chrono_literals;
using queuey::SettledFires;

const SettledFires::Clock::time_point start{};

TEST(SettledFires, KeepsAnIdForTheWindowAndNotAfter) {
    SettledFires fires(10s, 100);
    EXPECT_FALSE(fires.contains("a", start));
    fires.add("a", start);
    EXPECT_TRUE(fires.contains("a", start));
    EXPECT_TRUE(fires.contains("a", start + 9999ms));
    EXPECT_FALSE(fires.contains("b", start + 1s));
    EXPECT_FALSE(fires.contains("a", start + 10s));
}

TEST(SettledFires, AddingAnIdAgainDoesNotExtendItsTime) {
    SettledFires fires(10s, 100);
    fires.add("a", start);
    fires.add("a", start + 5s);
    EXPECT_FALSE(fires.contains("a", start + 10s));
    fires.add("a", start + 11s);  // expired: kept anew
    EXPECT_TRUE(fires.contains("a", start + 20s));
}

TEST(SettledFires, WhenFullTheOldestIdGoesFirst) {
    SettledFires fires(1h, 3);
    for (const char *id : {"a", "b", "c", "d"}) fires.add(id, start);
    EXPECT_FALSE(fires.contains("a", start));
    EXPECT_TRUE(fires.contains("b", start));
    EXPECT_TRUE(fires.contains("c", start));
    EXPECT_TRUE(fires.contains("d", start));
}

}  // namespace
