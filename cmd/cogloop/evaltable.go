package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
)

// Statuses of an eval run besides cogloop's ok and failed.
const (
	statusCanceled   = "canceled"    // in flight when eval was interrupted
	statusNotStarted = "not_started" // not started before eval was interrupted
)

// evalResult is one run of eval, as --out writes it.
type evalResult struct {
	Workflow     string               `json:"workflow,omitempty"`
	Line         int                  `json:"line"`
	Name         string               `json:"name,omitempty"`
	Repeat       int                  `json:"repeat"`
	Input        any                  `json:"input"`
	Status       string               `json:"status"`
	Pass         bool                 `json:"pass"`
	Failures     []string             `json:"failures,omitempty"`
	Answer       string               `json:"answer"`
	Assertions   []assertResult       `json:"assertions,omitempty"`
	RunID        string               `json:"run_id,omitempty"`
	FinalScore   *float64             `json:"final_score,omitempty"`
	ThresholdMet *bool                `json:"threshold_met,omitempty"`
	Loops        []evalLoop           `json:"loops,omitempty"`
	Passes       int                  `json:"passes"`
	Tokens       int                  `json:"tokens"`
	Cost         float64              `json:"cost"`
	JudgeTokens  int                  `json:"judge_tokens,omitempty"` // llm-rubric judges' calls, not in tokens
	JudgeCost    float64              `json:"judge_cost,omitempty"`
	DurationMS   int64                `json:"duration_ms"`
	Error        string               `json:"error,omitempty"`
	Errors       []cogloop.RunError   `json:"errors"`
	Warnings     []cogloop.RunWarning `json:"warnings,omitempty"`
	duration     time.Duration
	events       []event.Event // the run's events, for --report
}

type evalLoop struct {
	ID           string  `json:"id"`
	Passes       int     `json:"passes"`
	FinalScore   float64 `json:"final_score"`
	BestScore    float64 `json:"best_score"`
	ThresholdMet bool    `json:"threshold_met"`
	StopReason   string  `json:"stop_reason"`
}

// fill takes the run's outcome from res: the final score and threshold of a
// run are its last loop's; passes are all its loops' passes.
func (r *evalResult) fill(res *cogloop.Result) {
	r.Status, r.RunID = res.Status, res.RunID
	r.Answer = res.Text()
	r.Tokens, r.Cost = res.Usage.Total(), res.Usage.Cost
	if res.Errors != nil {
		r.Errors = res.Errors
	}
	r.Warnings = res.Warnings
	loops := res.Loops()
	for _, l := range loops {
		r.Loops = append(r.Loops, evalLoop{ID: l.Path, Passes: l.LoopsCompleted, FinalScore: l.FinalScore,
			BestScore: l.BestScore, ThresholdMet: l.ThresholdMet, StopReason: string(l.StopReason)})
		r.Passes += l.LoopsCompleted
	}
	if len(loops) > 0 {
		last := loops[len(loops)-1]
		r.FinalScore, r.ThresholdMet = &last.FinalScore, &last.ThresholdMet
	}
}

// evalSummary is what the table shows.
type evalSummary struct {
	total, finished, ok, failed, canceled, notStarted int
	asserts, assertsPassed                            int
	runsPassed                                        int
	withLoops, thresholdMet                           int
	scores                                            []float64
	passes, tokens, judgeTokens                       int
	cost, judgeCost                                   float64
	slowest                                           []evalResult
	failedLines, unmetLines                           []int
	warnings                                          map[string]int // code → count
	repeat                                            int
	passRate                                          float64 // the --pass-rate asked for
	lines                                             []lineTally
	belowLines, flakyLines                            []int
}

// lineTally is how the runs of one dataset line went.
type lineTally struct {
	line, runs, passed int
}

func (l lineTally) rate() float64 { return float64(l.passed) / float64(max(l.runs, 1)) }

func summarize(results []evalResult, passRate float64) evalSummary {
	s := evalSummary{total: len(results), warnings: map[string]int{}, passRate: passRate}
	byLine := map[int]int{} // line → index in s.lines
	for _, r := range results {
		switch r.Status {
		case statusCanceled:
			s.canceled++
			continue
		case statusNotStarted:
			s.notStarted++
			continue
		case cogloop.StatusOK:
			s.ok++
		default:
			s.failed++
			s.failedLines = appendOnce(s.failedLines, r.Line)
		}
		s.finished++
		s.add(r, byLine)
	}
	for _, l := range s.lines {
		if l.passed > 0 && l.passed < l.runs {
			s.flakyLines = append(s.flakyLines, l.line)
		}
		if l.rate() < passRate {
			s.belowLines = append(s.belowLines, l.line)
		}
	}
	sort.SliceStable(s.slowest, func(i, j int) bool { return s.slowest[i].duration > s.slowest[j].duration })
	if len(s.slowest) > 3 {
		s.slowest = s.slowest[:3]
	}
	return s
}

