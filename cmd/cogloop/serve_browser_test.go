package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
)

// liveReplies answer examples/quality's agents slowly (each score after a
// delay), with markup in every reply that must stay text.
const liveReplies = `improver:
  - "<script>window.__xss=1</script><img src=x onerror=\"window.__xss=2\"> Recursion is a function calling itself."
  - "\" onmouseover=\"window.__xss=3\" Recursion is like Russian dolls."
  - "Recursion is like Russian dolls: </script><script>window.__xss=5</script> each holds a smaller one."
  - "Recursion is like Russian dolls: each holds a smaller one, down to the tiniest."
scorer:
  - {text: "Too abstract.\nIt should use a picture.\nSCORE: 0.3", delay: 700ms}
  - {text: "Better.\nIt needs to be concrete.\nSCORE: 0.5", delay: 700ms}
  - {text: "Closer.\nIt should end the story.\nSCORE: 0.7", delay: 700ms}
  - {text: "Clear and concrete.\nSCORE: 0.9", delay: 700ms}
final_answer:
  - "<svg onload=\"window.__xss=6\"><a href=\"javascript:window.__xss=7\">Recursion is like Russian dolls.</a></svg>"
`

// gatedWF is a loop whose agents call an OpenAI-compatible server: the
// test's gatedModel, which holds each scorer's reply until the test lets it
// go, so the run is certainly still running while the page is looked at.
const gatedWF = `orchestrator: {id: gated, strategy: sequential, agents: [improvement_loop, final_answer]}
agents:
  - id: improvement_loop
    type: loop
    max_loops: 5
    score_threshold: 0.85
    score_extraction_pattern: "SCORE:\\s*([0-9.]+)"
    cognitive_extraction: {enabled: true, extract_patterns: {improvements: ["(?:should|needs? to)\\s+(.+?)(?:\\n|$)"]}}
    internal_workflow:
      orchestrator: {id: pass, strategy: sequential, agents: [improver, scorer]}
      agents:
        - {id: improver, type: openai-answer, model: gpt-4o-mini, prompt: "Improve: {{ get_input() }}"}
        - {id: scorer, type: openai-answer, model: gpt-4o-mini, prompt: "Rate: {{ previous_outputs.improver.response }}"}
  - {id: final_answer, type: openai-answer, model: gpt-4o-mini, prompt: "Final: {{ previous_outputs.improvement_loop.response }}"}
`

// gatedModel speaks OpenAI's chat completions (streamed when asked): the
// improver's replies carry markup, each scorer's reply waits for a value on
// gate (scores 0.3, 0.5, 0.7, 0.9).
func gatedModel(t *testing.T, gate <-chan struct{}) *httptest.Server {
	t.Helper()
	improver := []string{
		`<script>window.__xss=1</script><img src=x onerror="window.__xss=2"> Recursion is a function calling itself.`,
		`" onmouseover="window.__xss=3" Recursion is like Russian dolls.`,
		`Recursion is like Russian dolls: </script><script>window.__xss=5</script> each holds a smaller one.`,
		`Recursion is like Russian dolls: each holds a smaller one, down to the tiniest.`,
	}
	scores := []string{"Too abstract.\nIt should use a picture.\nSCORE: 0.3", "Better.\nIt needs to be concrete.\nSCORE: 0.5",
		"Closer.\nIt should end the story.\nSCORE: 0.7", "Clear and concrete.\nSCORE: 0.9"}
	var mu sync.Mutex
	var nImp, nScore int
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		req, err := agenttest.ReadChatRequest(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var text string
		mu.Lock()
		switch {
		case strings.HasPrefix(req.Prompt, "Improve:"):
			text = improver[min(nImp, len(improver)-1)]
			nImp++
		case strings.HasPrefix(req.Prompt, "Rate:"):
			text = scores[min(nScore, len(scores)-1)]
			nScore++
		default:
			text = `<svg onload="window.__xss=6"><a href="javascript:window.__xss=7">Recursion is like Russian dolls.</a></svg>`
		}
		mu.Unlock()
		if strings.HasPrefix(req.Prompt, "Rate:") {
			select {
			case <-gate:
			case <-done:
				return
			case <-r.Context().Done():
				return
			}
		}
		if !bytes.Contains(body, []byte(`"stream":true`)) {
			agenttest.WriteChatReply(w, text, 10, 5)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range []string{text[:len(text)/2], text[len(text)/2:]} {
			c, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-4o-mini",
				"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": piece}}}})
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
		fmt.Fprint(w, `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`+"\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(func() {
		close(done)
		srv.Close()
	})
	return srv
}

