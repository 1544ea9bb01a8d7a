// Command producer puts COUNT send_email jobs (default 10) on the queue example.emails.
//
//	producer [URL [COUNT]]      URL defaults to $QUEUEY_URL, e.g. amqp://guest:guest@localhost/
//
// Run the worker example to take them off again.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

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
	if err := run(context.Background(), url, count); err != nil {
		fmt.Fprintln(os.Stderr, "producer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, url string, count int) error {
	client, err := queuey.Dial(ctx, url)
	if err != nil {
		return err
	}
	defer client.Close()
	if err := client.Declare(ctx, queuey.NewQueueConfig("example.emails")); err != nil {
		return err
	}
	producer, err := client.NewProducer(ctx)
	if err != nil {
		return err
	}
	defer producer.Close()
	for i := 0; i < count; i++ {
		mail := email{To: fmt.Sprintf("user%d@example.com", i), Subject: fmt.Sprintf("hello #%d", i)}
		id, err := producer.Enqueue(ctx, "example.emails", "send_email", mail)
		if err != nil {
			return err
		}
		fmt.Println("enqueued", id, mail.To)
	}
	return nil
}
