// What the queuey command is built on, through queuey.hpp over libqueuey: a queue's
// counts, browsing that leaves a queue as it was, and the replay and purge of dead
// letters by job id and by filter. The same tests run on RabbitMQ and on memory://.
#include "broker_fixture.hpp"
#include "raw_amqp.hpp"

#include <queuey/queuey.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace queuey_it {
namespace {

using queuey::Millis;
using namespace std::chrono_literals;

struct Seen {
    std::string job_id, job_type, reason, original_queue, headers_json, payload;
    uint32_t attempt = 0, deferrals = 0;
    bool envelope = false;
};

class QueueTools : public ::testing::TestWithParam<const char *> {
protected:
    void SetUp() override {
        if (on_rabbitmq()) {
            try {
                endpoint_ = &broker();
            } catch (const std::exception &e) {
                FAIL() << e.what();
            }
            url_ = endpoint_->url;
        } else {
            url_ = "memory://";
        }
        client_.emplace(url_);
        producer_.emplace(*client_);
    }
    void TearDown() override {
        if (!on_rabbitmq() || endpoint_ == nullptr) return;
        RawAmqp raw(*endpoint_);
        for (const std::string &queue : made_) raw.delete_queue(queue);
    }
    bool on_rabbitmq() const { return std::string(GetParam()) == "rabbitmq"; }

    std::string declare() {
        const std::string name = unique_name("q");
        made_.push_back(name);
        made_.push_back(name + ".dead");
        client_->declare(queuey::QueueConfig(name));
        return name;
    }
    std::string enqueue(const std::string &queue, const std::string &type, int n) {
        queuey::Envelope env(type, queue, "{\"n\":" + std::to_string(n) + "}");
        producer_->enqueue(env);
        return std::string(env.job_id());
    }
    // Takes the next job of queue and dead-letters it with reason.
    void dead_letter_next(const std::string &queue, const std::string &reason) {
        queuey::Consumer consumer(*client_, queue);
        queuey::Delivery delivery = consumer.next(Millis(5000));
        ASSERT_TRUE(delivery);
        delivery.dead_letter(reason);
    }
    std::vector<Seen> browse(const std::string &queue_name,
                             const queuey::MessageFilter *filter = nullptr, size_t limit = 0) {
        std::vector<Seen> seen;
        client_->browse(
            queue_name,
            [&](const queuey::MessageView &m) {
                Seen s{std::string(m.job_id()),
                       std::string(m.job_type()),
                       std::string(m.reason()),
                       std::string(m.original_queue()),
                       std::string(m.headers_json()),
                       {},
                       m.attempt(),
                       0,
                       m.envelope().has_value()};
                if (const auto env = m.envelope()) {
                    s.payload = std::string(env->payload());
                    s.deferrals = env->deferrals();
                }
                seen.push_back(std::move(s));
                return true;
            },
            filter, limit);
        return seen;
    }
    static std::vector<std::string> ids(const std::vector<Seen> &seen) {
        std::vector<std::string> out;
        for (const Seen &s : seen) out.push_back(s.job_id);
        return out;
    }

