// qy_worker_* and qy_job_*: running jobs with C handlers.
#include "guard.hpp"

#include "../src/envelope.hpp"
#include "../src/exception_header.hpp"

using queuey::capi::delay_of;
using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::own_user_data;
using queuey::capi::require;
using queuey::capi::require_text;
using queuey::capi::string_copy;

namespace {

// Configuration is only possible before run(): the core worker takes it whole.
queuey::WorkerOptions &configurable(qy_worker *worker) {
    auto &target = require(worker, "worker");
    const queuey::MutexLock lock(target.mutex);
    if (target.worker)
        throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "",
                            "configure a worker before qy_worker_run()");
    return target.options;
}

queuey::JobOutcome outcome_of(int result, queuey::JobOutcome details) {
    using Kind = queuey::JobOutcome::Kind;
    const auto with_default = [&](Kind kind, const char *message) {
        details.kind = kind;
        if (details.message.empty()) details.message = message;
        return std::move(details);
    };
    switch (result) {
        case QY_JOB_SUCCESS: return queuey::JobOutcome::success();
        case QY_JOB_RETRY:
            return with_default(Kind::retryable_error, "the handler asked for a retry");
        case QY_JOB_FATAL:
            return with_default(Kind::fatal_error, "the handler reported a fatal error");
        case QY_JOB_DEFER: return with_default(Kind::deferral, "deferred by the handler");
        case QY_JOB_UNDECODABLE:
            return with_default(Kind::undecodable, "the handler could not decode the payload");
        default:
            return queuey::JobOutcome::retryable("the handler returned an unknown result " +
                                                 std::to_string(result));
    }
}

}  // namespace

extern "C" {

qy_status qy_worker_new(qy_client *client, const char *const *queues, size_t queue_count,
                        qy_worker **out, qy_error **err) {
    if (out != nullptr) *out = nullptr;
    return guarded(err, [&] {
        auto &source = require(client, "client");
        auto &target = require(out, "out");
        auto worker = std::make_unique<qy_worker>();
        worker->backend = source.backend;
        worker->options.logger = source.logger;
        worker->options.stop_requested = worker->stop_flag;
        if (queue_count > 0) require(queues, "queues");
        for (size_t i = 0; i < queue_count; ++i)
            worker->options.queues.emplace_back(require_text(queues[i], "queues[i]"));
        if (worker->options.queues.empty())
            throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "queues",
                                "a worker needs at least one queue");
        worker->options.queue_depths = [backend = source.backend, queues = worker->options.queues] {
            std::vector<queuey::QueueDepth> depths;
            for (const std::string &queue : queues) {
                const queuey::QueueCounts counts = backend->counts(queue);
                depths.push_back({queue, counts.ready, counts.consumers});
            }
            return depths;
        };
        target = worker.release();
    });
}

void qy_worker_free(qy_worker *worker) { delete worker; }

qy_status qy_worker_set_concurrency(qy_worker *worker, uint32_t concurrency, qy_error **err) {
    return guarded(err, [&] { configurable(worker).concurrency = concurrency; });
}

qy_status qy_worker_set_job_timeout_ms(qy_worker *worker, uint32_t timeout_ms, qy_error **err) {
    return guarded(err, [&] {
        auto &timeout = configurable(worker).job_timeout;
        timeout =
            timeout_ms == 0 ? std::nullopt : std::optional(std::chrono::milliseconds(timeout_ms));
    });
}

qy_status qy_worker_set_max_lost_runs(qy_worker *worker, uint32_t max_lost_runs, qy_error **err) {
    return guarded(err, [&] {
        configurable(worker).max_lost_runs = queuey::checked_max_lost_runs(max_lost_runs);
    });
}

qy_status qy_worker_set_default_retry(qy_worker *worker, const qy_retry_policy *policy,
                                      qy_error **err) {
    return guarded(err,
                   [&] { configurable(worker).default_retry = require(policy, "policy").value; });
}

