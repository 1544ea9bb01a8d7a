package queuey

// #include <queuey/queuey.h>
// #include "trampolines.h"
import "C"

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"time"
)

// Handler runs one job. nil acknowledges it; Retry(err) or any other error is
// retryable; Fatal(err) and Undecodable(err) dead-letter it; Defer(delay, reason)
// puts it back for later. A panic counts as a retryable error. Handlers run on the
// worker's threads, several at once. ctx carries the values of Run's ctx, is not
// cancelled by a graceful shutdown (received jobs still run), and ends at the job
// timeout when the worker has one.
type Handler func(ctx context.Context, job *Job) error

// Worker runs jobs: it consumes queues, routes each job on its type to the handler
// registered for it, and settles it by the handler's result. Configure and register
// before Run.
type Worker struct {
	h      handle[*C.qy_worker]
	client *Client
	shared *workerShared
}

// workerShared is what handlers need of their worker. It does not point back to the
// Worker: the cgo handles of the handlers would otherwise keep it from its finalizer.
type workerShared struct {
	base       atomic.Pointer[context.Context] // Run's ctx without its cancellation
	jobTimeout atomic.Int64                    // nanoseconds, 0: none
}

// NewWorker is a worker for queues, each declared with Declare before Run.
func (c *Client) NewWorker(queues ...string) (*Worker, error) {
	var args cArgs
	defer args.free()
	cQueues := make([]*C.char, len(queues))
	for i, q := range queues {
		cQueues[i] = args.str("queue", q)
	}
	if args.err != nil {
		return nil, args.err
	}
	if len(queues) == 0 {
		return nil, invalid("queues", "none given")
	}
	var p *C.qy_worker
	if err := c.h.use(func(client *C.qy_client) error {
		return call(func(err **C.qy_error) C.qy_status {
			return C.qy_worker_new(client, &cQueues[0], C.size_t(len(cQueues)), &p, err)
		})
	}); err != nil {
		return nil, err
	}
	w := &Worker{client: c, shared: &workerShared{}}
	w.h.own("worker", p)
	runtime.SetFinalizer(w, (*Worker).Close)
	return w, nil
}

func (w *Worker) call(f func(p *C.qy_worker, err **C.qy_error) C.qy_status) error {
	return w.h.use(func(p *C.qy_worker) error {
		return call(func(err **C.qy_error) C.qy_status { return f(p, err) })
	})
}

// Handle registers the handler of jobType. A second handler for the same type fails
// with ErrInvalidArgument.
func (w *Worker) Handle(jobType string, fn Handler) error {
	return w.handle(jobType, fn, nil)
}

// HandleWithRetry is Handle with a retry policy of the handler's own (see Worker's
// precedence of policies in queuey.h).
func (w *Worker) HandleWithRetry(jobType string, policy RetryPolicy, fn Handler) error {
	return w.handle(jobType, fn, &policy)
}

type registration struct {
	fn     Handler
	shared *workerShared
}

func (w *Worker) handle(jobType string, fn Handler, policy *RetryPolicy) error {
	if fn == nil {
		return invalid("handler", "is nil")
	}
	var args cArgs
	defer args.free()
	cType := args.str("job type", jobType)
	if args.err != nil {
		return args.err
	}
	return withPolicy(policy, func(cp *C.qy_retry_policy) error {
		return w.call(func(p *C.qy_worker, err **C.qy_error) C.qy_status {
			// The worker frees the user data, also when the registration fails.
			return C.qy_worker_register(p, cType, C.qy_handler_fn(C.queuey_run_handler),
				newUserData(&registration{fn, w.shared}), C.qy_destroy_fn(C.queuey_release), cp, err)
		})
	})
}

// run is called by C on a worker thread for one job.
func (r *registration) run(cjob *C.qy_job) C.qy_job_result {
	job := newJob(C.qy_job_envelope(cjob))
	job.h.own("job", cjob)
	defer job.h.release(func(*C.qy_job) {}) // C owns the job; later calls fail with ErrClosed
	ctx, cancel := r.shared.jobContext()
	defer cancel()
	return settleJob(cjob, r.call(ctx, job))
}

func (r *registration) call(ctx context.Context, job *Job) (err error) {
	defer func() {
		if p := recover(); p != nil { // a panic must not unwind into C
			err = fmt.Errorf("the handler panicked: %v", p)
			// The x-exception header, should this run end dead-lettered: the panic's
			// value and the goroutine's stack where it panicked.
			_ = job.SetException(fmt.Sprintf("panic(%T)", p), fmt.Sprintf("%v\n\n%s", p, debug.Stack()))
		}
	}()
	return r.fn(ctx, job)
}

func (s *workerShared) jobContext() (context.Context, context.CancelFunc) {
	ctx := context.Background()
	if base := s.base.Load(); base != nil {
		ctx = *base
	}
	if timeout := s.jobTimeout.Load(); timeout > 0 {
		return context.WithTimeout(ctx, time.Duration(timeout))
	}
	return ctx, func() {}
}

