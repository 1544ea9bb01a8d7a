// qy_retry_policy_*: retry policies for workers, queues and single jobs.
#include "guard.hpp"

using queuey::capi::delay_of;
using queuey::capi::guarded;
using queuey::capi::make_handle;
using queuey::capi::require;

extern "C" {

qy_status qy_retry_policy_new(uint32_t max_attempts, qy_retry_policy **out, qy_error **err) {
    return make_handle(out, err, [&] {
        queuey::RetryPolicy policy;
        policy.max_attempts = max_attempts;
        return policy;
    });
}

void qy_retry_policy_free(qy_retry_policy *policy) { delete policy; }

qy_status qy_retry_policy_set_fixed(qy_retry_policy *policy, uint64_t delay_ms, qy_error **err) {
    return guarded(err, [&] {
        auto &value = require(policy, "policy").value;
        value.backoff = queuey::RetryPolicy::Backoff::fixed;
        value.fixed_delay = delay_of(delay_ms, "delay_ms");
    });
}

qy_status qy_retry_policy_set_exponential(qy_retry_policy *policy, uint64_t base_ms, double factor,
                                          uint64_t max_ms, int jitter, qy_error **err) {
    return guarded(err, [&] {
        auto &value = require(policy, "policy").value;
        value.backoff = queuey::RetryPolicy::Backoff::exponential;
        value.exponential = {delay_of(base_ms, "base_ms"), factor, delay_of(max_ms, "max_ms"),
                             jitter != 0};
    });
}

qy_status qy_queue_config_set_retry_policy(qy_queue_config *config, const qy_retry_policy *policy,
                                           qy_error **err) {
    return guarded(err, [&] {
        auto &value = require(config, "config").value;
        value.retry_policy = policy ? std::optional(policy->value) : std::nullopt;
    });
}

}  // extern "C"
