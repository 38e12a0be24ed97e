package scout

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testParams() params {
	return params{kBeam: 3, maxDepth: 2, commitMargin: 0.15, maxCandidates: 50, requireTerminal: true,
		weights: DefaultWeights(), tokenBudget: 800, latencyBudget: 1200, maxCostUSD: 1,
		maxReasonableCost: 0.10, pathLengthPenalty: 0.10, keywordBoost: 0.30, neutral: 0.50,
		riskyCaps: set([]string{"file_write"}), safetyMarkers: set([]string{"sandboxed"})}
}

// randomNodes makes n nodes with random kinds and costs.
func randomNodes(r *rand.Rand, n int) []*node {
	out := make([]*node, n)
	for i := range out {
		out[i] = &node{id: fmt.Sprintf("agent_%d", i), order: i, terminal: r.Intn(4) == 0, memory: r.Intn(6) == 0,
			tokens: 100 + r.Intn(300), latency: float64(250 + r.Intn(1000))}
	}
	return out
}

// The search limits hold for any graph and parameters: no level keeps more
// than k_beam paths, no path is longer than max_depth, repeats an agent,
// names an agent not in the graph, chains from a terminal or memory agent,
// or is over a budget; the result is sorted and cut to max_candidates.
func TestSearchLimits(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	for trial := 0; trial < 300; trial++ {
		nodes := randomNodes(r, r.Intn(12))
		p := testParams()
		p.kBeam = 1 + r.Intn(5)
		p.maxDepth = 1 + r.Intn(5)
		p.maxCandidates = 1 + r.Intn(20)
		p.tokenBudget = 100 + r.Intn(3000)
		p.latencyBudget = float64(200 + r.Intn(5000))
		in := map[*node]bool{}
		for _, n := range nodes {
			in[n] = true
		}
		cs, st := search(nodes, "search the web and analyze", p)
		name := fmt.Sprintf("trial %d (k_beam %d, max_depth %d, %d agents)", trial, p.kBeam, p.maxDepth, len(nodes))
		require.LessOrEqual(t, len(st.keptByDepth), p.maxDepth, name)
		for _, k := range st.keptByDepth {
			require.LessOrEqual(t, k, p.kBeam, name)
		}
		require.LessOrEqual(t, len(cs), p.maxCandidates, name)
		// The explored count is bounded by the beam: depth 1 scores every
		// agent, each deeper level at most k_beam × agents.
		require.LessOrEqual(t, st.explored, len(nodes)+(p.maxDepth-1)*p.kBeam*len(nodes), name)
		for i, c := range cs {
			require.NotEmpty(t, c.path, name)
			require.LessOrEqual(t, len(c.path), p.maxDepth, name)
			require.LessOrEqual(t, c.tokens, p.tokenBudget, name)
			require.LessOrEqual(t, c.latencyMS, p.latencyBudget, name)
			seen := map[*node]bool{}
			for j, n := range c.path {
				require.True(t, in[n], name)
				require.False(t, seen[n], "%s: %v repeats an agent", name, c.ids())
				seen[n] = true
				if j < len(c.path)-1 {
					require.False(t, n.terminal || n.memory, "%s: %v chains past a terminal or memory agent", name, c.ids())
				}
				if j > 0 {
					require.False(t, n.memory, name)
				}
			}
			if i > 0 {
				require.False(t, less(c, cs[i-1]), "%s: candidates are sorted", name)
			}
			require.GreaterOrEqual(t, c.score, 0.0)
			require.LessOrEqual(t, c.score, 1.0)
		}
	}
}

// The same graph and question give the same candidates, in the same order,
// whatever order the map-based parts iterate in; equal scores are ordered
// by definition order.
func TestSearchDeterministic(t *testing.T) {
	nodes := randomNodes(rand.New(rand.NewSource(7)), 8)
	p := testParams()
	p.maxDepth, p.kBeam, p.tokenBudget, p.latencyBudget = 3, 4, 5000, 5000
	first, _ := search(nodes, "find and summarise", p)
	for i := 0; i < 20; i++ {
		again, _ := search(nodes, "find and summarise", p)
		require.Equal(t, len(first), len(again))
		for j := range first {
			assert.Equal(t, first[j].ids(), again[j].ids())
			assert.Equal(t, first[j].score, again[j].score)
		}
	}
	// Two agents alike but for their place: the earlier one comes first.
	twins := []*node{{id: "x_one", order: 0, tokens: 100, latency: 500}, {id: "x_two", order: 1, tokens: 100, latency: 500}}
	p.maxDepth = 1
	cs, _ := search(twins, "q", p)
	require.Len(t, cs, 2)
	assert.Equal(t, cs[0].score, cs[1].score)
	assert.Equal(t, "x_one", cs[0].path[0].id)
}

