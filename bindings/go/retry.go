package queuey

// #include <queuey/queuey.h>
import "C"

import (
	"math"
	"time"
)

// RetryPolicy is what happens after a job fails with a retryable error: MaxAttempts
// attempts in all (the first included; 1 means no retries), with Backoff between them
// (nil: no wait).
type RetryPolicy struct {
	MaxAttempts uint32
	Backoff     Backoff
}

// Backoff is the wait before a retry: FixedBackoff or ExponentialBackoff.
type Backoff interface {
	apply(p *C.qy_retry_policy) error
}

// FixedBackoff waits Delay before each retry.
type FixedBackoff struct {
	Delay time.Duration
}

// ExponentialBackoff waits min(Max, Base * Factor^(n-1)) after failed attempt n,
// uniformly jittered in [0, that] unless NoJitter (jitter is on by default, as in C++ and
// Python; until 0.2.0 the field was Jitter, off by default). A non-positive Factor
// counts as 1.
type ExponentialBackoff struct {
	Base     time.Duration
	Factor   float64
	Max      time.Duration
	NoJitter bool
}

func (b FixedBackoff) apply(p *C.qy_retry_policy) error {
	var args cArgs
	delay := args.millis("retry delay", b.Delay, math.MaxUint64)
	if args.err != nil {
		return args.err
	}
	return call(func(err **C.qy_error) C.qy_status {
		return C.qy_retry_policy_set_fixed(p, C.uint64_t(delay), err)
	})
}

func (b ExponentialBackoff) apply(p *C.qy_retry_policy) error {
	var args cArgs
	base := args.millis("backoff base", b.Base, math.MaxUint64)
	max := args.millis("backoff max", b.Max, math.MaxUint64)
	if args.err != nil {
		return args.err
	}
	return call(func(err **C.qy_error) C.qy_status {
		return C.qy_retry_policy_set_exponential(p, C.uint64_t(base), C.double(b.Factor), C.uint64_t(max), cBool(!b.NoJitter), err)
	})
}

// withPolicy runs f with the C form of policy (nil when policy is nil), freed afterwards.
func withPolicy(policy *RetryPolicy, f func(p *C.qy_retry_policy) error) error {
	if policy == nil {
		return f(nil)
	}
	var p *C.qy_retry_policy
	if err := call(func(err **C.qy_error) C.qy_status {
		return C.qy_retry_policy_new(C.uint32_t(policy.MaxAttempts), &p, err)
	}); err != nil {
		return err
	}
	defer C.qy_retry_policy_free(p)
	if policy.Backoff != nil {
		if err := policy.Backoff.apply(p); err != nil {
			return err
		}
	}
	return f(p)
}
