// behaviour.md section 8, amqps://, through the C API against a private broker with a
// TLS listener and certificates made for this run: the peer and its host name are
// verified, and nothing ever falls back to plaintext.
//
// The broker comes from scripts/broker with QUEUEY_BROKER_TLS_DIR (a directory with
// ca.pem, server.pem and server.key), which adds a TLS listener and writes
// QUEUEY_TLS_PORT to its env file.
#include "broker_ctl.hpp"
#include "capi_support.hpp"
#include "tls_files.hpp"

#include <cctype>
#include <optional>
#include <sstream>
#include <vector>

namespace queuey_it {
namespace {

using namespace capi;
using namespace std::chrono_literals;

struct TlsBroker {
    std::string root;  // temp dir with certs/ and broker/
    TlsFiles files;
    BrokerEndpoint endpoint;
    int tls_port = 0;
};

class Tls : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        try {
            // Fail at once (and loudly) rather than start a node that cannot do TLS.
            if (run_command("grep -q QUEUEY_BROKER_TLS_DIR " + shell_quote(broker_script()))
                    .exit_code != 0) {
                failure_ = broker_script() +
                           " does not support QUEUEY_BROKER_TLS_DIR yet, so there "
                           "is no TLS broker to test against (see tests/integration/tls_test.cpp)";
                return;
            }
            broker_.emplace();
            broker_->root = make_temp_dir("queuey-tls");
            broker_->files = make_tls_files(broker_->root + "/certs");
            const std::string dir = broker_->root + "/broker";
            broker_->endpoint = start_private_broker(
                dir, "QUEUEY_BROKER_TLS_DIR=" + shell_quote(broker_->root + "/certs"));
            for (const auto &[key, value] : read_env_file(dir + "/env"))
                if (key == "QUEUEY_TLS_PORT") broker_->tls_port = std::stoi(value);
            if (broker_->tls_port == 0)
                failure_ = broker_script() +
                           " started a broker without a TLS listener: it does not support "
                           "QUEUEY_BROKER_TLS_DIR yet (no QUEUEY_TLS_PORT in " +
                           dir + "/env)";
        } catch (const std::exception &e) {
            failure_ = std::string("cannot start a TLS broker: ") + e.what();
        }
    }

    static void TearDownTestSuite() {
        if (!broker_) return;
        stop_private_broker(broker_->root + "/broker");
        remove_tree(broker_->root);
        broker_.reset();
    }

    void SetUp() override {
        ASSERT_TRUE(failure_.empty()) << failure_;  // never skipped: TLS is part of the contract
    }

    const BrokerEndpoint &plain() const { return broker_->endpoint; }
    std::string tls_url(const std::string &host) const {
        return url_with(plain(), "amqps", plain().user, plain().password, host, broker_->tls_port);
    }
    const TlsFiles &files() const { return broker_->files; }

    // Options with a connection name and, if given, a CA file.
    Options options(const std::string &name, const std::optional<std::string> &ca_file) const {
        Options opts = new_options();
        EXPECT_EQ(qy_client_options_set_connection_name(opts.get(), name.c_str(), nullptr), QY_OK);
        EXPECT_EQ(qy_client_options_set_connect_timeout_ms(opts.get(), 5000, nullptr), QY_OK);
        if (ca_file) {
            EXPECT_EQ(qy_client_options_set_ca_cert_file(opts.get(), ca_file->c_str(), nullptr),
                      QY_OK);
        }
        return opts;
    }

    // Connects to url with a CA file or the system's CAs, expecting a failure.
    Outcome refused(const std::string &url, const std::optional<std::string> &ca_file) const {
        const Options opts = options(unique_name("tls"), ca_file);
        Client client;
        const Outcome outcome = connect(url, opts.get(), client);
        EXPECT_FALSE(client) << "connected to " << url;
        return outcome;
    }

