package queuey_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

func TestMemoryQueueTools(t *testing.T) { queueToolsScenarios(t, memoryBackend) }
func TestBrokerQueueTools(t *testing.T) { queueToolsScenarios(t, brokerBackend(t)) }

// deadLetterNext takes the next job of f's queue, retries it until its attempt is
// attempt, then dead-letters it with reason.
func (f *fixture) deadLetterNext(t *testing.T, attempt uint32, reason string) {
	t.Helper()
	consumer, err := f.client.NewConsumer(f.ctx, f.queue)
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	for {
		d, err := consumer.Next(f.ctx)
		if err != nil {
			t.Fatal(err)
		}
		env := d.Envelope()
		if env.Attempt() >= attempt {
			if err := d.DeadLetter(f.ctx, reason); err != nil {
				t.Fatal(err)
			}
			return
		}
		next, err := env.NextAttempt()
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Retry(f.ctx, next, 0); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fixture) browse(t *testing.T, queueName string, filter *queuey.MessageFilter, limit int) []queuey.Message {
	t.Helper()
	found, err := f.client.Browse(f.ctx, queueName, filter, limit)
	if err != nil {
		t.Fatalf("Browse(%s, %+v, %d): %v", queueName, filter, limit, err)
	}
	return found
}

func (f *fixture) ids(t *testing.T, queueName string, filter *queuey.MessageFilter) []string {
	t.Helper()
	ids := []string{}
	for _, m := range f.browse(t, queueName, filter, 0) {
		ids = append(ids, m.JobID)
	}
	return ids
}

func (f *fixture) counts(t *testing.T, queueName string) queuey.QueueCounts {
	t.Helper()
	counts, err := f.client.QueueCounts(f.ctx, queueName)
	if err != nil {
		t.Fatalf("QueueCounts(%s): %v", queueName, err)
	}
	return counts
}

func (f *fixture) expectCount(t *testing.T, what string, got int, err error, want int) {
	t.Helper()
	if err != nil || got != want {
		t.Errorf("%s = %d, %v; want %d, nil", what, got, err, want)
	}
}

func queueToolsScenarios(t *testing.T, b backend) {
	t.Run("counts and a queue that does not exist", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, b)
		for n := 0; n < 3; n++ {
			f.enqueue(t, "count", map[string]int{"n": n})
		}
		if got := f.counts(t, f.queue); got != (queuey.QueueCounts{Ready: 3, Consumers: 0}) {
			t.Errorf("counts of %s = %+v, want 3 ready, no consumer", f.queue, got)
		}
		if got := f.counts(t, f.queue+".dead"); got.Ready != 0 {
			t.Errorf("counts of the dead-letter queue = %+v, want none ready", got)
		}
		missing := uniqueQueue(t) + ".missing"
		_, err := f.client.QueueCounts(f.ctx, missing)
		if !errors.Is(err, queuey.ErrNotFound) || !strings.Contains(err.Error(), missing) {
			t.Errorf("QueueCounts(missing) = %v, want ErrNotFound naming %s", err, missing)
		}
		if _, err := f.client.Browse(f.ctx, missing, nil, 0); !errors.Is(err, queuey.ErrNotFound) {
			t.Errorf("Browse(missing) = %v, want ErrNotFound", err)
		}
		if got := f.counts(t, f.queue); got.Ready != 3 {
			t.Errorf("after the failures, counts = %+v, want 3 ready", got)
		}
	})

	t.Run("browsing leaves every job in its place", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, b)
		var enqueued []string
		for n := 0; n < 5; n++ {
			jobType := map[bool]string{true: "odd", false: "even"}[n%2 == 1]
			enqueued = append(enqueued, f.enqueue(t, jobType, map[string]int{"n": n}))
		}
		for i := 0; i < 2; i++ {
			if got := f.ids(t, f.queue, nil); !reflect.DeepEqual(got, enqueued) {
				t.Errorf("browse %d saw %v, want %v", i+1, got, enqueued)
			}
		}
		if got := f.browse(t, f.queue, nil, 2); len(got) != 2 || got[0].JobID != enqueued[0] || got[1].JobID != enqueued[1] {
			t.Errorf("a browse with limit 2 saw %+v", got)
		}
		if got := f.ids(t, f.queue, &queuey.MessageFilter{JobType: "odd"}); !reflect.DeepEqual(got, []string{enqueued[1], enqueued[3]}) {
			t.Errorf("the odd jobs are %v", got)
		}
		byID := &queuey.MessageFilter{JobIDs: []string{enqueued[4], enqueued[2]}}
		if got := f.ids(t, f.queue, byID); !reflect.DeepEqual(got, []string{enqueued[2], enqueued[4]}) {
			t.Errorf("jobs 2 and 4 by id are %v", got)
		}

		m := f.browse(t, f.queue, nil, 1)[0]
		if m.Envelope == nil || m.Envelope.JobID() != enqueued[0] || string(m.Envelope.Payload()) != `{"n":0}` ||
			m.JobType != "even" || m.Attempt != 1 || m.Reason != "" || m.OriginalQueue != f.queue || m.DecodeError != "" {
			t.Errorf("the first job is %+v", m)
		}
		if env, err := queuey.EnvelopeFromBytes(m.Body); err != nil || env.JobID() != enqueued[0] {
			t.Errorf("its body decodes to %v, %v", env, err)
		}
		if m.Headers == nil {
			t.Errorf("its headers are nil, want a map")
		}
		if got := f.counts(t, f.queue); got.Ready != 5 {
			t.Errorf("after the browses, counts = %+v, want 5 ready", got)
		}

		consumer, err := f.client.NewConsumer(f.ctx, f.queue)
		if err != nil {
			t.Fatal(err)
		}
		defer consumer.Close()
		for _, id := range enqueued {
			d, err := consumer.Next(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Envelope().JobID(); got != id {
				t.Errorf("consumed %s, want %s", got, id)
			}
			if err := d.Ack(f.ctx); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("a dead letter replayed runs again as attempt 1", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, b)
		id := f.enqueue(t, "dies", map[string]string{"to": "a@b.c"})
		f.deadLetterNext(t, 3, "fatal error: KeyError('to')")

		letters := f.browse(t, f.queue+".dead", nil, 0)
		if len(letters) != 1 {
			t.Fatalf("the dead-letter queue holds %+v, want one letter", letters)
		}
		l := letters[0]
		if l.JobID != id || l.JobType != "dies" || l.Reason != "fatal error: KeyError('to')" ||
			l.OriginalQueue != f.queue || l.Attempt != 3 || l.Envelope == nil || l.Envelope.Attempt() != 3 {
			t.Errorf("the letter is %+v", l)
		}
		if l.Headers["x-death-reason"] != "fatal error: KeyError('to')" || l.Headers["x-attempts"] != float64(3) {
			t.Errorf("the letter's headers are %v", l.Headers)
		}

		replayed, err := f.client.ReplayDeadLetters(f.ctx, f.queue, nil, false)
		f.expectCount(t, "ReplayDeadLetters", replayed, err, 1)
		back := f.browse(t, f.queue, nil, 0)
		if len(back) != 1 || back[0].JobID != id || back[0].Attempt != 1 || back[0].Headers["x-death-reason"] != nil {
			t.Errorf("after the replay the queue holds %+v, want job %s at attempt 1", back, id)
		}
		if got := f.counts(t, f.queue+".dead"); got.Ready != 0 {
			t.Errorf("after the replay the dead-letter queue counts %+v", got)
		}

		f.deadLetterNext(t, 2, "again")
		replayed, err = f.client.ReplayDeadLetters(f.ctx, f.queue, &queuey.MessageFilter{JobIDs: []string{id}}, true)
		f.expectCount(t, "ReplayDeadLetters(keep attempt)", replayed, err, 1)
		if back := f.browse(t, f.queue, nil, 0); len(back) != 1 || back[0].Attempt != 2 {
			t.Errorf("kept at its attempt, the queue holds %+v, want attempt 2", back)
		}
	})

	t.Run("replay and purge take only the selected letters", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, b)
		var dead []string
		for n := 0; n < 6; n++ {
			dead = append(dead, f.enqueue(t, map[bool]string{true: "email", false: "report"}[n < 3], nil))
			f.deadLetterNext(t, 1, map[bool]string{true: "timeout after 30 s", false: "fatal error: bad address"}[n%2 == 1])
		}
		deadQueue := f.queue + ".dead"
		if got := f.ids(t, deadQueue, nil); !reflect.DeepEqual(got, dead) {
			t.Fatalf("the dead letters are %v, want %v", got, dead)
		}

		replayed, err := f.client.ReplayDeadLetters(f.ctx, f.queue, &queuey.MessageFilter{JobIDs: []string{dead[1], dead[4]}}, false)
		f.expectCount(t, "ReplayDeadLetters(by id)", replayed, err, 2)
		if got := f.ids(t, deadQueue, nil); !reflect.DeepEqual(got, []string{dead[0], dead[2], dead[3], dead[5]}) {
			t.Errorf("after the replay the dead letters are %v", got)
		}
		if got := f.ids(t, f.queue, nil); !reflect.DeepEqual(got, []string{dead[1], dead[4]}) {
			t.Errorf("after the replay the queue holds %v", got)
		}

		purged, err := f.client.PurgeDeadLetters(f.ctx, f.queue, &queuey.MessageFilter{JobType: "email", ReasonContains: "bad address"})
		f.expectCount(t, "PurgeDeadLetters(email, bad address)", purged, err, 2)
		if got := f.ids(t, deadQueue, nil); !reflect.DeepEqual(got, []string{dead[3], dead[5]}) {
			t.Errorf("after the purge the dead letters are %v", got)
		}
		purged, err = f.client.PurgeDeadLetters(f.ctx, f.queue, &queuey.MessageFilter{OlderThan: time.Hour})
		f.expectCount(t, "PurgeDeadLetters(an hour old)", purged, err, 0)
		purged, err = f.client.PurgeDeadLetters(f.ctx, f.queue, &queuey.MessageFilter{})
		f.expectCount(t, "PurgeDeadLetters(all)", purged, err, 2)
		purged, err = f.client.PurgeDeadLetters(f.ctx, f.queue, nil)
		f.expectCount(t, "PurgeDeadLetters(none left)", purged, err, 0)
	})

	t.Run("an ended ctx does nothing", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, b)
		dead := f.enqueue(t, "dies", nil)
		f.deadLetterNext(t, 1, "fatal error")
		// The closed consumer's subscription must be gone first: on RabbitMQ, a job
		// delivered to it comes back redelivered.
		eventually(t, "no consumer on "+f.queue, func() bool {
			counts, err := f.client.QueueCounts(f.ctx, f.queue)
			return err == nil && counts.Consumers == 0
		})
		waiting := f.enqueue(t, "waits", nil)
		eventually(t, "one job in "+f.queue+" and one in its dead-letter queue", func() bool {
			work, err1 := f.client.QueueCounts(f.ctx, f.queue)
			letters, err2 := f.client.QueueCounts(f.ctx, f.queue+".dead")
			return err1 == nil && err2 == nil && work.Ready == 1 && letters.Ready == 1
		})

		ended, cancel := context.WithCancel(f.ctx)
		cancel()
		expectCanceled := func(call string, err error) {
			t.Helper()
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s with an ended ctx = %v, want context.Canceled", call, err)
			}
		}
		calls := func() {
			producer, err := f.client.NewProducer(ended)
			expectCanceled("NewProducer", err)
			if producer != nil {
				t.Errorf("NewProducer with an ended ctx made a producer")
				producer.Close()
			}
			counts, err := f.client.QueueCounts(ended, f.queue)
			expectCanceled("QueueCounts", err)
			if counts != (queuey.QueueCounts{}) {
				t.Errorf("QueueCounts with an ended ctx counted %+v", counts)
			}
			found, err := f.client.Browse(ended, f.queue, nil, 0)
			expectCanceled("Browse", err)
			if found != nil {
				t.Errorf("Browse with an ended ctx saw %+v", found)
			}
			replayed, err := f.client.ReplayDeadLetters(ended, f.queue, nil, false)
			expectCanceled("ReplayDeadLetters", err)
			purged, err2 := f.client.PurgeDeadLetters(ended, f.queue, nil)
			expectCanceled("PurgeDeadLetters", err2)
			if replayed != 0 || purged != 0 {
				t.Errorf("with an ended ctx, %d replayed and %d purged", replayed, purged)
			}
		}
		calls()

		// Nothing was replayed, purged or browsed (a browse on RabbitMQ marks the job
		// redelivered). Counted first: a count right after a browse may miss what it held.
		if got := f.counts(t, f.queue); got.Ready != 1 {
			t.Errorf("after the calls, %s counts %+v, want its one job", f.queue, got)
		}
		if got := f.counts(t, f.queue+".dead"); got.Ready != 1 {
			t.Errorf("after the calls, the dead-letter queue counts %+v, want its one letter", got)
		}
		if got := f.ids(t, f.queue+".dead", nil); !reflect.DeepEqual(got, []string{dead}) {
			t.Errorf("after the calls, the dead letters are %v, want %s", got, dead)
		}
		if got := f.browse(t, f.queue, nil, 0); len(got) != 1 || got[0].JobID != waiting || got[0].Redelivered {
			held := []string{}
			for _, m := range got {
				held = append(held, fmt.Sprintf("%s (redelivered: %v)", m.JobID, m.Redelivered))
			}
			t.Errorf("after the calls, %s holds %v, want job %s never delivered", f.queue, held, waiting)
		}

		// The ended ctx is all they look at: on a closed client too, it is the error.
		f.client.Close()
		calls()
	})

	t.Run("bad arguments are refused by name", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, b)
		for _, c := range []struct {
			name string
			err  error
		}{
			{"limit", func() error { _, err := f.client.Browse(f.ctx, f.queue, nil, -1); return err }()},
			{"job_id", func() error {
				_, err := f.client.Browse(f.ctx, f.queue, &queuey.MessageFilter{JobIDs: []string{"a\x00b"}}, 0)
				return err
			}()},
			{"older_than", func() error {
				_, err := f.client.PurgeDeadLetters(f.ctx, f.queue, &queuey.MessageFilter{OlderThan: -time.Second})
				return err
			}()},
			{"queue", func() error { _, err := f.client.ReplayDeadLetters(f.ctx, "a\x00b", nil, false); return err }()},
			{"queue_name", func() error { _, err := f.client.QueueCounts(f.ctx, "a\x00b"); return err }()},
		} {
			if !errors.Is(c.err, queuey.ErrInvalidArgument) || !strings.Contains(c.err.Error(), c.name) {
				t.Errorf("%s: got %v, want ErrInvalidArgument naming it", c.name, c.err)
			}
		}
		f.client.Close()
		if _, err := f.client.Browse(f.ctx, f.queue, nil, 0); !errors.Is(err, queuey.ErrClosed) {
			t.Errorf("Browse on a closed client = %v, want ErrClosed", err)
		}
	})
}
