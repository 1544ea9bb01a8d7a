package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"time"

	"queuey.invalid/queuey"
)

// invocation is the line printed for each handler invocation, fields in contract order.
type invocation struct {
	Impl      string          `json:"impl"`
	JobID     string          `json:"job_id"`
	JobType   string          `json:"job_type"`
	Attempt   uint32          `json:"attempt"`
	Deferrals uint32          `json:"deferrals"`
	Priority  uint8           `json:"priority"`
	Payload   json.RawMessage `json:"payload"`
	Outcome   string          `json:"outcome"`
}

// contract is the handler of every job type of the contract: its outcome's name and error.
func contract(job *queuey.Job) (string, error) {
	switch {
	case job.Type == "always-retry", job.Type == "retry-once" && job.Attempt == 1:
		return "retry", queuey.Retry(errors.New("xlang retry"))
	case job.Type == "fatal":
		return "fatal", queuey.Fatal(errors.New("xlang fatal"))
	case job.Type == "defer-once" && job.Deferrals == 0:
		return "defer", queuey.Defer(time.Second, "xlang defer")
	}
	return "ok", nil
}

// progress counts invocations and prints their lines, one goroutine at a time.
type progress struct {
	mu      sync.Mutex
	handled uint64
	wanted  uint64
	out     *json.Encoder
	done    func() // called once the wanted count is reached
}

func (p *progress) report(job *queuey.Job, outcome string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	err := p.out.Encode(invocation{"go", job.ID, job.Type, job.Attempt, job.Deferrals, job.Priority, job.Payload, outcome})
	if p.handled++; p.handled == p.wanted {
		p.done()
	}
	return err
}

func (p *progress) count() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.handled
}

func work(args []string) error {
	flags := flag.NewFlagSet("work", flag.ContinueOnError)
	url := flags.String("url", "", "")
	queue := flags.String("queue", "", "")
	handled := flags.Uint64("handled", 0, "")
	timeoutS := flags.Uint64("timeout-s", 60, "")
	if err := parse("work", args, flags, "url", "queue", "handled"); err != nil {
		return err
	}

	client, err := connect(context.Background(), *url, *queue)
	if err != nil {
		return err
	}
	defer client.Close()
	worker, err := client.NewWorker(*queue)
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer worker.Close()
	policy := queuey.RetryPolicy{MaxAttempts: 3, Backoff: queuey.FixedBackoff{Delay: time.Second}}
	if err := worker.SetQueueRetry(*queue, policy); err != nil {
		return fmt.Errorf("retry policy: %w", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*timeoutS)*time.Second)
	defer cancel()
	out := json.NewEncoder(os.Stdout) // os.Stdout is unbuffered: every line goes out at once
	out.SetEscapeHTML(false)
	p := &progress{wanted: *handled, out: out, done: worker.Shutdown}
	for _, jobType := range []string{"ok", "retry-once", "always-retry", "fatal", "defer-once"} {
		err := worker.Handle(jobType, func(ctx context.Context, job *queuey.Job) error {
			outcome, err := contract(job)
			if perr := p.report(job, outcome); perr != nil {
				fmt.Fprintf(os.Stderr, "xlang-go: printing: %v\n", perr)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("register %s: %w", jobType, err)
		}
	}
	if *handled == 0 {
		worker.Shutdown()
	}
	if err := worker.Run(ctx); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if n := p.count(); n < *handled {
		return fmt.Errorf("timed out after %d s with %d of %d invocations handled", *timeoutS, n, *handled)
	}
	return nil
}
