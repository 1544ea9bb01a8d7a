#include "core_fixture.hpp"

#include "broker/amqp_url.hpp"

namespace queuey_it {

queuey::RabbitBackendOptions backend_options(const BrokerEndpoint &broker,
                                             const std::string &connection_name) {
    queuey::RabbitBackendOptions options;
    options.connection.urls = {queuey::parse_amqp_url(broker.url)};
    options.connection.session.connection_name = connection_name;
    options.connection.session.connect_timeout = std::chrono::seconds(5);
    // Reconnect quickly: the reconnect tests wait for it.
    options.connection.reconnect.backoff = {std::chrono::milliseconds(100), 2.0,
                                            std::chrono::milliseconds(1000), false};
    options.publish_timeout = std::chrono::seconds(15);
    return options;
}

queuey::Envelope job(const std::string &queue, std::string_view payload) {
    return queuey::Envelope::create("it.job", queue, payload);
}

std::optional<queuey::Error> error_of(const std::function<void()> &call) {
    try {
        call();
    } catch (const queuey::Error &error) {
        return error;
    }
    return std::nullopt;
}

std::vector<std::shared_ptr<queuey::Delivery>> receive(queuey::Consumer &consumer,
                                                       std::size_t count,
                                                       std::chrono::milliseconds timeout) {
    std::vector<std::shared_ptr<queuey::Delivery>> deliveries;
    while (deliveries.size() < count) {
        auto delivery = consumer.next(timeout);
        if (!delivery) break;
        deliveries.push_back(std::move(delivery));
    }
    return deliveries;
}

void CoreTest::SetUp() {
    BrokerTest::SetUp();
    if (HasFatalFailure()) return;
    connection_name_ = unique_name("conn");
    try {
        backend_ =
            std::make_shared<queuey::RabbitBackend>(backend_options(endpoint(), connection_name_));
        producer_.emplace(backend_);
        raw_.emplace(endpoint());
    } catch (const std::exception &e) {
        GTEST_FAIL() << "cannot connect to the broker: " << e.what();
    }
}

void CoreTest::TearDown() {
    producer_.reset();
    if (backend_) backend_->close();
    backend_.reset();
    raw_.reset();
    BrokerTest::TearDown();
}

queuey::QueueConfig CoreTest::declare_queue(const std::function<void(queuey::QueueConfig &)> &tweak,
                                            std::string_view tag) {
    queuey::QueueConfig config;
    config.name = new_queue(tag);
    if (tweak) tweak(config);
    backend_->declare(config);
    return config;
}

void CoreTest::expect_job_flows(queuey::Consumer &consumer, const std::string &queue,
                                const char *why) {
    const queuey::Envelope env = job(queue);
    producer_->enqueue(env);
    auto delivery = consumer.next(std::chrono::seconds(5));
    ASSERT_TRUE(delivery) << why;
    EXPECT_EQ(delivery->envelope().job_id, env.job_id);
    delivery->ack();
}

}  // namespace queuey_it
