package queuey_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

func TestMemoryWorker(t *testing.T) { workerScenarios(t, memoryBackend) }
func TestBrokerWorker(t *testing.T) { workerScenarios(t, brokerBackend(t)) }

// expectDeadLetter checks the one dead letter the hook saw and, on memory://, the one
// the backend holds.
func expectDeadLetter(t *testing.T, f *fixture, dead []deadLetter, id, reason string) {
	t.Helper()
	if len(dead) != 1 || dead[0].ID != id || dead[0].Reason != reason {
		t.Fatalf("dead letters %+v, want one of %s with reason %q", dead, id, reason)
	}
	if !f.backend.isMemory() {
		return
	}
	if err := f.client.MemoryWaitIdle(f.ctx); err != nil {
		t.Fatal(err)
	}
	env, gotReason, err := f.client.MemoryDeadLetter(0)
	if err != nil {
		t.Fatalf("MemoryDeadLetter(0): %v", err)
	}
	defer env.Close()
	if env.JobID() != id || gotReason != reason {
		t.Errorf("memory dead letter %s %q, want %s %q", env.JobID(), gotReason, id, reason)
	}
	if n, err := f.client.MemoryCount(f.queue, queuey.MemoryDeadLettered); n != 1 || err != nil {
		t.Errorf("MemoryCount(dead-lettered) = %d, %v; want 1", n, err)
	}
}

func expectAttempts(t *testing.T, runs []seen, id string, attempts ...uint32) {
	t.Helper()
	if len(runs) != len(attempts) {
		t.Fatalf("%d runs %+v, want %d", len(runs), runs, len(attempts))
	}
	for i, run := range runs {
		if run.ID != id || run.Attempt != attempts[i] {
			t.Errorf("run %d: job %s attempt %d, want %s attempt %d", i, run.ID, run.Attempt, id, attempts[i])
		}
	}
}

