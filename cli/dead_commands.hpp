// queuey dead list|show|replay|purge QUEUE: the dead letters of a work queue (QUEUE.dead).
#pragma once

#include "global_options.hpp"

#include <CLI/CLI.hpp>

namespace queuey_cli {

void add_dead_command(CLI::App &app, const GlobalOptions &global);

}  // namespace queuey_cli
