#include "flags.hpp"

#include "cli.hpp"

#include <cstdlib>

namespace {

const char usage[] =
    "usage: broker_bench [--url URL] [--runs R] [--jobs N] [--single-jobs N] [--batch B]\n"
    "                    [--prefetch P[,P...]] [--only NAME[,NAME...]] [--queue NAME]\n"
    "                    [--side raw|queuey]\n"
    "Measures queuey against raw rabbitmq-c on the broker at URL (default $QUEUEY_URL),\n"
    "runs alternating raw, queuey, raw, ...; prints per side the median of R runs.\n"
    "--side runs one side only (to profile it), and prints no ratios.\n"
    "NAME: enqueue_single, enqueue_batch, consume_ack. Defaults: R=5, --jobs 20000,\n"
    "--single-jobs 2000, --batch 1000, --prefetch 16, --queue queuey.bench.\n";

}  // namespace

Flags parse_flags(int argc, char **argv) {
    const FlagReader reader("broker_bench", usage);
    Flags flags;
    if (const char *url = std::getenv("QUEUEY_URL")) flags.url = url;
    reader.read(argc, argv, [&](const std::string &flag, const std::string &value) {
        if (flag == "--url")
            flags.url = value;
        else if (flag == "--queue")
            flags.queue = value;
        else if (flag == "--runs")
            flags.runs = reader.positive(flag, value, 1000);
        else if (flag == "--jobs")
            flags.jobs = reader.positive(flag, value, 10'000'000);
        else if (flag == "--single-jobs")
            flags.single_jobs = reader.positive(flag, value, 10'000'000);
        else if (flag == "--batch")
            flags.batch = reader.positive(flag, value, 1'000'000);
        else if (flag == "--only")
            flags.only = FlagReader::split(value);
        else if (flag == "--side") {
            if (value != "raw" && value != "queuey")
                reader.bad("--side takes raw or queuey, not '" + value + "'");
            flags.side = value;
        } else if (flag == "--prefetch") {
            flags.prefetch.clear();
            for (const auto &item : FlagReader::split(value))
                flags.prefetch.push_back(
                    static_cast<std::uint16_t>(reader.positive(flag, item, 65535)));
            if (flags.prefetch.empty()) reader.bad("--prefetch needs at least one value");
        } else {
            reader.bad("unknown flag " + flag);
        }
    });
    if (flags.url.empty())
        reader.bad("no broker: pass --url or set QUEUEY_URL (scripts/bench does)");
    return flags;
}
