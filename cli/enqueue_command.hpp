// queuey enqueue QUEUE JOB_TYPE [PAYLOAD_JSON | -] [--after DURATION] [--correlation-id ID]
#pragma once

#include "global_options.hpp"

#include <CLI/CLI.hpp>

namespace queuey_cli {

void add_enqueue_command(CLI::App &app, const GlobalOptions &global);

}  // namespace queuey_cli
