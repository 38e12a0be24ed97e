package validate

import (
	"context"
	"fmt"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/types/llm"
)

// ModelConfig says which model a validator asks and how. The zero value asks only
// the run's models ([agents.Run.Models], as cogloop run --script does) with
// temperature 0, no timeout and no retries.
type ModelConfig struct {
	// Model answers unless the run supplies models; nil means the run must.
	Model agents.Model
	// Name is sent as the request's model ("" leaves it to Model).
	Name        string
	Temperature float64
	MaxTokens   int
	// Timeout bounds the call, retries included; 0 means none.
	Timeout time.Duration
	// Retry runs the call; its Policy says when to retry.
	Retry retry.Retrier
}

// judge asks a validator's model, through an LLM agent of package llm, so a
// run's models, retries, timeouts and secret scrubbing work as for any LLM
// agent.
type judge struct {
	agent *llm.Agent
}

func newJudge(id string, m ModelConfig) (judge, error) {
	t, err := askTemplate()
	if err != nil {
		return judge{}, fmt.Errorf("validator prompt template: %w", err)
	}
	return judge{agent: &llm.Agent{
		ID: id, Kind: llm.Answer, Prompt: t, Model: m.Model, UseRunModels: true,
		ModelName: m.Name, Temperature: m.Temperature, MaxTokens: m.MaxTokens,
		Timeout: m.Timeout, Retry: m.Retry,
	}}, nil
}

// ask sends text and returns the reply's text (an OrKa JSON envelope
// unwrapped) with the usage of the call.
func (j judge) ask(ctx context.Context, in agents.Input, text string) (string, spend.Usage, error) {
	sub := agents.Input{Value: in.Value, Previous: in.Previous, Loop: in.Loop, Path: in.Path, Run: in.Run,
		Budget: in.Budget, Vars: map[string]any{promptVar: text}}
	out, err := j.agent.Run(ctx, sub)
	if err != nil {
		return "", out.Usage, err
	}
	return agents.Text(out.Response), out.Usage, nil
}

// models names the judge's model as it is priced.
func (j judge) models() []string { return j.agent.Models() }

// warn sends a warning event about the validator's call.
func warn(in agents.Input, id, format string, args ...any) {
	in.Run.Emit(event.Event{Kind: event.Warning, Node: in.Path, Agent: id, Message: fmt.Sprintf(format, args...)})
}

// evalsValue is the boolean_evaluations value: dimension → criterion → bool.
func evalsValue(ev map[string]map[string]bool) map[string]any {
	out := make(map[string]any, len(ev))
	for d, cs := range ev {
		m := make(map[string]any, len(cs))
		for c, b := range cs {
			m[c] = b
		}
		out[d] = m
	}
	return out
}

// output makes a validator's output: the result mapping is both the fields
// (previous_outputs.<id>.validation_score) and the response.
func output(fields map[string]any, prompt string, usage spend.Usage) agents.Output {
	resp := make(map[string]any, len(fields))
	for k, v := range fields {
		resp[k] = v
	}
	return agents.Output{Response: resp, Fields: fields, Prompt: prompt, Usage: usage}
}
