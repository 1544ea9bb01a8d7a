// What a log line is and where the application wants it: the sink it set on the client.
#pragma once

#include <functional>
#include <string>

namespace queuey {

enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3 };

// Called by a LogDispatcher only, one line at a time, on the dispatcher's thread.
using LogSink = std::function<void(LogLevel, const std::string &)>;

}  // namespace queuey
