package queuey_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

// Real signals to a real process: the test binary runs itself again as a worker
// (runSignalWorker, from TestMain), stopping on signals the way docs/worker.md tells Go users to.

const (
	signalJobs        = 10
	signalPrefetch    = 6 // unacknowledged deliveries, the running ones included
	signalConcurrency = 2
	signalJobLength   = 2 * time.Second
)

func signalQueueConfig(name string) queuey.QueueConfig {
	cfg := queuey.NewQueueConfig(name)
	cfg.Durable = false
	cfg.Prefetch = signalPrefetch
	return cfg
}

// TestMain runs the worker process (runSignalWorker) when a parent starts this binary as
// one, instead of the tests.
func TestMain(m *testing.M) {
	url, queue := os.Getenv("QUEUEY_SIGNAL_CHILD_URL"), os.Getenv("QUEUEY_SIGNAL_CHILD_QUEUE")
	if url == "" || queue == "" {
		os.Exit(m.Run())
	}
	if err := runSignalWorker(url, queue); err != nil {
		fmt.Fprintln(os.Stderr, "signal worker:", err)
		os.Exit(1)
	}
	fmt.Println("run returned")
	os.Exit(0)
}

// runSignalWorker is the worker process's side of the TestBroker*SIGTERM* tests.
func runSignalWorker(url, queue string) error {
	// As examples/go/worker does: after the first signal, Go's default again.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop)

	client, err := queuey.Dial(ctx, url)
	if err != nil {
		return err
	}
	defer client.Close()
	if err := client.Declare(ctx, signalQueueConfig(queue)); err != nil {
		return err
	}
	w, err := client.NewWorker(queue)
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.SetConcurrency(signalConcurrency); err != nil {
		return err
	}
	if err := w.Handle("sleep", func(_ context.Context, job *queuey.Job) error {
		fmt.Printf("started %s %d\n", job.ID, job.Attempt)
		time.Sleep(signalJobLength)
		fmt.Printf("finished %s\n", job.ID)
		return nil
	}); err != nil {
		return err
	}
	return w.Run(ctx)
}

// signalChild is a running worker process (runSignalWorker) and the lines it printed.
type signalChild struct {
	cmd     *exec.Cmd
	stderr  bytes.Buffer // read only once exited is closed
	mu      sync.Mutex
	lines   []string
	changed chan struct{}
	drained chan struct{} // all of stdout is in lines
	exited  chan struct{}
	endedAt time.Time // set before exited is closed
	// When the parent saw the first jobs start: they end signalJobLength later.
	jobsStarted time.Time
}

func startSignalChild(t *testing.T, url, queue string) *signalChild {
	t.Helper()
	c := &signalChild{changed: make(chan struct{}, 1), drained: make(chan struct{}), exited: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0])
	c.cmd.Env = append(os.Environ(), "QUEUEY_SIGNAL_CHILD_URL="+url, "QUEUEY_SIGNAL_CHILD_QUEUE="+queue)
	// An *os.File, so that Wait returns when the process ends, not when the pipe does.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	c.cmd.Stdout, c.cmd.Stderr = w, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	go func() {
		defer close(c.drained)
		defer r.Close()
		for scanner := bufio.NewScanner(r); scanner.Scan(); {
			c.mu.Lock()
			c.lines = append(c.lines, scanner.Text())
			c.mu.Unlock()
			select {
			case c.changed <- struct{}{}:
			default:
			}
		}
	}()
	go func() {
		c.cmd.Wait()
		c.endedAt = time.Now()
		close(c.exited)
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.exited
		if t.Failed() {
			t.Logf("the worker process printed %q and on stderr:\n%s", c.printed(""), c.stderr.String())
		}
	})
	return c
}

// printed is the lines that begin with prefix.
func (c *signalChild) printed(prefix string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var lines []string
	for _, line := range c.lines {
		if strings.HasPrefix(line, prefix) {
			lines = append(lines, line)
		}
	}
	return lines
}

func (c *signalChild) waitPrinted(t *testing.T, prefix string, n int) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for len(c.printed(prefix)) < n {
		select {
		case <-c.changed:
		case <-c.exited:
			t.Fatalf("the worker process ended (%v) before printing %d lines %q", c.cmd.ProcessState, n, prefix)
		case <-timeout:
			t.Fatalf("timed out waiting for %d lines %q", n, prefix)
		}
	}
}

func (c *signalChild) signal(t *testing.T) time.Time {
	t.Helper()
	sent := time.Now()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	return sent
}

// waitExit waits up to limit for the process to end and says how long after since.
func (c *signalChild) waitExit(t *testing.T, since time.Time, limit time.Duration) (*os.ProcessState, time.Duration) {
	t.Helper()
	select {
	case <-c.exited:
	case <-time.After(limit + time.Until(since)):
		t.Fatalf("the worker process still runs %v after the signal", limit)
	}
	<-c.drained
	return c.cmd.ProcessState, c.endedAt.Sub(since)
}

func readyCount(t *testing.T, ctx context.Context, client *queuey.Client, queue string) uint64 {
	t.Helper()
	counts, err := client.QueueCounts(ctx, queue)
	if err != nil {
		t.Fatal(err)
	}
	return counts.Ready
}

