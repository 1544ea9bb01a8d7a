#include "worker.hpp"

#include "../error.hpp"
#include "../malformed_body_log.hpp"
#include "lost_runs.hpp"
#include "outcome_log.hpp"

#include <algorithm>
#include <thread>

namespace queuey {

namespace {

// How often an idle worker thread looks up from the consumer to see if it should stop.
constexpr std::chrono::milliseconds idle_poll{100};
// How often a settle held up by a broker that blocks publishing looks again: trying
// costs nothing while it is blocked, and the job should go on soon after it unblocks.
constexpr std::chrono::milliseconds blocked_recheck{250};

// Counts and logs the bodies the consumer settled itself because they were no envelope.
class MalformedBodyCounter final : public ConsumerObserver {
public:
    MalformedBodyCounter(AtomicWorkerCounters &counters, Logger logger)
        : counters_(counters), logger_(std::move(logger)) {}

    void malformed_body(const MalformedBody &body) override {
        ++(body.copied ? counters_.dead_lettered_malformed : counters_.dropped_malformed);
        log_malformed_body(logger_, body);
    }

private:
    AtomicWorkerCounters &counters_;  // the worker's: it outlives the consumer
    const Logger logger_;
};

JobOutcome invoke(const Handler &handler, const Envelope &envelope,
                  const std::atomic<bool> &cancelled) {
    try {
        return handler(Job(envelope, cancelled));
    } catch (const std::exception &error) {
        return JobOutcome::retryable(std::string("the handler threw: ") + error.what());
    } catch (...) {
        return JobOutcome::retryable("the handler threw an unknown exception");
    }
}

}  // namespace

struct Worker::RunningJob {
    std::shared_ptr<Delivery> delivery;
    const Registration *registration;
    std::chrono::steady_clock::time_point deadline;
    std::atomic<bool> claimed{false};  // whoever sets it settles the job
    std::atomic<bool> cancelled{false};
};

Worker::Worker(std::shared_ptr<Backend> backend, WorkerOptions options)
    : backend_(std::move(backend)), options_(std::move(options)) {
    if (options_.queues.empty())
        throw Error(QY_ERR_INVALID_ARGUMENT, "queues", "a worker needs at least one queue");
    checked_max_lost_runs(options_.max_lost_runs);
}

Worker::~Worker() { shutdown(); }

void Worker::register_handler(const std::string &job_type, Handler handler,
                              std::optional<RetryPolicy> policy) {
    if (!handler) throw Error(QY_ERR_INVALID_ARGUMENT, "handler", "must not be empty");
    MutexLock lock(mutex_);
    if (running_)
        throw Error(QY_ERR_INVALID_ARGUMENT, "job_type", "register handlers before run()");
    if (!handlers_.try_emplace(job_type, Registration{std::move(handler), std::move(policy)})
             .second)
        throw Error(QY_ERR_INVALID_ARGUMENT, "job_type",
                    "a handler for job type `" + job_type + "` is already registered");
    for (const auto &queue : options_.queues) job_metrics_.add_series(queue, job_type);
}

void Worker::shutdown() {
    {
        MutexLock lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
}

void Worker::run() {
    {
        MutexLock lock(mutex_);
        if (running_) throw Error(QY_ERR_INVALID_ARGUMENT, "", "the worker is already running");
        if (stopping_ || stop_requested()) return;
        running_ = true;
    }
    struct NotRunning {
        Worker &worker;
        ~NotRunning() {
            MutexLock lock(worker.mutex_);
            worker.running_ = false;
        }
    } not_running{*this};

    std::size_t concurrency = options_.concurrency;
    if (concurrency == 0)
        for (const auto &queue : options_.queues)
            concurrency += backend_->config_of(queue).prefetch;
    std::unique_ptr<Consumer> consumer = backend_->consume(
        options_.queues, std::make_shared<MalformedBodyCounter>(counters_, options_.logger));

    std::exception_ptr failure;
    Mutex failure_mutex;  // guards failure while the threads run
    const auto fail = [&](std::exception_ptr error) {
        {
            MutexLock lock(failure_mutex);
            if (!failure) failure = std::move(error);
        }
        shutdown();
    };
    std::once_flag stopped;
    std::vector<std::thread> threads;
    std::thread watchdog;
    const std::size_t wanted = concurrency + (options_.job_timeout ? 1 : 0);
    try {
        for (std::size_t i = 0; i < concurrency; ++i)
            threads.emplace_back([&] {
                try {
                    work(*consumer, stopped);
                } catch (...) {  // the consumer cannot go on (closed, connection given up)
                    fail(std::current_exception());
                }
            });
        if (options_.job_timeout) watchdog = std::thread([this] { watch_timeouts(); });
    } catch (const std::exception &error) {
        // Out of threads or memory. Not fatal to the process: the threads that did start
        // run what they received and stop, and closing the consumer hands back the rest.
        const std::size_t started = threads.size() + (watchdog.joinable() ? 1 : 0);
        fail(std::make_exception_ptr(
            Error(QY_ERR_NO_MEMORY, "",
                  "could not create the worker's threads: " + std::to_string(started) + " of the " +
                      std::to_string(wanted) + " it needs started (" + error.what() +
                      "); lower the concurrency or raise the system's limits")));
    }
    // At once, not when a thread next loops: an ack sent before the cancel would free a
    // prefetch slot, and the broker would send one more job to run (issue 41).
    wait_for_shutdown();
    std::call_once(stopped, [&consumer] { consumer->stop(); });
    // The worker threads may all be running jobs: this thread gives back what they have
    // not started, so that it is not held until they finish.
    while (std::shared_ptr<Delivery> delivery = consumer->next(std::chrono::milliseconds(0)))
        handle(std::move(delivery));
    options_.logger.info("shutting down: taking no new jobs; draining " +
                         std::to_string(counters_.in_flight.load()) +
                         " running to their end; jobs received and not started go back to "
                         "their queue");
    for (auto &thread : threads) thread.join();
    if (watchdog.joinable()) {
        changed_.notify_all();  // stopping_ is set: the watchdog returns once no job runs
        watchdog.join();
    }
    consumer.reset();  // parked deliveries go back to their queues with the channels
    parked_.clear();
    counters_.parked = 0;
    if (const std::uint64_t given_back = given_back_.exchange(0))
        options_.logger.info("shut down: gave back " + std::to_string(given_back) +
                             " jobs received and not started to the back of their queue");
    if (failure) std::rethrow_exception(failure);
}

void Worker::wait_for_shutdown() {
    MutexLock lock(mutex_);
    while (!stopping_) {
        changed_.wait_for(lock.for_wait(), idle_poll);
        if (stop_requested()) stopping_ = true;
    }
}

void Worker::work(Consumer &consumer, std::once_flag &stopped) {
    while (true) {
        if (stop_requested()) shutdown();
        const bool stopping = this->stopping();
        // run()'s thread stops the flow at shutdown; a thread that sees the shutdown first
        // stops it itself, so that its next() drains what was received instead of waiting
        // for it, handing each job back (handle()).
        if (stopping) std::call_once(stopped, [&consumer] { consumer.stop(); });
        retry_parked();  // first: a settle that goes through frees a prefetch slot
        std::shared_ptr<Delivery> delivery = consumer.next(idle_poll);
        if (!delivery) {
            if (stopping) return;
            continue;
        }
        ++counters_.in_flight;
        handle(std::move(delivery));
        --counters_.in_flight;
    }
}

void Worker::handle(std::shared_ptr<Delivery> delivery) {
    const Envelope &envelope = delivery->envelope();
    const auto found = handlers_.find(envelope.job_type);
    const Registration *registration = found == handlers_.end() ? nullptr : &found->second;

    if (std::optional<SettleAction> action = lost_run(*delivery)) {
        settle(std::move(delivery), std::move(*action));
        return;
    }
    if (stopping()) {
        give_back(std::move(delivery));
        return;
    }
    // A redelivered fire is not a second copy: it is this one, maybe never run.
    if (const ScheduledFire *fire = delivery->fire();
        fire && !delivery->redelivered() &&
        settled_fires_.contains(envelope.job_id, std::chrono::steady_clock::now())) {
        settle(std::move(delivery),
               SettleAction{
                   .kind = SettleAction::Kind::drop_duplicate,
                   .counter = &counters_.duplicate_fires,
                   .reason = "fire " + fire->fire_time + " of schedule `" + fire->schedule + "`"});
        return;
    }
    if (registration == nullptr) {
        SettleAction action =
            dead_letter(envelope, {"no handler for job type `" + envelope.job_type + "`"},
                        counters_.dead_lettered_unknown_type);
        settle(std::move(delivery), std::move(action));
        return;
    }
    if (!options_.job_timeout) {
        static const std::atomic<bool> never_cancelled{false};
        SettleAction action =
            decide(*delivery, run_handler(*delivery, *registration, never_cancelled), registration);
        settle(std::move(delivery), std::move(action));
        return;
    }
    auto job = std::make_shared<RunningJob>();
    job->delivery = delivery;
    job->registration = registration;
    job->deadline = std::chrono::steady_clock::now() + *options_.job_timeout;
    {
        MutexLock lock(mutex_);
        running_jobs_.push_back(job);
    }
    changed_.notify_all();
    const JobOutcome outcome = run_handler(*delivery, *registration, job->cancelled);
    {
        MutexLock lock(mutex_);
        std::erase(running_jobs_, job);
    }
    if (!job->claimed.exchange(true))
        settle(delivery, decide(*delivery, outcome, registration));
    else
        options_.logger.warn("job " + envelope.job_id +
                             " returned after it had timed out; its outcome is ignored");
}

bool Worker::stopping() const { return stopping_.load(); }

// A republished copy, not a nack: a nacked job comes back marked redelivered, and the
// next worker, in another process, would charge it a lost run. The copy carries the
// job's lost runs as they were and goes to the back of its queue.
void Worker::give_back(std::shared_ptr<Delivery> delivery) {
    ++given_back_;
    const std::uint32_t lost_runs = delivery->lost_runs();
    settle(std::move(delivery),
           SettleAction{.kind = SettleAction::Kind::requeue_lost, .lost_runs = lost_runs});
}

void Worker::watch_timeouts() {
    const std::string error = "job timed out after " + format_duration(*options_.job_timeout);
    MutexLock lock(mutex_);
    while (!(stopping_ && running_jobs_.empty())) {
        auto wake = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        std::vector<std::shared_ptr<RunningJob>> expired;
        for (const auto &job : running_jobs_) {
            if (job->claimed.load()) continue;
            if (job->deadline <= std::chrono::steady_clock::now()) {
                if (!job->claimed.exchange(true)) expired.push_back(job);
            } else {
                wake = std::min(wake, job->deadline);
            }
        }
        if (expired.empty()) {
            changed_.wait_until(lock.for_wait(), wake);
            continue;
        }
        lock.unlock();
        for (const auto &job : expired) {
            ++counters_.timed_out;
            SettleAction action =
                decide(*job->delivery, JobOutcome::retryable(error), job->registration);
            action.timed_out = true;
            settle(job->delivery, std::move(action));
            // Only now: a handler that sees it cancelled is told its job is settled
            // (Job::cancelled), and what it logs on its return follows the settle's line.
            job->cancelled = true;
        }
        lock.lock();
    }
}

const RetryPolicy &Worker::policy_for(const Delivery &delivery, const Registration *registration,
                                      const JobOutcome *outcome) const {
    const auto override_of = [](const std::map<std::string, RetryPolicy> &overrides,
                                const std::string &key) -> const RetryPolicy * {
        const auto found = overrides.find(key);
        return found == overrides.end() ? nullptr : &found->second;
    };
    RetryPolicyChoices choices;
    if (outcome && outcome->retry_policy) choices.chosen_by_handler = &*outcome->retry_policy;
    choices.job_type_override = override_of(options_.job_type_retry, delivery.envelope().job_type);
    choices.queue_override = override_of(options_.queue_retry, delivery.queue().name);
    if (registration && registration->policy) choices.job_type_policy = &*registration->policy;
    if (delivery.queue().retry_policy) choices.queue_policy = &*delivery.queue().retry_policy;
    return effective_retry_policy(choices, options_.default_retry);
}

SettleAction Worker::decide(const Delivery &delivery, const JobOutcome &outcome,
                            const Registration *registration) {
    const Envelope &envelope = delivery.envelope();
    switch (outcome.kind) {
        case JobOutcome::Kind::success:
            return {.kind = SettleAction::Kind::ack, .counter = &counters_.succeeded};
        case JobOutcome::Kind::retryable_error:
            return retry_or_give_up(delivery, outcome,
                                    policy_for(delivery, registration, &outcome));
        case JobOutcome::Kind::fatal_error:
            return dead_letter(envelope, {"fatal error: " + outcome.message, outcome.exception},
                               counters_.dead_lettered_fatal);
        case JobOutcome::Kind::deferral:
            // Costs no attempt and ignores the retry policy; comes back ahead of the backlog.
            return {.kind = SettleAction::Kind::defer,
                    .counter = &counters_.deferred,
                    .next = envelope.deferred(delivery.queue().deferral_priority()),
                    .delay = outcome.defer_delay};
        case JobOutcome::Kind::undecodable: break;
    }
    return dead_letter(envelope, {"decode error: " + outcome.message, outcome.exception},
                       counters_.dead_lettered_undecodable);
}

SettleAction Worker::retry_or_give_up(const Delivery &delivery, const JobOutcome &outcome,
                                      const RetryPolicy &policy) {
    thread_local std::mt19937_64 random{std::random_device{}()};
    const Envelope &envelope = delivery.envelope();
    if (const auto delay = policy.retry_after(envelope.attempt, random))
        return {.kind = SettleAction::Kind::retry,
                .counter = &counters_.retried,
                .next = envelope.next_attempt(),
                .delay = *delay,
                .reason = outcome.message,
                .exception = outcome.exception};
    const std::uint32_t max_attempts = std::max<std::uint32_t>(policy.max_attempts, 1);
    return dead_letter(
        envelope,
        {"max attempts (" + std::to_string(max_attempts) + ") exhausted after attempt " +
             std::to_string(envelope.attempt) + ": " + outcome.message,
         outcome.exception},
        counters_.dead_lettered_exhausted);
}

std::optional<SettleAction> Worker::lost_run(const Delivery &delivery) {
    const Envelope &envelope = delivery.envelope();
    const std::uint32_t budget =
        std::max<std::uint32_t>(delivery.queue().max_lost_runs.value_or(options_.max_lost_runs), 1);
    const LostRunFacts facts{.possibly_started = delivery.redelivered(),
                             .cut_by_consumer_timeout = delivery.cut_by_consumer_timeout(),
                             .lost_before = delivery.lost_runs(),
                             .broker_returns = delivery.broker_returns(),
                             .budget = budget};
    const LostRunVerdict verdict = judge_lost_run(facts);
    if (verdict.charged) ++counters_.worker_lost;
    switch (verdict.kind) {
        case LostRunVerdict::Kind::run: return std::nullopt;
        case LostRunVerdict::Kind::dead_letter:
            return dead_letter(
                envelope,
                {"lost " + std::to_string(verdict.lost_runs) + " times: " + lost_run_cause(facts)},
                counters_.dead_lettered_lost);
        case LostRunVerdict::Kind::requeue: break;
    }
    if (verdict.charged)
        options_.logger.warn("job " + envelope.job_id + " came back redelivered during attempt " +
                             std::to_string(envelope.attempt) + " (lost run " +
                             std::to_string(verdict.lost_runs) + " of " + std::to_string(budget) +
                             " allowed: " + lost_run_cause(facts) +
                             "); it goes back to its queue to run again");
    else
        options_.logger.warn("job " + envelope.job_id + " was taken back unsettled " +
                             std::to_string(delivery.broker_returns()) +
                             " times at no cost; republished before the queue's delivery limit "
                             "could take it");
    return SettleAction{.kind = SettleAction::Kind::requeue_lost, .lost_runs = verdict.lost_runs};
}

SettleAction Worker::dead_letter(const Envelope &envelope, DeadLetterCause why,
                                 std::atomic<std::uint64_t> &cause) {
    if (options_.dead_letter_hook) {
        try {
            options_.dead_letter_hook(envelope, why.reason);
        } catch (...) {
            options_.logger.warn("the dead-letter hook threw for job " + envelope.job_id +
                                 "; dead-lettering it anyway");
        }
    }
    return {.kind = SettleAction::Kind::dead_letter,
            .counter = &cause,
            .reason = std::move(why.reason),
            .exception = std::move(why.exception)};
}

void Worker::settle(std::shared_ptr<Delivery> delivery, SettleAction action) {
    settle(ParkedDeliveries::Parked{std::move(delivery), std::move(action)});
}

void Worker::settle(ParkedDeliveries::Parked parked) {
    const Envelope &envelope = parked.delivery->envelope();
    if (parked.action.kind != SettleAction::Kind::ack && parked.delivery->publishing_blocked()) {
        if (!parked.kept)
            log_unsettled(parked.action, envelope,
                          "the broker blocks publishing (a memory or disk alarm); kept "
                          "unsettled until it unblocks");
        keep(std::move(parked), std::chrono::steady_clock::now() + blocked_recheck);
        return;
    }
    const auto failure = perform(*parked.delivery, parked.action);
    if (!failure || failure->status() == QY_ERR_STALE_DELIVERY) {
        if (parked.kept) --counters_.parked;
        if (failure)
            log_unsettled(parked.action, envelope,
                          std::string(failure->what()) + "; not kept: its job comes back");
        else if (parked.kept)
            options_.logger.info("settled job " + envelope.job_id + " (" + parked.action.name() +
                                 ") on try " + std::to_string(parked.failures + 1));
        return;
    }
    ++parked.failures;
    const auto wait = ParkedDeliveries::wait_after(parked.failures);
    log_unsettled(parked.action, envelope,
                  std::string(failure->what()) + "; kept unsettled, tried again in " +
                      format_duration(std::chrono::duration_cast<std::chrono::milliseconds>(wait)));
    keep(std::move(parked), std::chrono::steady_clock::now() + wait);
}

void Worker::keep(ParkedDeliveries::Parked parked, std::chrono::steady_clock::time_point due) {
    if (!parked.kept) {
        parked.kept = true;
        ++counters_.parked;
        parked.delivery->set_aside();
    }
    parked.due = due;
    parked_.park(std::move(parked));
}

void Worker::retry_parked() {
    if (counters_.parked.load() == 0) return;
    for (const ParkedDeliveries::Parked &stale : parked_.take_stale()) {
        --counters_.parked;
        options_.logger.warn("dropped parked job " + stale.delivery->envelope().job_id + " (" +
                             stale.action.name() +
                             "): its channel or connection was replaced; the broker redelivers "
                             "the job");
    }
    if (auto due = parked_.take_due(std::chrono::steady_clock::now())) settle(std::move(*due));
}

std::optional<Error> Worker::perform(Delivery &delivery, SettleAction &action) {
    try {
        switch (action.kind) {
            case SettleAction::Kind::ack: delivery.ack(); break;
            case SettleAction::Kind::retry: delivery.retry(action.next, action.delay); break;
            case SettleAction::Kind::defer: delivery.defer(action.next, action.delay); break;
            case SettleAction::Kind::dead_letter:
                delivery.dead_letter(DeadLetterCause{action.reason, action.exception});
                break;
            case SettleAction::Kind::requeue_lost: delivery.requeue_lost(action.lost_runs); break;
            case SettleAction::Kind::drop_duplicate: delivery.ack(); break;
        }
    } catch (const Error &error) {
        ++counters_.settle_failures;
        // Refused for good: the hold queue exists with other arguments, or the delay
        // (rounded to the queue's granularity) is past the longest hold.
        const qy_status status = error.status();
        if (!action.holds() ||
            (status != QY_ERR_PRECONDITION_FAILED && status != QY_ERR_INVALID_ARGUMENT))
            return error;
        log_unsettled(action, delivery.envelope(), error.what());
        const bool timed_out = action.timed_out;
        action = dead_letter(
            delivery.envelope(),
            {std::string(action.name()) + " refused: " + error.what(), std::move(action.exception)},
            counters_.dead_lettered_fatal);
        action.timed_out = timed_out;
        return perform(delivery, action);
    } catch (const std::exception &error) {
        ++counters_.settle_failures;
        return Error(QY_ERR_INTERNAL, "", error.what());
    }
    if (action.counter) ++*action.counter;
    // Accounted for (run, or dropped as a copy): a copy of it from now on is a duplicate.
    if (delivery.fire() && action.kind != SettleAction::Kind::requeue_lost)
        settled_fires_.add(delivery.envelope().job_id, std::chrono::steady_clock::now());
    count_outcome(delivery, action);
    log_settled(options_.logger, action, delivery.envelope());
    return std::nullopt;
}

JobOutcome Worker::run_handler(const Delivery &delivery, const Registration &registration,
                               const std::atomic<bool> &cancelled) {
    const Envelope &envelope = delivery.envelope();
    const auto start = std::chrono::steady_clock::now();
    JobOutcome outcome = invoke(registration.handler, envelope, cancelled);
    job_metrics_.observe(delivery.queue().name, envelope.job_type,
                         std::chrono::steady_clock::now() - start);
    return outcome;
}

void Worker::count_outcome(const Delivery &delivery, const SettleAction &action) {
    JobMetricOutcome outcome = JobMetricOutcome::timed_out;
    if (!action.timed_out) {
        switch (action.kind) {
            case SettleAction::Kind::ack: outcome = JobMetricOutcome::succeeded; break;
            case SettleAction::Kind::retry: outcome = JobMetricOutcome::retried; break;
            case SettleAction::Kind::defer: outcome = JobMetricOutcome::deferred; break;
            case SettleAction::Kind::dead_letter: outcome = JobMetricOutcome::dead_lettered; break;
            case SettleAction::Kind::requeue_lost: return;    // no run ended: it runs again
            case SettleAction::Kind::drop_duplicate: return;  // not run
        }
    }
    job_metrics_.count(delivery.queue().name, job_type_label(delivery.envelope()), outcome);
}

std::string_view Worker::job_type_label(const Envelope &envelope) const {
    if (handlers_.contains(envelope.job_type)) return envelope.job_type;
    return unregistered_job_type_label;
}

std::string Worker::metrics_text() const {
    WorkerMetrics metrics{job_metrics_.snapshot(), counters(), {}};
    if (options_.queue_depths) {
        try {
            metrics.depths = options_.queue_depths();
        } catch (const std::exception &error) {
            options_.logger.warn(std::string("metrics without the queues' counts: ") +
                                 error.what());
        }
    }
    return render_metrics_text(metrics);
}

void Worker::log_unsettled(const SettleAction &action, const Envelope &envelope,
                           const std::string &why) {
    options_.logger.warn(std::string("could not settle job ") + envelope.job_id + " (" +
                         action.name() + "): " + why);
}

}  // namespace queuey
