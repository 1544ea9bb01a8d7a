package queuey

import (
	"context"
	"time"
)

// await runs f, a call that blocks in C, and returns its result, or ctx's error as
// soon as ctx ends first. C calls cannot be interrupted: f then goes on in the
// background, and undo (may be nil) disposes of a result that nobody will take.
// Without a ctx that can end, f simply runs on the caller's goroutine.
func await[R any](ctx context.Context, f func() (R, error), undo func(R)) (R, error) {
	var zero R
	if ctx.Done() == nil {
		return f()
	}
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	type result struct {
		r   R
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := f()
		done <- result{r, err}
	}()
	select {
	case res := <-done:
		return res.r, res.err
	case <-ctx.Done():
		go func() {
			if res := <-done; res.err == nil && undo != nil {
				undo(res.r)
			}
		}()
		return zero, ctx.Err()
	}
}

// awaitErr is await for a call without a result.
func awaitErr(ctx context.Context, f func() error) error {
	_, err := await(ctx, func() (struct{}, error) { return struct{}{}, f() }, nil)
	return err
}

// pollSlice is how long one C wait may last so that a cancelled ctx is noticed in time,
// within its deadline; ok is false once ctx has ended.
func pollSlice(ctx context.Context) (ms uint32, ok bool) {
	const slice = 100 * time.Millisecond
	if ctx.Err() != nil {
		return 0, false
	}
	wait := slice
	if deadline, has := ctx.Deadline(); has {
		wait = min(wait, time.Until(deadline))
	}
	if wait < 0 {
		wait = 0
	}
	return uint32((wait + time.Millisecond - 1) / time.Millisecond), true
}
