package scoring_test

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/configs"
	"github.com/cogloop/cogloop/scoring"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryShippedPresetIsSound walks configs/presets: every file loads, and
// every preset's weights are non-negative and sum to 1, its thresholds are
// ordered, and it weighs every criterion its context lists.
func TestEveryShippedPresetIsSound(t *testing.T) {
	files, err := fs.Glob(configs.Presets, "presets/*.yaml")
	require.NoError(t, err)
	require.Len(t, files, 4, "one file per shipped context")

	cat := scoring.Embedded()
	presets := cat.Presets()
	require.Len(t, presets, 12)
	for _, p := range presets {
		t.Run(p.Name(), func(t *testing.T) {
			sum := 0.0
			for _, c := range p.Criteria {
				assert.GreaterOrEqual(t, c.Weight, 0.0, c.Key)
				assert.NotEmpty(t, c.Description, "%s has a question for validators", c.Key)
				sum += c.Weight
			}
			assert.InDelta(t, 1.0, sum, 0.001)
			assert.LessOrEqual(t, p.NeedsImprovement, p.Approved)
			assert.GreaterOrEqual(t, p.NeedsImprovement, 0.0)
			assert.LessOrEqual(t, p.Approved, 1.0)
			assert.NotEmpty(t, p.Instruction)
			assert.NoError(t, p.Validate())

			ctx, err := cat.Context(p.Context)
			require.NoError(t, err)
			var want []string
			for _, c := range ctx.Criteria {
				want = append(want, c.Key)
			}
			assert.Equal(t, want, p.Keys(), "a preset weighs every criterion of its context, in the context's order")
		})
	}
}

// TestShippedPresetsMatchOrKa pins the numbers of spec §3.4.
func TestShippedPresetsMatchOrKa(t *testing.T) {
	cat := scoring.Embedded()
	assert.Equal(t, []string{"graphscout", "loop_convergence", "quality", "validation"}, names(cat))
	tests := []struct {
		context, level string
		weights        map[string]float64
		approved, ni   float64
	}{
		{"loop_convergence", "strict", map[string]float64{"improvement.better_than_previous": 0.30, "stability.not_degrading": 0.15, "convergence.within_tolerance": 0.10}, 0.90, 0.75},
		{"loop_convergence", "moderate", map[string]float64{"improvement.better_than_previous": 0.25, "stability.not_degrading": 0.18, "convergence.within_tolerance": 0.08}, 0.85, 0.70},
		{"loop_convergence", "lenient", map[string]float64{"improvement.significant_delta": 0.12, "stability.consistent_direction": 0.15, "convergence.delta_decreasing": 0.10}, 0.75, 0.60},
		{"graphscout", "strict", map[string]float64{"completeness.has_all_required_steps": 0.20, "efficiency.optimizes_cost": 0.04, "coherence.proper_data_flow": 0.01}, 0.90, 0.75},
		{"path", "lenient", map[string]float64{"efficiency.minimizes_redundant_calls": 0.12, "safety.validates_inputs": 0.10}, 0.80, 0.65},
		{"quality", "moderate", map[string]float64{"accuracy.factually_correct": 0.22, "completeness.comprehensive_answer": 0.18, "relevance.stays_on_topic": 0.05}, 0.85, 0.70},
		{"validation", "strict", map[string]float64{"schema_compliance.matches_schema": 0.30, "format.well_formed": 0.10}, 0.95, 0.85},
		{"validation", "lenient", map[string]float64{"constraints.within_bounds": 0.20, "format.well_formed": 0.12}, 0.80, 0.65},
	}
	for _, tc := range tests {
		t.Run(tc.context+"/"+tc.level, func(t *testing.T) {
			p, err := cat.Preset(tc.context, tc.level)
			require.NoError(t, err)
			for k, w := range tc.weights {
				assert.InDelta(t, w, weight(p, k), 1e-9, k)
			}
			assert.Equal(t, tc.approved, p.Approved)
			assert.Equal(t, tc.ni, p.NeedsImprovement)
		})
	}
	p, err := cat.Preset("", "strict")
	require.NoError(t, err)
	assert.Equal(t, "loop_convergence", p.Context, "no context means loop_convergence")
	p, err = cat.Preset("PATH", "Moderate")
	require.NoError(t, err)
	assert.Equal(t, "graphscout/moderate", p.Name(), "names are case-insensitive and path is graphscout")
	assert.Len(t, p.Criteria, 15)
	assert.Equal(t, []string{"completeness", "efficiency", "safety", "coherence"}, p.Dimensions())
}

