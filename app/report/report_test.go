package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/app/report"
	"github.com/cogloop/cogloop/internal/htmlnode"
)

// events runs the workflow at wf with the scripted replies in script and
// returns its events; summary summarises them as a record would.
func events(t *testing.T, wf, script, input string) []event.Event {
	t.Helper()
	w, err := cogloop.Load(wf)
	require.NoError(t, err)
	data, err := os.ReadFile(script)
	require.NoError(t, err)
	sc, err := scripted.Parse(data, script)
	require.NoError(t, err)
	var buf records.Buffer
	_, _ = w.Run(context.Background(), input, cogloop.WithModels(sc), cogloop.WithObserver(buf.Observe))
	return buf.Events()
}

func summary(t *testing.T, wf, script, input string) records.Summary {
	return records.Summarize(events(t, wf, script, input))
}

func render(t *testing.T, s records.Summary) (*html.Node, string) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, report.Write(&b, s))
	doc, err := htmlnode.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	return doc, b.String()
}

// chartPoints are the pass marks of the chart of loop shape, by series.
func chartPoints(t *testing.T, doc *html.Node, shape string) [][]*html.Node {
	t.Helper()
	var out [][]*html.Node
	for _, svg := range htmlnode.All(doc, htmlnode.Tag("svg")) {
		if htmlnode.Attr(svg, "data-loop") != shape {
			continue
		}
		for _, g := range htmlnode.All(svg, htmlnode.Class("g", "series")) {
			out = append(out, htmlnode.All(g, htmlnode.Class("circle", "pass")))
		}
		return out
	}
	t.Fatalf("no chart of loop %q", shape)
	return nil
}

func TestHostileRepliesAreText(t *testing.T) {
	s := summary(t, "../../examples/quality/workflow.yaml", "testdata/hostile.yaml", "Explain recursion")
	doc, page := render(t, s)
	for _, tag := range []string{"script", "img", "iframe", "a"} {
		assert.Empty(t, htmlnode.All(doc, htmlnode.Tag(tag)), "a reply made a <%s> element", tag)
	}
	svgs := htmlnode.All(doc, htmlnode.Tag("svg"))
	require.Len(t, svgs, 1, "only the chart is an <svg>; the final answer's <svg onload> is text")
	assert.Contains(t, htmlnode.Text(doc), "<script>alert(1)</script><img src=x onerror=alert(2)>")
	assert.Contains(t, page, "&lt;script&gt;alert(1)&lt;/script&gt;")
	answer := htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "id") == "answer" })
	require.Len(t, answer, 1)
	assert.Equal(t, `<svg onload=alert(3)><a href="javascript:alert(4)">dolls</a>`, htmlnode.Text(answer[0]))
	assert.Empty(t, htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "id") == "injected" }))
}

func TestChartHasOnePointPerPass(t *testing.T) {
	s := summary(t, "../../examples/quality/workflow.yaml", "testdata/hostile.yaml", "Explain recursion")
	doc, _ := render(t, s)
	series := chartPoints(t, doc, "improvement_loop")
	require.Len(t, series, 1)
	require.Len(t, series[0], 4, "4 passes")
	for i, c := range series[0] {
		assert.Equal(t, []string{"1", "2", "3", "4"}[i], htmlnode.Attr(c, "data-pass"))
		assert.Equal(t, i == 1, htmlnode.HasClass(c, "failed"), "pass %d: only pass 2 (improver failed) is failed", i+1)
		assert.Equal(t, i == 3, htmlnode.HasClass(c, "best"), "pass %d: pass 4 is best", i+1)
	}
	th := htmlnode.All(doc, htmlnode.Class("line", "threshold"))
	require.Len(t, th, 1)
	assert.Equal(t, "threshold 0.85", strings.TrimSpace(htmlnode.Text(th[0])))
	// 0.85 of the 0..1 axis: y = top + height·0.15 = 14 + 192·0.15.
	assert.Equal(t, "42.8", htmlnode.Attr(th[0], "y1"))

	rows := htmlnode.All(doc, htmlnode.Class("tr", "failed"))
	require.Len(t, rows, 1)
	assert.Equal(t, "2", htmlnode.Attr(rows[0], "data-pass"))
	assert.Contains(t, htmlnode.Text(rows[0]), "agent improver failed")

	text := htmlnode.Text(doc)
	assert.Contains(t, text, "use a picture from everyday life.", "pass 1's improvement lesson")
	assert.Contains(t, text, "abstract <iframe src=x></iframe>.", "pass 1's mistake lesson, as text")
	assert.Contains(t, text, "score: fired · score 0.9, threshold 0.85")
	assert.Contains(t, text, "model overloaded </pre><b id=injected>bold</b>", "the error, as text")
}