// OrKa's scores for known inputs.
func TestScoreComponents(t *testing.T) {
	p := testParams()
	p.latencyBudget = 10000
	search := &node{id: "web_search", tokens: 100, latency: 1000}
	answer := &node{id: "response_builder", terminal: true, tokens: 100, latency: 500}
	var st searchStats
	q := words("search the web")
	c, ok := p.evaluate([]*node{search, answer}, "search the web", q, &st)
	require.True(t, ok)
	assert.InDelta(t, 0.8, c.components["llm"], 1e-9, "neutral 0.5 + keyword boost 0.3")
	assert.InDelta(t, 0.9, c.components["prior"], 1e-9, "two agents is OrKa's optimal length")
	assert.Equal(t, 240, c.tokens, "(100 + 100) × 1.2")
	assert.InDelta(t, 1-0.00048/0.10, c.components["cost"], 1e-9)
	assert.InDelta(t, 0.85, c.components["latency"], 1e-9)
	// heuristics: 0.9×0.3 + 0.7×0.3 + overlap×0.2 + 0.9×0.2; overlap of
	// {web, search} with {search, web}: 2 whole + 2 partial halves over 2 = 1.5 → 1.
	assert.InDelta(t, 0.27+0.21+0.2+0.18, c.components["heuristics"], 1e-9)

	risky := &node{id: "writer", caps: []string{"file_write"}}
	guarded := &node{id: "writer", caps: []string{"file_write", "sandboxed"}}
	assert.Less(t, p.heuristics(risky, "q", words("q")), p.heuristics(guarded, "q", words("q")))
}

func TestDecide(t *testing.T) {
	p := testParams()
	mk := func(score, conf float64, terminal bool, ids ...string) *candidate {
		c := &candidate{score: score, confidence: conf}
		for i, id := range ids {
			c.path = append(c.path, &node{id: id, terminal: terminal && i == len(ids)-1})
		}
		return c
	}
	cases := []struct {
		name    string
		cs      []*candidate
		require bool
		kind    string
		target  any
	}{
		{"nothing", nil, true, Fallback, nil},
		{"a sole terminal path", []*candidate{mk(0.6, 0.5, false, "a"), mk(0.5, 0.5, true, "a", "end")}, true, CommitPath, []string{"a", "end"}},
		{"a terminal winner", []*candidate{mk(0.8, 0.5, true, "a", "end"), mk(0.6, 0.5, true, "end")}, true, CommitPath, []string{"a", "end"}},
		{"close terminals", []*candidate{mk(0.8, 0.5, true, "a", "end"), mk(0.75, 0.5, true, "end")}, true, Shortlist, nil},
		{"a clear single winner", []*candidate{mk(0.8, 0.5, false, "a"), mk(0.6, 0.5, false, "b")}, true, CommitNext, "a"},
		{"a clear path winner", []*candidate{mk(0.8, 0.5, false, "a", "b"), mk(0.6, 0.5, false, "b")}, false, CommitPath, []string{"a", "b"}},
		{"close scores", []*candidate{mk(0.8, 0.5, false, "a"), mk(0.7, 0.5, false, "b")}, true, Shortlist, nil},
		{"one good candidate", []*candidate{mk(0.7, 0.6, false, "a")}, true, CommitNext, "a"},
		{"one weak candidate", []*candidate{mk(0.69, 0.6, false, "a")}, true, Shortlist, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.requireTerminal = tc.require
			d := decide(tc.cs, p, 0.15)
			assert.Equal(t, tc.kind, d.kind, d.reasoning)
			if tc.target != nil {
				assert.Equal(t, tc.target, d.target)
			}
			assert.NotEmpty(t, d.reasoning)
		})
	}
	assert.Equal(t, 0.08, dynamicMargin("Primary: FACTUAL", 0.15))
	assert.Equal(t, 0.15, dynamicMargin("something else", 0.15))
}
