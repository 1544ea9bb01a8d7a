// qy_consumer_* and qy_delivery_*: receiving and settling jobs.
#include "guard.hpp"

#include "../src/malformed_body_log.hpp"

using queuey::capi::delay_of;
using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::require;
using queuey::capi::require_text;

extern "C" {

qy_status qy_consumer_new(qy_client *client, const char *queue, qy_consumer **out, qy_error **err) {
    return make_handle(out, err, [&] {
        const qy_client &owner = require(client, "client");
        auto backend = owner.backend;
        auto consumer =
            backend->consume({std::string(require_text(queue, "queue"))},
                             std::make_shared<queuey::MalformedBodyLogger>(owner.logger));
        return qy_consumer{std::move(backend), std::move(consumer)};
    });
}

void qy_consumer_free(qy_consumer *consumer) { delete consumer; }

qy_status qy_consumer_next(qy_consumer *consumer, uint32_t timeout_ms, qy_delivery **out,
                           qy_error **err) {
    if (out != nullptr) *out = nullptr;
    return guarded(err, [&] {
        auto &source = require(consumer, "consumer");
        auto &target = require(out, "out");
        auto delivery = source.consumer->next(std::chrono::milliseconds(timeout_ms));
        if (!delivery) return;
        // The delivery stays where it is (owned through a pointer) for the handle's life.
        const auto envelope = qy_envelope::showing(delivery->envelope());
        target = new qy_delivery{source.backend, std::move(delivery), envelope};
    });
}

const qy_envelope *qy_delivery_envelope(const qy_delivery *delivery) {
    return delivery ? &delivery->envelope : nullptr;
}

int qy_delivery_redelivered(const qy_delivery *delivery) {
    return delivery && delivery->delivery->redelivered() ? 1 : 0;
}

qy_status qy_delivery_ack(qy_delivery *delivery, qy_error **err) {
    return guarded(err, [&] { require(delivery, "delivery").delivery->ack(); });
}

qy_status qy_delivery_retry(qy_delivery *delivery, const qy_envelope *next, uint64_t delay_ms,
                            qy_error **err) {
    return guarded(err, [&] {
        require(delivery, "delivery")
            .delivery->retry(require(next, "next").value(), delay_of(delay_ms, "delay"));
    });
}

qy_status qy_delivery_defer(qy_delivery *delivery, const qy_envelope *next, uint64_t delay_ms,
                            qy_error **err) {
    return guarded(err, [&] {
        require(delivery, "delivery")
            .delivery->defer(require(next, "next").value(), delay_of(delay_ms, "delay"));
    });
}

qy_status qy_delivery_dead_letter(qy_delivery *delivery, const char *reason, qy_error **err) {
    return guarded(err, [&] {
        require(delivery, "delivery").delivery->dead_letter(std::string(require_text(reason, "reason")));
    });
}

void qy_delivery_free(qy_delivery *delivery) { delete delivery; }

}  // extern "C"
