#include "message_filter_options.hpp"

#include "duration.hpp"
#include "usage_error.hpp"

namespace queuey_cli {

void add_filter_options(CLI::App &command, FilterArguments &args, bool with_all) {
    command.add_option("--job-id", args.job_ids, "only this job (repeat for more)");
    command.add_option("--job-type", args.job_type, "only jobs of this type");
    command.add_option("--reason-contains", args.reason_contains,
                       "only dead letters whose reason contains this text");
    command.add_option("--older-than", args.older_than,
                       "only jobs first enqueued at least this long ago: 30m, 2h, 7d");
    if (with_all) command.add_flag("--all", args.all, "every dead letter of the queue");
}

queuey::MessageFilter build_filter(const FilterArguments &args, bool with_all) {
    queuey::MessageFilter filter;
    for (const std::string &id : args.job_ids) filter.job_id(id);
    if (!args.job_type.empty()) filter.job_type(args.job_type);
    if (!args.reason_contains.empty()) filter.reason_contains(args.reason_contains);
    if (!args.older_than.empty()) filter.older_than(parse_duration(args.older_than));
    const bool criterion = !args.job_ids.empty() || !args.job_type.empty() ||
                           !args.reason_contains.empty() || !args.older_than.empty();
    if (with_all && !criterion && !args.all)
        throw UsageError(
            "say which dead letters: --job-id, --job-type, --reason-contains, "
            "--older-than, or --all for every one");
    if (with_all && criterion && args.all)
        throw UsageError("--all takes every dead letter: leave out the other selections, or --all");
    return filter;
}

}  // namespace queuey_cli
