package llm_test

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/types/llm"
)

// BenchmarkAgentRun is one LLM agent call as a workflow makes it: a plain
// prompt, the run's scripted model answering at once, the default timeout and
// retry policy, a run budget pricing the model: the wrapper's own cost per call.
func BenchmarkAgentRun(b *testing.B) {
	t, err := prompt.Parse("a", "Write a short poem about the sea.", prompt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	a := &llm.Agent{ID: "a", Prompt: t, UseRunModels: true, ModelName: "bench", Temperature: 0.7,
		Timeout: llm.DefaultTimeout, Retry: retry.Retrier{Policy: retry.DefaultLLM()}}
	m := scripted.New("a", "bench", []scripted.Reply{{Text: "The sea is wide and deep and blue.",
		Usage: spend.Usage{PromptTokens: 300, CompletionTokens: 80}}}, true)
	run := &agents.Run{Models: oneModel{m}}
	in := agents.Input{Value: "task", Run: run, Budget: spend.NewBudget(spend.Limit{}, spend.DefaultPricing())}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := a.Run(ctx, in)
		if err != nil || out.Response != "The sea is wide and deep and blue." {
			b.Fatalf("run: %v, %v", out.Response, err)
		}
	}
}

// BenchmarkToolRound is an agent call with one tool round: the model asks for
// one tool, the tool (a Func agent answering at once) runs with its checked
// arguments, and the model answers. Minus BenchmarkAgentRun, it is the
// framework's cost of a round: the second model call, the tool step, the
// argument check, the messages, two tool events' worth of work (no observer).
func BenchmarkToolRound(b *testing.B) {
	t, err := prompt.Parse("a", "What is a fig?", prompt.Options{})
	if err != nil {
		b.Fatal(err)
	}
	tool := &agents.Tool{
		Spec: agents.ToolSpec{Name: "lookup", Description: "Look a word up.", Parameters: queryParams()},
		Agent: agents.Func(func(_ context.Context, in agents.Input) (agents.Output, error) {
			return agents.Output{Response: "a fruit"}, nil
		}),
		Check: (&lookupTool{}).tool().Check,
	}
	a := &llm.Agent{ID: "a", Prompt: t, UseRunModels: true, ModelName: "bench", Temperature: 0.7,
		Timeout: llm.DefaultTimeout, Retry: retry.Retrier{Policy: retry.DefaultLLM()}, Tools: []*agents.Tool{tool}}
	m := scripted.New("a", "bench", []scripted.Reply{
		{ToolCalls: []agents.ToolCall{{ID: "c1", Name: "lookup", Args: `{"query":"fig"}`}}, Usage: spend.Usage{PromptTokens: 300, CompletionTokens: 20}},
		{Text: "A fig is a fruit.", Usage: spend.Usage{PromptTokens: 330, CompletionTokens: 10}}}, true)
	run := &agents.Run{Models: oneModel{m}}
	in := agents.Input{Value: "task", Run: run, Budget: spend.NewBudget(spend.Limit{}, spend.DefaultPricing())}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := a.Run(ctx, in)
		if err != nil || out.Response != "A fig is a fruit." {
			b.Fatalf("run: %v, %v", out.Response, err)
		}
	}
}
