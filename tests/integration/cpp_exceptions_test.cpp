// What a C++ handler throws goes into its dead letter: the header x-exception holds the
// exception's demangled type, a newline and its what(), beside x-death-reason, through
// queuey.hpp over libqueuey, on RabbitMQ and on memory:// (docs/worker.md, outcomes).
// Dead letters are read back with Client::browse(), as `queuey dead show` reads them.
#include "broker_fixture.hpp"
#include "raw_amqp.hpp"

#include <queuey/queuey.hpp>

#include <rapidjson/document.h>

#include <atomic>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace shop {
// An application's own exception, for its demangled name.
struct OrderNotFound : std::runtime_error {
    using std::runtime_error::runtime_error;
};
}  // namespace shop

namespace queuey_it {
namespace {

using namespace std::chrono_literals;
using queuey::Counter;

// A dead letter's reason and its x-exception header (nullopt: none).
struct DeadLetter {
    std::string reason;
    std::optional<std::string> exception;
};

class CppExceptions : public ::testing::TestWithParam<const char *> {
protected:
    void SetUp() override {
        std::string url = "memory://";
        if (on_rabbitmq()) {
            try {
                endpoint_ = &broker();
            } catch (const std::exception &e) {
                FAIL() << e.what();
            }
            url = endpoint_->url;
        }
        client_.emplace(url);
        queue_ = unique_name("q");
        client_->declare(queuey::QueueConfig(queue_).delay_granularity(50ms));
    }
    void TearDown() override {
        if (!on_rabbitmq() || endpoint_ == nullptr) return;
        RawAmqp raw(*endpoint_);
        raw.delete_queue(queue_);
        raw.delete_queue(queue_ + ".dead");
    }
    bool on_rabbitmq() const { return std::string(GetParam()) == "rabbitmq"; }

    // Enqueues one job of type "t", runs handler fn on it with max_attempts until it is
    // dead-lettered, and returns the dead letters of the queue.
    template <typename F>
    std::vector<DeadLetter> dead_letters_of(F fn, uint32_t max_attempts) {
        queuey::Producer(*client_).enqueue(queuey::Envelope("t", queue_, "{}"));
        queuey::Worker worker(*client_, {queue_});
        worker.concurrency(1).default_retry(queuey::RetryPolicy(max_attempts)).handle("t", fn);
        std::thread runner([&] { worker.run(); });
        const auto dead = [&] {
            return worker.counter(Counter::dead_lettered_fatal) +
                   worker.counter(Counter::dead_lettered_exhausted);
        };
        EXPECT_TRUE(eventually([&] { return dead() == 1; }, 10s));
        worker.shutdown();
        runner.join();
        return browse_dead_letters();
    }

    std::vector<DeadLetter> browse_dead_letters() {
        std::vector<DeadLetter> letters;
        client_->browse(queue_ + ".dead", [&](const queuey::MessageView &message) {
            rapidjson::Document headers;
            const std::string json(message.headers_json());
            headers.Parse(json.c_str());
            EXPECT_TRUE(headers.IsObject()) << json;
            DeadLetter letter{std::string(message.reason()), std::nullopt};
            if (headers.IsObject() && headers.HasMember("x-exception")) {
                const auto &value = headers["x-exception"];
                EXPECT_TRUE(value.IsString()) << json;
                if (value.IsString())
                    letter.exception = std::string(value.GetString(), value.GetStringLength());
            }
            letters.push_back(std::move(letter));
            return true;
        });
        return letters;
    }

    const BrokerEndpoint *endpoint_ = nullptr;
    std::optional<queuey::Client> client_;
    std::string queue_;
};

TEST_P(CppExceptions, AnExceptionThatExhaustsTheRetriesIsInTheDeadLetter) {
    std::atomic<int> runs{0};
    const auto letters = dead_letters_of(
        [&](queuey::Job &) -> queuey::Outcome {
            ++runs;
            throw shop::OrderNotFound("order 42 not found");
        },
        2);
    EXPECT_EQ(runs, 2);
    ASSERT_EQ(letters.size(), 1u);
    EXPECT_EQ(letters[0].reason, "max attempts (2) exhausted after attempt 2: order 42 not found");
    EXPECT_EQ(letters[0].exception, "shop::OrderNotFound\norder 42 not found");
}

TEST_P(CppExceptions, FatalIsInTheDeadLetter) {
    const auto letters = dead_letters_of(
        [](queuey::Job &) -> queuey::Outcome { throw queuey::Fatal{"card declined"}; }, 3);
    ASSERT_EQ(letters.size(), 1u);
    EXPECT_EQ(letters[0].reason, "fatal error: card declined");
    EXPECT_EQ(letters[0].exception, "queuey::Fatal\ncard declined");
}

TEST_P(CppExceptions, AnEarlierAttemptsExceptionIsNotCarriedOver) {
    // Attempt 1 throws and is retried; attempt 2 fails without an exception: its dead
    // letter has no x-exception (a run's exception belongs to that run alone).
    const auto letters = dead_letters_of(
        [](queuey::Job &job) {
            if (job.attempt() == 1) throw std::runtime_error("first");
            return job.fatal("second");
        },
        3);
    ASSERT_EQ(letters.size(), 1u);
    EXPECT_EQ(letters[0].reason, "fatal error: second");
    EXPECT_EQ(letters[0].exception, std::nullopt);
}

TEST_P(CppExceptions, ALongWhatIsCutTo4096BytesWithAMarker) {
    const std::string what(10000, 'x');
    const auto letters =
        dead_letters_of([&](queuey::Job &) -> queuey::Outcome { throw std::logic_error(what); }, 1);
    ASSERT_EQ(letters.size(), 1u);
    ASSERT_TRUE(letters[0].exception);
    const std::string marker = "\n[truncated]";
    EXPECT_EQ(*letters[0].exception,
              "std::logic_error\n" + what.substr(0, 4096 - 17 - marker.size()) + marker);
    EXPECT_EQ(letters[0].exception->size(), 4096u);
}

INSTANTIATE_TEST_SUITE_P(Backends, CppExceptions, ::testing::Values("rabbitmq", "memory"),
                         [](const auto &info) { return std::string(info.param); });

}  // namespace
}  // namespace queuey_it
