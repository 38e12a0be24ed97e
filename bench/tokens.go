package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/memory"
)

// ---------------------------------------------------------------------------
// 12. Prompt tokens with a long history (issue 31.4): examples/cognitive with
// a history listing in the analyst's prompt, 100 persisted entries, one
// 10-pass run, with and without past_loops_budget.

// tokenBudget is the past_loops_budget the scenario measures.
const tokenBudget = 1500

// cognitiveWithHistory is examples/cognitive/workflow.yaml made to remember:
// 10 passes, persisted history of up to 100 entries, a threshold no reply
// meets, and the analyst's prompt listing get_past_loops(); budget, when not
// empty, is a past_loops_budget line.
func cognitiveWithHistory(budget string) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join("..", "examples", "cognitive", "workflow.yaml"))
	if err != nil {
		return nil, err
	}
	s := string(src)
	for _, r := range [][2]string{
		{"    max_loops: 4\n", "    max_loops: 10\n    max_past_loops: 100\n    persist_across_runs: true\n" + budget},
		{"    score_threshold: 0.8\n", "    score_threshold: 0.99\n"},
		{"            Analyse: {{ get_input() }}\n", "            Analyse: {{ get_input() }}\n" +
			"            {% for p in get_past_loops() %}- pass {{ p.loop_number }} scored {{ p.score }}: {{ p.insights }} / to improve: {{ p.improvements }} / mistakes: {{ p.mistakes }}\n" +
			"            {% endfor %}\n"},
	} {
		if !strings.Contains(s, r[0]) {
			return nil, fmt.Errorf("examples/cognitive/workflow.yaml no longer has %q: update the tokens scenario", strings.TrimSpace(r[0]))
		}
		s = strings.Replace(s, r[0], r[1], 1)
	}
	return []byte(s), nil
}

// cognitiveModels answers the analyst and the critic of examples/cognitive
// with varied texts (so the lessons differ from pass to pass) and sums the
// estimated tokens of the prompts it is sent while counting is on.
type cognitiveModels struct {
	mu       sync.Mutex
	calls    int
	counting bool
	tokens   int
	largest  int
}

var cognitiveCritiques = []string{
	"The analysis shows a clear effect on focused work.\nIt lacks evidence on collaboration.\nIt overlooked junior staff entirely.\nScore: 5/10",
	"The analysis shows the commute time saved.\nIt needs numbers on meeting load.\nIt missed the cost of home offices.\nScore: 6/10",
	"The analysis reveals a split by task type.\nIt should separate creative from routine work.\nIt fails to cite any study.\nScore: 6.5/10",
	"The analysis finds hybrid schedules recover mentoring.\nIt lacks a time frame.\nIt overlooked time zones.\nScore: 7/10",
	"The analysis shows both sides with evidence.\nIt needs a conclusion a manager can act on.\nScore: 7.5/10",
	"The analysis reveals how output was measured.\nIt should question self-reported productivity.\nIt missed survivorship bias.\nScore: 5.5/10",
	"The analysis finds the effect fades after a year.\nIt lacks data past two years.\nIt fails to weigh attrition.\nScore: 6/10",
}

func (m *cognitiveModels) ModelFor(id string) (agents.Model, error) {
	return agents.ModelFunc(func(_ context.Context, req agents.Request) (agents.Reply, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.calls++
		if m.counting {
			t := spend.EstimateTokens(req.Prompt)
			m.tokens += t
			m.largest = max(m.largest, t)
		}
		if id == "critic" {
			return agents.Reply{Text: cognitiveCritiques[m.calls%len(cognitiveCritiques)]}, nil
		}
		return agents.Reply{Text: "Remote work raises output for focused tasks but weakens mentoring; hybrid schedules recover most of it."}, nil
	}), nil
}

// cognitiveTokens seeds a fresh store with entries entries (10-pass runs of
// the workflow without a budget) and returns the prompt tokens of one more
// 10-pass run of the workflow with budget, and its largest prompt.
func cognitiveTokens(budget string, entries int) (total, largest int, err error) {
	seedSrc, err := cognitiveWithHistory("")
	if err != nil {
		return 0, 0, err
	}
	src, err := cognitiveWithHistory(budget)
	if err != nil {
		return 0, 0, err
	}
	seed, err := parse(seedSrc, "cognitive.yaml")
	if err != nil {
		return 0, 0, err
	}
	wf, err := parse(src, "cognitive.yaml")
	if err != nil {
		return 0, 0, err
	}
	store, err := memory.NewInMemory(memory.Options{})
	if err != nil {
		return 0, 0, err
	}
	m := &cognitiveModels{}
	const input = "Is remote work more productive?"
	for range entries / 10 {
		res, err := seed.Run(ctx, input, cogloop.WithMemory(store), cogloop.WithModels(m))
		if err = check(res, err, "analysis_loop", 10); err != nil {
			return 0, 0, fmt.Errorf("seed the history: %w", err)
		}
	}
	m.counting = true
	res, err := wf.Run(ctx, input, cogloop.WithMemory(store), cogloop.WithModels(m))
	if err = check(res, err, "analysis_loop", 10); err != nil {
		return 0, 0, err
	}
	return m.tokens, m.largest, nil
}

func scenarioTokens(rep *report, cfg config) error {
	const g = "prompt tokens, examples/cognitive listing get_past_loops(), 100 persisted entries, one 10-pass run"
	const entries = 100
	off, offMax, err := cognitiveTokens("", entries)
	if err != nil {
		return err
	}
	r := rep.add(&row{group: g, name: "prompt tokens sent, no past_loops_budget (OrKa's behaviour)", unit: "tokens", digits: 0})
	r.samples = append(r.samples, float64(off))
	r = rep.add(&row{group: g, name: "  largest prompt", unit: "tokens", digits: 0})
	r.samples = append(r.samples, float64(offMax))
	for _, keep := range []string{"recent", "best", "mixed"} {
		on, onMax, err := cognitiveTokens(fmt.Sprintf("    past_loops_budget: {max_tokens: %d, keep: %s}\n", tokenBudget, keep), entries)
		if err != nil {
			return err
		}
		r := rep.add(&row{group: g, name: fmt.Sprintf("prompt tokens sent, past_loops_budget {max_tokens: %d, keep: %s}", tokenBudget, keep), unit: "tokens", digits: 0})
		r.samples = append(r.samples, float64(on))
		r = rep.add(&row{group: g, name: "  largest prompt", unit: "tokens", digits: 0, target: fmt.Sprintf("≤ %d + the prompt's own text", tokenBudget)})
		r.samples = append(r.samples, float64(onMax))
		r = rep.add(&row{group: g, name: "  saving against no budget", unit: "%", digits: 1})
		r.samples = append(r.samples, 100*(1-float64(on)/float64(off)))
	}
	rep.note("**prompt tokens** (issue 31.4): examples/cognitive/workflow.yaml with 10 passes, persist_across_runs, max_past_loops: 100, "+
		"a threshold no reply meets and a line in the analyst's prompt listing get_past_loops() (pass, score, insights, improvements, mistakes); "+
		"ten seeding runs write %d entries, then one more run is measured: the tokens (spend.EstimateTokens) of every prompt it sends, "+
		"analyst and critic. The counts are deterministic (scripted replies).", entries)
	return nil
}
