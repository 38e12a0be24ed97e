package main

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/cogloop/cogloop/agents"
)

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress keeps one live status line on a terminal.
type progress struct {
	mu  sync.Mutex
	w   io.Writer
	len int
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) Observe(e agents.Event) {
	line := progressLine(e)
	if line == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pad := p.len - len(line)
	if pad < 0 {
		pad = 0
	}
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
	p.len = len(line)
}

// Done clears the status line.
func (p *progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.len > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.len, "")
	}
}

func progressLine(e agents.Event) string {
	switch e.Kind {
	case agents.EventAgentStart:
		return "running " + e.Node
	case agents.EventLoopIteration:
		n, _ := e.Data["loop_number"].(int)
		max, _ := e.Data["max_loops"].(int)
		score, _ := e.Data["score"].(float64)
		best, _ := e.Data["best"].(float64)
		return fmt.Sprintf("loop %s %d/%d score %.2f (best %.2f)", e.Node, n, max, score, best)
	}
	return ""
}
