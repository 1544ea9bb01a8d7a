package queuey

// #include <stdlib.h>
// #include <queuey/queuey.h>
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unsafe"
)

// Job is the job a handler runs. Its fields are copies and stay valid; its methods
// work only while the handler runs.
type Job struct {
	ID            string
	Type          string
	Queue         string
	Attempt       uint32 // 1-based
	Deferrals     uint32
	Priority      uint8
	CorrelationID string // "": none
	EnqueuedAt    time.Time
	Age           time.Duration // since the first enqueue; retries and deferrals keep it
	Payload       json.RawMessage

	h handle[*C.qy_job] // released when the handler returns
}

func newJob(env *C.qy_envelope) *Job {
	job := &Job{
		ID:         C.GoString(C.qy_envelope_job_id(env)),
		Type:       C.GoString(C.qy_envelope_job_type(env)),
		Queue:      C.GoString(C.qy_envelope_queue(env)),
		Attempt:    uint32(C.qy_envelope_attempt(env)),
		Deferrals:  uint32(C.qy_envelope_deferrals(env)),
		Priority:   uint8(C.qy_envelope_priority(env)),
		EnqueuedAt: time.UnixMilli(int64(C.qy_envelope_enqueued_at_ms(env))),
		Age:        envelopeAge(env),
		Payload:    envelopePayload(env),
	}
	if id := correlationID(env); id != nil {
		job.CorrelationID = *id
	}
	return job
}

// Decode unmarshals the payload into v. Its error, returned by the handler as it is,
// dead-letters the job as undecodable.
func (j *Job) Decode(v any) error {
	if err := json.Unmarshal(j.Payload, v); err != nil {
		return Undecodable(err)
	}
	return nil
}

// Cancelled says that the job has timed out: it was settled as a retryable error
// already and whatever the handler returns is ignored, so a long handler should
// return early. (The handler's ctx ends at the same moment.)
func (j *Job) Cancelled() bool {
	return read(&j.h, func(p *C.qy_job) bool { return C.qy_job_cancelled(p) != 0 })
}

// SetRetryPolicy sets the retry policy for this job's retryable error, above every other.
func (j *Job) SetRetryPolicy(policy RetryPolicy) error {
	return j.h.use(func(p *C.qy_job) error {
		return withPolicy(&policy, func(cp *C.qy_retry_policy) error {
			return call(func(err **C.qy_error) C.qy_status { return C.qy_job_set_retry_policy(p, cp, err) })
		})
	})
}

// SetException notes the exception (its type and its message or trace) for the header
// x-exception of the job's dead letter, should this run end in one (qy_job_set_exception:
// at most 4096 bytes, cut with a marker). typ must be one non-empty line.
func (j *Job) SetException(typ, detail string) error {
	return j.h.use(func(p *C.qy_job) error {
		var args cArgs
		defer args.free()
		cType := args.str("exception type", typ)
		cDetail := args.str("exception detail", detail)
		if args.err != nil {
			return args.err
		}
		return call(func(err **C.qy_error) C.qy_status { return C.qy_job_set_exception(p, cType, cDetail, err) })
	})
}

// outcome is an error that says how to settle the job.
type outcome struct {
	result C.qy_job_result
	err    error         // what the dead-letter reason and the logs show
	delay  time.Duration // a deferral's
	reason string        // a deferral's
}

func (o *outcome) Error() string {
	switch {
	case o.result == C.QY_JOB_DEFER:
		return fmt.Sprintf("deferred for %v: %s", o.delay, o.reason)
	case o.err != nil:
		return o.err.Error()
	case o.result == C.QY_JOB_FATAL:
		return "fatal error"
	}
	return "retryable error"
}

func (o *outcome) Unwrap() error { return o.err }

// Retry marks err as retryable: the retry policy decides whether the job runs again
// or is dead-lettered. Any error that is not marked otherwise counts as retryable.
func Retry(err error) error { return &outcome{result: C.QY_JOB_RETRY, err: err} }

// Fatal marks err as fatal: the job is dead-lettered at once ("fatal error: {err}").
func Fatal(err error) error { return &outcome{result: C.QY_JOB_FATAL, err: err} }

// Undecodable marks err as a payload that cannot be decoded: the job is dead-lettered
// ("decode error: {err}").
func Undecodable(err error) error { return &outcome{result: C.QY_JOB_UNDECODABLE, err: err} }

// Defer puts the job back to run again after delay (at most 2147483647 ms) at the
// queue's max priority, without spending an attempt; reason is for the logs.
func Defer(delay time.Duration, reason string) error {
	return &outcome{result: C.QY_JOB_DEFER, delay: delay, reason: reason}
}

// settleJob tells C how the handler's err settles the job.
func settleJob(job *C.qy_job, err error) C.qy_job_result {
	if err == nil {
		return C.QY_JOB_SUCCESS
	}
	var o *outcome
	if !errors.As(err, &o) {
		o = &outcome{result: C.QY_JOB_RETRY}
	}
	if o.result == C.QY_JOB_DEFER {
		derr := setDefer(job, o.delay, o.reason)
		if derr == nil {
			return C.QY_JOB_DEFER
		}
		o, err = &outcome{result: C.QY_JOB_RETRY}, fmt.Errorf("the handler's deferral failed: %w", derr)
	}
	message := C.CString(strings.ReplaceAll(err.Error(), "\x00", "\uFFFD"))
	defer C.free(unsafe.Pointer(message))
	// It cannot fail on a job handle that C just gave us.
	_ = call(func(e **C.qy_error) C.qy_status { return C.qy_job_set_error(job, message, e) })
	return o.result
}

func setDefer(job *C.qy_job, delay time.Duration, reason string) error {
	var args cArgs
	defer args.free()
	ms := args.millis("defer delay", delay, maxDelayMs)
	cReason := args.str("defer reason", reason)
	if args.err != nil {
		return args.err
	}
	return call(func(e **C.qy_error) C.qy_status { return C.qy_job_set_defer(job, C.uint64_t(ms), cReason, e) })
}
