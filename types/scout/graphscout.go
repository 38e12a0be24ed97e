package scout

import (
	"context"
	"fmt"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/internal/pyvalue"
	"github.com/cogloop/cogloop/prompt"
)

// GraphScout proposes the agents to run next (type graph-scout). It is
// immutable and safe for concurrent Run calls.
//
// YAML keys, under params as in OrKa: k_beam (paths kept per depth and
// candidates weighed, default 3), max_depth (longest path, default 2),
// commit_margin (lead needed to commit, default 0.15), max_candidates
// (default 50), require_terminal (prefer paths ending at a response builder,
// default true), score_weights ({llm, heuristics, prior, cost, latency},
// default 0.45/0.20/0.20/0.10/0.05), cost_budget_tokens (default 800) and
// latency_budget_ms (default 1200): paths estimated over them are dropped;
// llm_evaluation_enabled (default false) with provider, model_url and
// evaluation_model_name: a model rates the top k_beam candidates (its rating
// replaces the keyword relevance), and with fallback_to_heuristics (default
// true) a failed evaluation keeps the heuristic scores with a warning.
// prompt (next to params), when given, is rendered and is the question the
// paths are scored against; otherwise the input is.
//
// Candidates are the agents the workflow defines (its own and the enclosing
// workflows'), except itself, agents that steer the workflow (loops, forks,
// joins, routers, failovers, validators, classifiers, path executors, other
// graph-scouts, and ids with OrKa's control patterns) and agents that already
// ran in this workflow. An agent is terminal when it has is_terminal: true,
// the capability answer_emit or response_generation, or an id with OrKa's
// response-builder patterns.
//
// The response (and the fields) are OrKa's decision mapping: decision
// (commit_next, commit_path, shortlist or fallback), target (an id, a list of
// ids, or the shortlisted candidates), confidence, reasoning, candidates
// (each with path, score, confidence, score_components and estimates),
// status, input and result (a summary).
type GraphScout struct {
	id     string
	prompt *prompt.Template
	p      params
	nodes  []*node
	eval   *evaluator // nil: heuristics only
}

var _ agents.Agent = (*GraphScout)(nil)

// Defaults of the keys (OrKa's).
const (
	DefaultKBeam         = 3
	DefaultMaxDepth      = 2
	DefaultCommitMargin  = 0.15
	DefaultMaxCandidates = 50
	DefaultTokenBudget   = 800
	DefaultLatencyBudget = 1200
)

// DefaultWeights are OrKa's score weights.
func DefaultWeights() map[string]float64 {
	return map[string]float64{"llm": 0.45, "heuristics": 0.20, "prior": 0.20, "cost": 0.10, "latency": 0.05}
}

// orkaScoutKeys are params OrKa's graph-scout reads that change nothing here
// (its boolean scoring mode, LLM evaluation, memory priors, logging).
var orkaScoutKeys = []string{"strict_mode", "require_critical", "important_threshold", "include_nice_to_have",
	"min_success_rate", "min_domain_overlap", "max_acceptable_cost", "max_acceptable_latency", "safety_profile",
	"safety_threshold", "max_preview_tokens", "tool_policy", "evaluation_model", "evaluation_model_name",
	"validation_model", "validation_model_name", "provider", "model_url", "fallback_to_heuristics", "evaluation_model_name", "use_priors",
	"ttl_days", "log_previews", "log_components", "brain_assisted", "brain_boost_weight",
	"max_reasonable_cost", "path_length_penalty", "keyword_match_boost", "default_neutral_score", "optimal_path_length", "temperature", "model"}

// scoutParamKeys are the settings graph-scout reads under params:.
var scoutParamKeys = []string{"k_beam", "max_depth", "commit_margin", "max_candidates", "require_terminal",
	"cost_budget_tokens", "latency_budget_ms", "score_weights", "scoring_mode", "llm_evaluation_enabled"}

// control id patterns of OrKa's graph introspection.
var controlPatterns = []string{"validator", "classifier", "_loop", "_router", "_fork", "_join", "path_executor", "failover", "graph_scout", "graphscout"}

// terminal id patterns and capabilities of OrKa's decision engine.
var (
	terminalPatterns = []string{"response_builder", "answer_builder", "final_response", "llm_response", "openai_response"}
	terminalCaps     = set([]string{"answer_emit", "response_generation"})
	memoryTypes      = set([]string{"memory", "memory-reader", "memory-writer"})
)

// NewGraphScout builds a graph-scout from its definition, with the process
// environment and the shared HTTP client ([Options] zero value).
func NewGraphScout(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	return Options{}.newGraphScout(b, c)
}