qy_status qy_worker_set_job_type_retry(qy_worker *worker, const char *job_type,
                                       const qy_retry_policy *policy, qy_error **err) {
    return guarded(err, [&] {
        auto &overrides = configurable(worker).job_type_retry;
        overrides.insert_or_assign(std::string(require_text(job_type, "job_type")),
                                   require(policy, "policy").value);
    });
}

qy_status qy_worker_set_queue_retry(qy_worker *worker, const char *queue,
                                    const qy_retry_policy *policy, qy_error **err) {
    return guarded(err, [&] {
        auto &overrides = configurable(worker).queue_retry;
        overrides.insert_or_assign(std::string(require_text(queue, "queue")),
                                   require(policy, "policy").value);
    });
}

qy_status qy_worker_set_dead_letter_hook(qy_worker *worker, qy_dead_letter_fn hook, void *user_data,
                                         qy_destroy_fn destroy, qy_error **err) {
    return guarded(err, [&] {
        // First, so that whatever fails below destroys user_data once (guard.hpp).
        auto owned = own_user_data(user_data, destroy);
        auto &target = configurable(worker).dead_letter_hook;
        if (hook == nullptr) {
            target = nullptr;
            return;
        }
        target = [hook, owned](const queuey::Envelope &envelope, const std::string &reason) {
            const auto shown = qy_envelope::showing(envelope);
            hook(&shown, reason.c_str(), owned.get());
        };
    });
}

qy_status qy_worker_register(qy_worker *worker, const char *job_type, qy_handler_fn handler,
                             void *user_data, qy_destroy_fn destroy, const qy_retry_policy *policy,
                             qy_error **err) {
    return guarded(err, [&] {
        // First, so that whatever fails below destroys user_data once (guard.hpp).
        auto owned = own_user_data(user_data, destroy);
        configurable(worker);
        const std::string type(require_text(job_type, "job_type"));
        queuey::check_name_argument("job_type", type, false);  // as qy_envelope_new does
        require(handler, "handler");
        for (const auto &registration : worker->registrations)
            if (registration.job_type == type)
                throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "job_type",
                                    "a handler for job type `" + type + "` is already registered");
        queuey::Handler adapted = [handler, owned](const queuey::Job &job) {
            qy_job c_job{job, qy_envelope::showing(job.envelope()), {}};
            const int result = handler(&c_job, owned.get());
            return outcome_of(result, std::move(c_job.outcome));
        };
        worker->registrations.push_back(
            {type, std::move(adapted), policy ? std::optional(policy->value) : std::nullopt});
    });
}

qy_status qy_worker_run(qy_worker *worker, qy_error **err) {
    return guarded(err, [&] {
        auto &target = require(worker, "worker");
        queuey::Worker *core = nullptr;
        {
            queuey::MutexLock lock(target.mutex);
            if (target.worker)
                throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "", "a worker runs only once");
            target.worker = std::make_unique<queuey::Worker>(target.backend, target.options);
            for (auto &registration : target.registrations)
                target.worker->register_handler(registration.job_type, registration.handler,
                                                registration.policy);
            if (target.shutdown_requested) target.worker->shutdown();
            core = target.worker.get();
        }
        core->run();
    });
}

void qy_worker_shutdown(qy_worker *worker) {
    if (worker == nullptr) return;
    queuey::MutexLock lock(worker->mutex);
    worker->shutdown_requested = true;
    if (worker->worker) worker->worker->shutdown();
}

qy_status qy_worker_shutdown_on_signals(qy_worker *worker, qy_error **err) {
    return guarded(err, [&] {
        auto &target = require(worker, "worker");
        queuey::MutexLock lock(target.mutex);
        if (!target.stop_signals)
            target.stop_signals = std::make_unique<queuey::StopSignals>(target.stop_flag);
    });
}

