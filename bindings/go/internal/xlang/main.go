// Command xlang is the Go side of the cross-implementation CLI contract
// (enqueue, work and schedule; see the project's xlang contract), over package queuey.
//
//	xlang enqueue --url URL --queue Q --type T --payload JSON [--after-ms N | --defer-ms N] [--correlation-id C]
//	xlang work --url URL --queue Q --handled N [--timeout-s S]
//	xlang schedule --url URL --group G --name N --queue Q --connection-name C [--catch-up K]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"queuey.invalid/queuey"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: xlang enqueue|work|schedule --url URL ..."))
	}
	var err error
	switch command, args := os.Args[1], os.Args[2:]; command {
	case "enqueue":
		err = enqueue(args)
	case "work":
		err = work(args)
	case "schedule":
		err = schedule(args)
	default:
		err = fmt.Errorf("unknown command %q (enqueue, work, schedule)", command)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "xlang-go: %v\n", err)
	os.Exit(1)
}

// parse parses args into flags, which must all be given (but the optional ones).
func parse(name string, args []string, flags *flag.FlagSet, required ...string) error {
	flags.SetOutput(io.Discard)
	if err := flags.Parse(args); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if flags.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", name, flags.Arg(0))
	}
	given := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, r := range required {
		if !given[r] {
			return fmt.Errorf("%s: --%s is required", name, r)
		}
	}
	return nil
}

// connect dials url and declares queue with queuey's defaults.
func connect(ctx context.Context, url, queue string) (*queuey.Client, error) {
	client, err := queuey.Dial(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if err := client.Declare(ctx, queuey.NewQueueConfig(queue)); err != nil {
		client.Close()
		return nil, fmt.Errorf("declare: %w", err)
	}
	return client, nil
}

func enqueue(args []string) error {
	flags := flag.NewFlagSet("enqueue", flag.ContinueOnError)
	url := flags.String("url", "", "")
	queue := flags.String("queue", "", "")
	jobType := flags.String("type", "", "")
	payload := flags.String("payload", "", "")
	afterMs := flags.Uint64("after-ms", 0, "")
	deferMs := flags.Uint64("defer-ms", 0, "")
	correlationID := flags.String("correlation-id", "", "")
	if err := parse("enqueue", args, flags, "url", "queue", "type", "payload"); err != nil {
		return err
	}
	given := map[string]bool{}
	flags.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["after-ms"] && given["defer-ms"] {
		return fmt.Errorf("enqueue: --after-ms and --defer-ms exclude each other")
	}

	ctx := context.Background()
	client, err := connect(ctx, *url, *queue)
	if err != nil {
		return err
	}
	defer client.Close()
	producer, err := client.NewProducer(ctx)
	if err != nil {
		return fmt.Errorf("producer: %w", err)
	}
	defer producer.Close()
	body := []byte(*payload) // passed verbatim
	opts := []queuey.EnqueueOption{queuey.WithCorrelationID(*correlationID)}
	var id string
	switch {
	case given["after-ms"]:
		id, err = producer.EnqueueAfter(ctx, time.Duration(*afterMs)*time.Millisecond, *queue, *jobType, body, opts...)
	case given["defer-ms"]:
		id, err = producer.Defer(ctx, time.Duration(*deferMs)*time.Millisecond, *queue, *jobType, body, opts...)
	default:
		id, err = producer.Enqueue(ctx, *queue, *jobType, body, opts...)
	}
	if err != nil {
		return fmt.Errorf("enqueue: %w", err)
	}
	fmt.Println(id)
	return nil
}
