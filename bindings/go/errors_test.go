package queuey_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

// expectError checks that err is an *Error with the sentinel's status whose message
// names `names`.
func expectError(t *testing.T, what string, err error, sentinel error, names string) {
	t.Helper()
	var qerr *queuey.Error
	switch {
	case !errors.Is(err, sentinel):
		t.Errorf("%s: error %v, want %v", what, err, sentinel)
	case !errors.As(err, &qerr):
		t.Errorf("%s: %v is not an *Error", what, err)
	case !strings.Contains(qerr.Error(), names):
		t.Errorf("%s: message %q does not name %q", what, qerr.Error(), names)
	}
}

func TestErrorsMatchOnTheirStatus(t *testing.T) {
	err := error(&queuey.Error{Status: queuey.StatusTimeout, Message: "no confirm in 30 s"})
	wrapped := errors.Join(errors.New("publishing"), err)
	if !errors.Is(wrapped, queuey.ErrTimeout) || errors.Is(wrapped, queuey.ErrNacked) {
		t.Errorf("errors.Is does not go by the status")
	}
	if got := err.Error(); got != "QY_ERR_TIMEOUT: no confirm in 30 s" {
		t.Errorf("Error() = %q", got)
	}
	if got := queuey.Status(-999).String(); got != "QY_UNKNOWN_STATUS" {
		t.Errorf("an unknown status is named %q", got)
	}
}

func TestHeaderAndLibraryVersionsAgree(t *testing.T) {
	if queuey.VersionNumber() != queuey.HeaderVersionNumber || queuey.Version() == "" {
		t.Errorf("library %s (%d), header %d", queuey.Version(), queuey.VersionNumber(), queuey.HeaderVersionNumber)
	}
}

func TestBadEnvelopeInput(t *testing.T) {
	_, err := queuey.NewEnvelope("", "q", nil)
	expectError(t, "an empty job type", err, queuey.ErrInvalidArgument, "job_type")
	_, err = queuey.NewEnvelope("t\x00u", "q", nil)
	expectError(t, "a NUL in the job type", err, queuey.ErrInvalidArgument, "job_type")
	_, err = queuey.NewEnvelope("t", "q", []byte(`{"a":`))
	expectError(t, "a payload that is not JSON", err, queuey.ErrBadJSON, "payload")
	_, err = queuey.NewEnvelope("t", "q", []byte{})
	expectError(t, "an empty payload", err, queuey.ErrBadJSON, "payload")
	_, err = queuey.NewEnvelope("t", "q", make(chan int))
	expectError(t, "a payload encoding/json refuses", err, queuey.ErrInvalidArgument, "payload")
	_, err = queuey.EnvelopeFromBytes(nil)
	expectError(t, "no body", err, queuey.ErrBadJSON, "body")

	env, err := queuey.NewEnvelope("t", "q", map[string]bool{"ok": true})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.SetCorrelationID("a\x00b"); !errors.Is(err, queuey.ErrInvalidArgument) {
		t.Errorf("SetCorrelationID with a NUL: %v", err)
	}
	if _, err := env.DeadLetterProperties("x\x00"); !errors.Is(err, queuey.ErrInvalidArgument) {
		t.Errorf("DeadLetterProperties with a NUL: %v", err)
	}
	env.Close()
	env.Close() // idempotent
	if env.JobID() != "" || env.Attempt() != 0 {
		t.Errorf("a closed envelope still reads %q attempt %d", env.JobID(), env.Attempt())
	}
	_, err = env.Bytes()
	expectError(t, "a closed envelope", err, queuey.ErrClosed, "envelope")
	_, err = env.NextAttempt()
	expectError(t, "a closed envelope", err, queuey.ErrClosed, "envelope")
}

