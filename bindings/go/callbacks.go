package queuey

// The Go side of the callbacks in trampolines.c. A file with //export may only declare
// in its preamble, so the trampolines live in C and the Go values behind them in
// runtime/cgo handles.

// #include <stdint.h>
// #include <stdlib.h>
// #include <queuey/queuey.h>
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// newUserData is the user_data of a callback registration: malloc'ed memory with a
// handle to v, freed (handle included) by queuey_release when queuey drops it.
func newUserData(v any) unsafe.Pointer {
	p := C.malloc(C.size_t(unsafe.Sizeof(C.uintptr_t(0))))
	*(*C.uintptr_t)(p) = C.uintptr_t(cgo.NewHandle(v))
	return p
}

//export queueyGoRunHandler
func queueyGoRunHandler(job *C.qy_job, h C.uintptr_t) C.qy_job_result {
	return cgo.Handle(h).Value().(*registration).run(job)
}

//export queueyGoDeadLetter
func queueyGoDeadLetter(env *C.qy_envelope, reason *C.char, h C.uintptr_t) {
	cgo.Handle(h).Value().(*deadLetterHook).call(env, reason)
}

//export queueyGoLog
func queueyGoLog(level C.qy_log_level, message *C.char, h C.uintptr_t) {
	cgo.Handle(h).Value().(Logger)(LogLevel(level), C.GoString(message))
}

//export queueyGoVisitMessage
func queueyGoVisitMessage(message *C.qy_message, h C.uintptr_t) C.int {
	return cgo.Handle(h).Value().(*browseState).visit(message)
}

//export queueyGoRelease
func queueyGoRelease(h C.uintptr_t) {
	cgo.Handle(h).Delete()
}