// SetConcurrency sets how many jobs run at once, each on a thread of its own; 0 (the
// default): the sum of the queues' prefetch.
func (w *Worker) SetConcurrency(n int) error {
	if n < 0 || int64(n) > maxUint32Ms {
		return invalid("concurrency", fmt.Sprintf("%d is out of range", n))
	}
	return w.call(func(p *C.qy_worker, err **C.qy_error) C.qy_status {
		return C.qy_worker_set_concurrency(p, C.uint32_t(n), err)
	})
}

// SetMaxLostRuns sets how often a job may be lost (redelivered after its worker went
// away mid-run) before it is dead-lettered, for queues that set no budget of their own
// (QueueConfig.MaxLostRuns); default 3, at least 1.
func (w *Worker) SetMaxLostRuns(n int) error {
	if n < 1 || int64(n) > maxUint32Ms {
		return invalid("max_lost_runs", fmt.Sprintf("%d is out of range 1..%d", n, maxUint32Ms))
	}
	return w.call(func(p *C.qy_worker, err **C.qy_error) C.qy_status {
		return C.qy_worker_set_max_lost_runs(p, C.uint32_t(n), err)
	})
}

// ShutdownOnSignals makes SIGINT and SIGTERM shut the worker down gracefully, through
// the C library's own signal handlers (qy_worker_shutdown_on_signals): Run returns once
// what the worker received is settled; a second signal ends the process. Go's os/signal
// then no longer sees those two signals; the usual Go way, which keeps it, is
// Run(ctx) with ctx from signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM).
func (w *Worker) ShutdownOnSignals() error {
	return w.call(func(p *C.qy_worker, err **C.qy_error) C.qy_status {
		return C.qy_worker_shutdown_on_signals(p, err)
	})
}

// SetJobTimeout makes a job that runs longer than d count as a retryable error ("job
// timed out after ..."); 0 (the default): no limit. The handler's ctx ends then too.
func (w *Worker) SetJobTimeout(d time.Duration) error {
	var args cArgs
	ms := args.millis("job timeout", d, maxUint32Ms)
	if args.err != nil {
		return args.err
	}
	if err := w.call(func(p *C.qy_worker, err **C.qy_error) C.qy_status {
		return C.qy_worker_set_job_timeout_ms(p, C.uint32_t(ms), err)
	}); err != nil {
		return err
	}
	w.shared.jobTimeout.Store(int64(time.Duration(ms) * time.Millisecond))
	return nil
}

// SetDefaultRetry sets the policy for when nothing more specific applies (default: one
// attempt, no retries).
func (w *Worker) SetDefaultRetry(policy RetryPolicy) error {
	return withPolicy(&policy, func(cp *C.qy_retry_policy) error {
		return w.call(func(p *C.qy_worker, err **C.qy_error) C.qy_status {
			return C.qy_worker_set_default_retry(p, cp, err)
		})
	})
}

// SetJobTypeRetry overrides the retry policy for one job type.
func (w *Worker) SetJobTypeRetry(jobType string, policy RetryPolicy) error {
	return w.setNamedRetry("job type", jobType, policy, func(p *C.qy_worker, name *C.char, cp *C.qy_retry_policy, err **C.qy_error) C.qy_status {
		return C.qy_worker_set_job_type_retry(p, name, cp, err)
	})
}

// SetQueueRetry overrides the retry policy for one queue.
func (w *Worker) SetQueueRetry(queue string, policy RetryPolicy) error {
	return w.setNamedRetry("queue", queue, policy, func(p *C.qy_worker, name *C.char, cp *C.qy_retry_policy, err **C.qy_error) C.qy_status {
		return C.qy_worker_set_queue_retry(p, name, cp, err)
	})
}

func (w *Worker) setNamedRetry(argument, name string, policy RetryPolicy,
	f func(p *C.qy_worker, name *C.char, cp *C.qy_retry_policy, err **C.qy_error) C.qy_status) error {
	var args cArgs
	defer args.free()
	cName := args.str(argument, name)
	if args.err != nil {
		return args.err
	}
	return withPolicy(&policy, func(cp *C.qy_retry_policy) error {
		return w.call(func(p *C.qy_worker, err **C.qy_error) C.qy_status { return f(p, cName, cp, err) })
	})
}

type deadLetterHook struct {
	fn func(job *Job, reason string)
}

func (h *deadLetterHook) call(env *C.qy_envelope, reason *C.char) {
	defer func() { _ = recover() }() // a panic must not unwind into C; the job is dead-lettered anyway
	h.fn(newJob(env), C.GoString(reason))
}

// OnDeadLetter sets a hook called before each dead-lettering, with the job and the
// reason, on the thread that settles it. At least once per dead letter; it cannot stop
// it.
func (w *Worker) OnDeadLetter(fn func(job *Job, reason string)) error {
	if fn == nil {
		return invalid("dead-letter hook", "is nil")
	}
	return w.call(func(p *C.qy_worker, err **C.qy_error) C.qy_status {
		return C.qy_worker_set_dead_letter_hook(p, C.qy_dead_letter_fn(C.queuey_dead_letter),
			newUserData(&deadLetterHook{fn}), C.qy_destroy_fn(C.queuey_release), err)
	})
}

