#include "capi_support.hpp"

#include <stdexcept>

namespace queuey_it::capi {

namespace {

void check(const Outcome &outcome, const char *what) {
    if (!outcome.ok())
        throw std::runtime_error(std::string(what) + " failed: " + qy_status_name(outcome.status) +
                                 ": " + outcome.message);
}

}  // namespace

Outcome call(const std::function<qy_status(qy_error **)> &fallible) {
    qy_error *err = nullptr;
    Outcome outcome;
    outcome.status = fallible(&err);
    if (err != nullptr) {
        outcome.message = qy_error_message(err);
        if (qy_error_status(err) != outcome.status)
            outcome.message +=
                " [error object status " + std::string(qy_status_name(qy_error_status(err))) + "]";
    }
    qy_error_free(err);
    return outcome;
}

Options new_options() {
    qy_client_options *options = nullptr;
    check(call([&](qy_error **err) { return qy_client_options_new(&options, err); }),
          "qy_client_options_new");
    return Options(options);
}

Outcome connect(const std::string &url, const qy_client_options *options, Client &client) {
    qy_client *handle = nullptr;
    const Outcome outcome =
        call([&](qy_error **err) { return qy_client_new(url.c_str(), options, &handle, err); });
    client.reset(handle);
    return outcome;
}

Envelope new_job(const std::string &queue, std::string_view payload) {
    qy_envelope *env = nullptr;
    check(call([&](qy_error **err) {
              return qy_envelope_new("it.job", queue.c_str(), payload.data(), payload.size(), &env,
                                     err);
          }),
          "qy_envelope_new");
    return Envelope(env);
}

QueueConfig new_config(const std::string &name) {
    qy_queue_config *config = nullptr;
    check(call([&](qy_error **err) { return qy_queue_config_new(name.c_str(), &config, err); }),
          "qy_queue_config_new");
    return QueueConfig(config);
}

}  // namespace queuey_it::capi
