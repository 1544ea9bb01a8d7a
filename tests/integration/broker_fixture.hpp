// A real RabbitMQ for the integration tests, and the shell-level tools around it.
//
// The broker comes from QUEUEY_TEST_URL (with QUEUEY_TEST_RABBITMQCTL, the command that
// runs rabbitmqctl against it) when that is set, else from
// `scripts/broker start <build>/integration-broker` (idempotent: a running node is
// reused). Every test makes its own uniquely named queues, so tests are independent and
// repeatable against a long-lived broker.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace queuey_it {

struct BrokerEndpoint {
    std::string url;  // amqp://user:pass@host:port/vhost
    std::string host;
    int port = 0;
    std::string user;
    std::string password;
    std::string vhost;
    std::string ctl;  // a shell command prefix that runs rabbitmqctl against this broker
    std::string dir;  // scripts/broker's DIR, when the broker is a private one
};

// The broker of this test process, started on first use. Throws std::runtime_error
// (with the script's output) when none can be had; later calls rethrow at once.
const BrokerEndpoint &broker();

// scripts/broker (QUEUEY_TEST_BROKER_SCRIPT overrides it, e.g. to try a patched copy).
std::string broker_script();
// Starts (or reuses) a private broker in dir with scripts/broker and reads its env file.
// extra_env: VAR=value words put before the command. Throws std::runtime_error.
BrokerEndpoint start_private_broker(const std::string &dir, const std::string &extra_env = "");
void stop_private_broker(const std::string &dir);
// The KEY=VALUE lines of a scripts/broker env file (single-quoted values unquoted).
std::vector<std::pair<std::string, std::string>> read_env_file(const std::string &path);

struct CommandResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr
};
// Runs a shell command and collects what it prints.
CommandResult run_command(const std::string &command);
std::string shell_quote(std::string_view word);
// Runs rabbitmqctl with args (each quoted) against the broker; throws std::runtime_error
// with the output when it fails.
std::string rabbitmqctl(const BrokerEndpoint &endpoint, const std::vector<std::string> &args);

// The URL of endpoint with other credentials, port or scheme.
std::string url_with(const BrokerEndpoint &endpoint, std::string_view scheme, std::string_view user,
                     std::string_view password, std::string_view host, int port);

// A name no other test (or earlier run) uses: "it.<Suite>.<Test>.<tag>.<random>", cut so
// that it stays a valid logical queue name.
std::string unique_name(std::string_view tag);

// Polls predicate until it holds or timeout passes; returns its last value.
bool eventually(const std::function<bool()> &predicate, std::chrono::milliseconds timeout,
                std::chrono::milliseconds step = std::chrono::milliseconds(50));

// Base fixture: fails the test (fatally) without a broker; deletes the queues it handed
// out (q and q.dead) afterwards.
class BrokerTest : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    const BrokerEndpoint &endpoint() const { return *endpoint_; }
    // A fresh logical queue name, removed with its dead-letter queue after the test.
    std::string new_queue(std::string_view tag = "q");
    // Also delete this broker queue after the test (e.g. a hold queue with a long TTL).
    void delete_after(std::string queue) { cleanup_.push_back(std::move(queue)); }

private:
    const BrokerEndpoint *endpoint_ = nullptr;
    std::vector<std::string> cleanup_;
};

}  // namespace queuey_it
