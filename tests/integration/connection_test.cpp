// behaviour.md section 8, connecting, through the C API: refused logins, unreachable
// and silent brokers, URL lists, the connection name the broker shows.
#include "broker_ctl.hpp"
#include "capi_support.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace queuey_it {
namespace {

using namespace capi;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// A loopback TCP socket: listening (a peer that accepts connections at the TCP level and
// then never says a word) or only bound (nobody listens: connections are refused).
class LocalPort {
public:
    explicit LocalPort(bool listening) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 ||
            ::getsockname(fd_, reinterpret_cast<sockaddr *>(&address), &length) != 0 ||
            (listening && ::listen(fd_, 16) != 0))
            throw std::runtime_error("cannot set up a local socket");
        port_ = ntohs(address.sin_port);
    }
    ~LocalPort() { ::close(fd_); }
    int port() const { return port_; }

private:
    int fd_;
    int port_ = 0;
};

class Connection : public BrokerTest {
protected:
    std::string url_to_port(int port) {
        return url_with(endpoint(), "amqp", endpoint().user, endpoint().password, "127.0.0.1",
                        port);
    }
    Options options_with_timeout(uint32_t connect_timeout_ms) {
        Options options = new_options();
        EXPECT_EQ(
            qy_client_options_set_connect_timeout_ms(options.get(), connect_timeout_ms, nullptr),
            QY_OK);
        return options;
    }
};

TEST_F(Connection, AWrongPasswordIsAnAuthErrorThatNeverShowsThePassword) {
    const std::string password = "Wr0ng-s3cret-pw";
    Client client;
    const Outcome outcome = connect(
        url_with(endpoint(), "amqp", endpoint().user, password, endpoint().host, endpoint().port),
        nullptr, client);
    EXPECT_EQ(outcome.status, QY_ERR_AUTH) << outcome.message;
    EXPECT_FALSE(client);
    EXPECT_FALSE(outcome.message.empty());
    EXPECT_EQ(outcome.message.find(password), std::string::npos) << outcome.message;
    EXPECT_EQ(outcome.message.find("s3cret"), std::string::npos) << outcome.message;
}

TEST_F(Connection, ARefusedPortIsAConnectionErrorWithinTheConnectTimeout) {
    const LocalPort nobody(false);
    const Options options = options_with_timeout(3000);
    Client client;
    const auto start = Clock::now();
    const Outcome outcome = connect(url_to_port(nobody.port()), options.get(), client);
    EXPECT_LT(Clock::now() - start, 3000ms);
    EXPECT_EQ(outcome.status, QY_ERR_CONNECTION) << outcome.message;
    EXPECT_NE(outcome.message.find(std::to_string(nobody.port())), std::string::npos)
        << "the message should name the broker: " << outcome.message;
    EXPECT_NE(outcome.message.find(
                  ": connection refused (127.0.0.1:" + std::to_string(nobody.port()) + ")"),
              std::string::npos)
        << "the message should say why: " << outcome.message;
    EXPECT_EQ(outcome.message.find(":" + endpoint().password + "@"), std::string::npos)
        << outcome.message;
    EXPECT_FALSE(client);
}

TEST_F(Connection, ASilentPeerFailsTheConnectWithinTheConnectTimeout) {
    const LocalPort silent(true);
    const Options options = options_with_timeout(1000);
    Client client;
    const auto start = Clock::now();
    const Outcome outcome = connect(url_to_port(silent.port()), options.get(), client);
    const auto took = Clock::now() - start;
    EXPECT_GE(took, 900ms);
    EXPECT_LT(took, 1000ms + 2000ms) << "the connect timeout was not honoured";
    EXPECT_EQ(outcome.status, QY_ERR_CONNECTION) << outcome.message;
    EXPECT_FALSE(client);
}

