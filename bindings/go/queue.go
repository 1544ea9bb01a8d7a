package queuey

// #include <queuey/queuey.h>
import "C"

import (
	"math"
	"time"
)

// QueueType is the RabbitMQ queue type of a logical queue's queues.
type QueueType int

const (
	// QueueClassic: one node holds the queue (the default, what the Rust crates declare).
	QueueClassic QueueType = C.QY_QUEUE_CLASSIC
	// QueueQuorum: replicated across a cluster's nodes; always durable, no priorities on
	// RabbitMQ 3.x (a deferred job waits its turn). See docs/broker.md.
	QueueQuorum QueueType = C.QY_QUEUE_QUORUM
)

// QueueConfig configures a logical queue q: on RabbitMQ the queues q, q.dead and the
// hold queues q.deferred.{ttl_ms}. NewQueueConfig fills in the defaults.
type QueueConfig struct {
	Name string // non-empty, at most 235 bytes
	// Type is the queue type of q, q.dead and the hold queues; default QueueClassic.
	Type QueueType
	// Durable: q and its hold queues survive a broker restart (q.dead always does).
	Durable bool
	// MaxPriority is x-max-priority, 1 to 255, or 0 for a queue without priorities.
	MaxPriority uint8
	// MessageTTL is the work queue's x-message-ttl; 0: none.
	MessageTTL time.Duration
	// Prefetch is how many unacknowledged deliveries a consumer holds, 1 to 65535.
	Prefetch uint16
	// DelayGranularity is the step delays are rounded up to (0 counts as 1 ms).
	DelayGranularity time.Duration
	// Retry is the queue's own retry policy, or nil.
	Retry *RetryPolicy
	// MaxLostRuns is how often a job may be lost (its worker gone mid-run) before it is
	// dead-lettered; 0: the worker's budget (Worker.SetMaxLostRuns, default 3).
	MaxLostRuns uint32
}

// NewQueueConfig is a configuration with queuey's defaults: durable, max priority 10,
// no message TTL, prefetch 16, delays rounded up to whole seconds, no retry policy.
func NewQueueConfig(name string) QueueConfig {
	return QueueConfig{Name: name, Durable: true, MaxPriority: 10, Prefetch: 16, DelayGranularity: time.Second}
}

// withQueueConfig runs f with the C form of cfg, freed afterwards.
func withQueueConfig(cfg QueueConfig, f func(p *C.qy_queue_config) error) error {
	if cfg.Prefetch == 0 {
		return invalid("queue config", "Prefetch is 0: make a QueueConfig with NewQueueConfig(name), "+
			"which sets queuey's defaults (prefetch 16, max priority 10, durable), then change its fields")
	}
	var args cArgs
	defer args.free()
	name := args.str("queue name", cfg.Name)
	ttl := int64(args.millis("message TTL", cfg.MessageTTL, math.MaxInt64))
	granularity := args.millis("delay granularity", cfg.DelayGranularity, maxUint32Ms)
	if args.err != nil {
		return args.err
	}
	if cfg.MessageTTL == 0 {
		ttl = -1 // none
	}
	var p *C.qy_queue_config
	if err := call(func(err **C.qy_error) C.qy_status { return C.qy_queue_config_new(name, &p, err) }); err != nil {
		return err
	}
	defer C.qy_queue_config_free(p)
	setters := []func(err **C.qy_error) C.qy_status{
		func(err **C.qy_error) C.qy_status {
			return C.qy_queue_config_set_type(p, C.qy_queue_type(cfg.Type), err)
		},
		func(err **C.qy_error) C.qy_status { return C.qy_queue_config_set_durable(p, cBool(cfg.Durable), err) },
		func(err **C.qy_error) C.qy_status {
			return C.qy_queue_config_set_max_priority(p, C.uint8_t(cfg.MaxPriority), err)
		},
		func(err **C.qy_error) C.qy_status {
			return C.qy_queue_config_set_message_ttl_ms(p, C.int64_t(ttl), err)
		},
		func(err **C.qy_error) C.qy_status {
			return C.qy_queue_config_set_prefetch(p, C.uint16_t(cfg.Prefetch), err)
		},
		func(err **C.qy_error) C.qy_status {
			return C.qy_queue_config_set_delay_granularity_ms(p, C.uint32_t(granularity), err)
		},
	}
	if cfg.MaxLostRuns != 0 {
		setters = append(setters, func(err **C.qy_error) C.qy_status {
			return C.qy_queue_config_set_max_lost_runs(p, C.uint32_t(cfg.MaxLostRuns), err)
		})
	}
	for _, set := range setters {
		if err := call(set); err != nil {
			return err
		}
	}
	if err := withPolicy(cfg.Retry, func(policy *C.qy_retry_policy) error {
		return call(func(err **C.qy_error) C.qy_status { return C.qy_queue_config_set_retry_policy(p, policy, err) })
	}); err != nil {
		return err
	}
	return f(p)
}
