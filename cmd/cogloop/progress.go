package main

import (
	"fmt"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"io"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/mattn/go-runewidth"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is w's width in cells, or 80 when it cannot be read.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			return width
		}
	}
	return 80
}

// console is the run's stderr: one live progress line at the bottom (only on a
// terminal) and everything else written above it. Every write clears the line
// first, so nothing is ever written after its text; the next event draws it
// again. It is safe for concurrent use.
type console struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool // draw the progress line
	width int  // terminal width in cells
	shown bool // a progress line is on the screen

	// What the line shows.
	running  []string       // agents running, in start order
	branches map[string]int // fork id → branches running
	loops    map[string]string
	loopSeq  []string
	best     map[string]string // loop → "best 0.80" once a pass scored, else "no score"
}

func newConsole(w io.Writer, live bool, width int) *console {
	return &console{w: w, live: live, width: width, branches: map[string]int{}, loops: map[string]string{}, best: map[string]string{}}
}

// Write writes p above the progress line.
func (c *console) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	return c.w.Write(p)
}

// clear erases the progress line; c.mu is held.
func (c *console) clear() {
	if c.shown {
		io.WriteString(c.w, "\r\x1b[K")
		c.shown = false
	}
}

// Done erases the progress line for good.
func (c *console) Done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	c.live = false
}

// Observe updates the line from an event.
func (c *console) Observe(e event.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live {
		return
	}
	switch e.Kind {
	case event.AgentStart:
		if e.Type != "loop" { // a loop shows as its own part
			c.running = append(c.running, e.Node)
		}
	case event.AgentEnd:
		c.running = remove(c.running, e.Node)
	case event.BranchStart:
		c.branches[e.Agent]++
	case event.BranchEnd:
		if c.branches[e.Agent]--; c.branches[e.Agent] <= 0 {
			delete(c.branches, e.Agent)
		}
	case event.LoopStart:
		if _, ok := c.loops[e.Node]; !ok {
			c.loopSeq = append(c.loopSeq, e.Node)
		}
		c.loops[e.Node] = fmt.Sprintf("%s pass 1/%v", e.Node, e.Data["max_loops"])
		c.best[e.Node] = "no score"
	case event.LoopPassStart:
		// The pass running now, not the passes finished.
		c.loops[e.Node] = fmt.Sprintf("%s pass %v/%v · %s", e.Node, e.Data["loop_number"], e.Data["max_loops"], c.best[e.Node])
	case event.LoopIteration:
		if e.Data["score_found"] == true {
			c.best[e.Node] = fmt.Sprintf("best %.2f", e.Data["best"])
		}
		c.loops[e.Node] = fmt.Sprintf("%s pass %v/%v done · %s", e.Node, e.Data["loop_number"], e.Data["max_loops"], c.best[e.Node])
	case event.LoopEnd:
		delete(c.loops, e.Node)
		delete(c.best, e.Node)
		c.loopSeq = remove(c.loopSeq, e.Node)
	default:
		return
	}
	line := c.line()
	c.clear()
	if line != "" {
		io.WriteString(c.w, "\r"+line)
		c.shown = true
	}
}

// line is the progress text cut to the width (one cell is kept free so the
// cursor never wraps).
func (c *console) line() string {
	var parts []string
	for _, l := range c.loopSeq {
		parts = append(parts, "loop "+c.loops[l])
	}
	if len(c.branches) > 0 {
		forks := make([]string, 0, len(c.branches))
		for f := range c.branches {
			forks = append(forks, f)
		}
		sort.Strings(forks)
		for _, f := range forks {
			word := "branches"
			if c.branches[f] == 1 {
				word = "branch"
			}
			parts = append(parts, fmt.Sprintf("fork %s: %d %s running", f, c.branches[f], word))
		}
	} else if n := len(c.running); n > 0 {
		// The agent's id: the loops and forks around it show as their own parts.
		p := c.running[n-1]
		if len(c.loopSeq) > 0 {
			p = p[strings.LastIndex(p, fault.PathSep)+len(fault.PathSep):]
		}
		parts = append(parts, "running "+p)
	}
	if len(parts) == 0 {
		return ""
	}
	return runewidth.Truncate(strings.Join(parts, " · "), max(c.width-1, 1), "…")
}

func remove(list []string, s string) []string {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i] == s {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}
