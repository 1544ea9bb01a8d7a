// The fixture of the tests that drive the C++ core (RabbitBackend, Producer, Consumer,
// Delivery) against the broker, with a raw connection beside it to check the wire.
#pragma once

#include "broker_fixture.hpp"
#include "raw_amqp.hpp"

#include "backend.hpp"
#include "broker/rabbit_backend.hpp"
#include "error.hpp"
#include "producer.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace queuey_it {

// Options for a RabbitBackend on the broker, under a connection name of its own.
queuey::RabbitBackendOptions backend_options(const BrokerEndpoint &broker,
                                             const std::string &connection_name);

// A job of type "it.job" for queue.
queuey::Envelope job(const std::string &queue, std::string_view payload = R"({"n":1})");

// The queuey::Error that call throws, or nothing (the caller asserts on it).
std::optional<queuey::Error> error_of(const std::function<void()> &call);

// Receives count deliveries (each within timeout), fewer when the time runs out.
std::vector<std::shared_ptr<queuey::Delivery>> receive(queuey::Consumer &consumer,
                                                       std::size_t count,
                                                       std::chrono::milliseconds timeout);

class CoreTest : public BrokerTest {
protected:
    void SetUp() override;
    void TearDown() override;

    // A fresh logical queue, declared through the backend after tweak changed its config.
    queuey::QueueConfig declare_queue(const std::function<void(queuey::QueueConfig &)> &tweak = {},
                                      std::string_view tag = "q");

    // Enqueues one job to queue and checks that consumer receives it (then acks it).
    void expect_job_flows(queuey::Consumer &consumer, const std::string &queue, const char *why);

    std::string connection_name_;
    std::shared_ptr<queuey::RabbitBackend> backend_;
    std::optional<queuey::Producer> producer_;
    std::optional<RawAmqp> raw_;
};

}  // namespace queuey_it
