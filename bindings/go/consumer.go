package queuey

// #include <queuey/queuey.h>
import "C"

import (
	"context"
	"runtime"
	"time"
)

// Consumer receives the jobs of one declared queue, for code that settles them itself
// (a Worker does all of this for you). Use it from one goroutine at a time.
type Consumer struct {
	h      handle[*C.qy_consumer]
	client *Client
}

// NewConsumer subscribes to queue, which this client must have declared.
func (c *Client) NewConsumer(ctx context.Context, queue string) (*Consumer, error) {
	p, err := await(ctx, func() (*C.qy_consumer, error) {
		var args cArgs
		defer args.free()
		cQueue := args.str("queue", queue)
		if args.err != nil {
			return nil, args.err
		}
		var p *C.qy_consumer
		err := c.h.use(func(client *C.qy_client) error {
			return call(func(err **C.qy_error) C.qy_status { return C.qy_consumer_new(client, cQueue, &p, err) })
		})
		return p, err
	}, func(p *C.qy_consumer) { C.qy_consumer_free(p) })
	if err != nil {
		return nil, err
	}
	co := &Consumer{client: c}
	co.h.own("consumer", p)
	runtime.SetFinalizer(co, (*Consumer).Close)
	return co, nil
}

// Close cancels the subscription; its unsettled deliveries go back to the queue.
func (co *Consumer) Close() error {
	co.h.release(func(p *C.qy_consumer) { C.qy_consumer_free(p) })
	return nil
}

// Next waits for the next job until ctx ends, and then returns ctx's error. A body that
// is not a valid envelope never comes out here: it is dead-lettered as "malformed
// envelope".
func (co *Consumer) Next(ctx context.Context) (*Delivery, error) {
	for {
		ms, ok := pollSlice(ctx)
		if !ok {
			return nil, ctx.Err()
		}
		var d *C.qy_delivery
		if err := co.h.use(func(p *C.qy_consumer) error {
			return call(func(err **C.qy_error) C.qy_status { return C.qy_consumer_next(p, C.uint32_t(ms), &d, err) })
		}); err != nil {
			return nil, err
		}
		if d != nil {
			return newDelivery(co, d)
		}
	}
}

// Delivery is one received job; settle it exactly once (Ack, Retry, Defer or
// DeadLetter), from any goroutine. Closing one that was not settled puts the job back.
type Delivery struct {
	h        handle[*C.qy_delivery]
	consumer *Consumer
	envelope *Envelope
}

func newDelivery(co *Consumer, p *C.qy_delivery) (*Delivery, error) {
	d := &Delivery{consumer: co}
	d.h.own("delivery", p)
	runtime.SetFinalizer(d, (*Delivery).Close)
	// A copy, so that the envelope has a lifetime of its own.
	env, err := copyEnvelope(C.qy_delivery_envelope(p))
	if err != nil {
		d.Close()
		return nil, err
	}
	d.envelope = env
	return d, nil
}

// Envelope is the delivered job (a copy, the caller's).
func (d *Delivery) Envelope() *Envelope {
	return d.envelope
}

// Redelivered says that the broker delivered this job before, to a consumer that did
// not settle it.
func (d *Delivery) Redelivered() bool {
	return read(&d.h, func(p *C.qy_delivery) bool { return C.qy_delivery_redelivered(p) != 0 })
}

// Ack acknowledges: the job is done.
func (d *Delivery) Ack(ctx context.Context) error {
	return awaitErr(ctx, func() error {
		return d.call(func(p *C.qy_delivery, err **C.qy_error) C.qy_status { return C.qy_delivery_ack(p, err) })
	})
}

// Retry publishes next (usually Envelope().NextAttempt()) to arrive after delay, waits
// for the confirm and only then acknowledges: if the publish fails, the job is
// redelivered, never lost.
func (d *Delivery) Retry(ctx context.Context, next *Envelope, delay time.Duration) error {
	return d.settleWith(ctx, next, delay, func(p *C.qy_delivery, env *C.qy_envelope, ms C.uint64_t, err **C.qy_error) C.qy_status {
		return C.qy_delivery_retry(p, env, ms, err)
	})
}

// Defer is Retry for a deferral (next from Envelope().Deferred(the queue's max priority)).
func (d *Delivery) Defer(ctx context.Context, next *Envelope, delay time.Duration) error {
	return d.settleWith(ctx, next, delay, func(p *C.qy_delivery, env *C.qy_envelope, ms C.uint64_t, err **C.qy_error) C.qy_status {
		return C.qy_delivery_defer(p, env, ms, err)
	})
}

// DeadLetter publishes the job to the dead-letter queue with x-death-reason = reason,
// waits for the confirm, then acknowledges.
func (d *Delivery) DeadLetter(ctx context.Context, reason string) error {
	return awaitErr(ctx, func() error {
		var args cArgs
		defer args.free()
		cReason := args.str("reason", reason)
		if args.err != nil {
			return args.err
		}
		return d.call(func(p *C.qy_delivery, err **C.qy_error) C.qy_status {
			return C.qy_delivery_dead_letter(p, cReason, err)
		})
	})
}

func (d *Delivery) settleWith(ctx context.Context, next *Envelope, delay time.Duration,
	f func(p *C.qy_delivery, env *C.qy_envelope, ms C.uint64_t, err **C.qy_error) C.qy_status) error {
	var args cArgs
	ms := C.uint64_t(args.millis("delay", delay, maxDelayMs))
	if args.err != nil {
		return args.err
	}
	if next == nil {
		return invalid("next", "is nil")
	}
	return awaitErr(ctx, func() error {
		return next.h.use(func(env *C.qy_envelope) error {
			return d.call(func(p *C.qy_delivery, err **C.qy_error) C.qy_status { return f(p, env, ms, err) })
		})
	})
}

func (d *Delivery) call(f func(p *C.qy_delivery, err **C.qy_error) C.qy_status) error {
	return d.h.use(func(p *C.qy_delivery) error {
		return call(func(err **C.qy_error) C.qy_status { return f(p, err) })
	})
}

// Close frees the delivery; one that was not settled goes back to its queue.
func (d *Delivery) Close() error {
	d.h.release(func(p *C.qy_delivery) { C.qy_delivery_free(p) })
	return nil
}
