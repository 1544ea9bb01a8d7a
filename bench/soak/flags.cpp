#include "flags.hpp"

#include "cli.hpp"

namespace {

// At least this many jobs, so that a tenth of the run holds a dozen memory samples.
constexpr std::size_t min_jobs = 1000;

const char usage[] =
    "usage: soak_bench [--url URL] [--jobs N] [--runs R] [--prefetch P] [--queue NAME]\n"
    "                  [--side raw|queuey] [--max-priority N|none] [--payload-bytes N]\n"
    "worker_soak: preloads N no-op jobs into a fresh queue on the broker at URL (default\n"
    "$QUEUEY_URL; raw confirmed publishes, 1000 in flight, untimed), then a queuey worker\n"
    "(C API, concurrency 1) acks them all, and the resident memory (VmRSS) of this process\n"
    "is read after every N/1000-th job. Prints the RSS median over the first and over the\n"
    "last tenth of the jobs, their ratio (the goal: flat within 10%), jobs/s and seconds.\n"
    "Fails unless the worker counted N successes and the queue is empty afterwards.\n"
    "--side raw: the baseline instead, raw rabbitmq-c consuming and acking the same jobs\n"
    "(basic.consume with the same prefetch, basic.ack each delivery) in this process.\n"
    "Defaults: --jobs 1000000, R=1 (each run prints its own line), --prefetch 16,\n"
    "--side queuey, --queue queuey.soak.\n";

}  // namespace

Flags parse_flags(int argc, char **argv) {
    const FlagReader reader("soak_bench", usage);
    Flags flags;
    read_flags(reader, argc, argv, flags, [&](const std::string &flag, const std::string &value) {
        if (flag != "--prefetch") return false;
        flags.prefetch = static_cast<std::uint16_t>(reader.positive(flag, value, 65535));
        return true;
    });
    if (!flags.only.empty()) reader.bad("--only: soak_bench has one benchmark, worker_soak");
    if (flags.jobs < min_jobs) reader.bad("--jobs takes at least " + std::to_string(min_jobs));
    if (flags.side == "ceiling")
        reader.bad("--side: soak_bench has no ceiling, only raw or queuey");
    if (flags.side.empty()) flags.side = "queuey";
    return flags;
}
