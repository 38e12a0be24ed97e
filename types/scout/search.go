package scout

import (
	"math"
	"sort"
	"strings"
)

// node is one agent graph-scout may put on a path.
type node struct {
	id       string
	typ      string
	caps     []string
	terminal bool // is_terminal, or an answer-emitting capability or id
	memory   bool // memory agents start a path but are not chained
	tokens   int  // estimated tokens of one call
	latency  float64
	order    int // position in the workflow's definitions, for ties
}

// params are graph-scout's search and scoring parameters (OrKa's names and
// defaults, see config.go).
type params struct {
	kBeam, maxDepth, maxCandidates int
	commitMargin                   float64
	requireTerminal                bool
	weights                        map[string]float64
	tokenBudget                    int
	latencyBudget                  float64
	maxCostUSD                     float64
	maxReasonableCost              float64
	pathLengthPenalty              float64
	keywordBoost                   float64
	neutral                        float64
	riskyCaps, safetyMarkers       map[string]bool
}

// candidate is one scored path.
type candidate struct {
	path       []*node
	score      float64
	confidence float64
	components map[string]float64
	tokens     int
	costUSD    float64
	latencyMS  float64
	rated      bool // the llm component is a model's rating
}

// ids returns the path's agent ids.
func (c *candidate) ids() []string {
	out := make([]string, len(c.path))
	for i, n := range c.path {
		out[i] = n.id
	}
	return out
}

// searchStats says how much the search looked at.
type searchStats struct {
	explored    int // paths scored
	overBudget  int // paths dropped by the token or latency budget
	keptByDepth []int
}

// search enumerates paths through nodes by beam search: depth 1 is every
// node alone; each deeper level extends the kept paths of the level above
// (those not ending at a terminal or memory agent) by one node not yet on
// them. Every level keeps its best kBeam paths within the budgets, and no
// path is longer than maxDepth. The result is the kept paths of all levels,
// best first (see less), cut to maxCandidates.
func search(nodes []*node, question string, p params) ([]*candidate, searchStats) {
	var st searchStats
	q := words(question)
	var all, level []*candidate
	for _, n := range nodes {
		if c, ok := p.evaluate([]*node{n}, question, q, &st); ok {
			level = append(level, c)
		}
	}
	for depth := 1; depth <= p.maxDepth && len(level) > 0; depth++ {
		if depth > 1 {
			level = p.extend(level, nodes, depth, question, q, &st)
		}
		sortCandidates(level)
		if len(level) > p.kBeam {
			level = level[:p.kBeam]
		}
		st.keptByDepth = append(st.keptByDepth, len(level))
		all = append(all, level...)
	}
	sortCandidates(all)
	if len(all) > p.maxCandidates {
		all = all[:p.maxCandidates]
	}
	return all, st
}

// extend is the next level of the search: each path of level that does not
// end at a terminal or memory agent, extended by each node not on it (not
// a memory agent) to length depth, within the budgets.
func (p params) extend(level []*candidate, nodes []*node, depth int, question string, q map[string]bool, st *searchStats) []*candidate {
	var next []*candidate
	for _, c := range level {
		last := c.path[len(c.path)-1]
		if last.terminal || last.memory {
			continue
		}
		for _, n := range nodes {
			if n.memory || onPath(c.path, n) {
				continue
			}
			path := append(append(make([]*node, 0, depth), c.path...), n)
			if nc, ok := p.evaluate(path, question, q, st); ok {
				next = append(next, nc)
			}
		}
	}
	return next
}

func onPath(path []*node, n *node) bool {
	for _, m := range path {
		if m == n {
			return true
		}
	}
	return false
}

// sortCandidates orders by score, best first; equal scores by the agents'
// definition order, position by position, a prefix first.
func sortCandidates(cs []*candidate) {
	sort.SliceStable(cs, func(i, j int) bool { return less(cs[i], cs[j]) })
}

func less(a, b *candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	for k := 0; k < len(a.path) && k < len(b.path); k++ {
		if a.path[k].order != b.path[k].order {
			return a.path[k].order < b.path[k].order
		}
	}
	return len(a.path) < len(b.path)
}

// evaluate estimates a path's cost and scores it; ok is false when the
// estimate is over a budget (OrKa's budget controller).
func (p params) evaluate(path []*node, question string, q map[string]bool, st *searchStats) (*candidate, bool) {
	st.explored++
	c := &candidate{path: path}
	for _, n := range path {
		c.tokens += n.tokens
		c.latencyMS += n.latency
	}
	c.tokens = int(float64(c.tokens) * 1.2)
	c.costUSD = float64(c.tokens) / 1000 * costPer1k
	if c.tokens > p.tokenBudget || c.latencyMS > p.latencyBudget || c.costUSD > p.maxCostUSD {
		st.overBudget++
		return nil, false
	}
	c.components = map[string]float64{
		"llm":        p.relevance(path, question),
		"heuristics": p.heuristics(path[0], question, q),
		"prior":      p.structure(len(path)),
		"cost":       1 - math.Min(1, c.costUSD/p.maxReasonableCost),
		"latency":    1 - math.Min(1, c.latencyMS/maxReasonableLatency),
	}
	for _, k := range componentNames {
		c.score += p.weights[k] * c.components[k]
	}
	c.score = round(clamp(c.score))
	c.confidence = round(confidence(c.components))
	return c, true
}

