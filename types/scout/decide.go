package scout

import (
	"fmt"
	"strings"
)

// decision is graph-scout's verdict (OrKa's decision engine).
type decision struct {
	kind       string
	target     any // commit_next: an id; commit_path: ids; shortlist: candidates; fallback: nil
	confidence float64
	reasoning  string
}

// decide picks from the candidates (best first, at most kBeam): with
// require_terminal, the paths ending at a terminal agent are weighed first
// (the only one, or a winner by margin, is committed; several within the
// margin are a shortlist); otherwise the best candidate is committed when it
// leads the second by margin or more (commit_next for one agent, commit_path
// for more), else the candidates are a shortlist. A lone candidate is
// committed only with score ≥ 0.7 and confidence ≥ 0.6.
func decide(cs []*candidate, p params, margin float64) decision {
	if len(cs) == 0 {
		return decision{kind: Fallback, reasoning: "No viable paths found from current position"}
	}
	if p.requireTerminal {
		var term []*candidate
		for _, c := range cs {
			if len(c.path) <= p.maxDepth && c.path[len(c.path)-1].terminal {
				term = append(term, c)
			}
		}
		if len(term) == 1 {
			return decision{kind: CommitPath, target: term[0].ids(), confidence: term[0].confidence,
				reasoning: fmt.Sprintf("Sole terminal path to a response builder (score=%.3f)", term[0].score)}
		}
		if len(term) > 1 {
			gap := term[0].score - term[1].score
			if gap >= margin {
				return decision{kind: CommitPath, target: term[0].ids(), confidence: term[0].confidence,
					reasoning: fmt.Sprintf("Terminal path clear winner by margin %.3f >= %.3f (score=%.3f)", gap, margin, term[0].score)}
			}
			return shortlist(term, gap)
		}
	}
	top := cs[0]
	if len(cs) == 1 {
		if top.score >= 0.7 && top.confidence >= 0.6 {
			return commit(top, top.confidence, fmt.Sprintf("Single high-quality candidate (score=%.3f)", top.score))
		}
		return decision{kind: Shortlist, target: []any{candidateMap(top)}, confidence: top.confidence,
			reasoning: fmt.Sprintf("Single candidate with moderate quality (score=%.3f)", top.score)}
	}
	gap := top.score - cs[1].score
	if gap >= margin {
		return commit(top, min(1, top.confidence+gap*0.5), fmt.Sprintf("Clear winner with margin %.3f (score=%.3f)", gap, top.score))
	}
	return shortlist(cs, gap)
}

func commit(c *candidate, conf float64, why string) decision {
	if len(c.path) == 1 {
		return decision{kind: CommitNext, target: c.path[0].id, confidence: round(conf), reasoning: why}
	}
	return decision{kind: CommitPath, target: c.ids(), confidence: round(conf), reasoning: why}
}

func shortlist(cs []*candidate, gap float64) decision {
	target := make([]any, len(cs))
	var sum float64
	for i, c := range cs {
		target[i] = candidateMap(c)
		sum += c.confidence
	}
	return decision{kind: Shortlist, target: target, confidence: round(max(0, sum/float64(len(cs))-0.2)),
		reasoning: fmt.Sprintf("Close competition with margin %.3f - returning top %d options", gap, len(cs))}
}

// candidateMap is a candidate in OrKa's shape.
func candidateMap(c *candidate) map[string]any {
	ids := c.ids()
	path := make([]any, len(ids))
	for i, id := range ids {
		path[i] = id
	}
	comps := make(map[string]any, len(c.components))
	for k, v := range c.components {
		comps[k] = round(v)
	}
	return map[string]any{
		"node_id": ids[0], "path": path, "depth": len(ids), "score": c.score, "confidence": c.confidence,
		"score_components": comps,
		"estimates":        map[string]any{"tokens": c.tokens, "cost_usd": round(c.costUSD), "latency_ms": c.latencyMS},
	}
}

// dynamicMargin is OrKa's commit margin for the class an input_classifier
// agent gave the question (factual 0.08, analytical 0.15, technical 0.12,
// creative 0.2), else commit_margin.
func dynamicMargin(class string, def float64) float64 {
	class = strings.ToLower(class)
	switch {
	case strings.Contains(class, "factual"):
		return 0.08
	case strings.Contains(class, "analytical"):
		return 0.15
	case strings.Contains(class, "technical"):
		return 0.12
	case strings.Contains(class, "creative"):
		return 0.2
	}
	return def
}
