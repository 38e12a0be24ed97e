package legacy

import (
	"context"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/retry"
)

// Options are what the types depend on. The zero value waits with real timers.
type Options struct {
	// Sleep replaces a failing agent's wait (tests); nil waits for real,
	// ending early when the context ends.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Register adds failing, binary, classification, memory-reader and
// memory-writer to r. The aliases build through r's memory type, looked up
// when a workflow is loaded.
func Register(r *agents.Registry) { RegisterWith(r, Options{}) }

// RegisterWith is [Register] with explicit dependencies.
func RegisterWith(r *agents.Registry, o Options) {
	if o.Sleep == nil {
		o.Sleep = retry.Sleep
	}
	r.MustRegister("failing", o.failingFactory)
	r.MustRegister("binary", binaryFactory)
	r.MustRegister("classification", classificationFactory)
	r.MustRegister("memory-reader", memoryAlias(r, "read"))
	r.MustRegister("memory-writer", memoryAlias(r, "write"))
}
