// The cluster's one scheduler (docs/scheduling.md) on a real broker: schedulers in one
// process, each on a connection of its own, elect a leader on the broker; the leader
// enqueues each fire once with its record; a leader's lost connection hands the lead on
// without a fire doubled, and a fire missing only when the skip policy says so (counted).
#include "broker_ctl.hpp"
#include "core_fixture.hpp"

#include "schedule/fire_id.hpp"
#include "schedule/schedule_definitions.hpp"
#include "schedule/schedule_queues.hpp"
#include "schedule/scheduler.hpp"

#include <unistd.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace queuey_it {
namespace {

using namespace std::chrono;
using queuey::FireTime;
using queuey::Scheduler;

class SchedulerTest : public CoreTest {
protected:
    void SetUp() override {
        CoreTest::SetUp();
        queue_ = declare_queue({}, "fires").name;
        group_ = unique_name("group");
        delete_after(queuey::leader_queue_name(group_));
        delete_after(queuey::definitions_queue_name(group_));
    }

    queuey::Schedule every_second(const std::string &name, milliseconds interval = seconds{1}) {
        queuey::ScheduleDefinition definition;
        definition.name = name;
        definition.queue = queue_;
        definition.job_type = "it.tick";
        definition.interval = interval;
        delete_after(queuey::record_queue_name(name));
        return queuey::Schedule(definition);
    }

    std::unique_ptr<Scheduler> start(
        const std::string &connection_name, const queuey::Schedule &schedule,
        milliseconds token_renewal = minutes{10},
        const std::function<void(queuey::SchedulerOptions &)> &tweak = {}) {
        queuey::SchedulerOptions options;
        options.urls = {queuey::parse_amqp_url(endpoint().url)};
        options.session.connection_name = connection_name;
        options.session.heartbeat = seconds{2};
        options.reconnect.backoff = {milliseconds(100), 2.0, milliseconds(1000), false};
        options.schedules = {schedule};
        options.group = group_;
        options.token_renewal = token_renewal;
        if (tweak) tweak(options);
        return std::make_unique<Scheduler>(std::move(options));
    }

    // The fire times of the jobs in the queue, by job id (each id once: a second is a
    // failure of the test).
    std::map<std::string, FireTime> fires_in_queue() {
        std::map<std::string, FireTime> fires;
        auto browser = backend_->browse(queue_);
        while (const auto message = browser->next()) {
            const auto time = queuey::recorded_time(*message);
            EXPECT_TRUE(time) << "a fire without its fire time header";
            EXPECT_TRUE(fires.emplace(message->message_id, time.value_or(FireTime{})).second)
                << "fire " << message->message_id << " enqueued twice";
            // Routed to the record by BCC, which the broker strips.
            EXPECT_EQ(message->header("BCC"), nullptr);
        }
        return fires;
    }

