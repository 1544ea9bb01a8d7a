// queuey.hpp: a header-only C++17 wrapper over the C API in queuey.h.
//
// Each class owns one C handle (move-only, freed in its destructor); a failed call
// throws queuey::Error with the qy_status, the message and the field of the qy_error.
// The rules of queuey.h hold unchanged: what each call does, its thread rule (a handle
// is used from one thread at a time unless queuey.h says otherwise) and its errors.
// Callables given to the library (handlers, hooks, the log callback) are copied and
// freed through the C API's user_data destructors; exceptions never cross into C: what
// a handler throws settles its job (Worker::handle), a throwing hook or logger is ignored.
// Strings go in as std::string_view and are copied, NUL-terminated, for the C call.
#ifndef QUEUEY_QUEUEY_HPP
#define QUEUEY_QUEUEY_HPP

#include <queuey/queuey.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#if __has_include(<cxxabi.h>)
#include <cxxabi.h>
#define QUEUEY_HPP_HAVE_CXXABI 1
#endif

namespace queuey {

/** A failed call: its status, message (for people) and field ("" when none). */
class Error : public std::runtime_error {
public:
    Error(qy_status status, std::string_view message, std::string field = {})
        : std::runtime_error(std::string(message)), status_(status), field_(std::move(field)) {}
    qy_status status() const noexcept { return status_; }
    const char *status_name() const noexcept { return qy_status_name(status_); }
    const std::string &field() const noexcept { return field_; }

private:
    qy_status status_;
    std::string field_;
};

using Millis = std::chrono::milliseconds;

namespace detail {
// Throws the Error of a failed call; frees err.
inline void check(qy_status status, qy_error *err) {
    if (status == QY_OK) return;
    std::unique_ptr<qy_error, void (*)(qy_error *)> owned(err, qy_error_free);
    const char *field = qy_error_field(err);
    throw Error(err ? qy_error_status(err) : status,
                err ? qy_error_message(err) : qy_status_name(status), field ? field : "");
}
// Calls fn(args..., &err) and throws on failure.
template <typename... Params, typename... Args>
void call(qy_status (*fn)(Params...), Args &&...args) {
    qy_error *err = nullptr;
    const qy_status status = fn(std::forward<Args>(args)..., &err);  // before err is read
    check(status, err);
}
// A handle made by fn(args..., &out, &err).
template <typename T, typename... Params, typename... Args>
T *make(qy_status (*fn)(Params...), Args &&...args) {
    T *out = nullptr;
    call(fn, std::forward<Args>(args)..., &out);
    return out;
}
// The text that fn(args..., &text, &len, &err) hands out (freed with qy_string_free).
template <typename... Params, typename... Args>
std::string text_of(qy_status (*fn)(Params...), Args &&...args) {
    char *text = nullptr;
    size_t len = 0;
    call(fn, std::forward<Args>(args)..., &text, &len);
    std::unique_ptr<char, void (*)(char *)> owned(text, qy_string_free);
    return {text, len};
}
inline uint64_t ms(Millis d) { return d.count() < 0 ? 0 : static_cast<uint64_t>(d.count()); }
inline uint32_t ms32(Millis d) {
    return d.count() > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(ms(d));
}
template <typename F>
void destroy(void *callable) {
    delete static_cast<F *>(callable);
}
// The demangled name of the type of the exception being handled ("std::runtime_error");
// call it inside a catch block.
inline std::string current_exception_type() {
#ifdef QUEUEY_HPP_HAVE_CXXABI
    if (const std::type_info *type = abi::__cxa_current_exception_type()) {
        int status = 0;
        const std::unique_ptr<char, void (*)(void *)> name(
            abi::__cxa_demangle(type->name(), nullptr, nullptr, &status), std::free);
        return status == 0 && name ? name.get() : type->name();
    }
#endif
    return "unknown exception";
}

// An exception that carries a reason, copied without throwing (the text is shared).
class ReasonedException : public std::exception {
public:
    explicit ReasonedException(std::string_view reason)
        : reason_(std::make_shared<const std::string>(reason)) {}
    const char *what() const noexcept override { return reason_->c_str(); }

private:
    std::shared_ptr<const std::string> reason_;
};

// Unique ownership of a T freed with Free; the base of every handle class Self.
template <typename Self, typename T, void (*Free)(T *)>
class Handle {
public:
    explicit Handle(T *raw = nullptr) noexcept : raw_(raw) {}
    Handle(Handle &&other) noexcept : raw_(std::exchange(other.raw_, nullptr)) {}
    Handle &operator=(Handle &&other) noexcept {
        if (this != &other) Free(std::exchange(raw_, std::exchange(other.raw_, nullptr)));
        return *this;
    }
    ~Handle() { Free(raw_); }
    T *get() const noexcept { return raw_; }  // the C handle, for calls this header lacks
    explicit operator bool() const noexcept { return raw_ != nullptr; }

protected:
    // fn(handle, args..., &err); throws on failure, else returns *this for chaining.
    template <typename... Params, typename... Args>
    Self &invoke(qy_status (*fn)(Params...), Args &&...args) {
        call(fn, raw_, std::forward<Args>(args)...);
        return static_cast<Self &>(*this);
    }

private:
    T *raw_;
};
}  // namespace detail

/** What a handler answers (qy_job_result): a handler returns an Outcome or, as before, a
    qy_job_result. The Job helpers (retry(), fatal(), ...) return the Outcome with its
    details set. (Before 0.2 they returned a qy_job_result: a lambda that returns both a
    helper's result and QY_JOB_SUCCESS now says Outcome::success, since all the returns
    of a lambda must have one type.) */
enum class Outcome {
    success = QY_JOB_SUCCESS,
    retry = QY_JOB_RETRY,
    fatal = QY_JOB_FATAL,
    defer = QY_JOB_DEFER,
    undecodable = QY_JOB_UNDECODABLE,
};

/** The worker's counters (qy_counter), for Worker::counter(). */
enum class Counter {
    succeeded = QY_COUNTER_SUCCEEDED,
    retried = QY_COUNTER_RETRIED,
    deferred = QY_COUNTER_DEFERRED,
    dead_lettered_fatal = QY_COUNTER_DEAD_LETTERED_FATAL,
    dead_lettered_exhausted = QY_COUNTER_DEAD_LETTERED_EXHAUSTED,
    dead_lettered_unknown_type = QY_COUNTER_DEAD_LETTERED_UNKNOWN_TYPE,
    dead_lettered_undecodable = QY_COUNTER_DEAD_LETTERED_UNDECODABLE,
    timed_out = QY_COUNTER_TIMED_OUT,
    worker_lost = QY_COUNTER_WORKER_LOST,
    settle_failures = QY_COUNTER_SETTLE_FAILURES,
    in_flight = QY_COUNTER_IN_FLIGHT,
    dead_lettered_lost = QY_COUNTER_DEAD_LETTERED_LOST,
    dead_lettered_malformed = QY_COUNTER_DEAD_LETTERED_MALFORMED,
    dropped_malformed = QY_COUNTER_DROPPED_MALFORMED,
    parked = QY_COUNTER_PARKED,
    duplicate_fires = QY_COUNTER_DUPLICATE_FIRES,
};

/** Thrown from a handler: the job is dead-lettered at once ("fatal error: {reason}"), its
    dead letter's x-exception header saying queuey::Fatal and the reason. what(): reason. */
class Fatal : public detail::ReasonedException {
public:
    explicit Fatal(std::string_view reason) : ReasonedException(reason) {}
};

/** Thrown from a handler: the job runs again after delay (at most 2147483647 ms) at its
    queue's max priority, without spending an attempt or asking the retry policy (as
    Job::defer()). A longer delay makes it a retryable error. what(): reason. */
class Defer : public detail::ReasonedException {
public:
    Defer(Millis delay, std::string_view reason) : ReasonedException(reason), delay_(delay) {}
    Millis delay() const noexcept { return delay_; }

private:
    Millis delay_;
};

namespace detail {
constexpr qy_job_result result_of(Outcome outcome) noexcept {
    return static_cast<qy_job_result>(outcome);
}
constexpr qy_job_result result_of(qy_job_result result) noexcept { return result; }
// Settles a job whose handler threw (call it in the catch block): the error is what()
// (NULL: the type), and the exception is noted for its dead letter.
inline qy_job_result thrown(qy_job *job, qy_job_result result, const char *what) noexcept {
    try {
        const std::string type = current_exception_type();
        const std::string error = what ? what : "the handler threw " + type;
        qy_job_set_error(job, error.c_str(), nullptr);
        qy_job_set_exception(job, type.c_str(), what, nullptr);
    } catch (...) {  // out of memory: the result stands, without its details
    }
    return result;
}
// Settles a job whose handler threw Defer: a deferral, or a retryable error that says why
// there can be none.
inline qy_job_result deferred(qy_job *job, const Defer &defer) noexcept {
    qy_error *err = nullptr;
    if (qy_job_set_defer(job, ms(defer.delay()), defer.what(), &err) == QY_OK) return QY_JOB_DEFER;
    const std::unique_ptr<qy_error, void (*)(qy_error *)> owned(err, qy_error_free);
    return thrown(job, QY_JOB_RETRY, err ? qy_error_message(err) : "the deferral failed");
}
}  // namespace detail

class Envelope;

/** A borrowed envelope (of a delivery, a job or a hook): valid as long as its owner. */
class EnvelopeView {
public:
    explicit EnvelopeView(const qy_envelope *env) noexcept : env_(env) {}
    const qy_envelope *get() const noexcept { return env_; }
    std::string_view job_id() const { return qy_envelope_job_id(env_); }
    std::string_view job_type() const { return qy_envelope_job_type(env_); }
    std::string_view queue() const { return qy_envelope_queue(env_); }
    uint32_t attempt() const { return qy_envelope_attempt(env_); }
    uint32_t deferrals() const { return qy_envelope_deferrals(env_); }
    uint8_t priority() const { return qy_envelope_priority(env_); }
    uint64_t enqueued_at_ms() const { return qy_envelope_enqueued_at_ms(env_); }
    Millis age() const { return Millis(qy_envelope_age_ms(env_)); }
    /** The payload, compact JSON. */
    std::string_view payload() const {
        size_t len = 0;
        const char *text = qy_envelope_payload(env_, &len);
        return {text, len};
    }
    /** The correlation id, "" when there is none. */
    std::string_view correlation_id() const {
        const char *id = qy_envelope_correlation_id(env_);
        return id ? id : "";
    }
    /** The message body: compact JSON. */
    std::string to_bytes() const { return detail::text_of(qy_envelope_to_bytes, env_); }
    inline Envelope next_attempt() const;
    inline Envelope deferred(uint8_t priority) const;

protected:
    const qy_envelope *env_;
};

/** An envelope of one's own (qy_envelope_new and the transitions). */
class Envelope : public EnvelopeView {
public:
    /** A new job: fresh id, attempt 1, enqueued now. payload_json: one JSON value. */
    Envelope(std::string_view job_type, std::string_view queue, std::string_view payload_json)
        : Envelope(detail::make<qy_envelope>(qy_envelope_new, std::string(job_type).c_str(),
                                             std::string(queue).c_str(), payload_json.data(),
                                             payload_json.size())) {}
    /** Decodes a message body. */
    static Envelope from_bytes(std::string_view body) {
        return Envelope(
            detail::make<qy_envelope>(qy_envelope_from_bytes, body.data(), body.size()));
    }
    explicit Envelope(qy_envelope *owned) noexcept : EnvelopeView(owned) {}
    Envelope(Envelope &&other) noexcept : EnvelopeView(std::exchange(other.env_, nullptr)) {}
    Envelope &operator=(Envelope &&other) noexcept {
        if (this != &other) {
            qy_envelope_free(get());
            env_ = std::exchange(other.env_, nullptr);
        }
        return *this;
    }
    ~Envelope() { qy_envelope_free(get()); }
    qy_envelope *get() const noexcept { return const_cast<qy_envelope *>(env_); }  // ours
    /** Sets the correlation id; "" removes it. */
    void set_correlation_id(std::string_view id) {
        const std::string text(id);
        detail::call(qy_envelope_set_correlation_id, get(), text.empty() ? nullptr : text.c_str());
    }
};

inline Envelope EnvelopeView::next_attempt() const {
    return Envelope(detail::make<qy_envelope>(qy_envelope_next_attempt, env_));
}
inline Envelope EnvelopeView::deferred(uint8_t priority) const {
    return Envelope(detail::make<qy_envelope>(qy_envelope_deferred, env_, priority));
}

/** Attempts and backoff for retryable failures; see qy_retry_policy_new(). */
class RetryPolicy : public detail::Handle<RetryPolicy, qy_retry_policy, qy_retry_policy_free> {
public:
    explicit RetryPolicy(uint32_t max_attempts)
        : Handle(detail::make<qy_retry_policy>(qy_retry_policy_new, max_attempts)) {}
    /** Throws Error (QY_ERR_INVALID_ARGUMENT) for a delay above 2147483647 ms. */
    RetryPolicy &fixed(Millis delay) & {
        return invoke(qy_retry_policy_set_fixed, detail::ms(delay));
    }
    /** Throws Error (QY_ERR_INVALID_ARGUMENT) for a base or max above 2147483647 ms. */
    RetryPolicy &exponential(Millis base, double factor, Millis max, bool jitter = true) & {
        return invoke(qy_retry_policy_set_exponential, detail::ms(base), factor, detail::ms(max),
                      jitter ? 1 : 0);
    }
    /** On a temporary, the policy itself: `auto p = RetryPolicy(3).fixed(1s);`. */
    RetryPolicy fixed(Millis delay) && { return std::move(fixed(delay)); }
    RetryPolicy exponential(Millis base, double factor, Millis max, bool jitter = true) && {
        return std::move(exponential(base, factor, max, jitter));
    }
};

/** How a Client connects; see the qy_client_options_* setters. */
class ClientOptions
    : public detail::Handle<ClientOptions, qy_client_options, qy_client_options_free> {
public:
    ClientOptions() : Handle(detail::make<qy_client_options>(qy_client_options_new)) {}
    ClientOptions &add_url(std::string_view url) {
        return invoke(qy_client_options_add_url, std::string(url).c_str());
    }
    ClientOptions &connection_name(std::string_view name) {
        return invoke(qy_client_options_set_connection_name, std::string(name).c_str());
    }
    ClientOptions &heartbeat(uint16_t seconds) {
        return invoke(qy_client_options_set_heartbeat, seconds);
    }
    ClientOptions &connect_timeout(Millis t) {
        return invoke(qy_client_options_set_connect_timeout_ms, detail::ms32(t));
    }
    ClientOptions &publish_timeout(Millis t) {
        return invoke(qy_client_options_set_publish_timeout_ms, detail::ms32(t));
    }
    ClientOptions &ca_cert_file(std::string_view path) {
        return invoke(qy_client_options_set_ca_cert_file, std::string(path).c_str());
    }
    /** max_attempts: -1 forever, 0 never; see qy_client_options_set_reconnect(). */
    ClientOptions &reconnect(int64_t max_attempts, Millis base, double factor, Millis max,
                             bool jitter = true) {
        return invoke(qy_client_options_set_reconnect, max_attempts, detail::ms32(base), factor,
                      detail::ms32(max), jitter ? 1 : 0);
    }
    /** fn(qy_log_level, std::string_view message): runs on the client's log thread, one line
        at a time, never under queuey's locks (qy_client_options_set_log()). */
    template <typename F>
    ClientOptions &log(F fn) {
        qy_log_fn trampoline = [](qy_log_level level, const char *message, void *self) {
            try {
                (*static_cast<F *>(self))(level, std::string_view(message));
            } catch (...) {  // a logger must not fail the library
            }
        };
        return invoke(qy_client_options_set_log, trampoline, new F(std::move(fn)),
                      detail::destroy<F>);
    }
    /** No log at all; without log() or this, warnings and errors go to stderr. */
    ClientOptions &no_log() {
        return invoke(qy_client_options_set_log, qy_log_fn{nullptr}, nullptr, qy_destroy_fn{nullptr});
    }
};

/** The RabbitMQ queue type of a logical queue's queues (qy_queue_type). */
enum class QueueType { classic = QY_QUEUE_CLASSIC, quorum = QY_QUEUE_QUORUM };

/** A logical queue's configuration; see the qy_queue_config_* setters. */
class QueueConfig : public detail::Handle<QueueConfig, qy_queue_config, qy_queue_config_free> {
public:
    explicit QueueConfig(std::string_view name)
        : Handle(detail::make<qy_queue_config>(qy_queue_config_new, std::string(name).c_str())) {}
    QueueConfig &type(QueueType type) {
        return invoke(qy_queue_config_set_type, static_cast<qy_queue_type>(type));
    }
    QueueConfig &durable(bool on) { return invoke(qy_queue_config_set_durable, on ? 1 : 0); }
    QueueConfig &max_priority(uint8_t max) { return invoke(qy_queue_config_set_max_priority, max); }
    QueueConfig &message_ttl(Millis ttl) {
        return invoke(qy_queue_config_set_message_ttl_ms, static_cast<int64_t>(ttl.count()));
    }
    QueueConfig &prefetch(uint16_t count) { return invoke(qy_queue_config_set_prefetch, count); }
    QueueConfig &delay_granularity(Millis step) {
        return invoke(qy_queue_config_set_delay_granularity_ms, detail::ms32(step));
    }
    QueueConfig &retry_policy(const RetryPolicy &policy) {
        return invoke(qy_queue_config_set_retry_policy, policy.get());
    }
    QueueConfig &max_lost_runs(uint32_t budget) {
        return invoke(qy_queue_config_set_max_lost_runs, budget);
    }
};

/** A connection to a broker (amqp://, amqps://). Thread-safe. */
/** A queue's ready messages and consumers (qy_client_queue_counts()). */
struct QueueCounts {
    uint64_t ready = 0;
    uint32_t consumers = 0;
};

/** Which messages a browse, replay or purge selects; see the qy_message_filter_* setters. */
class MessageFilter
    : public detail::Handle<MessageFilter, qy_message_filter, qy_message_filter_free> {
public:
    MessageFilter() : Handle(detail::make<qy_message_filter>(qy_message_filter_new)) {}
    MessageFilter &job_id(std::string_view id) {
        return invoke(qy_message_filter_add_job_id, std::string(id).c_str());
    }
    MessageFilter &job_type(std::string_view type) {
        return invoke(qy_message_filter_set_job_type, std::string(type).c_str());
    }
    MessageFilter &reason_contains(std::string_view text) {
        return invoke(qy_message_filter_set_reason_contains, std::string(text).c_str());
    }
    MessageFilter &older_than(Millis age) {
        return invoke(qy_message_filter_set_older_than_ms, detail::ms(age));
    }
};

/** A message seen by Client::browse(), valid during the visit (qy_message_*). */
class MessageView {
public:
    explicit MessageView(const qy_message *message) noexcept : message_(message) {}
    std::string_view job_id() const { return qy_message_job_id(message_); }
    std::string_view job_type() const { return qy_message_job_type(message_); }
    uint32_t attempt() const { return qy_message_attempt(message_); }
    std::string_view reason() const { return qy_message_reason(message_); }
    std::string_view original_queue() const { return qy_message_original_queue(message_); }
    bool redelivered() const { return qy_message_redelivered(message_) != 0; }
    /** nullopt when the body is not an envelope (decode_error() says why). */
    std::optional<EnvelopeView> envelope() const {
        const qy_envelope *env = qy_message_envelope(message_);
        return env ? std::optional(EnvelopeView(env)) : std::nullopt;
    }
    std::string_view decode_error() const { return qy_message_decode_error(message_); }
    std::string_view headers_json() const { return qy_message_headers_json(message_); }
    std::string_view body() const {
        size_t len = 0;
        const char *bytes = qy_message_body(message_, &len);
        return {bytes, len};
    }

private:
    const qy_message *message_;
};

class Client : public detail::Handle<Client, qy_client, qy_client_free> {
public:
    explicit Client(std::string_view url)
        : Handle(detail::make<qy_client>(qy_client_new, std::string(url).c_str(), nullptr)) {}
    Client(std::string_view url, const ClientOptions &options)
        : Handle(detail::make<qy_client>(qy_client_new, std::string(url).c_str(), options.get())) {}
    /** Declares the queue, its dead-letter queue, and remembers the configuration. */
    void declare(const QueueConfig &config) { invoke(qy_client_declare, config.get()); }

