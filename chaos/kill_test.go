package chaos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/app/records"
	"github.com/cogloop/cogloop/internal/clibin"
	"github.com/cogloop/cogloop/memory/redis"
	"github.com/cogloop/cogloop/memory/redis/redistest"
)

// killBudget binds: ten calls fit, a redo of pass 3 may not.
const killBudget = 280

// spent sums the tokens the leaf agents reported in a trace.
func spent(events []event.Event) int {
	total := 0
	for _, e := range events {
		if e.Kind == event.AgentEnd && (e.Agent == "writer" || e.Agent == "scorer") && e.Usage != nil {
			total += e.Usage.Total()
		}
	}
	return total
}

// inPass3 reports whether e happens in pass 3 of the loop.
func inPass3(e event.Event) bool {
	if e.Kind == event.LoopIteration {
		n, _ := e.Data["loop_number"].(float64)
		return n == 3
	}
	return strings.Contains(e.Node, "iteration 3 ›")
}

// The cogloop binary killed with -9 in pass 3 — after each of the first five
// trace lines of that pass, with replies at once and with a 3ms delay (ten
// trials: every kill point both ways; the twenty random trials this replaced
// hit eleven of these points) — then resumed: every resumed run ends, its
// history in Redis has one entry per pass with the reported scores, and the
// two processes together never spend more than the loop's budget.
func TestKillNineInPass3(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := redistest.Start(t)
	bin := clibin.Path(t)
	dir := t.TempDir()
	wf := filepath.Join(dir, "wf.yaml")
	require.NoError(t, os.WriteFile(wf, fmt.Appendf(nil, chaosWorkflow, killBudget), 0o600))
	runs := records.Dir{Path: filepath.Join(dir, "runs")}
	t.Setenv("COGLOOP_RECORD_DIR", runs.Path) // the processes record there, not in the source tree
	for trial := range 10 {
		delay := []string{"0s", "3ms"}[trial%2]
		at := trial / 2 // which trace line of pass 3 the kill follows
		script := filepath.Join(dir, fmt.Sprintf("replies-%d.yaml", trial))
		require.NoError(t, os.WriteFile(script, []byte(chaosScript(delay)), 0o600))
		ns := fmt.Sprintf("kill%d", trial)
		t.Run(fmt.Sprintf("trial_%d_after_line_%d_delay_%s", trial, at, delay), func(t *testing.T) {
			first := killInPass3(t, bin, wf, script, srv.URL(), ns, at)

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			trace := filepath.Join(t.TempDir(), "resume.jsonl")
			cmd := exec.CommandContext(ctx, bin, "run", wf, "x", "--redis", srv.URL(), "--namespace", ns,
				"--resume", "k", "--script", script, "--json", "--trace", trace)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			require.NoError(t, cmd.Run(), "the resumed run must end well: %s", errb.String())
			var doc struct {
				Outputs map[string]map[string]any `json:"outputs"`
			}
			require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
			loop := doc.Outputs["l"]
			past := loop["past_loops"].([]any)
			assert.Len(t, past, int(loop["loops_completed"].(float64)))
			assert.Contains(t, []any{"max_loops", "budget"}, loop["stop_reason"])

			store, err := redis.New(context.Background(), srv.URL(), redis.Patient(ns))
			require.NoError(t, err)
			defer func() { _ = store.Close() }() // writes are synchronous; Close only releases the connection
			// A process killed after it stored a pass's history entry but
			// before it checkpointed the pass leaves that entry behind; when
			// the budget then refuses the pass's redo, the resumed run reports
			// one pass fewer than the history holds (a refused pass is not
			// completed), so one more entry may follow the reported ones.
			beyond := 0
			if loop["stop_reason"] == "budget" {
				beyond = 1
			}
			checkHistoryBeyond(t, store, "k", past, beyond)

			second := readTrace(t, trace)
			assert.LessOrEqual(t, spent(first)+spent(second), killBudget, "the budget holds across the kill")

			// The killed run's record goes on with the resumed run: one loop, its
			// passes in order once each.
			rec, err := runs.Read("k")
			require.NoError(t, err)
			require.True(t, rec.Complete, rec.Problem)
			sum := rec.Summarize()
			assert.Equal(t, "ok", sum.Status)
			require.Len(t, sum.Loops, 1)
			for i, p := range sum.Loops[0].Passes {
				assert.Equal(t, i+1, p.Number)
			}
			assert.GreaterOrEqual(t, len(sum.Loops[0].Passes), int(loop["loops_completed"].(float64)))
		})
	}
}

// killInPass3 starts a run and kills it with -9 right after the at-th trace
// line of pass 3; it returns the events the run traced.
func killInPass3(t *testing.T, bin, wf, script, url, ns string, at int) []event.Event {
	t.Helper()
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer func() { _ = pr.Close() }() // read end of a pipe
	// Every trial's run is "k" (in its own namespace) and records into the
	// one record dir: --replace-run starts the record over.
	cmd := exec.Command(bin, "run", wf, "x", "--redis", url, "--namespace", ns, "--run-id", "k", "--replace-run",
		"--script", script, "--trace", "/dev/fd/3")
	cmd.ExtraFiles = []*os.File{pw}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	require.NoError(t, pw.Close()) // the child holds its own copy
	var events []event.Event
	seen := 0
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e event.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e), sc.Text())
		events = append(events, e)
		if inPass3(e) {
			if seen == at {
				require.NoError(t, cmd.Process.Kill())
				break
			}
			seen++
		}
	}
	_ = cmd.Wait()
	_, _ = io.Copy(io.Discard, pr)
	require.Equal(t, at, seen, "the run ended before line %d of pass 3: %s", at, errb.String())
	return events
}

func readTrace(t *testing.T, path string) []event.Event {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var events []event.Event
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var e event.Event
		require.NoError(t, json.Unmarshal(line, &e))
		events = append(events, e)
	}
	return events
}