    std::string queue_;
    std::string group_;
};

TEST_F(SchedulerTest, OneOfThreeLeadsAndEachFireIsEnqueuedOnceWithItsId) {
    const queuey::Schedule ticks = every_second(unique_name("ticks"));
    std::vector<std::unique_ptr<Scheduler>> schedulers;
    for (int i = 0; i < 3; ++i) schedulers.push_back(start(unique_name("sched"), ticks));
    std::this_thread::sleep_for(seconds{4});
    int leaders = 0;
    for (const auto &scheduler : schedulers) leaders += scheduler->leading() ? 1 : 0;
    EXPECT_EQ(leaders, 1);
    for (const auto &scheduler : schedulers) scheduler->stop();

    const auto fires = fires_in_queue();
    std::uint64_t counted = 0;
    for (const auto &scheduler : schedulers) counted += scheduler->counters().fires;
    EXPECT_EQ(fires.size(), counted);
    EXPECT_GE(fires.size(), 2u);
    for (const auto &[id, time] : fires)
        EXPECT_EQ(id, queuey::fire_job_id(ticks.definition().name, time));
    // The record is the last fire itself.
    auto record = backend_->browse(queuey::record_queue_name(ticks.definition().name));
    const auto last = record->next();
    ASSERT_TRUE(last);
    EXPECT_EQ(queuey::recorded_time(*last), fires.at(last->message_id));
    EXPECT_EQ(record->next(), std::nullopt);
    for (const auto &[id, time] : fires) EXPECT_LE(time, *queuey::recorded_time(*last));
}

// The leader publishes what it fires; a scheduler defined otherwise logs each difference
// once however often it reads them again, and the leader's definitions are what fires.
TEST_F(SchedulerTest, ASchedulerDefinedOtherwiseLogsEachDifferenceOnce) {
    const std::string name = unique_name("ticks");
    const std::string leader_name = unique_name("sched");
    auto leader = start(leader_name, every_second(name));
    ASSERT_TRUE(eventually([&] { return leader->counters().fires >= 1; }, seconds{10}));
    std::mutex mutex;
    std::vector<std::string> warnings;
    auto other = start(unique_name("sched"), every_second(name, seconds{2}), minutes{10},
                       [&](queuey::SchedulerOptions &options) {
                           options.definitions_check = milliseconds{200};
                           options.logger = queuey::Logger::dispatching_to(
                               [&](queuey::LogLevel level, const std::string &line) {
                                   std::lock_guard lock(mutex);
                                   if (level == queuey::LogLevel::warn) warnings.push_back(line);
                               });
                       });
    std::this_thread::sleep_for(seconds{2});  // ten reads of the definitions
    other->stop();
    leader->stop();
    {
        std::lock_guard lock(mutex);
        ASSERT_EQ(warnings.size(), 1u);
        EXPECT_EQ(warnings[0], "scheduler: schedule `" + name +
                                   "` differs from the leader's (connection '" + leader_name +
                                   "'): fires `every 2000 ms` here, `every 1000 ms` in the "
                                   "leader's; the leader's fires");
    }
    auto browser = backend_->browse(queuey::definitions_queue_name(group_));
    const auto message = browser->next();
    ASSERT_TRUE(message);
    const queuey::PublishedDefinitions published = queuey::decode_definitions(message->body);
    EXPECT_EQ(published.leader.connection, leader_name);
    EXPECT_EQ(published.leader.pid, ::getpid());
    ASSERT_EQ(published.schedules.size(), 1u);
    EXPECT_EQ(published.schedules[0].interval, seconds{1});
    EXPECT_EQ(browser->next(), std::nullopt);
    // Every fire is one second apart: the leader's definition.
    std::set<FireTime> times;
    for (const auto &[id, time] : fires_in_queue()) times.insert(time);
    ASSERT_GE(times.size(), 2u);
    EXPECT_EQ(duration_cast<seconds>(*times.rbegin() - *times.begin()).count() + 1,
              static_cast<long long>(times.size()));
}

// The leader gives its token back (as it does well inside the broker's consumer timeout)
// and the broker hands it straight back to it: the lead never moves, no fire is missed.
TEST_F(SchedulerTest, ALeaderThatRenewsItsTokenKeepsTheLead) {
    const queuey::Schedule ticks = every_second(unique_name("ticks"));
    auto first = start(unique_name("sched"), ticks, milliseconds{300});
    ASSERT_TRUE(eventually([&] { return first->leading(); }, seconds{10}));
    auto second = start(unique_name("sched"), ticks, milliseconds{300});
    std::this_thread::sleep_for(seconds{4});
    EXPECT_TRUE(first->leading());
    EXPECT_FALSE(second->leading());
    second->stop();
    first->stop();
    EXPECT_EQ(first->counters().leads, 1u);
    EXPECT_EQ(second->counters().leads, 0u);
    const auto fires = fires_in_queue();
    std::set<FireTime> times;
    for (const auto &[id, time] : fires) times.insert(time);
    ASSERT_GE(times.size(), 3u);
    EXPECT_EQ(duration_cast<seconds>(*times.rbegin() - *times.begin()).count() + 1,
              static_cast<long long>(times.size()))
        << "a fire missed while the token was renewed";
}

// Leaders lost three ways in turn: their connection closed by the broker, their process
// stopping (a replacement starts), and once more closed. Every second from the first fire
// to the last is enqueued once or skipped (and counted), never twice.
TEST_F(SchedulerTest, ALostLeaderHandsOverWithNoFireDoubledAndEveryGapCounted) {
    const queuey::Schedule ticks = every_second(unique_name("ticks"));
    std::vector<std::string> names;
    std::vector<std::unique_ptr<Scheduler>> schedulers;
    for (int i = 0; i < 3; ++i) {
        names.push_back(unique_name("sched"));
        schedulers.push_back(start(names.back(), ticks));
    }
    std::uint64_t fires_of_stopped = 0, skipped_of_stopped = 0, failures = 0;
    for (int round = 0; round < 6; ++round) {
        std::size_t leader = schedulers.size();
        ASSERT_TRUE(eventually(
            [&] {
                for (std::size_t i = 0; i < schedulers.size(); ++i)
                    if (schedulers[i]->leading()) leader = i;
                return leader < schedulers.size();
            },
            seconds{10}))
            << "no leader in round " << round;
        std::this_thread::sleep_for(milliseconds{1500});
        auto lost_at = steady_clock::now();
        if (round % 2 == 0) {
            EXPECT_EQ(close_connections(endpoint(), names[leader]), 1u);
            lost_at = steady_clock::now();  // rabbitmqctl itself takes a second to start
        } else {
            schedulers[leader]->stop();
            fires_of_stopped += schedulers[leader]->counters().fires;
            skipped_of_stopped += schedulers[leader]->counters().skipped;
            failures += schedulers[leader]->counters().failures;
            names[leader] = unique_name("sched");
            schedulers[leader] = start(names[leader], ticks);
        }
        EXPECT_TRUE(eventually(
            [&] {
                for (std::size_t i = 0; i < schedulers.size(); ++i)
                    if (i != leader && schedulers[i]->leading()) return true;
                return round % 2 == 0 && schedulers[leader]->leading();
            },
            seconds{5}))
            << "round " << round << ": no new leader within 5 s";
        std::printf("round %d: a new leader %lld ms after the loss\n", round,
                    static_cast<long long>(
                        duration_cast<milliseconds>(steady_clock::now() - lost_at).count()));
    }
    std::this_thread::sleep_for(milliseconds{1500});
    std::uint64_t fires_counted = fires_of_stopped, skipped = skipped_of_stopped;
    // Every close reached a scheduler: it lost its connection and said so.
    for (const auto &scheduler : schedulers) {
        scheduler->stop();
        fires_counted += scheduler->counters().fires;
        skipped += scheduler->counters().skipped;
        failures += scheduler->counters().failures;
    }
    const auto fires = fires_in_queue();
    ASSERT_FALSE(fires.empty());
    std::set<FireTime> times;
    for (const auto &[id, time] : fires) times.insert(time);
    EXPECT_EQ(times.size(), fires.size()) << "two ids for one fire time";
    const auto span = duration_cast<seconds>(*times.rbegin() - *times.begin()).count() + 1;
    std::printf("%zu fires over %lld s, %llu skipped and counted, %llu connections lost\n",
                fires.size(), static_cast<long long>(span),
                static_cast<unsigned long long>(skipped),
                static_cast<unsigned long long>(failures));
    EXPECT_EQ(fires.size(), fires_counted);
    EXPECT_EQ(fires.size() + skipped, static_cast<std::size_t>(span))
        << "a fire missing that no scheduler counted as skipped";
    EXPECT_GE(failures, 3u);
}

}  // namespace
}  // namespace queuey_it
