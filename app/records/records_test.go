package records_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/scripted"
	"github.com/cogloop/cogloop/app/records"
)

// runWith runs the workflow at wf on input with the scripted replies in
// script (a file, or YAML text when it holds a newline), sending every event
// to obs.
func runWith(t *testing.T, wf, script, input string, obs event.Observer) {
	t.Helper()
	w, err := cogloop.Load(wf)
	require.NoError(t, err)
	data := []byte(script)
	if !strings.Contains(script, "\n") {
		data, err = os.ReadFile(script)
		require.NoError(t, err)
	}
	sc, err := scripted.Parse(data, "replies.yaml")
	require.NoError(t, err)
	_, _ = w.Run(context.Background(), input, cogloop.WithModels(sc), cogloop.WithObserver(obs), cogloop.WithRunID("r1"))
}

// record runs a workflow into a record in a fresh directory and reads it back.
func record(t *testing.T, wf, script, input string) (*records.Record, records.Dir) {
	t.Helper()
	d := records.Dir{Path: t.TempDir()}
	w, replaced, err := d.Create("r1", false, nil)
	require.NoError(t, err)
	require.False(t, replaced)
	runWith(t, wf, script, input, w.Observe)
	require.NoError(t, w.Close())
	rec, err := d.Read("r1")
	require.NoError(t, err)
	return rec, d
}

func TestRecordOfQualityExample(t *testing.T) {
	rec, _ := record(t, "../../examples/quality/workflow.yaml", "../../examples/quality/replies.yaml", "Explain recursion to a child")
	require.True(t, rec.Complete, rec.Problem)
	s := rec.Summarize()
	assert.Equal(t, "r1", s.RunID)
	assert.Equal(t, "quality-workflow", s.Workflow)
	assert.Equal(t, cogloop.StatusOK, s.Status)
	assert.Contains(t, s.Response, "Russian dolls")
	require.Len(t, s.Loops, 1)
	l := s.Loops[0]
	assert.Equal(t, "improvement_loop", l.Path)
	assert.Equal(t, 5, l.MaxLoops)
	assert.InDelta(t, 0.85, l.Threshold, 1e-9)
	assert.Equal(t, "threshold", l.StopReason)
	assert.Equal(t, 3, l.BestIteration)
	require.Len(t, l.Passes, 3)
	var scores []float64
	for _, p := range l.Passes {
		scores = append(scores, p.Score)
		require.Len(t, p.Agents, 2, "pass %d: improver and scorer", p.Number)
		assert.Equal(t, "improver", p.Agents[0].Agent)
		assert.Contains(t, p.Agents[0].Prompt, "Improve this explanation: Explain recursion")
		require.Len(t, p.Conditions, 1)
		assert.Equal(t, "score", p.Conditions[0].Kind)
	}
	assert.Equal(t, []float64{0.42, 0.71, 0.9}, scores)
	assert.False(t, l.Passes[1].Conditions[0].Fired)
	assert.True(t, l.Passes[2].Conditions[0].Fired)
	assert.Equal(t, "use a picture from everyday life.", l.Passes[0].Lessons.Improvements)
	assert.Equal(t, "abstract for a child.", l.Passes[0].Lessons.Mistakes)
	assert.True(t, l.Passes[2].Lessons.Empty())
	require.Len(t, s.Agents, 1)
	assert.Equal(t, "final_answer", s.Agents[0].Agent)
}

// A record is the --trace format: the bytes of a trace of the same events.
func TestRecordIsTraceFormat(t *testing.T) {
	var trace bytes.Buffer
	tw := records.NewWriter(&trace, "trace", nil)
	d := records.Dir{Path: t.TempDir()}
	w, _, err := d.Create("r1", false, nil)
	require.NoError(t, err)
	n := 0
	runWith(t, "../../examples/quality/workflow.yaml", "../../examples/quality/replies.yaml", "x", func(e event.Event) {
		n++
		tw.Observe(e)
		w.Observe(e)
	})
	require.NoError(t, w.Close())
	got, err := os.ReadFile(d.File("r1"))
	require.NoError(t, err)
	assert.Equal(t, trace.String(), string(got))
	assert.Equal(t, n, bytes.Count(got, []byte("\n")), "one line per event")
	assert.Greater(t, n, 20)
}

