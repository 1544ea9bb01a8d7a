// A log callback that blocks for seconds on the connection's first log line stalls
// neither publishes (with confirms) nor deliveries: the line is logged from the I/O
// thread, which must go on serving the socket (heartbeats, confirms, deliveries).
#include "../capi/log_recorder.hpp"
#include "broker_ctl.hpp"
#include "capi_support.hpp"

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace queuey_it {
namespace {

using namespace capi;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// One publish as the producer saw it.
struct Publish {
    Clock::time_point start;
    Clock::duration took;
    qy_status status;
    std::string job_id;
};

// A producer publishing (with confirms) every 20 ms and a consumer acking everything,
// each on a thread of its own, until stop().
class Traffic {
public:
    Traffic(qy_client *client, const std::string &queue) {
        qy_producer *producer = nullptr;
        qy_consumer *consumer = nullptr;
        if (qy_producer_new(client, &producer, nullptr) != QY_OK ||
            qy_consumer_new(client, queue.c_str(), &consumer, nullptr) != QY_OK)
            throw std::runtime_error("cannot make a producer and a consumer");
        producer_.reset(producer);
        consumer_.reset(consumer);
        producing_ = std::thread([this, queue] {
            while (!stopping_) {
                Envelope env = new_job(queue);
                const auto start = Clock::now();
                const qy_status status = qy_producer_enqueue(producer_.get(), env.get(), nullptr);
                std::lock_guard lock(mutex_);
                publishes_.push_back(
                    {start, Clock::now() - start, status, qy_envelope_job_id(env.get())});
                std::this_thread::sleep_for(20ms);
            }
        });
        consuming_ = std::thread([this] {
            while (!stopping_ || !received_everything()) {
                qy_delivery *raw = nullptr;
                if (qy_consumer_next(consumer_.get(), 100, &raw, nullptr) != QY_OK) {
                    if (stopping_) return;
                    std::this_thread::sleep_for(10ms);  // reconnecting
                }
                if (raw == nullptr) continue;
                const Delivery delivery(raw);
                qy_delivery_ack(delivery.get(), nullptr);  // a stale one comes back
                std::lock_guard lock(mutex_);
                received_.insert(qy_envelope_job_id(qy_delivery_envelope(delivery.get())));
            }
        });
    }
    ~Traffic() { stop(); }

    // Stops publishing, then receives for up to 10 s more what was confirmed.
    void stop() {
        stopping_ = true;
        if (producing_.joinable()) producing_.join();
        deadline_ = Clock::now() + 10s;
        if (consuming_.joinable()) consuming_.join();
    }

    std::vector<Publish> publishes() const {
        std::lock_guard lock(mutex_);
        return publishes_;
    }
    std::set<std::string> received() const {
        std::lock_guard lock(mutex_);
        return received_;
    }

private:
    bool received_everything() const {
        if (Clock::now() > deadline_.load()) return true;
        std::lock_guard lock(mutex_);
        for (const Publish &publish : publishes_)
            if (publish.status == QY_OK && !received_.count(publish.job_id)) return false;
        return true;
    }

    Producer producer_;
    Consumer consumer_;
    mutable std::mutex mutex_;
    std::vector<Publish> publishes_;
    std::set<std::string> received_;
    std::atomic<bool> stopping_{false};
    std::atomic<Clock::time_point> deadline_{Clock::time_point::max()};
    std::thread producing_;
    std::thread consuming_;
};

class SlowLogSink : public BrokerTest {
protected:
    // A client whose log callback is sink_, with heartbeats every 2 s, and a queue.
    void SetUp() override {
        BrokerTest::SetUp();
        if (HasFatalFailure()) return;
        name_ = unique_name("slowlog");
        const Options options = new_options();
        ASSERT_EQ(sink_.install(options.get()), QY_OK);
        ASSERT_EQ(qy_client_options_set_connection_name(options.get(), name_.c_str(), nullptr),
                  QY_OK);
        ASSERT_EQ(qy_client_options_set_heartbeat(options.get(), 2, nullptr), QY_OK);
        ASSERT_EQ(qy_client_options_set_publish_timeout_ms(options.get(), 5000, nullptr), QY_OK);
        ASSERT_EQ(qy_client_options_set_reconnect(options.get(), -1, 100, 2.0, 1000, 0, nullptr),
                  QY_OK);
        const Outcome connected = connect(endpoint().url, options.get(), client_);
        ASSERT_TRUE(connected.ok()) << connected.message;
        queue_ = new_queue();
        const QueueConfig config = new_config(queue_);
        ASSERT_EQ(qy_client_declare(client_.get(), config.get(), nullptr), QY_OK);
    }
    void TearDown() override {
        sink_.open();
        client_.reset();
        BrokerTest::TearDown();
    }

    // From `since` on, the publishes completed fast and the consumer got every job.
    void expect_traffic_flowed(const Traffic &traffic, Clock::time_point since) {
        const std::set<std::string> received = traffic.received();
        std::size_t later = 0;
        for (const Publish &publish : traffic.publishes()) {
            if (publish.status == QY_OK) {
                EXPECT_TRUE(received.count(publish.job_id)) << "confirmed, never delivered";
            }
            if (publish.start < since) continue;
            ++later;
            EXPECT_EQ(publish.status, QY_OK) << qy_status_name(publish.status);
            EXPECT_LT(publish.took, 1s) << "a publish waited for the log callback";
        }
        EXPECT_GE(later, 20u) << "publishes stalled: too few in the last seconds";
    }

    qyt::LogRecorder sink_{true, 15s};
    std::string name_;
    std::string queue_;
    Client client_;
};

TEST_F(SlowLogSink, BlockingOnTheBlockedPublishingLineStallsNothingOnceTheBrokerUnblocks) {
    Traffic traffic(client_.get(), queue_);
    set_memory_alarm(endpoint(), true);
    const bool logged = sink_.wait_for_lines(1, 10s);
    set_memory_alarm(endpoint(), false);
    ASSERT_TRUE(logged) << "the broker's block was not logged";
    EXPECT_NE(sink_.lines()[0].find("blocked"), std::string::npos) << sink_.lines()[0];
    const auto unblocked = Clock::now() + 500ms;
    std::this_thread::sleep_for(3s);
    traffic.stop();
    expect_traffic_flowed(traffic, unblocked);
    sink_.open();
    client_.reset();  // delivers the lines queued behind the first
    for (const std::string &line : sink_.lines())
        EXPECT_EQ(line.find("connection lost"), std::string::npos)
            << "heartbeats stopped: " << line;
}

TEST_F(SlowLogSink, BlockingOnTheConnectionLostLineDelaysNoReconnect) {
    Traffic traffic(client_.get(), queue_);
    std::this_thread::sleep_for(200ms);
    ASSERT_EQ(close_connections(endpoint(), name_), 2u);  // publishing and consuming
    ASSERT_TRUE(sink_.wait_for_lines(1, 10s));
    EXPECT_NE(sink_.lines()[0].find("connection lost"), std::string::npos) << sink_.lines()[0];
    const auto reconnected = Clock::now() + 1s;
    std::this_thread::sleep_for(3s);
    traffic.stop();
    expect_traffic_flowed(traffic, reconnected);
}

}  // namespace
}  // namespace queuey_it
