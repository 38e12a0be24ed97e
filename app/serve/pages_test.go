package serve_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/cogloop/cogloop/internal/htmlnode"
)

// hostile are the markup the replies of testdata/workflows/quality.replies.yaml
// carry: each must reach a page as text.
var hostile = []string{
	`<script>window.__xss=1</script><img src=x onerror="window.__xss=2">`,
	`" onmouseover="window.__xss=3" x="' onfocus='window.__xss=4'`,
	`</script><script>window.__xss=5</script>`,
	`<svg onload="window.__xss=6"><a href="javascript:window.__xss=7">dolls</a></svg>`,
}

func page(t *testing.T, res *http.Response) (*html.Node, string) {
	t.Helper()
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	doc, err := htmlnode.Parse(strings.NewReader(string(data)))
	require.NoError(t, err)
	return doc, string(data)
}

// noInjectedMarkup: the only script is the page's own; no element, handler
// or javascript: link came from a reply.
func noInjectedMarkup(t *testing.T, doc *html.Node) {
	t.Helper()
	scripts := htmlnode.All(doc, htmlnode.Tag("script"))
	for _, s := range scripts {
		assert.Equal(t, "/assets/app.js", htmlnode.Attr(s, "src"))
		assert.Empty(t, htmlnode.Text(s), "no inline script")
	}
	for _, tag := range []string{"img", "iframe"} {
		assert.Empty(t, htmlnode.All(doc, htmlnode.Tag(tag)), "a reply made a <%s> element", tag)
	}
	for _, n := range htmlnode.All(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			assert.False(t, strings.HasPrefix(a.Key, "on"), "<%s %s=%q> came from a reply", n.Data, a.Key, a.Val)
			assert.NotContains(t, strings.ToLower(a.Val), "javascript:", "<%s %s>", n.Data, a.Key)
		}
	}
}

func TestPagesShowModelOutputAsText(t *testing.T) {
	_, ts := startingServer(t)
	id := startRun(t, ts, "quality.yaml", "Explain <b>recursion</b>")
	stream(t, get(t, ts, "/api/runs/"+id+"/events"), untilRunEnd)

	res := get(t, ts, "/runs/"+id)
	assert.Contains(t, res.Header.Get("Content-Security-Policy"), "script-src 'self'")
	doc, _ := page(t, res)
	noInjectedMarkup(t, doc)
	text := htmlnode.Text(doc)
	for _, h := range hostile {
		assert.Contains(t, text, h, "the reply, as text")
	}
	assert.Len(t, htmlnode.All(doc, htmlnode.Class("circle", "pass")), 3, "the report's chart, one point per pass")
	body := htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "data-run") == id })
	require.NotEmpty(t, body, "the page names its run for its script")

	frag, _ := page(t, get(t, ts, "/runs/"+id+"/body"))
	noInjectedMarkup(t, frag)
	assert.Contains(t, htmlnode.Text(frag), hostile[2])

	other := startRun(t, ts, "nested/workflow.yaml", "x")
	stream(t, get(t, ts, "/api/runs/"+other+"/events"), untilRunEnd)
	cmp, _ := page(t, get(t, ts, "/compare?runs="+id+","+other))
	noInjectedMarkup(t, cmp)
	assert.Contains(t, htmlnode.Text(cmp), hostile[3])

	// JSON answers escape markup (a JSON answer opened as a page shows none)
	res = get(t, ts, "/api/runs/"+id)
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "</script>")
	assert.Contains(t, string(data), `\u003c/script\u003e`)
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
}

func TestComparePutsRunsSideBySide(t *testing.T) {
	_, ts := startingServer(t)
	a := startRun(t, ts, "quality.yaml", "x")
	b := startRun(t, ts, "nested/workflow.yaml", "x")
	for _, id := range []string{a, b} {
		stream(t, get(t, ts, "/api/runs/"+id+"/events"), untilRunEnd)
	}
	doc, _ := page(t, get(t, ts, "/compare?runs="+a+","+b))
	svgs := htmlnode.All(doc, htmlnode.Tag("svg"))
	require.Len(t, svgs, 1, "one chart: both runs' loop")
	series := htmlnode.All(svgs[0], htmlnode.Class("g", "series"))
	require.Len(t, series, 2)
	assert.Equal(t, a+": improvement_loop", htmlnode.Attr(series[0], "data-path"))
	assert.Len(t, htmlnode.All(series[0], htmlnode.Class("circle", "pass")), 3)
	assert.Len(t, htmlnode.All(series[1], htmlnode.Class("circle", "pass")), 1)
	rows := htmlnode.All(doc, func(n *html.Node) bool { return n.Data == "tr" && htmlnode.Attr(n, "data-run") != "" })
	require.Len(t, rows, 2)
	diff := htmlnode.All(doc, htmlnode.Class("pre", "diff"))
	require.Len(t, diff, 1)
	assert.NotEmpty(t, htmlnode.All(diff[0], htmlnode.Tag("ins")))
	assert.NotEmpty(t, htmlnode.All(diff[0], htmlnode.Tag("del")))

	for _, q := range []string{"/compare?runs=" + a, "/compare"} {
		d, _ := page(t, get(t, ts, q))
		assert.Empty(t, htmlnode.All(d, htmlnode.Tag("svg")), q)
	}
	assert.Equal(t, http.StatusNotFound, get(t, ts, "/compare?runs="+a+",nope").StatusCode)
	assert.Equal(t, http.StatusBadRequest, get(t, ts, "/compare?runs="+a+",..").StatusCode)
}

func TestRunsAndQueuePagesRender(t *testing.T) {
	_, ts := startingServer(t)
	doc, _ := page(t, get(t, ts, "/"))
	noInjectedMarkup(t, doc)
	assert.Len(t, htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "id") == "start" }), 1, "the start form")
	doc, _ = page(t, get(t, ts, "/queue"))
	assert.Contains(t, htmlnode.Text(doc), "--redis")
	assert.Equal(t, http.StatusNotFound, get(t, ts, "/runs/nope").StatusCode)
	assert.Equal(t, http.StatusNotFound, get(t, ts, "/assets/nope.js").StatusCode)
	res := get(t, ts, "/assets/report.css")
	assert.Equal(t, "text/css; charset=utf-8", res.Header.Get("Content-Type"))
}
