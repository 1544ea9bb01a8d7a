package queuey_test

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

// The schedule vectors of tests/vectors/schedules (see its README), as every language
// runs them, and what only the Go shape of a schedule has.

// vectorSchedule is the schedule of a vector row: cron or "-", interval_ms or "-",
// time_zone.
func vectorSchedule(t *testing.T, name, cron, intervalMs, zone string) queuey.Schedule {
	t.Helper()
	s := queuey.Schedule{Name: name, Queue: "reports", JobType: "report.build", TimeZone: zone}
	if cron != "-" {
		s.Cron = cron
	}
	if intervalMs != "-" {
		ms, err := strconv.ParseInt(intervalMs, 10, 64)
		if err != nil {
			t.Fatalf("bad interval_ms %q", intervalMs)
		}
		s.Interval = time.Duration(ms) * time.Millisecond
	}
	return s
}

func rfc3339(t *testing.T, text string) time.Time {
	t.Helper()
	when, err := time.Parse(time.RFC3339, text)
	if err != nil {
		t.Fatal(err)
	}
	return when
}

// expectRefusal: err is the library's QY_ERR_INVALID_ARGUMENT naming field, with
// message in its message.
func expectRefusal(t *testing.T, err error, field, message string) {
	t.Helper()
	var qerr *queuey.Error
	switch {
	case err == nil:
		t.Fatalf("accepted, want a refusal of %s (%s)", field, message)
	case !errors.As(err, &qerr):
		t.Fatalf("error %v is not an *queuey.Error", err)
	case !errors.Is(err, queuey.ErrInvalidArgument):
		t.Errorf("status %v, want QY_ERR_INVALID_ARGUMENT (%v)", qerr.Status, err)
	case qerr.Field != field:
		t.Errorf("field %q, want %q (%v)", qerr.Field, field, err)
	case !strings.Contains(qerr.Message, message):
		t.Errorf("message %q does not contain %q", qerr.Message, message)
	}
}

func TestScheduleFiresVectors(t *testing.T) {
	for _, row := range vectorRows(t, "schedules/fires.tsv", 6) {
		t.Run(row[0], func(t *testing.T) {
			s := vectorSchedule(t, row[0], row[1], row[2], row[3])
			if err := s.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			after := rfc3339(t, row[4])
			for _, want := range strings.Split(row[5], " ") {
				next, err := s.NextFire(after)
				if err != nil {
					t.Fatalf("NextFire(%s): %v", after.Format(time.RFC3339), err)
				}
				if got := next.Format(time.RFC3339); got != want || next.Location() != time.UTC {
					t.Fatalf("NextFire(%s) = %s (%v), want %s", after.Format(time.RFC3339),
						got, next.Location(), want)
				}
				after = next
			}
		})
	}
}

func TestScheduleRefusedVectors(t *testing.T) {
	for _, row := range vectorRows(t, "schedules/refused.tsv", 6) {
		t.Run(row[0], func(t *testing.T) {
			s := vectorSchedule(t, row[0], row[1], row[2], row[3])
			expectRefusal(t, s.Validate(), row[4], row[5])
			_, err := s.NextFire(time.Unix(0, 0))
			expectRefusal(t, err, row[4], row[5])
			_, err = s.FireJobID(time.Unix(0, 0))
			expectRefusal(t, err, row[4], row[5])
		})
	}
}

func TestScheduleFireIDVectors(t *testing.T) {
	for _, row := range vectorRows(t, "schedules/fire_ids.tsv", 3) {
		t.Run(row[0]+"@"+row[1], func(t *testing.T) {
			fire := rfc3339(t, row[1])
			kinds := []queuey.Schedule{
				{Name: row[0], Queue: "reports", JobType: "report.build", Interval: time.Second},
				{Name: row[0], Queue: "reports", JobType: "report.build", Cron: "0 2 * * *",
					TimeZone: "Europe/Berlin"},
			}
			for _, s := range kinds {
				// The id depends on the name and the second only.
				for _, when := range []time.Time{fire, fire.Add(999 * time.Millisecond),
					fire.In(time.FixedZone("UTC+5", 5*3600))} {
					id, err := s.FireJobID(when)
					if err != nil {
						t.Fatalf("FireJobID(%v): %v", when, err)
					}
					if id != row[2] {
						t.Errorf("FireJobID(%v) of %+v = %s, want %s", when, s, id, row[2])
					}
				}
			}
		})
	}
}

func nightly() queuey.Schedule {
	return queuey.Schedule{Name: "nightly-report", Queue: "reports", JobType: "report.build",
		Cron: "0 2 * * *"}
}

// "" is UTC; the result is UTC whatever the location of `after`; a fire is strictly
// after `after`.
func TestScheduleTimeZoneAndResultInUTC(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	after := time.Date(2026, 12, 7, 17, 0, 0, 0, berlin) // 16:00Z
	cases := []struct{ name, timeZone, want string }{
		{name: "empty is UTC", want: "2026-12-08T02:00:00Z"},
		{name: "UTC", timeZone: "UTC", want: "2026-12-08T02:00:00Z"},
		{name: "Berlin", timeZone: "Europe/Berlin", want: "2026-12-08T01:00:00Z"},
	}
	for _, c := range cases {
		s := nightly()
		s.TimeZone = c.timeZone
		next, err := s.NextFire(after)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if next.Location() != time.UTC || next.Format(time.RFC3339) != c.want {
			t.Errorf("%s: NextFire = %v, want %s", c.name, next, c.want)
		}
		again, err := s.NextFire(next)
		if err != nil || !again.Equal(next.Add(24*time.Hour)) {
			t.Errorf("%s: NextFire(%v) = %v, %v; want a day later", c.name, next, again, err)
		}
		// Within the fire's second, the next fire is still the following one.
		again, err = s.NextFire(next.Add(999*time.Millisecond + 999*time.Microsecond))
		if err != nil || !again.Equal(next.Add(24*time.Hour)) {
			t.Errorf("%s: NextFire(just after %v) = %v, %v", c.name, next, again, err)
		}
	}
}