    static void expect_verification_failure(const Outcome &outcome) {
        EXPECT_EQ(outcome.status, QY_ERR_CONNECTION) << outcome.message;
        std::string lower = outcome.message;
        for (char &c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        EXPECT_TRUE(lower.find("verif") != std::string::npos ||
                    lower.find("certificate") != std::string::npos)
            << "the message should say that the certificate was not verified: " << outcome.message;
    }

    static inline std::optional<TlsBroker> broker_;
    static inline std::string failure_;
};

TEST_F(Tls, WithTheCaFileAJobGoesThroughAVerifiedTlsConnection) {
    const std::string name = unique_name("tls");
    const Options opts = options(name, files().ca_cert);
    Client client;
    const Outcome connected = connect(tls_url("localhost"), opts.get(), client);
    ASSERT_TRUE(connected.ok()) << connected.message;

    const std::string queue = unique_name("q");
    QueueConfig config = new_config(queue);
    ASSERT_TRUE(call([&](qy_error **err) {
                    return qy_client_declare(client.get(), config.get(), err);
                }).ok());
    qy_producer *producer_handle = nullptr;
    ASSERT_EQ(qy_producer_new(client.get(), &producer_handle, nullptr), QY_OK);
    Producer producer(producer_handle);
    Envelope env = new_job(queue);
    const Outcome enqueued =
        call([&](qy_error **err) { return qy_producer_enqueue(producer.get(), env.get(), err); });
    ASSERT_TRUE(enqueued.ok()) << enqueued.message;

    qy_consumer *consumer_handle = nullptr;
    ASSERT_EQ(qy_consumer_new(client.get(), queue.c_str(), &consumer_handle, nullptr), QY_OK);
    Consumer consumer(consumer_handle);
    qy_delivery *delivery_handle = nullptr;
    ASSERT_EQ(qy_consumer_next(consumer.get(), 5000, &delivery_handle, nullptr), QY_OK);
    Delivery delivery(delivery_handle);
    ASSERT_TRUE(delivery);
    EXPECT_STREQ(qy_envelope_job_id(qy_delivery_envelope(delivery.get())),
                 qy_envelope_job_id(env.get()));
    EXPECT_EQ(qy_delivery_ack(delivery.get(), nullptr), QY_OK);

    // The broker sees a TLS connection under our name.
    const std::string listed = rabbitmqctl(
        plain(), {"-q", "list_connections", "--no-table-headers", "ssl", "client_properties"});
    bool found = false;
    std::istringstream lines(listed);
    for (std::string line; std::getline(lines, line);)
        if (line.find("\"" + name + " (") != std::string::npos) {
            found = true;
            EXPECT_EQ(line.rfind("true", 0), 0u) << "not a TLS connection: " << line;
        }
    EXPECT_TRUE(found) << listed;
}

TEST_F(Tls, WithTheSystemCasTheSelfMadeCertificateIsRefused) {
    expect_verification_failure(refused(tls_url("localhost"), std::nullopt));
}

TEST_F(Tls, WithAnotherCaTheCertificateIsRefused) {
    expect_verification_failure(refused(tls_url("localhost"), files().other_ca));
}

TEST_F(Tls, AHostNameTheCertificateDoesNotNameIsRefused) {
    // The certificate names DNS:localhost only; 127.0.0.1 is the same socket.
    const Outcome outcome = refused(tls_url("127.0.0.1"), files().ca_cert);
    EXPECT_EQ(outcome.status, QY_ERR_CONNECTION) << outcome.message;
    EXPECT_NE(outcome.message.find("hostname"), std::string::npos) << outcome.message;
}

TEST_F(Tls, AMissingCaFileIsAnInvalidArgument) {
    const Outcome outcome = refused(tls_url("localhost"), broker_->root + "/no-such-ca.pem");
    EXPECT_EQ(outcome.status, QY_ERR_INVALID_ARGUMENT) << outcome.message;
    EXPECT_NE(outcome.message.find("no-such-ca.pem"), std::string::npos) << outcome.message;
}

TEST_F(Tls, ManyJobsFlowWithoutStallingOnTlsBuffering) {
    // rabbitmq-c reads TLS records through OpenSSL: data held there is invisible to
    // poll(), so an I/O loop that trusted poll() alone would stall up to a second a time.
    const Options opts = options(unique_name("tls"), files().ca_cert);
    Client client;
    const Outcome connected = connect(tls_url("localhost"), opts.get(), client);
    ASSERT_TRUE(connected.ok()) << connected.message;
    const std::string queue = unique_name("q");
    QueueConfig config = new_config(queue);
    ASSERT_EQ(qy_queue_config_set_prefetch(config.get(), 50, nullptr), QY_OK);
    ASSERT_EQ(qy_client_declare(client.get(), config.get(), nullptr), QY_OK);
    qy_producer *producer_handle = nullptr;
    ASSERT_EQ(qy_producer_new(client.get(), &producer_handle, nullptr), QY_OK);
    Producer producer(producer_handle);
    qy_consumer *consumer_handle = nullptr;
    ASSERT_EQ(qy_consumer_new(client.get(), queue.c_str(), &consumer_handle, nullptr), QY_OK);
    Consumer consumer(consumer_handle);

    constexpr int jobs = 1000;
    std::vector<Envelope> owners;
    std::vector<const qy_envelope *> batch;
    const std::string padding(2000, 'p');  // several TLS records per burst
    for (int i = 0; i < jobs; ++i) {
        owners.push_back(new_job(queue, "\"" + padding + "\""));
        batch.push_back(owners.back().get());
    }
    const auto start = std::chrono::steady_clock::now();
    const Outcome published = call([&](qy_error **err) {
        return qy_producer_enqueue_batch(producer.get(), batch.data(), batch.size(), nullptr, err);
    });
    ASSERT_TRUE(published.ok()) << published.message;
    int received = 0;
    while (received < jobs) {
        qy_delivery *delivery = nullptr;
        ASSERT_EQ(qy_consumer_next(consumer.get(), 5000, &delivery, nullptr), QY_OK);
        ASSERT_NE(delivery, nullptr) << "stalled after " << received << " jobs";
        EXPECT_EQ(qy_delivery_ack(delivery, nullptr), QY_OK);
        qy_delivery_free(delivery);
        ++received;
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 15s) << "TLS traffic stalls";
}

TEST_F(Tls, AmqpsToThePlainPortFailsAndNeverFallsBackToPlaintext) {
    const std::string name = unique_name("tls");
    const Options opts = options(name, files().ca_cert);
    Client client;
    const auto start = std::chrono::steady_clock::now();
    const Outcome outcome = connect(
        url_with(plain(), "amqps", plain().user, plain().password, "localhost", plain().port),
        opts.get(), client);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5000ms + 2000ms);
    EXPECT_EQ(outcome.status, QY_ERR_CONNECTION) << outcome.message;
    EXPECT_FALSE(client);
    EXPECT_TRUE(connection_pids(plain(), name).empty()) << "a plaintext connection was opened";
}

TEST_F(Tls, PlainAmqpToTheTlsPortFails) {
    const auto start = std::chrono::steady_clock::now();
    const Outcome outcome = refused(
        url_with(plain(), "amqp", plain().user, plain().password, "localhost", broker_->tls_port),
        std::nullopt);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5000ms + 2000ms);
    EXPECT_EQ(outcome.status, QY_ERR_CONNECTION) << outcome.message;
}

}  // namespace
}  // namespace queuey_it
