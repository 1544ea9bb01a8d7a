// queuey stats QUEUE... [--watch SECONDS]: ready messages and consumers of each work
// queue, its hold queues and its dead letters, from passive declares (no management
// plugin needed).
#pragma once

#include "global_options.hpp"

#include <CLI/CLI.hpp>

namespace queuey_cli {

void add_stats_command(CLI::App &app, const GlobalOptions &global);

}  // namespace queuey_cli
