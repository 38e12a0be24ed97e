package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/cogloop/cogloop/records"
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
	// Words compare without the whitespace after them.
	x, y := make([]string, len(xt)), make([]string, len(yt))
	for i, w := range xt {
		x[i] = strings.TrimRightFunc(w, unicode.IsSpace)
	}
	for j, w := range yt {
		y[j] = strings.TrimRightFunc(w, unicode.IsSpace)
	}
	// lcs[i][j]: the longest common subsequence of x[i:] and y[j:].
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
	add := func(op, text string) {
		if n := len(parts); n > 0 && parts[n-1].Op == op {
			parts[n-1].Text += text
			return
		}
		parts = append(parts, diffPart{Op: op, Text: text})
	}
	i, j := 0, 0
	for i < len(x) && j < len(y) {
		switch {
		case x[i] == y[j]:
			add("", yt[j])
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			add("del", xt[i])
			i++
		default:
			add("ins", yt[j])
			j++
		}
	}
	for ; i < len(x); i++ {
		add("del", xt[i])
	}
	for ; j < len(y); j++ {
		add("ins", yt[j])
	}
	return parts, false
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
