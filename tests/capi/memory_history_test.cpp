// A memory:// client keeps the newest 10000 settled envelopes of each kind, and still
// counts every settle (docs/memory.md, "Bounded histories").
#include "memory_worker.hpp"

namespace {

using Consumer = std::unique_ptr<qy_consumer, qyt::Deleter<qy_consumer_free>>;
using Delivery = std::unique_ptr<qy_delivery, qyt::Deleter<qy_delivery_free>>;

TEST(MemoryHistory, CountsEverySettleBeyondTheEnvelopesKept) {
    constexpr int jobs = 10001;
    const qyt::Client client = qyt::memory_client("q");
    qyt::enqueue(client.get(), "q", "t", jobs);
    qy_consumer *raw = nullptr;
    ASSERT_EQ(qy_consumer_new(client.get(), "q", &raw, nullptr), QY_OK);
    const Consumer consumer(raw);
    for (int i = 0; i < jobs; ++i) {
        qy_delivery *delivery = nullptr;
        ASSERT_EQ(qy_consumer_next(consumer.get(), 1000, &delivery, nullptr), QY_OK);
        ASSERT_NE(delivery, nullptr) << "job " << i;
        const Delivery owned(delivery);
        ASSERT_EQ(qy_delivery_dead_letter(delivery, i == 0 ? "first" : "later", nullptr), QY_OK);
    }
    EXPECT_EQ(qyt::memory_count(client.get(), "q", QY_MEMORY_DEAD_LETTERED), 10001u);
    EXPECT_EQ(qyt::memory_count(client.get(), nullptr, QY_MEMORY_DEAD_LETTERED), 10001u);

    qy_envelope *env = nullptr;
    char *reason = nullptr;
    ASSERT_EQ(qy_client_memory_dead_letter(client.get(), 0, &env, &reason, nullptr), QY_OK);
    const qyt::Envelope oldest_kept(env);
    const qyt::String oldest_reason(reason);
    EXPECT_STREQ(reason, "later") << "the first dead letter is forgotten";
    EXPECT_EQ(qy_client_memory_dead_letter(client.get(), 10000, &env, &reason, nullptr),
              QY_ERR_INVALID_ARGUMENT);
}

}  // namespace
