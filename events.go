package cogloop

import (
	"context"
	"iter"

	"github.com/cogloop/cogloop/agents/event"
)

// chain is an observer sending each event to first, then to next; a nil one
// is left out.
func chain(first, next event.Observer) event.Observer {
	switch {
	case first == nil:
		return next
	case next == nil:
		return first
	}
	return func(e event.Event) {
		first(e)
		next(e)
	}
}

// Events runs the workflow like [Workflow.Run] and yields the run's events as
// they happen, in the order observers see them (with the observers given in
// opts too). The run goes at the pace of the loop over the events: an event
// waits until the previous one was taken. Once the loop is over, result returns
// what Run returned. Stopping the loop early cancels the run, and result
// then reports the canceled run; result called before the loop ends waits
// for the run, so call it after the loop.
//
//	events, result := wf.Events(ctx, "task")
//	for e := range events {
//		fmt.Println(e.Kind, e.Node)
//	}
//	res, err := result()
//
// The events can be ranged over once.
func (w *Workflow) Events(ctx context.Context, input any, opts ...RunOption) (events iter.Seq[event.Event], result func() (*Result, error)) {
	var (
		res  *Result
		err  error
		done = make(chan struct{})
		ran  bool
	)
	events = func(yield func(event.Event) bool) {
		if ran {
			return
		}
		ran = true
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ch := make(chan event.Event)
		stop := make(chan struct{}) // closed when the loop stops early
		send := func(e event.Event) {
			select {
			case ch <- e:
			case <-stop:
			}
		}
		go func() {
			defer close(ch)
			res, err = w.Run(ctx, input, append(opts, WithObserver(send))...)
		}()
		defer func() {
			// Cancel first: once stop is closed the run's sends return at
			// once, and a run that is not yet cancelled could finish.
			cancel()
			close(stop)
			for range ch { // the run ends; no goroutine outlives the loop
			}
			close(done)
		}()
		for e := range ch {
			if !yield(e) {
				return
			}
		}
	}
	result = func() (*Result, error) {
		if !ran {
			events(func(event.Event) bool { return true })
		}
		<-done
		return res, err
	}
	return events, result
}
