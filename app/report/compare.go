package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/cogloop/cogloop/app/records"
)

// WriteCompare renders runs side by side (the content of a page, as
// [WriteBody]): each loop's score curves of every run on one chart, a table
// of the runs (status, passes, best score, stop reason, tokens, cost) and
// each run's answer with a word diff against the first run's.
func WriteCompare(w io.Writer, runs []records.Summary) error {
	if err := page().ExecuteTemplate(w, "compare", newCompare(runs)); err != nil {
		return fmt.Errorf("render comparison: %w", err)
	}
	return nil
}

type compareView struct {
	Charts []chart
	Runs   []compareRun
}

type compareRun struct {
	S      records.Summary
	Class  string
	Passes int
	Best   string
	Stop   string
	// Diff is the answer against the first run's; nil for the first run or
	// when an answer is too long to diff (Answer is shown whole then).
	Diff    []diffPart
	TooLong bool
}

type diffPart struct {
	Op   string // "", "ins" or "del"
	Text string
}

func newCompare(runs []records.Summary) compareView {
	var v compareView
	var loops []records.Loop
	for i, s := range runs {
		r := compareRun{S: s, Class: fmt.Sprintf("s%d", i%6)}
		for _, l := range s.Loops {
			r.Passes += l.LoopsCompleted
			if l.BestIteration > 0 && r.Best == "" {
				r.Best = fmt.Sprintf("%.2f (pass %d)", l.BestScore, l.BestIteration)
			}
			if r.Stop == "" {
				r.Stop = l.StopReason
			}
			l.Path = s.RunID + ": " + l.Path
			loops = append(loops, l)
		}
		if i > 0 {
			r.Diff, r.TooLong = wordDiff(runs[0].Response, s.Response)
		}
		v.Runs = append(v.Runs, r)
	}
	v.Charts = charts(loops)
	return v
}

// maxDiffWords bounds the words of each answer a diff compares (the table
// is their product).
const maxDiffWords = 1500

// wordDiff is b against a, word by word (whitespace kept with the word
// before it); tooLong when either has more than maxDiffWords words.
func wordDiff(a, b string) (parts []diffPart, tooLong bool) {
	xt, yt := words(a), words(b)
	if len(xt) > maxDiffWords || len(yt) > maxDiffWords {
		return nil, true
	}
	x, y := bare(xt), bare(yt)
	lcs := lcsTable(x, y)
	var d differ
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			d.add("", yt[j])
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			d.add("del", xt[i])
			i++
		default:
			d.add("ins", yt[j])
			j++
		}
	}
	for ; i < len(x); i++ {
		d.add("del", xt[i])
	}
	for ; j < len(y); j++ {
		d.add("ins", yt[j])
	}
	return d.parts, false
}

// bare is the words without the whitespace after them: words compare so.
func bare(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = strings.TrimRightFunc(w, unicode.IsSpace)
	}
	return out
}

// lcsTable is the table of longest common subsequences: lcs[i][j] is the
// length of the longest common subsequence of x[i:] and y[j:].
func lcsTable(x, y []string) [][]uint16 {
	lcs := make([][]uint16, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]uint16, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	return lcs
}

// differ collects a diff's parts, joining a part to the one before it when
// they are of the same kind.
type differ struct{ parts []diffPart }

func (d *differ) add(op, text string) {
	if n := len(d.parts); n > 0 && d.parts[n-1].Op == op {
		d.parts[n-1].Text += text
		return
	}
	d.parts = append(d.parts, diffPart{Op: op, Text: text})
}

// words splits s into words, each with the whitespace after it.
func words(s string) []string {
	var out []string
	start, space := 0, false
	for i, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			out = append(out, s[start:i])
			start, space = i, false
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
