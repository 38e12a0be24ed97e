package queue

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/loopnode"
)

// parseDocument reads a run's JSON document (cogloop.Result.Document, what `cogloop
// run --json` prints and a queued run's record keeps) back into a Result:
// run id, status, errors, warnings, the answer and every top-level agent's
// output (response, prompt, usage, extra fields; error records) in the
// document's key order, which for Result.Document is by id, not run order; Usage is the sum of those outputs' usage. What the
// document does not carry stays empty: the budget flag and the causes behind Errors.
// loops, when not nil, are the typed loop results by output id (a record's
// LoopResults): those outputs carry them, so Result.Loops reports them.
func parseDocument(data []byte, loops map[string]*loopnode.Result) (*cogloop.Result, error) {
	var doc struct {
		RunID    string               `json:"run_id"`
		Status   string               `json:"status"`
		Errors   []cogloop.RunError   `json:"errors"`
		Warnings []cogloop.RunWarning `json:"warnings"`
		Output   any                  `json:"output"`
		Outputs  json.RawMessage      `json:"outputs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("read run document: %w", err)
	}
	if doc.Status == "" {
		return nil, fmt.Errorf("read run document: it has no status: not a run document")
	}
	r := &cogloop.Result{RunID: doc.RunID, Status: doc.Status, Errors: doc.Errors, Warnings: doc.Warnings, Response: doc.Output}
	outs, err := parseOutputs(doc.Outputs, loops)
	if err != nil {
		return nil, fmt.Errorf("read run document %s: %w", doc.RunID, err)
	}
	r.Outputs = outs
	outs.Each(func(_ string, o agents.Output) bool {
		r.Usage = r.Usage.Add(o.Usage)
		return true
	})
	return r, nil
}

// parseOutputs reads the outputs object in its key order.
func parseOutputs(raw json.RawMessage, loops map[string]*loopnode.Result) (*agents.Outputs, error) {
	var outs *agents.Outputs
	if len(raw) == 0 || string(raw) == "null" {
		return outs, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("outputs is not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("outputs: %w", err)
		}
		id, _ := tok.(string)
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("output of %q: %w", id, err)
		}
		o := outputOf(m)
		if l, ok := loops[id]; ok {
			o.Typed = l
		}
		outs = outs.With(id, o)
	}
	return outs, nil
}

// outputOf is the inverse of agents.Output.Record.
func outputOf(m map[string]any) agents.Output {
	if m["status"] == "error" && m["result"] == nil {
		if e, ok := m["error"].(string); ok {
			return agents.Output{Err: e}
		}
	}
	o := agents.Output{Response: m["response"], Fields: map[string]any{}}
	o.Prompt, _ = m["formatted_prompt"].(string)
	if mt, ok := m["_metrics"].(map[string]any); ok {
		num := func(k string) int { f, _ := mt[k].(float64); return int(f) }
		o.Usage = spend.Usage{PromptTokens: num("prompt_tokens"), CompletionTokens: num("completion_tokens")}
		o.Usage.Cost, _ = mt["cost_usd"].(float64)
	}
	for k, v := range m {
		switch k {
		case "response", "formatted_prompt", "_metrics":
		default:
			o.Fields[k] = v
		}
	}
	return o
}
