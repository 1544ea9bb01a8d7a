package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"queuey.invalid/queuey"
)

// schedule runs a scheduler of one schedule (a "tick" job into --queue every second) in
// the election of --group, prints "started", and once stdin ends prints its counts as one
// JSON line.
//
//	xlang schedule --url URL --group G --name N --queue Q --connection-name C [--catch-up K]
func schedule(args []string) error {
	flags := flag.NewFlagSet("schedule", flag.ContinueOnError)
	url := flags.String("url", "", "")
	group := flags.String("group", "", "")
	name := flags.String("name", "", "")
	queue := flags.String("queue", "", "")
	connection := flags.String("connection-name", "", "")
	catchUp := flags.Uint("catch-up", 0, "")
	if err := parse("schedule", args, flags, "url", "group", "name", "queue",
		"connection-name"); err != nil {
		return err
	}
	ticks := queuey.Schedule{Name: *name, Queue: *queue, JobType: "tick", Interval: time.Second,
		CatchUp: uint32(*catchUp)}
	scheduler, err := queuey.StartScheduler(*url,
		queuey.SchedulerConfig{Schedules: []queuey.Schedule{ticks}, Group: *group},
		queuey.WithConnectionName(*connection))
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	defer scheduler.Close()
	fmt.Println("started")
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		return err
	}
	counts, err := scheduler.Counts()
	if err != nil {
		return err
	}
	line, err := json.Marshal(map[string]uint64{"fires": counts.Fires, "skipped": counts.Skipped,
		"caught_up": counts.CaughtUp, "leads": counts.Leads, "failures": counts.Failures})
	if err != nil {
		return err
	}
	fmt.Println(string(line))
	return nil
}
