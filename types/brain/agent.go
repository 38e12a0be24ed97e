package brain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/internal/values"
	"github.com/cogloop/cogloop/prompt"
)

// Operations lists OrKa's operation values.
var Operations = []string{"learn", "recall", "feedback", "learn_recipe", "learn_anti", "learn_path", "record_episode", "recall_episodes"}

// ErrNoStore is the failure of a brain agent in a run without a memory store.
var ErrNoStore = errors.New("the run has no memory store (give one with cogloop.WithMemory; the CLI uses an in-memory store, or Redis with --redis)")

// Agent is OrKa's brain agent: it renders its prompt, reads it as the
// operation's payload (a JSON or YAML mapping; plain text is {response:
// text}) and runs the operation on the brain in its namespace of the run's
// store. Its output is OrKa's: response text, confidence (text), and the
// operation's fields (skill_id, skill_name, ..., episodes).
type Agent struct {
	ID        string
	Operation string
	Prompt    *prompt.Template
	Namespace string
	Timeout   time.Duration
	Now       func() time.Time
}

var _ agents.Agent = (*Agent)(nil)

// Run runs the operation.
func (a *Agent) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	if in.Run == nil || in.Run.Memory == nil {
		return agents.Output{}, retry.Permanent(ErrNoStore)
	}
	raw, err := in.RenderOrInput(a.Prompt)
	if err != nil {
		return agents.Output{}, err
	}
	if a.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.Timeout)
		defer cancel()
	}
	b := &Brain{Store: in.Run.Memory, Namespace: a.Namespace, Now: a.Now}
	p := parsePayload(raw)
	var fields map[string]any
	switch a.Operation {
	case "recall":
		fields, err = recall(ctx, b, p)
	case "feedback":
		fields, err = feedback(ctx, b, p)
	case "learn_recipe":
		fields, err = learnRecipe(ctx, b, p)
	case "learn_anti":
		fields, err = learnAnti(ctx, b, p)
	case "learn_path":
		fields, err = learnPath(ctx, b, p)
	case "record_episode":
		fields, err = recordEpisode(ctx, b, p)
	case "recall_episodes":
		fields, err = recallEpisodes(ctx, b, p)
	default:
		fields, err = learn(ctx, b, p)
	}
	if err != nil {
		return agents.Output{}, fmt.Errorf("brain %s: %w", a.Operation, err)
	}
	out := agents.Output{Response: fields["response"], Prompt: raw, Fields: fields}
	delete(fields, "response")
	fields["operation"] = a.Operation
	return out, nil
}

// payload is an operation's input.
type payload map[string]any

// parsePayload reads raw as a JSON mapping, else a Python dict literal (as
// Jinja renders a mapping), else a YAML mapping, else {response: raw}.
func parsePayload(raw string) payload {
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) == nil && m != nil {
		return m
	}
	t := strings.TrimSpace(raw)
	if strings.HasPrefix(t, "{") {
		if v, err := parsePython(t); err == nil {
			if pm, ok := v.(map[string]any); ok {
				return pm
			}
		}
		if yaml.Unmarshal([]byte(t), &m) == nil && m != nil {
			return m
		}
	}
	if t == "" {
		return payload{}
	}
	return payload{"response": raw}
}

func (p payload) str(def string, keys ...string) string {
	for _, k := range keys {
		if v, ok := p[k]; ok && v != nil {
			return agents.Text(v)
		}
	}
	return def
}

func (p payload) num(def float64, keys ...string) float64 {
	for _, k := range keys {
		if v, ok := p[k]; ok && v != nil {
			if f, ok := pyvalue.Number(v); ok {
				return f
			}
		}
	}
	return def
}

func (p payload) flag(key string, def bool) bool {
	v, ok := p[key]
	if !ok || v == nil {
		return def
	}
	if b, ok := v.(bool); ok {
		return b
	}
	switch strings.ToLower(strings.TrimSpace(agents.Text(v))) {
	case "false", "0", "no":
		return false
	}
	return true
}

