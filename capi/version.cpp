// The version of the library that is loaded, to compare with the header's.
#include <queuey/queuey.h>

extern "C" {

uint32_t qy_version_number(void) { return QY_VERSION_NUMBER; }

const char *qy_version_string(void) { return QY_VERSION_STRING; }

}  // extern "C"
