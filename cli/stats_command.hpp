// queuey stats QUEUE... [--watch SECONDS]: ready messages and consumers of each work
// queue, its hold queues and its dead letters, from passive declares, and from the
// management API where it is enabled (every hold queue, unacknowledged jobs, consumers).
#pragma once

#include "global_options.hpp"

#include <CLI/CLI.hpp>

namespace queuey_cli {

void add_stats_command(CLI::App &app, const GlobalOptions &global);

}  // namespace queuey_cli
