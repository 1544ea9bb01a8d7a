// qy_envelope_*: the C face of queuey::Envelope and its codec.
#include "guard.hpp"

#include "../src/envelope_codec.hpp"

using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::require;
using queuey::capi::require_text;
using queuey::capi::string_copy;

extern "C" {

qy_status qy_envelope_new(const char *job_type, const char *queue, const char *payload_json,
                          size_t payload_len, qy_envelope **out, qy_error **err) {
    return make_handle(out, err, [&] {
        return queuey::Envelope::create(require_text(job_type, "job_type"), require_text(queue, "queue"),
                                        {&require(payload_json, "payload_json"), payload_len});
    });
}

qy_status qy_envelope_from_bytes(const void *data, size_t len, qy_envelope **out, qy_error **err) {
    return make_handle(out, err, [&] {
        const char *bytes = len == 0 ? "" : static_cast<const char *>(data);
        return queuey::decode_envelope({&require(bytes, "data"), len});
    });
}

qy_status qy_envelope_to_bytes(const qy_envelope *env, char **out, size_t *out_len, qy_error **err) {
    if (out != nullptr) *out = nullptr;
    return guarded(err, [&] {
        const std::string body = queuey::encode_envelope(require(env, "env").value());
        char *&target = require(out, "out");
        size_t &length = require(out_len, "out_len");
        target = string_copy(body);
        length = body.size();
    });
}

qy_status qy_envelope_next_attempt(const qy_envelope *env, qy_envelope **out, qy_error **err) {
    return make_handle(out, err, [&] { return require(env, "env").value().next_attempt(); });
}

qy_status qy_envelope_deferred(const qy_envelope *env, uint8_t priority, qy_envelope **out,
                               qy_error **err) {
    return make_handle(out, err, [&] { return require(env, "env").value().deferred(priority); });
}

qy_status qy_envelope_set_correlation_id(qy_envelope *env, const char *correlation_id,
                                         qy_error **err) {
    return guarded(err, [&] {
        auto &value = require(env, "env").owned_value();
        if (correlation_id == nullptr) {
            value.correlation_id.reset();
            return;
        }
        queuey::check_name_argument("correlation_id", correlation_id, true);
        value.correlation_id = correlation_id;
    });
}

void qy_envelope_free(qy_envelope *env) { delete env; }

const char *qy_envelope_job_id(const qy_envelope *env) {
    return env ? env->value().job_id.c_str() : nullptr;
}

const char *qy_envelope_job_type(const qy_envelope *env) {
    return env ? env->value().job_type.c_str() : nullptr;
}

const char *qy_envelope_queue(const qy_envelope *env) {
    return env ? env->value().queue.c_str() : nullptr;
}

uint32_t qy_envelope_attempt(const qy_envelope *env) { return env ? env->value().attempt : 0; }

uint64_t qy_envelope_enqueued_at_ms(const qy_envelope *env) {
    return env ? env->value().enqueued_at_ms : 0;
}

uint32_t qy_envelope_deferrals(const qy_envelope *env) { return env ? env->value().deferrals : 0; }

uint8_t qy_envelope_priority(const qy_envelope *env) { return env ? env->value().priority : 0; }

const char *qy_envelope_payload(const qy_envelope *env, size_t *len) {
    if (len != nullptr) *len = env ? env->value().payload.size() : 0;
    return env ? env->value().payload.c_str() : nullptr;
}

const char *qy_envelope_correlation_id(const qy_envelope *env) {
    return env && env->value().correlation_id ? env->value().correlation_id->c_str() : nullptr;
}

uint64_t qy_envelope_age_ms(const qy_envelope *env) {
    return env ? env->value().age_ms(queuey::unix_now_ms()) : 0;
}

}  // extern "C"
