#include "broker_fixture.hpp"

#include "raw_amqp.hpp"

#include <amqp.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>

#include <sys/wait.h>

#ifndef QUEUEY_SOURCE_ROOT
#error "meson passes QUEUEY_SOURCE_ROOT"
#endif
#ifndef QUEUEY_BUILD_ROOT
#error "meson passes QUEUEY_BUILD_ROOT"
#endif

namespace queuey_it {

namespace {

std::string env_or(const char *name, const std::string &fallback) {
    const char *value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

std::string percent_encode(std::string_view text) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

// Fills host, port, user, password and vhost from endpoint.url.
void parse_url_into(BrokerEndpoint &endpoint) {
    std::string copy = endpoint.url;  // amqp_parse_url writes into its input
    amqp_connection_info info;
    amqp_default_connection_info(&info);
    if (amqp_parse_url(copy.data(), &info) != AMQP_STATUS_OK)
        throw std::runtime_error("cannot parse broker URL " + endpoint.url);
    endpoint.host = info.host;
    endpoint.port = info.port;
    endpoint.user = info.user;
    endpoint.password = info.password;
    endpoint.vhost = info.vhost;
}

BrokerEndpoint endpoint_from_env_file(const std::string &dir) {
    BrokerEndpoint endpoint;
    endpoint.dir = dir;
    for (const auto &[key, value] : read_env_file(dir + "/env")) {
        if (key == "QUEUEY_URL") endpoint.url = value;
        if (key == "QUEUEY_RABBITMQCTL") endpoint.ctl = value;
    }
    if (endpoint.url.empty() || endpoint.ctl.empty())
        throw std::runtime_error(dir + "/env lacks QUEUEY_URL or QUEUEY_RABBITMQCTL");
    parse_url_into(endpoint);
    return endpoint;
}

BrokerEndpoint find_broker() {
    if (const char *url = std::getenv("QUEUEY_TEST_URL"); url != nullptr && *url != '\0') {
        BrokerEndpoint endpoint;
        endpoint.url = url;
        endpoint.ctl = env_or("QUEUEY_TEST_RABBITMQCTL", "");
        if (endpoint.ctl.empty())
            throw std::runtime_error(
                "QUEUEY_TEST_URL is set but QUEUEY_TEST_RABBITMQCTL is not: the tests need "
                "rabbitmqctl against that broker (e.g. 'rabbitmqctl -n rabbit@host')");
        parse_url_into(endpoint);
        return endpoint;
    }
    return start_private_broker(std::string(QUEUEY_BUILD_ROOT) + "/integration-broker");
}

}  // namespace

std::string broker_script() {
    return env_or("QUEUEY_TEST_BROKER_SCRIPT", std::string(QUEUEY_SOURCE_ROOT) + "/scripts/broker");
}

std::vector<std::pair<std::string, std::string>> read_env_file(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::vector<std::pair<std::string, std::string>> entries;
    std::string line;
    while (std::getline(in, line)) {
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        std::string value = line.substr(eq + 1);
        if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
            value = value.substr(1, value.size() - 2);
            // kv() writes a ' inside single quotes as '\''
            for (std::size_t at; (at = value.find("'\\''")) != std::string::npos;)
                value.replace(at, 4, 1, '\'');
        }
        entries.emplace_back(line.substr(0, eq), value);
    }
    return entries;
}

BrokerEndpoint start_private_broker(const std::string &dir, const std::string &extra_env) {
    const std::string command = (extra_env.empty() ? "" : extra_env + " ") +
                                shell_quote(broker_script()) + " start " + shell_quote(dir);
    const CommandResult started = run_command(command);
    if (started.exit_code != 0)
        throw std::runtime_error("'" + command + "' failed (exit " +
                                 std::to_string(started.exit_code) + "):\n" + started.output);
    return endpoint_from_env_file(dir);
}

void stop_private_broker(const std::string &dir) {
    run_command(shell_quote(broker_script()) + " stop " + shell_quote(dir));
}

const BrokerEndpoint &broker() {
    static std::optional<BrokerEndpoint> endpoint;
    static std::string failure;
    if (!endpoint && failure.empty()) {
        try {
            endpoint = find_broker();
        } catch (const std::exception &e) {
            failure = e.what();
        }
    }
    if (!endpoint) throw std::runtime_error("no broker for the integration tests: " + failure);
    return *endpoint;
}

CommandResult run_command(const std::string &command) {
    CommandResult result;
    FILE *pipe = ::popen(("exec 2>&1; " + command).c_str(), "r");
    if (pipe == nullptr) return result;
    std::array<char, 4096> buffer;
    for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
        result.output.append(buffer.data(), n);
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

std::string shell_quote(std::string_view word) {
    std::string quoted = "'";
    for (char c : word) {
        if (c == '\'')
            quoted += "'\\''";
        else
            quoted += c;
    }
    return quoted + "'";
}

std::string rabbitmqctl(const BrokerEndpoint &endpoint, const std::vector<std::string> &args) {
    std::string command = endpoint.ctl;
    for (const std::string &arg : args) command.append(" ").append(shell_quote(arg));
    const CommandResult result = run_command(command);
    if (result.exit_code != 0)
        throw std::runtime_error("'" + command + "' failed (exit " +
                                 std::to_string(result.exit_code) + "):\n" + result.output);
    return result.output;
}

std::string url_with(const BrokerEndpoint &endpoint, std::string_view scheme, std::string_view user,
                     std::string_view password, std::string_view host, int port) {
    return std::string(scheme) + "://" + percent_encode(user) + ":" + percent_encode(password) +
           "@" + std::string(host) + ":" + std::to_string(port) + "/" +
           percent_encode(endpoint.vhost);
}

std::string unique_name(std::string_view tag) {
    std::string base = "it";
    if (const auto *test = ::testing::UnitTest::GetInstance()->current_test_info()) {
        base += ".";
        base += test->test_suite_name();
        base += ".";
        base += test->name();
    }
    if (!tag.empty()) {
        base += ".";
        base += tag;
    }
    for (char &c : base)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
            c = '_';
    if (base.size() > 180) base.resize(180);
    static std::mt19937_64 random(std::random_device{}());
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(random()));
    return base + "." + suffix;
}

bool eventually(const std::function<bool()> &predicate, std::chrono::milliseconds timeout,
                std::chrono::milliseconds step) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (predicate()) return true;
        if (std::chrono::steady_clock::now() >= until) return false;
        std::this_thread::sleep_for(step);
    }
}

void BrokerTest::SetUp() {
    try {
        endpoint_ = &broker();
    } catch (const std::exception &e) {
        GTEST_FAIL() << e.what();
    }
}

void BrokerTest::TearDown() {
    if (endpoint_ == nullptr || cleanup_.empty()) return;
    try {
        RawAmqp raw(*endpoint_);
        for (const std::string &queue : cleanup_) {
            try {
                raw.delete_queue(queue);
            } catch (const std::exception &e) {
                std::fprintf(stderr, "cleanup of %s: %s\n", queue.c_str(), e.what());
            }
        }
    } catch (const std::exception &e) {
        // The broker may be down after a failed restart test; that test already failed.
        std::fprintf(stderr, "cleanup: %s\n", e.what());
    }
}

std::string BrokerTest::new_queue(std::string_view tag) {
    std::string name = unique_name(tag);
    cleanup_.push_back(name);
    cleanup_.push_back(name + ".dead");
    return name;
}

}  // namespace queuey_it
