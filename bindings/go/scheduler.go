package queuey

// #include <queuey/queuey.h>
import "C"

import "runtime"

// SchedulerConfig is what a Scheduler runs.
type SchedulerConfig struct {
	// Schedules are fired while the scheduler leads; their names are unique.
	Schedules []Schedule
	// Queues are the configs of the queues the schedules fire into, declared when the
	// scheduler takes the lead; a queue without one is declared with NewQueueConfig's
	// defaults. They must match how the queues' workers declare them.
	Queues []QueueConfig
	// Group: schedulers of one group elect one leader among them; "" is the vhost's
	// default group (for applications that share a vhost and not their schedules).
	Group string
}

// Scheduler is one candidate in its group's election on the broker (docs/scheduling.md).
// Exactly one scheduler of a group leads: it enqueues each fire of its schedules once,
// with a job id derived from the schedule's name and the fire time, and records the fire
// on the broker, so that the next leader neither repeats nor skips it. When the leader's
// connection goes (its process killed, the network lost, missed heartbeats), the broker
// hands the lead to another scheduler. Safe for use by many goroutines at once.
type Scheduler struct {
	h handle[*C.qy_scheduler]
}

// SchedulerCounts is what a scheduler did while it led; every count only grows.
type SchedulerCounts struct {
	Fires    uint64 // enqueued and confirmed by the broker
	Skipped  uint64 // missed fires that their policy skipped
	CaughtUp uint64 // fires enqueued later than their grace (CatchUp)
	Leads    uint64 // times this scheduler took the lead
	Failures uint64 // connections lost, or fires the broker refused
}

// StartScheduler starts a scheduler on the broker at url, connecting as opts say (the
// options of Dial: connection name, heartbeat, reconnects, log). It returns at once: its
// own thread (in the C library) connects, and connects again after a loss. "memory://"
// runs no scheduler yet (StatusUnsupported).
func StartScheduler(url string, cfg SchedulerConfig, opts ...Option) (*Scheduler, error) {
	p, err := startScheduler(url, cfg, opts)
	if err != nil {
		return nil, err
	}
	s := &Scheduler{}
	s.h.own("scheduler", p)
	runtime.SetFinalizer(s, (*Scheduler).Close)
	return s, nil
}

func startScheduler(url string, cfg SchedulerConfig, opts []Option) (*C.qy_scheduler, error) {
	var so *C.qy_scheduler_options
	if err := call(func(err **C.qy_error) C.qy_status {
		return C.qy_scheduler_options_new(&so, err)
	}); err != nil {
		return nil, err
	}
	defer C.qy_scheduler_options_free(so)
	for _, s := range cfg.Schedules {
		if err := withSchedule(s, func(p *C.qy_schedule) error {
			return call(func(err **C.qy_error) C.qy_status {
				return C.qy_scheduler_options_add_schedule(so, p, err)
			})
		}); err != nil {
			return nil, err
		}
	}
	for _, q := range cfg.Queues {
		if err := withQueueConfig(q, func(p *C.qy_queue_config) error {
			return call(func(err **C.qy_error) C.qy_status {
				return C.qy_scheduler_options_add_queue(so, p, err)
			})
		}); err != nil {
			return nil, err
		}
	}
	args := cArgs{namesFields: true}
	defer args.free()
	group, cURL := args.str("group", cfg.Group), args.str("url", url)
	if args.err != nil {
		return nil, args.err
	}
	if err := call(func(err **C.qy_error) C.qy_status {
		return C.qy_scheduler_options_set_group(so, group, err)
	}); err != nil {
		return nil, err
	}
	var optionArgs cArgs
	defer optionArgs.free()
	var p *C.qy_scheduler
	err := withClientOptions(&optionArgs, opts, func(o *C.qy_client_options) error {
		return call(func(err **C.qy_error) C.qy_status { return C.qy_scheduler_new(cURL, o, so, &p, err) })
	})
	return p, err
}

// Leading tells whether this scheduler leads its group now (false once closed).
func (s *Scheduler) Leading() bool {
	return read(&s.h, func(p *C.qy_scheduler) bool { return C.qy_scheduler_leading(p) == 1 })
}

// Counts is what this scheduler did while it led.
func (s *Scheduler) Counts() (SchedulerCounts, error) {
	var counts SchedulerCounts
	err := s.h.use(func(p *C.qy_scheduler) error {
		for _, c := range []struct {
			counter C.qy_scheduler_counter
			into    *uint64
		}{
			{C.QY_SCHEDULER_FIRES, &counts.Fires}, {C.QY_SCHEDULER_SKIPPED, &counts.Skipped},
			{C.QY_SCHEDULER_CAUGHT_UP, &counts.CaughtUp}, {C.QY_SCHEDULER_LEADS, &counts.Leads},
			{C.QY_SCHEDULER_FAILURES, &counts.Failures},
		} {
			var value C.uint64_t
			if err := call(func(err **C.qy_error) C.qy_status {
				return C.qy_scheduler_count(p, c.counter, &value, err)
			}); err != nil {
				return err
			}
			*c.into = uint64(value)
		}
		return nil
	})
	return counts, err
}

// Close leaves the election (the next scheduler leads at once) and frees the scheduler.
// Idempotent.
func (s *Scheduler) Close() error {
	s.h.release(func(p *C.qy_scheduler) { C.qy_scheduler_free(p) })
	return nil
}
