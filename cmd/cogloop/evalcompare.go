package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/dustin/go-humanize"
)

// writeCompareTable prints two workflows' summaries side by side, then the
// dataset lines whose pass rate differs.
func writeCompareTable(w io.Writer, names []string, sums []evalSummary, results [][]evalResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	a, b := sums[0], sums[1]
	fmt.Fprintf(tw, "\tA\tB\n")
	row := func(k, va, vb string) { fmt.Fprintf(tw, "%s\t%s\t%s\n", k, va, vb) }
	row("workflow", names[0], names[1])
	row("runs", fmt.Sprintf("%d (%d failed)", a.finished, a.failed), fmt.Sprintf("%d (%d failed)", b.finished, b.failed))
	row("pass rate", fmt.Sprintf("%.1f%%", 100*a.rate()), fmt.Sprintf("%.1f%%", 100*b.rate()))
	score := func(s evalSummary) string {
		if len(s.scores) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.3f", mean(s.scores))
	}
	row("mean final score", score(a), score(b))
	perRun := func(s evalSummary, v float64) string { return fmt.Sprintf("%.1f", v/float64(max(s.finished, 1))) }
	row("passes per run", perRun(a, float64(a.passes)), perRun(b, float64(b.passes)))
	row("tokens", humanize.Comma(int64(a.tokens)), humanize.Comma(int64(b.tokens)))
	row("cost", fmt.Sprintf("$%.4f", a.cost), fmt.Sprintf("$%.4f", b.cost))
	tw.Flush()

	diffs := lineDiffs(results[0], results[1])
	if len(diffs) == 0 {
		fmt.Fprintln(w, "\nevery line: same pass rate, final score and passes")
		return
	}
	fmt.Fprintln(w, "\nlines that differ:")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "line\tA passed\tB passed\tA score\tB score\tA passes\tB passes\n")
	for _, d := range diffs {
		fmt.Fprintf(tw, "%d\t%d/%d\t%d/%d\t%s\t%s\t%.1f\t%.1f\n", d.line, d.a.passed, d.a.runs, d.b.passed, d.b.runs,
			scoreText(d.a), scoreText(d.b), d.a.meanPasses(), d.b.meanPasses())
	}
	tw.Flush()
}

// lineStats is one line's runs in one workflow.
type lineStats struct {
	runs, passed, passes, scored int
	score                        float64
}

func (l lineStats) meanPasses() float64 { return float64(l.passes) / float64(max(l.runs, 1)) }

func scoreText(l lineStats) string {
	if l.scored == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", l.score/float64(l.scored))
}

type lineDiff struct {
	line int
	a, b lineStats
}

// lineDiffs are the lines whose pass count, mean final score or mean passes
// differ between the two result sets, in dataset order.
func lineDiffs(ra, rb []evalResult) []lineDiff {
	stats := func(rs []evalResult) (map[int]*lineStats, []int) {
		m := map[int]*lineStats{}
		var order []int
		for _, r := range rs {
			if r.Status == statusCanceled || r.Status == statusNotStarted {
				continue
			}
			s := m[r.Line]
			if s == nil {
				s = &lineStats{}
				m[r.Line] = s
				order = append(order, r.Line)
			}
			s.runs++
			s.passes += r.Passes
			if r.Pass {
				s.passed++
			}
			if r.FinalScore != nil {
				s.scored++
				s.score += *r.FinalScore
			}
		}
		return m, order
	}
	ma, order := stats(ra)
	mb, _ := stats(rb)
	var out []lineDiff
	for _, line := range order {
		a, b := ma[line], mb[line]
		if b == nil {
			b = &lineStats{}
		}
		if a.passed != b.passed || a.runs != b.runs || scoreText(*a) != scoreText(*b) || a.meanPasses() != b.meanPasses() {
			out = append(out, lineDiff{line: line, a: *a, b: *b})
		}
	}
	return out
}
