// The queuey command line: its commands, and how failures become exit statuses
// (0 done, 1 failed, 2 not a valid command line).
#pragma once

namespace queuey_cli {

int run(int argc, char **argv);

}  // namespace queuey_cli