func TestEnvelopeProperties(t *testing.T) {
	env, err := queuey.NewEnvelope("send", "q", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	if err := env.SetCorrelationID("c-1"); err != nil {
		t.Fatal(err)
	}
	props, err := env.DeadLetterProperties("why not")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"x-attempt": uint32(1), "x-deferrals": uint32(0), "x-correlation-id": "c-1",
		"x-death-reason": "why not", "x-original-queue": "q", "x-attempts": uint32(1)}
	got := map[string]any{}
	for _, h := range props.Headers {
		got[h.Name] = h.Value
	}
	if props.ContentType != "application/json" || props.DeliveryMode != 2 || props.MessageID != env.JobID() ||
		props.Type != "send" || props.Priority != 0 || len(got) != len(want) {
		t.Errorf("properties %+v", props)
	}
	for name, value := range want {
		if got[name] != value {
			t.Errorf("header %s = %#v, want %#v", name, got[name], value)
		}
	}
	if err := env.ClearCorrelationID(); err != nil {
		t.Fatal(err)
	}
	if _, has := env.CorrelationID(); has {
		t.Errorf("the correlation id is still there")
	}
}

func TestBadClientInput(t *testing.T) {
	ctx := context.Background()
	_, err := queuey.Dial(ctx, "nonsense://x")
	expectError(t, "an unknown scheme", err, queuey.ErrInvalidArgument, "url")
	_, err = queuey.Dial(ctx, "amqp://127.0.0.1:1/", queuey.WithReconnect(queuey.Reconnect{Factor: 1}),
		queuey.WithConnectTimeout(time.Second))
	if !errors.Is(err, queuey.ErrConnection) {
		t.Errorf("a closed port: %v, want ErrConnection", err)
	}
	_, err = queuey.Dial(ctx, "memory://", queuey.WithPublishTimeout(-time.Second))
	expectError(t, "a negative timeout", err, queuey.ErrInvalidArgument, "publish timeout")
	_, err = queuey.Dial(ctx, "memory://", queuey.WithConnectionName("a\x00b"))
	expectError(t, "a NUL in an option", err, queuey.ErrInvalidArgument, "connection name")
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := queuey.Dial(cancelled, "memory://"); !errors.Is(err, context.Canceled) {
		t.Errorf("Dial with a cancelled ctx: %v", err)
	}

	client, err := queuey.Dial(ctx, "memory://")
	if err != nil {
		t.Fatal(err)
	}
	err = client.Declare(ctx, queuey.QueueConfig{Name: "q"}) // prefetch 0
	expectError(t, "prefetch 0", err, queuey.ErrInvalidArgument, "NewQueueConfig(name)")
	err = client.Declare(ctx, queuey.NewQueueConfig(strings.Repeat("q", 300)))
	expectError(t, "a long queue name", err, queuey.ErrInvalidArgument, "235")
	cfg := queuey.NewQueueConfig("q")
	cfg.MaxLostRuns = math.MaxUint32
	if err := client.Declare(ctx, cfg); err != nil {
		t.Errorf("the largest lost-run budget: %v", err)
	}
	cfg = queuey.NewQueueConfig("qq")
	cfg.Type = 7
	expectError(t, "an unknown queue type", client.Declare(ctx, cfg), queuey.ErrInvalidArgument, "type")
	cfg.Type, cfg.Durable = queuey.QueueQuorum, false
	expectError(t, "a non-durable quorum queue", client.Declare(ctx, cfg), queuey.ErrInvalidArgument, "durable")
	cfg.Durable = true
	if err := client.Declare(ctx, cfg); err != nil {
		t.Errorf("a quorum queue: %v", err)
	}
	expectError(t, "a quorum queue redeclared classic", client.Declare(ctx, queuey.NewQueueConfig("qq")),
		queuey.ErrPreconditionFailed, "x-queue-type")
	cfg = queuey.NewQueueConfig("q")
	cfg.MessageTTL = -time.Second
	expectError(t, "a negative TTL", client.Declare(ctx, cfg), queuey.ErrInvalidArgument, "message TTL")
	if err := client.Declare(ctx, queuey.NewQueueConfig("q")); err != nil {
		t.Fatal(err)
	}
	cfg.MessageTTL, cfg.MaxPriority = 0, 3
	expectError(t, "another max priority", client.Declare(ctx, cfg), queuey.ErrPreconditionFailed, "q")

	producer, err := client.NewProducer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = producer.Enqueue(ctx, "undeclared", "t", nil)
	expectError(t, "an undeclared queue", err, queuey.ErrUnroutable, "undeclared")
	if _, err := producer.Enqueue(cancelled, "q", "t", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Enqueue with a cancelled ctx: %v", err)
	}
	_, err = producer.EnqueueAfter(ctx, -time.Second, "q", "t", nil)
	expectError(t, "a negative delay", err, queuey.ErrInvalidArgument, "delay")
	_, err = producer.Defer(ctx, 1000*time.Hour, "q", "t", nil)
	expectError(t, "a delay too long", err, queuey.ErrInvalidArgument, "delay")
	_, _, err = client.MemoryDeadLetter(0)
	expectError(t, "no dead letter yet", err, queuey.ErrInvalidArgument, "")
	_, err = client.MemoryCount("q\x00", queuey.MemoryPending)
	expectError(t, "a NUL in a queue", err, queuey.ErrInvalidArgument, "queue")

	worker, err := client.NewWorker("q")
	if err != nil {
		t.Fatal(err)
	}
	noop := func(context.Context, *queuey.Job) error { return nil }
	if err := worker.Handle("t", noop); err != nil {
		t.Fatal(err)
	}
	expectError(t, "a second handler", worker.Handle("t", noop), queuey.ErrInvalidArgument, "t")
	expectError(t, "a nil handler", worker.Handle("u", nil), queuey.ErrInvalidArgument, "handler")
	expectError(t, "a negative concurrency", worker.SetConcurrency(-1), queuey.ErrInvalidArgument, "concurrency")
	expectError(t, "a lost-run budget of 0", worker.SetMaxLostRuns(0), queuey.ErrInvalidArgument, "max_lost_runs")
	tooLong := queuey.RetryPolicy{MaxAttempts: 3, Backoff: queuey.FixedBackoff{Delay: 3_000_000 * time.Second}}
	expectError(t, "a retry delay longer than a hold", worker.SetDefaultRetry(tooLong), queuey.ErrInvalidArgument, "2147483647")
	tooLong.Backoff = queuey.ExponentialBackoff{Base: time.Second, Factor: 2, Max: 3_000_000 * time.Second}
	expectError(t, "a backoff max longer than a hold", worker.SetDefaultRetry(tooLong), queuey.ErrInvalidArgument, "max_ms")
	_, err = client.NewWorker()
	expectError(t, "a worker without queues", err, queuey.ErrInvalidArgument, "queues")
	undeclared, err := client.NewWorker("never-declared")
	if err == nil {
		err = undeclared.Run(ctx)
		undeclared.Close()
	}
	expectError(t, "a worker on an undeclared queue", err, queuey.ErrInvalidArgument, "never-declared")

	// After Close, every call fails with ErrClosed instead of touching freed memory.
	worker.Close()
	producer.Close()
	client.Close()
	client.Close()
	_, err = producer.Enqueue(ctx, "q", "t", nil)
	expectError(t, "a closed producer", err, queuey.ErrClosed, "producer")
	expectError(t, "a closed worker", worker.Run(ctx), queuey.ErrClosed, "worker")
	expectError(t, "a closed client", client.Declare(ctx, queuey.NewQueueConfig("q")), queuey.ErrClosed, "client")
	_, err = client.NewProducer(ctx)
	expectError(t, "a closed client", err, queuey.ErrClosed, "client")
}

func TestBrokerOnlyCalls(t *testing.T) {
	client, err := queuey.Dial(context.Background(), brokerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	_, err = client.MemoryCount("", queuey.MemoryAcked)
	expectError(t, "memory inspection on RabbitMQ", err, queuey.ErrUnsupported, "memory")
}
