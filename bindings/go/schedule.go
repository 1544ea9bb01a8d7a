package queuey

// #include <queuey/queuey.h>
import "C"

import (
	"math"
	"time"
)

// Schedule is a periodic job (docs/scheduling.md): what to enqueue (Queue, JobType,
// Payload) and when, either at the local times of a cron expression read in a time zone
// or every Interval. Each fire is one job whose id is derived from Name and the fire
// time (FireJobID), so a fire sent twice is recognisable. It is a plain value: every
// method hands it to the C library for the duration of the call, which validates it
// there, so its errors are the library's *Error values naming the field.
//
// Exactly one of Cron and Interval is set ("" and 0 are "none"; the library refuses
// neither and both). A negative Interval is refused in Go (field "interval").
type Schedule struct {
	// Name is non-empty UTF-8, at most 200 bytes, unique among a cluster's schedules.
	Name string
	// Queue and JobType are what each fire enqueues: a job of JobType on Queue.
	Queue   string
	JobType string
	// Payload is the payload of every fire: []byte or json.RawMessage is taken as JSON
	// text, anything else is marshalled with encoding/json; nil is JSON null.
	Payload any
	// Cron is a five-field cron expression (minute hour day-of-month month day-of-week)
	// or a name such as "@daily", read in TimeZone.
	Cron string
	// TimeZone is the IANA time zone that Cron is read in ("Europe/Berlin"); "" is UTC.
	TimeZone string
	// Interval: fires at the instants that are multiples of it since the Unix epoch.
	// Whole seconds, 1 s to 366 days; it is rounded up to whole milliseconds, and the
	// library refuses a number of milliseconds that is not whole seconds.
	Interval time.Duration
	// CatchUp is the missed-fire policy, for fires a scheduler comes to late. 0 (the
	// default) skips those later than the schedule's grace (its interval, at most a
	// minute; a minute for cron) and counts them; 1 to 1000 enqueues the latest CatchUp
	// missed fires however late and skips and counts older ones.
	CatchUp uint32
}

// Validate checks the schedule as the library does where a schedule is made: nil means
// that it can fire.
func (s Schedule) Validate() error {
	return withSchedule(s, func(*C.qy_schedule) error { return nil })
}

// NextFire is the first fire strictly after `after`, in UTC (fires are whole seconds;
// after is taken in milliseconds). Schedules work from 1970 to 9999-01-01: an `after`
// outside is refused (field "after_ms"), and ErrNotFound says that the next fire would
// be past the end.
func (s Schedule) NextFire(after time.Time) (time.Time, error) {
	var next C.int64_t
	err := withSchedule(s, func(p *C.qy_schedule) error {
		return call(func(err **C.qy_error) C.qy_status {
			return C.qy_schedule_next_fire_ms(p, C.int64_t(after.UnixMilli()), &next, err)
		})
	})
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMilli(int64(next)).UTC(), nil
}

// FireJobID is the job id of the fire at `fire` (floored to the second): the UUIDv5 of
// "Name@YYYY-MM-DDTHH:MM:SSZ" in queuey's namespace, lowercase and hyphenated.
func (s Schedule) FireJobID(fire time.Time) (string, error) {
	var out [37]C.char
	err := withSchedule(s, func(p *C.qy_schedule) error {
		return call(func(err **C.qy_error) C.qy_status {
			return C.qy_schedule_fire_job_id(p, C.int64_t(fire.UnixMilli()), &out[0], err)
		})
	})
	if err != nil {
		return "", err
	}
	return C.GoString(&out[0]), nil
}

// withSchedule runs f with the C form of s, freed afterwards.
func withSchedule(s Schedule, f func(p *C.qy_schedule) error) error {
	var payload []byte
	if s.Payload != nil {
		var err error
		if payload, err = payloadJSON(s.Payload); err != nil {
			return err
		}
	}
	args := cArgs{namesFields: true}
	defer args.free()
	name, queue := args.str("name", s.Name), args.str("queue", s.Queue)
	jobType := args.str("job_type", s.JobType)
	var cron, zone, cPayload *C.char
	if s.Cron != "" {
		cron = args.str("cron", s.Cron)
	}
	if s.TimeZone != "" {
		zone = args.str("time_zone", s.TimeZone)
	}
	if s.Payload != nil {
		cPayload = args.str("payload", string(payload))
	}
	interval := args.millis("interval", s.Interval, math.MaxInt64)
	if args.err != nil {
		return args.err
	}
	var p *C.qy_schedule
	if err := call(func(err **C.qy_error) C.qy_status {
		return C.qy_schedule_new(name, queue, jobType, cron, zone, C.uint64_t(interval), &p, err)
	}); err != nil {
		return err
	}
	defer C.qy_schedule_free(p)
	if cPayload != nil {
		if err := call(func(err **C.qy_error) C.qy_status {
			return C.qy_schedule_set_payload(p, cPayload, err)
		}); err != nil {
			return err
		}
	}
	policy := C.qy_missed_fires(C.QY_MISSED_FIRES_SKIP)
	if s.CatchUp != 0 {
		policy = C.QY_MISSED_FIRES_CATCH_UP
	}
	if err := call(func(err **C.qy_error) C.qy_status {
		return C.qy_schedule_set_missed_fires(p, policy, C.uint32_t(s.CatchUp), err)
	}); err != nil {
		return err
	}
	return f(p)
}
