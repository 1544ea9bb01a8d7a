// The exception type of the core. The C shim turns it into a qy_status plus a qy_error.
#pragma once

#include <queuey/queuey.h>

#include <stdexcept>
#include <string>

namespace queuey {

class Error : public std::runtime_error {
public:
    // field: the envelope field the error is about, "body" for the input as a whole,
    // "" when the error is not about an input field.
    Error(qy_status status, std::string field, const std::string &message)
        : std::runtime_error(field.empty() ? message : field + ": " + message),
          status_(status), field_(std::move(field)) {}

    qy_status status() const noexcept { return status_; }
    const std::string &field() const noexcept { return field_; }

    // A copy that shares no memory with this one (std::runtime_error's copies share their
    // text): for an exception handed to another thread (copy_of_current_exception).
    Error unshared() const {
        Error copy(status_, "", what());
        copy.field_ = field_;
        return copy;
    }

private:
    qy_status status_;
    std::string field_;
};

}  // namespace queuey
