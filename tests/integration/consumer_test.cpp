// Consuming on RabbitMQ: the prefetch the broker sees, what goes back to the queue when
// a delivery or consumer is dropped unsettled, and a consumer whose queue is deleted.
#include "broker_ctl.hpp"
#include "core_fixture.hpp"

#include "envelope_codec.hpp"

#include <future>
#include <map>
#include <set>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

class Consuming : public CoreTest {
protected:
    bool counts_become(const std::string &queue, long ready, long unacknowledged) {
        QueueCounts last;
        const bool reached = eventually(
            [&] {
                last = queue_counts(endpoint(), queue);
                return last.ready == ready && last.unacknowledged == unacknowledged;
            },
            10s, 200ms);
        if (!reached)
            ADD_FAILURE() << queue << ": ready " << last.ready << ", unacked "
                          << last.unacknowledged << "; expected " << ready << " and "
                          << unacknowledged;
        return reached;
    }

    // A queue with its prefetch and enqueued jobs, a consumer of it, and the deliveries
    // it took first (up to taken, within 5 s).
    struct Holding {
        queuey::QueueConfig config;
        std::unique_ptr<queuey::Consumer> consumer;
        std::vector<std::shared_ptr<queuey::Delivery>> taken;
    };
    Holding consume_holding(std::uint16_t prefetch, int enqueued, std::size_t taken) {
        Holding holding;
        holding.config = declare_queue([&](queuey::QueueConfig &c) { c.prefetch = prefetch; });
        for (int i = 0; i < enqueued; ++i) producer_->enqueue(job(holding.config.name));
        holding.consumer = backend_->consume(holding.config.name);
        holding.taken = receive(*holding.consumer, taken, 5s);
        return holding;
    }
};

TEST_F(Consuming, TheBrokerHoldsBackWhatIsBeyondThePrefetch) {
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.prefetch = 2; });
    for (int i = 0; i < 5; ++i) producer_->enqueue(job(config.name));
    auto consumer = backend_->consume(config.name);
    EXPECT_EQ(consumer_prefetches(endpoint(), config.name), std::vector<int>{2});
    counts_become(config.name, 3, 2);
    auto delivery = consumer->next(5s);
    ASSERT_TRUE(delivery);
    delivery->ack();
    counts_become(config.name, 2, 2);
}

// Acks are coalesced into one ack(multiple) where that is safe: never over a job that
// an earlier delivery still holds.
TEST_F(Consuming, AcksAfterAnUnsettledJobLeaveThatJobUnacknowledged) {
    constexpr int jobs = 12;
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.prefetch = jobs; });
    for (int i = 0; i < jobs; ++i) producer_->enqueue(job(config.name));
    auto consumer = backend_->consume(config.name);
    std::vector<std::shared_ptr<queuey::Delivery>> held;
    for (int i = 0; i < jobs; ++i) {
        held.push_back(consumer->next(5s));
        ASSERT_TRUE(held.back()) << "delivery " << i;
    }
    // Settled back to back, most of these acks reach the I/O thread in one turn.
    for (int i = jobs - 1; i >= 1; --i) held[i]->ack();
    counts_become(config.name, 0, 1);  // the first job is still held
    held[0]->ack();
    counts_become(config.name, 0, 0);
}

// docs/broker.md, a caller's own settle: settles far apart are written by the consuming
// thread itself while the I/O thread sleeps; each still reaches the broker, an ack as an
// ack and a dropped delivery as a requeue.
TEST_F(Consuming, SettlesFarApartAreWrittenByTheirCallerAndEachReachesTheBroker) {
    constexpr int jobs = 10;
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.prefetch = jobs; });
    for (int i = 0; i < jobs; ++i) producer_->enqueue(job(config.name));
    auto consumer = backend_->consume(config.name);
    std::string dropped;
    for (int i = 0; i < jobs; ++i) {
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery) << "delivery " << i;
        std::this_thread::sleep_for(5ms);  // the I/O thread goes back to poll
        if (i == 4) {
            dropped = delivery->envelope().job_id;  // unsettled: requeued when destroyed
            continue;
        }
        delivery->ack();
    }
    auto again = consumer->next(5s);
    ASSERT_TRUE(again) << "the dropped delivery did not come back";
    EXPECT_EQ(again->envelope().job_id, dropped);
    EXPECT_TRUE(again->redelivered());
    again->ack();
    counts_become(config.name, 0, 0);
    EXPECT_GE(backend_->counters().settled_by_caller, jobs / 2u)
        << "the consuming thread wrote none of its settles";
}

