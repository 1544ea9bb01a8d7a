package queuey

// #include <queuey/queuey.h>
// #include "trampolines.h"
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"
	"unsafe"
)

// QueueCounts is what a passive declare tells of a queue: the messages ready to be
// delivered and its consumers. AMQP has no count of the delivered, unacknowledged ones.
type QueueCounts struct {
	Ready     uint64
	Consumers uint32
}

// QueueCounts counts any queue by its full name (a work queue q, q.dead, a hold queue
// q.deferred.N). A queue that does not exist fails with ErrNotFound, naming it. If ctx
// ends first, it returns ctx's error and the count that goes on is dropped; a ctx that
// has ended counts nothing.
func (c *Client) QueueCounts(ctx context.Context, queueName string) (QueueCounts, error) {
	return await(ctx, func() (QueueCounts, error) {
		var args cArgs
		defer args.free()
		cName := args.str("queue_name", queueName)
		if args.err != nil {
			return QueueCounts{}, args.err
		}
		var ready C.uint64_t
		var consumers C.uint32_t
		err := c.h.use(func(p *C.qy_client) error {
			return call(func(err **C.qy_error) C.qy_status {
				return C.qy_client_queue_counts(p, cName, &ready, &consumers, err)
			})
		})
		return QueueCounts{Ready: uint64(ready), Consumers: uint32(consumers)}, err
	}, nil)
}

// MessageFilter selects the messages of a browse, a replay or a purge: every criterion
// set must hold. A zero field is not set; a nil or zero filter selects every message.
type MessageFilter struct {
	JobIDs         []string      // the jobs whose id is any of these
	JobType        string        // the jobs of this type
	ReasonContains string        // the dead letters whose reason contains this text
	OlderThan      time.Duration // the jobs first enqueued at least this long ago
}

// copied is a copy of filter (nil for nil) that the caller's later changes to filter do
// not reach: a call that ctx abandons goes on with it.
func (filter *MessageFilter) copied() *MessageFilter {
	if filter == nil {
		return nil
	}
	c := *filter
	c.JobIDs = append([]string(nil), filter.JobIDs...)
	return &c
}

// withMessageFilter runs f with the C filter of filter (NULL for nil), freed afterwards.
func withMessageFilter(filter *MessageFilter, f func(cf *C.qy_message_filter) error) error {
	if filter == nil {
		return f(nil)
	}
	var args cArgs
	defer args.free()
	ids := make([]*C.char, len(filter.JobIDs))
	for i, id := range filter.JobIDs {
		ids[i] = args.str("job_id", id)
	}
	var cType, cReason *C.char
	if filter.JobType != "" {
		cType = args.str("job_type", filter.JobType)
	}
	if filter.ReasonContains != "" {
		cReason = args.str("reason_contains", filter.ReasonContains)
	}
	age := args.millis("older_than", filter.OlderThan, math.MaxUint64)
	if args.err != nil {
		return args.err
	}
	var cf *C.qy_message_filter
	if err := call(func(err **C.qy_error) C.qy_status { return C.qy_message_filter_new(&cf, err) }); err != nil {
		return err
	}
	defer C.qy_message_filter_free(cf)
	setters := make([]func(err **C.qy_error) C.qy_status, 0, len(ids)+3)
	for _, id := range ids {
		setters = append(setters, func(err **C.qy_error) C.qy_status { return C.qy_message_filter_add_job_id(cf, id, err) })
	}
	if cType != nil {
		setters = append(setters, func(err **C.qy_error) C.qy_status { return C.qy_message_filter_set_job_type(cf, cType, err) })
	}
	if cReason != nil {
		setters = append(setters, func(err **C.qy_error) C.qy_status {
			return C.qy_message_filter_set_reason_contains(cf, cReason, err)
		})
	}
	if filter.OlderThan != 0 {
		setters = append(setters, func(err **C.qy_error) C.qy_status {
			return C.qy_message_filter_set_older_than_ms(cf, C.uint64_t(age), err)
		})
	}
	for _, set := range setters {
		if err := call(set); err != nil {
			return err
		}
	}
	return f(cf)
}

// Message is a message that Browse saw, copied out of the queue. A dead letter carries
// its Reason and OriginalQueue (else "" and the envelope's queue). A body that is not an
// envelope (a malformed dead letter) has a nil Envelope and says why in DecodeError; its
// JobID and JobType are then the AMQP message-id and type. Headers holds every AMQP
// header as encoding/json decodes the library's JSON of them (numbers are float64,
// RabbitMQ's x-death a []any of map[string]any).
type Message struct {
	JobID         string
	JobType       string
	Attempt       uint32
	Reason        string
	OriginalQueue string
	Redelivered   bool
	Envelope      *Envelope // a copy of its own (Close it, or leave it to the finalizer); nil when DecodeError says why
	DecodeError   string
	Headers       map[string]any
	Body          []byte
}

// browseState is what one Browse collects; C reaches it through a cgo handle.
type browseState struct {
	messages []Message
	err      error // the first failure to copy a message; it stops the browse
}

// visit is called by C, inside the browse call and on the goroutine making it, for each
// message.
func (b *browseState) visit(m *C.qy_message) (stop C.int) {
	defer func() {
		if p := recover(); p != nil { // a panic must not unwind into C
			b.err, stop = fmt.Errorf("copying a browsed message panicked: %v", p), 1
		}
	}()
	msg, err := copyMessage(m)
	if err != nil {
		b.err = err
		return 1
	}
	b.messages = append(b.messages, msg)
	return 0
}