    const BrokerEndpoint *endpoint_ = nullptr;
    std::string url_;
    std::optional<queuey::Client> client_;
    std::optional<queuey::Producer> producer_;
    std::vector<std::string> made_;
};

TEST_P(QueueTools, CountsTellReadyMessagesAndConsumersOfAnyQueue) {
    const std::string q = declare();
    for (int n = 0; n < 3; ++n) enqueue(q, "it.count", n);
    queuey::QueueCounts counts = client_->queue_counts(q);
    EXPECT_EQ(counts.ready, 3u);
    EXPECT_EQ(counts.consumers, 0u);
    EXPECT_EQ(client_->queue_counts(q + ".dead").ready, 0u);
    {
        queuey::Consumer consumer(*client_, q);
        const queuey::Delivery held = consumer.next(Millis(5000));  // delivered, unacked
        ASSERT_TRUE(held);
        counts = client_->queue_counts(q);
        EXPECT_EQ(counts.consumers, 1u);
        EXPECT_LE(counts.ready, 2u);  // the prefetch may hold the others
    }
}

TEST_P(QueueTools, AQueueThatDoesNotExistIsNotFoundAndTheClientGoesOn) {
    const std::string missing = unique_name("missing");
    try {
        client_->queue_counts(missing);
        FAIL() << "counted a queue that does not exist";
    } catch (const queuey::Error &e) {
        EXPECT_EQ(e.status(), QY_ERR_NOT_FOUND) << e.what();
        EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    }
    try {
        browse(missing);
        FAIL() << "browsed a queue that does not exist";
    } catch (const queuey::Error &e) {
        EXPECT_EQ(e.status(), QY_ERR_NOT_FOUND) << e.what();
    }
    const std::string q = declare();  // the client still works
    enqueue(q, "it.after", 1);
    EXPECT_EQ(client_->queue_counts(q).ready, 1u);
}

TEST_P(QueueTools, BrowsingLeavesEveryMessageInItsPlace) {
    const std::string q = declare();
    std::vector<std::string> enqueued;
    for (int n = 0; n < 5; ++n) enqueued.push_back(enqueue(q, n % 2 ? "it.odd" : "it.even", n));

    EXPECT_EQ(ids(browse(q)), enqueued);
    EXPECT_EQ(ids(browse(q)), enqueued) << "a second browse sees the same jobs in the same order";
    EXPECT_EQ(ids(browse(q, nullptr, 2)), (std::vector<std::string>{enqueued[0], enqueued[1]}));
    queuey::MessageFilter odd;
    odd.job_type("it.odd");
    EXPECT_EQ(ids(browse(q, &odd)), (std::vector<std::string>{enqueued[1], enqueued[3]}));
    EXPECT_EQ(client_->queue_counts(q).ready, 5u);

    // And a consumer still gets them all, in order.
    queuey::Consumer consumer(*client_, q);
    for (const std::string &id : enqueued) {
        queuey::Delivery delivery = consumer.next(Millis(5000));
        ASSERT_TRUE(delivery);
        EXPECT_EQ(delivery.envelope().job_id(), id);
        delivery.ack();
    }
}

TEST_P(QueueTools, ADeadLetterShowsWhyItDiedWhereFromAndAtWhichAttempt) {
    const std::string q = declare();
    queuey::Envelope third =
        queuey::Envelope("it.dead", q, "{\"to\":\"a@b.c\"}").next_attempt().next_attempt();
    producer_->enqueue(third);
    dead_letter_next(q, "fatal error: KeyError('to')");

    const std::vector<Seen> letters = browse(q + ".dead");
    ASSERT_EQ(letters.size(), 1u);
    const Seen &letter = letters[0];
    EXPECT_EQ(letter.job_id, third.job_id());
    EXPECT_EQ(letter.job_type, "it.dead");
    EXPECT_EQ(letter.reason, "fatal error: KeyError('to')");
    EXPECT_EQ(letter.original_queue, q);
    EXPECT_EQ(letter.attempt, 3u);
    EXPECT_EQ(letter.payload, "{\"to\":\"a@b.c\"}");
    EXPECT_NE(letter.headers_json.find("\"x-death-reason\":\"fatal error: KeyError('to')\""),
              std::string::npos)
        << letter.headers_json;
    EXPECT_NE(letter.headers_json.find("\"x-attempts\":3"), std::string::npos)
        << letter.headers_json;
    EXPECT_EQ(client_->queue_counts(q + ".dead").ready, 1u) << "browsing removed nothing";
}

// Issue 40, item 3: a quorum queue that takes a job back too often (peeks, or a consumer
// that rejects it in a loop) never drops it: RabbitMQ 4.0 would at its default limit of 20,
// so queuey declares that limit on every version with q.dead as its target, and the tools
// show why the broker put it there.
TEST_P(QueueTools, AQuorumJobPeekedTwentyFiveTimesIsADeadLetterWithTheBrokersReason) {
    const std::string q = unique_name("q");
    made_.push_back(q);
    made_.push_back(q + ".dead");
    client_->declare(queuey::QueueConfig(q).type(queuey::QueueType::quorum));
    const std::string job_id = enqueue(q, "it.peeked", 1);
    int seen = 0;
    for (int peek = 0; peek < 25; ++peek) {  // each peek takes the job and gives it back
        const std::vector<Seen> jobs = browse(q);
        if (jobs.empty()) break;
        ++seen;
        EXPECT_EQ(jobs[0].job_id, job_id);
    }
    EXPECT_EQ(seen, 21) << "the limit is 20 returns";
    EXPECT_EQ(client_->queue_counts(q).ready, 0u);
    // The broker dead-letters it at least once, through a process of its own: a moment
    // after the return that reached the limit.
    EXPECT_TRUE(eventually([&] { return client_->queue_counts(q + ".dead").ready == 1u; }, 5s));
    const std::vector<Seen> letters = browse(q + ".dead");
    ASSERT_EQ(letters.size(), 1u) << "the job is gone";
    EXPECT_EQ(letters[0].job_id, job_id);
    EXPECT_EQ(letters[0].reason,
              "the broker dead-lettered it: it was taken back unsettled more often than the "
              "queue's delivery limit allows (x-delivery-limit)");
    EXPECT_EQ(letters[0].original_queue, q);
    EXPECT_TRUE(letters[0].envelope);
}

TEST_P(QueueTools, AReplayedJobRunsAgainAsAttemptOneWithoutTheDeadLetterHeaders) {
    const std::string q = declare();
    queuey::Envelope job = queuey::Envelope("it.replay", q, "{\"n\":7}").next_attempt();
    job.set_correlation_id("corr-7");
    producer_->enqueue(job);
    dead_letter_next(q, "max attempts (2) exhausted");

    EXPECT_EQ(client_->replay_dead_letters(q), 1u);
    EXPECT_EQ(client_->queue_counts(q + ".dead").ready, 0u);
    queuey::Consumer consumer(*client_, q);
    queuey::Delivery delivery = consumer.next(Millis(5000));
    ASSERT_TRUE(delivery);
    const queuey::EnvelopeView back = delivery.envelope();
    EXPECT_EQ(back.job_id(), job.job_id());
    EXPECT_EQ(back.job_type(), "it.replay");
    EXPECT_EQ(back.payload(), "{\"n\":7}");
    EXPECT_EQ(back.correlation_id(), "corr-7");
    EXPECT_EQ(back.attempt(), 1u);
    EXPECT_EQ(back.deferrals(), 0u);
    EXPECT_EQ(back.enqueued_at_ms(), job.enqueued_at_ms());
    delivery.dead_letter("again");
    // The second time it died, it died once: no header of the first dead letter is left.
    const std::vector<Seen> letters = browse(q + ".dead");
    ASSERT_EQ(letters.size(), 1u);
    EXPECT_EQ(letters[0].reason, "again");
    EXPECT_EQ(letters[0].headers_json.find("max attempts"), std::string::npos)
        << letters[0].headers_json;
    EXPECT_EQ(letters[0].headers_json.find("x-death\""), std::string::npos)
        << letters[0].headers_json;
}

TEST_P(QueueTools, KeepAttemptReplaysTheEnvelopeAsItIs) {
    const std::string q = declare();
    queuey::Envelope job = queuey::Envelope("it.keep", q, "{}").next_attempt().next_attempt();
    producer_->enqueue(job);
    dead_letter_next(q, "max attempts (3) exhausted");

    EXPECT_EQ(client_->replay_dead_letters(q, nullptr, /*keep_attempt=*/true), 1u);
    queuey::Consumer consumer(*client_, q);
    queuey::Delivery delivery = consumer.next(Millis(5000));
    ASSERT_TRUE(delivery);
    EXPECT_EQ(delivery.envelope().attempt(), 3u);
    delivery.ack();
}

TEST_P(QueueTools, ReplayAndPurgeTakeOnlyTheSelectedLettersAndKeepTheOthersInOrder) {
    const std::string q = declare();
    std::vector<std::string> dead;
    for (int n = 0; n < 6; ++n) {
        dead.push_back(enqueue(q, n < 3 ? "it.email" : "it.report", n));
        dead_letter_next(q, n % 2 ? "timeout after 30 s" : "fatal error: bad address");
    }
    ASSERT_EQ(ids(browse(q + ".dead")), dead);

    queuey::MessageFilter by_id;
    by_id.job_id(dead[1]).job_id(dead[4]);
    EXPECT_EQ(client_->replay_dead_letters(q, &by_id), 2u);
    EXPECT_EQ(ids(browse(q + ".dead")),
              (std::vector<std::string>{dead[0], dead[2], dead[3], dead[5]}));
    EXPECT_EQ(ids(browse(q)), (std::vector<std::string>{dead[1], dead[4]}));

    queuey::MessageFilter emails_with_bad_address;
    emails_with_bad_address.job_type("it.email").reason_contains("bad address");
    EXPECT_EQ(client_->purge_dead_letters(q, &emails_with_bad_address), 2u);  // 0 and 2
    EXPECT_EQ(ids(browse(q + ".dead")), (std::vector<std::string>{dead[3], dead[5]}));

    queuey::MessageFilter old;
    old.older_than(Millis(3600 * 1000));
    EXPECT_EQ(client_->purge_dead_letters(q, &old), 0u) << "none is an hour old";
    EXPECT_EQ(client_->purge_dead_letters(q), 2u);
    EXPECT_EQ(client_->queue_counts(q + ".dead").ready, 0u);
    EXPECT_EQ(client_->purge_dead_letters(q), 0u);
}

TEST_P(QueueTools, AVisitThatThrowsStopsTheBrowseAndPutsEverythingBack) {
    const std::string q = declare();
    for (int n = 0; n < 3; ++n) enqueue(q, "it.throw", n);
    int visits = 0;
    EXPECT_THROW(client_->browse(q,
                                 [&](const queuey::MessageView &) -> bool {
                                     ++visits;
                                     throw std::runtime_error("stop here");
                                 }),
                 std::runtime_error);
    EXPECT_EQ(visits, 1);
    EXPECT_EQ(browse(q).size(), 3u);
}

TEST_P(QueueTools, MissingArgumentsAreRefusedByName) {
    qy_error *err = nullptr;
    EXPECT_EQ(qy_client_browse(client_->get(), "q", nullptr, 0, nullptr, nullptr, &err),
              QY_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(qy_error_message(err)).find("visit"), std::string::npos);
    qy_error_free(err);
    uint64_t replayed = 99;
    EXPECT_EQ(qy_client_replay_dead_letters(client_->get(), nullptr, nullptr, 0, &replayed, &err),
              QY_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(replayed, 0u);
    EXPECT_NE(std::string(qy_error_message(err)).find("queue"), std::string::npos);
    qy_error_free(err);
    EXPECT_EQ(qy_client_queue_counts(nullptr, "q", nullptr, nullptr, &err),
              QY_ERR_INVALID_ARGUMENT);
    qy_error_free(err);
    EXPECT_EQ(qy_message_filter_add_job_id(nullptr, "id", &err), QY_ERR_INVALID_ARGUMENT);
    qy_error_free(err);
}

INSTANTIATE_TEST_SUITE_P(Backends, QueueTools, ::testing::Values("rabbitmq", "memory"),
                         [](const auto &info) { return std::string(info.param); });

// RabbitMQ only: dead letters the memory backend cannot hold.
class QueueToolsOnRabbitMQ : public BrokerTest {};

TEST_F(QueueToolsOnRabbitMQ, ABodyThatIsNoEnvelopeIsShownAndLeftWhenTheOthersAreReplayed) {
    const std::string q = new_queue();
    queuey::Client client(endpoint().url);
    client.declare(queuey::QueueConfig(q));
    RawAmqp raw(endpoint());
    ASSERT_TRUE(raw.publish(q + ".dead", "not json",
                            {{"x-death-reason", AMQP_FIELD_KIND_UTF8, "malformed envelope", 0},
                             {"x-original-queue", AMQP_FIELD_KIND_UTF8, q, 0}},
                            "raw-1"));
    queuey::Producer producer(client);
    queuey::Envelope good("it.good", q, "{}");
    producer.enqueue(good);
    {
        queuey::Consumer consumer(client, q);
        queuey::Delivery delivery = consumer.next(Millis(5000));
        ASSERT_TRUE(delivery);
        delivery.dead_letter("fatal error: x");
    }

    std::vector<std::string> seen;
    client.browse(q + ".dead", [&](const queuey::MessageView &m) {
        seen.push_back(std::string(m.job_id()) + "|" + std::string(m.reason()) + "|" +
                       (m.envelope() ? "envelope" : std::string(m.body())));
        EXPECT_EQ(m.envelope().has_value(), m.decode_error().empty());
        return true;
    });
    EXPECT_EQ(seen,
              (std::vector<std::string>{"raw-1|malformed envelope|not json",
                                        std::string(good.job_id()) + "|fatal error: x|envelope"}));

    uint64_t replayed = 0;
    try {
        client.replay_dead_letters(q, nullptr, false, &replayed);
        FAIL() << "a body that is no envelope was replayed";
    } catch (const queuey::Error &e) {
        EXPECT_EQ(e.status(), QY_ERR_BAD_ENVELOPE) << e.what();
        EXPECT_NE(std::string(e.what()).find("1 of 2 selected dead letters were not replayed"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(replayed, 1u);
    // The letter the replay left goes back to q.dead as the browse ends; RabbitMQ 4 may
    // count it a moment later (docs/cli.md).
    EXPECT_TRUE(eventually([&] { return raw.message_count(q + ".dead") == 1u; }, 5s));
    EXPECT_EQ(raw.message_count(q), 1u);
}

// A browse gives back what it read as it ends, and every message is counted again soon
// after: mostly at once on RabbitMQ 3.10, a moment later on 4 (whose queue may learn of the
// closed channel after answering its close; the nack of all before the close makes that
// moment shorter). On either, a busy queue answers a count before a requeue waiting in its
// mailbox (ALetterWhoseQueueIsGoneStaysInTheDeadLetterQueue). Measured here: the longest
// wait for the count in 100 browses.
TEST_F(QueueToolsOnRabbitMQ, EveryMessageIsCountedAgainSoonAfterABrowse) {
    const std::string q = new_queue();
    queuey::Client client(endpoint().url);
    client.declare(queuey::QueueConfig(q));
    queuey::Producer producer(client);
    for (int n = 0; n < 3; ++n) producer.enqueue(queuey::Envelope("it.counted", q, "{}"));
    RawAmqp raw(endpoint());
    std::chrono::steady_clock::duration longest{};
    for (int round = 0; round < 100; ++round) {
        std::size_t seen = 0;
        client.browse(q, [&](const queuey::MessageView &) { return ++seen != 0; });
        ASSERT_EQ(seen, 3u);
        const auto ended = std::chrono::steady_clock::now();
        ASSERT_TRUE(eventually([&] { return raw.message_count(q) == 3u; }, 5s, 1ms))
            << "round " << round;
        longest = std::max(longest, std::chrono::steady_clock::now() - ended);
    }
    std::printf("the count was whole again at most %lld us after a browse\n",
                static_cast<long long>(
                    std::chrono::duration_cast<std::chrono::microseconds>(longest).count()));
}

TEST_F(QueueToolsOnRabbitMQ, ALetterWhoseQueueIsGoneStaysInTheDeadLetterQueue) {
    const std::string q = new_queue();
    queuey::Client client(endpoint().url);
    client.declare(queuey::QueueConfig(q));
    queuey::Producer producer(client);
    producer.enqueue(queuey::Envelope("it.orphan", q, "{}"));
    {
        queuey::Consumer consumer(client, q);
        queuey::Delivery delivery = consumer.next(Millis(5000));
        ASSERT_TRUE(delivery);
        delivery.dead_letter("fatal error: y");
    }
    RawAmqp raw(endpoint());
    raw.delete_queue(q);
    try {
        client.replay_dead_letters(q);
        FAIL() << "replayed into a queue that does not exist";
    } catch (const queuey::Error &e) {
        EXPECT_EQ(e.status(), QY_ERR_UNROUTABLE) << e.what();
    }
    // The replay gave the letter back (a nack that requeues it, then the channel's close)
    // before it returned, but a classic queue answers a count (its 'stat', priority 7 in
    // rabbit_amqqueue_process) before a requeue still waiting in its mailbox (priority 0):
    // on a busy broker, 3.10 as well as 4, the count misses the letter for a moment.
    EXPECT_TRUE(eventually([&] { return raw.message_count(q + ".dead") == 1u; }, 5s));
}

}  // namespace
}  // namespace queuey_it
