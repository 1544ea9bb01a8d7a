#include "settle_faults.hpp"

#include "error.hpp"

namespace queuey_wt {

void SettleFaults::fail_next(std::size_t n) {
    std::lock_guard lock(mutex_);
    fail_next_ += n;
}

void SettleFaults::fail_all(bool on) {
    std::lock_guard lock(mutex_);
    fail_all_ = on;
}

void SettleFaults::block_publishing(bool on) {
    std::lock_guard lock(mutex_);
    publishing_blocked_ = on;
}

bool SettleFaults::publishing_blocked() const {
    std::lock_guard lock(mutex_);
    return publishing_blocked_;
}

std::vector<SettleTry> SettleFaults::tries_of(const std::string &job_id) const {
    std::lock_guard lock(mutex_);
    std::vector<SettleTry> found;
    for (const SettleTry &attempt : tries_)
        if (attempt.job_id == job_id) found.push_back(attempt);
    return found;
}

void SettleFaults::check(const std::string &job_id) {
    std::lock_guard lock(mutex_);
    const bool fail = fail_all_ || fail_next_ > 0;
    if (fail_next_ > 0 && !fail_all_) --fail_next_;
    tries_.push_back({job_id, std::chrono::steady_clock::now(), fail});
    if (fail) throw queuey::Error(QY_ERR_NOT_SENT, "", "not sent: a settle fault of the test");
}

namespace {

using namespace queuey;

class FaultyDelivery final : public Delivery {
public:
    FaultyDelivery(std::shared_ptr<Delivery> inner, std::shared_ptr<SettleFaults> faults)
        : inner_(std::move(inner)), faults_(std::move(faults)) {}

    const Envelope &envelope() const override { return inner_->envelope(); }
    const QueueConfig &queue() const override { return inner_->queue(); }
    bool redelivered() const override { return inner_->redelivered(); }
    std::uint32_t lost_runs() const override { return inner_->lost_runs(); }
    bool cut_by_consumer_timeout() const override { return inner_->cut_by_consumer_timeout(); }
    std::uint32_t broker_returns() const override { return inner_->broker_returns(); }
    const ScheduledFire *fire() const override { return inner_->fire(); }
    bool stale() const override { return inner_->stale(); }
    bool publishing_blocked() const override {
        return faults_->publishing_blocked() || inner_->publishing_blocked();
    }
    void set_aside() override { inner_->set_aside(); }

    void ack() override {
        check();
        inner_->ack();
    }
    void retry(const Envelope &next, std::chrono::nanoseconds delay) override {
        check();
        inner_->retry(next, delay);
    }
    void defer(const Envelope &next, std::chrono::nanoseconds delay) override {
        check();
        inner_->defer(next, delay);
    }
    using Delivery::dead_letter;
    void dead_letter(const queuey::DeadLetterCause &cause) override {
        check();
        inner_->dead_letter(cause);
    }
    void requeue_lost(std::uint32_t lost_runs) override {
        check();
        inner_->requeue_lost(lost_runs);
    }

private:
    void check() { faults_->check(inner_->envelope().job_id); }

    std::shared_ptr<Delivery> inner_;
    std::shared_ptr<SettleFaults> faults_;
};

class FaultyConsumer final : public Consumer {
public:
    FaultyConsumer(std::unique_ptr<Consumer> inner, std::shared_ptr<SettleFaults> faults)
        : inner_(std::move(inner)), faults_(std::move(faults)) {}

    std::shared_ptr<Delivery> next(std::chrono::milliseconds timeout) override {
        auto delivery = inner_->next(timeout);
        if (!delivery) return nullptr;
        return std::make_shared<FaultyDelivery>(std::move(delivery), faults_);
    }
    void stop() override { inner_->stop(); }

private:
    std::unique_ptr<Consumer> inner_;
    std::shared_ptr<SettleFaults> faults_;
};

class FaultyBackend final : public Backend {
public:
    FaultyBackend(std::shared_ptr<Backend> inner, std::shared_ptr<SettleFaults> faults)
        : inner_(std::move(inner)), faults_(std::move(faults)) {}

    void declare(const QueueConfig &config) override { inner_->declare(config); }
    QueueConfig config_of(const std::string &queue) const override {
        return inner_->config_of(queue);
    }
    std::vector<PublishOutcome> publish(EnvelopeRefs envelopes,
                                        std::optional<std::chrono::nanoseconds> delay) override {
        return inner_->publish(envelopes, delay);
    }
    using Backend::consume;
    std::unique_ptr<Consumer> consume(const std::vector<std::string> &queues,
                                      std::shared_ptr<ConsumerObserver> observer) override {
        return std::make_unique<FaultyConsumer>(inner_->consume(queues, std::move(observer)),
                                                faults_);
    }
    QueueCounts counts(const std::string &queue_name) override {
        return inner_->counts(queue_name);
    }
    std::unique_ptr<QueueBrowser> browse(const std::string &queue_name) override {
        return inner_->browse(queue_name);
    }
    void close() override { inner_->close(); }

private:
    std::shared_ptr<Backend> inner_;
    std::shared_ptr<SettleFaults> faults_;
};

}  // namespace

std::shared_ptr<queuey::Backend> with_settle_faults(std::shared_ptr<queuey::Backend> inner,
                                                    std::shared_ptr<SettleFaults> faults) {
    return std::make_shared<FaultyBackend>(std::move(inner), std::move(faults));
}

}  // namespace queuey_wt
