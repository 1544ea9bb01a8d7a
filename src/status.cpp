#include "status.hpp"

namespace queuey {

const char *status_name(qy_status status) noexcept {
    switch (status) {
        case QY_OK: return "QY_OK";
        case QY_ERR_INVALID_ARGUMENT: return "QY_ERR_INVALID_ARGUMENT";
        case QY_ERR_NO_MEMORY: return "QY_ERR_NO_MEMORY";
        case QY_ERR_INTERNAL: return "QY_ERR_INTERNAL";
        case QY_ERR_BAD_JSON: return "QY_ERR_BAD_JSON";
        case QY_ERR_BAD_ENVELOPE: return "QY_ERR_BAD_ENVELOPE";
        case QY_ERR_CONNECTION: return "QY_ERR_CONNECTION";
        case QY_ERR_TIMEOUT: return "QY_ERR_TIMEOUT";
        case QY_ERR_UNROUTABLE: return "QY_ERR_UNROUTABLE";
        case QY_ERR_NACKED: return "QY_ERR_NACKED";
        case QY_ERR_PRECONDITION_FAILED: return "QY_ERR_PRECONDITION_FAILED";
        case QY_ERR_BROKER: return "QY_ERR_BROKER";
        case QY_ERR_CLOSED: return "QY_ERR_CLOSED";
        case QY_ERR_UNSUPPORTED: return "QY_ERR_UNSUPPORTED";
        case QY_ERR_AUTH: return "QY_ERR_AUTH";
        case QY_ERR_STALE_DELIVERY: return "QY_ERR_STALE_DELIVERY";
        case QY_ERR_ALREADY_SETTLED: return "QY_ERR_ALREADY_SETTLED";
        case QY_ERR_NOT_SENT: return "QY_ERR_NOT_SENT";
        case QY_ERR_NOT_FOUND: return "QY_ERR_NOT_FOUND";
    }
    return "QY_UNKNOWN_STATUS";
}

}  // namespace queuey
