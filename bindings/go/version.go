package queuey

// #include <queuey/queuey.h>
import "C"

// HeaderVersionNumber is QY_VERSION_NUMBER of the header this package was built with
// (MAJOR * 10000 + MINOR * 100 + PATCH).
const HeaderVersionNumber = uint32(C.QY_VERSION_NUMBER)

// Version is the version string of the libqueuey loaded at run time ("0.3.0").
func Version() string {
	return C.GoString(C.qy_version_string())
}

// VersionNumber is QY_VERSION_NUMBER of the libqueuey loaded at run time.
func VersionNumber() uint32 {
	return uint32(C.qy_version_number())
}
