// qy_queue_config_*: a logical queue's settings.
#include "guard.hpp"

using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::require;
using queuey::capi::require_text;

extern "C" {

qy_status qy_queue_config_new(const char *name, qy_queue_config **out, qy_error **err) {
    return make_handle(out, err, [&] {
        queuey::QueueConfig config;
        config.name = require_text(name, "name");
        queuey::check_queue_name(config.name);
        return config;
    });
}

void qy_queue_config_free(qy_queue_config *config) { delete config; }

qy_status qy_queue_config_set_durable(qy_queue_config *config, int durable, qy_error **err) {
    return guarded(err, [&] { require(config, "config").value.durable = durable != 0; });
}

qy_status qy_queue_config_set_type(qy_queue_config *config, qy_queue_type type, qy_error **err) {
    return guarded(err, [&] {
        auto &value = require(config, "config").value;
        switch (type) {
            case QY_QUEUE_CLASSIC: value.type = queuey::QueueType::classic; return;
            case QY_QUEUE_QUORUM: value.type = queuey::QueueType::quorum; return;
        }
        throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "type",
                            "is " + std::to_string(static_cast<int>(type)) +
                                "; QY_QUEUE_CLASSIC (0) or QY_QUEUE_QUORUM (1)");
    });
}

qy_status qy_queue_config_set_max_priority(qy_queue_config *config, uint8_t max_priority,
                                           qy_error **err) {
    return guarded(err, [&] {
        auto &value = require(config, "config").value;
        value.max_priority = max_priority == 0 ? std::nullopt : std::optional(max_priority);
    });
}

qy_status qy_queue_config_set_message_ttl_ms(qy_queue_config *config, int64_t ttl_ms,
                                             qy_error **err) {
    return guarded(err, [&] {
        auto &value = require(config, "config").value;
        value.message_ttl_ms = ttl_ms < 0 ? std::nullopt : std::optional(ttl_ms);
    });
}

qy_status qy_queue_config_set_prefetch(qy_queue_config *config, uint16_t prefetch, qy_error **err) {
    return guarded(err, [&] {
        auto &value = require(config, "config").value;
        if (prefetch == 0)
            throw queuey::Error(
                QY_ERR_INVALID_ARGUMENT, "prefetch",
                "must be at least 1 (0 would mean no limit on unacknowledged deliveries)");
        value.prefetch = prefetch;
    });
}

qy_status qy_queue_config_set_delay_granularity_ms(qy_queue_config *config, uint32_t granularity_ms,
                                                   qy_error **err) {
    return guarded(err, [&] {
        require(config, "config").value.delay_granularity =
            std::chrono::milliseconds(granularity_ms);
    });
}

qy_status qy_queue_config_set_max_lost_runs(qy_queue_config *config, uint32_t max_lost_runs,
                                            qy_error **err) {
    return guarded(err, [&] {
        require(config, "config").value.max_lost_runs =
            queuey::checked_max_lost_runs(max_lost_runs);
    });
}

}  // extern "C"
