// Big bodies' memory kept for the next big body: what is kept, what a body of which size
// takes back, the bound on what is kept, and several threads taking and giving at once.
#include "broker/body_memory.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <utility>
#include <vector>

namespace queuey {
namespace {

constexpr std::size_t kib = 1024, mib = 1024 * kib;

TEST(BodyMemory, AFreedBigBodysMemoryIsTheNextOnes) {
    BodyMemory memory;
    std::size_t capacity = 0;
    char *first = memory.take(mib, capacity);
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(capacity, mib);
    memory.give(first, capacity);
    EXPECT_EQ(memory.kept_bytes(), mib);
    char *second = memory.take(mib, capacity);
    EXPECT_EQ(second, first);
    EXPECT_EQ(capacity, mib);
    EXPECT_EQ(memory.kept_bytes(), 0u);
    memory.give(second, capacity);
}

TEST(BodyMemory, ABigBodysCapacityIsRoundedUpToPages) {
    BodyMemory memory;
    std::size_t capacity = 0;
    char *bytes = memory.take(BodyMemory::smallest_kept, capacity);
    EXPECT_EQ(capacity, BodyMemory::smallest_kept);
    memory.give(bytes, capacity);
    char *paged = memory.take(BodyMemory::smallest_kept + 1, capacity);  // over the kept one
    EXPECT_EQ(capacity, BodyMemory::smallest_kept + 4 * kib);
    memory.give(paged, capacity);
    EXPECT_EQ(memory.kept_bytes(), 2 * BodyMemory::smallest_kept + 4 * kib);
    // A body of a few bytes more or less takes the same memory.
    EXPECT_EQ(memory.take(BodyMemory::smallest_kept + 3 * kib, capacity), paged);
    EXPECT_EQ(capacity, BodyMemory::smallest_kept + 4 * kib);
    memory.give(paged, capacity);
}

TEST(BodyMemory, ReleaseFreesAllThatIsKeptAndKeepsAgainAfterwards) {
    BodyMemory memory;
    std::size_t capacity = 0;
    std::vector<std::pair<char *, std::size_t>> bodies;
    for (int i = 0; i < 4; ++i) {
        char *bytes = memory.take(mib, capacity);
        ASSERT_NE(bytes, nullptr);
        bodies.emplace_back(bytes, capacity);
    }
    for (const auto &[bytes, size] : bodies) memory.give(bytes, size);
    EXPECT_EQ(memory.kept_bytes(), 4 * mib);
    memory.release();
    EXPECT_EQ(memory.kept_bytes(), 0u);
    memory.release();  // nothing kept: a no-op
    EXPECT_EQ(memory.kept_bytes(), 0u);
    char *again = memory.take(mib, capacity);  // from malloc
    memory.give(again, capacity);
    EXPECT_EQ(memory.kept_bytes(), mib);
}

// The process's body memory, as qy_release_cached_memory frees it.
TEST(BodyMemory, ReleasingCachedMemoryEmptiesTheProcesssBodyMemory) {
    std::size_t capacity = 0;
    char *bytes = body_memory().take(mib, capacity);
    body_memory().give(bytes, capacity);
    EXPECT_GE(body_memory().kept_bytes(), mib);
    release_cached_memory();
    EXPECT_EQ(body_memory().kept_bytes(), 0u);
}

TEST(BodyMemory, SmallBodiesAreFreedNotKept) {
    BodyMemory memory;
    std::size_t capacity = 0;
    char *bytes = memory.take(100, capacity);
    ASSERT_NE(bytes, nullptr);
    EXPECT_EQ(capacity, 100u);
    memory.give(bytes, capacity);
    EXPECT_EQ(memory.kept_bytes(), 0u);
}

TEST(BodyMemory, ABodyUnderHalfTheKeptMemoryGetsItsOwn) {
    BodyMemory memory;
    std::size_t capacity = 0;
    char *big = memory.take(mib, capacity);
    memory.give(big, capacity);
    std::size_t small_capacity = 0;
    char *small = memory.take(256 * kib, small_capacity);
    EXPECT_NE(small, big);
    EXPECT_EQ(small_capacity, 256 * kib);
    EXPECT_EQ(memory.kept_bytes(), mib);
    // Over half of it: the kept memory, with its whole capacity.
    std::size_t near_capacity = 0;
    char *near = memory.take(600 * kib, near_capacity);
    EXPECT_EQ(near, big);
    EXPECT_EQ(near_capacity, mib);
    memory.give(small, small_capacity);
    memory.give(near, near_capacity);
}

TEST(BodyMemory, TheSmallestKeptMemoryThatFitsIsTaken) {
    BodyMemory memory;
    std::size_t two_capacity = 0, one_capacity = 0, half_capacity = 0;
    char *two = memory.take(2 * mib, two_capacity);
    char *one = memory.take(mib, one_capacity);
    char *half = memory.take(mib / 2, half_capacity);
    memory.give(two, two_capacity);
    memory.give(half, half_capacity);
    memory.give(one, one_capacity);
    std::size_t capacity = 0;
    EXPECT_EQ(memory.take(900 * kib, capacity), one);
    EXPECT_EQ(capacity, mib);
    EXPECT_EQ(memory.kept_bytes(), 2 * mib + mib / 2);
    memory.give(one, capacity);
}

TEST(BodyMemory, NoMoreThanTheBoundIsKept) {
    BodyMemory memory;
    const std::size_t count = BodyMemory::kept_most / mib + 4;
    std::vector<char *> taken;
    std::size_t capacity = 0;
    for (std::size_t i = 0; i < count; ++i) taken.push_back(memory.take(mib, capacity));
    for (char *bytes : taken) memory.give(bytes, mib);
    EXPECT_EQ(memory.kept_bytes(), BodyMemory::kept_most);
}

TEST(BodyMemory, ThreadsTakeAndGiveAtOnce) {
    BodyMemory memory;
    constexpr int threads = 4, rounds = 200;
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t)
        running.emplace_back([&memory, mark = static_cast<char>('a' + t)] {
            for (int round = 0; round < rounds; ++round) {
                std::size_t capacity = 0;
                char *bytes = memory.take(mib, capacity);
                ASSERT_NE(bytes, nullptr);
                // Memory handed to two threads at once would soon show the other's mark.
                bytes[0] = bytes[mib - 1] = mark;
                std::this_thread::yield();
                EXPECT_EQ(bytes[0], mark);
                EXPECT_EQ(bytes[mib - 1], mark);
                memory.give(bytes, capacity);
            }
        });
    for (auto &thread : running) thread.join();
    // Each thread held one at a time: between one and `threads` memories, all kept.
    EXPECT_GE(memory.kept_bytes(), mib);
    EXPECT_LE(memory.kept_bytes(), threads * mib);
    EXPECT_EQ(memory.kept_bytes() % mib, 0u);
}

}  // namespace
}  // namespace queuey
