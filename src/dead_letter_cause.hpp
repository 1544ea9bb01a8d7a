// Why a job goes to its dead-letter queue, as its dead letter's headers tell it.
#pragma once

#include <string>

namespace queuey {

struct DeadLetterCause {
    std::string reason;       // x-death-reason
    std::string exception{};  // x-exception (exception_header.hpp); empty: no such header
};

}  // namespace queuey
