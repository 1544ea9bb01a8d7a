#include "cli.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace {

// The flags of CommonFlags that the programs' own usage texts do not explain.
const char common_usage[] =
    "Every bench program also takes --queue-type classic|quorum (default classic, queuey's\n"
    "default queue with x-max-priority 10; quorum: quorum queues on both sides, tagged\n"
    "[quorum, N nodes] in the report lines), --max-priority N|none (classic queues only:\n"
    "x-max-priority N, 0 to 255, on both sides; none or 0: no x-max-priority; default 10,\n"
    "queuey's; tagged [max-priority N] otherwise), --payload-bytes N (each job's payload a\n"
    "JSON string of N bytes, 2 to 16777216, on both sides; default a 38-byte JSON object;\n"
    "tagged [payload N B|KiB|MiB]) and a URL list --url URL,URL,... (a cluster's nodes:\n"
    "queuey's client gets them all, raw rabbitmq-c connects to the first).\n";

constexpr std::size_t max_payload_bytes = 16 * 1024 * 1024;

// 100 -> "100B", 4096 -> "4KiB", 1048576 -> "1MiB".
std::string size_name(std::size_t bytes) {
    if (bytes % (1024 * 1024) == 0) return std::to_string(bytes / (1024 * 1024)) + "MiB";
    if (bytes % 1024 == 0) return std::to_string(bytes / 1024) + "KiB";
    return std::to_string(bytes) + "B";
}

}  // namespace

std::string CommonFlags::label(const std::string &name) const {
    return name + label_tag(shape, FlagReader::split(url).size()) +
           (payload_bytes == 0 ? "" : " [payload " + size_name(payload_bytes) + "]");
}

void FlagReader::read(
    int argc, char **argv,
    const std::function<void(const std::string &flag, const std::string &value)> &handle) const {
    for (int i = 1; i < argc; ++i) {
        std::string flag = argv[i], value;
        if (flag == "-h" || flag == "--help") {
            std::fputs(usage_, stdout);
            std::fputs(common_usage, stdout);
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
        handle(flag, value);
    }
}

void FlagReader::bad(const std::string &why) const {
    std::fprintf(stderr, "%s: %s\n%s%s", program_, why.c_str(), usage_, common_usage);
    std::exit(2);
}

std::size_t FlagReader::number(const std::string &flag, const std::string &text, std::size_t min,
                               std::size_t max) const {
    char *end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text.front() == '-' || *end != '\0' || value < min || value > max)
        bad(flag + " takes a number from " + std::to_string(min) + " to " + std::to_string(max) +
            ", not '" + text + "'");
    return static_cast<std::size_t>(value);
}

std::vector<std::string> FlagReader::split(const std::string &list) {
    std::vector<std::string> items;
    std::istringstream stream(list);
    for (std::string item; std::getline(stream, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

void read_flags(
    const FlagReader &reader, int argc, char **argv, CommonFlags &common,
    const std::function<bool(const std::string &flag, const std::string &value)> &own_flag) {
    if (const char *url = std::getenv("QUEUEY_URL")) common.url = url;
    reader.read(argc, argv, [&](const std::string &flag, const std::string &value) {
        if (flag == "--url")
            common.url = value;
        else if (flag == "--queue")
            common.queue = value;
        else if (flag == "--runs")
            common.runs = reader.positive(flag, value, 1000);
        else if (flag == "--jobs")
            common.jobs = reader.positive(flag, value, 10'000'000);
        else if (flag == "--only")
            common.only = FlagReader::split(value);
        else if (flag == "--side") {
            if (value != "ceiling" && value != "raw" && value != "queuey")
                reader.bad("--side takes ceiling, raw or queuey, not '" + value + "'");
            common.side = value;
        } else if (flag == "--queue-type") {
            if (value != "classic" && value != "quorum")
                reader.bad("--queue-type takes classic or quorum, not '" + value + "'");
            common.shape.quorum = value == "quorum";
        } else if (flag == "--max-priority") {
            common.shape.max_priority =
                value == "none" ? 0 : static_cast<std::uint8_t>(reader.number(flag, value, 0, 255));
        } else if (flag == "--payload-bytes") {
            common.payload_bytes = reader.number(flag, value, 2, max_payload_bytes);
        } else if (!own_flag(flag, value)) {
            reader.bad("unknown flag " + flag);
        }
    });
    if (common.shape.quorum && common.shape.max_priority != QueueShape::default_max_priority)
        reader.bad("--max-priority: quorum queues have no priorities (classic queues only)");
    if (common.url.empty())
        reader.bad("no broker: pass --url or set QUEUEY_URL (scripts/bench does)");
}
