// RabbitMQ's consumer timeout: the broker closes a consumer channel as soon as one of its
// deliveries has stayed unacknowledged longer than consumer_timeout (30 minutes by
// default; checked about once a minute), and every job the channel held goes back to its
// queue. A job that always runs longer would run again and again, for ever, so the runs it
// cut are charged as lost runs (own_redeliveries.hpp; docs/worker.md, long jobs).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace queuey {

// Reads the broker's reason for closing a channel: the consumer timeout that closed it
// ("PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out. Timeout value
// used: 2000 ms. ...", the same words on RabbitMQ 3.10 and 4.0), 0 ms when the words name
// no value; nullopt for any other reason.
std::optional<std::chrono::milliseconds> consumer_timeout_of(std::string_view reason);

// Whether a delivery that has been unacknowledged for age ran into timeout: within a
// tenth of it, for the broker started counting when it sent the delivery, a moment
// before it arrived here. Always with a timeout of 0 ms (its value unknown).
bool ran_into(std::chrono::milliseconds timeout, std::chrono::steady_clock::duration age);

// The warning a connection logs the first time the timeout cuts the jobs of queue: what
// happened, what it costs, and the ways to let jobs run longer.
std::string consumer_timeout_warning(std::string_view queue, std::string_view reason);

}  // namespace queuey
