package cogloop

import (
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/types/legacy"
)

// NewTestRegistry is NewRegistry with the failing type's wait replaced by
// sleep (tests must not wait for real).
func NewTestRegistry(sleep legacy.Options) *agents.Registry { return newRegistry(sleep) }
