// qy_producer_*: enqueueing jobs; qy_release_*: the memory kept for the next publish.
#include "guard.hpp"

#include "../src/broker/body_memory.hpp"
#include "../src/broker/publish_batch.hpp"

#include <string>

using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::require;

extern "C" {

qy_status qy_producer_new(qy_client *client, qy_producer **out, qy_error **err) {
    return make_handle(out, err, [&] { return queuey::Producer(require(client, "client").backend); });
}

void qy_producer_free(qy_producer *producer) { delete producer; }

qy_status qy_producer_enqueue(qy_producer *producer, const qy_envelope *env, qy_error **err) {
    return guarded(err, [&] { require(producer, "producer").producer.enqueue(require(env, "env").value()); });
}

qy_status qy_producer_enqueue_after(qy_producer *producer, const qy_envelope *env, uint64_t delay_ms,
                                    qy_error **err) {
    return guarded(err, [&] {
        require(producer, "producer")
            .producer.enqueue_after(require(env, "env").value(),
                                    queuey::capi::delay_of(delay_ms, "delay"));
    });
}

qy_status qy_producer_defer(qy_producer *producer, const qy_envelope *env, uint64_t delay_ms,
                            qy_error **err) {
    return guarded(err, [&] {
        require(producer, "producer")
            .producer.defer(require(env, "env").value(), queuey::capi::delay_of(delay_ms, "delay"));
    });
}

qy_status qy_producer_enqueue_batch(qy_producer *producer, const qy_envelope *const *envs,
                                    size_t count, qy_status *statuses, qy_error **err) {
    return guarded(err, [&] {
        auto &target = require(producer, "producer").producer;
        if (count > 0) require(envs, "envs");
        std::vector<const queuey::Envelope *> envelopes;
        envelopes.reserve(count);
        for (size_t i = 0; i < count; ++i) envelopes.push_back(&require(envs[i], "envs[i]").value());
        const auto outcomes = target.enqueue_batch(envelopes);
        const queuey::PublishOutcome *first_failure = nullptr;
        size_t failures = 0;
        for (size_t i = 0; i < count; ++i) {
            if (statuses != nullptr) statuses[i] = outcomes[i].status;
            if (outcomes[i].status == QY_OK) continue;
            ++failures;
            if (first_failure == nullptr) first_failure = &outcomes[i];
        }
        if (first_failure != nullptr)
            throw queuey::Error(first_failure->status, "",
                                std::to_string(failures) + " of " + std::to_string(count) +
                                    " publishes failed; the first: " + first_failure->message);
    });
}

void qy_release_thread_memory(void) { queuey::PublishBatch::release_kept(); }

void qy_release_cached_memory(void) {
    queuey::PublishBatch::release_all_kept();  // first: malloc_trim then gives them back too
    queuey::release_cached_memory();
}

}  // extern "C"