// Killed at any byte, a record reads as the whole events before the cut and
// says it is incomplete: cuts around every line end, and every 37th byte.
func TestRecordCutAnywhereIsAValidPrefix(t *testing.T) {
	rec, d := record(t, "../../examples/quality/workflow.yaml", "../../examples/quality/replies.yaml", "x")
	full, err := os.ReadFile(d.File("r1"))
	require.NoError(t, err)
	cuts := map[int]bool{}
	for i, c := range full {
		if c == '\n' || i%37 == 0 {
			cuts[i], cuts[i+1] = true, true
		}
	}
	delete(cuts, len(full))
	for cut := range cuts {
		whole := bytes.Count(full[:cut], []byte("\n"))
		r, err := records.Read(bytes.NewReader(full[:cut]))
		require.NoError(t, err, "cut at %d", cut)
		require.False(t, r.Complete, "cut at %d", cut)
		require.Len(t, r.Events, whole, "cut at %d", cut)
		for i, e := range r.Events {
			require.Equal(t, rec.Events[i].Kind, e.Kind)
		}
		if cut > 0 && full[cut-1] != '\n' {
			require.Contains(t, r.Problem, "is cut short", "cut at %d", cut)
		}
		require.Equal(t, records.StatusIncomplete, r.Summarize().Status)
	}
}

func TestNestedLoopRunsAndPasses(t *testing.T) {
	rec, _ := record(t, "../../loopnode/testdata/nested/workflow.yaml", "../../loopnode/testdata/nested/replies.yaml", "a plan")
	s := rec.Summarize()
	var paths, shapes []string
	for _, l := range s.Loops {
		paths, shapes = append(paths, l.Path), append(shapes, l.Shape)
	}
	assert.Equal(t, []string{"outer", "outer › iteration 1 › inner", "outer › iteration 2 › inner"}, paths)
	assert.Equal(t, []string{"outer", "outer › inner", "outer › inner"}, shapes)
	outer := s.Loops[0]
	require.Len(t, outer.Passes, 2)
	require.Len(t, outer.Passes[0].Agents, 1, "the outer pass's own agent is judge; drafter belongs to inner")
	assert.Equal(t, "judge", outer.Passes[0].Agents[0].Agent)
	inner1 := s.Loops[1]
	require.Len(t, inner1.Passes, 2)
	assert.Equal(t, "drafter", inner1.Passes[1].Agents[0].Agent)
	assert.Equal(t, []float64{0.5, 0.85}, []float64{inner1.Passes[0].Score, inner1.Passes[1].Score})
}

func TestFailedPassAndErrors(t *testing.T) {
	script := `improver:
  - "draft one"
  - {error: "model overloaded"}
  - "draft three"
scorer:
  - "SCORE: 0.4"
  - "SCORE: 0.5"
  - "SCORE: 0.9"
final_answer: ["done"]
`
	rec, _ := record(t, "../../examples/quality/workflow.yaml", script, "x")
	s := rec.Summarize()
	require.Len(t, s.Loops, 1)
	p := s.Loops[0].Passes
	require.Len(t, p, 3)
	assert.False(t, p[0].Failed())
	assert.True(t, p[1].Failed())
	assert.Equal(t, []string{"improver"}, p[1].FailedAgents)
	assert.Contains(t, p[1].Agents[0].Error, "model overloaded")
	require.NotEmpty(t, s.Errors)
	assert.Equal(t, "improvement_loop › iteration 2 › improver", s.Errors[0].Path)
}

// A resumed run appends to its record; another run of the same id replaces it.
func TestCreateAppendsOrReplaces(t *testing.T) {
	d := records.Dir{Path: filepath.Join(t.TempDir(), "a", "b")}
	w, replaced, err := d.Create("r", false, nil)
	require.NoError(t, err)
	assert.False(t, replaced)
	w.Observe(event.Event{Kind: event.RunStart})
	require.NoError(t, w.Close())

	w, replaced, err = d.Create("r", true, nil)
	require.NoError(t, err)
	assert.False(t, replaced)
	w.Observe(event.Event{Kind: event.RunEnd})
	require.NoError(t, w.Close())
	rec, err := d.Read("r")
	require.NoError(t, err)
	assert.Len(t, rec.Events, 2)
	assert.True(t, rec.Complete)

	w, replaced, err = d.Create("r", false, nil)
	require.NoError(t, err)
	assert.True(t, replaced)
	require.NoError(t, w.Close())
	rec, err = d.Read("r")
	require.NoError(t, err)
	assert.Empty(t, rec.Events)

	for _, bad := range []string{"", "..", "a/b", `a\b`} {
		_, _, err := d.Create(bad, false, nil)
		assert.ErrorContains(t, err, "cannot name a record file", bad)
	}
}

