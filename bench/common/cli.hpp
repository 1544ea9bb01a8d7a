// The command-line pieces every bench program shares: `--flag VALUE` or `--flag=VALUE`
// pairs, -h/--help, and numbers and lists checked with an error that names the flag.
#pragma once

#include "queue_shape.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

class FlagReader {
public:
    // program: the name errors start with; usage: printed by --help and after an error.
    FlagReader(const char *program, const char *usage) : program_(program), usage_(usage) {}

    // Calls handle(flag, value) for each pair in argv; --help prints the usage and exits 0.
    void read(
        int argc, char **argv,
        const std::function<void(const std::string &flag, const std::string &value)> &handle) const;

    // Prints "PROGRAM: why" and the usage on stderr, exits 2.
    [[noreturn]] void bad(const std::string &why) const;

    // text as a number from min to max, else bad().
    std::size_t number(const std::string &flag, const std::string &text, std::size_t min,
                       std::size_t max) const;
    // text as a number from 1 to max, else bad().
    std::size_t positive(const std::string &flag, const std::string &text, std::size_t max) const {
        return number(flag, text, 1, max);
    }

    // "a,b,,c" -> {"a", "b", "c"}.
    static std::vector<std::string> split(const std::string &list);

private:
    const char *program_;
    const char *usage_;
};

// The benchmarks of `all` (each with a `name`) that --only names, in their own order; all
// of them when only is empty. A name that matches none is an error.
template <class Benchmark, std::size_t N>
std::vector<const Benchmark *> select_benchmarks(const Benchmark (&all)[N],
                                                 const std::vector<std::string> &only) {
    std::vector<const Benchmark *> chosen;
    for (const Benchmark &benchmark : all)
        if (only.empty() || std::count(only.begin(), only.end(), benchmark.name))
            chosen.push_back(&benchmark);
    for (const std::string &name : only)
        if (std::none_of(chosen.begin(), chosen.end(),
                         [&](const Benchmark *b) { return name == b->name; }))
            throw std::runtime_error("--only: no benchmark named '" + name + "'");
    return chosen;
}

// The most jobs any of the chosen benchmarks runs (jobs_of(benchmark, flags)): the jobs
// to make, no more, as their payloads can be large.
template <class Benchmark, class FlagSet>
std::size_t most_jobs(const std::vector<const Benchmark *> &chosen, const FlagSet &flags,
                      std::size_t (*jobs_of)(const Benchmark &, const FlagSet &)) {
    std::size_t most = 0;
    for (const Benchmark *benchmark : chosen) most = std::max(most, jobs_of(*benchmark, flags));
    return most;
}

// The flags every bench program takes, with the URL from $QUEUEY_URL by default.
struct CommonFlags {
    CommonFlags(std::string default_queue, std::size_t default_jobs)
        : queue(std::move(default_queue)), jobs(default_jobs) {}

    std::string url;                // --url, else $QUEUEY_URL; a list: URL,URL,... (a cluster)
    std::string queue;              // --queue: deleted and declared again per run
    std::size_t runs = 5;           // --runs: per side and benchmark
    std::size_t jobs;               // --jobs
    std::vector<std::string> only;  // --only NAME,...: default all
    std::string side;               // --side ceiling|raw|queuey: only that one (profiling)
    QueueShape shape;               // --queue-type classic|quorum, --max-priority N|none
    std::size_t payload_bytes = 0;  // --payload-bytes: a JSON string this long; 0: the default

    // Whether the side of that name runs: every side unless --side names one.
    bool runs_side(const char *name) const { return side.empty() || side == name; }

    // A benchmark's name as its report lines show it: tagged unless the queues are
    // queuey's default on one node and the payload the default one.
    std::string label(const std::string &name) const;
};

// The sides that run, in the order their runs alternate (load drifts hit all):
// ceiling, raw, queuey; with --side the one it names.
template <class Contender>
std::vector<const Contender *> chosen_sides(const CommonFlags &flags, const Contender &ceiling,
                                            const Contender &raw, const Contender &queuey) {
    std::vector<const Contender *> sides;
    for (const Contender *side : {&ceiling, &raw, &queuey})
        if (flags.runs_side(side->name)) sides.push_back(side);
    return sides;
}

// Reads argv: the common flags into common, every other one to own_flag, which returns
// false for a flag it does not know either (an error). No URL at all is an error too.
void read_flags(
    const FlagReader &reader, int argc, char **argv, CommonFlags &common,
    const std::function<bool(const std::string &flag, const std::string &value)> &own_flag);
