package llm_test

import (
	"context"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/llm"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/prompt"
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
