// behaviour.md section 3 on the broker: the queues of a logical queue, their arguments
// with the AMQP field types the broker stored, durability, the name and delay limits,
// and PRECONDITION_FAILED for a changed declaration.
#include "broker_ctl.hpp"
#include "core_fixture.hpp"

#include "topology.hpp"

#include <future>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

using Arguments = std::map<std::string, BrokerArgument>;

Arguments hold_arguments(const std::string &queue, std::uint64_t ttl, std::uint64_t expires) {
    return {{"x-message-ttl", {"long", std::to_string(ttl)}},
            {"x-dead-letter-exchange", {"longstr", ""}},
            {"x-dead-letter-routing-key", {"longstr", queue}},
            {"x-expires", {"long", std::to_string(expires)}}};
}

class QueueTopology : public CoreTest {
protected:
    // Declares (and later deletes) the hold queue of config for delay by publishing through it.
    std::string hold_through(const queuey::QueueConfig &config, std::chrono::milliseconds delay) {
        const std::string hold = queuey::hold_queue_name(
            config.name, queuey::hold_ttl_ms(delay, config.delay_granularity));
        delete_after(hold);
        producer_->enqueue_after(job(config.name), delay);
        return hold;
    }
};

TEST_F(QueueTopology, WorkDeadAndHoldQueuesHaveTheirArgumentsWithTheirTypes) {
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.message_ttl_ms = 600000; });
    // 29.2 s rounds up to a 30 s hold; long enough that its lease outlasts this test.
    const std::string hold = hold_through(config, 29200ms);
    EXPECT_EQ(hold, config.name + ".deferred.30000");

    auto queues = inspect_queues(endpoint(), {config.name, config.name + ".dead", hold});
    ASSERT_TRUE(queues[config.name]) << "work queue missing";
    EXPECT_TRUE(queues[config.name]->durable);
    EXPECT_EQ(queues[config.name]->arguments, (Arguments{{"x-max-priority", {"unsignedbyte", "10"}},
                                                         {"x-message-ttl", {"long", "600000"}}}));

    ASSERT_TRUE(queues[config.name + ".dead"]) << "dead-letter queue missing";
    EXPECT_TRUE(queues[config.name + ".dead"]->durable);
    EXPECT_EQ(queues[config.name + ".dead"]->arguments, Arguments{});

    ASSERT_TRUE(queues[hold]) << "hold queue missing";
    EXPECT_TRUE(queues[hold]->durable);
    EXPECT_EQ(queues[hold]->arguments, hold_arguments(config.name, 30000, 60000))
        << "a hold queue never has x-max-priority";
}

TEST_F(QueueTopology, ANonDurableQueueWithoutPrioritiesHasNoPriorityArgument) {
    const auto config = declare_queue([](queuey::QueueConfig &c) {
        c.durable = false;
        c.max_priority.reset();
        c.delay_granularity = 250ms;
    });
    const std::string hold = hold_through(config, 20000ms);

    auto queues = inspect_queues(endpoint(), {config.name, config.name + ".dead", hold});
    ASSERT_TRUE(queues[config.name]);
    EXPECT_FALSE(queues[config.name]->durable);
    EXPECT_EQ(queues[config.name]->arguments, Arguments{});
    ASSERT_TRUE(queues[config.name + ".dead"]);
    EXPECT_TRUE(queues[config.name + ".dead"]->durable) << "dead letters are always durable";
    ASSERT_TRUE(queues[hold]);
    EXPECT_FALSE(queues[hold]->durable) << "a hold queue is as durable as its work queue";
    EXPECT_EQ(queues[hold]->arguments, hold_arguments(config.name, 20000, 40000));
}

TEST_F(QueueTopology, AnyMaxPriorityFromOneTo255IsDeclaredAsGiven) {
    for (const int max : {1, 2, 255}) {
        const auto config = declare_queue(
            [&](queuey::QueueConfig &c) { c.max_priority = static_cast<std::uint8_t>(max); });
        auto queues = inspect_queues(endpoint(), {config.name});
        ASSERT_TRUE(queues[config.name]) << "max priority " << max;
        EXPECT_EQ(queues[config.name]->arguments,
                  (Arguments{{"x-max-priority", {"unsignedbyte", std::to_string(max)}}}));
    }
}

TEST_F(QueueTopology, TheLongestNameAndTheLongestDelayFitAndTheLeaseIsTwiceTheTtl) {
    queuey::QueueConfig config;
    config.name = new_queue("max");
    config.name.append(queuey::max_queue_name_bytes - config.name.size(), 'x');
    config.delay_granularity = std::chrono::milliseconds(0);  // counts as 1 ms: no rounding up
    delete_after(config.name);
    delete_after(config.name + ".dead");
    backend_->declare(config);
    const std::string hold = hold_through(config, std::chrono::milliseconds(queuey::max_delay_ms));
    EXPECT_EQ(hold.size(), 255u);

    auto queues = inspect_queues(endpoint(), {hold});
    ASSERT_TRUE(queues[hold]);
    EXPECT_EQ(queues[hold]->arguments, hold_arguments(config.name, 2147483647, 4294967294));
}

TEST_F(QueueTopology, ANameLongerThan235BytesIsRefusedBeforeAnythingIsDeclared) {
    queuey::QueueConfig config;
    config.name = new_queue("long");
    config.name.append(queuey::max_queue_name_bytes + 1 - config.name.size(), 'x');
    const auto error = error_of([&] { backend_->declare(config); });
    ASSERT_TRUE(error) << "a 236-byte queue name was accepted";
    EXPECT_EQ(error->status(), QY_ERR_INVALID_ARGUMENT) << error->what();
    EXPECT_EQ(error->field(), "queue");
    EXPECT_FALSE(raw_->exists(config.name));
    EXPECT_FALSE(raw_->exists(config.name + ".dead"));
}

