package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/dustin/go-humanize"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/app/records"
)

// loopLimits counts the tool calls of the run, for the summary of a run
// without loops. (Each loop's max_loops, threshold and tool calls per pass
// come from the run's events, as show reads them from the record.)
type loopLimits struct {
	mu    sync.Mutex
	tools int
}

type loopLimit struct {
	maxLoops  int
	threshold float64
}

func (l *loopLimits) Observe(e event.Event) {
	if e.Kind != event.ToolResult {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tools++
}

// toolCalls counts the tool calls of the run.
func (l *loopLimits) toolCalls() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tools
}

// maxScores is how many pass scores a summary line shows before eliding.
const maxScores = 8

// writeSummary writes the run summary: one line per loop (nested loops one
// per run of them, as show prints them, from the run's events), the first
// error of each failed agent, and the warnings counted by kind.
func writeSummary(w io.Writer, res *cogloop.Result, limits *loopLimits, events []event.Event) {
	loops := recordLoops(records.Summarize(events).Loops) // tool calls per pass come from the record, as show's do
	writeSummaryLines(w, loops, res.Errors, res.Warnings)
	if n := limits.toolCalls(); n > 0 && len(loops) == 0 {
		fmt.Fprintf(w, "tools: %s\n", plural(n, "call"))
	}
}

// recordLoops are the loops of a run's record (or events) as the summary
// lines read them: the one renderer of run and show.
func recordLoops(ls []records.Loop) []loopSummary {
	out := make([]loopSummary, len(ls))
	for i, l := range ls {
		out[i] = loopSummary{res: l.Result(), lim: loopLimit{maxLoops: l.MaxLoops, threshold: l.Threshold}, known: true, tools: passTools(l.Passes)}
	}
	return out
}

// loopSummary is a loop's result and, when known, its limits.
type loopSummary struct {
	res   cogloop.LoopResult
	lim   loopLimit
	known bool
	tools []int // tool calls per pass; nil when none were made
}

// writeSummaryLines writes the summary of a run (cogloop run) or of its
// record (cogloop show).
func writeSummaryLines(w io.Writer, loops []loopSummary, errs []cogloop.RunError, warnings []cogloop.RunWarning) {
	for _, l := range loops {
		fmt.Fprintln(w, loopLine(l, errs))
	}
	seen := map[string]bool{}
	for _, e := range errs {
		if seen[e.Agent] {
			continue
		}
		seen[e.Agent] = true
		n := 0
		for _, o := range errs {
			if o.Agent == e.Agent {
				n++
			}
		}
		more := ""
		if n > 1 {
			more = fmt.Sprintf(" (%d errors, first shown)", n)
		}
		fmt.Fprintf(w, "error: %s: %s%s\n", e.Path, e.Message, more)
	}
	if len(warnings) > 0 {
		fmt.Fprintf(w, "%s: %s\n", plural(len(warnings), "warning"), warningCounts(warnings))
	}
}

// loopLine is `improve: 3/5 passes · 0.42 → 0.71 → 0.90 · stopped: threshold
// (0.90 ≥ 0.85) · best pass 3 · 2 agent errors · 1,840 tokens · $0.0031`.
func loopLine(ls loopSummary, errs []cogloop.RunError) string {
	l := ls.res
	parts := []string{ls.passesText()}
	if scores := scoreTrail(l.Iterations); scores != "" {
		parts = append(parts, scores)
	}
	parts = append(parts, ls.stoppedText())
	switch {
	case l.LoopsCompleted > 0 && len(l.Iterations) > 0 && !anyScore(l.Iterations):
		// not "best pass 1" of scores that are 0 for want of one; a loop
		// restored whole from its checkpoint has no passes in these events
		parts = append(parts, "no score")
	case l.BestIteration > 0:
		parts = append(parts, fmt.Sprintf("best pass %d", l.BestIteration))
	}
	if n := agentErrors(l, errs); n > 0 {
		parts = append(parts, plural(n, "agent error"))
	}
	if len(ls.tools) > 0 {
		parts = append(parts, "tool calls per pass "+toolTrail(ls.tools))
	}
	if t := l.Usage.Total(); t > 0 {
		parts = append(parts, humanize.Comma(int64(t))+" tokens")
	}
	if l.Usage.Cost > 0 {
		parts = append(parts, fmt.Sprintf("$%.4f", l.Usage.Cost))
	}
	return l.Path + ": " + strings.Join(parts, " · ")
}

// passesText is "3 passes", "1 pass", or "3/5 passes" when max_loops is known.
func (ls loopSummary) passesText() string {
	l := ls.res
	if ls.known && ls.lim.maxLoops > 0 {
		return fmt.Sprintf("%d/%d passes", l.LoopsCompleted, ls.lim.maxLoops)
	}
	if l.LoopsCompleted == 1 {
		return "1 pass"
	}
	return fmt.Sprintf("%d passes", l.LoopsCompleted)
}

// stoppedText is "stopped: REASON", with the score against the threshold
// when the threshold stopped the loop and is known.
func (ls loopSummary) stoppedText() string {
	l := ls.res
	stopped := "stopped: " + string(l.StopReason)
	if l.StopReason == "threshold" && ls.known {
		stopped += fmt.Sprintf(" (%.2f ≥ %.2f)", l.FinalScore, ls.lim.threshold)
	}
	return stopped
}

// agentErrors counts the errors of agents inside loop l (not the loop's own).
func agentErrors(l cogloop.LoopResult, errs []cogloop.RunError) int {
	n := 0
	for _, e := range errs {
		if strings.HasPrefix(e.Path, l.Path+fault.PathSep) && e.Agent != l.ID {
			n++
		}
	}
	return n
}

// toolTrail is the tool calls of each pass joined by arrows; the middle is
// elided past maxScores.
func toolTrail(tools []int) string {
	per := make([]string, len(tools))
	for i, c := range tools {
		per[i] = fmt.Sprint(c)
	}
	if len(per) > maxScores {
		per = append(append(per[:3:3], "…"), per[len(per)-3:]...)
	}
	return strings.Join(per, " → ")
}

// anyScore reports whether a pass of its found a score.
func anyScore(its []cogloop.IterationResult) bool {
	for _, it := range its {
		if it.Completed && it.ScoreFound {
			return true
		}
	}
	return false
}

// scoreTrail is the passes' scores joined by arrows: "–" for a pass without a
// score, "(cut)" for one cut short; the middle is elided past maxScores.
func scoreTrail(its []cogloop.IterationResult) string {
	s := make([]string, len(its))
	for i, it := range its {
		switch {
		case !it.Completed:
			s[i] = "(cut short)"
		case !it.ScoreFound:
			s[i] = "–"
		default:
			s[i] = fmt.Sprintf("%.2f", it.Score)
		}
	}
	if len(s) > maxScores {
		s = append(append(s[:3:3], "…"), s[len(s)-3:]...)
	}
	return strings.Join(s, " → ")
}

// warningCounts is "no_score ×2, undefined_name ×1", by count then code.
func warningCounts(ws []cogloop.RunWarning) string {
	counts := map[string]int{}
	for _, w := range ws {
		code := w.Code
		if code == "" {
			code = "other"
		}
		counts[code]++
	}
	codes := make([]string, 0, len(counts))
	for c := range counts {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		if counts[codes[i]] != counts[codes[j]] {
			return counts[codes[i]] > counts[codes[j]]
		}
		return codes[i] < codes[j]
	})
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = fmt.Sprintf("%s ×%d", c, counts[c])
	}
	return strings.Join(out, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
