package queuey

// #include <queuey/queuey.h>
import "C"

import (
	"encoding/json"
	"runtime"
	"time"
	"unsafe"
)

// Envelope is one job as it travels on a queue: the JSON object that a message body
// holds. It is a value: NextAttempt and Deferred return new envelopes. Close frees it;
// its getters return zero values afterwards.
type Envelope struct {
	h handle[*C.qy_envelope]
}

func wrapEnvelope(p *C.qy_envelope) *Envelope {
	e := &Envelope{}
	e.h.own("envelope", p)
	runtime.SetFinalizer(e, (*Envelope).Close)
	return e
}

// NewEnvelope is the envelope of a new job: a fresh job id, attempt 1, enqueued now.
// payload is the job's JSON: []byte or json.RawMessage is taken as JSON text, anything
// else is marshalled with encoding/json.
func NewEnvelope(jobType, queue string, payload any) (*Envelope, error) {
	p, err := newCEnvelope(jobType, queue, payload, "")
	if err != nil {
		return nil, err
	}
	return wrapEnvelope(p), nil
}

// EnvelopeFromBytes decodes a message body. A body that is not JSON fails with
// ErrBadJSON, one that is not a valid envelope with ErrBadEnvelope; the *Error names
// the field.
func EnvelopeFromBytes(body []byte) (*Envelope, error) {
	data, n := bytesArg(body)
	var p *C.qy_envelope
	if err := call(func(e **C.qy_error) C.qy_status {
		return C.qy_envelope_from_bytes(unsafe.Pointer(data), n, &p, e)
	}); err != nil {
		return nil, err
	}
	return wrapEnvelope(p), nil
}

// newCEnvelope is the C envelope of a new job (with a correlation id unless it is ""),
// the caller's to free.
func newCEnvelope(jobType, queue string, payload any, correlationID string) (*C.qy_envelope, error) {
	body, err := payloadJSON(payload)
	if err != nil {
		return nil, err
	}
	var args cArgs
	defer args.free()
	cType, cQueue := args.str("job_type", jobType), args.str("queue", queue)
	var cCorrelation *C.char
	if correlationID != "" {
		cCorrelation = args.str("correlation_id", correlationID)
	}
	if args.err != nil {
		return nil, args.err
	}
	data, n := bytesArg(body)
	var p *C.qy_envelope
	if err := call(func(e **C.qy_error) C.qy_status {
		return C.qy_envelope_new(cType, cQueue, data, n, &p, e)
	}); err != nil {
		return nil, err
	}
	if cCorrelation != nil {
		if err := call(func(e **C.qy_error) C.qy_status {
			return C.qy_envelope_set_correlation_id(p, cCorrelation, e)
		}); err != nil {
			C.qy_envelope_free(p)
			return nil, err
		}
	}
	return p, nil
}

// payloadJSON is the JSON text of a payload: []byte and json.RawMessage as they are
// (C checks them), anything else through encoding/json.
func payloadJSON(payload any) ([]byte, error) {
	switch v := payload.(type) {
	case []byte:
		return v, nil
	case json.RawMessage:
		return v, nil
	}
	body, err := json.Marshal(payload)
	if err != nil {
		return nil, &Error{Status: StatusInvalidArgument, Message: "payload: " + err.Error(), Field: "payload"}
	}
	return body, nil
}

// Close frees the envelope. It is idempotent; the finalizer calls it for an envelope
// that was forgotten.
func (e *Envelope) Close() error {
	e.h.release(func(p *C.qy_envelope) { C.qy_envelope_free(p) })
	return nil
}

// Bytes is the envelope's message body: compact UTF-8 JSON, fields in canonical order.
func (e *Envelope) Bytes() ([]byte, error) {
	var body []byte
	err := e.h.use(func(p *C.qy_envelope) (err error) {
		body, err = envelopeBytes(p)
		return err
	})
	return body, err
}

func envelopeBytes(p *C.qy_envelope) ([]byte, error) {
	return handedOut(func(out **C.char, n *C.size_t, err **C.qy_error) C.qy_status {
		return C.qy_envelope_to_bytes(p, out, n, err)
	})
}

// handedOut is a copy of the buffer that f hands out through out and n (a `char *`
// result, freed here with qy_string_free).
func handedOut(f func(out **C.char, n *C.size_t, err **C.qy_error) C.qy_status) ([]byte, error) {
	var out *C.char
	var n C.size_t
	if err := call(func(err **C.qy_error) C.qy_status { return f(&out, &n, err) }); err != nil {
		return nil, err
	}
	defer C.qy_string_free(out)
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}

// copyEnvelope is an envelope of its own with the contents of p (which stays the
// caller's), through its wire form.
func copyEnvelope(p *C.qy_envelope) (*Envelope, error) {
	body, err := envelopeBytes(p)
	if err != nil {
		return nil, err
	}
	return EnvelopeFromBytes(body)
}

