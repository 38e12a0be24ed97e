package scoring_test

import (
	"fmt"

	"github.com/cogloop/cogloop/scoring"
)

// A loop's scoring block {preset: moderate} weighs a validator's verdicts with
// the moderate loop_convergence preset.
func ExampleCalculator() {
	calc, err := scoring.Embedded().Calculator("loop_convergence", "moderate", nil)
	if err != nil {
		panic(err)
	}
	e := calc.Evaluate(map[string]any{
		"improvement": map[string]any{"better_than_previous": true, "significant_delta": "yes"},
		"stability":   map[string]any{"not_degrading": true, "consistent_direction": false},
	})
	fmt.Println(e.Score, e.Assessment)
	fmt.Println(e.Passed)
	// Output:
	// 0.58 REJECTED
	// [improvement.better_than_previous improvement.significant_delta stability.not_degrading]
}

// Custom weights replace the preset's, and the weights are renormalised.
func ExampleNewCalculator() {
	p, err := scoring.Embedded().Preset("quality", "lenient")
	if err != nil {
		panic(err)
	}
	calc, err := scoring.NewCalculator(p, map[string]float64{"accuracy.factually_correct": 0.6})
	if err != nil {
		panic(err)
	}
	w, _ := calc.Weight("accuracy.factually_correct")
	fmt.Printf("%.4f\n", w)
	_, err = scoring.NewCalculator(p, map[string]float64{"accuracy.witty": 1})
	fmt.Println(err != nil)
	// Output:
	// 0.4286
	// true
}
