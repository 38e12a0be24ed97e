package schema

import (
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/orchestrator"
	"github.com/stretchr/testify/require"
)

func TestHintsNameRecordedKeys(t *testing.T) {
	reg := cogloop.NewRegistry()
	specs, err := orchestrator.RecordSpecs(reg)
	require.NoError(t, err)
	for _, p := range paths() {
		parts := strings.Split(p, ".")
		var s *load.Spec
		switch parts[0] {
		case "workflow":
			s = specs.Workflow
		case "internal_workflow":
			s = specs.Internal
		default:
			s = specs.Agents[parts[0]]
		}
		require.NotNil(t, s, "hint %q names no workflow or agent type", p)
		for i, name := range parts[1:] {
			k := s.Key(name)
			require.NotNil(t, k, "hint %q names key %q, which the loader does not read", p, name)
			if i < len(parts)-2 {
				require.Equal(t, "map", k.Kind, "hint %q: %q is not a mapping", p, name)
				s = k.Map
			}
		}
	}
}
