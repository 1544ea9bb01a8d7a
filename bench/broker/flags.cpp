#include "flags.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

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

[[noreturn]] void bad(const std::string &why) {
    std::fprintf(stderr, "broker_bench: %s\n%s", why.c_str(), usage);
    std::exit(2);
}

std::size_t positive(const std::string &flag, const std::string &text, std::size_t max) {
    char *end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value == 0 || value > max)
        bad(flag + " takes a number from 1 to " + std::to_string(max) + ", not '" + text + "'");
    return static_cast<std::size_t>(value);
}

std::vector<std::string> split(const std::string &list) {
    std::vector<std::string> items;
    std::istringstream stream(list);
    for (std::string item; std::getline(stream, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

}  // namespace

Flags parse_flags(int argc, char **argv) {
    Flags flags;
    if (const char *url = std::getenv("QUEUEY_URL")) flags.url = url;
    for (int i = 1; i < argc; ++i) {
        std::string flag = argv[i], value;
        if (flag == "-h" || flag == "--help") {
            std::fputs(usage, stdout);
            std::exit(0);
        }
        if (const auto eq = flag.find('='); eq != std::string::npos) {
            value = flag.substr(eq + 1);
            flag.resize(eq);
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            bad(flag + " needs a value");
        }
        if (flag == "--url")
            flags.url = value;
        else if (flag == "--queue")
            flags.queue = value;
        else if (flag == "--runs")
            flags.runs = positive(flag, value, 1000);
        else if (flag == "--jobs")
            flags.jobs = positive(flag, value, 10'000'000);
        else if (flag == "--single-jobs")
            flags.single_jobs = positive(flag, value, 10'000'000);
        else if (flag == "--batch")
            flags.batch = positive(flag, value, 1'000'000);
        else if (flag == "--only")
            flags.only = split(value);
        else if (flag == "--side") {
            if (value != "raw" && value != "queuey")
                bad("--side takes raw or queuey, not '" + value + "'");
            flags.side = value;
        } else if (flag == "--prefetch") {
            flags.prefetch.clear();
            for (const auto &item : split(value))
                flags.prefetch.push_back(static_cast<std::uint16_t>(positive(flag, item, 65535)));
            if (flags.prefetch.empty()) bad("--prefetch needs at least one value");
        } else {
            bad("unknown flag " + flag);
        }
    }
    if (flags.url.empty()) bad("no broker: pass --url or set QUEUEY_URL (scripts/bench does)");
    return flags;
}