// serveFixture serves a workflows directory with live.yaml (slow replies)
// and quick.yaml (one pass) through the CLI's own wiring.
func serveFixture(t *testing.T) *httptest.Server {
	t.Helper()
	wfs := t.TempDir()
	data, err := os.ReadFile(qualityWF)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(wfs, "live.yaml"), data, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(wfs, "live.replies.yaml"), []byte(liveReplies), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(wfs, "quick.yaml"), data, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(wfs, "gated.yaml"), []byte(gatedWF), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(wfs, "quick.replies.yaml"), []byte(
		"improver: [\"Recursion: a function that calls itself on a smaller piece.\"]\nscorer: [\"Fine.\\nSCORE: 0.88\"]\nfinal_answer: [\"Recursion: a function that calls itself on a smaller piece.\"]\n"), 0o600))
	srv, closeQueue, err := newServer(serveFlags{addr: "127.0.0.1:0", recordDir: t.TempDir(), workflows: wfs}, io.Discard)
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(func() {
		ts.Close()
		_ = srv.Close()
		closeQueue()
	})
	return ts
}

// The UI in a real headless Chromium: a run started from the runs page
// shows its chart gaining a point as each pass ends while it runs (its
// model, a loopback OpenAI server, holds each score until the page showed
// the one before), counts tokens live, keeps replies as text, and two runs
// picked on the runs page open side by side.
func TestServeInChromium(t *testing.T) {
	browser := chromium(t)
	ts := serveFixture(t)
	bctx, shot := browserTab(t, browser)
	guard := chromedp.WithPollingTimeout(90 * time.Second) // against a hung page, not a timing assertion

	gate := make(chan struct{})
	model := gatedModel(t, gate)
	t.Setenv("OPENAI_BASE_URL", model.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")

	// Start the gated run from the runs page's form.
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitReady(chromedp.CSS(`#start-workflow option[value="gated.yaml"]`)),
		chromedp.SetValue(chromedp.CSS(`#start-workflow`), "gated.yaml"),
		chromedp.SendKeys(chromedp.CSS(`#start-input`), "Explain recursion to a child"),
		chromedp.Click(chromedp.CSS(`#start-button`)),
		chromedp.WaitVisible(chromedp.CSS(`#live`)),
	))
	url, err := chromedp.Run(bctx, chromedp.Location())
	require.NoError(t, err)
	points := `document.querySelectorAll('#report svg.chart circle.pass').length`
	status := `document.getElementById('live-status').textContent`
	// Pass by pass: the scorer of pass n answers, then the page shows n
	// points while the run waits on pass n+1's scorer: still running.
	for n := 1; n <= 3; n++ {
		gate <- struct{}{}
		require.NoError(t, chromedp.Do(bctx,
			chromedp.Poll[chromedp.Void](fmt.Sprintf(`%s === %d && %s === 'running'`, points, n, status), guard),
		), "pass %d", n)
		if n == 2 {
			require.NoError(t, chromedp.Do(bctx,
				chromedp.Poll[chromedp.Void](`document.getElementById('live-reply').textContent.includes('Russian dolls')`, guard),
				shot("serve-live.png")))
		}
	}
	gate <- struct{}{}
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Poll[chromedp.Void](fmt.Sprintf(`%s === 4 && %s === 'ok'`, points, status), guard),
		shot("serve-run.png"),
	))
	tokens, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById('live-tokens').textContent`))
	require.NoError(t, err)
	assert.Equal(t, "135", tokens, "9 calls of 15 tokens, counted live")
	spent, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById('live-cost').textContent`))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(spent, "$"), "the cost so far (gpt-4o-mini has a price): %q", spent)

	// Replies are text: no script of theirs ran, their markup shows.
	xss, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`window.__xss !== undefined`))
	require.NoError(t, err)
	assert.False(t, xss, "a reply's script ran")
	text, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById('report').textContent`))
	require.NoError(t, err)
	assert.Contains(t, text, `</script><script>window.__xss=5</script>`)
	assert.Contains(t, text, `<a href="javascript:window.__xss=7">`)
	injected, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('#report img, #report iframe, #report a[href^="javascript"], #live img').length`))
	require.NoError(t, err)
	assert.Zero(t, injected)
	first := url[strings.LastIndex(url, "/")+1:]

	// A second, quick run; then pick both on the runs page and compare.
	second := startAndWait(t, ts, "quick.yaml")
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#runs tr[data-run="`+second+`"] input`)),
		chromedp.Click(chromedp.CSS(`#runs tr[data-run="`+first+`"] input`)),
		chromedp.Click(chromedp.CSS(`#runs tr[data-run="`+second+`"] input`)),
		shot("serve-runs.png"),
		chromedp.Click(chromedp.CSS(`#compare`)),
		chromedp.WaitVisible(chromedp.CSS(`svg.chart`)),
		shot("serve-compare.png"),
	))
	url, err = chromedp.Run(bctx, chromedp.Location())
	require.NoError(t, err)
	series, err := chromedp.Run(bctx, chromedp.Evaluate[int](`document.querySelectorAll('svg.chart g.series').length`))
	require.NoError(t, err)
	assert.Contains(t, url, "/compare?runs=")
	assert.Equal(t, 2, series, "one score curve per run")
}

