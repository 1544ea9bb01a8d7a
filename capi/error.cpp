// qy_error, qy_status names and qy_string_free.
#include "guard.hpp"

#include "../src/status.hpp"

namespace queuey::capi {

qy_status report(qy_error **err, qy_status status, const char *message,
                 const std::string &field) noexcept {
    if (err == nullptr) return status;
    try {
        *err = new qy_error{status, message, field.empty() ? std::nullopt : std::optional(field)};
    } catch (...) {
        *err = nullptr;  // the status still tells what failed
    }
    return status;
}

}  // namespace queuey::capi

extern "C" {

const char *qy_status_name(qy_status status) { return queuey::status_name(status); }

qy_status qy_error_status(const qy_error *err) {
    return err ? err->status : QY_ERR_INVALID_ARGUMENT;
}

const char *qy_error_message(const qy_error *err) {
    return err ? err->message.c_str() : "";
}

const char *qy_error_field(const qy_error *err) {
    return err && err->field ? err->field->c_str() : nullptr;
}

void qy_error_free(qy_error *err) { delete err; }

void qy_string_free(char *str) { delete[] str; }

}  // extern "C"