// list reads a list of text; a text is split at sep ("" keeps it whole).
func (p payload) list(key, sep string) []string {
	switch v := p[key].(type) {
	case []any:
		out := make([]string, 0, len(v))
		for _, it := range v {
			if m, ok := it.(map[string]any); ok {
				out = append(out, payload(m).str(fmt.Sprint(m), "id", "name", "node_id", "action"))
				continue
			}
			out = append(out, agents.Text(it))
		}
		return out
	case string:
		if sep == "" {
			return []string{v}
		}
		var out []string
		for _, s := range strings.Split(v, sep) {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func (p payload) context(taskDef string) Context {
	return Context{Domain: p.str("general", "domain"), Task: p.str(taskDef, "task"), Input: p.str("", "input_description")}
}

func conf(f float64) string { return strconv.FormatFloat(round(f), 'f', -1, 64) }

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

func learn(ctx context.Context, b *Brain, p payload) (map[string]any, error) {
	resp, reasoning := p.str("", "response"), p.str("", "internal_reasoning")
	steps := p.list("steps", "")
	if len(steps) == 0 {
		src := resp
		if len(reasoning) > len(resp) {
			src = reasoning
		}
		steps = abstractSteps(src)
	}
	s, err := b.Learn(ctx, steps, p.context(cut(resp, 200)), true, min(1, p.num(0.5, "confidence")), p.str("", "skill_name"))
	if err != nil {
		return nil, err
	}
	if s == nil {
		return map[string]any{"response": "No skill could be learned from the provided trace.", "confidence": "0.0",
			"internal_reasoning": "The execution trace was insufficient for skill abstraction."}, nil
	}
	return map[string]any{"response": "Learned skill: " + s.Name, "confidence": conf(s.Confidence),
		"internal_reasoning": fmt.Sprintf("Abstracted %d steps into transferable skill '%s'", len(s.Steps), s.Name),
		"skill_id":           s.ID, "skill_name": s.Name, "skill_steps": values.List(s.Steps), "skill_tags": values.List(s.Tags)}, nil
}

func recall(ctx context.Context, b *Brain, p payload) (map[string]any, error) {
	resp := p.str("", "response")
	c := Context{Domain: p.str("general", "domain"), Task: p.str(cut(resp, 200), "task"), Input: p.str(cut(resp, 100), "input_description")}
	cands, err := b.Recall(ctx, c, int(p.num(3, "top_k")), p.num(0.5, "min_score"), p.list("skill_types", ""), p.str("", "domain_filter"))
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return map[string]any{"response": "No applicable skills found for this context.", "confidence": "0.0",
			"internal_reasoning": "No learned skill matched the target context.", "all_candidates": []any{}}, nil
	}
	top := cands[0]
	all := make([]any, len(cands))
	for i, c := range cands {
		all[i] = map[string]any{"skill_name": c.Skill.Name, "score": c.Combined, "reasoning": c.Reasoning}
	}
	return map[string]any{
		"response":           fmt.Sprintf("Found applicable skill: '%s' (score: %.2f). Steps: %s", top.Skill.Name, top.Combined, strings.Join(top.Skill.Steps, " → ")),
		"confidence":         conf(top.Combined),
		"internal_reasoning": top.Reasoning,
		"skill_id":           top.Skill.ID, "skill_name": top.Skill.Name, "skill_steps": values.List(top.Skill.Steps),
		"skill_tags": values.List(top.Skill.Tags), "combined_score": top.Combined, "structural_score": top.Structural,
		"semantic_score": top.Semantic, "adaptations": map[string]any{}, "all_candidates": all,
	}, nil
}

func feedback(ctx context.Context, b *Brain, p payload) (map[string]any, error) {
	id := p.str("", "skill_id")
	if id == "" {
		return map[string]any{"response": "No skill_id provided for feedback.", "confidence": "0.0",
			"internal_reasoning": "Feedback requires a skill_id from a previous recall."}, nil
	}
	success := p.flag("success", true)
	adapt, _ := p["adaptations"].(map[string]any)
	s, err := b.Feedback(ctx, id, Context{Domain: p.str("general", "domain"), Task: p.str(cut(p.str("", "skill_name"), 200), "task")}, success, adapt)
	if err != nil {
		return nil, err
	}
	name, n, c := "unknown", 0, 0.0
	if s != nil {
		name, n, c = s.Name, len(s.Transfers), s.Confidence
	}
	word := "successful"
	if !success {
		word = "failed"
	}
	return map[string]any{"response": fmt.Sprintf("Recorded %s transfer for skill '%s'.", word, name), "confidence": conf(c),
		"internal_reasoning": fmt.Sprintf("Transfer feedback recorded. Skill now has %d transfer(s).", n),
		"skill_id":           id, "skill_name": name, "transfer_count": n, "transfer_success": success}, nil
}

func skillFields(s *Skill, resp, reasoning string) map[string]any {
	return map[string]any{"response": resp, "confidence": conf(s.Confidence), "internal_reasoning": reasoning,
		"skill_id": s.ID, "skill_name": s.Name, "skill_type": s.Type}
}

func learnRecipe(ctx context.Context, b *Brain, p payload) (map[string]any, error) {
	var list []map[string]any
	switch v := p["agents"].(type) {
	case []any:
		for _, it := range v {
			if m, ok := it.(map[string]any); ok {
				list = append(list, m)
			} else {
				list = append(list, map[string]any{"id": agents.Text(it)})
			}
		}
	case string:
		var js []any
		if json.Unmarshal([]byte(v), &js) == nil {
			return learnRecipe(ctx, b, withKey(p, "agents", js))
		}
		list = []map[string]any{{"id": v}}
	}
	s, err := b.LearnRecipe(ctx, list, p.str(p.str("sequential", "strategy"), "pattern"), p.context(""), p.flag("success", true),
		p.num(p.num(0.7, "confidence"), "quality"), p.str("", "skill_name"))
	if err != nil {
		return nil, err
	}
	if s == nil {
		return map[string]any{"response": "No recipe could be learned (missing agents or failed outcome).", "confidence": "0.0"}, nil
	}
	return skillFields(s, "Learned recipe: "+s.Name, fmt.Sprintf("Stored execution recipe with %d agents", len(s.Steps))), nil
}

func withKey(p payload, k string, v any) payload {
	q := payload{}
	for kk, vv := range p {
		q[kk] = vv
	}
	q[k] = v
	return q
}

func learnAnti(ctx context.Context, b *Brain, p payload) (map[string]any, error) {
	what := p.str(p.str("", "response"), "what_failed")
	why := p.str(p.str("unknown", "reason"), "why")
	s, err := b.LearnAnti(ctx, what, why, p.context(cut(what, 200)), p.str("warning", "severity"))
	if err != nil {
		return nil, err
	}
	return skillFields(s, "Recorded anti-pattern: "+s.Name, "Anti-pattern stored: "+why), nil
}

func learnPath(ctx context.Context, b *Brain, p payload) (map[string]any, error) {
	key := "path_nodes"
	if _, ok := p[key]; !ok {
		key = "path"
	}
	nodes := p.list(key, "→")
	score := p.num(p.num(0.5, "confidence"), "score")
	budget, _ := p["budget_used"].(map[string]any)
	s, err := b.LearnPath(ctx, nodes, score, p.context(""), p.flag("success", true), budget)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return map[string]any{"response": "No path could be learned (empty path or failed outcome).", "confidence": "0.0"}, nil
	}
	return skillFields(s, "Learned path: "+s.Name, fmt.Sprintf("GraphScout path stored with %d nodes", len(nodes))), nil
}

func recordEpisode(ctx context.Context, b *Brain, p payload) (map[string]any, error) {
	e := &Episode{Input: p.str("", "task_input", "input", "response"), Domain: p.str("general", "domain"),
		Task: p.str("unknown", "task"), Model: p.str("unknown", "model"), Success: p.flag("success", true),
		Quality: p.num(0.5, "quality"), Summary: p.str("", "outcome_summary"), FailureAnalysis: p.str("", "failure_analysis"),
		WhatWorked: p.list("what_worked", ","), WhatFailed: p.list("what_failed", ","), Lessons: p.list("lessons", ","),
		Strategy: p.str("sequential", "strategy"), TokensUsed: int(p.num(0, "tokens_used")), LatencyMS: int(p.num(0, "latency_ms"))}
	switch v := p["agents"].(type) {
	case []any:
		e.Agents = v
	case string:
		if json.Unmarshal([]byte(v), &e.Agents) != nil {
			e.Agents = []any{v}
		}
	}
	e, err := b.RecordEpisode(ctx, e)
	if err != nil {
		return nil, err
	}
	return map[string]any{"response": fmt.Sprintf("Recorded episode %s (success=%s)", e.ID, pyBool(e.Success)),
		"confidence":         conf(e.Quality),
		"internal_reasoning": fmt.Sprintf("Stored episodic memory: domain=%s, lessons=%d", e.Domain, len(e.Lessons)),
		"episode_id":         e.ID, "episode_domain": e.Domain, "episode_success": e.Success}, nil
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

func recallEpisodes(ctx context.Context, b *Brain, p payload) (map[string]any, error) {
	input := p.str("", "task_input", "input", "response")
	c := Context{Domain: p.str("general", "domain"), Task: p.str(cut(input, 200), "task")}
	ms, err := b.RecallEpisodes(ctx, input, c, int(p.num(5, "top_k")), p.num(0.2, "min_score"), p.flag("include_failures", true), p.str("", "domain_filter"))
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return map[string]any{"response": "No relevant past episodes found.", "confidence": "0.0",
			"internal_reasoning": "No episodic memories matched the current context.", "episode_count": 0, "episodes": []any{}}, nil
	}
	list := make([]any, len(ms))
	for i, m := range ms {
		list[i] = m.Map()
	}
	top := ms[0]
	return map[string]any{"response": b.Inject(ms, int(p.num(1500, "max_tokens"))), "confidence": conf(round(top.Combined)),
		"internal_reasoning": fmt.Sprintf("Recalled %d episodes (top: %s, score=%.2f)", len(ms), top.Episode.Domain, top.Combined),
		"episode_count":      len(ms), "episodes": list}, nil
}
