package queuey

// #include <queuey/queuey.h>
import "C"

import (
	"context"
	"errors"
)

// MemoryCount is what Client.MemoryCount counts on a memory:// client.
type MemoryCount int

// The counts of a memory:// client.
const (
	MemoryPending      MemoryCount = C.QY_MEMORY_PENDING       // waiting in the queue
	MemoryInFlight     MemoryCount = C.QY_MEMORY_IN_FLIGHT     // delivered, not settled
	MemoryHeld         MemoryCount = C.QY_MEMORY_HELD          // waiting for their delay
	MemoryAcked        MemoryCount = C.QY_MEMORY_ACKED         // acknowledged so far
	MemoryRetried      MemoryCount = C.QY_MEMORY_RETRIED       // retries published so far
	MemoryDeferred     MemoryCount = C.QY_MEMORY_DEFERRED      // deferrals published so far
	MemoryDeadLettered MemoryCount = C.QY_MEMORY_DEAD_LETTERED // dead-lettered so far
)

// MemoryCount counts `what` for queue ("": every declared queue, dead-letter queues
// not included) on a memory:// client; other clients fail with ErrUnsupported.
func (c *Client) MemoryCount(queue string, what MemoryCount) (uint64, error) {
	var args cArgs
	defer args.free()
	var cQueue *C.char
	if queue != "" {
		cQueue = args.str("queue", queue)
	}
	if args.err != nil {
		return 0, args.err
	}
	var n C.uint64_t
	err := c.h.use(func(p *C.qy_client) error {
		return call(func(err **C.qy_error) C.qy_status {
			return C.qy_client_memory_count(p, cQueue, C.qy_memory_count(what), &n, err)
		})
	})
	return uint64(n), err
}

// MemoryDeadLetter is the index-th job dead-lettered on a memory:// client (0 is the
// first) and its reason. An index past the end fails with ErrInvalidArgument.
func (c *Client) MemoryDeadLetter(index int) (*Envelope, string, error) {
	if index < 0 {
		return nil, "", invalid("index", "is negative")
	}
	var env *C.qy_envelope
	var reason *C.char
	if err := c.h.use(func(p *C.qy_client) error {
		return call(func(err **C.qy_error) C.qy_status {
			return C.qy_client_memory_dead_letter(p, C.size_t(index), &env, &reason, err)
		})
	}); err != nil {
		return nil, "", err
	}
	defer C.qy_string_free(reason)
	return wrapEnvelope(env), C.GoString(reason), nil
}

// MemoryWaitIdle waits until nothing is pending, held or in flight on a memory://
// client, or until ctx ends (then it returns ctx's error).
func (c *Client) MemoryWaitIdle(ctx context.Context) error {
	for {
		ms, ok := pollSlice(ctx)
		if !ok {
			return ctx.Err()
		}
		err := c.h.use(func(p *C.qy_client) error {
			return call(func(err **C.qy_error) C.qy_status { return C.qy_client_memory_wait_idle(p, C.uint32_t(ms), err) })
		})
		if err == nil || !errors.Is(err, ErrTimeout) {
			return err
		}
	}
}