// eventually polls cond for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func workerScenarios(t *testing.T, b backend) {
	t.Run("success", func(t *testing.T) {
		t.Parallel()
		f, rec, w := handlerFixture(t, b, "send_email", succeed)
		id := f.enqueue(t, "send_email", map[string]any{"to": "a@b.c", "n": 7}, queuey.WithCorrelationID("order-7"))
		runs, _ := rec.waitFor(t, 1, 0)
		want := seen{ID: id, Type: "send_email", Queue: f.queue, CorrelationID: "order-7",
			Payload: `{"n":7,"to":"a@b.c"}`, Attempt: 1, Age: runs[0].Age}
		if runs[0] != want {
			t.Errorf("the handler saw %+v, want %+v", runs[0], want)
		}
		if runs[0].Age < 0 || runs[0].Age > 10*time.Second {
			t.Errorf("age %v", runs[0].Age)
		}
		eventually(t, "the succeeded counter", func() bool { return w.Counter(queuey.CounterSucceeded) == 1 })
	})

	t.Run("retried once, then succeeds", func(t *testing.T) {
		t.Parallel()
		f, rec, w := handlerFixture(t, b, "flaky", func(job *queuey.Job) error {
			if job.Attempt == 1 {
				return errors.New("not this time") // any error is retryable
			}
			return nil
		})
		id := f.enqueue(t, "flaky", []byte(`{"x":[1,2.50,"s"]}`))
		runs, _ := rec.waitFor(t, 2, 0)
		expectAttempts(t, runs, id, 1, 2)
		if runs[1].Payload != `{"x":[1,2.50,"s"]}` {
			t.Errorf("payload %s changed on the way", runs[1].Payload)
		}
		eventually(t, "the counters", func() bool {
			return w.Counter(queuey.CounterRetried) == 1 && w.Counter(queuey.CounterSucceeded) == 1
		})
	})

	t.Run("retries exhausted", func(t *testing.T) {
		t.Parallel()
		f, rec, w := handlerFixture(t, b, "always-retry", func(job *queuey.Job) error {
			return queuey.Retry(errors.New("xlang retry"))
		})
		id := f.enqueue(t, "always-retry", nil)
		runs, dead := rec.waitFor(t, 3, 1)
		expectAttempts(t, runs, id, 1, 2, 3)
		expectDeadLetter(t, f, dead, id, "max attempts (3) exhausted after attempt 3: xlang retry")
		eventually(t, "the exhausted counter", func() bool { return w.Counter(queuey.CounterDeadLetteredExhausted) == 1 })
	})

	t.Run("fatal", func(t *testing.T) {
		t.Parallel()
		f, rec, w := handlerFixture(t, b, "fatal", func(job *queuey.Job) error {
			return queuey.Fatal(errors.New("xlang fatal"))
		})
		id := f.enqueue(t, "fatal", "a string payload")
		runs, dead := rec.waitFor(t, 1, 1)
		expectAttempts(t, runs, id, 1)
		expectDeadLetter(t, f, dead, id, "fatal error: xlang fatal")
		eventually(t, "the fatal counter", func() bool { return w.Counter(queuey.CounterDeadLetteredFatal) == 1 })
	})

	t.Run("deferred once", func(t *testing.T) {
		t.Parallel()
		f, rec, w := handlerFixture(t, b, "defer-once", func(job *queuey.Job) error {
			if job.Deferrals == 0 {
				return queuey.Defer(b.delay, "xlang defer")
			}
			return nil
		})
		id := f.enqueue(t, "defer-once", 1)
		runs, _ := rec.waitFor(t, 2, 0)
		expectAttempts(t, runs, id, 1, 1)
		if runs[0].Deferrals != 0 || runs[1].Deferrals != 1 || runs[1].Priority != 10 {
			t.Errorf("deferrals %d, %d and priority %d; want 0, 1 and the queue's max, 10",
				runs[0].Deferrals, runs[1].Deferrals, runs[1].Priority)
		}
		eventually(t, "the deferred counter", func() bool { return w.Counter(queuey.CounterDeferred) == 1 })
	})

	t.Run("unknown job type", func(t *testing.T) {
		t.Parallel()
		f, rec := newFixture(t, b), newRecorder()
		f.startWorker(t, rec, func(w *queuey.Worker) {})
		id := f.enqueue(t, "nobody-handles-this", nil)
		_, dead := rec.waitFor(t, 0, 1)
		expectDeadLetter(t, f, dead, id, "no handler for job type `nobody-handles-this`")
	})

	t.Run("a panic is a retryable error", func(t *testing.T) {
		t.Parallel()
		f, rec := newFixture(t, b), newRecorder()
		f.startWorker(t, rec, func(w *queuey.Worker) {
			err := w.HandleWithRetry("panics", queuey.RetryPolicy{MaxAttempts: 1}, func(ctx context.Context, job *queuey.Job) error {
				rec.ran(job)
				panic("kaboom")
			})
			if err != nil {
				t.Fatal(err)
			}
		})
		id := f.enqueue(t, "panics", nil)
		_, dead := rec.waitFor(t, 1, 1)
		expectDeadLetter(t, f, dead, id, "max attempts (1) exhausted after attempt 1: the handler panicked: kaboom")
		var header string
		eventually(t, "the dead letter in "+f.queue+".dead", func() bool {
			found, err := f.client.Browse(f.ctx, f.queue+".dead", &queuey.MessageFilter{JobIDs: []string{id}}, 0)
			if err != nil || len(found) != 1 {
				return false
			}
			header, _ = found[0].Headers["x-exception"].(string)
			return true
		})
		if !strings.HasPrefix(header, "panic(string)\nkaboom\n\ngoroutine ") || !strings.Contains(header, "worker_test.go") {
			t.Errorf("x-exception = %q, want the panic's type and value, then its stack", header)
		}
	})

	t.Run("undecodable payload", func(t *testing.T) {
		t.Parallel()
		f, rec, w := handlerFixture(t, b, "typed", func(job *queuey.Job) error {
			var args struct{ N int }
			return job.Decode(&args)
		})
		id := f.enqueue(t, "typed", map[string]string{"N": "not a number"})
		_, dead := rec.waitFor(t, 1, 1)
		if len(dead) != 1 || dead[0].ID != id || !strings.HasPrefix(dead[0].Reason, "decode error: json: cannot unmarshal") {
			t.Errorf("dead letters %+v, want one of %s for a decode error", dead, id)
		}
		eventually(t, "the undecodable counter", func() bool { return w.Counter(queuey.CounterDeadLetteredUndecodable) == 1 })
	})

	t.Run("job timeout ends the handler's ctx", func(t *testing.T) {
		t.Parallel()
		f, rec := newFixture(t, b), newRecorder()
		cancelled := make(chan bool, 1)
		f.startWorker(t, rec, func(w *queuey.Worker) {
			if err := w.SetJobTimeout(200 * time.Millisecond); err != nil {
				t.Fatal(err)
			}
			err := w.HandleWithRetry("slow", queuey.RetryPolicy{MaxAttempts: 1}, func(ctx context.Context, job *queuey.Job) error {
				<-ctx.Done()
				eventually(t, "the job's cancellation", job.Cancelled)
				cancelled <- errors.Is(ctx.Err(), context.DeadlineExceeded)
				return nil // ignored: the job was settled at the timeout
			})
			if err != nil {
				t.Fatal(err)
			}
		})
		id := f.enqueue(t, "slow", nil)
		_, dead := rec.waitFor(t, 0, 1)
		if len(dead) != 1 || dead[0].ID != id || !strings.Contains(dead[0].Reason, "job timed out after") {
			t.Errorf("dead letters %+v, want one of %s for a timeout", dead, id)
		}
		if !<-cancelled {
			t.Errorf("the handler's ctx did not end with DeadlineExceeded")
		}
	})

	t.Run("shutdown from a handler", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, b)
		w, err := f.client.NewWorker(f.queue)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		register(t, w, "stop", func(ctx context.Context, job *queuey.Job) error {
			w.Shutdown()
			return nil
		})
		f.enqueue(t, "stop", nil)
		if err := w.Run(context.Background()); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if n := w.Counter(queuey.CounterSucceeded); n != 1 {
			t.Errorf("succeeded %d, want 1", n)
		}
	})
}

