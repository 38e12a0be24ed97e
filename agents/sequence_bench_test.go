package agents

import (
	"context"
	"fmt"
	"testing"

	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/prompt"
)

// renderAgent renders its template and answers with the text: a step whose
// cost is the template boundary (previous_outputs) and the sequence's records.
type renderAgent struct{ t *prompt.Template }

func (a renderAgent) Run(_ context.Context, in Input) (Output, error) {
	s, err := in.Render(a.t)
	if err != nil {
		return Output{}, err
	}
	return Output{Response: s, Prompt: s, Usage: spend.Usage{PromptTokens: 3, CompletionTokens: 2}}, nil
}

// BenchmarkSequenceAgents runs one sequence of n agents, each reading the
// previous agent's response: the cost per pass as a function of n (issue 18
// asks for it linear in n).
func BenchmarkSequenceAgents(b *testing.B) {
	for _, n := range []int{3, 10, 30} {
		steps := make([]Step, n)
		for i := range steps {
			src := "Task: {{ input }}"
			if i > 0 {
				src = fmt.Sprintf("Improve: {{ previous_outputs.a%d.response }}", i-1)
			}
			t, err := prompt.Parse(fmt.Sprintf("a%d", i), src, prompt.Options{})
			if err != nil {
				b.Fatal(err)
			}
			steps[i] = Step{ID: fmt.Sprintf("a%d", i), Type: "render", Agent: renderAgent{t}}
		}
		seq := Sequence{Steps: steps}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			in := Input{Value: "write a poem", Run: &Run{}}
			for i := 0; i < b.N; i++ {
				out, err := seq.Run(ctx, in)
				if err != nil || out.Children.Len() != n {
					b.Fatalf("run: %v, %d outputs", err, out.Children.Len())
				}
			}
		})
	}
}
