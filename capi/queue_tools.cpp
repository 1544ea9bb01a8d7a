// qy_client_queue_counts, qy_message_filter_*, qy_message_*, qy_client_browse and the
// dead-letter replay and purge: what the queuey command is built on (docs/cli.md).
#include "guard.hpp"

#include "../src/queue_walk.hpp"

using queuey::capi::as_handle;
using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::require;
using queuey::capi::require_text;
using queuey::capi::view_of;

namespace {

const queuey::MessageFilter &filter_of(const qy_message_filter *filter) {
    static const queuey::MessageFilter every;
    return filter ? filter->value : every;
}

// Stores the count, then fails with the first failure when some selected letters stayed.
void report_walk(const queuey::WalkOutcome &outcome, uint64_t *done, const std::string &dead_queue,
                 const char *doing) {
    if (done != nullptr) *done = outcome.done;
    if (!outcome.first_failure) return;
    const queuey::Error &first = *outcome.first_failure;
    throw queuey::Error(first.status(), first.field(),
                        std::to_string(outcome.left) + " of " +
                            std::to_string(outcome.left + outcome.done) +
                            " selected dead letters were not " + doing + " and stay in '" +
                            dead_queue + "'; the first: " + first.what());
}

}  // namespace

extern "C" {

qy_status qy_client_queue_counts(qy_client *client, const char *queue_name, uint64_t *ready,
                                 uint32_t *consumers, qy_error **err) {
    return guarded(err, [&] {
        const queuey::QueueCounts counts =
            require(client, "client")
                .backend->counts(std::string(require_text(queue_name, "queue_name")));
        if (ready != nullptr) *ready = counts.ready;
        if (consumers != nullptr) *consumers = counts.consumers;
    });
}

qy_status qy_message_filter_new(qy_message_filter **out, qy_error **err) {
    return make_handle(out, err, [] { return qy_message_filter{}; });
}

void qy_message_filter_free(qy_message_filter *filter) { delete filter; }

qy_status qy_message_filter_add_job_id(qy_message_filter *filter, const char *job_id,
                                       qy_error **err) {
    return guarded(err, [&] {
        require(filter, "filter").value.job_ids.emplace_back(require_text(job_id, "job_id"));
    });
}

qy_status qy_message_filter_set_job_type(qy_message_filter *filter, const char *job_type,
                                         qy_error **err) {
    return guarded(err, [&] {
        require(filter, "filter").value.job_type = std::string(require_text(job_type, "job_type"));
    });
}

qy_status qy_message_filter_set_reason_contains(qy_message_filter *filter, const char *text,
                                                qy_error **err) {
    return guarded(err, [&] {
        require(filter, "filter").value.reason_contains = std::string(require_text(text, "text"));
    });
}

qy_status qy_message_filter_set_older_than_ms(qy_message_filter *filter, uint64_t age_ms,
                                              qy_error **err) {
    return guarded(err, [&] { require(filter, "filter").value.older_than_ms = age_ms; });
}

const char *qy_message_job_id(const qy_message *message) {
    return message ? view_of(message)->value->job_id.c_str() : nullptr;
}

const char *qy_message_job_type(const qy_message *message) {
    return message ? view_of(message)->value->job_type.c_str() : nullptr;
}

uint32_t qy_message_attempt(const qy_message *message) {
    return message ? view_of(message)->value->attempt : 0;
}

const char *qy_message_reason(const qy_message *message) {
    return message ? view_of(message)->value->reason.c_str() : nullptr;
}

const char *qy_message_original_queue(const qy_message *message) {
    return message ? view_of(message)->value->original_queue.c_str() : nullptr;
}

int qy_message_redelivered(const qy_message *message) {
    return message && view_of(message)->value->message.redelivered ? 1 : 0;
}

const qy_envelope *qy_message_envelope(const qy_message *message) {
    return message && view_of(message)->envelope ? &*view_of(message)->envelope : nullptr;
}

const char *qy_message_decode_error(const qy_message *message) {
    return message ? view_of(message)->value->decode_error.c_str() : nullptr;
}

const char *qy_message_headers_json(const qy_message *message) {
    return message ? view_of(message)->headers_json.c_str() : nullptr;
}

const char *qy_message_body(const qy_message *message, size_t *len) {
    if (message == nullptr) {
        if (len != nullptr) *len = 0;
        return nullptr;
    }
    if (len != nullptr) *len = view_of(message)->value->message.body.size();
    return view_of(message)->value->message.body.c_str();
}

qy_status qy_client_browse(qy_client *client, const char *queue_name,
                           const qy_message_filter *filter, size_t limit, qy_message_visit_fn visit,
                           void *user_data, qy_error **err) {
    return guarded(err, [&] {
        auto &backend = *require(client, "client").backend;
        const std::string name(require_text(queue_name, "queue_name"));
        require(visit, "visit");
        queuey::browse_messages(
            backend, name, filter_of(filter), limit, [&](const queuey::QueueMessage &message) {
                queuey::capi::MessageView view{&message, std::nullopt, message.headers_json()};
                if (message.envelope) view.envelope = qy_envelope{*message.envelope};
                return visit(as_handle(view), user_data) == 0;
            });
    });
}

qy_status qy_client_replay_dead_letters(qy_client *client, const char *queue,
                                        const qy_message_filter *filter, int keep_attempt,
                                        uint64_t *replayed, qy_error **err) {
    if (replayed != nullptr) *replayed = 0;
    return guarded(err, [&] {
        auto &backend = *require(client, "client").backend;
        const std::string name(require_text(queue, "queue"));
        report_walk(
            queuey::replay_dead_letters(backend, name, filter_of(filter), keep_attempt != 0),
            replayed, queuey::dead_letter_queue_name(name), "replayed");
    });
}

qy_status qy_client_purge_dead_letters(qy_client *client, const char *queue,
                                       const qy_message_filter *filter, uint64_t *purged,
                                       qy_error **err) {
    if (purged != nullptr) *purged = 0;
    return guarded(err, [&] {
        auto &backend = *require(client, "client").backend;
        const std::string name(require_text(queue, "queue"));
        report_walk(queuey::purge_dead_letters(backend, name, filter_of(filter)), purged,
                    queuey::dead_letter_queue_name(name), "purged");
    });
}

}  // extern "C"
