package queuey_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

func TestMemoryProducer(t *testing.T) { producerScenarios(t, memoryBackend) }
func TestBrokerProducer(t *testing.T) { producerScenarios(t, brokerBackend(t)) }

func producerScenarios(t *testing.T, b backend) {
	t.Run("enqueue after a delay", func(t *testing.T) {
		t.Parallel()
		f, rec, _ := handlerFixture(t, b, "later", succeed)
		const delay = 300 * time.Millisecond
		start := time.Now()
		id, err := f.producer.EnqueueAfter(f.ctx, delay, f.queue, "later", nil)
		if err != nil {
			t.Fatal(err)
		}
		runs, _ := rec.waitFor(t, 1, 0)
		if took := time.Since(start); runs[0].ID != id || took < delay-20*time.Millisecond {
			t.Errorf("job %s ran after %v, want %s after at least %v", runs[0].ID, took, id, delay)
		}
	})

	t.Run("defer goes ahead at the max priority", func(t *testing.T) {
		t.Parallel()
		f, rec, _ := handlerFixture(t, b, "urgent", succeed)
		id, err := f.producer.Defer(f.ctx, b.delay, f.queue, "urgent", nil)
		if err != nil {
			t.Fatal(err)
		}
		runs, _ := rec.waitFor(t, 1, 0)
		if runs[0].ID != id || runs[0].Priority != 10 || runs[0].Deferrals != 0 {
			t.Errorf("the handler saw %+v, want job %s at priority 10 without deferrals", runs[0], id)
		}
	})

	t.Run("batch with one unroutable item", func(t *testing.T) {
		t.Parallel()
		f, rec, _ := handlerFixture(t, b, "batched", succeed)
		results, err := f.producer.EnqueueBatch(f.ctx, []queuey.BatchItem{
			{Queue: f.queue, Type: "batched", Payload: []int{1}},
			{Queue: uniqueQueue(t) + ".undeclared", Type: "batched", Payload: []int{2}},
			{Queue: f.queue, Type: "batched", Payload: []int{3}, CorrelationID: "c3"},
		})
		if !errors.Is(err, queuey.ErrUnroutable) {
			t.Errorf("batch error %v, want ErrUnroutable", err)
		}
		if len(results) != 3 || results[0].Err != nil || results[2].Err != nil ||
			!errors.Is(results[1].Err, queuey.ErrUnroutable) {
			t.Fatalf("results %+v, want only item 1 failed as unroutable", results)
		}
		runs, _ := rec.waitFor(t, 2, 0)
		got := map[string]seen{runs[0].ID: runs[0], runs[1].ID: runs[1]}
		if got[results[0].ID].Payload != "[1]" || got[results[2].ID].Payload != "[3]" ||
			got[results[2].ID].CorrelationID != "c3" {
			t.Errorf("the handler saw %+v for results %+v", runs, results)
		}
	})

	t.Run("a bad batch item publishes nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, b)
		results, err := f.producer.EnqueueBatch(f.ctx, []queuey.BatchItem{
			{Queue: f.queue, Type: "fine", Payload: 1},
			{Queue: f.queue, Type: "bad", Payload: func() {}},
		})
		if results != nil || !errors.Is(err, queuey.ErrInvalidArgument) {
			t.Fatalf("EnqueueBatch = %v, %v; want ErrInvalidArgument", results, err)
		}
		if f.backend.isMemory() {
			if n, _ := f.client.MemoryCount(f.queue, queuey.MemoryPending); n != 0 {
				t.Errorf("%d jobs pending, want none", n)
			}
		}
	})

	t.Run("consumer settles by hand", func(t *testing.T) {
		t.Parallel()
		consumerScenario(t, newFixture(t, b))
	})
}

func next(t *testing.T, consumer *queuey.Consumer) *queuey.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := consumer.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func consumerScenario(t *testing.T, f *fixture) {
	consumer, err := f.client.NewConsumer(f.ctx, f.queue)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()

	short, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if d, err := consumer.Next(short); d != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Next on an empty queue = %v, %v; want context.DeadlineExceeded", d, err)
	}

	id := f.enqueue(t, "manual", map[string]int{"n": 1})
	d := next(t, consumer)
	env := d.Envelope()
	if env.JobID() != id || env.Attempt() != 1 || d.Redelivered() {
		t.Fatalf("delivered %s attempt %d redelivered %v, want %s attempt 1", env.JobID(), env.Attempt(), d.Redelivered(), id)
	}
	retry, err := env.NextAttempt()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Retry(f.ctx, retry, f.backend.delay); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	if err := d.Ack(f.ctx); !errors.Is(err, queuey.ErrAlreadySettled) {
		t.Errorf("a second settle = %v, want ErrAlreadySettled", err)
	}

	d = next(t, consumer)
	if d.Envelope().JobID() != id || d.Envelope().Attempt() != 2 {
		t.Fatalf("the retry came back as %s attempt %d", d.Envelope().JobID(), d.Envelope().Attempt())
	}
	deferred, err := d.Envelope().Deferred(10)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Defer(f.ctx, deferred, f.backend.delay); err != nil {
		t.Fatalf("Defer: %v", err)
	}

	d = next(t, consumer)
	if d.Envelope().Deferrals() != 1 || d.Envelope().Priority() != 10 {
		t.Fatalf("the deferral came back with %d deferrals, priority %d", d.Envelope().Deferrals(), d.Envelope().Priority())
	}
	d.Close() // unsettled: back to the queue, marked redelivered
	d = next(t, consumer)
	if !d.Redelivered() || d.Envelope().JobID() != id {
		t.Fatalf("job %s redelivered %v, want %s redelivered", d.Envelope().JobID(), d.Redelivered(), id)
	}
	if err := d.DeadLetter(f.ctx, "done with it"); err != nil {
		t.Fatalf("DeadLetter: %v", err)
	}
	if f.backend.isMemory() {
		env, reason, err := f.client.MemoryDeadLetter(0)
		if err != nil || env.JobID() != id || reason != "done with it" {
			t.Errorf("MemoryDeadLetter(0) = %v, %q, %v", env, reason, err)
		}
	}
}