// The client's logger receives the worker's warnings, from the worker's threads.
func TestLoggerReceivesWorkerWarnings(t *testing.T) {
	lines := make(chan string, 16)
	client, err := queuey.Dial(context.Background(), "memory://", queuey.WithLogger(func(level queuey.LogLevel, message string) {
		lines <- level.String() + ": " + message
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	f := &fixture{backend: memoryBackend, client: client, queue: "logged", ctx: testContext(t)}
	if err := client.Declare(f.ctx, queuey.NewQueueConfig(f.queue)); err != nil {
		t.Fatal(err)
	}
	if f.producer, err = client.NewProducer(f.ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.producer.Close() })
	f.startWorker(t, newRecorder(), func(w *queuey.Worker) {
		if err := w.SetJobTimeout(time.Millisecond); err != nil {
			t.Fatal(err)
		}
		register(t, w, "slow", func(ctx context.Context, job *queuey.Job) error {
			<-ctx.Done()
			time.Sleep(20 * time.Millisecond)
			return nil
		})
	})
	id := f.enqueue(t, "slow", nil)
	// The timed-out run's retry (three attempts), and the handler's late return: from two
	// threads, in either order.
	wanted := map[string]bool{
		"warn: job " + id + " (type `slow`, queue logged) failed at attempt 1: job timed out after 1ms; retried as attempt 2 in ": false,
		"warn: job " + id + " returned after it had timed out":                                                                    false,
	}
	for seen := 0; seen < len(wanted); {
		select {
		case line := <-lines:
			for prefix, found := range wanted {
				if !found && strings.HasPrefix(line, prefix) {
					wanted[prefix] = true
					seen++
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("log lines missing: %v", wanted)
		}
	}
}

// Without WithLogger, the lines go to log/slog's default logger at their levels (issue
// 41: a Go worker said nothing of a dead letter); WithLogger(nil) silences them.
func TestLinesGoToSlogByDefault(t *testing.T) {
	var mutex sync.Mutex
	var text bytes.Buffer
	previous := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(lockedWriter{&mutex, &text}, nil)))
	t.Cleanup(func() { slog.SetDefault(previous) })
	for _, silenced := range []bool{false, true} {
		var opts []queuey.Option
		if silenced {
			opts = append(opts, queuey.WithLogger(nil))
		}
		client, err := queuey.Dial(context.Background(), "memory://", opts...)
		if err != nil {
			t.Fatal(err)
		}
		f := &fixture{backend: memoryBackend, client: client, queue: fmt.Sprint("slogged-", silenced), ctx: testContext(t)}
		if err := client.Declare(f.ctx, queuey.NewQueueConfig(f.queue)); err != nil {
			t.Fatal(err)
		}
		if f.producer, err = client.NewProducer(f.ctx); err != nil {
			t.Fatal(err)
		}
		w, err := client.NewWorker(f.queue)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		id := f.enqueue(t, "nobody", nil)
		deadline := time.Now().Add(10 * time.Second)
		for w.Counter(queuey.CounterDeadLetteredUnknownType) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		w.Close()
		f.producer.Close()
		client.Close() // delivers the lines still queued
		mutex.Lock()
		got := text.String()
		text.Reset()
		mutex.Unlock()
		want := fmt.Sprintf("level=ERROR msg=\"job %s (type `nobody`, queue %s) dead-lettered to %s.dead at attempt 1: no handler for job type `nobody`\"", id, f.queue, f.queue)
		if silenced && got != "" {
			t.Errorf("WithLogger(nil) logged %q", got)
		}
		if !silenced && !strings.Contains(got, want) {
			t.Errorf("slog got %q, want a line with %q", got, want)
		}
	}
}

type lockedWriter struct {
	mutex *sync.Mutex
	out   io.Writer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mutex.Lock()
	defer w.mutex.Unlock()
	return w.out.Write(p)
}

// Cancelling Run's ctx stops the worker gracefully: the jobs it had received run and
// are settled, the rest stay in the queue, and Run returns nil.
func TestMemoryRunStopsGracefullyOnCancel(t *testing.T) {
	f := newFixture(t, memoryBackend)
	w, err := f.client.NewWorker(f.queue)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	register(t, w, "job", func(context.Context, *queuey.Job) error {
		cancel()
		time.Sleep(5 * time.Millisecond)
		return nil
	})
	if err := w.SetConcurrency(2); err != nil {
		t.Fatal(err)
	}
	const jobs = 40
	for i := 0; i < jobs; i++ {
		f.enqueue(t, "job", i)
	}
	if err := w.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
	count := func(what queuey.MemoryCount) uint64 {
		n, err := f.client.MemoryCount(f.queue, what)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	acked, pending, inFlight := count(queuey.MemoryAcked), count(queuey.MemoryPending), count(queuey.MemoryInFlight)
	if acked == 0 || acked != w.Counter(queuey.CounterSucceeded) || inFlight != 0 || acked+pending != jobs {
		t.Errorf("after the shutdown: %d acked, %d pending, %d in flight; want none in flight, all %d accounted for",
			acked, pending, inFlight, jobs)
	}
}