func names(c *scoring.Catalog) []string {
	var out []string
	for _, x := range c.Contexts() {
		out = append(out, x.Name)
	}
	return out
}

func weight(p *scoring.Preset, key string) float64 {
	for _, c := range p.Criteria {
		if c.Key == key {
			return c.Weight
		}
	}
	return math.NaN()
}

func TestUnknownNamesListTheKnownOnes(t *testing.T) {
	cat := scoring.Embedded()
	_, err := cat.Preset("qualty", "strict")
	require.ErrorIs(t, err, scoring.ErrUnknownContext)
	assert.EqualError(t, err, `unknown scoring context "qualty" (known: graphscout (also path), loop_convergence, quality, validation)`)

	_, err = cat.Preset("quality", "harsh")
	require.ErrorIs(t, err, scoring.ErrUnknownPreset)
	assert.EqualError(t, err, `unknown scoring preset "harsh" for context quality (known: strict, moderate, lenient)`)
	var le *scoring.LookupError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, []string{"strict", "moderate", "lenient"}, le.Known)
}

func TestPresetsAreCopies(t *testing.T) {
	cat := scoring.Embedded()
	p, err := cat.Preset("quality", "strict")
	require.NoError(t, err)
	p.Criteria[0].Weight = 42
	q, err := cat.Preset("quality", "strict")
	require.NoError(t, err)
	assert.Equal(t, 0.25, q.Criteria[0].Weight)
}

const override = `# my presets
context: loop_convergence
presets:
  strict:
    instruction: Be merciless.
    approved: 0.95
    needs_improvement: 0.8
    weights:
      improvement.better_than_previous: 0.5
      convergence.within_tolerance: 0.5
  paranoid:
    approved: 1
    needs_improvement: 1
    weights:
      stability.not_degrading: 1
`

const newContext = `context: tone
aliases: [voice]
description: Does the text sound right?
criteria:
  tone.friendly: The text is friendly.
  tone.concise: The text is concise.
presets:
  moderate:
    approved: 0.8
    needs_improvement: 0.5
    weights: {tone.friendly: 0.6, tone.concise: 0.4}
`

func TestLoadDirOverridesAndAdds(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", override)
	write(t, dir, "b.yml", newContext)
	write(t, dir, "notes.txt", "not a preset")

	cat, err := scoring.Embedded().LoadDir(dir)
	require.NoError(t, err)

	strict, err := cat.Preset("loop_convergence", "strict")
	require.NoError(t, err)
	assert.Equal(t, []string{"improvement.better_than_previous", "convergence.within_tolerance"}, strict.Keys())
	assert.Equal(t, "Be merciless.", strict.Instruction)
	assert.Equal(t, "The output is better than the previous iteration's.", strict.Criteria[0].Description,
		"criteria descriptions come from the context")
	assert.Equal(t, filepath.Join(dir, "a.yaml")+":4", strict.Source)

	moderate, err := cat.Preset("loop_convergence", "moderate")
	require.NoError(t, err)
	assert.Len(t, moderate.Criteria, 7, "levels the directory does not define stay")

	ctx, err := cat.Context("loop_convergence")
	require.NoError(t, err)
	assert.Equal(t, []string{"strict", "moderate", "lenient", "paranoid"}, ctx.Levels())

	tone, err := cat.Preset("voice", "moderate")
	require.NoError(t, err)
	assert.Equal(t, "tone/moderate", tone.Name())
	assert.Equal(t, "The text is concise.", tone.Criteria[1].Description)

	_, err = scoring.Embedded().Preset("tone", "moderate")
	assert.ErrorIs(t, err, scoring.ErrUnknownContext, "the embedded catalog is unchanged")
}

