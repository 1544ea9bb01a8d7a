// queuey peek QUEUE [--limit N]: the next jobs of a work queue, left where they are.
#pragma once

#include "global_options.hpp"

#include <CLI/CLI.hpp>

namespace queuey_cli {

void add_peek_command(CLI::App &app, const GlobalOptions &global);

}  // namespace queuey_cli
