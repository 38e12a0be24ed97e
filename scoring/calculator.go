package scoring

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/cogloop/cogloop/cognition/metrics"
	"github.com/cogloop/cogloop/internal/values"
)

// Calculator turns boolean evaluations ({dimension: {criterion: verdict}})
// into a weighted score with one preset: OrKa's BooleanScoreCalculator. It is
// immutable and safe for concurrent use.
type Calculator struct {
	preset  *Preset // with the effective (custom, renormalised) weights
	custom  bool
	weights map[string]float64
}

var (
	_ metrics.BooleanScorer  = (*Calculator)(nil)
	_ metrics.CriteriaLister = (*Calculator)(nil)
)

// NewCalculator builds a calculator for p. Custom weights ("dimension.criterion"
// → weight) replace the preset's weights of those criteria; then, if the
// weights no longer sum to 1 (±[SumTolerance]), every weight is divided by
// their sum. A key that names no criterion of p, or a weight that is negative
// or not finite, is a *[WeightError]; all of them are returned joined. So is
// a p that does not pass [Preset.Validate], and custom weights that leave
// every weight at 0.
func NewCalculator(p *Preset, custom map[string]float64) (*Calculator, error) {
	if p == nil {
		return nil, errors.New("no preset")
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	q := p.Clone()
	index := make(map[string]int, len(q.Criteria))
	for i, c := range q.Criteria {
		index[c.Key] = i
	}
	var errs []error
	for _, k := range sortedKeys(custom) {
		w := custom[k]
		i, ok := index[k]
		if !ok {
			errs = append(errs, &WeightError{Key: k, Err: fmt.Errorf("%w of preset %s (criteria: %s)", ErrUnknownCriterion, q.Name(), strings.Join(q.Keys(), ", "))})
			continue
		}
		if err := checkWeight(w); err != nil {
			errs = append(errs, &WeightError{Key: k, Err: err})
			continue
		}
		q.Criteria[i].Weight = w
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sum := 0.0
	for _, c := range q.Criteria {
		sum += c.Weight
	}
	if sum <= 0 {
		return nil, fmt.Errorf("custom weights leave every criterion of preset %s at 0", q.Name())
	}
	if math.Abs(sum-1) > SumTolerance {
		for i := range q.Criteria {
			q.Criteria[i].Weight /= sum
		}
	}
	c := &Calculator{preset: q, custom: len(custom) > 0, weights: make(map[string]float64, len(q.Criteria))}
	for _, cr := range q.Criteria {
		c.weights[cr.Key] = cr.Weight
	}
	return c, nil
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Preset returns the preset with the weights the calculator uses (custom
// weights applied and renormalised). It is a copy.
func (c *Calculator) Preset() *Preset { return c.preset.Clone() }

// Custom reports whether custom weights were given.
func (c *Calculator) Custom() bool { return c.custom }

// Criteria implements metrics.CriteriaLister: the preset's criterion keys
// in order.
func (c *Calculator) Criteria() []string { return c.preset.Keys() }

// Weight returns the weight of a criterion key.
func (c *Calculator) Weight(key string) (float64, bool) {
	w, ok := c.weights[key]
	return w, ok
}

// Score implements metrics.BooleanScorer: the sum of the weights of the
// criteria that [Passed], rounded to 4 decimals. It is always ok.
func (c *Calculator) Score(evals map[string]any) (float64, bool) {
	return c.Evaluate(evals).Score, true
}

// Assessment labels score with the preset's thresholds.
func (c *Calculator) Assessment(score float64) string { return c.preset.Assessment(score) }

// Evaluation is a scored set of boolean evaluations.
type Evaluation struct {
	// Score is the weighted sum of the passed criteria, rounded to 4 decimals.
	Score float64
	// Assessment is APPROVED, NEEDS_IMPROVEMENT or REJECTED.
	Assessment string
	// Passed and Failed list criterion keys in preset order; a missing or
	// unreadable verdict fails.
	Passed, Failed []string
	// Criteria holds every criterion's weight and verdict, in preset order.
	Criteria []Verdict
	// Dimensions holds the score of each dimension, in preset order.
	Dimensions []DimensionScore
}

// Verdict is one criterion's result.
type Verdict struct {
	Key    string
	Weight float64
	Passed bool
}

// DimensionScore sums one dimension: Score of Max, and Percentage = 100·Score/Max.
type DimensionScore struct {
	Dimension     string
	Score, Max    float64
	Percentage    float64
	Passed, Total int
}

// Evaluate scores evals ({dimension: {criterion: verdict}}, exact keys).
func (c *Calculator) Evaluate(evals map[string]any) Evaluation {
	e := Evaluation{}
	dims := map[string]int{}
	sum := 0.0
	for _, cr := range c.preset.Criteria {
		ok := false
		if d, isMap := values.AsMap(evals[cr.Dimension()]); isMap {
			ok = Passed(d[cr.Name()])
		}
		e.Criteria = append(e.Criteria, Verdict{Key: cr.Key, Weight: cr.Weight, Passed: ok})
		i, seen := dims[cr.Dimension()]
		if !seen {
			i = len(e.Dimensions)
			dims[cr.Dimension()] = i
			e.Dimensions = append(e.Dimensions, DimensionScore{Dimension: cr.Dimension()})
		}
		ds := &e.Dimensions[i]
		ds.Max += cr.Weight
		ds.Total++
		if ok {
			sum += cr.Weight
			ds.Score += cr.Weight
			ds.Passed++
			e.Passed = append(e.Passed, cr.Key)
		} else {
			e.Failed = append(e.Failed, cr.Key)
		}
	}
	for i := range e.Dimensions {
		ds := &e.Dimensions[i]
		if ds.Max > 0 {
			ds.Percentage = round4(100 * ds.Score / ds.Max)
		}
		ds.Score, ds.Max = round4(ds.Score), round4(ds.Max)
	}
	e.Score = math.Min(1, math.Max(0, round4(sum)))
	e.Assessment = c.preset.Assessment(e.Score)
	return e
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// Passed is the calculator's notion of a passed criterion, the same as the
// loop's boolean scoring ([metrics.Passed]).
func Passed(v any) bool { return metrics.Passed(v) }