func TestPresetFileProblemsHavePositions(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"weights do not sum to 1", "context: c\npresets:\n  s:\n    approved: 0.9\n    needs_improvement: 0.5\n    weights:\n      a.b: 0.5\n      a.c: 0.45\n",
			[]string{"p.yaml:6:5: preset c/s: weights sum to 0.95, not 1 (±0.001)"}},
		{"negative weight", "context: c\npresets:\n  s:\n    approved: 0.9\n    needs_improvement: 0.5\n    weights: {a.b: 1.2, a.c: -0.2}\n",
			[]string{"p.yaml:6:30: preset c/s: weight of a.c: bad weight: -0.2 is negative; weights must be 0 or more"}},
		{"unknown key", "context: c\npresets:\n  s:\n    approve: 0.9\n    needs_improvement: 0.5\n    weights: {a.b: 1}\n",
			[]string{`p.yaml:4:5: preset c/s: unknown key "approve" (known keys: description, instruction, approved, needs_improvement, weights)`,
				"p.yaml:3:3: preset c/s: approved is missing"}},
		{"thresholds out of order", "context: c\npresets:\n  s:\n    approved: 0.5\n    needs_improvement: 0.9\n    weights: {a.b: 1}\n",
			[]string{"p.yaml:5:5: preset c/s: needs_improvement (0.9) must not be above approved (0.5)"}},
		{"bad key form", "context: c\npresets:\n  s:\n    approved: 0.9\n    needs_improvement: 0.5\n    weights: {Completeness: 1}\n",
			[]string{`p.yaml:6:15: preset c/s: weight key "Completeness" is not of the form dimension.criterion`}},
		{"weight of an unlisted criterion", "context: c\ncriteria: {a.b: x, a.c: y}\npresets:\n  s:\n    approved: 0.9\n    needs_improvement: 0.5\n    weights: {a.b: 0.5, a.d: 0.5}\n",
			[]string{`p.yaml:7:25: preset c/s: "a.d" is not a criterion of context c (criteria: a.b, a.c)`}},
		{"override names an unknown criterion", "context: quality\npresets:\n  strict:\n    approved: 0.9\n    needs_improvement: 0.5\n    weights: {accuracy.factually_correct: 0.5, accuracy.witty: 0.5}\n",
			[]string{`p.yaml:6:48: preset quality/strict: "accuracy.witty" is not a criterion of context quality`}},
		{"no context", "presets: {}\n", []string{"p.yaml:1:1: preset file needs a context"}},
		{"not a number", "context: c\npresets:\n  s:\n    approved: high\n    needs_improvement: 0.5\n    weights: {a.b: 1}\n",
			[]string{`p.yaml:4:15: preset c/s: approved must be a number, not "high"`}},
		{"bad yaml", "context: c\npresets: [\n", []string{"p.yaml:2:1: invalid YAML"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := scoring.Embedded().Parse("p.yaml", []byte(tc.src))
			require.Error(t, err)
			var le *load.Error
			require.ErrorAs(t, err, &le)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestContextDefinedTwiceInOneDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.yaml", newContext)
	write(t, dir, "b.yaml", newContext)
	_, err := scoring.Embedded().LoadDir(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "b.yaml")+`:1:10: context "tone" is defined again (first in `+filepath.Join(dir, "a.yaml")+")")
}

func TestAliasClash(t *testing.T) {
	_, err := scoring.Embedded().Parse("p.yaml", []byte(strings.Replace(newContext, "[voice]", "[path]", 1)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `context tone: alias "path" is already the name or an alias of context graphscout`)
}

func TestLoadDirMissing(t *testing.T) {
	_, err := scoring.Embedded().LoadDir(filepath.Join(t.TempDir(), "nope"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, fs.ErrNotExist))
}

func TestDefaultReadsTheEnvironmentDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "tone.yaml", newContext)
	t.Setenv(scoring.EnvDir, dir)
	cat, err := scoring.Default()
	require.NoError(t, err)
	_, err = cat.Preset("tone", "moderate")
	assert.NoError(t, err)

	bad := t.TempDir()
	write(t, bad, "x.yaml", "context: c\n")
	t.Setenv(scoring.EnvDir, bad)
	_, err = scoring.Default()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "presets directory $COGLOOP_PRESETS_DIR: ")
	assert.Contains(t, err.Error(), "presets is missing")

	t.Setenv(scoring.EnvDir, "")
	cat, err = scoring.Default()
	require.NoError(t, err)
	assert.Same(t, scoring.Embedded(), cat)
}

func write(t *testing.T, dir, name, data string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
}

func TestContextsWith(t *testing.T) {
	cat := scoring.Embedded()
	assert.Equal(t, []string{"graphscout"}, cat.ContextsWith("moderate", []string{"safety.validates_inputs", "completeness.has_all_required_steps"}))
	assert.Equal(t, []string{"loop_convergence"}, cat.ContextsWith("moderate", []string{"improvement.better_than_previous", "Convergence.Within_Tolerance"}))
	assert.Empty(t, cat.ContextsWith("moderate", []string{"safety.validates_inputs", "improvement.better_than_previous"}), "no context has both")
	assert.Empty(t, cat.ContextsWith("no_such_level", []string{"safety.validates_inputs"}))
}
