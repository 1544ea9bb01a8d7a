// qy_worker_counter() through the C API: every counter of the header reads 0 on a worker
// that has not run yet, the ones added in 0.2.0 and 0.3.0 included.
#include "memory_worker.hpp"

#include <gtest/gtest.h>

namespace {

TEST(Counters, EveryCounterReadsZeroOnAFreshWorker) {
    const qyt::Client client = qyt::memory_client("q");
    ASSERT_TRUE(client);
    const qyt::Worker worker = qyt::worker_on(client.get(), "q");
    ASSERT_TRUE(worker);
    EXPECT_EQ(qy_worker_counter(worker.get(), QY_COUNTER_DEAD_LETTERED_MALFORMED), 0u);
    EXPECT_EQ(qy_worker_counter(worker.get(), QY_COUNTER_DROPPED_MALFORMED), 0u);
    EXPECT_EQ(qy_worker_counter(worker.get(), QY_COUNTER_PARKED), 0u);
    EXPECT_EQ(qy_worker_counter(worker.get(), QY_COUNTER_DUPLICATE_FIRES), 0u);
    for (int counter = QY_COUNTER_SUCCEEDED; counter <= QY_COUNTER_DUPLICATE_FIRES; ++counter)
        EXPECT_EQ(qy_worker_counter(worker.get(), static_cast<qy_counter>(counter)), 0u) << counter;
    EXPECT_EQ(qy_worker_counter(nullptr, QY_COUNTER_DEAD_LETTERED_MALFORMED), 0u);
}

}  // namespace
