#include "cli.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace {

// The flags of CommonFlags that the programs' own usage texts do not explain.
const char common_usage[] =
    "Every bench program also takes --queue-type classic|quorum (default classic, queuey's\n"
    "default queue with x-max-priority 10; quorum: quorum queues on both sides, tagged\n"
    "[quorum, N nodes] in the report lines) and a URL list --url URL,URL,... (a cluster's\n"
    "nodes: queuey's client gets them all, raw rabbitmq-c connects to the first).\n";

}  // namespace

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

std::size_t FlagReader::positive(const std::string &flag, const std::string &text,
                                 std::size_t max) const {
    char *end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || value == 0 || value > max)
        bad(flag + " takes a number from 1 to " + std::to_string(max) + ", not '" + text + "'");
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
            if (value != "raw" && value != "queuey")
                reader.bad("--side takes raw or queuey, not '" + value + "'");
            common.side = value;
        } else if (flag == "--queue-type") {
            if (value != "classic" && value != "quorum")
                reader.bad("--queue-type takes classic or quorum, not '" + value + "'");
            common.shape.quorum = value == "quorum";
        } else if (!own_flag(flag, value)) {
            reader.bad("unknown flag " + flag);
        }
    });
    if (common.url.empty())
        reader.bad("no broker: pass --url or set QUEUEY_URL (scripts/bench does)");
}
