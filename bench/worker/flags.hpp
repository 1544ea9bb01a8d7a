// The command line of worker_bench.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct Flags {
    std::string url;                            // --url, else $QUEUEY_URL
    std::string queue = "queuey.worker_bench";  // --queue: deleted and declared again per run
    std::size_t runs = 5;                       // --runs: per side and benchmark
    std::size_t jobs = 10000;                   // --jobs: for the drains
    std::size_t retry_jobs = 3000;              // --retry-jobs: for worker_retry_once
    std::uint16_t prefetch = 16;                // --prefetch: queuey's default
    std::vector<std::string> only;              // --only NAME,...: default all
    std::string side;                           // --side raw|queuey: only that one (profiling)
};

// Parses argv; prints usage and exits on --help or a bad flag.
Flags parse_flags(int argc, char **argv);
