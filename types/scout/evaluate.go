package scout

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/types/llm"
)

// evaluator asks a model to rate graph-scout's top candidates (OrKa's
// llm_evaluation_enabled): each rating in [0,1] becomes the candidate's llm
// component in place of the keyword relevance. It asks through an LLM agent
// of package llm, so a run's models (--script, answering by graph-scout's
// id), retries, timeouts and secret scrubbing work as for any LLM agent.
type evaluator struct {
	agent    *llm.Agent
	fallback bool // fallback_to_heuristics: a failed evaluation keeps the heuristic scores
}

// evalVar carries the evaluation prompt to the inner agent.
const evalVar = "graph_scout_evaluation"

var evalTemplate = sync.OnceValues(func() (*prompt.Template, error) {
	return prompt.Parse("graph-scout evaluation prompt", "{{ "+evalVar+" }}", prompt.Options{})
})

// readEvaluator reads the model keys of params (OrKa's provider, model_url,
// evaluation_model_name); without provider and model name only the run's
// models (--script) can answer.
func readEvaluator(id string, pc *load.Config, o Options) *evaluator {
	t, err := evalTemplate()
	if err != nil {
		pc.Errorf("", "graph-scout evaluation template: %v", err)
		return nil
	}
	e := &evaluator{fallback: pc.Bool("fallback_to_heuristics", true)}
	name := strings.TrimSpace(pc.String("evaluation_model_name", ""))
	provider := strings.TrimSpace(pc.String("provider", ""))
	url := strings.TrimSpace(pc.String("model_url", ""))
	pc.Accept("evaluation_model") // OrKa's agent type of the evaluator (local_llm): the provider decides here
	e.agent = &llm.Agent{ID: id, Kind: llm.Answer, Prompt: t, UseRunModels: true, ModelName: name,
		Temperature: pc.Float("temperature", 0.1, 0, 2), Timeout: llm.DefaultTimeout,
		Retry: retry.Retrier{Policy: retry.DefaultLLM()}}
	if provider == "" || name == "" {
		pc.Warnf("llm_evaluation_enabled", "llm_evaluation_enabled without provider and evaluation_model_name: only a run's scripted models (--script) can answer; otherwise paths are scored by heuristics")
		return e
	}
	p, err := llm.ParseProvider(provider)
	if err != nil {
		pc.Errorf("provider", "%v", err)
		return e
	}
	m, err := llm.NewModel(llm.Config{Provider: p, Model: name, URL: url, Getenv: o.Getenv, HTTPClient: o.HTTPClient})
	if err != nil {
		pc.Errorf("model_url", "%v", err)
		return e
	}
	e.agent.Model = m
	return e
}

// evaluate rates cs (at most k_beam, best first) and rescores them in place.
func (e *evaluator) evaluate(ctx context.Context, in agents.Input, question string, cs []*candidate, p params) (spend.Usage, error) {
	if len(cs) == 0 {
		return spend.Usage{}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You are GraphScout. Rate how well each candidate path of agents answers the question, from 0 (useless) to 1 (ideal).\n\nQuestion:\n%s\n\nCandidates:\n", fault.Truncate(question, 4000))
	for i, c := range cs {
		fmt.Fprintf(&b, "%d. %s\n", i+1, strings.Join(c.ids(), " → "))
	}
	b.WriteString("\nAnswer with only a JSON object mapping each candidate's number to its rating, e.g. {\"1\": 0.8, \"2\": 0.3}.\n")
	sub := agents.Input{Value: in.Value, Previous: in.Previous, Loop: in.Loop, Path: in.Path, Run: in.Run,
		Budget: in.Budget, Vars: map[string]any{evalVar: b.String()}}
	out, err := e.agent.Run(ctx, sub)
	if err != nil {
		return out.Usage, err
	}
	ratings, err := parseRatings(agents.Text(out.Response), len(cs))
	if err != nil {
		return out.Usage, err
	}
	for i, c := range cs {
		r, ok := ratings[i+1]
		if !ok {
			continue
		}
		c.components["llm"] = r
		c.score = 0
		for _, k := range componentNames {
			c.score += p.weights[k] * c.components[k]
		}
		c.score = round(clamp(c.score))
		c.confidence = round(confidence(c.components))
		c.rated = true
	}
	sortCandidates(cs)
	return out.Usage, nil
}

// parseRatings reads {"1": 0.8, ...} from the first JSON object of text;
// ratings outside [0,1] are clamped. At least one candidate must be rated.
func parseRatings(text string, n int) (map[int]float64, error) {
	start, end := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if start < 0 || end < start {
		return nil, fmt.Errorf("the evaluation reply holds no JSON object of ratings: %q", fault.Truncate(text, 120))
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(text[start:end+1]), &raw); err != nil {
		return nil, fmt.Errorf("the evaluation reply's ratings are not JSON (%w): %q", err, fault.Truncate(text, 120))
	}
	out := map[int]float64{}
	for k, v := range raw {
		i, err := strconv.Atoi(strings.TrimSpace(k))
		if err != nil || i < 1 || i > n {
			continue
		}
		if f, ok := pyvalue.Number(v); ok {
			out[i] = clamp(f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the evaluation reply rates none of the %d candidates: %q", n, fault.Truncate(text, 120))
	}
	return out, nil
}
