// Owning wrappers of the C handles and a way to run a fallible C call, for the
// integration tests that go through libqueuey's C API only.
#pragma once

#include <queuey/queuey.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace queuey_it::capi {

template <typename T, void (*Free)(T *)>
struct Freer {
    void operator()(T *handle) const { Free(handle); }
};
using Options =
    std::unique_ptr<qy_client_options, Freer<qy_client_options, qy_client_options_free>>;
using Client = std::unique_ptr<qy_client, Freer<qy_client, qy_client_free>>;
using QueueConfig = std::unique_ptr<qy_queue_config, Freer<qy_queue_config, qy_queue_config_free>>;
using Producer = std::unique_ptr<qy_producer, Freer<qy_producer, qy_producer_free>>;
using Consumer = std::unique_ptr<qy_consumer, Freer<qy_consumer, qy_consumer_free>>;
using Delivery = std::unique_ptr<qy_delivery, Freer<qy_delivery, qy_delivery_free>>;
using Envelope = std::unique_ptr<qy_envelope, Freer<qy_envelope, qy_envelope_free>>;

// What a fallible call returned, with its error's message ("" on success).
struct Outcome {
    qy_status status = QY_OK;
    std::string message;
    bool ok() const { return status == QY_OK; }
};
Outcome call(const std::function<qy_status(qy_error **)> &fallible);

// Fresh default options; fails the test (by throwing) when the call fails.
Options new_options();
// Connects; on failure client is null and the outcome says why.
Outcome connect(const std::string &url, const qy_client_options *options, Client &client);
// A new "it.job" envelope for queue.
Envelope new_job(const std::string &queue, std::string_view payload = "{\"n\":1}");
// A default queue config named name.
QueueConfig new_config(const std::string &name);

}  // namespace queuey_it::capi
