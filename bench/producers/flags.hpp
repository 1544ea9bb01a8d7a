// The command line of producers_bench.
#pragma once

#include "cli.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

// The common flags (cli.hpp) and producers_bench's own.
struct Flags : CommonFlags {
    Flags() : CommonFlags("queuey.producers_bench", 500) {}  // --jobs: per thread

    std::vector<std::size_t> threads{1, 4, 16};  // --threads: callers on the one client
    std::size_t ceiling = 1000;  // --ceiling: raw's window in the fully pipelined line

    // Jobs in a run at the largest thread count: the job set all runs take theirs from.
    std::size_t most_jobs() const {
        return jobs * *std::max_element(threads.begin(), threads.end());
    }
};

// Parses argv; prints usage and exits on --help or a bad flag.
Flags parse_flags(int argc, char **argv);
