#include "rabbit_backend.hpp"

#include "batch_pieces.hpp"
#include "rabbit_browser.hpp"
#include "rabbit_consumer.hpp"

#include <algorithm>
#include <set>
#include <string_view>

namespace queuey {

namespace {

// One of the client's connections: named for its role in the management UI. A subscribe
// runs on the I/O thread, which waits for it at most this long: never longer than a
// caller waits for it.
ConnectionOptions role_options(ConnectionOptions options, std::chrono::milliseconds publish_timeout,
                               bool publishes) {
    options.session.rpc_timeout = std::min(options.session.rpc_timeout, publish_timeout);
    options.session.connection_name += publishes ? " (publish)" : " (consume)";
    options.publishes = publishes;
    return options;
}

}  // namespace

RabbitBackend::RabbitBackend(RabbitBackendOptions options)
    : publish_timeout_(options.publish_timeout),
      consumer_options_(role_options(options.connection, options.publish_timeout, false)),
      publisher_(role_options(std::move(options.connection), options.publish_timeout, true)) {}

RabbitConnection &RabbitBackend::consuming() {
    MutexLock lock(mutex_);
    if (closed_) throw Error(QY_ERR_CLOSED, "", "the client was closed");
    if (!consumer_) consumer_ = std::make_unique<RabbitConnection>(consumer_options_);
    return *consumer_;
}

ConnectionCounters RabbitBackend::counters() const {
    ConnectionCounters sum = publisher_.counters();
    MutexLock lock(mutex_);
    if (consumer_) sum += consumer_->counters();
    return sum;
}

RabbitConnection::Clock::time_point RabbitBackend::deadline() const {
    return RabbitConnection::Clock::now() + publish_timeout_;
}

void RabbitBackend::declare(const QueueConfig &config) {
    // Both specs are built first, so a bad name is refused before anything is declared.
    const QueueSpec work = work_queue_spec(config);
    const QueueSpec dead = dead_letter_queue_spec(config);
    publisher_.declare(work, true, deadline());
    publisher_.declare(dead, true, deadline());
    MutexLock lock(mutex_);
    configs_.insert_or_assign(config.name, config);
}

QueueConfig RabbitBackend::config_of(const std::string &queue) const {
    MutexLock lock(mutex_);
    const auto found = configs_.find(queue);
    if (found == configs_.end())
        throw Error(QY_ERR_INVALID_ARGUMENT, "queue",
                    "queue '" + queue +
                        "' was not declared by this client; declare it first "
                        "(a hold queue routes back to it by name and must know its durability)");
    return found->second;
}

std::vector<PublishOutcome> RabbitBackend::publish(EnvelopeRefs envelopes,
                                                   std::optional<std::chrono::nanoseconds> delay) {
    if (envelopes.empty()) return {};
    if (envelopes.size() == 1) return {publish_one(*envelopes.front(), delay)};
    // What refuses a held job (an undeclared queue, a delay out of range) refuses the
    // batch before any piece of it goes: checked once per queue.
    if (delay && next_piece_size(envelopes) < envelopes.size()) {
        std::set<std::string_view> checked;
        for (const Envelope *envelope : envelopes)
            if (checked.insert(envelope->queue).second)
                static_cast<void>(hold_queue_spec(config_of(envelope->queue), *delay));
    }
    // In pieces (batch_pieces.hpp), all under one deadline; in order, so the outcomes
    // taken line up with the envelopes.
    const auto until = deadline();
    const auto late = [this](PublishBatch &piece) { return unconfirmed_outcome(piece); };
    std::vector<PublishOutcome> outcomes;
    outcomes.reserve(envelopes.size());
    UnconfirmedPieces unconfirmed;
    bool in_time = true;
    for (std::size_t first = 0; first < envelopes.size() && in_time;) {
        while (in_time && unconfirmed.bytes() >= unconfirmed_window_bytes)
            in_time = unconfirmed.take_oldest(until, outcomes, late);
        if (!in_time) break;
        const EnvelopeRefs jobs =
            envelopes.subspan(first, next_piece_size(envelopes.subspan(first)));
        auto piece = PublishBatch::reusable_piece(jobs.size());
        fill_batch(*piece, jobs, delay, /*refer_payloads=*/true);
        first += jobs.size();
        piece->deadline = until;
        publisher_.publish(piece, /*caller_waits=*/first == envelopes.size());
        unconfirmed.add(std::move(piece));
    }
    while (!unconfirmed.empty()) unconfirmed.take_oldest(until, outcomes, late);
    // Jobs left when the deadline passed were never handed over.
    outcomes.resize(envelopes.size(), not_sent_outcome());
    return outcomes;
}

PublishOutcome RabbitBackend::publish_one(const Envelope &envelope,
                                          std::optional<std::chrono::nanoseconds> delay) {
    std::shared_ptr<PublishBatch> batch = PublishBatch::reusable();
    const Envelope *const one[] = {&envelope};
    fill_batch(*batch, one, delay, /*refer_payloads=*/false);  // reused
    return publish_single(std::move(batch));
}

void RabbitBackend::fill_batch(PublishBatch &batch, EnvelopeRefs envelopes,
                               std::optional<std::chrono::nanoseconds> delay,
                               bool refer_payloads) const {
    // Hold queues are declared before a held publish (unless declared lately,
    // hold_leases.hpp): the redeclare renews their x-expires lease. One declare per queue
    // in a batch.
    HoldSpecs &holds = batch.holds;
    for (std::size_t i = 0; i < envelopes.size(); ++i) {
        const Envelope &envelope = *envelopes[i];
        if (!delay) {
            set_message(batch.messages[i], envelope.queue, envelope, refer_payloads);
            continue;
        }
        QueueSpec hold = hold_queue_spec(config_of(envelope.queue), *delay);
        set_message(batch.messages[i], hold.name, envelope, refer_payloads);
        if (std::none_of(holds.begin(), holds.end(),
                         [&](const auto &held) { return *held == hold; }))
            holds.push_back(std::make_shared<const QueueSpec>(std::move(hold)));
    }
}

std::vector<PublishOutcome> RabbitBackend::publish_messages(std::vector<OutgoingMessage> messages) {
    if (messages.empty()) return {};
    const auto batch = std::make_shared<PublishBatch>(std::move(messages));
    if (publish_and_wait(batch)) return batch->waiter.take_outcomes();
    return batch->waiter.outcomes_or(unconfirmed_outcome(*batch));
}

PublishOutcome RabbitBackend::publish_single(std::shared_ptr<PublishBatch> batch) {
    if (publish_and_wait(batch)) return batch->waiter.take_outcome(0);
    return batch->waiter.outcomes_or(unconfirmed_outcome(*batch)).front();
}

bool RabbitBackend::publish_and_wait(const std::shared_ptr<PublishBatch> &batch) {
    batch->deadline = deadline();
    publisher_.publish(batch);
    return batch->waiter.wait_until(batch->deadline);
}

PublishOutcome RabbitBackend::unconfirmed_outcome(PublishBatch &batch) const {
    if (batch.claim.abandon())  // never started: the I/O thread will not send it later either
        return not_sent_outcome();
    return {QY_ERR_TIMEOUT, "the broker did not confirm the publish within " +
                                std::to_string(publish_timeout_.count()) +
                                " ms; the job may or may not have been accepted"};
}

PublishOutcome RabbitBackend::not_sent_outcome() const {
    return {QY_ERR_NOT_SENT, "not sent within " + std::to_string(publish_timeout_.count()) +
                                 " ms (the connection was down, or the broker blocked "
                                 "publishing); the job is not in the queue"};
}

std::unique_ptr<Consumer> RabbitBackend::consume(const std::vector<std::string> &queues,
                                                 std::shared_ptr<ConsumerObserver> observer) {
    std::vector<QueueConfig> configs;
    for (const std::string &queue : queues) configs.push_back(config_of(queue));
    if (configs.empty()) throw Error(QY_ERR_INVALID_ARGUMENT, "queue", "no queue to consume");
    return std::make_unique<RabbitConsumer>(*this, configs, std::move(observer));
}

QueueCounts RabbitBackend::counts(const std::string &queue_name) {
    return publisher_.inspect(queue_name, deadline());
}

std::unique_ptr<QueueBrowser> RabbitBackend::browse(const std::string &queue_name) {
    return std::make_unique<RabbitBrowser>(publisher_, queue_name, publish_timeout_);
}

void RabbitBackend::close() {
    publisher_.close();
    RabbitConnection *consumer;  // kept until the backend goes: consumers still refer to it
    {
        MutexLock lock(mutex_);
        closed_ = true;
        consumer = consumer_.get();
    }
    if (consumer) consumer->close();
}

}  // namespace queuey
