// Command hello is docs/go.md's program of one's own: it enqueues three greet jobs on a
// fresh queue and runs them with a worker, from a module outside queuey's repository.
//
//	hello URL
package main

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"queuey.invalid/queuey"
)

func main() {
	if err := run(context.Background(), os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url string) error {
	client, err := queuey.Dial(ctx, url)
	if err != nil {
		return err
	}
	defer client.Close()
	queue := fmt.Sprintf("hello.%d", time.Now().UnixNano())
	if err := client.Declare(ctx, queuey.NewQueueConfig(queue)); err != nil {
		return err
	}
	producer, err := client.NewProducer(ctx)
	if err != nil {
		return err
	}
	defer producer.Close()
	for _, name := range []string{"Ada", "Grace", "Edsger"} {
		if _, err := producer.Enqueue(ctx, queue, "greet", map[string]string{"name": name}); err != nil {
			return err
		}
	}
	worker, err := client.NewWorker(queue)
	if err != nil {
		return err
	}
	defer worker.Close()
	var greeted atomic.Int64
	err = worker.Handle("greet", func(ctx context.Context, job *queuey.Job) error {
		var who struct{ Name string }
		if err := job.Decode(&who); err != nil {
			return err
		}
		fmt.Printf("hello, %s\n", who.Name)
		if greeted.Add(1) == 3 {
			worker.Shutdown()
		}
		return nil
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := worker.Run(ctx); err != nil {
		return err
	}
	fmt.Printf("%d jobs run\n", greeted.Load())
	if greeted.Load() != 3 {
		return fmt.Errorf("%d of 3 jobs ran", greeted.Load())
	}
	return nil
}