// transition runs a C function that makes a new envelope out of this one.
func (e *Envelope) transition(f func(p *C.qy_envelope, out **C.qy_envelope, err **C.qy_error) C.qy_status) (*Envelope, error) {
	var next *C.qy_envelope
	if err := e.h.use(func(p *C.qy_envelope) error {
		return call(func(err **C.qy_error) C.qy_status { return f(p, &next, err) })
	}); err != nil {
		return nil, err
	}
	return wrapEnvelope(next), nil
}

// NextAttempt is the envelope of the next attempt, as a retry publishes it: attempt + 1
// (saturating), priority 0.
func (e *Envelope) NextAttempt() (*Envelope, error) {
	return e.transition(func(p *C.qy_envelope, out **C.qy_envelope, err **C.qy_error) C.qy_status {
		return C.qy_envelope_next_attempt(p, out, err)
	})
}

// Deferred is the envelope of a deferral: deferrals + 1 (saturating), the given
// priority (the queue's maximum), attempt unchanged.
func (e *Envelope) Deferred(priority uint8) (*Envelope, error) {
	return e.transition(func(p *C.qy_envelope, out **C.qy_envelope, err **C.qy_error) C.qy_status {
		return C.qy_envelope_deferred(p, C.uint8_t(priority), out, err)
	})
}

// SetCorrelationID sets the correlation id, which queuey carries but never interprets.
func (e *Envelope) SetCorrelationID(id string) error {
	var args cArgs
	defer args.free()
	cID := args.str("correlation_id", id)
	if args.err != nil {
		return args.err
	}
	return e.setCorrelationID(cID)
}

// ClearCorrelationID removes the correlation id.
func (e *Envelope) ClearCorrelationID() error {
	return e.setCorrelationID(nil)
}

func (e *Envelope) setCorrelationID(id *C.char) error {
	return e.h.use(func(p *C.qy_envelope) error {
		return call(func(err **C.qy_error) C.qy_status {
			return C.qy_envelope_set_correlation_id(p, id, err)
		})
	})
}

// JobID is the job id, a lowercase hyphenated UUID.
func (e *Envelope) JobID() string {
	return read(&e.h, func(p *C.qy_envelope) string { return C.GoString(C.qy_envelope_job_id(p)) })
}

// JobType is what workers route the job on.
func (e *Envelope) JobType() string {
	return read(&e.h, func(p *C.qy_envelope) string { return C.GoString(C.qy_envelope_job_type(p)) })
}

// Queue is the queue the envelope was published to.
func (e *Envelope) Queue() string {
	return read(&e.h, func(p *C.qy_envelope) string { return C.GoString(C.qy_envelope_queue(p)) })
}

// Attempt is the 1-based attempt counter.
func (e *Envelope) Attempt() uint32 {
	return read(&e.h, func(p *C.qy_envelope) uint32 { return uint32(C.qy_envelope_attempt(p)) })
}

// EnqueuedAtMs is when the job was first enqueued, Unix epoch milliseconds.
func (e *Envelope) EnqueuedAtMs() uint64 {
	return read(&e.h, func(p *C.qy_envelope) uint64 { return uint64(C.qy_envelope_enqueued_at_ms(p)) })
}

// EnqueuedAt is EnqueuedAtMs as a time.
func (e *Envelope) EnqueuedAt() time.Time {
	return time.UnixMilli(int64(e.EnqueuedAtMs()))
}

// Deferrals is how often the job was deferred.
func (e *Envelope) Deferrals() uint32 {
	return read(&e.h, func(p *C.qy_envelope) uint32 { return uint32(C.qy_envelope_deferrals(p)) })
}

// Priority is the broker message priority; 0 is normal work.
func (e *Envelope) Priority() uint8 {
	return read(&e.h, func(p *C.qy_envelope) uint8 { return uint8(C.qy_envelope_priority(p)) })
}

// Payload is the payload as compact JSON text (a copy).
func (e *Envelope) Payload() json.RawMessage {
	return read(&e.h, func(p *C.qy_envelope) json.RawMessage { return envelopePayload(p) })
}

// CorrelationID is the correlation id, and whether the envelope has one.
func (e *Envelope) CorrelationID() (string, bool) {
	id := read(&e.h, func(p *C.qy_envelope) *string { return correlationID(p) })
	if id == nil {
		return "", false
	}
	return *id, true
}

// Age is how long ago the job was first enqueued (0 if that lies in the future).
// Neither a retry nor a deferral resets it.
func (e *Envelope) Age() time.Duration {
	return read(&e.h, func(p *C.qy_envelope) time.Duration { return envelopeAge(p) })
}

func envelopePayload(p *C.qy_envelope) json.RawMessage {
	var n C.size_t
	data := C.qy_envelope_payload(p, &n)
	if data == nil {
		return nil
	}
	return C.GoBytes(unsafe.Pointer(data), C.int(n))
}

func correlationID(p *C.qy_envelope) *string {
	id := C.qy_envelope_correlation_id(p)
	if id == nil {
		return nil
	}
	s := C.GoString(id)
	return &s
}

func envelopeAge(p *C.qy_envelope) time.Duration {
	return time.Duration(C.qy_envelope_age_ms(p)) * time.Millisecond
}
