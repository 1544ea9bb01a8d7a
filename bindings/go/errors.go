package queuey

// #include <queuey/queuey.h>
import "C"

// Status is a qy_status of the C API: 0 is success, failures are negative. Codes are
// API and never change meaning; messages are for people.
type Status int32

// The statuses of queuey.h.
const (
	StatusOK                 Status = C.QY_OK
	StatusInvalidArgument    Status = C.QY_ERR_INVALID_ARGUMENT
	StatusNoMemory           Status = C.QY_ERR_NO_MEMORY
	StatusInternal           Status = C.QY_ERR_INTERNAL
	StatusBadJSON            Status = C.QY_ERR_BAD_JSON
	StatusBadEnvelope        Status = C.QY_ERR_BAD_ENVELOPE
	StatusConnection         Status = C.QY_ERR_CONNECTION
	StatusTimeout            Status = C.QY_ERR_TIMEOUT
	StatusUnroutable         Status = C.QY_ERR_UNROUTABLE
	StatusNacked             Status = C.QY_ERR_NACKED
	StatusPreconditionFailed Status = C.QY_ERR_PRECONDITION_FAILED
	StatusBroker             Status = C.QY_ERR_BROKER
	StatusClosed             Status = C.QY_ERR_CLOSED
	StatusUnsupported        Status = C.QY_ERR_UNSUPPORTED
	StatusAuth               Status = C.QY_ERR_AUTH
	StatusStaleDelivery      Status = C.QY_ERR_STALE_DELIVERY
	StatusAlreadySettled     Status = C.QY_ERR_ALREADY_SETTLED
	StatusNotSent            Status = C.QY_ERR_NOT_SENT
	StatusNotFound           Status = C.QY_ERR_NOT_FOUND
)

// String is the status's name as queuey.h spells it ("QY_ERR_TIMEOUT").
func (s Status) String() string {
	return C.GoString(C.qy_status_name(C.qy_status(s)))
}

// Error is a failed call: its status, a message that names what is wrong, and the
// envelope field it concerns ("" when it concerns none).
type Error struct {
	Status  Status
	Message string
	Field   string
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Status.String()
	}
	return e.Status.String() + ": " + e.Message
}

// Is matches any *Error with the same status, so errors.Is(err, ErrTimeout) holds for
// every timeout whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status
}

// Sentinels for errors.Is, one per failure status.
var (
	ErrInvalidArgument    = &Error{Status: StatusInvalidArgument}
	ErrNoMemory           = &Error{Status: StatusNoMemory}
	ErrInternal           = &Error{Status: StatusInternal}
	ErrBadJSON            = &Error{Status: StatusBadJSON}
	ErrBadEnvelope        = &Error{Status: StatusBadEnvelope}
	ErrConnection         = &Error{Status: StatusConnection}
	ErrTimeout            = &Error{Status: StatusTimeout}
	ErrUnroutable         = &Error{Status: StatusUnroutable}
	ErrNacked             = &Error{Status: StatusNacked}
	ErrPreconditionFailed = &Error{Status: StatusPreconditionFailed}
	ErrBroker             = &Error{Status: StatusBroker}
	ErrClosed             = &Error{Status: StatusClosed}
	ErrUnsupported        = &Error{Status: StatusUnsupported}
	ErrAuth               = &Error{Status: StatusAuth}
	ErrStaleDelivery      = &Error{Status: StatusStaleDelivery}
	ErrAlreadySettled     = &Error{Status: StatusAlreadySettled}
	ErrNotSent            = &Error{Status: StatusNotSent}
	ErrNotFound           = &Error{Status: StatusNotFound}
)

// call runs a fallible C function, handing it the qy_error ** it takes last, and turns
// a failure into an *Error (freeing the C error).
func call(f func(err **C.qy_error) C.qy_status) error {
	var cerr *C.qy_error
	if status := f(&cerr); status != C.QY_OK {
		return takeError(status, cerr)
	}
	return nil
}

func takeError(status C.qy_status, cerr *C.qy_error) error {
	defer C.qy_error_free(cerr)
	e := &Error{Status: Status(status), Message: C.GoString(C.qy_error_message(cerr))}
	if cerr != nil {
		e.Status = Status(C.qy_error_status(cerr))
	}
	if field := C.qy_error_field(cerr); field != nil {
		e.Field = C.GoString(field)
	}
	return e
}

// invalid is the error of an argument that the binding refuses before calling C, in
// the C API's terms: QY_ERR_INVALID_ARGUMENT with a message naming the argument.
func invalid(argument, message string) error {
	return &Error{Status: StatusInvalidArgument, Message: argument + ": " + message}
}
