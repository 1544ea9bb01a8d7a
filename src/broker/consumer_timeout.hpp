// RabbitMQ's consumer timeout: the broker closes a consumer channel as soon as one of its
// deliveries has stayed unacknowledged longer than consumer_timeout (30 minutes by
// default; checked about once a minute), and every job the channel held goes back to its
// queue. A job that always runs longer would run again and again, for ever, so the runs it
// cut are charged as lost runs (own_redeliveries.hpp; docs/worker.md, long jobs).
#pragma once

#include <string>
#include <string_view>

namespace queuey {

// Reads the broker's reason for closing a channel: true for the consumer timeout
// ("PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out. Timeout value
// used: 2000 ms. ...", the same words on RabbitMQ 3.10 and 4.0).
bool closed_by_consumer_timeout(std::string_view reason);

// The warning a connection logs the first time the timeout cuts the jobs of queue: what
// happened, what it costs, and the ways to let jobs run longer.
std::string consumer_timeout_warning(std::string_view queue, std::string_view reason);

}  // namespace queuey