// docs/broker.md, a caller's own settle: the acks of a run of settles wait for the run's
// last, or the consumer's next read, or the I/O thread's next turn. A consumer that takes
// its last delivery and keeps it (a long job) neither settles nor reads again: the acks
// before it reach the broker all the same, and the one it keeps stays unacked.
TEST_F(Consuming, AcksOfARunReachTheBrokerWhileItsConsumerKeepsItsLastDelivery) {
    constexpr int jobs = 10;
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.prefetch = jobs; });
    for (int i = 0; i < jobs; ++i) producer_->enqueue(job(config.name));
    auto consumer = backend_->consume(config.name);
    for (int i = 0; i < jobs - 1; ++i) {
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery) << "delivery " << i;
        delivery->ack();
    }
    auto kept = consumer->next(5s);
    ASSERT_TRUE(kept) << "the last delivery did not come";
    counts_become(config.name, 0, 1);
    kept->ack();
    counts_become(config.name, 0, 0);
}

TEST_F(Consuming, AConsumerWithItsDeliveriesTakenReadsTheNextItselfAndEachArrivesOnce) {
    // docs/broker.md, a consumer's own deliveries: the I/O thread leaves the socket to a
    // consumer that waits for none, and that consumer reads it when it wants more.
    constexpr int jobs = 200;
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.prefetch = 4; });
    std::set<std::string> enqueued, received;
    for (int i = 0; i < jobs; ++i) {
        const queuey::Envelope env = job(config.name);
        producer_->enqueue(env);
        enqueued.insert(env.job_id);
    }
    auto consumer = backend_->consume(config.name);
    for (int i = 0; i < jobs; ++i) {
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery) << "delivery " << i;
        EXPECT_TRUE(received.insert(delivery->envelope().job_id).second)
            << "delivered twice: " << delivery->envelope().job_id;
        delivery->ack();
    }
    EXPECT_EQ(received, enqueued);
    EXPECT_FALSE(consumer->next(100ms)) << "a delivery beyond those enqueued";
    counts_become(config.name, 0, 0);
    EXPECT_GT(backend_->counters().read_by_consumer, 0u) << "the consumer never read itself";
}

TEST_F(Consuming, TwoThreadsOnOneConsumerTakeEachDeliveryOnceBetweenThem) {
    // One reads the socket while the other waits for the I/O thread or for its read, and
    // settles of one come while the other reads.
    constexpr int jobs = 400;
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.prefetch = 8; });
    std::set<std::string> enqueued;
    for (int i = 0; i < jobs; ++i) {
        const queuey::Envelope env = job(config.name);
        producer_->enqueue(env);
        enqueued.insert(env.job_id);
    }
    auto consumer = backend_->consume(config.name);
    const auto take_all = [&] {
        std::vector<std::string> taken;
        while (auto delivery = consumer->next(1s)) {
            taken.push_back(delivery->envelope().job_id);
            delivery->ack();
        }
        return taken;
    };
    auto first = std::async(std::launch::async, take_all);
    auto second = std::async(std::launch::async, take_all);
    const std::vector<std::string> one = first.get(), other = second.get();
    std::multiset<std::string> received(one.begin(), one.end());
    received.insert(other.begin(), other.end());
    EXPECT_EQ(received.size(), static_cast<std::size_t>(jobs)) << "lost or duplicated";
    EXPECT_EQ(std::set<std::string>(received.begin(), received.end()), enqueued);
    counts_become(config.name, 0, 0);
}

TEST_F(Consuming, ADroppedDeliveryComesBack) {
    const auto config = declare_queue();
    const queuey::Envelope env = job(config.name);
    producer_->enqueue(env);
    auto consumer = backend_->consume(config.name);
    auto first = consumer->next(5s);
    ASSERT_TRUE(first);
    EXPECT_FALSE(first->redelivered());
    first.reset();  // unsettled: rejected with requeue
    auto again = consumer->next(5s);
    ASSERT_TRUE(again) << "the dropped delivery did not come back";
    EXPECT_EQ(again->envelope().job_id, env.job_id);
    again->ack();
}

