#include "memory_broker.hpp"

#include "../broker_death_reason.hpp"
#include "../error.hpp"

#include <algorithm>
#include <utility>
#include <variant>

namespace queuey {

namespace {

// RabbitMQ's limit for x-message-ttl (rabbit_misc:check_expiry).
constexpr std::int64_t max_message_ttl_ms = 4294967295;

Error closed_error() { return Error(QY_ERR_CLOSED, "", "the memory backend was closed"); }

// What a mandatory publish to a missing queue gets back on RabbitMQ: basic.return.
PublishOutcome unroutable(const Envelope &envelope) {
    return {QY_ERR_UNROUTABLE, "publish of message " + envelope.job_id +
                                   " was returned: 312 NO_ROUTE: there is no queue '" +
                                   envelope.queue + "' (declare it first)"};
}

// The entry of a queue that must exist, as a passive declare finds it (const or not).
template <typename Queues>
auto &existing(Queues &queues, const std::string &queue) {
    const auto found = queues.find(queue);
    if (found == queues.end())
        throw Error(QY_ERR_NOT_FOUND, "queue", "there is no queue '" + queue + "'");
    return found->second;
}

// Refuses what a hold queue could not express: a negative delay or one above
// max_delay_ms. Unlike RabbitMQ's hold queues, the delay is not rounded to a granularity.
void check_delay(std::chrono::nanoseconds delay) {
    (void)hold_ttl_ms(delay, std::chrono::milliseconds(1));
}

std::string describe(const QueueArgumentValue &value) {
    return std::visit(
        [](const auto &v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            std::string quoted = "'";  // appended, not "'" + ...: see docs/building.md
            if constexpr (std::is_same_v<T, std::string>)
                quoted += v;
            else
                quoted += std::to_string(v);
            quoted += "'";
            return quoted;
        },
        value);
}

[[noreturn]] void throw_precondition(const std::string &queue, const std::string &text) {
    throw Error(QY_ERR_PRECONDITION_FAILED, "",
                "declaring queue '" + queue + "': PRECONDITION_FAILED - " + text);
}

[[noreturn]] void throw_inequivalent(const std::string &queue, const std::string &argument,
                                     const std::string &received, const std::string &current) {
    throw_precondition(queue, "inequivalent arg '" + argument + "' for queue '" + queue +
                                  "': received " + received + " but current is " + current);
}

// The arguments RabbitMQ validates before it declares anything.
void check_arguments(const QueueSpec &spec) {
    for (const QueueArgument &argument : spec.arguments) {
        const auto *ttl = std::get_if<std::int64_t>(&argument.value);
        if (argument.name != "x-message-ttl" || ttl == nullptr) continue;
        if (*ttl < 0)
            throw_precondition(spec.name, "invalid arg 'x-message-ttl' for queue '" + spec.name +
                                              "': {value_negative," + std::to_string(*ttl) + "}");
        if (*ttl > max_message_ttl_ms)
            throw_precondition(spec.name, "invalid arg 'x-message-ttl' for queue '" + spec.name +
                                              "': {value_too_large," + std::to_string(*ttl) + "," +
                                              std::to_string(max_message_ttl_ms) + "}");
    }
}

// A re-declare must match the queue as it exists, as on RabbitMQ.
void check_equivalent(const QueueSpec &current, const QueueSpec &requested) {
    auto text = [](bool flag) { return std::string(flag ? "'true'" : "'false'"); };
    if (current.durable != requested.durable)
        throw_inequivalent(current.name, "durable", text(requested.durable), text(current.durable));
    for (const QueueArgument &now : current.arguments) {
        const QueueArgument *asked = find_argument(requested, now.name);
        if (asked == nullptr)
            throw_inequivalent(current.name, now.name, "none", describe(now.value));
        if (asked->value != now.value)
            throw_inequivalent(current.name, now.name, describe(asked->value), describe(now.value));
    }
    for (const QueueArgument &asked : requested.arguments)
        if (find_argument(current, asked.name) == nullptr)
            throw_inequivalent(current.name, asked.name, describe(asked.value), "none");
}

}  // namespace

MemoryBroker::Clock::time_point deadline_after(std::chrono::milliseconds timeout) {
    const auto now = MemoryBroker::Clock::now();
    if (timeout <= std::chrono::milliseconds::zero()) return now;
    // Far enough for anyone, and far from overflowing the clock's 64-bit nanoseconds.
    constexpr auto longest = std::chrono::hours(24 * 365 * 100);
    return now + std::min<std::chrono::milliseconds>(timeout, longest);
}

// ---- queues ---------------------------------------------------------------------------

void MemoryBroker::declare(const QueueConfig &config) {
    // Both specs first, so that a bad name is refused before anything exists.
    const QueueSpec work = work_queue_spec(config);
    const QueueSpec dead = dead_letter_queue_spec(config);
    check_arguments(work);
    MutexLock lock(mutex_);
    if (closed_) throw closed_error();
    for (const QueueSpec *spec : {&work, &dead})
        if (const auto found = queues_.find(spec->name); found != queues_.end())
            check_equivalent(found->second.queue.spec(), *spec);
    queues_.try_emplace(dead.name, QueueEntry{MemoryQueue(dead), std::nullopt});
    const auto entry =
        queues_.try_emplace(work.name, QueueEntry{MemoryQueue(work), std::nullopt}).first;
    entry->second.config = config;
}

QueueConfig MemoryBroker::config_of(const std::string &queue) const {
    MutexLock lock(mutex_);
    return config_of_locked(queue);
}

QueueConfig MemoryBroker::config_of_locked(const std::string &queue) const {
    const auto found = queues_.find(queue);
    if (found == queues_.end() || !found->second.config)
        throw Error(QY_ERR_INVALID_ARGUMENT, "queue",
                    "queue '" + queue + "' was not declared by this client; declare it first");
    return *found->second.config;
}

bool MemoryBroker::route_locked(const std::string &queue, MemoryMessage message,
                                Clock::time_point now) {
    const auto found = queues_.find(queue);
    if (found == queues_.end()) return false;
    found->second.queue.push(std::move(message), now);
    available_.notify_all();
    return true;
}

std::vector<PublishOutcome> MemoryBroker::publish(EnvelopeRefs envelopes,
                                                  std::optional<std::chrono::nanoseconds> delay) {
    if (envelopes.empty()) return {};
    if (delay) {
        // As on RabbitMQ, a hold needs the queue's configuration: a delayed publish to a
        // queue this client did not declare is refused as a whole, before anything is sent.
        for (const Envelope *envelope : envelopes) (void)config_of(envelope->queue);
        check_delay(*delay);
    }
    std::vector<MemoryMessage> messages;
    messages.reserve(envelopes.size());
    for (const Envelope *envelope : envelopes) messages.push_back(memory_message(*envelope));

    std::vector<PublishOutcome> outcomes(envelopes.size(), PublishOutcome{QY_OK, {}});
    MutexLock lock(mutex_);
    if (closed_) {
        if (delay) throw closed_error();
        return std::vector<PublishOutcome>(envelopes.size(),
                                           PublishOutcome{QY_ERR_CLOSED, closed_error().what()});
    }
    const auto now = Clock::now();
    for (std::size_t i = 0; i < envelopes.size(); ++i) {
        const Envelope &envelope = *envelopes[i];
        if (delay && delay->count() > 0) {
            holds_.add(now + *delay, envelope.queue, std::move(messages[i]));
            timer_wake_.notify_one();
        } else if (!route_locked(envelope.queue, std::move(messages[i]), now)) {
            outcomes[i] = unroutable(envelope);
        }
    }
    return outcomes;
}

PublishOutcome MemoryBroker::publish_fire(const Envelope &envelope, ScheduledFire fire) {
    MemoryMessage message = memory_message(envelope);
    message.fire = std::move(fire);
    MutexLock lock(mutex_);
    if (closed_) return {QY_ERR_CLOSED, closed_error().what()};
    if (!route_locked(envelope.queue, std::move(message), Clock::now()))
        return unroutable(envelope);
    return {QY_OK, {}};
}

QueueCounts MemoryBroker::counts(const std::string &queue) const {
    MutexLock lock(mutex_);
    if (closed_) throw closed_error();
    const MemoryQueue &found = existing(queues_, queue).queue;
    return {found.ready(), found.consumers()};
}

// ---- browsing -------------------------------------------------------------------------

std::optional<QueuedMessage> MemoryBroker::take_browsed(const std::string &queue) {
    MutexLock lock(mutex_);
    if (closed_) throw closed_error();
    MemoryQueue &found = existing(queues_, queue).queue;
    std::vector<MemoryMessage> expired;
    std::optional<QueuedMessage> message = found.pop(Clock::now(), expired);
    record_expired_locked(queue, expired);
    if (message) found.count_delivered();
    return message;
}

void MemoryBroker::remove_browsed(const std::string &queue) {
    MutexLock lock(mutex_);
    existing(queues_, queue).queue.count_settled();
    idle_changed_.notify_all();
}

void MemoryBroker::put_back_browsed(const std::string &queue, std::vector<QueuedMessage> messages) {
    MutexLock lock(mutex_);
    const auto found = queues_.find(queue);
    if (found == queues_.end()) return;  // queues are never removed
    for (QueuedMessage &message : messages) {
        found->second.queue.count_settled();
        requeue_locked(found->second.queue, std::move(message), /*redelivered=*/true);
    }
    available_.notify_all();
    idle_changed_.notify_all();
}

// ---- consuming ------------------------------------------------------------------------

std::shared_ptr<MemorySubscription> MemoryBroker::subscribe(
    const std::vector<std::string> &queues) {
    if (queues.empty()) throw Error(QY_ERR_INVALID_ARGUMENT, "queue", "no queue to consume");
    auto subscription = std::make_shared<MemorySubscription>();
    MutexLock lock(mutex_);
    for (const std::string &queue : queues) {
        QueueConfig config = config_of_locked(queue);
        subscription->sources.push_back({std::move(config), &queues_.find(queue)->second.queue, 0});
    }
    if (closed_) throw closed_error();
    for (const auto &source : subscription->sources) source.queue->count_consumer(true);
    subscription->counted = true;
    return subscription;
}

void MemoryBroker::uncount_locked(MemorySubscription &subscription) {
    if (!std::exchange(subscription.counted, false)) return;
    for (const auto &source : subscription.sources) source.queue->count_consumer(false);
}

void MemoryBroker::cancel(const std::shared_ptr<MemorySubscription> &subscription) {
    MutexLock lock(mutex_);
    std::vector<MemoryLease *> owned;
    for (MemoryLease *lease : leases_)
        if (lease->subscription == subscription) owned.push_back(lease);
    for (MemoryLease *lease : owned) revoke_locked(*lease);
    uncount_locked(*subscription);
}

void MemoryBroker::stop(const std::shared_ptr<MemorySubscription> &subscription) {
    MutexLock lock(mutex_);
    subscription->stopped = true;
    uncount_locked(*subscription);
    available_.notify_all();
}

MemoryBroker::Taken MemoryBroker::take(const std::shared_ptr<MemorySubscription> &subscription,
                                       Clock::time_point deadline) {
    MutexLock lock(mutex_);
    for (;;) {
        if (closed_) throw closed_error();
        if (subscription->stopped) return {};
        Taken taken = take_locked(subscription);
        if (taken.lease || !taken.malformed.empty()) return taken;
        if (Clock::now() >= deadline) return {};
        available_.wait_until(lock.for_wait(), deadline);
    }
}

MemoryBroker::Taken MemoryBroker::take_locked(
    const std::shared_ptr<MemorySubscription> &subscription) {
    Taken taken;
    const auto now = Clock::now();
    const std::size_t count = subscription->sources.size();
    for (std::size_t step = 0; step < count; ++step) {
        const std::size_t index = (subscription->cursor + step) % count;
        MemorySubscription::Source &source = subscription->sources[index];
        // At most prefetch unsettled deliveries per queue and consumer (0: no limit, as in
        // basic.qos), so that priorities only overtake what is still queued.
        if (source.config.prefetch != 0 &&
            source.unsettled - source.set_aside >= source.config.prefetch)
            continue;
        std::vector<MemoryMessage> expired;
        while (auto queued = source.queue->pop(now, expired)) {
            if (!queued->message.malformed.empty()) {
                taken.malformed.push_back(
                    dead_letter_malformed_locked(source, std::move(*queued), now));
                continue;
            }
            record_expired_locked(source.queue->name(), expired);
            ++source.unsettled;
            source.queue->count_delivered();
            subscription->cursor = (index + 1) % count;
            auto lease = std::make_unique<MemoryLease>();
            lease->subscription = subscription;
            lease->source = index;
            lease->config = source.config;
            lease->message = std::move(*queued);
            leases_.insert(lease.get());
            taken.lease = std::move(lease);
            return taken;
        }
        record_expired_locked(source.queue->name(), expired);
    }
    return taken;
}

MalformedBody MemoryBroker::dead_letter_malformed_locked(const MemorySubscription::Source &source,
                                                         QueuedMessage queued,
                                                         Clock::time_point now) {
    // As RabbitConsumer does with a body that is not an envelope: a copy to the dead
    // letters, never a delivery. Its message-id on RabbitMQ would be the job id.
    const std::string &queue = source.config.name;
    MalformedBody body{queue, queued.message.malformed, queued.message.envelope.job_id, false, ""};
    history_.dead_lettered(
        {queue, queued.message.envelope, "malformed envelope", queued.message.malformed});
    queued.message.dead_letter_headers =
        dead_letter_properties(queued.message.envelope, "malformed envelope").headers;
    body.copied = route_locked(dead_letter_queue_name(queue), std::move(queued.message), now);
    if (!body.copied) body.copy_failure = "no queue '" + dead_letter_queue_name(queue) + "'";
    idle_changed_.notify_all();
    return body;
}

void MemoryBroker::record_expired_locked(const std::string &queue,
                                         std::vector<MemoryMessage> &expired) {
    if (expired.empty()) return;
    const MemoryQueue &found = existing(queues_, queue).queue;
    for (MemoryMessage &message : expired) {
        if (found.dead_letter_target())
            broker_dead_letter_locked(found, std::move(message), "expired");
        else
            history_.expired({queue, std::move(message.envelope)});
    }
    expired.clear();
    idle_changed_.notify_all();
}

void MemoryBroker::broker_dead_letter_locked(const MemoryQueue &queue, MemoryMessage message,
                                             std::string_view why) {
    history_.dead_lettered({queue.name(), message.envelope, broker_death_reason(why), {}});
    message.dead_letter_headers = publish_properties(message.envelope).headers;
    message.dead_letter_headers.push_back(
        {std::string(first_death_reason_header), std::string(why)});
    message.dead_letter_headers.push_back({std::string(first_death_queue_header), queue.name()});
    // As on RabbitMQ, a message whose target does not exist is dropped; q.dead always does.
    if (const std::optional<std::string> &target = queue.dead_letter_target())
        route_locked(*target, std::move(message), Clock::now());
    idle_changed_.notify_all();
}

void MemoryBroker::requeue_locked(MemoryQueue &queue, QueuedMessage message, bool redelivered) {
    if (std::optional<QueuedMessage> past = queue.requeue(std::move(message), redelivered))
        broker_dead_letter_locked(queue, std::move(past->message), "delivery_limit");
}

void MemoryBroker::expire_all_locked(Clock::time_point now) {
    std::vector<MemoryMessage> expired;
    for (auto &[name, entry] : queues_) {
        entry.queue.expire(now, expired);
        record_expired_locked(name, expired);
    }
}

// ---- settling -------------------------------------------------------------------------

void MemoryBroker::check_settleable_locked(const MemoryLease &lease) {
    if (lease.state == MemoryLease::State::settled)
        throw Error(QY_ERR_ALREADY_SETTLED, "", "the delivery was already settled");
    if (closed_) throw closed_error();
    if (lease.state == MemoryLease::State::revoked) {
        throw Error(QY_ERR_STALE_DELIVERY, "",
                    "the consumer of this delivery was closed and the job went back to its "
                    "queue; not settled (the job is delivered again)");
    }
}

void MemoryBroker::finish_locked(MemoryLease &lease, MemoryLease::State state) {
    MemorySubscription::Source &source = lease.subscription->sources[lease.source];
    --source.unsettled;
    if (lease.set_aside) --source.set_aside;
    source.queue->count_settled();
    lease.state = state;
    leases_.erase(&lease);
    available_.notify_all();  // a prefetch slot is free
    idle_changed_.notify_all();
}

void MemoryBroker::revoke_locked(MemoryLease &lease) {
    // A copy: the delivery still shows its envelope.
    requeue_locked(*lease.subscription->sources[lease.source].queue, lease.message, false);
    finish_locked(lease, MemoryLease::State::revoked);
}

void MemoryBroker::ack(MemoryLease &lease) {
    MutexLock lock(mutex_);
    check_settleable_locked(lease);
    history_.acked(lease.message.message.envelope);
    finish_locked(lease, MemoryLease::State::settled);
}

void MemoryBroker::republish(MemoryLease &lease, Republish kind, const Envelope &next,
                             std::chrono::nanoseconds delay) {
    MemoryMessage message = memory_message(next);
    MutexLock lock(mutex_);
    check_settleable_locked(lease);
    check_delay(delay);
    const std::string &queue = lease.config.name;
    const auto now = Clock::now();
    if (delay.count() > 0) {
        holds_.add(now + delay, queue, std::move(message));
        timer_wake_.notify_one();
    } else if (!route_locked(queue, std::move(message), now)) {
        throw Error(QY_ERR_UNROUTABLE, "", "no queue '" + queue + "'");
    }
    if (kind == Republish::retry)
        history_.retried({queue, next, delay});
    else
        history_.deferred({queue, next, delay});
    finish_locked(lease, MemoryLease::State::settled);
}

void MemoryBroker::dead_letter(MemoryLease &lease, const DeadLetterCause &cause) {
    MutexLock lock(mutex_);
    check_settleable_locked(lease);
    const std::string &queue = lease.config.name;
    const Envelope &envelope = lease.message.message.envelope;
    MemoryMessage letter{envelope, {}};
    letter.dead_letter_headers = dead_letter_properties(envelope, cause).headers;
    if (!route_locked(dead_letter_queue_name(queue), std::move(letter), Clock::now()))
        throw Error(QY_ERR_UNROUTABLE, "", "no queue '" + dead_letter_queue_name(queue) + "'");
    history_.dead_lettered({queue, envelope, cause.reason, {}});
    finish_locked(lease, MemoryLease::State::settled);
}

void MemoryBroker::requeue_lost(MemoryLease &lease, std::uint32_t lost_runs) {
    MutexLock lock(mutex_);
    check_settleable_locked(lease);
    const std::string &queue = lease.config.name;
    MemoryMessage copy = lease.message.message;
    copy.lost_runs = lost_runs;
    if (!route_locked(queue, std::move(copy), Clock::now()))
        throw Error(QY_ERR_UNROUTABLE, "", "no queue '" + queue + "'");
    finish_locked(lease, MemoryLease::State::settled);
}

void MemoryBroker::set_aside(MemoryLease &lease) {
    MutexLock lock(mutex_);
    MemorySubscription::Source &source = lease.subscription->sources[lease.source];
    if (lease.state != MemoryLease::State::unsettled || lease.set_aside ||
        source.unsettled >= max_set_aside_windows * source.config.prefetch)
        return;
    lease.set_aside = true;
    ++source.set_aside;
    available_.notify_all();  // a prefetch slot is free
}

bool MemoryBroker::revoked(const MemoryLease &lease) const {
    MutexLock lock(mutex_);
    return lease.state == MemoryLease::State::revoked;
}

void MemoryBroker::release(MemoryLease &lease) {
    MutexLock lock(mutex_);
    if (lease.state != MemoryLease::State::unsettled) return;
    requeue_locked(*lease.subscription->sources[lease.source].queue, std::move(lease.message),
                   true);
    finish_locked(lease, MemoryLease::State::revoked);
}

// ---- inspection -----------------------------------------------------------------------

MemorySnapshot MemoryBroker::snapshot() {
    MutexLock lock(mutex_);
    expire_all_locked(Clock::now());
    MemorySnapshot snapshot;
    history_.copy_to(snapshot);
    for (const auto &[name, entry] : queues_)
        snapshot.queues.emplace(
            name, MemorySnapshot::Queue{entry.queue.pending(), entry.queue.in_flight(),
                                        entry.config.has_value()});
    for (HeldMessage &held : holds_.in_due_order())
        snapshot.held.push_back(
            {std::move(held.queue), std::move(held.message.envelope), held.due});
    return snapshot;
}

void MemoryBroker::clear_history() {
    MutexLock lock(mutex_);
    history_.clear();
}

bool MemoryBroker::idle_locked() const {
    if (!holds_.empty()) return false;
    // The dead-letter queues are parked jobs, not work: they count only when declared as
    // work queues of their own.
    for (const auto &[name, entry] : queues_)
        if (entry.queue.in_flight() != 0 || (entry.config && !entry.queue.empty())) return false;
    return true;
}

std::optional<MemoryBroker::Clock::time_point> MemoryBroker::next_expiry_locked() const {
    std::optional<Clock::time_point> first;
    for (const auto &[name, entry] : queues_) {
        const auto expiry = entry.queue.next_expiry();
        if (expiry && (!first || *expiry < *first)) first = expiry;
    }
    return first;
}

bool MemoryBroker::wait_until_idle(std::chrono::milliseconds timeout) {
    const auto deadline = deadline_after(timeout);
    MutexLock lock(mutex_);
    for (;;) {
        const auto now = Clock::now();
        expire_all_locked(now);
        if (idle_locked()) return true;
        if (closed_ || now >= deadline) return false;
        const auto expiry = next_expiry_locked();
        idle_changed_.wait_until(lock.for_wait(), expiry ? std::min(*expiry, deadline) : deadline);
    }
}

// ---- the hold timer and the end -------------------------------------------------------

void MemoryBroker::run_hold_timer() {
    MutexLock lock(mutex_);
    while (!closed_) {
        const auto now = Clock::now();
        for (HeldMessage &held : holds_.take_due(now))
            route_locked(held.queue, std::move(held.message), now);  // declared: it exists
        if (const auto due = holds_.next_due())
            timer_wake_.wait_until(lock.for_wait(), *due);
        else
            timer_wake_.wait(lock.for_wait());
    }
}

void MemoryBroker::close() {
    MutexLock lock(mutex_);
    if (closed_) return;
    closed_ = true;
    holds_.clear();  // a memory backend keeps nothing beyond its life
    const std::vector<MemoryLease *> unsettled(leases_.begin(), leases_.end());
    for (MemoryLease *lease : unsettled) revoke_locked(*lease);
    available_.notify_all();
    timer_wake_.notify_all();
    idle_changed_.notify_all();
}

}  // namespace queuey