// startSignalWorkerProcess enqueues the jobs, then starts the worker process and waits
// until it runs signalConcurrency of them and holds its prefetch full.
func startSignalWorkerProcess(t *testing.T) (*signalChild, *queuey.Client, string, []string) {
	t.Helper()
	b := brokerBackend(t)
	ctx, client, queue := testContext(t), dial(t, b), uniqueQueue(t)
	if err := client.Declare(ctx, signalQueueConfig(queue)); err != nil {
		t.Fatal(err)
	}
	producer, err := client.NewProducer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	var ids []string
	for i := range signalJobs {
		id, err := producer.Enqueue(ctx, queue, "sleep", i)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	c := startSignalChild(t, b.url, queue)
	c.waitPrinted(t, "started ", signalConcurrency)
	c.jobsStarted = time.Now()
	eventually(t, "the worker process to hold its prefetch", func() bool {
		return readyCount(t, ctx, client, queue) == signalJobs-signalPrefetch
	})
	return c, client, queue, ids
}

func TestBrokerFirstSIGTERMDrainsRunningJobsAndGivesBackTheRest(t *testing.T) {
	c, client, queue, ids := startSignalWorkerProcess(t)
	ctx := testContext(t)

	sent := c.signal(t)
	// The prefetched jobs go back while the running ones still run; the broker
	// never sent the others.
	eventually(t, "the jobs not started to be ready", func() bool {
		return readyCount(t, ctx, client, queue) == signalJobs-signalConcurrency
	})
	givenBack := time.Since(sent)
	select {
	case <-c.exited:
		t.Errorf("the jobs not started were given back only once the worker process had ended")
	default:
	}
	state, took := c.waitExit(t, sent, 5*time.Second)
	t.Logf("SIGTERM %v after the jobs started: the jobs not started were ready again in %v, "+
		"the worker process exited in %v", sent.Sub(c.jobsStarted), givenBack, took)
	if !state.Success() {
		t.Fatalf("the worker process ended with %v, want exit status 0", state)
	}
	started, finished := c.printed("started "), c.printed("finished ")
	if len(started) != signalConcurrency || len(finished) != signalConcurrency {
		t.Errorf("the worker process started %q and finished %q, want %d of each",
			started, finished, signalConcurrency)
	}
	if got := c.printed("run returned"); len(got) != 1 {
		t.Errorf("the worker process printed %q, want Run to return once", got)
	}
	if n := readyCount(t, ctx, client, queue); n != signalJobs-signalConcurrency {
		t.Fatalf("%d jobs ready once the worker process ended, want %d", n, signalJobs-signalConcurrency)
	}

	w, err := client.NewWorker(queue)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec := newRecorder()
	register(t, w, "sleep", func(_ context.Context, job *queuey.Job) error {
		rec.ran(job)
		return nil
	})
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	rec.waitFor(t, signalJobs-signalConcurrency, 0)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}

	ran := map[string]int{}
	for _, line := range started {
		ran[strings.Fields(line)[1]]++
	}
	runs, dead := rec.snapshot()
	for _, run := range runs {
		ran[run.ID]++
		if run.Attempt != 1 {
			t.Errorf("job %s ran at attempt %d, want 1", run.ID, run.Attempt)
		}
	}
	for _, id := range ids {
		if ran[id] != 1 {
			t.Errorf("job %s ran %d times, want once", id, ran[id])
		}
	}
	if len(runs) != signalJobs-signalConcurrency || len(dead) != 0 {
		t.Errorf("the second worker ran %d jobs and dead-lettered %+v, want %d and none",
			len(runs), dead, signalJobs-signalConcurrency)
	}
	if n, lost := w.Counter(queuey.CounterSucceeded), w.Counter(queuey.CounterWorkerLost); n != uint64(len(runs)) || lost != 0 {
		t.Errorf("the second worker counts %d succeeded and %d lost runs, want %d and 0", n, lost, len(runs))
	}
	if n := readyCount(t, ctx, client, queue+".dead"); n != 0 {
		t.Errorf("%s.dead holds %d jobs, want none", queue, n)
	}
}

func TestBrokerSecondSIGTERMEndsTheProcessAtOnce(t *testing.T) {
	c, client, queue, _ := startSignalWorkerProcess(t)
	ctx := testContext(t)

	c.signal(t)
	time.Sleep(200 * time.Millisecond)
	state, took := c.waitExit(t, c.signal(t), time.Second)
	t.Logf("the worker process ended %v after the second SIGTERM", took)
	if status, ok := state.Sys().(syscall.WaitStatus); !ok || !status.Signaled() || status.Signal() != syscall.SIGTERM {
		t.Errorf("the worker process ended with %v, want killed by SIGTERM", state)
	}
	if got := c.printed("run returned"); len(got) != 0 {
		t.Errorf("the worker process printed %q, want Run not to return", got)
	}
	// The broker requeues what the process held: no job may be lost.
	finished := len(c.printed("finished "))
	eventually(t, "every job not finished to be ready", func() bool {
		return readyCount(t, ctx, client, queue)+uint64(finished) == signalJobs
	})
}
