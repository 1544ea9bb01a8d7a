#include "flags.hpp"

#include "cli.hpp"

namespace {

const char usage[] =
    "usage: worker_bench [--url URL] [--runs R] [--jobs N] [--retry-jobs N] [--prefetch P]\n"
    "                    [--only NAME[,NAME...]] [--queue NAME] [--side ceiling|raw|queuey]\n"
    "                    [--queue-type classic|quorum] [--max-priority N|none]\n"
    "                    [--payload-bytes N]\n"
    "Measures a queuey worker (C API, no-op handler) against raw rabbitmq-c doing the same\n"
    "wire work on the broker at URL (default $QUEUEY_URL), both on the same queue, and the\n"
    "ceiling: raw's work on a durable classic work queue without arguments (its line gives\n"
    "raw over ceiling: what the queue's shape costs). Runs alternate ceiling, raw, queuey,\n"
    "ceiling, ...; prints per side the median of R runs. Each run gets a fresh queue,\n"
    "preloaded untimed.\n"
    "  worker_drain_c1, worker_drain_c2: a worker with concurrency 1 (2) acks N jobs, timed\n"
    "    from qy_worker_run() to the N-th ack. Raw: basic.consume with the same prefetch,\n"
    "    basic.ack each delivery. worker_drain_c2 also runs raw_threads (every shape), its\n"
    "    like-for-like line: one thread reads and acks, two handler threads take each\n"
    "    delivery from it and hand it back (raw_threads_side.cpp).\n"
    "  worker_retry_once: every job fails its first attempt (fixed retry policy, 0 ms delay,\n"
    "    max_attempts 2; concurrency 1): queuey publishes its next attempt into the hold\n"
    "    queue (confirmed), acks it, and after the hold (1 s) runs and acks it again. Raw:\n"
    "    for each job publish a copy to a hold queue with the same TTL that dead-letters\n"
    "    back to the work queue (another connection, confirmed), wait for the confirm, ack;\n"
    "    then ack the copies as they come back. Both times include the last job's hold.\n"
    "--side runs one side only (to profile it), and prints no ratios.\n"
    "Defaults: R=5, --jobs 10000, --retry-jobs 3000, --prefetch 16,\n"
    "--queue queuey.worker_bench.\n";

}  // namespace

Flags parse_flags(int argc, char **argv) {
    const FlagReader reader("worker_bench", usage);
    Flags flags;
    read_flags(reader, argc, argv, flags, [&](const std::string &flag, const std::string &value) {
        if (flag == "--retry-jobs")
            flags.retry_jobs = reader.positive(flag, value, 10'000'000);
        else if (flag == "--prefetch")
            flags.prefetch = static_cast<std::uint16_t>(reader.positive(flag, value, 65535));
        else
            return false;
        return true;
    });
    return flags;
}
