// A received message's AMQP headers as the tools show them (queuey dead show): every
// field type rendered as JSON, so that RabbitMQ's x-death (an array of tables) and any
// header another client set read as well as queuey's own.
#pragma once

#include "../backend.hpp"

#include <amqp.h>

#include <vector>

namespace queuey {

std::vector<BrowsedHeader> browsed_headers(const amqp_table_t &table);

}  // namespace queuey
