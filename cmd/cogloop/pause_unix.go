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
	"github.com/cogloop/cogloop/memory"
	"github.com/cogloop/cogloop/queue"
)

// pauseWorkerOnSignal makes SIGUSR1 ask every run the worker runs to pause
// at its next pass boundary; it returns the func that stops listening.
func pauseWorkerOnSignal(ctx context.Context, w *queue.Worker, stderr io.Writer) func() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sigs:
				asked, err := w.PauseAll(ctx)
				fmt.Fprintf(stderr, "cogloop worker: SIGUSR1: pausing %d run(s) at their next pass boundary %v\n", len(asked), asked)
				if err != nil {
					fmt.Fprintf(stderr, "cogloop worker: pause: %v\n", err)
				}
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
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
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTSTP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-sigs:
				if err := cogloop.RequestPause(ctx, store, runID); err != nil {
					fmt.Fprintf(stderr, "\ncogloop: pause: %v\n", err)
					continue
				}
				fmt.Fprintf(stderr, "\ncogloop: pausing run %s at its next pass boundary\n", runID)
			}
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