func copyMessage(m *C.qy_message) (Message, error) {
	msg := Message{
		JobID:         C.GoString(C.qy_message_job_id(m)),
		JobType:       C.GoString(C.qy_message_job_type(m)),
		Attempt:       uint32(C.qy_message_attempt(m)),
		Reason:        C.GoString(C.qy_message_reason(m)),
		OriginalQueue: C.GoString(C.qy_message_original_queue(m)),
		Redelivered:   C.qy_message_redelivered(m) != 0,
		DecodeError:   C.GoString(C.qy_message_decode_error(m)),
	}
	var n C.size_t
	body := C.qy_message_body(m, &n)
	msg.Body = C.GoBytes(unsafe.Pointer(body), C.int(n))
	if err := json.Unmarshal([]byte(C.GoString(C.qy_message_headers_json(m))), &msg.Headers); err != nil {
		return Message{}, fmt.Errorf("the headers of message %s: %w", msg.JobID, err)
	}
	if env := C.qy_message_envelope(m); env != nil {
		copied, err := copyEnvelope(env)
		if err != nil {
			return Message{}, err
		}
		msg.Envelope = copied
	}
	return msg, nil
}

// Browse returns copies of the messages of any queue (a work queue, q.dead) that filter
// (nil: every one) selects, in delivery order, at most limit of them (0: no limit).
// Nothing is removed, but the broker marks them redelivered: on a work queue that a
// worker consumes, a browsed job that it receives next counts as one lost run, and the
// jobs a browse holds are not delivered while it lasts. Browse a dead-letter queue
// freely, a busy work queue with a limit. Errors: ErrNotFound, ErrTimeout,
// ErrConnection. If ctx ends first, it returns ctx's error and the browse goes on (the
// messages it holds are given back when it ends), its copies dropped; a ctx that has
// ended browses nothing.
func (c *Client) Browse(ctx context.Context, queueName string, filter *MessageFilter, limit int) ([]Message, error) {
	filter = filter.copied()
	return await(ctx, func() ([]Message, error) {
		if limit < 0 {
			return nil, invalid("limit", "is negative")
		}
		var args cArgs
		defer args.free()
		cName := args.str("queue_name", queueName)
		if args.err != nil {
			return nil, args.err
		}
		state := &browseState{}
		userData := newUserData(state)
		defer C.queuey_release(userData)
		err := c.h.use(func(p *C.qy_client) error {
			return withMessageFilter(filter, func(cf *C.qy_message_filter) error {
				return call(func(err **C.qy_error) C.qy_status {
					return C.qy_client_browse(p, cName, cf, C.size_t(limit),
						C.qy_message_visit_fn(C.queuey_visit_message), userData, err)
				})
			})
		})
		if state.err == nil {
			state.err = err
		}
		if state.err != nil {
			closeMessages(state.messages)
			return nil, state.err
		}
		return state.messages, nil
	}, closeMessages)
}

// closeMessages frees the envelopes of messages that nobody will take.
func closeMessages(messages []Message) {
	for _, m := range messages {
		if m.Envelope != nil {
			m.Envelope.Close()
		}
	}
}

// ReplayDeadLetters puts the dead letters of queue (the work queue's name; they are in
// queue.dead) that filter (nil: all) selects back on their original queue: as attempt 1
// with no deferrals, or as they are with keepAttempt, and returns how many were, also
// with an error. When some could not be (a body that is no envelope: ErrBadEnvelope; an
// original queue that is gone: ErrUnroutable; the errors of Enqueue), the others still
// went and those stay in queue.dead; the error is the first failure's. If ctx ends
// first, it returns 0 and ctx's error, and the replay goes on: the letters may or may
// not all be replayed; a ctx that has ended replays none.
func (c *Client) ReplayDeadLetters(ctx context.Context, queue string, filter *MessageFilter, keepAttempt bool) (int, error) {
	keep := C.int(0)
	if keepAttempt {
		keep = 1
	}
	return c.walkDeadLetters(ctx, queue, filter, func(p *C.qy_client, q *C.char, cf *C.qy_message_filter, done *C.uint64_t, err **C.qy_error) C.qy_status {
		return C.qy_client_replay_dead_letters(p, q, cf, keep, done, err)
	})
}

// PurgeDeadLetters removes the dead letters of queue (as ReplayDeadLetters) that filter
// (nil: all) selects for good, and returns how many were, also with an error. If ctx
// ends first, it returns 0 and ctx's error, and the purge goes on: the letters may or
// may not all be removed; a ctx that has ended removes none.
func (c *Client) PurgeDeadLetters(ctx context.Context, queue string, filter *MessageFilter) (int, error) {
	return c.walkDeadLetters(ctx, queue, filter, func(p *C.qy_client, q *C.char, cf *C.qy_message_filter, done *C.uint64_t, err **C.qy_error) C.qy_status {
		return C.qy_client_purge_dead_letters(p, q, cf, done, err)
	})
}

// walkDeadLetters runs a replay or purge, f, and returns the count it filled (also on
// failure) with its error, or ctx's error when ctx ends first.
func (c *Client) walkDeadLetters(ctx context.Context, queue string, filter *MessageFilter,
	f func(p *C.qy_client, q *C.char, cf *C.qy_message_filter, done *C.uint64_t, err **C.qy_error) C.qy_status) (int, error) {
	filter = filter.copied()
	return await(ctx, func() (int, error) {
		var args cArgs
		defer args.free()
		cQueue := args.str("queue", queue)
		if args.err != nil {
			return 0, args.err
		}
		var done C.uint64_t
		err := c.h.use(func(p *C.qy_client) error {
			return withMessageFilter(filter, func(cf *C.qy_message_filter) error {
				return call(func(err **C.qy_error) C.qy_status { return f(p, cQueue, cf, &done, err) })
			})
		})
		return int(done), err
	}, nil)
}