// write makes a record of n bytes last modified at age before now.
func write(t *testing.T, d records.Dir, id string, n int, age time.Duration) {
	t.Helper()
	require.NoError(t, os.MkdirAll(d.Path, 0o755))
	require.NoError(t, os.WriteFile(d.File(id), bytes.Repeat([]byte("x"), n), 0o644))
	at := time.Now().Add(-age)
	require.NoError(t, os.Chtimes(d.File(id), at, at))
}

func TestPruneRemovesOldestPastTheCap(t *testing.T) {
	d := records.Dir{Path: t.TempDir(), MaxBytes: 250}
	write(t, d, "old", 100, 3*time.Hour)
	write(t, d, "mid", 100, 2*time.Hour)
	write(t, d, "new", 100, time.Hour)
	require.NoError(t, os.WriteFile(filepath.Join(d.Path, "notes.txt"), bytes.Repeat([]byte("y"), 1000), 0o644))
	removed, err := d.Prune("new")
	require.NoError(t, err)
	assert.Equal(t, []string{"old"}, removed)
	assert.NoFileExists(t, d.File("old"))
	assert.FileExists(t, filepath.Join(d.Path, "notes.txt"), "only records are pruned")

	// The record being written is kept even when it alone is past the cap.
	d.MaxBytes = 50
	removed, err = d.Prune("mid")
	require.NoError(t, err)
	assert.Equal(t, []string{"new"}, removed)
	assert.FileExists(t, d.File("mid"))

	removed, err = records.Dir{Path: d.Path}.Prune("")
	require.NoError(t, err)
	assert.Empty(t, removed, "the default cap is 200 MB")
	assert.Equal(t, int64(200<<20), records.DefaultMaxBytes)
}

func TestFind(t *testing.T) {
	d := records.Dir{Path: t.TempDir()}
	write(t, d, "20260101T000000Z-aa", 1, 2*time.Hour)
	write(t, d, "20260101T000000Z-ab", 1, time.Hour)
	write(t, d, "other", 1, 3*time.Hour)
	for _, tc := range []struct{ name, want, err string }{
		{"other", "other", ""},
		{"oth", "other", ""},
		{"latest", "20260101T000000Z-ab", ""},
		{"20260101T000000Z-aa", "20260101T000000Z-aa", ""},
		{"2026", "", "ambiguous"},
		{"zzz", "", "no such run record"},
		{d.File("other"), "other", ""},
	} {
		got, err := d.Find(tc.name)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, d.File(tc.want), got, tc.name)
	}
	_, err := d.Find("zzz")
	assert.True(t, errors.Is(err, records.ErrNotFound))
	_, err = records.Dir{Path: filepath.Join(d.Path, "none")}.Find("latest")
	assert.ErrorIs(t, err, records.ErrNotFound)
}

func TestListNewestFirst(t *testing.T) {
	d := records.Dir{Path: t.TempDir()}
	for i, id := range []string{"a", "b"} {
		w, _, err := d.Create(id, false, nil)
		require.NoError(t, err)
		start := time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC)
		w.Observe(event.Event{Kind: event.RunStart, Run: id, Node: "wf", Time: start})
		if id == "a" {
			w.Observe(event.Event{Kind: event.RunEnd, Run: id, Time: start.Add(time.Second), Duration: time.Second,
				Data: map[string]any{"status": "failed"}})
		}
		require.NoError(t, w.Close())
		at := time.Now().Add(time.Duration(i-2) * time.Hour)
		require.NoError(t, os.Chtimes(d.File(id), at, at))
	}
	list, err := d.List(0)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "b", list[0].RunID)
	assert.Equal(t, records.StatusIncomplete, list[0].Status)
	assert.Equal(t, "failed", list[1].Status)
	assert.Equal(t, time.Second, list[1].Duration)
}

