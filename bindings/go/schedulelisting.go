package queuey

/*
#include <queuey/queuey.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// ScheduleListing is what the schedulers of a group fire, as their newest leader
// published it (qy_client_list_schedules; what `queuey schedule list` shows).
type ScheduleListing struct {
	Group string `json:"group"`
	// Leader is the newest scheduler to take the lead; nil before any did.
	Leader *ScheduleLeader `json:"leader"`
	// Schedulers stand in the election now; 0: none runs, and Leader was the last.
	Schedulers int              `json:"schedulers"`
	Schedules  []ListedSchedule `json:"schedules"`
}

// ScheduleLeader names a scheduler that led.
type ScheduleLeader struct {
	Connection string    `json:"connection"` // the connection name it gave the broker
	Host       string    `json:"host"`
	PID        int64     `json:"pid"`
	Since      time.Time `json:"since"`
}

// ListedSchedule is one schedule the leader fires, with its last fire (nil before the
// first) and its next (nil when it fires no more).
type ListedSchedule struct {
	Name          string     `json:"name"`
	Queue         string     `json:"queue"`
	JobType       string     `json:"job_type"`
	Payload       string     `json:"payload"` // JSON text
	Cron          string     `json:"cron"`    // "" for an interval schedule
	TimeZone      string     `json:"time_zone"`
	IntervalMS    int64      `json:"interval_ms"` // 0 for a cron schedule
	Missed        string     `json:"missed"`      // "skip" or "catch_up"
	CatchUpAtMost int        `json:"catch_up_at_most"`
	LastFire      *time.Time `json:"last_fire"`
	NextFire      *time.Time `json:"next_fire"`
}

// ListSchedules reads what the schedulers of group ("": the default group) fire, from the
// broker, consuming nothing.
func (c *Client) ListSchedules(ctx context.Context, group string) (ScheduleListing, error) {
	return await(ctx, func() (ScheduleListing, error) {
		var args cArgs
		defer args.free()
		cGroup := args.str("group", group)
		if args.err != nil {
			return ScheduleListing{}, args.err
		}
		var text []byte
		err := c.h.use(func(p *C.qy_client) error {
			var err error
			text, err = handedOut(func(out **C.char, n *C.size_t, err **C.qy_error) C.qy_status {
				return C.qy_client_list_schedules(p, cGroup, out, n, err)
			})
			return err
		})
		if err != nil {
			return ScheduleListing{}, err
		}
		var listing ScheduleListing
		if err := json.Unmarshal(text, &listing); err != nil {
			return ScheduleListing{}, fmt.Errorf("queuey: the schedule listing does not read: %w", err)
		}
		return listing, nil
	}, nil)
}
