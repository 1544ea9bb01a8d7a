package queuey_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"queuey.invalid/queuey"
)

// jobsSample is the queuey_jobs_total line of queue, jobType and outcome with its value.
func jobsSample(queue, jobType, outcome string, value int) string {
	return fmt.Sprintf("queuey_jobs_total{queue=%q,job_type=%q,outcome=%q} %d\n", queue, jobType, outcome, value)
}

// metricsFixture runs a worker on memory:// over two jobs of type "ok" (they succeed)
// and one of type "bad" (a retry, then a fatal error), and waits until their outcomes
// show in the metrics and no job is in flight: a worker thread counts a job's outcome
// when it settles it, and takes it off the in-flight gauge just after.
func metricsFixture(t *testing.T) (*fixture, *queuey.Worker, string) {
	t.Helper()
	f, rec := newFixture(t, memoryBackend), newRecorder()
	w := f.startWorker(t, rec, func(w *queuey.Worker) {
		register(t, w, "ok", func(ctx context.Context, job *queuey.Job) error {
			rec.ran(job)
			return nil
		})
		register(t, w, "bad", func(ctx context.Context, job *queuey.Job) error {
			rec.ran(job)
			if job.Attempt == 1 {
				return queuey.Retry(errors.New("not yet"))
			}
			return queuey.Fatal(errors.New("never"))
		})
	})
	f.enqueue(t, "ok", map[string]int{"n": 1})
	f.enqueue(t, "ok", map[string]int{"n": 2})
	f.enqueue(t, "bad", map[string]int{"n": 3})
	rec.waitFor(t, 4, 1)
	var text string
	eventually(t, "the outcomes in the metrics, no job in flight", func() bool {
		var err error
		if text, err = w.MetricsText(); err != nil {
			t.Fatalf("MetricsText: %v", err)
		}
		return strings.Contains(text, jobsSample(f.queue, "ok", "succeeded", 2)) &&
			strings.Contains(text, jobsSample(f.queue, "bad", "dead_lettered", 1)) &&
			strings.Contains(text, "queuey_worker_jobs_in_flight 0\n")
	})
	return f, w, text
}

func TestMemoryMetricsText(t *testing.T) {
	f, _, text := metricsFixture(t)
	for _, want := range []string{
		"# TYPE queuey_jobs_total counter\n",
		jobsSample(f.queue, "bad", "retried", 1),
		jobsSample(f.queue, "ok", "retried", 0),
		"# TYPE queuey_job_duration_seconds histogram\n",
		fmt.Sprintf("queuey_job_duration_seconds_bucket{queue=%q,job_type=\"bad\",le=\"+Inf\"} 2\n", f.queue),
		fmt.Sprintf("queuey_job_duration_seconds_count{queue=%q,job_type=\"ok\"} 2\n", f.queue),
		"queuey_worker_dead_lettered_total{reason=\"fatal\"} 1\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the metrics lack %q:\n%s", want, text)
		}
	}
}

func TestMemoryMetricsHandler(t *testing.T) {
	_, w, _ := metricsFixture(t)
	server := httptest.NewServer(w.MetricsHandler())
	defer server.Close()

	response, err := http.Get(server.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(response.Body)
	response.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if response.StatusCode != http.StatusOK {
		t.Fatalf("GET: %s", response.Status)
	}
	if got := response.Header.Get("Content-Type"); got != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if text, _ := w.MetricsText(); string(body) != text {
		t.Errorf("the body differs from MetricsText:\n%s\nwant\n%s", body, text)
	}

	response, err = http.Post(server.URL, "text/plain", strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	response.Body.Close()
	if response.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %s, want 405", response.Status)
	}
}

func TestMemoryMetricsOfAClosedWorker(t *testing.T) {
	f := newFixture(t, memoryBackend)
	w, err := f.client.NewWorker(f.queue)
	if err != nil {
		t.Fatal(err)
	}
	if text, err := w.MetricsText(); err != nil || !strings.Contains(text, "queuey_worker_jobs_parked 0\n") {
		t.Errorf("MetricsText before Run = %q, %v", text, err)
	}
	w.Close()
	if _, err := w.MetricsText(); !errors.Is(err, queuey.ErrClosed) {
		t.Errorf("MetricsText after Close: %v, want ErrClosed", err)
	}
	recorder := httptest.NewRecorder()
	w.MetricsHandler().ServeHTTP(recorder, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if recorder.Code != http.StatusServiceUnavailable {
		t.Errorf("a scrape after Close: %d, want 503", recorder.Code)
	}
}
