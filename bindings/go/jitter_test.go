package queuey_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

// ExponentialBackoff jitters by default (as in C++ and Python) and NoJitter turns it
// off: of jobs that fail once with a 1 s backoff, an exact one is never retried sooner,
// while jittered ones (uniform in [0, 1 s]) come back sooner, some within half of it (16
// jobs all at least 0.5 s: chance 2^-16).
func TestMemoryRetryBackoffJittersUnlessNoJitter(t *testing.T) {
	const backoff, jobs = time.Second, 16
	for _, noJitter := range []bool{false, true} {
		t.Run(fmt.Sprint("NoJitter=", noJitter), func(t *testing.T) {
			t.Parallel()
			f, rec := newFixture(t, memoryBackend), newRecorder()
			policy := queuey.RetryPolicy{MaxAttempts: 2, Backoff: queuey.ExponentialBackoff{
				Base: backoff, Factor: 2, Max: backoff, NoJitter: noJitter}}
			var mu sync.Mutex
			failedAt := map[string]time.Time{}
			var waits []time.Duration
			f.startWorker(t, rec, func(w *queuey.Worker) {
				err := w.HandleWithRetry("flaky", policy, func(ctx context.Context, job *queuey.Job) error {
					mu.Lock()
					defer mu.Unlock()
					if job.Attempt == 1 {
						failedAt[job.ID] = time.Now() // before the retry is published
						return errors.New("fails once")
					}
					waits = append(waits, time.Since(failedAt[job.ID]))
					rec.ran(job)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			})
			for n := 0; n < jobs; n++ {
				f.enqueue(t, "flaky", nil)
			}
			rec.waitFor(t, jobs, 0)
			mu.Lock()
			defer mu.Unlock()
			slices.Sort(waits)
			if noJitter && waits[0] < backoff {
				t.Errorf("with NoJitter a retry came %v after its failure, want at least %v: %v", waits[0], backoff, waits)
			}
			if !noJitter && waits[0] >= backoff/2 {
				t.Errorf("by default every retry waited at least %v of the %v backoff, want jittered waits: %v",
					waits[0], backoff, waits)
			}
		})
	}
}

// Reconnect jitters by default and NoJitter turns it off. The proxy between the client
// and the broker cuts the connections, then refuses every attempt to reconnect: each
// connection tries at once, then again after each wait, which is Base without jitter and
// uniform in [0, Base] with it. Of k connections, k+1 successive attempts hold two of one
// connection, so without jitter they span at least Base; with it, of some 15 waits per
// connection, one is below 3/4 of Base (all at least: chance 4^-15).
func TestBrokerReconnectJittersUnlessNoJitter(t *testing.T) {
	broker, err := url.Parse(brokerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	if broker.Scheme != "amqp" {
		t.Skipf("the proxy in front of the broker forwards plain amqp://, not %s://", broker.Scheme)
	}
	const base, watch = 300 * time.Millisecond, 3 * time.Second
	for _, noJitter := range []bool{false, true} {
		t.Run(fmt.Sprint("NoJitter=", noJitter), func(t *testing.T) {
			t.Parallel()
			p := startProxy(t, broker.Host)
			proxied := *broker
			proxied.Host = p.addr()
			client, err := queuey.Dial(testContext(t), proxied.String(), queuey.WithLogger(nil),
				queuey.WithReconnect(queuey.Reconnect{MaxAttempts: -1, Base: base, Factor: 2, Max: base, NoJitter: noJitter}))
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			k := p.cut()
			if k == 0 {
				t.Fatal("the client made no connection through the proxy")
			}
			time.Sleep(watch)
			attempts := p.refusals()
			client.Close()

			if len(attempts) < 4*k {
				t.Fatalf("%d reconnect attempts of %d connection(s) in %v: the client did not reconnect", len(attempts), k, watch)
			}
			// spans[i]: from attempt i to attempt i+k.
			spans := make([]time.Duration, len(attempts)-k)
			for i := range spans {
				spans[i] = attempts[i+k].Sub(attempts[i])
			}
			shortest := slices.Min(spans)
			t.Logf("%d connection(s) cut, %d reconnect attempts in %v; the shortest span of %d+1 of them: %v",
				k, len(attempts), watch, k, shortest)
			if noJitter && shortest < base {
				t.Errorf("with NoJitter, %d+1 attempts came within %v, want at least %v between a connection's attempts: %v",
					k, shortest, base, spans)
			}
			if !noJitter && shortest >= base*3/4 {
				t.Errorf("by default, %d+1 attempts always spanned at least %v, want jittered waits below %v: %v",
					k, shortest, base*3/4, spans)
			}
		})
	}
}

// proxy forwards TCP connections to the broker until cut, and from then on accepts and
// closes at once every connection, noting when it came.
type proxy struct {
	listener net.Listener
	mu       sync.Mutex
	cutOff   bool
	open     []net.Conn  // both ends of each forwarded connection
	accepted int         // forwarded connections
	refused  []time.Time // when each connection after the cut came
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{listener: listener}
	go p.serve(target)
	t.Cleanup(func() {
		listener.Close()
		p.cut()
	})
	return p
}

func (p *proxy) addr() string { return p.listener.Addr().String() }

func (p *proxy) serve(target string) {
	for {
		conn, err := p.listener.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cutOff {
			p.refused = append(p.refused, time.Now())
			p.mu.Unlock()
			conn.Close()
			continue
		}
		p.mu.Unlock()
		upstream, err := net.Dial("tcp", target)
		if err != nil {
			conn.Close()
			continue
		}
		p.mu.Lock()
		if p.cutOff {
			p.mu.Unlock()
			conn.Close()
			upstream.Close()
			continue
		}
		p.accepted++
		p.open = append(p.open, conn, upstream)
		p.mu.Unlock()
		go pipe(conn, upstream)
		go pipe(upstream, conn)
	}
}

func pipe(to, from net.Conn) {
	_, _ = io.Copy(to, from)
	to.Close()
	from.Close()
}

// cut closes the forwarded connections, refuses every later one, and returns how many
// were forwarded.
func (p *proxy) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutOff = true
	for _, conn := range p.open {
		conn.Close()
	}
	p.open = nil
	return p.accepted
}

// refusals are the times at which the connections after the cut came, in order.
func (p *proxy) refusals() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.refused)
}