func TestNestedLoopHasOneLinePerRun(t *testing.T) {
	s := summary(t, "../../loopnode/testdata/nested/workflow.yaml", "../../loopnode/testdata/nested/replies.yaml", "a plan")
	doc, _ := render(t, s)
	outer := chartPoints(t, doc, "outer")
	require.Len(t, outer, 1)
	assert.Len(t, outer[0], 2)
	inner := chartPoints(t, doc, "outer › inner")
	require.Len(t, inner, 2, "one line per run of the nested loop")
	assert.Len(t, inner[0], 2)
	assert.Len(t, inner[1], 1, "the second run met its threshold at pass 1")
	assert.Len(t, htmlnode.All(doc, htmlnode.Tag("polyline")), 3)
}

func TestIncompleteRecordSaysSo(t *testing.T) {
	s := summary(t, "../../examples/quality/workflow.yaml", "../../examples/quality/replies.yaml", "x")
	doc, _ := render(t, s)
	assert.Empty(t, htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "id") == "incomplete" }))

	var full bytes.Buffer
	w := records.NewWriter(&full, "buffer", nil)
	for _, e := range events(t, "../../examples/quality/workflow.yaml", "../../examples/quality/replies.yaml", "x")[:10] {
		w.Observe(e)
	}
	rec, err := records.Read(bytes.NewReader(full.Bytes()[:full.Len()-7]))
	require.NoError(t, err)
	doc, _ = render(t, rec.Summarize())
	banner := htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "id") == "incomplete" })
	require.Len(t, banner, 1)
	assert.Contains(t, htmlnode.Text(banner[0]), "line 10 is cut short")
	status := htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "id") == "status" })
	require.Len(t, status, 1)
	assert.Equal(t, "incomplete", htmlnode.Text(status[0]))
}

// A pass without a score is marked below the axis and left out of the line,
// not drawn at 0 (issue 32 item 16).
func TestChartMarksNoScoreOffTheLine(t *testing.T) {
	s := records.Summary{RunID: "r", Workflow: "w", Status: "ok", Complete: true, Loops: []records.Loop{{
		ID: "l", Path: "l", Shape: "l", MaxLoops: 3, Threshold: 0.9, BestIteration: 3, BestScore: 0.5,
		Passes: []records.Pass{
			{Number: 1, Score: 0.4, ScoreFound: true, Completed: true},
			{Number: 2, Completed: true},
			{Number: 3, Score: 0.5, ScoreFound: true, Completed: true},
		},
	}}}
	doc, _ := render(t, s)
	series := chartPoints(t, doc, "l")
	require.Len(t, series, 1)
	require.Len(t, series[0], 3)
	zero := "206.0" // y of 0 on the 0..1 axis: 14 + 192
	for i, c := range series[0] {
		assert.Equal(t, i == 1, htmlnode.HasClass(c, "noscore"), "pass %d", i+1)
		assert.NotEqual(t, zero, htmlnode.Attr(c, "cy"), "pass %d is not drawn at 0", i+1)
	}
	assert.Contains(t, htmlnode.Text(series[0][1]), "pass 2: no score")
	lines := htmlnode.All(doc, htmlnode.Tag("polyline"))
	require.Len(t, lines, 2, "the line breaks at the pass without a score")
	for _, l := range lines {
		assert.NotContains(t, htmlnode.Attr(l, "points"), ","+zero)
	}
}

// The page says what the run spent of its workflow's budget, live (from
// run.start's limits, before run.end) and at its end, through the record's
// JSON.
func TestPageShowsSpendAgainstTheBudget(t *testing.T) {
	evs := events(t, "../../examples/budget/workflow.yaml", "../../examples/budget/replies.yaml", "tides")
	budget := func(n int) (records.Summary, string) {
		var buf bytes.Buffer
		w := records.NewWriter(&buf, "buffer", nil)
		for _, e := range evs[:n] {
			w.Observe(e)
		}
		rec, err := records.Read(bytes.NewReader(buf.Bytes()))
		require.NoError(t, err)
		s := rec.Summarize()
		doc, _ := render(t, s)
		spans := htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "id") == "budget" })
		require.Len(t, spans, 1, "one budget line")
		return s, htmlnode.Text(spans[0])
	}
	end := len(evs)
	for end > 0 && evs[end-1].Kind != event.AgentEnd {
		end--
	}
	live, text := budget(end) // the first agents ended, no run.end yet
	require.Equal(t, records.StatusIncomplete, live.Status)
	require.NotZero(t, live.Usage.Total())
	assert.Contains(t, text, fmt.Sprintf("spent %d of 4000 tokens, ", live.Usage.Total()))
	assert.Contains(t, text, "of $0.0500")
	done, text := budget(len(evs))
	require.Equal(t, "ok", done.Status)
	assert.Equal(t, fmt.Sprintf("spent %d of 4000 tokens, $%.4f of $0.0500", done.Usage.Total(), done.Usage.Cost), text)
	assert.NotContains(t, text, "over budget")
	require.NotNil(t, done.Budget)
	assert.Equal(t, records.Budget{MaxTokens: 4000, MaxCost: 0.05}, *done.Budget)
}
