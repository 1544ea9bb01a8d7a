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
    }
    return "QY_UNKNOWN_STATUS";
}

}  // namespace queuey
