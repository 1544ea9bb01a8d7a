package queuey

// #include <queuey/queuey.h>
// #include "trampolines.h"
import "C"

import (
	"context"
	"log/slog"
	"math"
	"time"
)

// Option changes how Dial connects. The defaults are those of queuey.h.
type Option struct {
	apply func(o *C.qy_client_options, args *cArgs) error
}

// optionCall is an Option that runs one setter. An argument that args refused is the
// error (C then saw a NULL or 0 in its place, and Dial fails anyway).
func optionCall(f func(o *C.qy_client_options, args *cArgs, err **C.qy_error) C.qy_status) Option {
	return Option{func(o *C.qy_client_options, args *cArgs) error {
		err := call(func(err **C.qy_error) C.qy_status { return f(o, args, err) })
		if args.err != nil {
			return args.err
		}
		return err
	}}
}

// WithFallbackURL adds a broker URL to try, in turn, after the one given to Dial (the
// nodes of a cluster).
func WithFallbackURL(url string) Option {
	return optionCall(func(o *C.qy_client_options, args *cArgs, err **C.qy_error) C.qy_status {
		return C.qy_client_options_add_url(o, args.str("url", url), err)
	})
}

// WithConnectionName sets the name shown in RabbitMQ's management UI (default "queuey").
func WithConnectionName(name string) Option {
	return optionCall(func(o *C.qy_client_options, args *cArgs, err **C.qy_error) C.qy_status {
		return C.qy_client_options_set_connection_name(o, args.str("connection name", name), err)
	})
}

// WithHeartbeat sets the AMQP heartbeat, in whole seconds; 0 turns it off (default 30 s).
func WithHeartbeat(d time.Duration) Option {
	return optionCall(func(o *C.qy_client_options, args *cArgs, err **C.qy_error) C.qy_status {
		s := args.millis("heartbeat", d, math.MaxUint16*1000) / 1000
		return C.qy_client_options_set_heartbeat(o, C.uint16_t(s), err)
	})
}

// WithConnectTimeout bounds a TCP/TLS connect and login (default 10 s).
func WithConnectTimeout(d time.Duration) Option {
	return optionCall(func(o *C.qy_client_options, args *cArgs, err **C.qy_error) C.qy_status {
		ms := args.millis("connect timeout", d, maxUint32Ms)
		return C.qy_client_options_set_connect_timeout_ms(o, C.uint32_t(ms), err)
	})
}

// WithPublishTimeout bounds the wait for a publisher confirm, a declare or a subscribe
// (default 30 s). A publish that times out may or may not have been accepted.
func WithPublishTimeout(d time.Duration) Option {
	return optionCall(func(o *C.qy_client_options, args *cArgs, err **C.qy_error) C.qy_status {
		ms := args.millis("publish timeout", d, maxUint32Ms)
		return C.qy_client_options_set_publish_timeout_ms(o, C.uint32_t(ms), err)
	})
}

// WithCACertFile names a PEM file with the CA certificates that an amqps:// broker's
// certificate is verified against (default: the system's).
func WithCACertFile(path string) Option {
	return optionCall(func(o *C.qy_client_options, args *cArgs, err **C.qy_error) C.qy_status {
		return C.qy_client_options_set_ca_cert_file(o, args.str("CA certificate file", path), err)
	})
}

// Reconnect says how to reconnect after the connection is lost: MaxAttempts -1 tries
// forever, 0 never reconnects, N gives up after N attempts. Attempt n > 1 waits
// min(Max, Base * Factor^(n-2)), uniformly jittered in [0, that] unless NoJitter (jitter
// is on by default, as in C, C++ and Python).
type Reconnect struct {
	MaxAttempts int64
	Base        time.Duration
	Factor      float64
	Max         time.Duration
	NoJitter    bool
}

// WithReconnect sets the reconnection policy (default: forever, 500 ms, 2.0, 5 s, jitter).
func WithReconnect(r Reconnect) Option {
	return optionCall(func(o *C.qy_client_options, args *cArgs, err **C.qy_error) C.qy_status {
		base := args.millis("reconnect base", r.Base, maxUint32Ms)
		max := args.millis("reconnect max", r.Max, maxUint32Ms)
		return C.qy_client_options_set_reconnect(o, C.int64_t(r.MaxAttempts), C.uint32_t(base),
			C.double(r.Factor), C.uint32_t(max), cBool(!r.NoJitter), err)
	})
}

// LogLevel is how much a log line matters.
type LogLevel int

// The levels of queuey's log lines.
const (
	LogDebug LogLevel = C.QY_LOG_DEBUG
	LogInfo  LogLevel = C.QY_LOG_INFO
	LogWarn  LogLevel = C.QY_LOG_WARN
	LogError LogLevel = C.QY_LOG_ERROR
)

func (l LogLevel) String() string {
	switch l {
	case LogDebug:
		return "debug"
	case LogInfo:
		return "info"
	case LogWarn:
		return "warn"
	case LogError:
		return "error"
	}
	return "unknown"
}

// Logger receives queuey's log lines (reconnects, settle failures, ...). It runs on a
// log thread of the client's own, one line at a time and in order, never while queuey
// holds a lock, so a slow Logger delays only the log; when it falls 10000 lines behind,
// lines are dropped and it is told how many. It must not call into the client. Close
// delivers what is still queued (for up to 2 s); lines logged after it are dropped.
type Logger func(level LogLevel, message string)

// WithLogger routes queuey's log lines to log; WithLogger(nil) silences queuey. Without
// WithLogger or WithSlog, Dial logs to log/slog's default logger.
func WithLogger(log Logger) Option {
	return optionCall(func(o *C.qy_client_options, args *cArgs, err **C.qy_error) C.qy_status {
		if log == nil {
			return C.qy_client_options_set_log(o, nil, nil, nil, err)
		}
		return C.qy_client_options_set_log(o, C.qy_log_fn(C.queuey_log), newUserData(log), C.qy_destroy_fn(C.queuey_release), err)
	})
}

// WithSlog routes queuey's log lines to l at their levels (a nil l silences queuey).
func WithSlog(l *slog.Logger) Option {
	if l == nil {
		return WithLogger(nil)
	}
	return WithLogger(func(level LogLevel, message string) {
		l.Log(context.Background(), level.slogLevel(), message)
	})
}

// defaultLog sends the lines to slog.Default() as it is when each is logged, so that a
// program that sets its default logger after Dial still gets them.
var defaultLog = WithLogger(func(level LogLevel, message string) {
	slog.Default().Log(context.Background(), level.slogLevel(), message)
})

func (l LogLevel) slogLevel() slog.Level {
	switch l {
	case LogDebug:
		return slog.LevelDebug
	case LogInfo:
		return slog.LevelInfo
	case LogWarn:
		return slog.LevelWarn
	}
	return slog.LevelError
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
