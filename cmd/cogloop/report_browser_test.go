package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/cogloop/cogloop/internal/htmlnode"
)

// chromium finds the browser: under CI=true a missing one fails the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; CI must install it (apt-get install -y chromium, as .ci/run does)")
	}
	t.Skip("chromium is not installed (apt-get install -y chromium); the report's browser test needs it")
	return ""
}

// headless runs chromium on url with the given extra flags and returns its stdout.
func headless(t *testing.T, browser, url string, flags ...string) []byte {
	t.Helper()
	// A guard against a hung browser, not a timing assertion.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--hide-scrollbars"}, flags...)
	cmd := exec.CommandContext(ctx, browser, append(args, url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	require.NoError(t, cmd.Run(), "chromium: %s", stderr.String())
	return stdout.Bytes()
}

// The report of a run of examples/quality whose replies try to inject markup,
// loaded in a real headless Chromium: a screenshot is kept, and the DOM the
// browser built has one chart point per pass and no element from a reply.
func TestReportInChromium(t *testing.T) {
	browser := chromium(t)
	page := filepath.Join(t.TempDir(), "report.html")
	code, _, errs := runCLI(t, "run", qualityWF, "Explain recursion to a child", "--script", "../../app/report/testdata/hostile.yaml",
		"--no-record", "--report", page)
	require.Equal(t, exitOK, code, errs)
	url := "file://" + page

	artifacts := os.Getenv("COGLOOP_ARTIFACTS")
	if artifacts == "" {
		artifacts = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(artifacts, 0o755))
	shot := filepath.Join(artifacts, "report.png")
	headless(t, browser, url, "--screenshot="+shot, "--window-size=1200,2400")
	t.Logf("screenshot of the report: %s", shot)
	f, err := os.Open(shot)
	require.NoError(t, err)
	img, err := png.Decode(f)
	_ = f.Close() // read-only
	require.NoError(t, err, "the screenshot is a PNG")
	assert.Equal(t, 1200, img.Bounds().Dx())
	assert.Equal(t, 2400, img.Bounds().Dy())

	dom := headless(t, browser, url, "--dump-dom")
	doc, err := htmlnode.Parse(bytes.NewReader(dom))
	require.NoError(t, err)
	for _, tag := range []string{"script", "img", "iframe", "a"} {
		assert.Empty(t, htmlnode.All(doc, htmlnode.Tag(tag)), "a reply made a <%s> element", tag)
	}
	assert.Empty(t, htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "id") == "injected" }))
	assert.Contains(t, htmlnode.Text(doc), "<script>alert(1)</script><img src=x onerror=alert(2)>", "the reply, as text")

	svgs := htmlnode.All(doc, htmlnode.Tag("svg"))
	require.Len(t, svgs, 1, "one chart; the answer's <svg onload> is text")
	assert.Equal(t, "improvement_loop", htmlnode.Attr(svgs[0], "data-loop"))
	points := htmlnode.All(svgs[0], htmlnode.Class("circle", "pass"))
	require.Len(t, points, 4, "one point per pass")
	for i, p := range points {
		assert.Equal(t, []string{"1", "2", "3", "4"}[i], htmlnode.Attr(p, "data-pass"))
		assert.Equal(t, i == 1, htmlnode.HasClass(p, "failed"), "pass %d", i+1)
		assert.Equal(t, i == 3, htmlnode.HasClass(p, "best"), "pass %d", i+1)
	}
	require.Len(t, htmlnode.All(svgs[0], htmlnode.Class("line", "threshold")), 1)
	status := htmlnode.All(doc, func(n *html.Node) bool { return htmlnode.Attr(n, "id") == "status" })
	require.Len(t, status, 1)
	assert.Equal(t, "ok", htmlnode.Text(status[0]))
}
