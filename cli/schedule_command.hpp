// queuey schedule list: what the schedulers of a group fire, each schedule's last and next
// fire, and who leads (qy_client_list_schedules; docs/scheduling.md).
#pragma once

#include "global_options.hpp"

#include <CLI/CLI.hpp>

namespace queuey_cli {

void add_schedule_command(CLI::App &app, const GlobalOptions &global);

}  // namespace queuey_cli
