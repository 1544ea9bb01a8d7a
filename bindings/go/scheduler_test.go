package queuey_test

import (
	"errors"
	"os"
	"testing"
	"time"

	"queuey.invalid/queuey"
)

func ticks(name, queue string) queuey.Schedule {
	return queuey.Schedule{Name: name, Queue: queue, JobType: "tick", Interval: time.Second}
}

// What cannot run is refused where the scheduler is started, with its field.
func TestSchedulerRefusals(t *testing.T) {
	_, err := queuey.StartScheduler("amqp://127.0.0.1:1", queuey.SchedulerConfig{})
	expectRefusal(t, err, "schedules", "needs a schedule")
	twice := queuey.SchedulerConfig{Schedules: []queuey.Schedule{ticks("t", "a"), ticks("t", "b")}}
	_, err = queuey.StartScheduler("amqp://127.0.0.1:1", twice)
	expectRefusal(t, err, "name", `two schedules are named "t"`)
	one := queuey.SchedulerConfig{Schedules: []queuey.Schedule{ticks("t", "a")}}
	one.Group = "a\x00b"
	_, err = queuey.StartScheduler("amqp://127.0.0.1:1", one)
	expectRefusal(t, err, "group", "NUL")
	one.Group = ""
	one.Schedules[0].Interval = 1500 * time.Millisecond
	_, err = queuey.StartScheduler("amqp://127.0.0.1:1", one)
	expectRefusal(t, err, "interval", "1500 ms")
	one.Schedules[0].Interval = time.Second
	if _, err = queuey.StartScheduler("memory://", one); !errors.Is(err, queuey.ErrUnsupported) {
		t.Errorf("memory://: %v, want ErrUnsupported", err)
	}
	// A broker that cannot be reached: the scheduler keeps trying until it is closed.
	s, err := queuey.StartScheduler("amqp://127.0.0.1:1", one)
	if err != nil {
		t.Fatalf("StartScheduler: %v", err)
	}
	if s.Leading() {
		t.Error("leading without a broker")
	}
	s.Close()
	s.Close()
	if _, err := s.Counts(); !errors.Is(err, queuey.ErrClosed) {
		t.Errorf("Counts after Close: %v, want ErrClosed", err)
	}
}

// Of two schedulers one leads; closing it hands the lead on, and the queue holds exactly
// the fires the two counted.
func TestBrokerSchedulerLeadsAndHandsOver(t *testing.T) {
	url := brokerURL(t)
	queue := uniqueQueue(t)
	cfg := queuey.SchedulerConfig{
		Schedules: []queuey.Schedule{ticks(queue, queue)},
		Queues:    []queuey.QueueConfig{queuey.NewQueueConfig(queue)},
		Group:     queue,
	}
	var schedulers [2]*queuey.Scheduler
	for i := range schedulers {
		s, err := queuey.StartScheduler(url, cfg, queuey.WithConnectionName(queue))
		if err != nil {
			t.Fatalf("StartScheduler: %v", err)
		}
		defer s.Close()
		schedulers[i] = s
	}
	leader := waitForLeader(t, schedulers[:], 10*time.Second)
	time.Sleep(2500 * time.Millisecond)
	client := dial(t, brokerBackend(t))
	checkListing(t, client, queue)
	first, _ := schedulers[leader].Counts()
	schedulers[leader].Close()
	next := schedulers[1-leader]
	if waitForLeader(t, []*queuey.Scheduler{next}, 2*time.Second) != 0 {
		t.Fatal("unreachable")
	}
	time.Sleep(2500 * time.Millisecond)
	second, _ := next.Counts()
	next.Close()
	if first.Fires < 2 || second.Fires < 2 || first.Leads != 1 || second.Leads != 1 {
		t.Errorf("counts %+v then %+v: want 2 fires or more and one lead each", first, second)
	}
	counts, err := client.QueueCounts(testContext(t), queue)
	if err != nil {
		t.Fatal(err)
	}
	if counts.Ready != first.Fires+second.Fires {
		t.Errorf("%d jobs in the queue, the schedulers counted %d + %d fires", counts.Ready,
			first.Fires, second.Fires)
	}
}

// checkListing checks what ListSchedules shows of the group (queue) of two schedulers
// named queue, one of which has fired its schedule (queue, every second) for a while.
func checkListing(t *testing.T, client *queuey.Client, queue string) {
	t.Helper()
	listing, err := client.ListSchedules(testContext(t), queue)
	if err != nil {
		t.Fatalf("ListSchedules: %v", err)
	}
	if listing.Group != queue || listing.Leader == nil || listing.Leader.Connection != queue ||
		listing.Leader.PID != int64(os.Getpid()) || listing.Schedulers != 2 {
		t.Fatalf("listing %+v (leader %+v): want group %s, leader %s (pid %d), 2 schedulers",
			listing, listing.Leader, queue, queue, os.Getpid())
	}
	if len(listing.Schedules) != 1 {
		t.Fatalf("schedules %+v: want one", listing.Schedules)
	}
	ticks := listing.Schedules[0]
	if ticks.Name != queue || ticks.Queue != queue || ticks.IntervalMS != 1000 ||
		ticks.Cron != "" || ticks.LastFire == nil || ticks.NextFire == nil ||
		!ticks.NextFire.After(*ticks.LastFire) {
		t.Errorf("schedule %+v: want %s into %s every 1000 ms, a last fire and a later next",
			ticks, queue, queue)
	}
}

// waitForLeader returns the index of the scheduler that leads, failing after timeout.
func waitForLeader(t *testing.T, schedulers []*queuey.Scheduler, timeout time.Duration) int {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		for i, s := range schedulers {
			if s.Leading() {
				return i
			}
		}
	}
	t.Fatalf("no leader within %v", timeout)
	return -1
}
