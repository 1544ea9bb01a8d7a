package queuey_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"queuey.invalid/queuey"
)

// The golden envelope vectors of tests/vectors/ (see its README), as every language
// runs them.

func vectorsDir() string {
	if dir := os.Getenv("QUEUEY_VECTORS_DIR"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "tests", "vectors")
}

// vectorRows is the rows of a TSV file without its header, each with `columns` cells.
func vectorRows(t *testing.T, name string, columns int) [][]string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(vectorsDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	var rows [][]string
	for i, line := range lines[1:] {
		cells := strings.Split(line, "\t")
		if len(cells) != columns {
			t.Fatalf("%s line %d: %d columns, want %d", name, i+2, len(cells), columns)
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("%s has no rows", name)
	}
	return rows
}

func body(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(vectorsDir(), "bodies", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decode(t *testing.T, name string) *queuey.Envelope {
	t.Helper()
	env, err := queuey.EnvelopeFromBytes(body(t, name))
	if err != nil {
		t.Fatalf("decoding %s: %v", name, err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

func expectEncoding(t *testing.T, env *queuey.Envelope, expected string) {
	t.Helper()
	got, err := env.Bytes()
	if err != nil {
		t.Fatalf("Bytes: %v", err)
	}
	if want := body(t, expected); !bytes.Equal(got, want) {
		t.Errorf("encoding differs from %s:\n got:  %s\n want: %s", expected, got, want)
	}
}

func TestValidVectors(t *testing.T) {
	for _, row := range vectorRows(t, "valid.tsv", 3) {
		t.Run(row[0], func(t *testing.T) {
			expectEncoding(t, decode(t, row[1]), row[2])
		})
	}
}

func TestTransitionVectors(t *testing.T) {
	for _, row := range vectorRows(t, "transitions.tsv", 4) {
		t.Run(row[0], func(t *testing.T) {
			env := decode(t, row[1])
			var next *queuey.Envelope
			var err error
			switch transition := row[2]; {
			case transition == "next_attempt":
				next, err = env.NextAttempt()
			case strings.HasPrefix(transition, "deferred:"):
				priority, perr := strconv.ParseUint(strings.TrimPrefix(transition, "deferred:"), 10, 8)
				if perr != nil {
					t.Fatalf("bad transition %s", transition)
				}
				next, err = env.Deferred(uint8(priority))
			default:
				t.Fatalf("unknown transition %s", transition)
			}
			if err != nil {
				t.Fatalf("%s: %v", row[2], err)
			}
			defer next.Close()
			expectEncoding(t, next, row[3])
		})
	}
}

func TestMalformedVectors(t *testing.T) {
	sentinels := map[string]error{"QY_ERR_BAD_JSON": queuey.ErrBadJSON, "QY_ERR_BAD_ENVELOPE": queuey.ErrBadEnvelope}
	for _, row := range vectorRows(t, "malformed.tsv", 4) {
		t.Run(row[0], func(t *testing.T) {
			env, err := queuey.EnvelopeFromBytes(body(t, row[1]))
			var qerr *queuey.Error
			switch {
			case env != nil || err == nil:
				t.Fatalf("decoded without an error")
			case !errors.As(err, &qerr):
				t.Fatalf("error %v is not an *queuey.Error", err)
			case qerr.Status.String() != row[2] || !errors.Is(err, sentinels[row[2]]):
				t.Errorf("status %v, want %s", qerr.Status, row[2])
			case qerr.Field != row[3]:
				t.Errorf("field %q, want %q (%v)", qerr.Field, row[3], err)
			case !strings.Contains(qerr.Message, row[3]):
				t.Errorf("message %q does not name %s", qerr.Message, row[3])
			}
		})
	}
}

// The getters read what the seed vector holds.
func TestEnvelopeGetters(t *testing.T) {
	env := decode(t, "with_correlation_id.json")
	var fields map[string]any
	if err := json.Unmarshal(body(t, "with_correlation_id.json"), &fields); err != nil {
		t.Fatal(err)
	}
	id, has := env.CorrelationID()
	checks := []struct {
		name      string
		got, want any
	}{
		{"job_id", env.JobID(), fields["job_id"]},
		{"job_type", env.JobType(), fields["job_type"]},
		{"queue", env.Queue(), fields["queue"]},
		{"attempt", float64(env.Attempt()), fields["attempt"]},
		{"deferrals", float64(env.Deferrals()), fields["deferrals"]},
		{"priority", float64(env.Priority()), fields["priority"]},
		{"enqueued_at_ms", float64(env.EnqueuedAtMs()), fields["enqueued_at_ms"]},
		{"correlation_id", id, fields["correlation_id"]},
		{"has correlation_id", has, true},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	var payload, wantPayload any
	if err := json.Unmarshal(env.Payload(), &payload); err != nil {
		t.Fatalf("payload %s: %v", env.Payload(), err)
	}
	wantPayload = fields["payload"]
	if !reflect.DeepEqual(payload, wantPayload) {
		t.Errorf("payload = %s, want %v", env.Payload(), wantPayload)
	}
	if env.EnqueuedAt().UnixMilli() != int64(env.EnqueuedAtMs()) {
		t.Errorf("EnqueuedAt %v disagrees with EnqueuedAtMs %d", env.EnqueuedAt(), env.EnqueuedAtMs())
	}
}