    /** Any queue by its full name (q, q.dead, q.deferred.N); see qy_client_queue_counts(). */
    QueueCounts queue_counts(std::string_view queue_name) {
        QueueCounts counts;
        invoke(qy_client_queue_counts, std::string(queue_name).c_str(), &counts.ready,
               &counts.consumers);
        return counts;
    }
    /** What the schedulers of group ("" the default) fire, as JSON (qy_client_list_schedules()). */
    std::string list_schedules(std::string_view group = {}) {
        return detail::text_of(qy_client_list_schedules, get(), std::string(group).c_str());
    }
    /** visit(const MessageView &) returns true to go on; what it throws stops the browse and
        comes out here. Nothing is removed; see qy_client_browse() for what it costs. */
    template <typename F>
    void browse(std::string_view queue_name, F visit, const MessageFilter *filter = nullptr,
                size_t limit = 0) {
        struct Visit {
            F &fn;
            std::exception_ptr thrown;
        } state{visit, nullptr};
        qy_message_visit_fn trampoline = [](const qy_message *message, void *self) -> int {
            auto &s = *static_cast<Visit *>(self);
            try {
                return s.fn(MessageView(message)) ? 0 : 1;
            } catch (...) {
                s.thrown = std::current_exception();
                return 1;
            }
        };
        invoke(qy_client_browse, std::string(queue_name).c_str(), filter ? filter->get() : nullptr,
               limit, trampoline, &state);
        if (state.thrown) std::rethrow_exception(state.thrown);
    }
    /** Returns how many were replayed; throws when some stayed (*replayed, when given,
        then holds how many were). See qy_client_replay_dead_letters(). */
    uint64_t replay_dead_letters(std::string_view queue, const MessageFilter *filter = nullptr,
                                 bool keep_attempt = false, uint64_t *replayed = nullptr) {
        uint64_t done = 0;
        qy_error *err = nullptr;
        const qy_status status = qy_client_replay_dead_letters(get(), std::string(queue).c_str(),
                                                               filter ? filter->get() : nullptr,
                                                               keep_attempt ? 1 : 0, &done, &err);
        if (replayed) *replayed = done;
        detail::check(status, err);
        return done;
    }
    /** As replay_dead_letters(), removing instead; see qy_client_purge_dead_letters(). */
    uint64_t purge_dead_letters(std::string_view queue, const MessageFilter *filter = nullptr,
                                uint64_t *purged = nullptr) {
        uint64_t done = 0;
        qy_error *err = nullptr;
        const qy_status status = qy_client_purge_dead_letters(
            get(), std::string(queue).c_str(), filter ? filter->get() : nullptr, &done, &err);
        if (purged) *purged = done;
        detail::check(status, err);
        return done;
    }
};

/** Puts jobs on queues; each call returns once the broker has the job. Thread-safe. */
class Producer : public detail::Handle<Producer, qy_producer, qy_producer_free> {
public:
    explicit Producer(Client &client)
        : Handle(detail::make<qy_producer>(qy_producer_new, client.get())) {}
    void enqueue(const EnvelopeView &env) { invoke(qy_producer_enqueue, env.get()); }
    void enqueue_after(const EnvelopeView &env, Millis delay) {
        invoke(qy_producer_enqueue_after, env.get(), detail::ms(delay));
    }
    void defer(const EnvelopeView &env, Millis delay) {
        invoke(qy_producer_defer, env.get(), detail::ms(delay));
    }
    /** Publishes all with many in flight. Throws if any failed (statuses, when given,
        holds each one's outcome). */
    template <typename Envelopes>
    void enqueue_batch(const Envelopes &envs, std::vector<qy_status> *statuses = nullptr) {
        std::vector<const qy_envelope *> raw;
        for (const EnvelopeView &env : envs) raw.push_back(env.get());
        if (statuses) statuses->assign(raw.size(), QY_OK);
        invoke(qy_producer_enqueue_batch, raw.data(), raw.size(),
               statuses ? statuses->data() : nullptr);
    }
};

/** One received job; settle it once. Empty (false) when Consumer::next() timed out. */
class Delivery : public detail::Handle<Delivery, qy_delivery, qy_delivery_free> {
public:
    using Handle::Handle;
    EnvelopeView envelope() const { return EnvelopeView(qy_delivery_envelope(get())); }
    bool redelivered() const { return qy_delivery_redelivered(get()) != 0; }
    void ack() { invoke(qy_delivery_ack); }
    void retry(const EnvelopeView &next, Millis delay) {
        invoke(qy_delivery_retry, next.get(), detail::ms(delay));
    }
    void defer(const EnvelopeView &next, Millis delay) {
        invoke(qy_delivery_defer, next.get(), detail::ms(delay));
    }
    void dead_letter(std::string_view reason) {
        invoke(qy_delivery_dead_letter, std::string(reason).c_str());
    }
};

/** Receives the jobs of one declared queue. */
class Consumer : public detail::Handle<Consumer, qy_consumer, qy_consumer_free> {
public:
    Consumer(Client &client, std::string_view queue)
        : Handle(detail::make<qy_consumer>(qy_consumer_new, client.get(),
                                           std::string(queue).c_str())) {}
    Delivery next(Millis timeout) {
        return Delivery(detail::make<qy_delivery>(qy_consumer_next, get(), detail::ms32(timeout)));
    }
};

/** The job a handler runs, valid during the call; its helpers set the details of a result. */
class Job {
public:
    explicit Job(qy_job *job) noexcept : job_(job) {}
    qy_job *get() const noexcept { return job_; }
    EnvelopeView envelope() const { return EnvelopeView(qy_job_envelope(job_)); }
    std::string_view job_id() const { return envelope().job_id(); }
    std::string_view job_type() const { return envelope().job_type(); }
    uint32_t attempt() const { return envelope().attempt(); }
    uint32_t deferrals() const { return envelope().deferrals(); }
    std::string_view payload() const { return envelope().payload(); }
    Millis age() const { return envelope().age(); }
    /** True once the job timed out: its result will be ignored. */
    bool cancelled() const { return qy_job_cancelled(job_) != 0; }

