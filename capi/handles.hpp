// The opaque structs behind the C handles: each wraps one core value.
#pragma once

#include <queuey/queuey.h>

#include "../src/amqp_properties.hpp"
#include "../src/backend.hpp"
#include "../src/broker/rabbit_backend.hpp"
#include "../src/envelope.hpp"
#include "../src/memory/memory_backend.hpp"
#include "../src/message_filter.hpp"
#include "../src/mutex.hpp"
#include "../src/producer.hpp"
#include "../src/queue_message.hpp"
#include "../src/schedule/schedule.hpp"
#include "../src/schedule/scheduler.hpp"
#include "../src/worker/stop_signals.hpp"
#include "../src/worker/worker.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

struct qy_error {
    qy_status status;
    std::string message;
    std::optional<std::string> field;
};

// Owns its envelope, or shows one that outlives it, without a copy (a handler's job for
// the call, a delivery's, a dead-letter hook's). A shown one is only handed out const.
struct qy_envelope {
public:
    explicit qy_envelope(queuey::Envelope owned) : owned_(std::move(owned)) {}
    static qy_envelope showing(const queuey::Envelope &shown) {
        qy_envelope handle;
        handle.shown_ = &shown;
        return handle;
    }

    const queuey::Envelope &value() const { return shown_ ? *shown_ : owned_; }
    queuey::Envelope &owned_value() { return owned_; }  // a handle handed out mutable

private:
    qy_envelope() = default;

    queuey::Envelope owned_;
    const queuey::Envelope *shown_ = nullptr;
};

struct qy_properties {
    queuey::AmqpProperties value;
};

struct qy_client_options {
    queuey::RabbitBackendOptions rabbit;
    queuey::LogSink log;  // each client made from these starts a log dispatcher for it
};

struct qy_client {
    std::shared_ptr<queuey::Backend> backend;
    // Its log dispatcher, stopped by qy_client_free(); copies go to its workers and consumers.
    queuey::Logger logger;
    std::shared_ptr<queuey::MemoryBackend> memory;  // the same backend, for memory://
};

struct qy_queue_config {
    queuey::QueueConfig value;
};

struct qy_schedule {
    queuey::Schedule value;
};

struct qy_scheduler_options {
    queuey::SchedulerOptions value;  // schedules, queues and group; the rest at qy_scheduler_new
};

struct qy_scheduler {
    std::unique_ptr<queuey::Scheduler> value;
    queuey::Logger logger;  // stopped after the scheduler, whose last lines it delivers
};

struct qy_message_filter {
    queuey::MessageFilter value;
};

namespace queuey::capi {
// What a const qy_message * points to (the C type stays incomplete: a borrowed view,
// built around the core message for the length of a visit, never a handle of its own).
struct MessageView {
    const QueueMessage *value;
    std::optional<qy_envelope> envelope;
    std::string headers_json;
};
inline const qy_message *as_handle(const MessageView &view) {
    return reinterpret_cast<const qy_message *>(&view);
}
inline const MessageView *view_of(const qy_message *message) {
    return reinterpret_cast<const MessageView *>(message);
}
}  // namespace queuey::capi

struct qy_producer {
    queuey::Producer producer;
};

// Each keeps the backend alive: they may outlive the qy_client they came from.
struct qy_consumer {
    std::shared_ptr<queuey::Backend> backend;
    std::unique_ptr<queuey::Consumer> consumer;
};

struct qy_delivery {
    std::shared_ptr<queuey::Backend> backend;
    std::shared_ptr<queuey::Delivery> delivery;
    qy_envelope envelope;  // shows the delivery's, for qy_delivery_envelope()
};

struct qy_retry_policy {
    queuey::RetryPolicy value;
};

// Configured until qy_worker_run() builds the core worker from it.
struct qy_worker {
    std::shared_ptr<queuey::Backend> backend;
    queuey::WorkerOptions options;
    struct Registration {
        std::string job_type;
        queuey::Handler handler;
        std::optional<queuey::RetryPolicy> policy;
    };
    std::vector<Registration> registrations;
    // Set by the signal handlers of qy_worker_shutdown_on_signals() (options.stop_requested).
    std::shared_ptr<std::atomic<bool>> stop_flag = std::make_shared<std::atomic<bool>>(false);
    std::unique_ptr<queuey::StopSignals> stop_signals;
    mutable queuey::Mutex mutex;  // guards the fields below
    // Set by qy_worker_run(), kept for the counters.
    std::unique_ptr<queuey::Worker> worker QY_GUARDED_BY(mutex);
    bool shutdown_requested QY_GUARDED_BY(mutex) = false;
};

// A handler's view of its job, and the details it gives with its result.
struct qy_job {
    const queuey::Job &job;
    qy_envelope envelope;
    queuey::JobOutcome outcome;
};
