// When a held publish may skip declaring its hold queue (src/broker/hold_leases.hpp).
#include "broker/hold_leases.hpp"
#include "jobs_config.hpp"

#include <gtest/gtest.h>

namespace queuey {
namespace {

using namespace std::chrono_literals;
using Clock = HoldLeases::Clock;

TEST(HoldLeases, AClassicHoldMaySkipAQuarterOfItsTtlAfterADeclare) {
    // x-expires 2 x ttl: the lease outlasts a message by one ttl, a quarter of it is skipped.
    const QueueSpec hold = hold_queue_spec(config_of(QueueType::classic), 1000);
    EXPECT_EQ(HoldLeases::skip_window(hold), 250ms);
    HoldLeases leases;
    const auto sent = Clock::now();
    EXPECT_FALSE(leases.fresh(hold, sent)) << "never declared";
    leases.renewed(hold, sent);
    EXPECT_TRUE(leases.fresh(hold, sent));
    EXPECT_TRUE(leases.fresh(hold, sent + 249ms));
    EXPECT_FALSE(leases.fresh(hold, sent + 250ms));
}

TEST(HoldLeases, AQuorumHoldMaySkipAQuarterOfItsLeaseFloor) {
    // x-expires max(2 x ttl, ttl + 5 min): for 1 s, 301 s, of which 300 s outlast a message.
    const QueueSpec hold = hold_queue_spec(config_of(QueueType::quorum), 1000);
    EXPECT_EQ(HoldLeases::skip_window(hold), 75s);
}

TEST(HoldLeases, AQueueWithoutALeaseIsNeverSkipped) {
    const QueueSpec work = work_queue_spec(config_of(QueueType::classic));
    EXPECT_EQ(HoldLeases::skip_window(work), Clock::duration::zero());
    HoldLeases leases;
    const auto now = Clock::now();
    leases.renewed(work, now);
    EXPECT_FALSE(leases.fresh(work, now));
}

TEST(HoldLeases, OtherArgumentsUnderTheSameNameAreDeclared) {
    const QueueSpec classic = hold_queue_spec(config_of(QueueType::classic), 1000);
    QueueSpec transient = classic;
    transient.durable = false;
    HoldLeases leases;
    const auto now = Clock::now();
    leases.renewed(classic, now);
    EXPECT_TRUE(leases.fresh(classic, now));
    EXPECT_FALSE(leases.fresh(transient, now));
}

TEST(HoldLeases, AForgottenQueueIsDeclaredAgain) {
    const QueueSpec one = hold_queue_spec(config_of(QueueType::classic), 1000);
    const QueueSpec two = hold_queue_spec(config_of(QueueType::classic), 2000);
    HoldLeases leases;
    const auto now = Clock::now();
    leases.renewed(one, now);
    leases.renewed(two, now);
    leases.forget(one.name);
    EXPECT_FALSE(leases.fresh(one, now));
    EXPECT_TRUE(leases.fresh(two, now));
    leases.forget_all();
    EXPECT_FALSE(leases.fresh(two, now));
}

TEST(HoldLeases, PruningDropsOnlyTheLeasesWhoseWindowEnded) {
    HoldLeases leases;
    const auto start = Clock::now();
    for (std::uint64_t ttl = 1000; ttl <= 300000; ttl += 1000)  // 300 queues, 250 ms to 75 s
        leases.renewed(hold_queue_spec(config_of(QueueType::classic), ttl), start);
    const QueueSpec latest = hold_queue_spec(config_of(QueueType::classic), 999000);
    leases.renewed(latest, start + 2s);  // past 256: those whose window ended are dropped
    EXPECT_FALSE(leases.fresh(hold_queue_spec(config_of(QueueType::classic), 1000), start + 2s));
    EXPECT_TRUE(leases.fresh(hold_queue_spec(config_of(QueueType::classic), 300000), start + 2s));
    EXPECT_TRUE(leases.fresh(latest, start + 2s));
}

}  // namespace
}  // namespace queuey
