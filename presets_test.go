package cogloop_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const tonePresets = `context: tone
description: Is the reply kind and brief?
criteria:
  tone.kind: The reply is kind.
  tone.brief: The reply is brief.
presets:
  moderate:
    approved: 0.8
    needs_improvement: 0.5
    weights: {tone.kind: 0.75, tone.brief: 0.25}
`

const toneLoop = `orchestrator: {id: w, agents: [l]PRESETS}
agents:
  - id: l
    type: loop
    max_loops: 3
    score_threshold: 0.7
    scoring: {preset: moderate, context: tone}
    internal_workflow:
      orchestrator: {id: i, agents: [judge]}
      agents:
        - id: judge
          type: scripted
          responses:
            - '{"tone": {"kind": false, "brief": true}}'
            - '{"tone": {"kind": true, "brief": false}}'
`

// presets_dir on the orchestrator (relative to the workflow file) and the
// --presets option both add contexts that loops can score with.
func TestPresetsDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "presets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "presets", "tone.yaml"), []byte(tonePresets), 0o600))

	plain := filepath.Join(dir, "plain.yaml")
	require.NoError(t, os.WriteFile(plain, []byte(strings.Replace(toneLoop, "PRESETS", "", 1)), 0o600))
	_, err := cogloop.Load(plain)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tone")

	withDir := filepath.Join(dir, "with_dir.yaml")
	require.NoError(t, os.WriteFile(withDir, []byte(strings.Replace(toneLoop, "PRESETS", ", presets_dir: presets", 1)), 0o600))
	for name, load := range map[string]func() (*cogloop.Workflow, error){
		"presets_dir": func() (*cogloop.Workflow, error) { return cogloop.Load(withDir) },
		"WithPresetsDir": func() (*cogloop.Workflow, error) {
			return cogloop.Load(plain, cogloop.WithPresetsDir(filepath.Join(dir, "presets")))
		},
	} {
		t.Run(name, func(t *testing.T) {
			wf, err := load()
			require.NoError(t, err)
			res, err := wf.Run(context.Background(), "x")
			require.NoError(t, err)
			l, _ := res.Outputs.Get("l")
			assert.Equal(t, 2, l.Fields["loops_completed"], "0.25 then 0.75 ≥ 0.7")
			assert.Equal(t, 0.75, l.Fields["final_score"])
		})
	}

	missing := filepath.Join(dir, "missing.yaml")
	require.NoError(t, os.WriteFile(missing, []byte(strings.Replace(toneLoop, "PRESETS", ", presets_dir: nowhere", 1)), 0o600))
	_, err = cogloop.Load(missing)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing.yaml:1:")
	assert.Contains(t, err.Error(), "nowhere")
}