TEST_F(Connection, AUrlListSkipsADeadBrokerAndTheNameShowsInTheBroker) {
    const LocalPort nobody(false);
    const std::string name = unique_name("conn");
    Options options = options_with_timeout(3000);
    ASSERT_EQ(qy_client_options_add_url(options.get(), endpoint().url.c_str(), nullptr), QY_OK);
    ASSERT_EQ(qy_client_options_set_connection_name(options.get(), name.c_str(), nullptr), QY_OK);
    Client client;
    const Outcome outcome = connect(url_to_port(nobody.port()), options.get(), client);
    ASSERT_TRUE(outcome.ok()) << outcome.message;

    const std::string listed = rabbitmqctl(endpoint(), {"list_connections", "client_properties"});
    EXPECT_NE(listed.find("\"" + name + " (publish)\""), std::string::npos)
        << "connection name " << name << " not in:\n"
        << listed;

    // The connection works: declare and publish.
    const std::string queue = new_queue();
    QueueConfig config = new_config(queue);
    ASSERT_TRUE(call([&](qy_error **err) {
                    return qy_client_declare(client.get(), config.get(), err);
                }).ok());
    client.reset();
    EXPECT_TRUE(eventually([&] { return connection_pids(endpoint(), name).empty(); }, 10s))
        << "the connection stayed open after qy_client_free";
}

TEST_F(Connection, HeartbeatsKeepAnIdleConnectionAlive) {
    const std::string name = unique_name("conn");
    Options options = new_options();
    ASSERT_EQ(qy_client_options_set_heartbeat(options.get(), 1, nullptr), QY_OK);
    ASSERT_EQ(qy_client_options_set_connection_name(options.get(), name.c_str(), nullptr), QY_OK);
    Client client;
    ASSERT_TRUE(connect(endpoint().url, options.get(), client).ok());
    const std::string queue = new_queue();
    QueueConfig config = new_config(queue);
    ASSERT_EQ(qy_client_declare(client.get(), config.get(), nullptr), QY_OK);
    qy_consumer *consumer = nullptr;
    ASSERT_EQ(qy_consumer_new(client.get(), queue.c_str(), &consumer, nullptr), QY_OK);
    Consumer owner(consumer);
    EXPECT_EQ(connection_column(endpoint(), name, "timeout"), (std::vector<std::string>{"1", "1"}))
        << "the broker did not agree to a 1 s heartbeat on both connections";
    const auto pids = connection_pids(endpoint(), name);
    ASSERT_EQ(pids.size(), 2u) << "one connection publishes, one consumes";
    qy_delivery *nothing = nullptr;
    // Four heartbeat intervals of silence: the broker drops a client after two missed.
    ASSERT_EQ(qy_consumer_next(consumer, 4000, &nothing, nullptr), QY_OK);
    EXPECT_EQ(nothing, nullptr);
    EXPECT_EQ(connection_pids(endpoint(), name), pids)
        << "the idle connection was dropped and replaced";

    qy_producer *producer = nullptr;
    ASSERT_EQ(qy_producer_new(client.get(), &producer, nullptr), QY_OK);
    Producer producer_owner(producer);
    Envelope env = new_job(queue);
    const Outcome enqueued =
        call([&](qy_error **err) { return qy_producer_enqueue(producer, env.get(), err); });
    EXPECT_TRUE(enqueued.ok()) << enqueued.message;
}

TEST_F(Connection, WhenEveryUrlIsDeadTheErrorNamesThemWithoutPasswords) {
    const LocalPort first(false), second(false);
    Options options = options_with_timeout(2000);
    const std::string second_url =
        url_with(endpoint(), "amqp", "user", "hidden-pass-2", "127.0.0.1", second.port());
    ASSERT_EQ(qy_client_options_add_url(options.get(), second_url.c_str(), nullptr), QY_OK);
    Client client;
    const Outcome outcome =
        connect(url_with(endpoint(), "amqp", "user", "hidden-pass-1", "127.0.0.1", first.port()),
                options.get(), client);
    EXPECT_EQ(outcome.status, QY_ERR_CONNECTION) << outcome.message;
    EXPECT_NE(outcome.message.find(std::to_string(first.port())), std::string::npos)
        << outcome.message;
    EXPECT_NE(outcome.message.find(std::to_string(second.port())), std::string::npos)
        << outcome.message;
    EXPECT_EQ(outcome.message.find("hidden-pass"), std::string::npos) << outcome.message;
}

}  // namespace
}  // namespace queuey_it
