// The command line of soak_bench.
#pragma once

#include "cli.hpp"

#include <cstddef>
#include <cstdint>

// The common flags (cli.hpp) and soak_bench's own; --side defaults to queuey here.
struct Flags : CommonFlags {
    Flags() : CommonFlags("queuey.soak", 1'000'000) { runs = 1; }

    std::uint16_t prefetch = 16;  // --prefetch: queuey's default
};

// Parses argv; prints usage and exits on --help or a bad flag.
Flags parse_flags(int argc, char **argv);
