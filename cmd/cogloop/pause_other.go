//go:build !unix

package main

import (
	"context"
	"io"

	"github.com/cogloop/cogloop/memory"
)

// pauseOnSignal does nothing where there is no SIGTSTP: `cogloop pause`
// still works.
func pauseOnSignal(context.Context, memory.Store, string, io.Writer) func() { return func() {} }
