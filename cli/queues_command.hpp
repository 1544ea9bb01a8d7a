// queuey queues: the vhost's queuey work queues with their counts, from the management
// API (AMQP cannot list queues).
#pragma once

#include "global_options.hpp"

#include <CLI/CLI.hpp>

namespace queuey_cli {

void add_queues_command(CLI::App &app, const GlobalOptions &global);

}  // namespace queuey_cli
