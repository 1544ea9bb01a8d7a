// The examples against a real broker: the producer's jobs run in the worker.
package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestBrokerExamples(t *testing.T) {
	url := os.Getenv("QUEUEY_TEST_URL")
	if url == "" {
		t.Skip("QUEUEY_TEST_URL is not set: no broker for this test")
	}
	bin := t.TempDir()
	for _, example := range []string{"producer", "worker"} {
		build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "./"+example)
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build ./%s: %v\n%s", example, err, out)
		}
	}
	run := func(example string) string {
		out, err := exec.Command(filepath.Join(bin, example), url, "6").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", example, err, out)
		}
		return string(out)
	}
	if out := run("producer"); strings.Count(out, "enqueued ") != 6 {
		t.Errorf("the producer printed:\n%s", out)
	}
	if out := run("worker"); !strings.Contains(out, "done: 6 sent, ") {
		t.Errorf("the worker printed:\n%s", out)
	}
}
