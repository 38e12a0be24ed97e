package main

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/cogloop/cogloop/agents/event"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create it")
	assert.Equal(t, string(want), got)
}

// screen replays what a terminal shows after writes with \r and ESC[K: each
// line's final text, so the golden files are readable and a stray character
// left behind by a shorter redraw would show.
func screen(raw string) string {
	var lines []string
	var cur []rune
	col := 0
	for i := 0; i < len(raw); {
		switch {
		case strings.HasPrefix(raw[i:], "\x1b[K"):
			cur = cur[:col]
			i += 3
			continue
		case raw[i] == '\r':
			col = 0
		case raw[i] == '\n':
			lines = append(lines, string(cur))
			cur, col = nil, 0
		default:
			r := []rune(raw[i:])[0]
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			col++
			i += len(string(r))
			continue
		}
		i++
	}
	return strings.Join(append(lines, string(cur)), "\n") + "⏎\n"
}

// frames records the progress line after each event, as a terminal of the
// console's width would show it.
func frames(width int, events []event.Event) (string, []string) {
	var buf bytes.Buffer
	c := newConsole(&buf, true, width)
	var shots []string
	for _, e := range events {
		c.Observe(e)
		shots = append(shots, screen(buf.String()))
	}
	return buf.String(), shots
}

func TestProgressLineGolden(t *testing.T) {
	events := []event.Event{
		{Kind: event.AgentStart, Node: "révision", Agent: "révision", Type: "loop"},
		{Kind: event.LoopStart, Node: "révision", Data: map[string]any{"max_loops": 5, "threshold": 0.85}},
		{Kind: event.AgentStart, Node: "révision › iteration 1 › 作家", Agent: "作家"},
		{Kind: event.AgentEnd, Node: "révision › iteration 1 › 作家", Agent: "作家"},
		{Kind: event.AgentStart, Node: "révision › iteration 1 › reviews", Agent: "reviews", Type: "fork"},
		{Kind: event.BranchStart, Node: "révision › iteration 1 › reviews › branch 1", Agent: "reviews"},
		{Kind: event.BranchStart, Node: "révision › iteration 1 › reviews › branch 2", Agent: "reviews"},
		{Kind: event.BranchStart, Node: "révision › iteration 1 › reviews › branch 3", Agent: "reviews"},
		{Kind: event.AgentStart, Node: "révision › iteration 1 › reviews › branch 1 › critic", Agent: "critic"},
		{Kind: event.BranchEnd, Node: "révision › iteration 1 › reviews › branch 2", Agent: "reviews"},
		{Kind: event.AgentEnd, Node: "révision › iteration 1 › reviews › branch 1 › critic", Agent: "critic"},
		{Kind: event.BranchEnd, Node: "révision › iteration 1 › reviews › branch 1", Agent: "reviews"},
		{Kind: event.BranchEnd, Node: "révision › iteration 1 › reviews › branch 3", Agent: "reviews"},
		{Kind: event.AgentEnd, Node: "révision › iteration 1 › reviews", Agent: "reviews"},
		{Kind: event.LoopIteration, Node: "révision", Data: map[string]any{"loop_number": 1, "max_loops": 5, "score": 0.72, "best": 0.72}},
		{Kind: event.AgentStart, Node: "révision › iteration 2 › 作家", Agent: "作家"},
	}
	for _, width := range []int{40, 100} {
		raw, shots := frames(width, events)
		for i, s := range shots {
			for _, line := range strings.Split(strings.TrimSuffix(s, "⏎\n"), "\n") {
				assert.Less(t, runewidth.StringWidth(line), width, "frame %d never reaches the last column: %q", i, line)
			}
		}
		assert.NotContains(t, raw, "\n", "the progress line never starts a new line")
		golden(t, fmt.Sprintf("progress_w%d.golden", width), strings.Join(shots, ""))
	}
}

// Anything written to the console clears the progress line first, so the line
// never prefixes the answer or a warning.
func TestConsoleClearsTheLineBeforeWriting(t *testing.T) {
	var buf bytes.Buffer
	c := newConsole(&buf, true, 60)
	c.Observe(event.Event{Kind: event.AgentStart, Node: "editorRound"})
	_, err := c.Write([]byte("warning: something\n"))
	require.NoError(t, err)
	c.Observe(event.Event{Kind: event.AgentEnd, Node: "editorRound"})
	c.Done()
	assert.Equal(t, "warning: something\n⏎\n", screen(buf.String()))
	assert.Equal(t, "\rrunning editorRound\r\x1b[Kwarning: something\n", buf.String())
}

// Off a terminal the console draws nothing and passes writes through.
func TestConsoleWithoutTerminal(t *testing.T) {
	var buf bytes.Buffer
	c := newConsole(&buf, false, 80)
	c.Observe(event.Event{Kind: event.AgentStart, Node: "a"})
	_, _ = c.Write([]byte("x\n"))
	c.Done()
	assert.Equal(t, "x\n", buf.String())
	assert.False(t, isTerminal(&buf))
}
