// qy_client_options_* and qy_client_*: choosing and opening a backend.
#include "guard.hpp"
#include "stderr_log.hpp"

#include "../src/broker/amqp_url.hpp"

#include <cmath>

using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::require;
using queuey::capi::require_text;

namespace {

constexpr std::string_view memory_url = "memory://";

std::chrono::milliseconds positive_ms(uint32_t ms, const char *field) {
    if (ms == 0) throw queuey::Error(QY_ERR_INVALID_ARGUMENT, field, "must be more than 0 ms");
    return std::chrono::milliseconds(ms);
}

}  // namespace

extern "C" {

qy_status qy_client_options_new(qy_client_options **out, qy_error **err) {
    return make_handle(out, err, [] {
        return qy_client_options{queuey::RabbitBackendOptions{}, queuey::capi::stderr_log_sink()};
    });
}

void qy_client_options_free(qy_client_options *opts) { delete opts; }

qy_status qy_client_options_add_url(qy_client_options *opts, const char *url, qy_error **err) {
    return guarded(err, [&] {
        auto &urls = require(opts, "opts").rabbit.connection.urls;
        urls.push_back(queuey::parse_amqp_url(require_text(url, "url")));
    });
}

qy_status qy_client_options_set_connection_name(qy_client_options *opts, const char *name,
                                                qy_error **err) {
    return guarded(err, [&] {
        require(opts, "opts").rabbit.connection.session.connection_name = require_text(name, "name");
    });
}

qy_status qy_client_options_set_heartbeat(qy_client_options *opts, uint16_t seconds, qy_error **err) {
    return guarded(err, [&] {
        require(opts, "opts").rabbit.connection.session.heartbeat = std::chrono::seconds(seconds);
    });
}

qy_status qy_client_options_set_connect_timeout_ms(qy_client_options *opts, uint32_t timeout_ms,
                                                   qy_error **err) {
    return guarded(err, [&] {
        require(opts, "opts").rabbit.connection.session.connect_timeout =
            positive_ms(timeout_ms, "connect_timeout_ms");
    });
}

qy_status qy_client_options_set_publish_timeout_ms(qy_client_options *opts, uint32_t timeout_ms,
                                                   qy_error **err) {
    return guarded(err, [&] {
        require(opts, "opts").rabbit.publish_timeout = positive_ms(timeout_ms, "publish_timeout_ms");
    });
}

qy_status qy_client_options_set_ca_cert_file(qy_client_options *opts, const char *path,
                                             qy_error **err) {
    return guarded(err, [&] {
        require(opts, "opts").rabbit.connection.session.ca_cert_file = require_text(path, "path");
    });
}

qy_status qy_client_options_set_reconnect(qy_client_options *opts, int64_t max_attempts,
                                          uint32_t base_ms, double factor, uint32_t max_ms,
                                          int jitter, qy_error **err) {
    return guarded(err, [&] {
        auto &policy = require(opts, "opts").rabbit.connection.reconnect;
        if (max_attempts < -1 || max_attempts > UINT32_MAX)
            throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "max_attempts",
                                "must be -1 (forever), 0 (never) or a count of attempts");
        if (!std::isfinite(factor) || factor < 1.0)
            throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "factor", "must be a finite number >= 1");
        policy.max_attempts = max_attempts < 0 ? std::nullopt
                                               : std::optional(static_cast<uint32_t>(max_attempts));
        policy.backoff = {std::chrono::milliseconds(base_ms), factor, std::chrono::milliseconds(max_ms),
                          jitter != 0};
    });
}

qy_status qy_client_options_set_log(qy_client_options *opts, qy_log_fn fn, void *user_data,
                                    qy_destroy_fn destroy, qy_error **err) {
    return guarded(err, [&] {
        // First, so that whatever fails below destroys user_data once (guard.hpp).
        auto owned = queuey::capi::own_user_data(user_data, destroy);
        auto &sink = require(opts, "opts").log;
        if (fn == nullptr) {
            sink = nullptr;
            return;
        }
        sink = [fn, owned](queuey::LogLevel level, const std::string &message) {
            fn(static_cast<qy_log_level>(level), message.c_str(), owned.get());
        };
    });
}

qy_status qy_client_new(const char *url, const qy_client_options *opts, qy_client **out,
                        qy_error **err) {
    return make_handle(out, err, [&] {
        queuey::RabbitBackendOptions options = opts ? opts->rabbit : queuey::RabbitBackendOptions{};
        queuey::Logger logger =
            queuey::Logger::dispatching_to(opts ? opts->log : queuey::capi::stderr_log_sink());
        options.connection.logger = logger;
        const std::string_view address = require_text(url, "url");
        if (address == memory_url) {
            auto memory = std::make_shared<queuey::MemoryBackend>();
            return qy_client{memory, std::move(logger), memory};
        }
        auto &urls = options.connection.urls;
        urls.insert(urls.begin(), queuey::parse_amqp_url(address));
        return qy_client{std::make_shared<queuey::RabbitBackend>(std::move(options)), std::move(logger), nullptr};
    });
}

void qy_client_free(qy_client *client) {
    if (client == nullptr) return;
    try {
        client->backend->close();
        client->logger.stop();  // after the close, whose lines it still delivers
    } catch (...) {
        // Neither throws today; freeing must not fail either way.
    }
    delete client;
}

qy_status qy_client_declare(qy_client *client, const qy_queue_config *config, qy_error **err) {
    return guarded(err, [&] { require(client, "client").backend->declare(require(config, "config").value); });
}

}  // extern "C"
