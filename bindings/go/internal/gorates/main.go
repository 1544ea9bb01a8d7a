// Command gorates measures the binding-benchmark workloads through package queuey, as
// the C reference (bench/bindings/c_rates) does through the C API:
//
//	gorates enqueue URL QUEUE N   declare QUEUE (defaults), enqueue N "noop" jobs with
//	                              payload {"n": i} one at a time, each confirmed;
//	                              prints `rate enqueue JOBS_PER_S`
//	gorates drain URL QUEUE N     declare QUEUE, preload N "noop" jobs (untimed, batch
//	                              enqueue), then time a worker with concurrency 1 and a
//	                              no-op handler from Run until it returns (the N-th job's
//	                              handler asks it to stop); prints `rate drain JOBS_PER_S`
//
// Timed enqueues include marshalling each payload with encoding/json, as a Go user's
// enqueue does. On failure: a `gorates: ...` line on stderr and exit status 1 (2 for bad
// usage).
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"queuey.invalid/queuey"
)

const (
	usage        = "usage: gorates enqueue|drain URL QUEUE N"
	preloadBatch = 1000
)

type payload struct {
	N int `json:"n"`
}

func main() {
	if len(os.Args) != 5 || (os.Args[1] != "enqueue" && os.Args[1] != "drain") {
		fmt.Fprintf(os.Stderr, "gorates: expected a workload, URL, queue and count\n%s\n", usage)
		os.Exit(2)
	}
	workload, url, queue := os.Args[1], os.Args[2], os.Args[3]
	n, err := strconv.Atoi(os.Args[4])
	if err != nil || n <= 0 {
		fmt.Fprintf(os.Stderr, "gorates: N must be a positive number, not %q\n%s\n", os.Args[4], usage)
		os.Exit(2)
	}
	seconds, err := measure(workload, url, queue, n)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gorates: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("rate %s %.1f\n", workload, float64(n)/seconds)
}

func measure(workload, url, queue string, n int) (float64, error) {
	ctx := context.Background()
	client, err := queuey.Dial(ctx, url)
	if err != nil {
		return 0, fmt.Errorf("connecting: %w", err)
	}
	defer client.Close()
	if err := client.Declare(ctx, queuey.NewQueueConfig(queue)); err != nil {
		return 0, fmt.Errorf("declaring the queue: %w", err)
	}
	producer, err := client.NewProducer(ctx)
	if err != nil {
		return 0, fmt.Errorf("creating a producer: %w", err)
	}
	defer producer.Close()
	if workload == "enqueue" {
		return enqueue(ctx, producer, queue, n)
	}
	if err := preload(ctx, producer, queue, n); err != nil {
		return 0, err
	}
	return drain(ctx, client, queue, n)
}

func enqueue(ctx context.Context, producer *queuey.Producer, queue string, n int) (float64, error) {
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, err := producer.Enqueue(ctx, queue, "noop", payload{i}); err != nil {
			return 0, fmt.Errorf("enqueueing: %w", err)
		}
	}
	return time.Since(start).Seconds(), nil
}

func preload(ctx context.Context, producer *queuey.Producer, queue string, n int) error {
	for first := 0; first < n; first += preloadBatch {
		items := make([]queuey.BatchItem, min(preloadBatch, n-first))
		for i := range items {
			items[i] = queuey.BatchItem{Queue: queue, Type: "noop", Payload: payload{first + i}}
		}
		if _, err := producer.EnqueueBatch(ctx, items); err != nil {
			return fmt.Errorf("preloading: %w", err)
		}
	}
	return nil
}

func drain(ctx context.Context, client *queuey.Client, queue string, n int) (float64, error) {
	worker, err := client.NewWorker(queue)
	if err != nil {
		return 0, fmt.Errorf("creating a worker: %w", err)
	}
	defer worker.Close()
	if err := worker.SetConcurrency(1); err != nil {
		return 0, fmt.Errorf("setting the concurrency: %w", err)
	}
	remaining := n // only the worker's one thread touches it (concurrency 1)
	if err := worker.Handle("noop", func(context.Context, *queuey.Job) error {
		if remaining--; remaining == 0 {
			worker.Shutdown()
		}
		return nil
	}); err != nil {
		return 0, fmt.Errorf("registering the handler: %w", err)
	}
	start := time.Now()
	if err := worker.Run(ctx); err != nil {
		return 0, fmt.Errorf("running the worker: %w", err)
	}
	seconds := time.Since(start).Seconds()
	if acked := worker.Counter(queuey.CounterSucceeded); acked != uint64(n) {
		return 0, fmt.Errorf("the worker acked %d jobs, expected %d", acked, n)
	}
	return seconds, nil
}
