// Where queuey's log lines go: a sink the application sets, silent by default.
#pragma once

#include <functional>
#include <string>

namespace queuey {

enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3 };

struct Logger {
    std::function<void(LogLevel, const std::string &)> sink;

    void log(LogLevel level, const std::string &message) const {
        if (sink) sink(level, message);
    }
    void info(const std::string &message) const { log(LogLevel::info, message); }
    void warn(const std::string &message) const { log(LogLevel::warn, message); }
    void error(const std::string &message) const { log(LogLevel::error, message); }
};

}  // namespace queuey
