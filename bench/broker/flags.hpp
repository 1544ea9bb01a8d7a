// The command line of broker_bench.
#pragma once

#include "cli.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The common flags (cli.hpp) and broker_bench's own.
struct Flags : CommonFlags {
    Flags() : CommonFlags("queuey.bench", 20000) {}  // --jobs: enqueue_batch, consume_ack

    std::size_t single_jobs = 2000;           // --single-jobs: for enqueue_single
    std::size_t batch = 1000;                 // --batch: publishes in flight in enqueue_batch
    std::vector<std::uint16_t> prefetch{16};  // --prefetch 16,64: the first is the headline
};

// Parses argv; prints usage and exits on --help or a bad flag.
Flags parse_flags(int argc, char **argv);
