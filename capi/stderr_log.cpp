#include "stderr_log.hpp"

#include <cstdio>
#include <string>

namespace queuey::capi {

LogSink stderr_log_sink() {
    return [](LogLevel level, const std::string &message) {
        if (level < LogLevel::info) return;  // debug lines are for a chosen sink
        const char *kind = level == LogLevel::info   ? "info: "
                           : level == LogLevel::warn ? "warning: "
                                                     : "error: ";
        const std::string line = std::string("queuey: ") + kind + message + "\n";
        // One write per line: lines of several clients or processes do not interleave.
        std::fwrite(line.data(), 1, line.size(), stderr);
    };
}

}  // namespace queuey::capi