// browserTab starts headless Chromium for the test and returns its tab and
// an action that keeps a screenshot under $COGLOOP_ARTIFACTS.
func browserTab(t *testing.T, browser string) (context.Context, func(string) chromedp.Action[chromedp.Void]) {
	t.Helper()
	artifacts := os.Getenv("COGLOOP_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(artifacts, 0o755))
	// A guard against a hung browser, not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 1500), chromedp.Env("HOME="+t.TempDir()))
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			buf, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return chromedp.Void{}, err
			}
			t.Logf("screenshot: %s", filepath.Join(artifacts, name))
			return chromedp.Void{}, os.WriteFile(filepath.Join(artifacts, name), buf, 0o644)
		}
	}
	return bctx, shot
}

// A run that waits for a person, started from the runs page, shows the
// question on its page; clicking Approve continues it to its end.
func TestServeAnswerByClickingInChromium(t *testing.T) {
	browser := chromium(t)
	ts, _ := steerFixture(t, true)
	bctx, shot := browserTab(t, browser)
	guard := chromedp.WithPollingTimeout(90 * time.Second)
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitReady(chromedp.CSS(`#start-workflow option[value="review.yaml"]`)),
		chromedp.SetValue(chromedp.CSS(`#start-workflow`), "review.yaml"),
		chromedp.SendKeys(chromedp.CSS(`#start-input`), "loops"),
		chromedp.Click(chromedp.CSS(`#start-button`)),
		chromedp.WaitVisible(chromedp.CSS(`#human button[data-answer="Approve"]`)),
		chromedp.Poll[chromedp.Void](`document.getElementById('live-status').textContent === 'waiting'`, guard),
		shot("serve-waiting.png"),
	))
	question, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById('human-question').textContent`))
	require.NoError(t, err)
	assert.Equal(t, "Publish this draft? <b>draft</b> about loops", question, "the question, as text")
	require.NoError(t, chromedp.Do(bctx,
		chromedp.SendKeys(chromedp.CSS(`#human-comment`), "ship it"),
		chromedp.Click(chromedp.CSS(`#human button[data-answer="Approve"]`)),
		chromedp.Poll[chromedp.Void](`document.getElementById('live-status').textContent === 'ok' && document.getElementById('answer') !== null`, guard),
		shot("serve-answered.png"),
	))
	answer, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById('answer').textContent`))
	require.NoError(t, err)
	assert.Equal(t, "published", answer)
	hidden, err := chromedp.Run(bctx, chromedp.Evaluate[bool](`document.getElementById('human').hidden`))
	require.NoError(t, err)
	assert.True(t, hidden, "no question left on the page")
}

// startAndWait starts workflow wf through the API and reads its events until
// it ends; it returns the run id.
func startAndWait(t *testing.T, ts *httptest.Server, wf string) string {
	t.Helper()
	res, err := ts.Client().Post(ts.URL+"/api/runs", "application/json", strings.NewReader(`{"workflow":"`+wf+`","input":"Explain recursion"}`))
	require.NoError(t, err)
	defer func() { _ = res.Body.Close() }()
	require.Equal(t, http.StatusCreated, res.StatusCode)
	var out struct {
		RunID string `json:"run_id"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	ev, err := ts.Client().Get(ts.URL + "/api/runs/" + out.RunID + "/events")
	require.NoError(t, err)
	defer func() { _ = ev.Body.Close() }()
	data := make([]byte, 0, 64<<10)
	buf := make([]byte, 32<<10)
	for !strings.Contains(string(data), `"kind":"run.end"`) {
		n, err := ev.Body.Read(buf)
		data = append(data, buf[:n]...)
		require.NoError(t, err, "the stream ended before run.end")
	}
	return out.RunID
}

