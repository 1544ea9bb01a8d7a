package queuey_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

// Tests named TestBroker* need a RabbitMQ: QUEUEY_TEST_URL (Meson's registration always
// sets it); without it they are skipped. Everything else runs on memory://.

func brokerURL(t *testing.T) string {
	t.Helper()
	url := os.Getenv("QUEUEY_TEST_URL")
	if url == "" {
		t.Skip("QUEUEY_TEST_URL is not set: no broker for this test")
	}
	return url
}

// backend is where a scenario runs; tests on both get the same scenarios.
type backend struct {
	url string
	// delay is the retry and delay step of the test queues: memory:// delays are
	// exact, RabbitMQ rounds them up to the queue's granularity.
	delay time.Duration
}

var memoryBackend = backend{url: "memory://", delay: 0}

func brokerBackend(t *testing.T) backend {
	return backend{url: brokerURL(t), delay: 100 * time.Millisecond}
}

func (b backend) isMemory() bool { return b.url == "memory://" }

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func dial(t *testing.T, b backend) *queuey.Client {
	t.Helper()
	client, err := queuey.Dial(testContext(t), b.url)
	if err != nil {
		t.Fatalf("queuey.Dial(%s): %v", b.url, err)
	}
	t.Cleanup(func() { client.Close() })
	return client
}

var unsafeNameChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// uniqueQueue is a queue name no other test or earlier run uses.
func uniqueQueue(t *testing.T) string {
	suffix := make([]byte, 4)
	if _, err := rand.Read(suffix); err != nil {
		t.Fatal(err)
	}
	name := "go." + unsafeNameChars.ReplaceAllString(t.Name(), ".")
	if len(name) > 180 {
		name = name[:180]
	}
	return name + "." + hex.EncodeToString(suffix)
}

// fixture is a client with a producer and one declared, fresh queue. Queues are not
// durable: they do not outlive the test broker.
type fixture struct {
	backend  backend
	client   *queuey.Client
	producer *queuey.Producer
	queue    string
	ctx      context.Context
}

func newFixture(t *testing.T, b backend) *fixture {
	t.Helper()
	f := &fixture{backend: b, client: dial(t, b), queue: uniqueQueue(t), ctx: testContext(t)}
	cfg := queuey.NewQueueConfig(f.queue)
	cfg.Durable = false
	cfg.DelayGranularity = max(b.delay, time.Millisecond)
	if err := f.client.Declare(f.ctx, cfg); err != nil {
		t.Fatalf("Declare(%s): %v", f.queue, err)
	}
	producer, err := f.client.NewProducer(f.ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { producer.Close() })
	f.producer = producer
	return f
}

func (f *fixture) enqueue(t *testing.T, jobType string, payload any, opts ...queuey.EnqueueOption) string {
	t.Helper()
	id, err := f.producer.Enqueue(f.ctx, f.queue, jobType, payload, opts...)
	if err != nil {
		t.Fatalf("Enqueue(%s): %v", jobType, err)
	}
	return id
}

// seen is what a handler saw of one invocation.
type seen struct {
	ID, Type, Queue, CorrelationID, Payload string
	Attempt, Deferrals                      uint32
	Priority                                uint8
	Age                                     time.Duration
}

func seenOf(job *queuey.Job) seen {
	return seen{ID: job.ID, Type: job.Type, Queue: job.Queue, CorrelationID: job.CorrelationID,
		Payload: string(job.Payload), Attempt: job.Attempt, Deferrals: job.Deferrals,
		Priority: job.Priority, Age: job.Age}
}

// deadLetter is one dead-lettering that the worker's hook saw.
type deadLetter struct {
	ID, Type, Reason string
	Attempt          uint32
}

// recorder collects handler invocations and dead letters from the worker's threads.
type recorder struct {
	mu      sync.Mutex
	runs    []seen
	dead    []deadLetter
	changed chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

func (r *recorder) notify() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) ran(job *queuey.Job) {
	r.mu.Lock()
	r.runs = append(r.runs, seenOf(job))
	r.mu.Unlock()
	r.notify()
}

func (r *recorder) deadLettered(job *queuey.Job, reason string) {
	r.mu.Lock()
	r.dead = append(r.dead, deadLetter{ID: job.ID, Type: job.Type, Reason: reason, Attempt: job.Attempt})
	r.mu.Unlock()
	r.notify()
}

func (r *recorder) snapshot() ([]seen, []deadLetter) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]seen(nil), r.runs...), append([]deadLetter(nil), r.dead...)
}

// waitFor waits until the recorder holds at least runs invocations and dead dead
// letters, and returns them.
func (r *recorder) waitFor(t *testing.T, runs, dead int) ([]seen, []deadLetter) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		gotRuns, gotDead := r.snapshot()
		if len(gotRuns) >= runs && len(gotDead) >= dead {
			return gotRuns, gotDead
		}
		select {
		case <-r.changed:
		case <-timeout:
			t.Fatalf("timed out with %d runs (want %d) and %d dead letters (want %d): %+v %+v",
				len(gotRuns), runs, len(gotDead), dead, gotRuns, gotDead)
		}
	}
}

// startWorker runs a worker on f's queue with the retry policy of the tests
// (3 attempts, f's delay apart), a dead-letter hook into rec, and the handlers that
// register adds; it is shut down and closed when the test ends.
func (f *fixture) startWorker(t *testing.T, rec *recorder, register func(w *queuey.Worker)) *queuey.Worker {
	t.Helper()
	w, err := f.client.NewWorker(f.queue)
	if err != nil {
		t.Fatal(err)
	}
	policy := queuey.RetryPolicy{MaxAttempts: 3, Backoff: queuey.FixedBackoff{f.backend.delay}}
	if err := w.SetDefaultRetry(policy); err != nil {
		t.Fatal(err)
	}
	if err := w.OnDeadLetter(rec.deadLettered); err != nil {
		t.Fatal(err)
	}
	register(w)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("Run did not return after its ctx was cancelled")
		}
		w.Close()
	})
	return w
}

func register(t *testing.T, w *queuey.Worker, jobType string, fn queuey.Handler) {
	t.Helper()
	if err := w.Handle(jobType, fn); err != nil {
		t.Fatalf("Handle(%s): %v", jobType, err)
	}
}

// handlerFixture is a fixture with a worker whose one handler, for jobType, records
// every run in rec and answers outcome(job).
func handlerFixture(t *testing.T, b backend, jobType string, outcome func(job *queuey.Job) error) (*fixture, *recorder, *queuey.Worker) {
	t.Helper()
	f, rec := newFixture(t, b), newRecorder()
	w := f.startWorker(t, rec, func(w *queuey.Worker) {
		register(t, w, jobType, func(ctx context.Context, job *queuey.Job) error {
			rec.ran(job)
			return outcome(job)
		})
	})
	return f, rec, w
}

func succeed(*queuey.Job) error { return nil }