TEST_F(QueueTopology, ADelayPastTheLongestIsRefusedAndHoldsNothing) {
    const auto config = declare_queue();
    for (const auto delay : {std::chrono::milliseconds(queuey::max_delay_ms + 1),
                             std::chrono::milliseconds(2147483001)}) {  // rounds up past it
        const auto error = error_of([&] { producer_->enqueue_after(job(config.name), delay); });
        ASSERT_TRUE(error) << delay.count() << " ms was accepted";
        EXPECT_EQ(error->status(), QY_ERR_INVALID_ARGUMENT) << error->what();
        EXPECT_EQ(error->field(), "delay");
        EXPECT_NE(std::string(error->what()).find("2147483647"), std::string::npos)
            << error->what();
    }
    EXPECT_FALSE(raw_->exists(config.name + ".deferred.2147484000"));
    EXPECT_FALSE(raw_->exists(config.name + ".deferred.2147483648"));

    // A retry with such a delay is refused too, and leaves the delivery to settle.
    producer_->enqueue(job(config.name));
    auto consumer = backend_->consume(config.name);
    auto delivery = consumer->next(5s);
    ASSERT_TRUE(delivery);
    const auto error = error_of(
        [&] { delivery->retry(delivery->envelope().next_attempt(), std::chrono::hours(24 * 25)); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->status(), QY_ERR_INVALID_ARGUMENT);
    delivery->ack();
}

TEST_F(QueueTopology, AChangedDeclarationFailsWithPreconditionFailedAndTheClientGoesOn) {
    const auto config = declare_queue();
    auto consumer = backend_->consume(config.name);

    queuey::QueueConfig other = config;
    other.max_priority = 5;
    queuey::QueueConfig none = config;
    none.max_priority.reset();
    for (const auto &changed : {other, none}) {
        const auto error = error_of([&] { backend_->declare(changed); });
        ASSERT_TRUE(error) << "redeclaring with other arguments succeeded";
        EXPECT_EQ(error->status(), QY_ERR_PRECONDITION_FAILED) << error->what();
        const std::string message = error->what();
        EXPECT_NE(message.find(config.name), std::string::npos) << message;
        EXPECT_NE(message.find("x-max-priority"), std::string::npos) << message;
    }
    EXPECT_EQ(backend_->config_of(config.name).max_priority, 10) << "the declared config stays";

    // Publishing, declaring and consuming on the same client still work.
    expect_job_flows(*consumer, config.name, "the consumer stopped receiving");
    backend_->declare(config);
    const auto fresh = declare_queue();
    producer_->defer(job(fresh.name), 0ms);
    auto fresh_consumer = backend_->consume(fresh.name);
    auto deferred = fresh_consumer->next(10s);
    ASSERT_TRUE(deferred);
    EXPECT_EQ(deferred->envelope().priority, 10);
    deferred->ack();
}

TEST_F(QueueTopology, ARefusedDeclareDoesNotDisturbPublishesInFlight) {
    const auto config = declare_queue();
    queuey::QueueConfig changed = config;
    changed.max_priority = 3;
    std::vector<queuey::Envelope> batch;
    for (int i = 0; i < 2000; ++i) batch.push_back(job(config.name));
    auto publishing =
        std::async(std::launch::async, [&] { return producer_->enqueue_batch(batch); });
    for (int i = 0; i < 5; ++i) {
        const auto error = error_of([&] { backend_->declare(changed); });
        ASSERT_TRUE(error);
        EXPECT_EQ(error->status(), QY_ERR_PRECONDITION_FAILED) << error->what();
    }
    std::size_t failed = 0;
    for (const auto &outcome : publishing.get()) failed += outcome.status != QY_OK;
    EXPECT_EQ(failed, 0u) << "publishes failed because a declaration was refused";
    EXPECT_EQ(raw_->message_count(config.name), batch.size());
}

TEST_F(QueueTopology, DeclaresWrittenBehindARefusedOneAreAnsweredEachWithItsOwnOutcome) {
    // Declares are pipelined on one channel: a refused one closes it, and the broker drops
    // what was written after it. Those must be sent again, not failed with its error.
    const auto config = declare_queue();
    queuey::QueueConfig changed = config;
    changed.max_priority = 3;
    std::vector<queuey::QueueConfig> fresh(8);
    std::vector<std::future<std::optional<queuey::Error>>> outcomes;
    for (std::size_t i = 0; i < fresh.size(); ++i) {
        fresh[i].name = new_queue();
        const queuey::QueueConfig &declared = i % 2 == 0 ? changed : fresh[i];
        outcomes.push_back(std::async(std::launch::async, [&, declared] {
            return error_of([&] { backend_->declare(declared); });
        }));
    }
    for (std::size_t i = 0; i < fresh.size(); ++i) {
        const auto error = outcomes[i].get();
        if (i % 2 == 0) {
            ASSERT_TRUE(error) << "a changed declaration succeeded";
            EXPECT_EQ(error->status(), QY_ERR_PRECONDITION_FAILED) << error->what();
            EXPECT_NE(std::string(error->what()).find(config.name), std::string::npos)
                << "the error does not name the queue: " << error->what();
        } else {
            EXPECT_FALSE(error) << fresh[i].name << ": " << error->what();
            EXPECT_TRUE(raw_->exists(fresh[i].name)) << fresh[i].name;
        }
    }
    EXPECT_EQ(backend_->counters().reconnects, 0u);
}

}  // namespace
}  // namespace queuey_it
