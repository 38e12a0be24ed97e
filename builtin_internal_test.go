//go:build !cogloop_core

package cogloop

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cogloop/cogloop/agents"
)

// sdkTypes (the types a core build refuses by name) are exactly the types
// builtin.go registers, and the core registry does not have them.
func TestSDKTypesAreWhatBuiltinRegisters(t *testing.T) {
	r := agents.NewRegistry()
	registerSDKTypes(r, injected{})
	assert.Equal(t, r.Types(), slices.Sorted(slices.Values(sdkTypes)), "update sdkTypes in registry_types.go")
	full := NewRegistry().Types()
	for _, typ := range sdkTypes {
		assert.Contains(t, full, typ)
	}
}
