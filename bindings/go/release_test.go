package queuey_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

// residentBytes is the process's resident memory (/proc/self/statm), after Go gave its
// own free memory back, so that what changes is the C heap's.
func residentBytes(t *testing.T) int64 {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Fatalf("no /proc/self/statm: %v", err)
	}
	fields := bytes.Fields(statm)
	pages, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		t.Fatalf("/proc/self/statm %q: %v", statm, err)
	}
	return pages * int64(os.Getpagesize())
}

const mib = 1 << 20

// publishOnThreads runs publish on each of threads goroutines locked to an OS thread of
// its own, then measure while all of them still live, then release on each (if not nil),
// then measure again; the threads live on until the test ends (their exit would free
// what they keep).
func publishOnThreads(t *testing.T, threads int, publish func() error, measured func(), release func(), released func()) {
	t.Helper()
	var published, releasedAll sync.WaitGroup
	releaseNow, exit := make(chan struct{}), make(chan struct{})
	published.Add(threads)
	releasedAll.Add(threads)
	errs := make(chan error, threads)
	for i := 0; i < threads; i++ {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread() // the thread lives on for the next goroutine
			errs <- publish()
			published.Done()
			<-releaseNow
			if release != nil {
				release()
			}
			releasedAll.Done()
			<-exit
		}()
	}
	t.Cleanup(func() { close(exit) })
	published.Wait()
	for i := 0; i < threads; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("publishing: %v", err)
		}
	}
	measured()
	close(releaseNow)
	releasedAll.Wait()
	released()
}

// 64 OS threads each publish a batch of 1000 jobs of 700 bytes and one job alone on
// RabbitMQ: each keeps its batch's piece and its message (queuey.h, "Memory kept between
// calls"), until it calls ReleaseThreadMemory; ReleaseCachedMemory then gives the freed
// memory back to the system. Again with ReleaseCachedMemory alone, from one goroutine:
// it frees every thread's. The figures are in docs/broker.md, "Memory kept per thread".
func TestBrokerReleaseThreadMemory(t *testing.T) {
	const threads, jobs = 64, 1000
	client, queue := dial(t, brokerBackend(t)), uniqueQueue(t)
	ctx := context.Background() // no Done: each call runs on its goroutine's own thread
	cfg := queuey.NewQueueConfig(queue)
	cfg.Durable = false
	cfg.MessageTTL = time.Millisecond // the broker drops the 130,000 jobs as they come
	if err := client.Declare(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	producer, err := client.NewProducer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { producer.Close() })
	payload := []byte(`"` + strings.Repeat("x", 698) + `"`)
	items := make([]queuey.BatchItem, jobs)
	for i := range items {
		items[i] = queuey.BatchItem{Queue: queue, Type: "kept", Payload: payload}
	}
	publish := func() error {
		if _, err := producer.EnqueueBatch(ctx, items); err != nil {
			return err
		}
		_, err := producer.Enqueue(ctx, queue, "kept", payload)
		return err
	}
	// Before: the connection after 64 threads published at once (its buffers and the
	// confirm tracker's grow with 64,000 jobs in flight, for good), those threads gone.
	var warm sync.WaitGroup
	warm.Add(threads)
	warmErrs := make(chan error, threads)
	for i := 0; i < threads; i++ {
		go func() {
			defer warm.Done()
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			warmErrs <- publish()
		}()
	}
	warm.Wait()
	for i := 0; i < threads; i++ {
		if err := <-warmErrs; err != nil {
			t.Fatal(err)
		}
	}
	queuey.ReleaseCachedMemory()
	before := residentBytes(t)

	var kept, afterThreads, afterCached int64
	publishOnThreads(t, threads, publish,
		func() { kept = residentBytes(t) },
		queuey.ReleaseThreadMemory,
		func() {
			afterThreads = residentBytes(t)
			queuey.ReleaseCachedMemory()
			afterCached = residentBytes(t)
		})
	t.Logf("%d threads: RSS %.1f MiB before, %.1f after publishing (%.2f MiB a thread), "+
		"%.1f after each thread's ReleaseThreadMemory, %.1f after ReleaseCachedMemory",
		threads, float64(before)/mib, float64(kept)/mib, float64(kept-before)/mib/threads,
		float64(afterThreads)/mib, float64(afterCached)/mib)
	// Each thread keeps about 1.9 MiB (a piece of 1000 messages, PublishBatch::kept_bytes),
	// and malloc what the call freed (the 1000 envelopes): measured 2.8 to 3.1 MiB a thread.
	// ReleaseThreadMemory frees the piece to malloc, which keeps it for the process's next
	// allocations (measured: 0 to 8 MiB fewer resident); ReleaseCachedMemory has malloc
	// give it back (165 to 182 MiB fewer). What stays is each live thread's own: its
	// stack's touched pages and malloc's per-thread cache (glibc's tcache, freed when the
	// thread exits), measured 0.15 to 0.3 MiB a thread.
	checkReleased := func(what string, grown, left int64, liveThreads int) {
		t.Helper()
		if grown < threads*2*mib {
			t.Errorf("%s: RSS grew by %.1f MiB publishing on %d threads, want at least %d MiB: "+
				"does a thread still keep its piece?", what, float64(grown)/mib, threads, 2*threads)
		}
		if dropped := grown - left; dropped < threads*2*mib {
			t.Errorf("%s: RSS fell by %.1f MiB, want at least %d MiB", what, float64(dropped)/mib,
				2*threads)
		}
		if left > int64(liveThreads)*mib/2 {
			t.Errorf("%s: RSS %.1f MiB above before with %d threads alive, want at most %.1f MiB",
				what, float64(left)/mib, liveThreads, float64(liveThreads)/2)
		}
	}
	checkReleased("each thread's ReleaseThreadMemory, then ReleaseCachedMemory",
		kept-before, afterCached-before, threads)

	// ReleaseCachedMemory alone, from this goroutine, frees what every thread keeps.
	var keptAgain, afterAll int64
	publishOnThreads(t, threads, publish,
		func() { keptAgain = residentBytes(t) },
		nil,
		func() {
			queuey.ReleaseCachedMemory()
			afterAll = residentBytes(t)
		})
	t.Logf("64 threads more: RSS %.1f MiB after publishing, %.1f after one ReleaseCachedMemory",
		float64(keptAgain)/mib, float64(afterAll)/mib)
	checkReleased("ReleaseCachedMemory alone", keptAgain-afterCached, afterAll-afterCached, threads)
}
