// The command line of broker_bench.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct Flags {
    std::string url;                          // --url, else $QUEUEY_URL
    std::string queue = "queuey.bench";       // --queue: deleted and declared again per run
    std::size_t runs = 5;                     // --runs: per side and benchmark
    std::size_t jobs = 20000;                 // --jobs: for enqueue_batch and consume_ack
    std::size_t single_jobs = 2000;           // --single-jobs: for enqueue_single
    std::size_t batch = 1000;                 // --batch: publishes in flight in enqueue_batch
    std::vector<std::uint16_t> prefetch{16};  // --prefetch 16,64: the first is the headline
    std::vector<std::string> only;            // --only NAME,...: default all three
    std::string side;                         // --side raw|queuey: only that one (profiling)
};

// Parses argv; prints usage and exits on --help or a bad flag.
Flags parse_flags(int argc, char **argv);