// Run runs the worker until ctx ends or Shutdown is called, then shuts down gracefully:
// it stops receiving, runs and settles the jobs it had received, and returns nil. It
// fails when it cannot consume (a queue not declared, the connection closed or given
// up). With ctx from signal.NotifyContext, call context.AfterFunc(ctx, stop) so that a
// second signal ends the process at once (examples/go/worker).
func (w *Worker) Run(ctx context.Context) error {
	base := context.WithoutCancel(ctx)
	w.shared.base.Store(&base)
	stop := context.AfterFunc(ctx, w.Shutdown)
	defer stop()
	return w.call(func(p *C.qy_worker, err **C.qy_error) C.qy_status { return C.qy_worker_run(p, err) })
}

// Shutdown asks the worker to stop as Run does when its ctx ends. Idempotent; from any
// goroutine, a handler included; before Run too (which then returns at once).
func (w *Worker) Shutdown() {
	_ = w.h.use(func(p *C.qy_worker) error {
		C.qy_worker_shutdown(p)
		return nil
	})
}

// Counter is one of the counts that Worker.Counter reads.
type Counter int

// The counters of a worker.
const (
	CounterSucceeded               Counter = C.QY_COUNTER_SUCCEEDED
	CounterRetried                 Counter = C.QY_COUNTER_RETRIED
	CounterDeferred                Counter = C.QY_COUNTER_DEFERRED
	CounterDeadLetteredFatal       Counter = C.QY_COUNTER_DEAD_LETTERED_FATAL
	CounterDeadLetteredExhausted   Counter = C.QY_COUNTER_DEAD_LETTERED_EXHAUSTED
	CounterDeadLetteredUnknownType Counter = C.QY_COUNTER_DEAD_LETTERED_UNKNOWN_TYPE
	CounterDeadLetteredUndecodable Counter = C.QY_COUNTER_DEAD_LETTERED_UNDECODABLE
	CounterTimedOut                Counter = C.QY_COUNTER_TIMED_OUT
	CounterWorkerLost              Counter = C.QY_COUNTER_WORKER_LOST
	CounterSettleFailures          Counter = C.QY_COUNTER_SETTLE_FAILURES
	CounterInFlight                Counter = C.QY_COUNTER_IN_FLIGHT
	CounterDeadLetteredLost        Counter = C.QY_COUNTER_DEAD_LETTERED_LOST
	CounterDeadLetteredMalformed   Counter = C.QY_COUNTER_DEAD_LETTERED_MALFORMED
	CounterDroppedMalformed        Counter = C.QY_COUNTER_DROPPED_MALFORMED
	CounterParked                  Counter = C.QY_COUNTER_PARKED
	CounterDuplicateFires          Counter = C.QY_COUNTER_DUPLICATE_FIRES
)

// Counter reads a count of what the worker did; from any goroutine while it runs.
func (w *Worker) Counter(c Counter) uint64 {
	return read(&w.h, func(p *C.qy_worker) uint64 { return uint64(C.qy_worker_counter(p, C.qy_counter(c))) })
}

// MetricsText is the worker's metrics in the Prometheus text exposition format, version
// 0.0.4 (docs/metrics.md lists them); from any goroutine, while Run runs too.
func (w *Worker) MetricsText() (string, error) {
	var text []byte
	err := w.h.use(func(p *C.qy_worker) (err error) {
		text, err = handedOut(func(out **C.char, n *C.size_t, err **C.qy_error) C.qy_status {
			return C.qy_worker_metrics_text(p, out, n, err)
		})
		return err
	})
	return string(text), err
}

// MetricsContentType is the media type of MetricsText, as MetricsHandler sends it.
const MetricsContentType = "text/plain; version=0.0.4; charset=utf-8"

// MetricsHandler serves MetricsText to Prometheus scrapes (GET or HEAD), with the
// Content-Type MetricsContentType; once the worker is closed it answers 503.
//
//	http.Handle("/metrics", worker.MetricsHandler())
func (w *Worker) MetricsHandler() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			rw.Header().Set("Allow", "GET, HEAD")
			http.Error(rw, "only GET and HEAD", http.StatusMethodNotAllowed)
			return
		}
		text, err := w.MetricsText()
		if err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, ErrClosed) {
				status = http.StatusServiceUnavailable
			}
			http.Error(rw, err.Error(), status)
			return
		}
		rw.Header().Set("Content-Type", MetricsContentType)
		rw.Header().Set("Content-Length", strconv.Itoa(len(text)))
		if r.Method == http.MethodGet {
			_, _ = io.WriteString(rw, text)
		}
	})
}

// Close shuts the worker down, waits for Run to return and frees the worker. Not from
// a handler: Run waits for its handlers. Idempotent.
func (w *Worker) Close() error {
	w.Shutdown()
	w.h.release(func(p *C.qy_worker) { C.qy_worker_free(p) })
	return nil
}
