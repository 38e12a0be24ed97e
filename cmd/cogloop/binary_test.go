package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cogloop/cogloop/internal/clibin"
	"github.com/cogloop/cogloop/internal/nettest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proc is the built binary running, its stderr read line by line.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
	mu    sync.Mutex
	all   []string
}

func start(t *testing.T, stdout io.Writer, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(clibin.Path(t), args...)
	cmd.Stdout = stdout
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return newProc(cmd, errPipe)
}

// newProc reads the started cmd's stderr line by line.
func newProc(cmd *exec.Cmd, stderr io.Reader) *proc {
	p := &proc{cmd: cmd, lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 4<<20), 4<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.all = append(p.all, sc.Text())
			p.mu.Unlock()
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	return p
}

// waitLine waits for a stderr line containing every one of ss. The deadline only keeps a
// broken binary from hanging the test; nothing is asserted about time.
func (p *proc) waitLine(t *testing.T, ss ...string) {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case line, ok := <-p.lines:
			require.True(t, ok, "stderr closed before a line with %q; stderr:\n%s", ss, p.stderr())
			if containsAll(line, ss) {
				return
			}
		case <-deadline:
			t.Fatalf("no stderr line with %q; stderr:\n%s", ss, p.stderr())
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func (p *proc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.all, "\n")
}

// wait drains stderr and returns the exit code.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	for range p.lines {
	}
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(t, err)
	return 0
}

// slowScript makes the editor wait an hour, so the run is surely in flight.
func slowScript(t *testing.T) string {
	return writeFile(t, t.TempDir(), "slow.yaml", "writer: [draft]\neditor: [{text: done, delay: 1h}]\n")
}

// SIGINT and SIGTERM stop a run in flight with 130 and 143.
func TestSignalsExitCodes(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			var out strings.Builder
			p := start(t, &out, "run", hello, "x", "--script", slowScript(t), "--trace", "-")
			p.waitLine(t, `"kind":"agent.start"`, `"agent":"editor"`)
			require.NoError(t, p.cmd.Process.Signal(tc.sig))
			assert.Equal(t, tc.code, p.wait(t), p.stderr())
			assert.Empty(t, out.String(), "no answer from an interrupted run")
			assert.Contains(t, p.stderr(), "run failed")
			assert.Contains(t, p.stderr(), "interrupt again to exit at once")
		})
	}
}

// A second SIGINT exits at once even while the process is stuck: here in
// writing a large answer to a stdout nobody reads.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	big := strings.Repeat("y", 1<<20)
	script := writeFile(t, t.TempDir(), "big.yaml", "writer: [draft]\neditor: ['"+big+"']\n")
	cmd := exec.Command(clibin.Path(t), "run", hello, "x", "--script", script, "--trace", "-")
	stdout, err := cmd.StdoutPipe() // never read: the answer's write blocks
	require.NoError(t, err)
	defer func() { _ = stdout.Close() }() // read end of a pipe
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p := newProc(cmd, errPipe)
	p.waitLine(t, `"kind":"run.end"`)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	p.waitLine(t, "interrupt again to exit at once")
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	assert.Equal(t, 130, p.wait(t))
}

// kill -9 in the middle of a run leaves a trace of complete JSON lines.
func TestTraceSurvivesKill9(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	p := start(t, io.Discard, "run", hello, "x", "--script", slowScript(t), "--trace", trace, "-v")
	p.waitLine(t, "writer│ draft") // the writer finished: its events are in the trace
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	assert.Equal(t, -1, p.wait(t))
	data, err := os.ReadFile(trace)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(string(data), "\n"), "the last line is complete")
	var kinds []string
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var e map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		if e["kind"] != "agent.delta" { // -v streams the reply in between
			kinds = append(kinds, e["kind"].(string))
		}
	}
	require.GreaterOrEqual(t, len(kinds), 3)
	assert.Equal(t, []string{"run.start", "agent.start", "agent.end"}, kinds[:3])
	assert.NotContains(t, kinds, "run.end")
}

// An unreachable Redis is one error line, not go-redis's own dial logs too.
func TestUnreachableRedisIsOneLine(t *testing.T) {
	addr := nettest.ClosedAddr(t)
	for _, args := range [][]string{
		{"status", "some-run", "--redis", "redis://" + addr},
		{"run", "../../examples/hello/workflow.yaml", "x", "--script", "../../examples/hello/replies.yaml", "--redis", "redis://" + addr, "--no-record"},
	} {
		cmd := exec.Command(clibin.Path(t), args...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v must fail", args)
		assert.NotEqual(t, 0, ee.ExitCode())
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		assert.Len(t, lines, 1, "%v: %s", args, out)
		assert.Contains(t, string(out), addr)
		assert.NotContains(t, string(out), "pool.go")
	}
}
