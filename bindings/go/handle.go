package queuey

import (
	"runtime"
	"sync"
)

// handle owns one C handle. Calls borrow it with use; release takes it away, waits for
// the calls in progress (a C call must never see its handle freed under it) and frees
// it. A plain mutex guards only the pointer, so a call may start inside another one
// (a handler asking its running worker to shut down) without deadlocking a Close.
type handle[P comparable] struct {
	mu     sync.Mutex
	p      P // a C pointer (an incomplete C type cannot be a type argument itself)
	active sync.WaitGroup
	what   string // "client", "producer", ... for the error after Close
}

// own makes h the owner of p, a fresh C handle of the kind `what`.
func (h *handle[P]) own(what string, p P) {
	h.p, h.what = p, what
}

// use runs f with the C handle, or fails with QY_ERR_CLOSED once it was released. Every
// method of a wrapper type reaches C through here, and the KeepAlive keeps the wrapper
// (h lies inside it) and so its finalizer away until the C call has returned.
func (h *handle[P]) use(f func(p P) error) error {
	defer runtime.KeepAlive(h)
	var none P
	h.mu.Lock()
	p := h.p
	if p != none {
		h.active.Add(1)
	}
	h.mu.Unlock()
	if p == none {
		return &Error{Status: StatusClosed, Message: "the " + h.what + " is closed"}
	}
	defer h.active.Done()
	return f(p)
}

// read is use for a getter: f's result, or the zero value after release.
func read[P comparable, R any](h *handle[P], f func(p P) R) R {
	var r R
	_ = h.use(func(p P) error {
		r = f(p)
		return nil
	})
	return r
}

// release frees the C handle once, after the calls in progress have returned.
func (h *handle[P]) release(free func(p P)) {
	var none P
	h.mu.Lock()
	p := h.p
	h.p = none
	h.mu.Unlock()
	if p != none {
		h.active.Wait()
		free(p)
	}
}
