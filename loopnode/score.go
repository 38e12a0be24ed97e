package loopnode

import (
	"context"
	"fmt"
	"runtime"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/cognition"
	"github.com/cogloop/cogloop/cognition/scorer"
)

// Warning codes the loop adds to cognition's.
const (
	codeNoScore       = "no_score"        // no strategy found a score in the pass
	codeScoreRescaled = "score_rescaled"  // a bare number was read by the default rule (8 → 0.08)
	codeMetadata      = "metadata"        // a past_loops_metadata template failed
	codeAmbiguous     = "score_ambiguous" // the score pattern matched more than one agent's output
)

// judge reads the pass's score and lessons; all their regexes share one budget
// of regex_budget, measured in the CPU time of the goroutine's thread (it
// keeps to one thread meanwhile), so how busy the machine is does not change
// what is found. The warnings name the source and pattern; no score, a
// rescaled bare number and a spent budget are warnings too.
func (n *Node) judge(ctx context.Context, results []cognition.Result) (scorer.Score, cognition.Extraction, []cognition.Warning) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b := cognition.NewCPUBudget(n.regexBudget)
	sc := n.scorer.ScoreWithin(ctx, results, nil, b)
	lessons := n.extractor.ExtractWithin(results, b)
	warns := append(append([]cognition.Warning(nil), sc.Warnings...), lessons.Warnings...)
	if sc.Found && len(sc.Also) > 0 {
		warns = append(warns, cognition.Warning{Code: codeAmbiguous, Message: fmt.Sprintf(
			"the score pattern %q matched the output of %s; the score was read from %q (the first in order, OrKa's rule): name the agent that scores with score_from: [%s]",
			sc.Pattern, agentIDs(append([]string{sc.Source}, sc.Also...)), sc.Source, sc.Also[len(sc.Also)-1])})
	}
	switch {
	case sc.Found && sc.Rescaled != "":
		warns = append(warns, cognition.Warning{Code: codeScoreRescaled, Message: fmt.Sprintf(
			"%s: %s (%s); write the scale in the reply (8/10, 85%%) or set score_scale: 1, 10 or 100",
			sc.From(), sc.Rescaled, readBy(sc))})
	case !sc.Found && !n.scoreMatters:
		// Nothing reads the score: stop_when decides by other conditions.
	case !sc.Found && sc.Strategy == scorer.StrategyGuard:
		warns = append(warns, cognition.Warning{Code: codeNoScore, Message: fmt.Sprintf(
			"no score found: high-priority agent %q gave none (%s); the score is 0", sc.Source, n.scorer.Tried())})
	case !sc.Found:
		warns = append(warns, cognition.Warning{Code: codeNoScore, Message: fmt.Sprintf(
			"no score found in %s (read: %s); the score is 0", agentList(n.scorer.Only(results)), n.scorer.Tried())})
	}
	return sc, lessons, warns
}

func agentIDs(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = fmt.Sprintf("%q", id)
	}
	return "agents " + strings.Join(q, ", ")
}

func readBy(sc scorer.Score) string {
	if sc.Pattern == "" {
		return "strategy " + sc.Strategy
	}
	if sc.Strategy == scorer.StrategyDirectKey || sc.Strategy == scorer.StrategyNestedPath || sc.Strategy == scorer.StrategyJSON {
		return fmt.Sprintf("%s %q", sc.Strategy, sc.Pattern)
	}
	return fmt.Sprintf("pattern %q", sc.Pattern)
}

func agentList(results []cognition.Result) string {
	if len(results) == 0 {
		return "no agent output"
	}
	ids := make([]string, len(results))
	for i, r := range results {
		ids[i] = fmt.Sprintf("%q", r.ID)
	}
	return "agents " + strings.Join(ids, ", ")
}

// warnPass emits the pass's warnings as warning events naming the loop and the
// pass (Data: code, loop, pass, and for a score its source and pattern). Under
// strict mode the first one is returned as the error the loop stops with.
func (n *Node) warnPass(in agents.Input, path string, loop int, sc scorer.Score, ws []cognition.Warning) error {
	var first error
	for _, w := range ws {
		data := map[string]any{"code": w.Code, "loop": n.id, "pass": loop}
		switch w.Code {
		case codeAmbiguous:
			data["source"] = sc.Source
			data["agents"] = append([]string{sc.Source}, sc.Also...)
			data["pattern"] = sc.Pattern
		case codeScoreRescaled, scorer.CodeNegativeScore, scorer.CodeScoreOutOfRange, scorer.CodeNotFinite:
			if sc.Source != "" {
				data["source"] = sc.Source
			}
			if sc.Pattern != "" {
				data["pattern"] = sc.Pattern
			}
		case codeNoScore:
			data["pattern"] = n.scorer.Tried()
		}
		if err := in.Run.Warn(event.Event{Node: path, Agent: n.id, Type: "loop", Message: w.Message, Data: data}); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// metadataWarnings gives past_loops_metadata's problems a code.
func metadataWarnings(ws []string) []cognition.Warning {
	out := make([]cognition.Warning, len(ws))
	for i, w := range ws {
		out[i] = cognition.Warning{Code: codeMetadata, Message: w}
	}
	return out
}

// scoreMatters reports whether a missing score changes what the loop does or
// says: the threshold decides (no stop_when), return: best, a stop_when
// condition reading the score, or a score configuration written in the file.
func scoreMatters(c *load.Config, n *Node) bool {
	for _, k := range []string{"score_extraction_pattern", "score_extraction_key", "score_extraction_config",
		"scoring", "score_from", "score_scale", "high_priority_agents"} {
		if c.Has(k) {
			return true
		}
	}
	return n.stop == nil || n.best || readsScore(n.stop)
}

func readsScore(c *condition) bool {
	if c == nil {
		return false
	}
	switch c.kind {
	case condScore:
		return true
	case condStagnation:
		return c.rounds > 0
	case condWhile, condUntil:
		return c.expr != nil && strings.Contains(c.expr.Source(), "score")
	}
	for _, ch := range c.children {
		if readsScore(ch) {
			return true
		}
	}
	return false
}