func (o Options) newGraphScout(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	g := &GraphScout{id: c.String("id", ""), p: params{
		kBeam: DefaultKBeam, maxDepth: DefaultMaxDepth, commitMargin: DefaultCommitMargin, maxCandidates: DefaultMaxCandidates,
		requireTerminal: true, weights: DefaultWeights(), tokenBudget: DefaultTokenBudget, latencyBudget: DefaultLatencyBudget,
		maxCostUSD: 1, maxReasonableCost: 0.10, pathLengthPenalty: 0.10, keywordBoost: 0.30, neutral: 0.50,
		riskyCaps:     set([]string{"file_write", "code_execution", "external_api"}),
		safetyMarkers: set([]string{"sandboxed", "read_only", "validated"}),
	}}
	c.Ignore("queue")
	c.IgnoreBecause("(cogloop's graph-scout has no brain assistance)", "brain_assisted")
	// OrKa reads graph-scout's settings only under params: (and ignores them
	// at the top level); so does cogloop, loudly.
	c.IgnoreBecause("at the top level: OrKa reads graph-scout settings only under params:, so move it there", scoutParamKeys...)
	g.prompt = b.Template(c, "prompt")
	if pc := c.Map("params"); pc != nil {
		g.readParams(pc, o)
	}
	for i, a := range b.Visible() {
		if n := candidateNode(g.id, a, i); n != nil {
			g.nodes = append(g.nodes, n)
		}
	}
	if len(g.nodes) == 0 {
		c.Warnf("", "graph-scout sees no agent it could propose (it never proposes itself or agents that steer the workflow); it will always decide fallback")
	}
	return g, nil
}

func (g *GraphScout) readParams(pc *load.Config, o Options) {
	defer pc.Done()
	g.p.kBeam = pc.Int("k_beam", g.p.kBeam, 1, 100)
	g.p.maxDepth = pc.Int("max_depth", g.p.maxDepth, 1, 10)
	g.p.commitMargin = pc.Float("commit_margin", g.p.commitMargin, 0, 1)
	g.p.maxCandidates = pc.Int("max_candidates", g.p.maxCandidates, 1, 10_000)
	g.p.requireTerminal = pc.Bool("require_terminal", g.p.requireTerminal)
	g.p.tokenBudget = pc.Int("cost_budget_tokens", g.p.tokenBudget, 1, 1<<30)
	g.p.latencyBudget = float64(pc.Int("latency_budget_ms", int(g.p.latencyBudget), 1, 1<<30))
	if w := pc.Map("score_weights"); w != nil {
		g.p.weights = map[string]float64{}
		for _, k := range componentNames {
			g.p.weights[k] = w.Float(k, 0, 0, 10)
		}
		w.IgnoreBecause("(cogloop's graph-scout scores no compliance or brain component)", "compliance", "brain")
		w.Done()
	}
	if m := pc.String("scoring_mode", "numeric"); m != "numeric" {
		if m == "boolean" {
			pc.Warnf("scoring_mode", "scoring_mode boolean is not implemented in cogloop; paths are scored numerically")
		} else {
			pc.Errorf("scoring_mode", "scoring_mode must be numeric or boolean, not %q", m)
		}
	}
	if pc.Bool("llm_evaluation_enabled", false) {
		g.eval = readEvaluator(g.id, pc, o)
	}
	pc.IgnoreUnread("", orkaScoutKeys...)
}

// candidateNode describes a as a node, or nil when graph-scout never
// proposes it.
func candidateNode(self string, a agents.AgentInfo, order int) *node {
	id := strings.ToLower(a.ID)
	if a.ID == self || control[a.Type] {
		return nil
	}
	for _, p := range controlPatterns {
		if strings.Contains(id, p) {
			return nil
		}
	}
	n := &node{id: a.ID, typ: a.Type, caps: a.Capabilities, terminal: a.Terminal, memory: memoryTypes[a.Type], order: order}
	for _, c := range a.Capabilities {
		if terminalCaps[c] {
			n.terminal = true
		}
	}
	for _, p := range terminalPatterns {
		if strings.Contains(id, p) {
			n.terminal = true
		}
	}
	n.tokens = max(baseTokens, len(a.Prompt)/4)
	if strings.Contains(strings.ToLower(a.Model), "gpt-4") {
		n.tokens = n.tokens * 3 / 2
	}
	n.latency = baseLatency
	if a.Type == "local_llm" {
		n.latency /= 2
	}
	return n
}

