//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/memory"
)

// onSignal calls fn on each sig until the returned func is called.
func onSignal(sig os.Signal, fn func()) func() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, sig)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sigs:
				fn()
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// pauseWorkerOnSignal makes SIGUSR1 ask every run the worker runs to pause
// at its next pass boundary; it returns the func that stops listening.
func pauseWorkerOnSignal(ctx context.Context, w *queue.Worker, stderr io.Writer) func() {
	return onSignal(syscall.SIGUSR1, func() {
		asked, err := w.PauseAll(ctx)
		fmt.Fprintf(stderr, "cogloop worker: SIGUSR1: pausing %d run(s) at their next pass boundary %v\n", len(asked), asked)
		if err != nil {
			fmt.Fprintf(stderr, "cogloop worker: pause: %v\n", err)
		}
	})
}

// pauseOnSignal makes Ctrl-Z (SIGTSTP) ask the run to pause at its next
// pass boundary instead of stopping the process; it returns the func that
// stops listening.
func pauseOnSignal(ctx context.Context, store memory.Store, runID string, stderr io.Writer) func() {
	if store == nil {
		s, err := cogloop.DefaultMemory()
		if err != nil {
			return func() {}
		}
		store = s
	}
	return onSignal(syscall.SIGTSTP, func() {
		if err := cogloop.RequestPause(ctx, store, runID); err != nil {
			fmt.Fprintf(stderr, "\ncogloop: pause: %v\n", err)
			return
		}
		fmt.Fprintf(stderr, "\ncogloop: pausing run %s at its next pass boundary\n", runID)
	})
}
