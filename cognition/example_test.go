package cognition_test

import (
	"fmt"

	"github.com/cogloop/cogloop/cognition"
)

func ExampleScorer_Score() {
	scorer, err := cognition.NewScorer(cognition.ScoreConfig{
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
	s := scorer.Score(iteration)
	fmt.Println(s.Value, s.Found, s.Source, s.Strategy)
	// Output: 0.8 true scorer pattern
}

func ExampleExtractor_Extract() {
	extractor, err := cognition.NewExtractor(cognition.ExtractConfig{
		Patterns: cognition.ExtractPatterns{
			Insights:     []string{`(?:provides?|reveals?)\s+(.+?)(?:\n|$)`},
			Improvements: []string{`(?:lacks?|needs?)\s+(.+?)(?:\n|$)`},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	lessons := extractor.Extract([]cognition.Result{
		{ID: "critic", Value: "The draft provides a clear structure.\nIt lacks concrete examples for beginners.\n"},
	})
	fmt.Printf("insights: %s\nimprovements: %s\n", lessons.Insights, lessons.Improvements)
	// Output:
	// insights: a clear structure.
	// improvements: concrete examples for beginners.
}

func ExampleNewScorer_error() {
	_, err := cognition.NewScorer(cognition.ScoreConfig{ExtractionPattern: `SCORE:\s*([0-9.]+`})
	fmt.Println(err)
	// Output: score_extraction_pattern: invalid pattern "SCORE:\\s*([0-9.]+": missing closing )
}
