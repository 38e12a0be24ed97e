package scoring

import (
	"fmt"
	"math"
	"strings"
)

// Context names of the shipped presets, and the defaults.
const (
	ContextLoopConvergence = "loop_convergence"
	ContextQuality         = "quality"
	ContextGraphScout      = "graphscout"
	ContextValidation      = "validation"

	// DefaultContext is the context of a loop's scoring block without one
	// (cogloop's decision; OrKa falls back to graphscout there).
	DefaultContext = ContextLoopConvergence
	// DefaultLevel is the validators' scoring_preset when none is given.
	DefaultLevel = "moderate"
)

// Assessment labels, from a score and a preset's thresholds.
const (
	Approved         = "APPROVED"
	NeedsImprovement = "NEEDS_IMPROVEMENT"
	Rejected         = "REJECTED"
)

// SumTolerance is how far a preset's weights may sum from 1.
const SumTolerance = 0.001

// Criterion is one weighed criterion of a preset.
type Criterion struct {
	// Key is "dimension.criterion", lower case.
	Key string
	// Weight is what the criterion adds to the score when it passes.
	Weight float64
	// Description is the question a validator's model answers about it
	// (empty when the context lists none).
	Description string
}

// Dimension is the part of Key before the dot.
func (c Criterion) Dimension() string { d, _, _ := strings.Cut(c.Key, "."); return d }

// Name is the part of Key after the dot.
func (c Criterion) Name() string { _, n, _ := strings.Cut(c.Key, "."); return n }

// Preset is one level of one context: weighed criteria and thresholds.
type Preset struct {
	// Context is the canonical context name (loop_convergence, graphscout, ...).
	Context string
	// Level is the preset's own name (strict, moderate, lenient, ...).
	Level string
	// Description says what the preset is for; Instruction tells a validator's
	// model how to judge (it goes into the prompt).
	Description, Instruction string
	// Criteria are in file order; their weights sum to 1.
	Criteria []Criterion
	// Approved and NeedsImprovement are the assessment thresholds
	// (0 ≤ NeedsImprovement ≤ Approved ≤ 1).
	Approved, NeedsImprovement float64
	// Source is where the preset was defined ("configs/presets/quality.yaml:21").
	Source string
}

// Name is "context/level".
func (p *Preset) Name() string { return p.Context + "/" + p.Level }

// Keys lists the criterion keys in order.
func (p *Preset) Keys() []string {
	out := make([]string, len(p.Criteria))
	for i, c := range p.Criteria {
		out[i] = c.Key
	}
	return out
}

// Dimensions lists the dimensions in the order of their first criterion.
func (p *Preset) Dimensions() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range p.Criteria {
		if d := c.Dimension(); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// Assessment labels a score: [Approved] at or above Approved,
// [NeedsImprovement] at or above NeedsImprovement, else [Rejected].
func (p *Preset) Assessment(score float64) string {
	switch {
	case score >= p.Approved:
		return Approved
	case score >= p.NeedsImprovement:
		return NeedsImprovement
	}
	return Rejected
}

// Validate checks what every preset must satisfy: at least one criterion, keys
// of the form "dimension.criterion" without repeats, weights that are finite,
// not negative and sum to 1 (±[SumTolerance]), and thresholds with
// 0 ≤ needs_improvement ≤ approved ≤ 1.
func (p *Preset) Validate() error {
	var errs []string
	if len(p.Criteria) == 0 {
		errs = append(errs, "it has no criteria")
	}
	seen := map[string]bool{}
	sum := 0.0
	for _, c := range p.Criteria {
		if !validKey(c.Key) {
			errs = append(errs, fmt.Sprintf("criterion %q is not of the form dimension.criterion (lower case, digits, _)", c.Key))
		}
		if seen[c.Key] {
			errs = append(errs, fmt.Sprintf("criterion %q appears twice", c.Key))
		}
		seen[c.Key] = true
		if err := checkWeight(c.Weight); err != nil {
			errs = append(errs, fmt.Sprintf("criterion %q: %v", c.Key, err))
			continue
		}
		sum += c.Weight
	}
	if len(p.Criteria) > 0 && math.Abs(sum-1) > SumTolerance {
		errs = append(errs, fmt.Sprintf("weights sum to %s, not 1 (±%g)", fmtWeight(sum), SumTolerance))
	}
	if err := checkThresholds(p.Approved, p.NeedsImprovement); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("preset %s: %s", p.Name(), strings.Join(errs, "; "))
}

func checkWeight(w float64) error {
	switch {
	case math.IsNaN(w) || math.IsInf(w, 0):
		return fmt.Errorf("%w: %g is not a finite number", ErrBadWeight, w)
	case w < 0:
		return fmt.Errorf("%w: %s is negative; weights must be 0 or more", ErrBadWeight, fmtWeight(w))
	}
	return nil
}

func checkThresholds(approved, needs float64) error {
	switch {
	case approved < 0 || approved > 1:
		return fmt.Errorf("approved must be between 0 and 1, not %g", approved)
	case needs < 0 || needs > 1:
		return fmt.Errorf("needs_improvement must be between 0 and 1, not %g", needs)
	case needs > approved:
		return fmt.Errorf("needs_improvement (%g) must not be above approved (%g)", needs, approved)
	}
	return nil
}

// fmtWeight prints a weight without float noise (0.95, not 0.9500000000000001).
func fmtWeight(w float64) string {
	return fmt.Sprintf("%g", math.Round(w*1e6)/1e6)
}

// validKey reports whether k is "dimension.criterion" in lower-case words.
func validKey(k string) bool {
	d, c, ok := strings.Cut(k, ".")
	return ok && validName(d) && validName(c)
}

// validName reports whether s is a lower-case identifier: a letter, then
// letters, digits and underscores.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z':
		case i > 0 && (r == '_' || (r >= '0' && r <= '9')):
		default:
			return false
		}
	}
	return true
}

// Clone returns a copy of p that shares nothing mutable with it.
func (p *Preset) Clone() *Preset {
	q := *p
	q.Criteria = append([]Criterion(nil), p.Criteria...)
	return &q
}