    Outcome retry(std::string_view error) { return result(Outcome::retry, error); }
    /** A retry under this policy, above every other. */
    Outcome retry(std::string_view error, const RetryPolicy &policy) {
        detail::call(qy_job_set_retry_policy, job_, policy.get());
        return retry(error);
    }
    Outcome fatal(std::string_view error) { return result(Outcome::fatal, error); }
    Outcome undecodable(std::string_view detail) { return result(Outcome::undecodable, detail); }
    /** Throws Error (QY_ERR_INVALID_ARGUMENT) for a delay above 2147483647 ms; thrown out
        of a handler, that is a retryable error. */
    Outcome defer(Millis delay, std::string_view reason) {
        detail::call(qy_job_set_defer, job_, detail::ms(delay), std::string(reason).c_str());
        return Outcome::defer;
    }
    /** The x-exception header of the dead letter, should this run end in one
        (qy_job_set_exception()); a throwing handler has it set for it. */
    void set_exception(std::string_view type, std::string_view detail) {
        detail::call(qy_job_set_exception, job_, std::string(type).c_str(),
                     std::string(detail).c_str());
    }

private:
    Outcome result(Outcome kind, std::string_view message) {
        detail::call(qy_job_set_error, job_, std::string(message).c_str());
        return kind;
    }
    qy_job *job_;
};

/** Runs handlers for jobs of the given queues; see qy_worker in queuey.h. Configure and
    register before run(); shutdown() and counter() from any thread. */
class Worker : public detail::Handle<Worker, qy_worker, qy_worker_free> {
public:
    Worker(Client &client, const std::vector<std::string> &queues) : Handle(make(client, queues)) {}
    Worker &concurrency(uint32_t n) { return invoke(qy_worker_set_concurrency, n); }
    Worker &job_timeout(Millis limit) {
        return invoke(qy_worker_set_job_timeout_ms, detail::ms32(limit));
    }
    Worker &default_retry(const RetryPolicy &p) {
        return invoke(qy_worker_set_default_retry, p.get());
    }
    Worker &job_type_retry(std::string_view type, const RetryPolicy &p) {
        return invoke(qy_worker_set_job_type_retry, std::string(type).c_str(), p.get());
    }
    Worker &queue_retry(std::string_view queue, const RetryPolicy &p) {
        return invoke(qy_worker_set_queue_retry, std::string(queue).c_str(), p.get());
    }
    Worker &max_lost_runs(uint32_t budget) { return invoke(qy_worker_set_max_lost_runs, budget); }
    /** SIGINT and SIGTERM shut the worker down gracefully; see qy_worker_shutdown_on_signals. */
    Worker &shutdown_on_signals() { return invoke(qy_worker_shutdown_on_signals); }
    /** fn(queuey::Job &) -> Outcome (or qy_job_result) handles job_type on the worker's
        threads. What fn throws settles the job: Fatal dead-letters it, Defer defers it, any
        other exception is a retryable error with its what() as the error. Each sets the
        dead letter's x-exception header (should the job end in one) to the exception's
        demangled type and its what() (Job::set_exception()). */
    template <typename F>
    Worker &handle(std::string_view job_type, F fn, const RetryPolicy *policy = nullptr) {
        using Result = std::invoke_result_t<F &, Job &>;
        static_assert(std::is_convertible_v<Result, Outcome> ||
                          std::is_convertible_v<Result, qy_job_result>,
                      "a handler returns queuey::Outcome (Outcome::success, job.retry(...), "
                      "...) or a qy_job_result, not void: return Outcome::success when the "
                      "job is done");
        qy_handler_fn trampoline = [](qy_job *raw, void *self) -> qy_job_result {
            try {
                Job job(raw);
                return detail::result_of((*static_cast<F *>(self))(job));
            } catch (const Fatal &e) {
                return detail::thrown(raw, QY_JOB_FATAL, e.what());
            } catch (const Defer &e) {
                return detail::deferred(raw, e);
            } catch (const std::exception &e) {
                return detail::thrown(raw, QY_JOB_RETRY, e.what());
            } catch (...) {
                return detail::thrown(raw, QY_JOB_RETRY, nullptr);
            }
        };
        return invoke(qy_worker_register, std::string(job_type).c_str(), trampoline,
                      new F(std::move(fn)), detail::destroy<F>, policy ? policy->get() : nullptr);
    }
    /** fn(EnvelopeView, std::string_view reason), called before each dead-lettering. */
    template <typename F>
    Worker &on_dead_letter(F fn) {
        qy_dead_letter_fn trampoline = [](const qy_envelope *env, const char *reason, void *self) {
            try {
                (*static_cast<F *>(self))(EnvelopeView(env), std::string_view(reason));
            } catch (...) {  // a hook cannot stop the dead-lettering
            }
        };
        return invoke(qy_worker_set_dead_letter_hook, trampoline, new F(std::move(fn)),
                      detail::destroy<F>);
    }
    /** Runs on this thread (and the worker's own) until shutdown(). */
    void run() { invoke(qy_worker_run); }
    void shutdown() noexcept { qy_worker_shutdown(get()); }
    uint64_t counter(Counter which) const noexcept {
        return counter(static_cast<qy_counter>(which));
    }
    uint64_t counter(qy_counter which) const noexcept { return qy_worker_counter(get(), which); }
    /** The metrics in the Prometheus text format (qy_worker_metrics_text); from any
        thread, while run() runs too. */
    std::string metrics_text() const { return detail::text_of(qy_worker_metrics_text, get()); }

private:
    static qy_worker *make(Client &client, const std::vector<std::string> &queues) {
        std::vector<const char *> names;
        for (const auto &queue : queues) names.push_back(queue.c_str());
        return detail::make<qy_worker>(qy_worker_new, client.get(), names.data(), names.size());
    }
};

}  // namespace queuey

#endif  // QUEUEY_QUEUEY_HPP