func TestWriterKeepsFirstError(t *testing.T) {
	var heard []error
	w := records.NewWriter(failing{}, "trace x", func(err error) { heard = append(heard, err) })
	w.Observe(event.Event{Kind: event.RunStart})
	w.Observe(event.Event{Kind: event.RunEnd})
	require.Len(t, heard, 1)
	assert.EqualError(t, w.Close(), "write trace x: disk full")
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A resumed run appends to the record: its loop goes on with the first part's
// passes, also when the first part's loop had ended before the process died.
func TestResumedLoopContinues(t *testing.T) {
	start := func(resumed int) event.Event {
		return event.Event{Kind: event.LoopStart, Node: "l", Agent: "l", Data: map[string]any{"max_loops": 3, "resumed_after": resumed}}
	}
	pass := func(n int) event.Event {
		return event.Event{Kind: event.LoopIteration, Node: "l", Data: map[string]any{"loop_number": n, "completed": true, "score": 0.1 * float64(n), "score_found": true}}
	}
	end := event.Event{Kind: event.LoopEnd, Node: "l", Data: map[string]any{"stop_reason": "max_loops", "loops_completed": 3}}
	for name, evs := range map[string][]event.Event{
		"killed in pass 3":   {start(0), pass(1), pass(2), start(2), pass(3), end},
		"killed after l end": {start(0), pass(1), pass(2), pass(3), end, start(3), end},
	} {
		s := records.Summarize(evs)
		require.Len(t, s.Loops, 1, name)
		l := s.Loops[0]
		assert.True(t, l.Ended, name)
		assert.Equal(t, "max_loops", l.StopReason, name)
		require.Len(t, l.Passes, 3, name)
		for i, p := range l.Passes {
			assert.Equal(t, i+1, p.Number, name)
		}
	}
}

// Without run.end, a record's tokens are its model calls' (the hostile replies
// of the report tests carry usage: 623 tokens in all).
func TestIncompleteRecordCountsItsCalls(t *testing.T) {
	var buf records.Buffer
	runWith(t, "../../examples/quality/workflow.yaml", "../report/testdata/hostile.yaml", "x", buf.Observe)
	evs := buf.Events()
	full := records.Summarize(evs)
	require.Equal(t, 623, full.Usage.Total())
	cut := records.Summarize(evs[:len(evs)-1])
	assert.Equal(t, records.StatusIncomplete, cut.Status)
	assert.Equal(t, full.Usage, cut.Usage, "every model call is recorded before run.end")
}

func TestListReadsTheNewestOnly(t *testing.T) {
	d := records.Dir{Path: t.TempDir()}
	// An older record that cannot be opened (a dangling link): List(1) must
	// not open it, List(0) does.
	require.NoError(t, os.Symlink(filepath.Join(d.Path, "gone"), d.File("old")))
	w, _, err := d.Create("new", false, nil)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	future := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(d.File("new"), future, future))
	_, err = d.List(0)
	require.Error(t, err)
	list, err := d.List(1)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, "new", list[0].RunID)
}

// A run killed in the middle of a line, then resumed: the resumed run's
// events start a line of their own, the cut line is left out and named, and
// the record is complete.
func TestResumeAfterCutLine(t *testing.T) {
	d := records.Dir{Path: t.TempDir()}
	w, _, err := d.Create("k", false, nil)
	require.NoError(t, err)
	w.Observe(event.Event{Kind: event.RunStart, Run: "k"})
	w.Observe(event.Event{Kind: event.AgentStart, Node: "a"})
	require.NoError(t, w.Close())
	data, err := os.ReadFile(d.File("k"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(d.File("k"), data[:len(data)-10], 0o600)) // killed mid-line

	w, _, err = d.Create("k", true, nil)
	require.NoError(t, err)
	w.Observe(event.Event{Kind: event.RunStart, Run: "k"})
	w.Observe(event.Event{Kind: event.RunEnd, Run: "k", Data: map[string]any{"status": "ok"}})
	require.NoError(t, w.Close())

	rec, err := d.Read("k")
	require.NoError(t, err)
	assert.True(t, rec.Complete)
	assert.Len(t, rec.Events, 3)
	assert.Equal(t, []string{"line 2 is not an event (cut short by a killed run?) and is left out"}, rec.Skipped)
	s := rec.Summarize()
	assert.Equal(t, "ok", s.Status)
	assert.Equal(t, rec.Skipped, s.Skipped)
}