uint64_t qy_worker_counter(const qy_worker *worker, qy_counter counter) {
    if (worker == nullptr) return 0;
    queuey::MutexLock lock(worker->mutex);
    if (!worker->worker) return 0;
    const queuey::WorkerCounters counters = worker->worker->counters();
    switch (counter) {
        case QY_COUNTER_SUCCEEDED: return counters.succeeded;
        case QY_COUNTER_RETRIED: return counters.retried;
        case QY_COUNTER_DEFERRED: return counters.deferred;
        case QY_COUNTER_DEAD_LETTERED_FATAL: return counters.dead_lettered_fatal;
        case QY_COUNTER_DEAD_LETTERED_EXHAUSTED: return counters.dead_lettered_exhausted;
        case QY_COUNTER_DEAD_LETTERED_UNKNOWN_TYPE: return counters.dead_lettered_unknown_type;
        case QY_COUNTER_DEAD_LETTERED_UNDECODABLE: return counters.dead_lettered_undecodable;
        case QY_COUNTER_TIMED_OUT: return counters.timed_out;
        case QY_COUNTER_WORKER_LOST: return counters.worker_lost;
        case QY_COUNTER_SETTLE_FAILURES: return counters.settle_failures;
        case QY_COUNTER_IN_FLIGHT: return counters.in_flight;
        case QY_COUNTER_DEAD_LETTERED_LOST: return counters.dead_lettered_lost;
        case QY_COUNTER_DEAD_LETTERED_MALFORMED: return counters.dead_lettered_malformed;
        case QY_COUNTER_DROPPED_MALFORMED: return counters.dropped_malformed;
        case QY_COUNTER_PARKED: return counters.parked;
        case QY_COUNTER_DUPLICATE_FIRES: return counters.duplicate_fires;
    }
    return 0;
}

qy_status qy_worker_metrics_text(const qy_worker *worker, char **out, size_t *out_len,
                                 qy_error **err) {
    if (out != nullptr) *out = nullptr;
    return guarded(err, [&] {
        const auto &source = require(worker, "worker");
        char *&target = require(out, "out");
        size_t &length = require(out_len, "out_len");
        const queuey::Worker *core = nullptr;
        {
            queuey::MutexLock lock(source.mutex);
            core = source.worker.get();  // once set, kept until qy_worker_free()
        }
        // Outside the lock: the queue depths may ask the broker, and qy_worker_shutdown()
        // must not wait for that.
        const std::string text = core ? core->metrics_text() : queuey::render_metrics_text({});
        target = string_copy(text);
        length = text.size();
    });
}

const qy_envelope *qy_job_envelope(const qy_job *job) { return job ? &job->envelope : nullptr; }

int qy_job_cancelled(const qy_job *job) { return job && job->job.cancelled() ? 1 : 0; }

qy_status qy_job_set_error(qy_job *job, const char *message, qy_error **err) {
    return guarded(err,
                   [&] { require(job, "job").outcome.message = require_text(message, "message"); });
}

qy_status qy_job_set_exception(qy_job *job, const char *type, const char *detail, qy_error **err) {
    return guarded(err, [&] {
        auto &outcome = require(job, "job").outcome;
        const std::string_view name = require_text(type, "type");
        if (name.empty() || name.find('\n') != std::string_view::npos)
            throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "type",
                                "type must be one line of text, not empty");
        outcome.exception = queuey::exception_header_value(name, detail ? detail : "");
    });
}

qy_status qy_job_set_defer(qy_job *job, uint64_t delay_ms, const char *reason, qy_error **err) {
    return guarded(err, [&] {
        auto &outcome = require(job, "job").outcome;
        outcome.defer_delay = delay_of(delay_ms, "delay_ms");
        outcome.message = require_text(reason, "reason");
    });
}

qy_status qy_job_set_retry_policy(qy_job *job, const qy_retry_policy *policy, qy_error **err) {
    return guarded(
        err, [&] { require(job, "job").outcome.retry_policy = require(policy, "policy").value; });
}

}  // extern "C"