// A finished run's page has a "fork from here" button on each finished
// pass; clicking pass 2's starts the fork (cogloop fork's code) and opens
// its page, which names the parent (forked_from).
func TestServeForkByClickingInChromium(t *testing.T) {
	browser := chromium(t)
	ts, _ := steerFixture(t, false)
	parent := startAndWait(t, ts, "fast.yaml")
	bctx, shot := browserTab(t, browser)
	guard := chromedp.WithPollingTimeout(90 * time.Second)
	fork := `#report table.passes tr[data-pass="2"] button.fork-button`
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Navigate(ts.URL+"/runs/"+parent),
		chromedp.WaitVisible(chromedp.CSS(fork)),
	))
	point, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector('`+fork+`').dataset.fork`))
	require.NoError(t, err)
	assert.Equal(t, "improvement_loop:2", point)
	require.NoError(t, chromedp.Do(bctx,
		chromedp.Click(chromedp.CSS(fork)),
		chromedp.WaitVisible(chromedp.CSS(`#forked-from`)),
		chromedp.Poll[chromedp.Void](`document.getElementById('live-status').textContent === 'ok'`, guard),
		shot("serve-forked.png"),
	))
	spentText, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById('live-tokens').textContent + ' | ' + document.getElementById('live-cost').textContent + ' | ' + document.getElementById('budget').textContent`))
	require.NoError(t, err)
	assert.Regexp(t, `^spent \d+ of 100000 \| spent \$[0-9.]+ of \$5\.0000 \| spent \d+ of 100000 tokens, \$[0-9.]+ of \$5\.0000$`, spentText,
		"the live panel and the report say what the run spent of its budget")
	path, err := chromedp.Run(bctx, chromedp.Evaluate[string](`location.pathname`))
	require.NoError(t, err)
	assert.NotEqual(t, "/runs/"+parent, path, "the fork's own page")
	from, err := chromedp.Run(bctx, chromedp.Evaluate[string](`document.getElementById('forked-from').textContent`))
	require.NoError(t, err)
	assert.Contains(t, from, "forked from run "+parent+" at pass improvement_loop:2")
}
