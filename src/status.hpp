// The spelling of each qy_status, shared by error messages, the C API and tests.
#pragma once

#include <queuey/queuey.h>

namespace queuey {

// "QY_OK", "QY_ERR_BAD_JSON", ...; "QY_UNKNOWN_STATUS" for a value this version lacks.
const char *status_name(qy_status status) noexcept;

}  // namespace queuey