TEST_F(Consuming, AJobHeldByALostWorkerComesBackMarkedRedelivered) {
    const auto config = declare_queue();
    const queuey::Envelope env = job(config.name);
    producer_->enqueue(env);
    {
        // Another worker process takes the job and is gone before it settles it.
        auto options = backend_options(endpoint(), unique_name("lost"));
        options.connection.reconnect.max_attempts = 0;
        auto lost = std::make_shared<queuey::RabbitBackend>(options);
        lost->declare(config);
        auto consumer = lost->consume(config.name);
        auto held = consumer->next(5s);
        ASSERT_TRUE(held);
        lost->close();
    }
    auto consumer = backend_->consume(config.name);
    auto again = consumer->next(5s);
    ASSERT_TRUE(again) << "the job of the lost worker did not come back";
    EXPECT_EQ(again->envelope().job_id, env.job_id);
    EXPECT_TRUE(again->redelivered()) << "a job that may have been running when its worker died";
    again->ack();
}

TEST_F(Consuming, ALostRunCopyCarriesItsCountInAHeaderAndTheSameBody) {
    const auto config = declare_queue();
    const queuey::Envelope env = job(config.name);
    producer_->enqueue(env);
    auto consumer = backend_->consume(config.name);
    auto first = consumer->next(5s);
    ASSERT_TRUE(first);
    EXPECT_EQ(first->lost_runs(), 0u) << "a job never lost carries no count";
    first->requeue_lost(2);
    consumer.reset();  // it may hold the copy already: the broker requeues it then

    EXPECT_EQ(raw_->wait_for_count(config.name, 1, 5s), 1u)
        << "one copy, the original acknowledged";
    const auto copy = raw_->get(config.name);
    ASSERT_TRUE(copy) << "the copy is not in the queue";
    EXPECT_EQ(copy->body, queuey::encode_envelope(env)) << "the same body";
    EXPECT_EQ(copy->message_id, env.job_id);
    const RawHeader *count = copy->header("x-lost-runs");
    ASSERT_NE(count, nullptr);
    EXPECT_EQ(count->kind, AMQP_FIELD_KIND_U32);
    EXPECT_EQ(count->integer, 2);
    ASSERT_NE(copy->header("x-attempt"), nullptr);
    EXPECT_EQ(copy->header("x-attempt")->integer, 1);
}

TEST_F(Consuming, ALostRunsHeaderIsReadWhateverItsIntegerTypeAndCountsAsZeroWhenItIsNoCount) {
    const auto config = declare_queue();
    const queuey::Envelope env = job(config.name);
    const std::string body = queuey::encode_envelope(env);
    struct Case {
        RawHeader header;
        std::uint32_t lost_runs;
    };
    const std::vector<Case> cases = {
        {{"x-lost-runs", AMQP_FIELD_KIND_I64, "", 7}, 7},
        {{"x-lost-runs", AMQP_FIELD_KIND_I32, "", 5}, 5},
        {{"x-lost-runs", AMQP_FIELD_KIND_I64, "", std::int64_t{1} << 40}, UINT32_MAX},
        {{"x-lost-runs", AMQP_FIELD_KIND_I32, "", -4}, 0},
        {{"x-lost-runs", AMQP_FIELD_KIND_UTF8, "3", 0}, 0},
    };
    for (const Case &c : cases)
        ASSERT_TRUE(raw_->publish(config.name, body, {c.header}, env.job_id));
    auto consumer = backend_->consume(config.name);
    for (const Case &c : cases) {
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery);
        EXPECT_EQ(delivery->lost_runs(), c.lost_runs)
            << "header kind " << int(c.header.kind) << " value " << c.header.integer
            << c.header.text;
        EXPECT_FALSE(delivery->redelivered());
        delivery->ack();
    }
}

TEST_F(Consuming, AClosedConsumerReturnsWhatItHeld) {
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.prefetch = 5; });
    for (int i = 0; i < 5; ++i) producer_->enqueue(job(config.name));
    auto consumer = backend_->consume(config.name);
    auto taken = consumer->next(5s);  // one handed out, four waiting inside the consumer
    ASSERT_TRUE(taken);
    counts_become(config.name, 0, 5);
    consumer.reset();
    EXPECT_EQ(raw_->wait_for_count(config.name, 5, 5s), 5u)
        << "deliveries were lost with the consumer";
    EXPECT_THROW(taken->ack(), queuey::Error) << "a delivery of a closed consumer was acked";
}

