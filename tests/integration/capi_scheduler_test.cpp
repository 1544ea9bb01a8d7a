// qy_scheduler_* on a real broker, through libqueuey.so only: of two schedulers one leads
// and fires, and freeing it hands the lead to the other with no fire doubled (the broker
// side in depth: scheduler_test.cpp).
#include "broker_fixture.hpp"
#include "capi_support.hpp"
#include "raw_amqp.hpp"

#include <thread>

namespace queuey_it {
namespace {

using namespace std::chrono;
using SchedulerOptions =
    std::unique_ptr<qy_scheduler_options,
                    capi::Freer<qy_scheduler_options, qy_scheduler_options_free>>;
using Scheduler = std::unique_ptr<qy_scheduler, capi::Freer<qy_scheduler, qy_scheduler_free>>;

std::uint64_t count(const Scheduler &scheduler, qy_scheduler_counter counter) {
    std::uint64_t value = 0;
    EXPECT_EQ(qy_scheduler_count(scheduler.get(), counter, &value, nullptr), QY_OK);
    return value;
}

class CApiSchedulerTest : public BrokerTest {};

TEST_F(CApiSchedulerTest, TheLeaderFiresAndFreeingItHandsTheLeadOn) {
    const std::string queue = new_queue("ticks");
    const std::string name = unique_name("ticks");
    const std::string group = unique_name("group");
    delete_after("queuey.schedule.record." + name);
    delete_after("queuey.schedule.leader." + group);

    qy_scheduler_options *raw_options = nullptr;
    ASSERT_EQ(qy_scheduler_options_new(&raw_options, nullptr), QY_OK);
    const SchedulerOptions options(raw_options);
    qy_schedule *schedule = nullptr;
    ASSERT_EQ(qy_schedule_new(name.c_str(), queue.c_str(), "it.tick", nullptr, nullptr, 1000,
                              &schedule, nullptr),
              QY_OK);
    ASSERT_EQ(qy_scheduler_options_add_schedule(options.get(), schedule, nullptr), QY_OK);
    qy_schedule_free(schedule);
    const capi::QueueConfig config = capi::new_config(queue);
    ASSERT_EQ(qy_scheduler_options_add_queue(options.get(), config.get(), nullptr), QY_OK);
    ASSERT_EQ(qy_scheduler_options_set_group(options.get(), group.c_str(), nullptr), QY_OK);

    Scheduler schedulers[2];
    for (Scheduler &scheduler : schedulers) {
        qy_scheduler *raw = nullptr;
        ASSERT_EQ(qy_scheduler_new(endpoint().url.c_str(), nullptr, options.get(), &raw, nullptr),
                  QY_OK);
        scheduler.reset(raw);
    }
    int leader = -1;
    ASSERT_TRUE(eventually(
        [&] {
            for (int i = 0; i < 2; ++i)
                if (qy_scheduler_leading(schedulers[i].get())) leader = i;
            return leader >= 0;
        },
        seconds{10}));
    std::this_thread::sleep_for(milliseconds{2500});
    const std::uint64_t fired_first = count(schedulers[leader], QY_SCHEDULER_FIRES);
    EXPECT_GE(fired_first, 2u);
    EXPECT_EQ(count(schedulers[leader], QY_SCHEDULER_LEADS), 1u);
    schedulers[leader].reset();

    Scheduler &next = schedulers[1 - leader];
    EXPECT_TRUE(eventually([&] { return qy_scheduler_leading(next.get()) == 1; }, seconds{2}));
    std::this_thread::sleep_for(milliseconds{2500});
    const std::uint64_t fired_next = count(next, QY_SCHEDULER_FIRES);
    EXPECT_GE(fired_next, 2u);
    const std::uint64_t skipped = count(next, QY_SCHEDULER_SKIPPED);
    next.reset();

    RawAmqp raw(endpoint());
    EXPECT_EQ(raw.message_count(queue), fired_first + fired_next)
        << "the queue holds another number of jobs than the schedulers counted";
    EXPECT_EQ(skipped, 0u);
}

}  // namespace
}  // namespace queuey_it
