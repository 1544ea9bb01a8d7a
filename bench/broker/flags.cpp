#include "flags.hpp"

#include "cli.hpp"

namespace {

const char usage[] =
    "usage: broker_bench [--url URL] [--runs R] [--jobs N] [--single-jobs N] [--batch B]\n"
    "                    [--prefetch P[,P...]] [--only NAME[,NAME...]] [--queue NAME]\n"
    "                    [--side ceiling|raw|queuey] [--queue-type classic|quorum]\n"
    "                    [--max-priority N|none] [--payload-bytes N]\n"
    "Measures queuey against raw rabbitmq-c on the broker at URL (default $QUEUEY_URL),\n"
    "both on the same queue, and the ceiling: raw rabbitmq-c on a durable classic queue\n"
    "without arguments (its line gives raw over ceiling: what the queue's shape costs).\n"
    "Runs alternate ceiling, raw, queuey, ceiling, ...; prints per side the median of R\n"
    "runs. --side runs one side only (to profile it), and prints no ratios.\n"
    "NAME: enqueue_single, enqueue_batch, consume_ack. Defaults: R=5, --jobs 20000,\n"
    "--single-jobs 2000, --batch 1000, --prefetch 16, --queue queuey.bench.\n";

}  // namespace

Flags parse_flags(int argc, char **argv) {
    const FlagReader reader("broker_bench", usage);
    Flags flags;
    read_flags(reader, argc, argv, flags, [&](const std::string &flag, const std::string &value) {
        if (flag == "--single-jobs")
            flags.single_jobs = reader.positive(flag, value, 10'000'000);
        else if (flag == "--batch")
            flags.batch = reader.positive(flag, value, 1'000'000);
        else if (flag == "--prefetch") {
            flags.prefetch.clear();
            for (const auto &item : FlagReader::split(value))
                flags.prefetch.push_back(
                    static_cast<std::uint16_t>(reader.positive(flag, item, 65535)));
            if (flags.prefetch.empty()) reader.bad("--prefetch needs at least one value");
        } else {
            return false;
        }
        return true;
    });
    return flags;
}
