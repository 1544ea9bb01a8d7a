package queuey_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

// A forgotten client is freed by its finalizer, and C then releases what it held: the
// logger's cgo handle, after which the logger itself can be collected.
func TestFinalizerFreesAForgottenClient(t *testing.T) {
	collected := make(chan struct{})
	func() {
		marker := new(int)
		runtime.SetFinalizer(marker, func(*int) { close(collected) })
		client, err := queuey.Dial(context.Background(), "memory://", queuey.WithLogger(func(queuey.LogLevel, string) {
			_ = *marker
		}))
		if err != nil {
			t.Fatal(err)
		}
		if err := client.Declare(context.Background(), queuey.NewQueueConfig("q")); err != nil {
			t.Fatal(err)
		}
		if _, err := client.NewProducer(context.Background()); err != nil { // forgotten too
			t.Fatal(err)
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		select {
		case <-collected:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the logger of a forgotten client was never released")
}

// Whatever the bytes, decoding returns an envelope or a bad-JSON / bad-envelope error,
// and a decoded envelope encodes to a body that decodes again. The seeds are the
// golden bodies; `go test -fuzz FuzzEnvelopeFromBytes` explores further.
func FuzzEnvelopeFromBytes(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join(vectorsDir(), "bodies", "*"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed bodies: %v", err)
	}
	for _, seed := range seeds {
		data, err := os.ReadFile(seed)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := queuey.EnvelopeFromBytes(data)
		if err != nil {
			if !errors.Is(err, queuey.ErrBadJSON) && !errors.Is(err, queuey.ErrBadEnvelope) {
				t.Fatalf("decoding %q: %v", data, err)
			}
			return
		}
		defer env.Close()
		body, err := env.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		again, err := queuey.EnvelopeFromBytes(body)
		if err != nil {
			t.Fatalf("the encoding %s of %q does not decode: %v", body, data, err)
		}
		again.Close()
	})
}
