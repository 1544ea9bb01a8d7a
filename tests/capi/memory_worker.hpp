// A memory:// client with declared queues, jobs and workers, through the C API only: the
// setting of the C API tests that need a running worker.
#pragma once

#include "capi_test.hpp"

#include <cstdint>
#include <memory>

namespace qyt {

using Client = std::unique_ptr<qy_client, Deleter<qy_client_free>>;
using QueueConfig = std::unique_ptr<qy_queue_config, Deleter<qy_queue_config_free>>;
using Producer = std::unique_ptr<qy_producer, Deleter<qy_producer_free>>;
using Worker = std::unique_ptr<qy_worker, Deleter<qy_worker_free>>;
using RetryPolicy = std::unique_ptr<qy_retry_policy, Deleter<qy_retry_policy_free>>;

// A memory:// client on which queue is declared; empty (and a test failure) otherwise.
inline Client memory_client(const char *queue) {
    qy_client *client = nullptr;
    qy_queue_config *config = nullptr;
    if (qy_client_new("memory://", nullptr, &client, nullptr) != QY_OK ||
        qy_queue_config_new(queue, &config, nullptr) != QY_OK) {
        ADD_FAILURE() << "cannot make a memory:// client";
        qy_client_free(client);
        return nullptr;
    }
    QueueConfig owned_config(config);
    Client owned(client);
    if (qy_client_declare(client, config, nullptr) != QY_OK) {
        ADD_FAILURE() << "cannot declare " << queue;
        return nullptr;
    }
    return owned;
}

// Enqueues count jobs of job_type with an empty payload on queue.
inline void enqueue(qy_client *client, const char *queue, const char *job_type, int count = 1) {
    qy_producer *raw = nullptr;
    if (qy_producer_new(client, &raw, nullptr) != QY_OK) {
        ADD_FAILURE() << "cannot make a producer";
        return;
    }
    Producer producer(raw);
    for (int i = 0; i < count; ++i) {
        qy_envelope *env = nullptr;
        if (qy_envelope_new(job_type, queue, "{}", 2, &env, nullptr) != QY_OK) {
            ADD_FAILURE() << "cannot make an envelope";
            return;
        }
        Envelope owned(env);
        if (qy_producer_enqueue(producer.get(), env, nullptr) != QY_OK)
            ADD_FAILURE() << "cannot enqueue";
    }
}

// A worker on client for queue, with concurrency threads (0: the default).
inline Worker worker_on(qy_client *client, const char *queue, std::uint32_t concurrency = 1) {
    const char *queues[] = {queue};
    qy_worker *raw = nullptr;
    if (qy_worker_new(client, queues, 1, &raw, nullptr) != QY_OK ||
        qy_worker_set_concurrency(raw, concurrency, nullptr) != QY_OK)
        ADD_FAILURE() << "cannot make a worker";
    return Worker(raw);
}

inline RetryPolicy retry_policy(std::uint32_t max_attempts) {
    qy_retry_policy *raw = nullptr;
    if (qy_retry_policy_new(max_attempts, &raw, nullptr) != QY_OK)
        ADD_FAILURE() << "cannot make a policy";
    return RetryPolicy(raw);
}

// What `what` counts on queue of a memory:// client.
inline std::uint64_t memory_count(qy_client *client, const char *queue, qy_memory_count what) {
    std::uint64_t count = 0;
    if (qy_client_memory_count(client, queue, what, &count, nullptr) != QY_OK)
        ADD_FAILURE() << "cannot count";
    return count;
}

}  // namespace qyt
