package queuey

// #include <queuey/queuey.h>
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"time"
)

// Producer puts jobs on declared queues. Every publish waits for the broker's confirm:
// a nil error means the broker has the job. Safe for use by many goroutines at once.
type Producer struct {
	h      handle[*C.qy_producer]
	client *Client // kept alive: the producer works through it
}

// NewProducer is a producer on the client. If ctx ends first, it returns ctx's error and
// the producer still being made is freed once it is; a ctx that has ended makes none.
func (c *Client) NewProducer(ctx context.Context) (*Producer, error) {
	p, err := await(ctx, func() (*C.qy_producer, error) {
		var p *C.qy_producer
		err := c.h.use(func(client *C.qy_client) error {
			return call(func(err **C.qy_error) C.qy_status { return C.qy_producer_new(client, &p, err) })
		})
		return p, err
	}, func(p *C.qy_producer) { C.qy_producer_free(p) })
	if err != nil {
		return nil, err
	}
	pr := &Producer{client: c}
	pr.h.own("producer", p)
	runtime.SetFinalizer(pr, (*Producer).Close)
	return pr, nil
}

// Close frees the producer. Idempotent.
func (pr *Producer) Close() error {
	pr.h.release(func(p *C.qy_producer) { C.qy_producer_free(p) })
	return nil
}

// EnqueueOption adds to a job that is enqueued.
type EnqueueOption func(*enqueueOptions)

type enqueueOptions struct {
	correlationID string
}

// WithCorrelationID gives the job a correlation id, which queuey carries but never
// interprets ("": none).
func WithCorrelationID(id string) EnqueueOption {
	return func(o *enqueueOptions) { o.correlationID = id }
}

// Enqueue publishes a new job of jobType to queue and returns its job id. payload is
// JSON text as []byte or json.RawMessage, or any value for encoding/json. Errors:
// ErrUnroutable (no such queue), ErrNacked, ErrTimeout, ErrConnection, ErrClosed, and
// ErrInvalidArgument / ErrBadJSON for bad input. If ctx ends first, the publish goes on
// and may or may not succeed.
func (pr *Producer) Enqueue(ctx context.Context, queue, jobType string, payload any, opts ...EnqueueOption) (string, error) {
	return pr.publish(ctx, queue, jobType, payload, opts, func(p *C.qy_producer, env *C.qy_envelope, err **C.qy_error) C.qy_status {
		return C.qy_producer_enqueue(p, env, err)
	})
}

// EnqueueAfter is Enqueue for a job that arrives in the queue after delay (rounded up
// to the queue's granularity, at most 2147483647 ms). The queue must have been declared
// by this client.
func (pr *Producer) EnqueueAfter(ctx context.Context, delay time.Duration, queue, jobType string, payload any, opts ...EnqueueOption) (string, error) {
	return pr.publishDelayed(ctx, delay, queue, jobType, payload, opts, func(p *C.qy_producer, env *C.qy_envelope, ms C.uint64_t, err **C.qy_error) C.qy_status {
		return C.qy_producer_enqueue_after(p, env, ms, err)
	})
}

// Defer is EnqueueAfter at the queue's max priority: after the delay the job goes ahead
// of the backlog.
func (pr *Producer) Defer(ctx context.Context, delay time.Duration, queue, jobType string, payload any, opts ...EnqueueOption) (string, error) {
	return pr.publishDelayed(ctx, delay, queue, jobType, payload, opts, func(p *C.qy_producer, env *C.qy_envelope, ms C.uint64_t, err **C.qy_error) C.qy_status {
		return C.qy_producer_defer(p, env, ms, err)
	})
}

func (pr *Producer) publishDelayed(ctx context.Context, delay time.Duration, queue, jobType string, payload any, opts []EnqueueOption,
	send func(p *C.qy_producer, env *C.qy_envelope, ms C.uint64_t, err **C.qy_error) C.qy_status) (string, error) {
	var args cArgs
	ms := C.uint64_t(args.millis("delay", delay, maxDelayMs))
	if args.err != nil {
		return "", args.err
	}
	return pr.publish(ctx, queue, jobType, payload, opts, func(p *C.qy_producer, env *C.qy_envelope, err **C.qy_error) C.qy_status {
		return send(p, env, ms, err)
	})
}

// publish makes the envelope, sends it with send and returns its job id.
func (pr *Producer) publish(ctx context.Context, queue, jobType string, payload any, opts []EnqueueOption,
	send func(p *C.qy_producer, env *C.qy_envelope, err **C.qy_error) C.qy_status) (string, error) {
	var o enqueueOptions
	for _, opt := range opts {
		opt(&o)
	}
	env, err := newCEnvelope(jobType, queue, payload, o.correlationID)
	if err != nil {
		return "", err
	}
	id := C.GoString(C.qy_envelope_job_id(env))
	return await(ctx, func() (string, error) {
		defer C.qy_envelope_free(env)
		return id, pr.h.use(func(p *C.qy_producer) error {
			return call(func(err **C.qy_error) C.qy_status { return send(p, env, err) })
		})
	}, nil)
}

// BatchItem is one job of EnqueueBatch.
type BatchItem struct {
	Queue         string
	Type          string
	Payload       any    // as for Enqueue
	CorrelationID string // "": none
}

// BatchResult is what became of one BatchItem: its job id, and its own error.
type BatchResult struct {
	ID  string
	Err error
}

// EnqueueBatch publishes the items with many in flight at once and waits for every
// confirm. Each result says what became of its item: one the broker returned fails
// alone. The error is nil when all succeeded, else the first failure (saying how many
// failed). An item that cannot be made into an envelope fails the call before anything
// is published.
func (pr *Producer) EnqueueBatch(ctx context.Context, items []BatchItem) ([]BatchResult, error) {
	envs := make([]*C.qy_envelope, len(items))
	free := func() {
		for _, env := range envs {
			C.qy_envelope_free(env)
		}
	}
	results := make([]BatchResult, len(items))
	for i, item := range items {
		env, err := newCEnvelope(item.Type, item.Queue, item.Payload, item.CorrelationID)
		if err != nil {
			free()
			return nil, fmt.Errorf("batch item %d: %w", i, err)
		}
		envs[i] = env
		results[i].ID = C.GoString(C.qy_envelope_job_id(env))
	}
	if len(items) == 0 {
		return results, nil
	}
	return await(ctx, func() ([]BatchResult, error) {
		defer free()
		statuses := make([]C.qy_status, len(items))
		err := pr.h.use(func(p *C.qy_producer) error {
			return call(func(err **C.qy_error) C.qy_status {
				return C.qy_producer_enqueue_batch(p, &envs[0], C.size_t(len(envs)), &statuses[0], err)
			})
		})
		failed := 0
		for i, status := range statuses {
			if status != C.QY_OK {
				results[i].Err = &Error{Status: Status(status), Message: fmt.Sprintf("batch item %d failed", i)}
				failed++
			}
		}
		if err != nil && failed == 0 { // the call failed as a whole (a closed producer)
			for i := range results {
				results[i].Err = err
			}
		}
		return results, err
	}, nil)
}
