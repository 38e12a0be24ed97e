package orchestrator_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/loopnode"
	"github.com/cogloop/cogloop/orchestrator"
)

// The referenced files together have the main file's limits: a chain of
// references that would exceed them is a load error at the reference.
func TestWorkflowRefFilesShareTheLimits(t *testing.T) {
	dir := t.TempDir()
	inner := "orchestrator: {id: i, agents: [a]}\nagents:\n  - {id: a, type: loop, max_loops: 1, workflow_ref: %s}\n"
	pad := "# " + strings.Repeat("x", 300) + "\n"
	for i := 1; i <= 4; i++ {
		body := fmt.Sprintf(inner, fmt.Sprintf("f%d.yaml", i+1))
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.yaml", i)), []byte(body+pad), 0o644))
	}
	reg := agents.NewRegistry()
	loopnode.Register(reg)
	lim := orchestrator.Limits{MaxBytes: 1000, MaxNodes: 10_000}
	_, _, err := orchestrator.Load(filepath.Join(dir, "f1.yaml"), reg, orchestrator.WithLimits(lim))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "f3.yaml")+":3:")
	assert.Contains(t, err.Error(), "the referenced files together may have 1000 bytes")
}