// add counts a finished run r: its line's tally (byLine: line → index in
// s.lines), its assertions, scores, warnings and spend.
func (s *evalSummary) add(r evalResult, byLine map[int]int) {
	i, seen := byLine[r.Line]
	if !seen {
		i = len(s.lines)
		byLine[r.Line] = i
		s.lines = append(s.lines, lineTally{line: r.Line})
	}
	s.lines[i].runs++
	s.repeat = max(s.repeat, r.Repeat)
	if r.Pass {
		s.runsPassed++
		s.lines[i].passed++
	}
	met := true
	for _, a := range r.Assertions {
		s.asserts++
		if a.Pass {
			s.assertsPassed++
		} else {
			met = false
		}
	}
	if !met {
		s.unmetLines = appendOnce(s.unmetLines, r.Line)
	}
	if r.FinalScore != nil {
		s.withLoops++
		s.scores = append(s.scores, *r.FinalScore)
		if *r.ThresholdMet {
			s.thresholdMet++
		}
	}
	for _, w := range r.Warnings {
		code := w.Code
		if code == "" {
			code = "other"
		}
		s.warnings[code]++
	}
	s.passes += r.Passes
	s.tokens += r.Tokens
	s.cost += r.Cost
	s.judgeTokens += r.JudgeTokens
	s.judgeCost += r.JudgeCost
	s.slowest = append(s.slowest, r)
}

func appendOnce(xs []int, x int) []int {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// rate is the share of finished runs that passed.
func (s evalSummary) rate() float64 { return float64(s.runsPassed) / float64(max(s.finished, 1)) }

// passed: every run finished, and the runs that passed (ok, every assertion
// met) reach the pass rate overall and on every line.
func (s evalSummary) passed() bool {
	return s.finished == s.total && s.finished > 0 && s.rate() >= s.passRate && len(s.belowLines) == 0
}

func writeEvalTable(w io.Writer, s evalSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, args...)) }
	row("runs", "%d (%d ok, %d failed)", s.finished, s.ok, s.failed)
	if len(s.failedLines) > 0 {
		row("failed", "%s", lineList(s.failedLines))
	}
	if s.asserts > 0 {
		row("assertions passed", "%d of %d", s.assertsPassed, s.asserts)
	}
	if len(s.unmetLines) > 0 {
		row("assertion failed", "%s (reasons on stderr)", lineList(s.unmetLines))
	}
	row("pass rate", "%.1f%% (%d of %d runs; need %.1f%%)", 100*s.rate(), s.runsPassed, s.finished, 100*s.passRate)
	if len(s.belowLines) > 0 {
		row("below pass rate", "%s", lineList(s.belowLines))
	}
	if len(s.flakyLines) > 0 {
		row("flaky", "%s (some repeats passed, some failed)", lineList(s.flakyLines))
	}
	if s.withLoops > 0 {
		row("threshold met", "%d of %d", s.thresholdMet, s.withLoops)
		row("final score", "mean %.3f, median %.3f", mean(s.scores), median(s.scores))
	}
	if s.finished > 0 {
		row("passes per run", "%.1f", float64(s.passes)/float64(s.finished))
	}
	if len(s.warnings) > 0 {
		codes := make([]string, 0, len(s.warnings))
		for c, n := range s.warnings {
			codes = append(codes, fmt.Sprintf("%s ×%d", c, n))
		}
		sort.Strings(codes)
		row("warnings", "%s (in --out per run)", strings.Join(codes, ", "))
	}
	row("tokens", "%s", humanize.Comma(int64(s.tokens)))
	row("cost", "$%.4f", s.cost)
	if s.judgeTokens > 0 || s.judgeCost > 0 {
		row("judge tokens", "%s, $%.4f (llm-rubric; not in the figures above)", humanize.Comma(int64(s.judgeTokens)), s.judgeCost)
	}
	if len(s.slowest) > 0 {
		var parts []string
		for _, r := range s.slowest {
			parts = append(parts, fmt.Sprintf("line %d (%s)", r.Line, r.duration.Round(time.Millisecond)))
		}
		row("slowest", "%s", strings.Join(parts, ", "))
	}
	tw.Flush()
	if s.canceled+s.notStarted > 0 {
		fmt.Fprintf(w, "interrupted: partial results, %d of %d runs finished (%d canceled in flight, %d not started)\n",
			s.finished, s.total, s.canceled, s.notStarted)
	}
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// evalBar is the progress bar on a terminal's stderr; without a terminal it
// draws nothing.
type evalBar struct {
	mu                sync.Mutex
	w                 io.Writer
	live              bool
	total, ok, failed int
}

func newEvalBar(w io.Writer, total int, live bool) *evalBar {
	b := &evalBar{w: w, total: total, live: live}
	b.draw()
	return b
}

func (b *evalBar) add(r evalResult) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch r.Status {
	case cogloop.StatusOK:
		b.ok++
	case statusCanceled:
		return
	default:
		b.failed++
	}
	b.drawLocked()
}

func (b *evalBar) draw() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.drawLocked()
}

func (b *evalBar) drawLocked() {
	if !b.live {
		return
	}
	const width = 30
	done := b.ok + b.failed
	fill := width * done / max(b.total, 1)
	fmt.Fprintf(b.w, "\r\x1b[Keval [%s%s] %d/%d  ok %d  failed %d", strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		done, b.total, b.ok, b.failed)
}

// done erases the bar.
func (b *evalBar) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.live {
		io.WriteString(b.w, "\r\x1b[K")
		b.live = false
	}
}

// lineList names dataset lines, at most ten.
func lineList(lines []int) string {
	lines = slices.Clone(lines)
	slices.Sort(lines)
	var parts []string
	for i, l := range lines {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(lines)-10))
			break
		}
		parts = append(parts, fmt.Sprint(l))
	}
	return "line " + strings.Join(parts, ", ")
}