// Constants of OrKa's estimates.
const (
	costPer1k            = 0.002 // US dollars per 1k tokens
	maxReasonableLatency = 10000 // milliseconds
	baseTokens           = 100
	baseLatency          = 1000 // milliseconds
)

// relevance is OrKa's keyword relevance without an LLM: neutral, plus a
// boost when the question and the first agent's id share a theme, minus a
// penalty for paths longer than three.
func (p params) relevance(path []*node, question string) float64 {
	s := p.neutral
	ql, id := strings.ToLower(question), strings.ToLower(path[0].id)
	switch {
	case strings.Contains(ql, "search") && strings.Contains(id, "search"),
		strings.Contains(ql, "memory") && strings.Contains(id, "memory"),
		strings.Contains(ql, "analyze") && strings.Contains(id, "llm"):
		s += p.keywordBoost
	}
	if len(path) > 3 {
		s -= p.pathLengthPenalty
	}
	return clamp(s)
}

// heuristics is OrKa's weighted check of the first agent: input readiness
// (no declared inputs: 0.9), modality fit, domain overlap of its id with the
// question, and safety fit of its capabilities.
func (p params) heuristics(n *node, question string, q map[string]bool) float64 {
	const readiness = 0.9
	modality := 0.7
	ql, id := strings.ToLower(question), strings.ToLower(n.id)
	if strings.Contains(ql, "image") || strings.Contains(ql, "picture") || strings.Contains(ql, "visual") {
		modality = 0.3
		if strings.Contains(id, "vision") || strings.Contains(id, "image") {
			modality = 1
		}
	}
	safety := 0.9
	for _, c := range n.caps {
		if p.riskyCaps[c] {
			safety = 0.6
			for _, m := range n.caps {
				if p.safetyMarkers[m] {
					safety = 0.8
				}
			}
			break
		}
	}
	return clamp(readiness*0.3 + modality*0.3 + overlap(n.id, q)*0.2 + safety*0.2)
}

// structure is OrKa's prior for a path's length (optimal 2 to 3 agents).
func (p params) structure(n int) float64 {
	switch {
	case n == 1:
		return 0.5
	case n <= 3:
		return 0.9
	case n == 4:
		return 0.7
	}
	return math.Max(0.3, 0.7-float64(n-4)*p.pathLengthPenalty)
}

// componentNames are the score components, in the order they are summed.
var componentNames = []string{"llm", "heuristics", "prior", "cost", "latency"}

var stopwords = set(strings.Fields("the a an is are was were be been being have has had do does did will would could should may might must shall can to of in for on with at by from as into through"))

func set(ws []string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// words are the lower-case words of s without stop words.
func words(s string) map[string]bool {
	if len(s) > maxQuestion {
		s = s[:maxQuestion]
	}
	out := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(s)) {
		if !stopwords[w] {
			out[w] = true
		}
	}
	return out
}

// maxQuestion caps the question text scored.
const maxQuestion = 16 << 10

// overlap is OrKa's keyword overlap of an agent id with the question's
// words: whole words count 1, words of three letters or more contained in
// one another 0.5, over the larger word count.
func overlap(id string, q map[string]bool) float64 {
	nw := words(strings.NewReplacer("_", " ", "-", " ").Replace(id))
	if len(q) == 0 || len(nw) == 0 {
		return 0.5
	}
	total := 0.0
	for w := range nw {
		if q[w] {
			total++
		}
	}
	for qw := range q {
		for w := range nw {
			if len(qw) >= 3 && len(w) >= 3 && (strings.Contains(w, qw) || strings.Contains(qw, w)) {
				total += 0.5
			}
		}
	}
	return clamp(total / float64(max(len(q), len(nw))))
}

// confidence is the components' mean less their variance (at most 0.3).
func confidence(cs map[string]float64) float64 {
	if len(cs) == 0 {
		return 0
	}
	var sum float64
	for _, k := range componentNames {
		sum += cs[k]
	}
	avg := sum / float64(len(cs))
	var variance float64
	for _, k := range componentNames {
		variance += (cs[k] - avg) * (cs[k] - avg)
	}
	variance /= float64(len(cs))
	return clamp(avg - math.Min(0.3, variance))
}

func clamp(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// round keeps six decimals, so sums taken in different orders compare equal.
func round(v float64) float64 { return math.Round(v*1e6) / 1e6 }
