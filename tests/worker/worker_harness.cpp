#include "worker_harness.hpp"

#include "broker_ctl.hpp"
#include "broker_fixture.hpp"
#include "core_fixture.hpp"
#include "raw_amqp.hpp"

#include "amqp_properties.hpp"
#include "broker/rabbit_backend.hpp"
#include "envelope_codec.hpp"
#include "memory/memory_backend.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <stdexcept>

namespace queuey_wt {

std::string name_of(BackendKind kind) {
    return kind == BackendKind::memory ? "memory" : "rabbitmq";
}

queuey::QueueConfig BackendUnderTest::declare_queue(
    const std::function<void(queuey::QueueConfig &)> &tweak) {
    queuey::QueueConfig config;
    config.name = queuey_it::unique_name("q");
    config.delay_granularity = test_granularity;
    if (tweak) tweak(config);
    remember_queue(config.name);
    backend()->declare(config);
    return config;
}

namespace {

class MemoryUnderTest final : public BackendUnderTest {
public:
    MemoryUnderTest() : backend_(std::make_shared<queuey::MemoryBackend>()) {}

    BackendKind kind() const override { return BackendKind::memory; }
    std::shared_ptr<queuey::Backend> backend() override { return backend_; }

    std::vector<DeadLetter> dead_letters(const std::string &queue) override {
        std::vector<DeadLetter> found;
        for (const auto &dead : backend_->snapshot().dead_lettered)
            if (dead.queue == queue) found.push_back({dead.envelope, dead.reason, {}, -1});
        return found;
    }

    std::size_t ready_count(const std::string &queue) override {
        return backend_->snapshot().pending(queue).size();
    }

    std::optional<std::size_t> in_flight_count(const std::string &queue) override {
        return backend_->snapshot().in_flight(queue);
    }

    // On memory a crash is a Delivery destroyed unsettled: the job goes back marked
    // redelivered (docs/worker.md, crash loops).
    queuey::Envelope lose_a_worker(const std::string &queue) override {
        auto consumer = backend_->consume(queue);
        auto delivery = consumer->next(std::chrono::seconds(5));
        if (!delivery) throw std::runtime_error("lose_a_worker: no job came in 5 s");
        queuey::Envelope taken = delivery->envelope();
        delivery.reset();  // dropped unsettled
        return taken;
    }

    std::shared_ptr<queuey::Backend> another_process(const queuey::QueueConfig &) override {
        return backend_;
    }

    bool remove_dead_letter_queue(const std::string &) override { return false; }

    bool close_connection() override { return false; }

    void publish_fire(const queuey::Envelope &envelope,
                      const queuey::ScheduledFire &fire) override {
        const queuey::PublishOutcome outcome = backend_->publish_fire(envelope, fire);
        if (outcome.status != QY_OK) throw std::runtime_error(outcome.message);
    }

    void clean_up() override { backend_->close(); }

protected:
    void remember_queue(const std::string &) override {}

private:
    std::shared_ptr<queuey::MemoryBackend> backend_;
};

class RabbitUnderTest final : public BackendUnderTest {
public:
    RabbitUnderTest()
        : endpoint_(queuey_it::broker()),
          connection_name_(queuey_it::unique_name("worker")),
          backend_(std::make_shared<queuey::RabbitBackend>(
              queuey_it::backend_options(endpoint_, connection_name_))),
          raw_(endpoint_) {}

    BackendKind kind() const override { return BackendKind::rabbitmq; }
    std::shared_ptr<queuey::Backend> backend() override { return backend_; }

    std::vector<DeadLetter> dead_letters(const std::string &queue) override {
        std::lock_guard lock(mutex_);
        auto &seen = dead_[queue];
        for (const auto &message : raw_.drain(queuey::dead_letter_queue_name(queue))) {
            DeadLetter dead;
            try {
                dead.envelope = queuey::decode_envelope(message.body);
            } catch (const std::exception &error) {
                ADD_FAILURE() << "a dead letter of " << queue << " is no envelope: " << error.what()
                              << "\n"
                              << message.body;
            }
            if (const auto *reason = message.header("x-death-reason")) dead.reason = reason->text;
            if (const auto *original = message.header("x-original-queue"))
                dead.original_queue = original->text;
            if (const auto *attempts = message.header("x-attempts"))
                dead.attempts_header = attempts->integer;
            seen.push_back(std::move(dead));
        }
        return seen;
    }

    std::size_t ready_count(const std::string &queue) override {
        std::lock_guard lock(mutex_);
        return raw_.message_count(queue).value_or(0);
    }

    std::optional<std::size_t> in_flight_count(const std::string &) override {
        return std::nullopt;
    }

    // A crash, as the broker sees it: a connection that holds the job unacknowledged goes
    // away. The broker requeues the job marked redelivered.
    queuey::Envelope lose_a_worker(const std::string &queue) override {
        auto other = std::make_shared<queuey::RabbitBackend>(
            queuey_it::backend_options(endpoint_, queuey_it::unique_name("lost")));
        other->declare(backend_->config_of(queue));
        auto consumer = other->consume(queue);
        auto delivery = consumer->next(std::chrono::seconds(5));
        if (!delivery) throw std::runtime_error("lose_a_worker: no job came in 5 s");
        queuey::Envelope taken = delivery->envelope();
        other->close();  // the connection goes away with the job unsettled
        delivery.reset();
        consumer.reset();
        return taken;
    }

    std::shared_ptr<queuey::Backend> another_process(const queuey::QueueConfig &queue) override {
        auto other = std::make_shared<queuey::RabbitBackend>(
            queuey_it::backend_options(endpoint_, queuey_it::unique_name("other")));
        other->declare(queue);
        std::lock_guard lock(mutex_);
        others_.push_back(other);
        return other;
    }

