package scorer_test

import (
	"fmt"

	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
)

func ExampleScorer_Score() {
	sc, err := scorer.NewScorer(scorer.ScoreConfig{
		ExtractionPattern: `SCORE:\s*([0-9.]+)`, // score_extraction_pattern
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	iteration := []cognition.Result{
		{ID: "improver", Value: map[string]any{"response": "A better draft."}},
		{ID: "scorer", Value: map[string]any{"response": "Solid work. SCORE: 8/10"}},
	}
	s := sc.Score(iteration)
	fmt.Println(s.Value, s.Found, s.Source, s.Strategy)
	// Output: 0.8 true scorer pattern
}

func ExampleNewScorer_error() {
	_, err := scorer.NewScorer(scorer.ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+`})
	fmt.Println(err)
	// Output: score_extraction_pattern: invalid pattern "SCORE:\\s*([0-9.]+": missing closing )
}