// A worker sets aside the deliveries it parks (docs/worker.md): they must not keep the
// jobs behind them from coming. The consumer is replaced on its channel, so the broker
// counts a fresh prefetch for the new one while the old deliveries stay unsettled.
TEST_F(Consuming, DeliveriesSetAsideLetAnotherPrefetchOfJobsComeAndStayUnsettled) {
    Holding held = consume_holding(4, 20, 4);
    auto &consumer = held.consumer;
    auto &first = held.taken;
    const std::string &queue = held.config.name;
    ASSERT_EQ(first.size(), 4u);
    EXPECT_FALSE(consumer->next(500ms)) << "more than the prefetch came";
    first[0]->set_aside();
    EXPECT_FALSE(consumer->next(500ms)) << "a new prefetch came before half of one was set aside";
    first[1]->set_aside();
    auto second = receive(*consumer, 4, 5s);
    ASSERT_EQ(second.size(), 4u) << "setting aside half the prefetch let nothing come";
    EXPECT_FALSE(consumer->next(500ms)) << "more than the new prefetch came";
    counts_become(queue, 12, 8);
    EXPECT_EQ(consumer_prefetches(endpoint(), queue), std::vector<int>{4});

    // Stopping stops the consumer that replaced the first.
    consumer->stop();
    for (auto &delivery : first) delivery->ack();
    for (auto &delivery : second) delivery->ack();
    EXPECT_FALSE(consumer->next(500ms)) << "a stopped consumer still received jobs";
    counts_become(queue, 12, 0);
    EXPECT_TRUE(consumer_prefetches(endpoint(), queue).empty());
}

TEST_F(Consuming, DeliveriesAreSetAsideUntilSixteenPrefetchesAreUnsettled) {
    const auto config = declare_queue([](queuey::QueueConfig &c) { c.prefetch = 1; });
    for (int i = 0; i < 20; ++i) producer_->enqueue(job(config.name));
    auto consumer = backend_->consume(config.name);
    std::vector<std::shared_ptr<queuey::Delivery>> held;
    while (auto delivery = consumer->next(1s)) {
        delivery->set_aside();
        held.push_back(std::move(delivery));
    }
    EXPECT_EQ(held.size(), queuey::max_set_aside_windows);
    counts_become(config.name, 20 - long(queuey::max_set_aside_windows),
                  long(queuey::max_set_aside_windows));
    for (auto &delivery : held) delivery->ack();
    for (int i = 0; i < 4; ++i) {  // the rest, one prefetch at a time
        auto delivery = consumer->next(5s);
        ASSERT_TRUE(delivery) << "settling the set-aside ones let no job come";
        delivery->ack();
    }
    counts_become(config.name, 0, 0);
}

TEST_F(Consuming, ChannelNumbersAreReusedSoConsumersCanComeAndGoPastTheChannelMax) {
    // RabbitMQ 3.10 allows 2047 channels per connection. A client that opens and closes
    // consumers for its whole life used to fail after that many.
    const auto config = declare_queue();
    constexpr int consumers = 2100;
    for (int i = 0; i < consumers; ++i) {
        const auto error = error_of([&] { backend_->consume(config.name); });
        ASSERT_FALSE(error) << "consumer " << i + 1 << ": " << error->what();
    }
    expect_job_flows(*backend_->consume(config.name), config.name,
                     "the consumer opened after 2100 others receives nothing");
}

TEST_F(Consuming, LargeJobsOnTwoConsumersAtOnceArriveIntact) {
    // Bodies of many frames on two channels at once, interleaved by the broker.
    constexpr int per_queue = 15;
    std::map<std::string, std::string> payloads;  // job id -> payload
    std::vector<queuey::QueueConfig> configs;
    for (const char *tag : {"a", "b"}) {
        configs.push_back(declare_queue([](queuey::QueueConfig &c) { c.prefetch = 4; }, tag));
        std::vector<queuey::Envelope> batch;
        for (int i = 0; i < per_queue; ++i) {
            // Appended, not a chain of operator+: GCC 12 at -O3 warns falsely (-Wrestrict).
            std::string payload = "\"";
            payload.append(300000 + i, static_cast<char>('a' + i % 26)).append(tag).append("\"");
            batch.push_back(job(configs.back().name, payload));
            payloads[batch.back().job_id] = payload;
        }
        for (const auto &outcome : producer_->enqueue_batch(batch))
            ASSERT_EQ(outcome.status, QY_OK);
    }
    auto drain = [&](const queuey::QueueConfig &config) {
        auto consumer = backend_->consume(config.name);
        int intact = 0;
        for (int i = 0; i < per_queue; ++i) {
            auto delivery = consumer->next(10s);
            if (!delivery) break;
            // A copy of the envelope outlives its delivery: a big payload shares the body
            // it came in, NUL-terminated there.
            const queuey::Envelope envelope = delivery->envelope();
            delivery->ack();
            delivery.reset();
            const auto expected = payloads.find(envelope.job_id);
            const queuey::Payload &payload = envelope.payload;
            if (expected != payloads.end() && expected->second == payload &&
                payload.c_str()[payload.size()] == '\0')
                ++intact;
        }
        return intact;
    };
    auto a = std::async(std::launch::async, drain, configs[0]);
    auto b = std::async(std::launch::async, drain, configs[1]);
    EXPECT_EQ(a.get(), per_queue);
    EXPECT_EQ(b.get(), per_queue);
}

