package queuey

// #include <queuey/queuey.h>
import "C"

import (
	"context"
	"runtime"
)

// Client is the connections to where jobs live (one publishes, one consumes), shared by the producers, consumers and
// workers made from it. Safe for use by many goroutines at once.
type Client struct {
	h handle[*C.qy_client]
}

// Dial connects to url: "amqp://user:pass@host:port/vhost", "amqps://..." for TLS, or
// "memory://" for an in-process backend with the same producers and workers (each such
// client has queues of its own, and can be inspected with the Memory* methods). The
// connect is not retried; ctx can abandon it.
func Dial(ctx context.Context, url string, opts ...Option) (*Client, error) {
	p, err := await(ctx, func() (*C.qy_client, error) { return dial(url, opts) },
		func(p *C.qy_client) { C.qy_client_free(p) })
	if err != nil {
		return nil, err
	}
	c := &Client{}
	c.h.own("client", p)
	runtime.SetFinalizer(c, (*Client).Close)
	return c, nil
}

func dial(url string, opts []Option) (*C.qy_client, error) {
	var args cArgs
	defer args.free()
	cURL := args.str("url", url)
	if args.err != nil {
		return nil, args.err
	}
	var p *C.qy_client
	err := withClientOptions(&args, opts, func(o *C.qy_client_options) error {
		return call(func(err **C.qy_error) C.qy_status { return C.qy_client_new(cURL, o, &p, err) })
	})
	return p, err
}

// withClientOptions runs f with the C form of opts (after the default log), freed
// afterwards; args keeps the strings the options were given.
func withClientOptions(args *cArgs, opts []Option, f func(o *C.qy_client_options) error) error {
	var o *C.qy_client_options
	if err := call(func(err **C.qy_error) C.qy_status { return C.qy_client_options_new(&o, err) }); err != nil {
		return err
	}
	defer C.qy_client_options_free(o)
	for _, opt := range append([]Option{defaultLog}, opts...) {
		if err := opt.apply(o, args); err != nil {
			return err
		}
	}
	return f(o)
}

// Close closes the connection. Producers, consumers and workers made from the client
// then fail with ErrClosed. Idempotent.
func (c *Client) Close() error {
	c.h.release(func(p *C.qy_client) { C.qy_client_free(p) })
	return nil
}

// Declare declares the queue and its dead-letter queue (idempotent) and remembers the
// configuration, which delayed publishes, deferrals and consumers of the queue need. A
// queue that exists with other arguments fails with ErrPreconditionFailed.
func (c *Client) Declare(ctx context.Context, cfg QueueConfig) error {
	return awaitErr(ctx, func() error {
		return c.h.use(func(p *C.qy_client) error {
			return withQueueConfig(cfg, func(config *C.qy_queue_config) error {
				return call(func(err **C.qy_error) C.qy_status { return C.qy_client_declare(p, config, err) })
			})
		})
	})
}
