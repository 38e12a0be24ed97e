package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/app/records"
)

//go:embed page.html.tmpl
var pageSource string

//go:embed compare.html.tmpl
var compareSource string

//go:embed page.css
var pageCSS string

// Style is the stylesheet of the report's page, for a page that shows
// [WriteBody] or [WriteCompare] inside its own frame (cogloop serve).
func Style() string { return pageCSS }

// page is parsed on first use, not at every start of the cogloop binary
// (0.3 ms, 2 M instructions of each command's start-up).
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"score":    func(v float64) string { return fmt.Sprintf("%.2f", v) },
		"tokens":   tokens,
		"cost":     cost,
		"spent":    spent,
		"duration": duration,
		"clip":     clip,
		"time":     func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"pathsep":  func() string { return fault.PathSep },
	}).Parse(pageSource + compareSource))
})

// StatusRunning is the status a caller gives a summary of a run that is
// still running (cogloop serve): its last pass shows as running, not cut
// short, and is left off the chart until it ends.
const StatusRunning = "running"

// Write renders s as an HTML page to w.
func Write(w io.Writer, s records.Summary) error {
	if err := page().Execute(w, newView(s)); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	return nil
}

// WriteBody renders the content of s's page (no <html>, <head> or styles):
// the live run page of cogloop serve shows the page it will be when the run
// ends, rendered by the same template.
func WriteBody(w io.Writer, s records.Summary) error {
	if err := page().ExecuteTemplate(w, "body", newView(s)); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	return nil
}

// view is what the template sees.
type view struct {
	CSS    template.CSS
	S      records.Summary
	Charts []chart
	Loops  []loopView
}

type loopView struct {
	records.Loop
	Anchor string
	// ForkLoop names the loop in a fork point: "improve", or
	// "outer:2/inner" for a loop run by pass 2 of loop outer (cogloop fork
	// --pass ForkLoop:K).
	ForkLoop string
}

// forkLoop is the fork point's name of the loop with id at path: each
// "iteration N" part of the path is a pass N of the loop before it.
func forkLoop(id, path string) string {
	parts := strings.Split(path, fault.PathSep)
	var out []string
	for i := 1; i < len(parts); i++ {
		if n, ok := strings.CutPrefix(parts[i], "iteration "); ok {
			if _, err := strconv.Atoi(n); err == nil {
				out = append(out, parts[i-1]+":"+n)
			}
		}
	}
	return strings.Join(append(out, id), "/")
}

// maxClip is how much of a tool call's arguments or result the report shows.
const maxClip = 2000

// clip cuts s to maxClip bytes (on a rune boundary), saying how much was left out.
func clip(s string) string {
	if len(s) <= maxClip {
		return s
	}
	cut := maxClip
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

func newView(s records.Summary) view {
	v := view{S: s, CSS: template.CSS(pageCSS)} // #nosec G203 -- our own embedded stylesheet
	for i, l := range s.Loops {
		v.Loops = append(v.Loops, loopView{Loop: l, Anchor: fmt.Sprintf("loop-%d", i+1), ForkLoop: forkLoop(l.ID, l.Path)})
	}
	loops := s.Loops
	if s.Status == StatusRunning {
		// A live run's chart gains a point as each pass ends: the pass
		// under way is not drawn (its row says it is running).
		loops = make([]records.Loop, len(s.Loops))
		for i, l := range s.Loops {
			if n := len(l.Passes); n > 0 && !l.Passes[n-1].Completed {
				l.Passes = l.Passes[:n-1]
			}
			loops[i] = l
		}
	}
	v.Charts = charts(loops)
	return v
}

func tokens(u spend.Usage) string {
	t := u.PromptTokens + u.CompletionTokens
	if t == 0 {
		return "–"
	}
	return fmt.Sprintf("%d (%d in, %d out)", t, u.PromptTokens, u.CompletionTokens)
}

func cost(u spend.Usage) string {
	switch {
	case u.Cost == 0:
		return "–"
	case u.Cost < 0.0001:
		return fmt.Sprintf("$%.6f", u.Cost) // a cheap call is not $0.0000
	}
	return fmt.Sprintf("$%.4f", u.Cost)
}

// spent is u against budget b: "1234 of 5000 tokens, $0.0120 of $0.0500".
func spent(u spend.Usage, b records.Budget) string {
	var parts []string
	if b.MaxTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d tokens", u.PromptTokens+u.CompletionTokens, b.MaxTokens))
	}
	if b.MaxCost > 0 {
		c := cost(u)
		if u.Cost == 0 {
			c = "$0"
		}
		parts = append(parts, fmt.Sprintf("%s of $%.4f", c, b.MaxCost))
	}
	return strings.Join(parts, ", ")
}

func duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "–"
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
	}
	return d.Round(10 * time.Millisecond).String()
}

// Chart geometry, in SVG user units.
const (
	chartW, chartH     = 640, 240
	padL, padR         = 44, 26
	padT, padB         = 14, 34
	plotW, plotH       = chartW - padL - padR, chartH - padT - padB
	defaultTopOfScores = 1.0
	// noScoreDrop: a pass without a score is marked this far below the
	// axis, between it and the pass numbers.
	noScoreDrop = 24
	// maxAxisPasses: a max_loops up to this widens the pass axis to it.
	maxAxisPasses = 30
)

