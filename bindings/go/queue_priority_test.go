package queuey_test

import (
	"context"
	"fmt"
	"testing"

	"queuey.invalid/queuey"
)

// Every max priority from none (0) to 255 reaches the declaration as given: the same value
// declares again, any other is the broker's PRECONDITION_FAILED (memory:// checks the
// arguments as RabbitMQ does).
func TestAnyMaxPriorityFromNoneTo255IsDeclaredAsGiven(t *testing.T) {
	ctx := context.Background()
	client, err := queuey.Dial(ctx, "memory://")
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	for _, max := range []uint8{0, 1, 2, 255} {
		cfg := queuey.NewQueueConfig(fmt.Sprintf("priority-%d", max))
		cfg.MaxPriority = max
		if err := client.Declare(ctx, cfg); err != nil {
			t.Fatalf("max priority %d: %v", max, err)
		}
		if err := client.Declare(ctx, cfg); err != nil {
			t.Errorf("max priority %d declared again: %v", max, err)
		}
		other := cfg
		other.MaxPriority = max ^ 1
		expectError(t, fmt.Sprintf("max priority %d declared as %d", max, other.MaxPriority),
			client.Declare(ctx, other), queuey.ErrPreconditionFailed, cfg.Name)
	}
}
