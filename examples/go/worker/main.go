// Command worker runs the send_email jobs of the queue example.emails until COUNT of
// them (default 10) have succeeded, or until interrupted. The first attempt of every
// third job fails, as if the mail server were busy; queuey retries it after a backoff
// (3 attempts at most).
//
//	worker [URL [COUNT]]        URL defaults to $QUEUEY_URL
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"queuey.invalid/queuey"
)

type email struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
}

func main() {
	url, count := os.Getenv("QUEUEY_URL"), 10
	if len(os.Args) > 1 {
		url = os.Args[1]
	}
	if len(os.Args) > 2 {
		count, _ = strconv.Atoi(os.Args[2])
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal shuts the worker down gracefully; from then on the signals are
	// Go's again, so that a second one ends the process at once.
	context.AfterFunc(ctx, stop)
	if err := run(ctx, url, int64(count)); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url string, count int64) error {
	client, err := queuey.Dial(ctx, url)
	if err != nil {
		return err
	}
	defer client.Close()
	if err := client.Declare(ctx, queuey.NewQueueConfig("example.emails")); err != nil {
		return err
	}
	worker, err := client.NewWorker("example.emails")
	if err != nil {
		return err
	}
	defer worker.Close()

	var seen, sent atomic.Int64
	retry := queuey.RetryPolicy{MaxAttempts: 3, Backoff: queuey.ExponentialBackoff{
		Base: time.Second, Factor: 2, Max: 10 * time.Second}}
	err = worker.HandleWithRetry("send_email", retry, func(ctx context.Context, job *queuey.Job) error {
		var mail email
		if err := job.Decode(&mail); err != nil {
			return err // dead-lettered: a payload this handler cannot read
		}
		if job.Attempt == 1 && seen.Add(1)%3 == 0 {
			return errors.New("smtp: 421 mail server busy") // retryable
		}
		fmt.Printf("sent %s to %s (attempt %d)\n", job.ID, mail.To, job.Attempt)
		if sent.Add(1) == count {
			worker.Shutdown() // Run returns once the jobs it received are settled
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("waiting for %d send_email jobs on example.emails\n", count)
	if err := worker.Run(ctx); err != nil {
		return err
	}
	fmt.Printf("done: %d sent, %d retries\n", sent.Load(), worker.Counter(queuey.CounterRetried))
	return nil
}
