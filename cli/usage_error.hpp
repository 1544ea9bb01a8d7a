// A command line that cannot be run as written: exit status 2, like CLI11's own errors.
#pragma once

#include <stdexcept>

namespace queuey_cli {

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace queuey_cli