TEST_F(Consuming, ADeletedQueueIsDeclaredAgainAndItsConsumerGoesOn) {
    // The broker cancels the consumer of a deleted queue (and of a classic queue whose
    // node is down). The consumer used to end with QY_ERR_BROKER, and a worker with it.
    const auto config = declare_queue();
    auto consumer = backend_->consume(config.name);
    raw_->delete_queue(config.name);
    EXPECT_FALSE(error_of([&] { EXPECT_FALSE(consumer->next(300ms)); }))
        << "a broker cancel ends the consumer";
    ASSERT_TRUE(eventually([&] { return raw_->exists(config.name); }, 10s))
        << "the queue was not declared again";
    expect_job_flows(*consumer, config.name, "the consumer did not consume from the queue again");
    counts_become(config.name, 0, 0);
}

// Another connection's exclusive queue under the name: the broker refuses both the
// declare and the consume (RESOURCE_LOCKED), and closes the consume's channel, until that
// connection goes and its queue with it.
TEST_F(Consuming, AConsumerTheBrokerRefusesTriesAgainUntilItCanConsume) {
    const auto config = declare_queue();
    auto consumer = backend_->consume(config.name);
    std::optional<RawAmqp> holder(std::in_place, endpoint());
    raw_->delete_queue(config.name);
    holder->declare(config.name, /*durable=*/false, {}, /*exclusive=*/true);
    EXPECT_FALSE(consumer->next(2500ms)) << "refused at 1 s; the next try is at 3 s";
    holder.reset();
    ASSERT_TRUE(eventually([&] { return raw_->exists(config.name); }, 10s))
        << "the queue was not declared again once it was free";
    expect_job_flows(*consumer, config.name, "the consumer did not consume again on a new channel");
    EXPECT_EQ(backend_->counters().reconnects, 0u);
}

TEST_F(Consuming, AConsumerClosedWhileItsChannelIsClosedLeavesTheConnectionUp) {
    const auto config = declare_queue();
    auto consumer = backend_->consume(config.name);
    RawAmqp holder(endpoint());
    raw_->delete_queue(config.name);
    holder.declare(config.name, /*durable=*/false, {}, /*exclusive=*/true);
    EXPECT_FALSE(consumer->next(2000ms));  // the first try, at 1 s, was refused
    consumer.reset();  // closing a channel that is not open would end the connection
    const auto other = declare_queue();
    expect_job_flows(*backend_->consume(other.name), other.name, "after closing the consumer");
    EXPECT_EQ(backend_->counters().reconnects, 0u);
}

TEST_F(Consuming, WhatAConsumerTheBrokerCancelledHadDeliveredCanStillBeAcknowledged) {
    // The broker's basic.cancel leaves the channel open, and the deliveries it made there
    // are still the consumer's to settle. The acks used to be reported sent and dropped.
    Holding held = consume_holding(2, 2, 2);
    auto &consumer = held.consumer;
    auto &taken = held.taken;
    ASSERT_EQ(taken.size(), 2u);
    ASSERT_TRUE(eventually(
        [&] { return unacknowledged_on_channels(endpoint(), connection_name_) == 2; }, 5s));
    raw_->delete_queue(held.config.name);
    EXPECT_FALSE(consumer->next(300ms)) << "a delivery from a deleted queue";

    // The channel stays open when the consumer consumes again (the queue is declared
    // again first), so only the acks can bring the count to 0.
    for (auto &delivery : taken) EXPECT_FALSE(error_of([&] { delivery->ack(); }));
    EXPECT_TRUE(eventually(
        [&] { return unacknowledged_on_channels(endpoint(), connection_name_) == 0; }, 5s))
        << unacknowledged_on_channels(endpoint(), connection_name_)
        << " acks reported sent never reached the broker";
}

}  // namespace
}  // namespace queuey_it
