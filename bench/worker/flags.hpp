// The command line of worker_bench.
#pragma once

#include "cli.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The common flags (cli.hpp) and worker_bench's own.
struct Flags : CommonFlags {
    Flags() : CommonFlags("queuey.worker_bench", 10000) {}  // --jobs: for the drains

    std::size_t retry_jobs = 3000;  // --retry-jobs: for worker_retry_once
    std::uint16_t prefetch = 16;    // --prefetch: queuey's default
};

// Parses argv; prints usage and exits on --help or a bad flag.
Flags parse_flags(int argc, char **argv);
