// qy_scheduler_*: the cluster's one scheduler (src/schedule/scheduler.hpp) and its options;
// qy_client_list_schedules: what the schedulers of a group fire.
#include "guard.hpp"
#include "stderr_log.hpp"

#include "../src/broker/amqp_url.hpp"
#include "../src/schedule/schedule_listing.hpp"
#include "../src/schedule/schedule_queues.hpp"

#include <cstring>
#include <type_traits>

using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::require;
using queuey::capi::require_text;
using queuey::capi::string_copy;

extern "C" {

qy_status qy_scheduler_options_new(qy_scheduler_options **out, qy_error **err) {
    return make_handle(out, err, [] { return qy_scheduler_options{}; });
}

void qy_scheduler_options_free(qy_scheduler_options *opts) { delete opts; }

qy_status qy_scheduler_options_add_schedule(qy_scheduler_options *opts, const qy_schedule *schedule,
                                            qy_error **err) {
    return guarded(err, [&] {
        auto &options = require(opts, "opts").value;
        options.schedules.push_back(require(schedule, "schedule").value);
    });
}

qy_status qy_scheduler_options_add_queue(qy_scheduler_options *opts, const qy_queue_config *config,
                                         qy_error **err) {
    return guarded(err, [&] {
        auto &options = require(opts, "opts").value;
        options.queues.push_back(require(config, "config").value);
    });
}

qy_status qy_scheduler_options_set_group(qy_scheduler_options *opts, const char *group,
                                         qy_error **err) {
    return guarded(err, [&] {
        auto &options = require(opts, "opts").value;
        const std::string_view text = require_text(group, "group");
        queuey::check_scheduler_group(text);
        options.group = text;
    });
}

qy_status qy_scheduler_new(const char *url, const qy_client_options *client_opts,
                           const qy_scheduler_options *opts, qy_scheduler **out, qy_error **err) {
    return make_handle(out, err, [&] {
        queuey::SchedulerOptions options = require(opts, "opts").value;
        const std::string_view address = require_text(url, "url");
        if (address == "memory://")
            throw queuey::Error(QY_ERR_UNSUPPORTED, "url",
                                "memory:// runs no scheduler yet: schedules need a broker");
        const queuey::ConnectionOptions connection =
            client_opts ? client_opts->rabbit.connection : queuey::ConnectionOptions{};
        options.urls = connection.urls;
        options.urls.insert(options.urls.begin(), queuey::parse_amqp_url(address));
        options.session = connection.session;
        options.reconnect = connection.reconnect;
        queuey::Logger logger = queuey::Logger::dispatching_to(
            client_opts ? client_opts->log : queuey::capi::stderr_log_sink());
        options.logger = logger;
        return qy_scheduler{std::make_unique<queuey::Scheduler>(std::move(options)), logger};
    });
}

void qy_scheduler_free(qy_scheduler *scheduler) {
    if (scheduler == nullptr) return;
    scheduler->value.reset();  // stops: joins its thread, closes its connection
    scheduler->logger.stop();
    delete scheduler;
}

int qy_scheduler_leading(const qy_scheduler *scheduler) {
    return scheduler != nullptr && scheduler->value->leading() ? 1 : 0;
}

qy_status qy_scheduler_count(const qy_scheduler *scheduler, qy_scheduler_counter counter,
                             uint64_t *out, qy_error **err) {
    return guarded(err, [&] {
        const queuey::SchedulerCounters counts = require(scheduler, "scheduler").value->counters();
        uint64_t &result = require(out, "out");
        // A C caller may pass any int: its bytes are read as one (UBSan's enum check).
        std::underlying_type_t<qy_scheduler_counter> value = 0;
        std::memcpy(&value, &counter, sizeof value);
        switch (value) {
            case QY_SCHEDULER_FIRES: result = counts.fires; return;
            case QY_SCHEDULER_SKIPPED: result = counts.skipped; return;
            case QY_SCHEDULER_CAUGHT_UP: result = counts.caught_up; return;
            case QY_SCHEDULER_LEADS: result = counts.leads; return;
            case QY_SCHEDULER_FAILURES: result = counts.failures; return;
            default:
                throw queuey::Error(QY_ERR_INVALID_ARGUMENT, "counter",
                                    "is " + std::to_string(value) +
                                        "; QY_SCHEDULER_FIRES (0) to QY_SCHEDULER_FAILURES (4)");
        }
    });
}

qy_status qy_client_list_schedules(qy_client *client, const char *group, char **out,
                                   size_t *out_len, qy_error **err) {
    if (out != nullptr) *out = nullptr;
    return guarded(err, [&] {
        queuey::Backend &backend = *require(client, "client").backend;
        char *&target = require(out, "out");
        size_t &length = require(out_len, "out_len");
        const std::string_view name = group == nullptr ? "" : group;
        const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
        const std::string json =
            queuey::listing_json(name, queuey::list_schedules(backend, name, now));
        target = string_copy(json);
        length = json.size();
    });
}

}  // extern "C"
