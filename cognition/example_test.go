package cognition_test

import (
	"fmt"

	"github.com/cogloop/cogloop/cognition"
)

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
