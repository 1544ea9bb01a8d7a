// The options that select messages (dead list, replay, purge): --job-id (repeatable),
// --job-type, --reason-contains, --older-than, and for replay and purge --all.
#pragma once

#include <CLI/CLI.hpp>
#include <queuey/queuey.hpp>

#include <string>
#include <vector>

namespace queuey_cli {

struct FilterArguments {
    std::vector<std::string> job_ids;
    std::string job_type, reason_contains, older_than;
    bool all = false;
};

// with_all: the command acts on what it selects (replay, purge) and takes --all.
void add_filter_options(CLI::App &command, FilterArguments &args, bool with_all);

// The filter the arguments give. For a command that acts (with_all), throws UsageError
// unless --all or a criterion is given: a bare replay or purge never takes every dead
// letter by accident, and --all with a criterion is a contradiction.
queuey::MessageFilter build_filter(const FilterArguments &args, bool with_all);

}  // namespace queuey_cli