// chart is the scores of every run of one loop (one per outer pass when the
// loop is nested in another).
type chart struct {
	Shape      string
	W, H       int
	Threshold  float64
	ThresholdY string
	Series     []series
	XTicks     []tick
	YTicks     []tick
	X0, X1     int
	Y0, Y1     int
	Legend     bool
}

type series struct {
	Path  string
	Class string
	Lines []string // the polylines: runs of passes with a score, broken where a pass has none
	Marks []mark
}

type mark struct {
	X, Y   string
	Pass   int
	Label  string
	Failed bool
	Best   bool
	// NoScore: the pass found no score (or was cut short); its mark sits
	// below the axis, off the line, not at 0.
	NoScore bool
}

type tick struct {
	Pos   string
	Label string
}

// charts groups the loops by shape, in the order each shape first ran.
func charts(loops []records.Loop) []chart {
	var order []string
	by := map[string][]records.Loop{}
	for _, l := range loops {
		if _, ok := by[l.Shape]; !ok {
			order = append(order, l.Shape)
		}
		by[l.Shape] = append(by[l.Shape], l)
	}
	out := make([]chart, 0, len(order))
	for _, shape := range order {
		out = append(out, newChart(shape, by[shape]))
	}
	return out
}

func newChart(shape string, runs []records.Loop) chart {
	c := chart{Shape: shape, W: chartW, H: chartH, X0: padL, X1: chartW - padR, Y0: padT, Y1: chartH - padB,
		Threshold: runs[0].Threshold, Legend: len(runs) > 1}
	ax := newAxes(runs)
	c.ThresholdY = f1(ax.y(c.Threshold))
	for n := 1; n <= ax.passes; n++ {
		if ax.passes <= 20 || n == 1 || n == ax.passes || n%(ax.passes/10) == 0 {
			c.XTicks = append(c.XTicks, tick{Pos: f1(ax.x(n)), Label: fmt.Sprint(n)})
		}
	}
	for i := 0; i <= 4; i++ {
		v := ax.top * float64(i) / 4
		c.YTicks = append(c.YTicks, tick{Pos: f1(ax.y(v)), Label: fmt.Sprintf("%.2g", v)})
	}
	for i, l := range runs {
		c.Series = append(c.Series, ax.series(i, l))
	}
	return c
}

// axes are a chart's scales: passes 1…passes across, scores 0…top up.
type axes struct {
	passes int
	top    float64
}

// newAxes fits the axes to the runs of a loop: every pass they ran, or may
// still run, and their scores and threshold.
func newAxes(runs []records.Loop) axes {
	passes, top := 1, defaultTopOfScores
	for _, l := range runs {
		if l.MaxLoops <= maxAxisPasses {
			passes = max(passes, l.MaxLoops) // room for the passes the loop may still run
		}
		for _, p := range l.Passes {
			passes = max(passes, p.Number)
			top = max(top, p.Score)
		}
		top = max(top, l.Threshold)
	}
	return axes{passes: passes, top: math.Ceil(top*10) / 10}
}

// x is the position of pass n.
func (a axes) x(n int) float64 {
	if a.passes == 1 {
		return padL + plotW/2
	}
	return padL + float64(n-1)*plotW/float64(a.passes-1)
}

// y is the position of score v.
func (a axes) y(v float64) float64 { return padT + plotH*(1-math.Max(0, v)/a.top) }

// series is the i-th run of a loop: a mark per pass, and lines joining the
// scored passes (a pass without a score breaks the line).
func (a axes) series(i int, l records.Loop) series {
	s := series{Path: l.Path, Class: fmt.Sprintf("s%d", i%6)}
	var pts []string
	line := func() {
		if len(pts) > 0 {
			s.Lines = append(s.Lines, strings.Join(pts, " "))
		}
		pts = nil
	}
	for _, p := range l.Passes {
		m := mark{X: f1(a.x(p.Number)), Y: f1(a.y(p.Score)), Pass: p.Number, Failed: p.Failed(),
			Best: p.Number == l.BestIteration && p.Completed && p.ScoreFound, NoScore: !p.Completed || !p.ScoreFound}
		if m.NoScore {
			m.Y = f1(padT + plotH + noScoreDrop)
		}
		m.Label = markLabel(p, m)
		s.Marks = append(s.Marks, m)
		if m.NoScore {
			line()
			continue
		}
		pts = append(pts, m.X+","+m.Y)
	}
	line()
	return s
}

// markLabel is the label of pass p's mark m.
func markLabel(p records.Pass, m mark) string {
	var label string
	switch {
	case !p.Completed:
		label = fmt.Sprintf("pass %d: cut short", p.Number)
	case !p.ScoreFound:
		label = fmt.Sprintf("pass %d: no score", p.Number)
	default:
		label = fmt.Sprintf("pass %d: %.2f", p.Number, p.Score)
	}
	if m.Failed && p.Completed {
		label += " (an agent failed)"
	}
	if m.Best {
		label += " · best"
	}
	return label
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
