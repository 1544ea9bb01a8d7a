#include "flags.hpp"

namespace {

const char usage[] =
    "usage: producers_bench [--url URL] [--runs R] [--jobs N] [--threads T[,T...]]\n"
    "                       [--ceiling W] [--queue NAME] [--side raw|queuey]\n"
    "Many producers on one client. For each T: T threads share one queuey client (C API)\n"
    "and enqueue N jobs each, one at a time with qy_producer_enqueue(), which returns on\n"
    "the broker's confirm; timed from the start barrier to the last return. Against raw\n"
    "rabbitmq-c publishing the same N x T jobs on one connection with publisher confirms\n"
    "and a sliding window of T unconfirmed publishes (as many in flight as queuey's T\n"
    "callers: the bench line), and of W (fully pipelined, the ceiling: the also line; none\n"
    "where W <= T), and for T > 1 against raw_blocking: T threads with a raw connection\n"
    "each, publishing one at a time and waiting for each confirm (the same blocking calls:\n"
    "its also line compares CPU per job like for like). N per thread: the broker's\n"
    "confirms set the pace, so a run takes about as long at every T. Runs alternate raw\n"
    "window T, raw window W, raw_blocking, queuey, each on a fresh queue; every figure is\n"
    "the median of R runs. Per T, after the bench, raw, also and cpu lines of producers_tT:\n"
    "  latency producers_tT: queuey p50 X us, p99 Y us; raw p50 X us, p99 Y us\n"
    "(medians over the runs of each run's percentiles; queuey: one enqueue call; raw,\n"
    "window T: publish to confirm). --side runs one side only (to profile it), and prints\n"
    "no ratios. Defaults: R=5, --jobs 500, --threads 1,4,16, --ceiling 1000,\n"
    "--queue queuey.producers_bench.\n";

}  // namespace

Flags parse_flags(int argc, char **argv) {
    const FlagReader reader("producers_bench", usage);
    Flags flags;
    read_flags(reader, argc, argv, flags, [&](const std::string &flag, const std::string &value) {
        if (flag == "--threads") {
            flags.threads.clear();
            for (const auto &item : FlagReader::split(value))
                flags.threads.push_back(reader.positive(flag, item, 1024));
            if (flags.threads.empty()) reader.bad("--threads needs at least one value");
        } else if (flag == "--ceiling") {
            flags.ceiling = reader.positive(flag, value, 1'000'000);
        } else {
            return false;
        }
        return true;
    });
    if (!flags.only.empty()) reader.bad("--only: producers_bench has one benchmark; use --threads");
    if (flags.side == "ceiling")  // its raw side at window 1000 is the ceiling here
        reader.bad("--side: producers_bench takes raw or queuey; --ceiling sets raw's window");
    if (flags.most_jobs() > 10'000'000)  // no overflow: --jobs and --threads are bounded
        reader.bad("--jobs times the most --threads is over 10000000 jobs in one run");
    return flags;
}
