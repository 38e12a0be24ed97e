// Command provider plugs a custom model provider into cogloop: a Go type
// implementing agents.Model that calls a model gateway over HTTP (here an
// in-process one on loopback, speaking a small JSON protocol). The run hands
// every LLM agent's calls to it with cogloop.WithModels, so templates,
// scoring, usage and events work as with the built-in providers.
//
//	go run ./examples/go/provider
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
)

func main() {
	gw := httptest.NewServer(gatewayHandler())
	defer gw.Close()
	if err := run(context.Background(), gw.URL, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Gateway is the custom provider: one agents.Model for every agent, calling
// the gateway at URL with the agent's prompt.
type Gateway struct {
	URL    string
	Client *http.Client
}

// ModelFor makes Gateway an agents.ModelSource: every agent gets it.
func (g *Gateway) ModelFor(string) (agents.Model, error) { return g, nil }

type gatewayRequest struct {
	Model  string `json:"model"`
	System string `json:"system,omitempty"`
	Prompt string `json:"prompt"`
}

type gatewayReply struct {
	Text             string `json:"text"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
}

// Generate is one model call: the request's context bounds it.
func (g *Gateway) Generate(ctx context.Context, req agents.Request) (agents.Reply, error) {
	body, err := json.Marshal(gatewayRequest{Model: req.Model, System: req.System, Prompt: req.Prompt})
	if err != nil {
		return agents.Reply{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/generate", bytes.NewReader(body))
	if err != nil {
		return agents.Reply{}, err
	}
	hr.Header.Set("Content-Type", "application/json")
	resp, err := g.Client.Do(hr)
	if err != nil {
		return agents.Reply{}, fmt.Errorf("gateway: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return agents.Reply{}, fmt.Errorf("gateway: %s", resp.Status)
	}
	var r gatewayReply
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&r); err != nil {
		return agents.Reply{}, fmt.Errorf("gateway: reply: %w", err)
	}
	return agents.Reply{Text: r.Text, Usage: spend.Usage{PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens}}, nil
}

// gatewayHandler stands in for the gateway: a rule-based "model".
func gatewayHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req gatewayRequest
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		text := "A loop that learns from its critic."
		switch {
		case strings.HasPrefix(req.Prompt, "Rate") && strings.Contains(req.Prompt, "(attempt 1)"):
			text = "Too generic. SCORE: 0.55"
		case strings.HasPrefix(req.Prompt, "Rate"):
			text = "Sharp. SCORE: 0.91"
		}
		_ = json.NewEncoder(w).Encode(gatewayReply{Text: text, PromptTokens: len(strings.Fields(req.Prompt)), CompletionTokens: len(strings.Fields(text))})
	})
}

// workflow's LLM agents name a model; the gateway answers for them.
const workflow = `
orchestrator: {id: slogan, agents: [refine]}
agents:
  - id: refine
    type: loop
    max_loops: 3
    score_threshold: 0.9
    score_from: [critic]
    internal_workflow:
      orchestrator: {id: inner, agents: [writer, critic]}
      agents:
        - {id: writer, type: openai-answer, model: house-model, prompt: "Write a slogan for {{ get_input() }}"}
        - {id: critic, type: openai-answer, model: house-model, prompt: "Rate (attempt {{ loop_number }}): {{ previous_outputs.writer.response }}"}
`

func run(ctx context.Context, gatewayURL string, out io.Writer) error {
	wf, err := cogloop.Parse([]byte(workflow), "slogan.yaml")
	if err != nil {
		return err
	}
	gw := &Gateway{URL: gatewayURL, Client: &http.Client{}}
	res, err := wf.Run(ctx, "cogloop", cogloop.WithModels(gw))
	if err != nil {
		return err
	}
	l := res.Loops()[0]
	for _, it := range l.Iterations {
		fmt.Fprintf(out, "pass %d: score %.2f, %d prompt + %d completion tokens\n", it.Number, it.Score, it.Usage.PromptTokens, it.Usage.CompletionTokens)
	}
	fmt.Fprintf(out, "stopped by %s; answer: %s\n", l.StopReason, res.Text())
	return nil
}