// Run searches and decides.
func (g *GraphScout) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	if err := ctx.Err(); err != nil {
		return agents.Output{}, err
	}
	question, err := g.question(in)
	if err != nil {
		return agents.Output{}, err
	}
	nodes := g.notRun(in)
	margin := g.p.commitMargin
	if o, ok := in.Previous.Get("input_classifier"); ok && !o.Failed() {
		margin = dynamicMargin(o.Text(), margin)
	}
	all, st := search(nodes, question, g.p)
	top := all
	if len(top) > g.p.kBeam {
		top = top[:g.p.kBeam]
	}
	evaluated, usage, err := g.score(ctx, in, question, top)
	if err != nil {
		return agents.Output{Usage: usage}, err
	}
	d := decide(top, g.p, margin)
	cands := make([]any, len(top))
	for i, c := range top {
		cands[i] = candidateMap(c)
	}
	status := "success"
	if len(all) == 0 {
		status = "no_candidates"
		if st.overBudget > 0 {
			d.reasoning = fmt.Sprintf("every path is over the budget (cost_budget_tokens %d, latency_budget_ms %.0f); %d paths dropped", g.p.tokenBudget, g.p.latencyBudget, st.overBudget)
			status = "budget_exceeded"
		}
	}
	topScore := 0.0
	if len(top) > 0 {
		topScore = top[0].score
	}
	kept := make([]any, len(st.keptByDepth))
	for i, k := range st.keptByDepth {
		kept[i] = k
	}
	m := map[string]any{
		"decision": d.kind, "target": d.target, "confidence": d.confidence, "reasoning": d.reasoning,
		"candidates": cands, "status": status, "input": question,
		"result": map[string]any{"decision": d.kind, "target": d.target, "confidence": d.confidence, "reasoning": d.reasoning,
			"candidates_evaluated": st.explored, "top_score": topScore},
		"trace": map[string]any{"scored_by": evaluated, "k_beam": g.p.kBeam, "max_depth": g.p.maxDepth, "commit_margin": margin,
			"explored": st.explored, "over_budget": st.overBudget, "kept_by_depth": kept},
	}
	if d.kind == Fallback {
		if err := in.Run.Warn(event.Event{Node: in.Path, Agent: g.id, Type: TypeGraphScout,
			Message: "graph-scout decided fallback: " + d.reasoning, Data: map[string]any{"code": "graph_scout_fallback"}}); err != nil {
			return agents.Output{}, err
		}
	}
	fields := make(map[string]any, len(m))
	for k, v := range m {
		fields[k] = v
	}
	var rendered string
	if g.prompt != nil {
		rendered = question
	}
	// OrKa's previous_outputs.<graph-scout> is its result dict as returned: no
	// response (so a loop's boolean scoring never reads the decision as a
	// judgement) and no formatted_prompt.
	return agents.Output{Response: m, Fields: fields, Shape: fields, Order: scoutOrder, Prompt: rendered, Usage: usage}, nil
}

// scoutOrder is the key order templates see graph-scout's output in: OrKa's
// result dict (nodes/graph_scout_agent.py), cogloop's candidates after it.
var scoutOrder = &pyvalue.Order{
	Keys: []string{"decision", "target", "confidence", "reasoning", "trace", "status", "input", "result"},
	Sub: map[string]*pyvalue.Order{"result": {Keys: []string{"decision", "target", "confidence", "reasoning",
		"candidates_evaluated", "top_score"}}},
}

// notRun are the nodes that have not run yet in this run: the paths
// graph-scout may still take.
func (g *GraphScout) notRun(in agents.Input) []*node {
	nodes := make([]*node, 0, len(g.nodes))
	for _, n := range g.nodes {
		if _, ran := in.Previous.Get(n.id); !ran {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// score has the LLM evaluator (when there is one) score the top
// candidates; evaluated says who scored them: "llm", or "heuristics" when
// there is no evaluator or it failed and fallback_to_heuristics is set
// (with a warning). An error is an evaluation that could not fall back.
func (g *GraphScout) score(ctx context.Context, in agents.Input, question string, top []*candidate) (evaluated string, usage spend.Usage, err error) {
	if g.eval == nil || len(top) == 0 {
		return "heuristics", usage, nil
	}
	usage, err = g.eval.evaluate(ctx, in, question, top, g.p)
	switch {
	case err == nil:
		return "llm", usage, nil
	case ctx.Err() != nil || fault.IsFatal(err) || !g.eval.fallback:
		return "", usage, fmt.Errorf("evaluate candidates: %w", err)
	}
	if werr := in.Run.Warn(event.Event{Node: in.Path, Agent: g.id, Type: TypeGraphScout,
		Message: "graph-scout's LLM evaluation failed, scoring by heuristics (fallback_to_heuristics): " + err.Error(),
		Data:    map[string]any{"code": "graph_scout_llm_fallback"}}); werr != nil {
		return "", usage, werr
	}
	return "heuristics", usage, nil
}

// question is the rendered prompt, else the input text (OrKa's
// formatted_prompt or input).
func (g *GraphScout) question(in agents.Input) (string, error) {
	if g.prompt != nil {
		s, err := in.Render(g.prompt)
		if err != nil {
			return "", fmt.Errorf("render prompt: %w", err)
		}
		if s = strings.TrimSpace(s); s != "" {
			return s, nil
		}
	}
	v := in.Value
	if m, ok := v.(map[string]any); ok {
		if inner, ok := m["input"]; ok {
			v = inner
		}
	}
	return strings.TrimSpace(agents.Text(v)), nil
}
