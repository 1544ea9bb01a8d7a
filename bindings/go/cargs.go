package queuey

// #include <stdlib.h>
import "C"

import (
	"math"
	"strings"
	"time"
	"unsafe"
)

// cArgs turns Go arguments into C ones for one call and frees them afterwards. The
// first bad argument is kept in err; later conversions are then skipped.
type cArgs struct {
	strs []*C.char
	err  error
	// The arguments are the library's fields (a schedule's): errors name them in Field,
	// as the library's own refusals do.
	namesFields bool
}

func (a *cArgs) invalid(argument, message string) error {
	if a.namesFields {
		return &Error{Status: StatusInvalidArgument, Message: argument + ": " + message,
			Field: argument}
	}
	return invalid(argument, message)
}

// str is s as a C string; a NUL byte inside would silently cut it in C, so it is refused.
func (a *cArgs) str(argument, s string) *C.char {
	if a.err != nil {
		return nil
	}
	if strings.IndexByte(s, 0) >= 0 {
		a.err = a.invalid(argument, "contains a NUL character")
		return nil
	}
	p := C.CString(s)
	a.strs = append(a.strs, p)
	return p
}

// millis is d in whole milliseconds, rounded up (a positive delay never becomes zero),
// refused when negative or above max.
func (a *cArgs) millis(argument string, d time.Duration, max uint64) uint64 {
	if a.err != nil {
		return 0
	}
	if d < 0 {
		a.err = a.invalid(argument, "is negative ("+d.String()+")")
		return 0
	}
	ms := uint64((d + time.Millisecond - 1) / time.Millisecond)
	if ms > max {
		a.err = a.invalid(argument, d.String()+" is too long")
		return 0
	}
	return ms
}

func (a *cArgs) free() {
	for _, p := range a.strs {
		C.free(unsafe.Pointer(p))
	}
	a.strs = nil
}

// The largest delays and timeouts the C API takes, in milliseconds.
const (
	maxDelayMs  = math.MaxInt32
	maxUint32Ms = math.MaxUint32
)

// cEmpty stands in for empty input: C refuses a NULL pointer even with length 0, and
// empty input should fail as bad JSON, like any other that is not JSON.
var cEmpty = C.CString("")

// bytesArg is data as the (pointer, length) pair of a C call. Go memory is passed as it
// is: it holds no Go pointers, and C reads it only during the call.
func bytesArg(data []byte) (*C.char, C.size_t) {
	if len(data) == 0 {
		return cEmpty, 0
	}
	return (*C.char)(unsafe.Pointer(unsafe.SliceData(data))), C.size_t(len(data))
}