// An Interval is passed in milliseconds: what is not whole seconds is the library's to
// refuse; a negative one is refused in Go.
func TestScheduleIntervalUnits(t *testing.T) {
	s := queuey.Schedule{Name: "ticks", Queue: "ticks", JobType: "tick"}
	for _, d := range []time.Duration{time.Second, 90 * time.Second, 366 * 24 * time.Hour} {
		s.Interval = d
		if err := s.Validate(); err != nil {
			t.Errorf("Interval %v: %v", d, err)
		}
	}
	refused := []struct {
		interval time.Duration
		message  string
	}{
		{1500 * time.Millisecond, "1500 ms is not a whole number of seconds"},
		{time.Second + time.Nanosecond, "1001 ms is not a whole number of seconds"},
		{time.Millisecond, "1 ms is not a whole number"},
		{366*24*time.Hour + time.Second, "31622401000 ms"},
		{-time.Second, "interval: is negative (-1s)"},
		{-time.Nanosecond, "is negative"},
	}
	for _, c := range refused {
		s.Interval = c.interval
		expectRefusal(t, s.Validate(), "interval", c.message)
	}
	// A negative interval is refused whatever else is set.
	s.Interval, s.Cron = -time.Minute, "* * * * *"
	expectRefusal(t, s.Validate(), "interval", "negative")
	// A time zone that is not UTC, even a valid one, is refused on an interval; "" and
	// "UTC" are not.
	s.Interval, s.Cron = time.Minute, ""
	for _, zone := range []string{"", "UTC"} {
		s.TimeZone = zone
		if err := s.Validate(); err != nil {
			t.Errorf("TimeZone %q on an interval: %v", zone, err)
		}
	}
	s.TimeZone = "Etc/UTC"
	expectRefusal(t, s.Validate(), "time_zone", `"Etc/UTC" given to an interval schedule`)
}

func TestScheduleCatchUp(t *testing.T) {
	s := nightly()
	for _, n := range []uint32{0, 1, 1000} {
		s.CatchUp = n
		if err := s.Validate(); err != nil {
			t.Errorf("CatchUp %d: %v", n, err)
		}
	}
	s.CatchUp = 1001
	expectRefusal(t, s.Validate(), "missed_fires", "catch up at most 1001: must be 1 to 1000")
	_, err := s.NextFire(time.Now())
	expectRefusal(t, err, "missed_fires", "catch up at most 1001")
}

func TestSchedulePayload(t *testing.T) {
	s := nightly()
	for _, payload := range []any{nil, json.RawMessage(`{"day": 1}`), []byte(`[1,2]`),
		map[string]int{"day": 1}, "text", 42} {
		s.Payload = payload
		if err := s.Validate(); err != nil {
			t.Errorf("Payload %#v: %v", payload, err)
		}
	}
	for _, payload := range []any{json.RawMessage(`{"day":`), []byte(""), []byte("1 2")} {
		s.Payload = payload
		err := s.Validate()
		var qerr *queuey.Error
		if !errors.Is(err, queuey.ErrBadJSON) || !errors.As(err, &qerr) || qerr.Field != "payload" {
			t.Errorf("Payload %q: %v, want QY_ERR_BAD_JSON naming payload", payload, err)
		}
	}
	s.Payload = make(chan int)
	expectRefusal(t, s.Validate(), "payload", "payload")
}

// The name, queue and job type are the library's to check; a NUL character is refused
// before it reaches C, which would read the string only up to it.
func TestScheduleNames(t *testing.T) {
	s := nightly()
	s.Name = ""
	expectRefusal(t, s.Validate(), "name", "")
	s.Name = strings.Repeat("n", 201)
	expectRefusal(t, s.Validate(), "name", "201 bytes: at most 200")
	s.Name = strings.Repeat("n", 200)
	if err := s.Validate(); err != nil {
		t.Errorf("a name of 200 bytes: %v", err)
	}
	s = nightly()
	s.Queue = ""
	expectRefusal(t, s.Validate(), "queue", "")
	s = nightly()
	s.JobType = ""
	expectRefusal(t, s.Validate(), "job_type", "")
	for _, bad := range []func(*queuey.Schedule){
		func(s *queuey.Schedule) { s.Name = "night\x00ly" },
		func(s *queuey.Schedule) { s.Cron = "0 2 * * *\x00 junk" },
		func(s *queuey.Schedule) { s.TimeZone = "UTC\x00" },
		func(s *queuey.Schedule) { s.Payload = json.RawMessage("1\x00") },
	} {
		s = nightly()
		bad(&s)
		if err := s.Validate(); !errors.Is(err, queuey.ErrInvalidArgument) ||
			!strings.Contains(err.Error(), "NUL") {
			t.Errorf("%+v: %v, want a refused NUL character", s, err)
		}
	}
}
