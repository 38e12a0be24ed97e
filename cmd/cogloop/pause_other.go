//go:build !unix

package main

import (
	"context"
	"io"

	"github.com/cogloop/cogloop/app/queue"
	"github.com/cogloop/cogloop/memory"
)

// pauseOnSignal does nothing where there is no SIGTSTP: `cogloop pause`
// still works.
func pauseOnSignal(context.Context, memory.Store, string, io.Writer) func() { return func() {} }

// pauseWorkerOnSignal does nothing where there is no SIGUSR1.
func pauseWorkerOnSignal(context.Context, *queue.Worker, io.Writer) func() { return func() {} }
