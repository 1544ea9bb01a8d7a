// Issue 10, item 3: a publish over the broker's max message size closes the publishing
// channel, and the broker drops every publish written after it. That one publish's
// error used to be every unconfirmed publish's status (a batch of 1,000 small, one 2 MiB
// and 1,000 small against a 1 MiB limit: 1,712 reported failed, 711 of them in the
// queue). Now each publish gets its own outcome, and the limit is learnt: the next body
// over it is refused before it is written.
#include "broker_ctl.hpp"
#include "core_fixture.hpp"

#include "broker/message_size_limit.hpp"

#include <map>
#include <set>

namespace queuey_it {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t limit = 1024 * 1024;

class MessageSize : public CoreTest {
protected:
    void SetUp() override {
        CoreTest::SetUp();
        set_max_message_size(endpoint(), limit);  // channels opened from now on obey it
        limited_ = std::make_shared<queuey::RabbitBackend>(
            backend_options(endpoint(), unique_name("limited")));
        producer_.emplace(limited_);
    }
    void TearDown() override {
        set_max_message_size(endpoint(), queuey::default_max_message_size);
        producer_.reset();
        if (limited_) limited_->close();
        CoreTest::TearDown();
    }

    std::shared_ptr<queuey::RabbitBackend> limited_;  // connected under the 1 MiB limit

    // 1,000 small jobs, one whose payload is 2 MiB, 1,000 small: the outcomes.
    std::vector<queuey::Envelope> batch_around_a_big_one(const std::string &queue) {
        std::vector<queuey::Envelope> batch;
        for (int i = 0; i < 2001; ++i)
            batch.push_back(i == 1000 ? job(queue, "\"" + std::string(2 * limit, 'x') + "\"")
                                      : job(queue));
        return batch;
    }
};

TEST_F(MessageSize, APublishOverTheLimitFailsAloneAndEveryOtherOutcomeIsTrue) {
    const auto config = declare_queue();
    limited_->declare(config);
    const auto batch = batch_around_a_big_one(config.name);
    const auto outcomes = producer_->enqueue_batch(batch);
    ASSERT_EQ(outcomes.size(), batch.size());

    std::set<std::string> in_queue;
    for (const RawMessage &message : raw_->drain(config.name))
        in_queue.insert(message.message_id.value_or(""));
    std::map<qy_status, int> statuses;
    for (std::size_t i = 0; i < batch.size(); ++i) {
        const auto &outcome = outcomes[i];
        ++statuses[outcome.status];
        const bool arrived = in_queue.count(batch[i].job_id) != 0;
        if (i == 1000) {
            EXPECT_EQ(outcome.status, QY_ERR_INVALID_ARGUMENT) << outcome.message;
            EXPECT_NE(outcome.message.find(std::to_string(limit)), std::string::npos)
                << "the limit is not named: " << outcome.message;
            EXPECT_FALSE(arrived);
            continue;
        }
        EXPECT_NE(outcome.status, QY_ERR_PRECONDITION_FAILED)
            << "job " << i << " got the big publish's error: " << outcome.message;
        if (outcome.status == QY_OK) {
            EXPECT_TRUE(arrived) << "job " << i << " confirmed but not in the queue";
        }
        if (outcome.status == QY_ERR_NOT_SENT) {
            EXPECT_FALSE(arrived) << "job " << i << " reported not sent is in the queue";
        }
        EXPECT_TRUE(outcome.status == QY_OK || outcome.status == QY_ERR_NOT_SENT ||
                    outcome.status == QY_ERR_CONNECTION)
            << "job " << i << ": " << outcome.status << " " << outcome.message;
    }
    for (const auto &[status, count] : statuses)
        std::printf("status %d: %d\n", static_cast<int>(status), count);
    std::printf("in the queue: %zu\n", in_queue.size());
    EXPECT_GE(statuses[QY_ERR_NOT_SENT], 1) << "none after the big one was told it was dropped";

    // The limit is learnt: a second big body is refused before it is written, and the
    // small ones around it are all confirmed.
    const auto again = producer_->enqueue_batch(batch_around_a_big_one(config.name));
    for (std::size_t i = 0; i < again.size(); ++i) {
        if (i == 1000) {
            EXPECT_EQ(again[i].status, QY_ERR_INVALID_ARGUMENT) << again[i].message;
            EXPECT_NE(again[i].message.find("not sent"), std::string::npos) << again[i].message;
        } else {
            ASSERT_EQ(again[i].status, QY_OK) << "job " << i << ": " << again[i].message;
        }
    }
    EXPECT_EQ(raw_->message_count(config.name), 2000u);
}

TEST_F(MessageSize, ABodyOverAKnownLimitIsRefusedBeforeItIsWrittenNamingTheLimit) {
    auto options = backend_options(endpoint(), unique_name("size"));
    options.connection.max_message_size = 1000;
    auto backend = std::make_shared<queuey::RabbitBackend>(options);
    const auto config = declare_queue();
    backend->declare(config);
    queuey::Producer producer(backend);
    const auto error =
        error_of([&] { producer.enqueue(job(config.name, "\"" + std::string(2000, 'x') + "\"")); });
    ASSERT_TRUE(error);
    EXPECT_EQ(error->status(), QY_ERR_INVALID_ARGUMENT) << error->what();
    EXPECT_NE(std::string(error->what()).find("1000"), std::string::npos) << error->what();
    EXPECT_FALSE(error_of([&] { producer.enqueue(job(config.name)); }));
    EXPECT_EQ(raw_->message_count(config.name), 1u);
    backend->close();
}

}  // namespace
}  // namespace queuey_it
