// Where a client logs when its options name no callback: its lines of level info and
// above on stderr, one line each ("queuey: warning: connection lost: ..."), so that a C
// or C++ program says by default that it reconnected, that a handler failed, that a job
// went to its dead-letter queue (qy_client_options_set_log() switches it: another callback,
// or NULL for silence).
#pragma once

#include "../src/log_sink.hpp"

namespace queuey::capi {

LogSink stderr_log_sink();

}  // namespace queuey::capi