    bool remove_dead_letter_queue(const std::string &queue) override {
        std::lock_guard lock(mutex_);
        raw_.delete_queue(queuey::dead_letter_queue_name(queue));
        return true;
    }

    bool close_connection() override {
        return queuey_it::close_connections(endpoint_, connection_name_) == 2;  // publish, consume
    }

    void publish_fire(const queuey::Envelope &envelope,
                      const queuey::ScheduledFire &fire) override {
        const std::vector<queuey_it::RawHeader> headers{
            {std::string(queuey::schedule_header), AMQP_FIELD_KIND_UTF8, fire.schedule},
            {std::string(queuey::fire_time_header), AMQP_FIELD_KIND_UTF8, fire.fire_time}};
        std::lock_guard lock(mutex_);
        if (!raw_.publish(envelope.queue, queuey::encode_envelope(envelope), headers,
                          envelope.job_id))
            throw std::runtime_error("publish_fire: the broker nacked the fire");
    }

    void clean_up() override {
        backend_->close();
        std::lock_guard lock(mutex_);
        for (const auto &other : others_) other->close();
        for (const auto &queue : queues_) {
            for (const auto &name : {queue, queuey::dead_letter_queue_name(queue)}) {
                try {
                    raw_.delete_queue(name);
                } catch (const std::exception &error) {
                    std::fprintf(stderr, "cleanup of %s: %s\n", name.c_str(), error.what());
                }
            }
        }
    }

protected:
    void remember_queue(const std::string &queue) override {
        std::lock_guard lock(mutex_);
        queues_.push_back(queue);
    }

private:
    const queuey_it::BrokerEndpoint &endpoint_;
    const std::string connection_name_;
    std::shared_ptr<queuey::RabbitBackend> backend_;
    std::mutex mutex_;  // guards raw_ (not thread-safe), dead_ and queues_
    queuey_it::RawAmqp raw_;
    std::map<std::string, std::vector<DeadLetter>> dead_;
    std::vector<std::string> queues_;
    std::vector<std::shared_ptr<queuey::RabbitBackend>> others_;
};

}  // namespace

std::unique_ptr<BackendUnderTest> make_backend(BackendKind kind) {
    if (kind == BackendKind::memory) return std::make_unique<MemoryUnderTest>();
    return std::make_unique<RabbitUnderTest>();
}

void OnEachBackend::SetUp() {
    try {
        under_ = make_backend(GetParam());
    } catch (const std::exception &error) {
        GTEST_FAIL() << "no " << name_of(GetParam()) << " backend: " << error.what();
    }
    producer_.emplace(under_->backend());
}

void OnEachBackend::TearDown() {
    producer_.reset();
    if (under_) under_->clean_up();
}

std::string backend_name(const ::testing::TestParamInfo<BackendKind> &info) {
    return name_of(info.param);
}

bool wait_until(const std::function<bool()> &done, std::chrono::milliseconds timeout,
                std::chrono::milliseconds step) {
    return queuey_it::eventually(done, timeout, step);
}

void Runs::record(const queuey::Job &job) {
    const auto &env = job.envelope();
    {
        std::lock_guard lock(mutex_);
        runs_.push_back({env.job_id, env.job_type, env.attempt, env.deferrals, env.priority,
                         std::string(env.payload.view()), std::chrono::steady_clock::now()});
    }
    changed_.notify_all();
}

std::vector<Seen> Runs::all() const {
    std::lock_guard lock(mutex_);
    return runs_;
}

std::size_t Runs::count() const {
    std::lock_guard lock(mutex_);
    return runs_.size();
}

std::vector<Seen> Runs::of(const std::string &job_id) const {
    std::lock_guard lock(mutex_);
    std::vector<Seen> found;
    for (const auto &run : runs_)
        if (run.job_id == job_id) found.push_back(run);
    return found;
}

bool Runs::wait_for(std::size_t n, std::chrono::milliseconds timeout) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return runs_.size() >= n; });
}

WorkerThread::WorkerThread(queuey::Worker &worker)
    : worker_(worker), thread_([this] {
          std::exception_ptr failure;
          try {
              worker_.run();
          } catch (...) {
              failure = std::current_exception();
          }
          {
              std::lock_guard lock(mutex_);
              returned_ = true;
              returned_at_ = std::chrono::steady_clock::now();
              failure_ = failure;
          }
          changed_.notify_all();
      }) {}

WorkerThread::~WorkerThread() {
    worker_.shutdown();
    if (thread_.joinable()) thread_.join();
}

bool WorkerThread::wait_returned(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return returned_; });
}

bool WorkerThread::returned() const {
    std::lock_guard lock(mutex_);
    return returned_;
}

std::chrono::steady_clock::time_point WorkerThread::returned_at() const {
    std::lock_guard lock(mutex_);
    return returned_at_;
}

void WorkerThread::stop() {
    worker_.shutdown();
    if (!wait_returned(std::chrono::seconds(30))) {
        ADD_FAILURE() << "run() did not return within 30 s of shutdown()";
        return;
    }
    if (thread_.joinable()) thread_.join();
    if (const auto failure = this->failure()) std::rethrow_exception(failure);
}

std::exception_ptr WorkerThread::failure() const {
    std::lock_guard lock(mutex_);
    return failure_;
}

queuey::RetryPolicy attempts(std::uint32_t max_attempts, std::chrono::milliseconds delay) {
    queuey::RetryPolicy policy;
    policy.max_attempts = max_attempts;
    if (delay.count() > 0) {
        policy.backoff = queuey::RetryPolicy::Backoff::fixed;
        policy.fixed_delay = delay;
    }
    return policy;
}

}  // namespace queuey_wt
