package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPresetsListsContexts(t *testing.T) {
	code, out, errs := runCLI(t, "presets")
	require.Equal(t, 0, code, errs)
	lines := strings.Split(out, "\n")
	assert.Regexp(t, `^CONTEXT\s+PRESETS\s+CRITERIA\s+DESCRIPTION$`, lines[0])
	assert.Regexp(t, `^graphscout \(path\)\s+strict, moderate, lenient\s+15\s+Is the proposed plan`, lines[1])
	assert.Regexp(t, `^loop_convergence\s+strict, moderate, lenient\s+7\s`, lines[2])
	assert.Regexp(t, `^quality\s+strict, moderate, lenient\s+8\s`, lines[3])
	assert.Regexp(t, `^validation\s+strict, moderate, lenient\s+6\s`, lines[4])
}

func TestPresetsShowsAContextsWeightsAndThresholds(t *testing.T) {
	code, out, errs := runCLI(t, "presets", "loop_convergence")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `(?m)^CRITERION\s+STRICT\s+MODERATE\s+LENIENT\s*$`, out)
	assert.Regexp(t, `(?m)^improvement\.better_than_previous\s+0\.30\s+0\.25\s+0\.25\s*$`, out)
	assert.Regexp(t, `(?m)^convergence\.within_tolerance\s+0\.10\s+0\.08\s+0\.10\s*$`, out)
	assert.Regexp(t, `(?m)^approved\s+0\.90\s+0\.85\s+0\.75\s*$`, out)
	assert.Regexp(t, `(?m)^needs_improvement\s+0\.75\s+0\.70\s+0\.60\s*$`, out)
}

func TestPresetsShowsOnePreset(t *testing.T) {
	code, out, errs := runCLI(t, "presets", "path/lenient")
	require.Equal(t, 0, code, errs)
	assert.True(t, strings.HasPrefix(out, "graphscout/lenient: Relaxed standards for exploratory plans.\n"), out)
	assert.Contains(t, out, "APPROVED at 0.80 or more, NEEDS_IMPROVEMENT at 0.65 or more, else REJECTED")
	assert.Regexp(t, `(?m)^safety\.validates_inputs\s+0\.10\s+Inputs are checked before they are used\.$`, out)

	code, out, _ = runCLI(t, "presets", "strict")
	require.Equal(t, 0, code)
	assert.Equal(t, 4, strings.Count(out, "/strict: "), "a preset name shows that preset of every context")
}

func TestPresetsUnknownNameListsTheKnownOnes(t *testing.T) {
	code, _, errs := runCLI(t, "presets", "harsh")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `no scoring context or preset is called "harsh" (contexts: graphscout, loop_convergence, quality, validation; presets: strict, moderate, lenient; or context/preset)`)

	code, _, errs = runCLI(t, "presets", "quality/harsh")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown scoring preset "harsh" for context quality (known: strict, moderate, lenient)`)
}

func TestPresetsDirectory(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tone.yaml"), []byte(`context: tone
description: Does it sound right?
presets:
  gentle:
    approved: 0.7
    needs_improvement: 0.4
    weights: {tone.friendly: 0.625, tone.concise: 0.375}
`), 0o644))
	code, out, errs := runCLI(t, "presets", "--presets", dir, "--json", "tone")
	require.Equal(t, 0, code, errs)
	var got []struct {
		Context  string `json:"context"`
		Preset   string `json:"preset"`
		Criteria []struct {
			Key    string  `json:"key"`
			Weight float64 `json:"weight"`
		} `json:"criteria"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got, 1)
	assert.Equal(t, "gentle", got[0].Preset)
	assert.Equal(t, 0.625, got[0].Criteria[0].Weight)

	code, out, _ = runCLI(t, "presets", "tone", "--presets", dir)
	require.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^tone\.friendly\s+0\.625\s*$`, out)

	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("context: bad\npresets:\n  x:\n    approved: 0.9\n    needs_improvement: 0.5\n    weights: {a.b: 0.5}\n"), 0o644))
	code, _, errs = runCLI(t, "presets", "--presets", dir)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, filepath.Join(dir, "bad.yaml")+":6:5: preset bad/x: weights sum to 0.5, not 1 (±0.001)")
}
