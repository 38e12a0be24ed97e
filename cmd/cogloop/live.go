package main

import (
	"fmt"
	"github.com/cogloop/cogloop/agents/event"
	"io"
	"strings"
	"sync"
	"time"
)

// livePrinter is -v: each agent's reply on stderr, every line prefixed with
// the agent's path. Where the provider streams, the text is printed as it
// arrives (agent.delta events); otherwise, or for agents that did not stream,
// the reply is printed when the agent ends. Pieces of fork branches streaming
// at once are kept on separate lines: a line of one agent is ended before
// another agent's text is printed. It is safe for concurrent use.
type livePrinter struct {
	mu       sync.Mutex
	w        io.Writer
	cur      string         // the agent whose line is open
	mid      bool           // cur's line has text and no newline yet
	streamed map[string]int // path → attempt whose deltas were printed
}

func newLivePrinter(w io.Writer) *livePrinter {
	return &livePrinter{w: w, streamed: map[string]int{}}
}

func (p *livePrinter) Observe(e event.Event) {
	switch e.Kind {
	case event.AgentDelta:
		p.delta(e)
	case event.ToolResult:
		p.mu.Lock()
		defer p.mu.Unlock()
		p.lines(e.Node, toolLine(e))
	case event.OutputRepair:
		p.mu.Lock()
		defer p.mu.Unlock()
		p.lines(e.Node, fmt.Sprintf("[output_schema repair %v/%v] %s", e.Data["round"], e.Data["max_repairs"], oneLine(e.Message, 200)))
	case event.AgentEnd:
		if e.Type == "loop" {
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		_, streamed := p.streamed[e.Node]
		delete(p.streamed, e.Node)
		if p.cur == e.Node {
			p.endLine()
		}
		switch {
		case e.Error != "":
			p.lines(e.Node, "error: "+e.Error)
		case !streamed:
			p.lines(e.Node, e.Response)
		}
	}
}

func (p *livePrinter) delta(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	if p.cur != e.Node && p.mid {
		b.WriteString("\n")
		p.mid = false
	}
	if last, ok := p.streamed[e.Node]; ok && last != e.Attempt {
		if p.mid {
			b.WriteString("\n")
			p.mid = false
		}
		fmt.Fprintf(&b, "%s│ [attempt %d]\n", e.Node, e.Attempt)
	}
	p.streamed[e.Node], p.cur = e.Attempt, e.Node
	for i, line := range strings.Split(e.Response, "\n") {
		if i > 0 {
			b.WriteString("\n")
			p.mid = false
		}
		if line == "" {
			continue
		}
		if !p.mid {
			b.WriteString(e.Node + "│ ")
		}
		b.WriteString(line)
		p.mid = true
	}
	io.WriteString(p.w, b.String())
}

// endLine ends the open line; p.mu is held.
func (p *livePrinter) endLine() {
	if p.mid {
		io.WriteString(p.w, "\n")
		p.mid = false
	}
	p.cur = ""
}

// lines prints text with every line prefixed by path; p.mu is held.
func (p *livePrinter) lines(path, text string) {
	if p.mid {
		p.endLine()
	}
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(path + "│ " + line + "\n")
	}
	io.WriteString(p.w, b.String())
}

// toolLine is a tool call on one line: round, tool, arguments, then its
// result or error, each clipped.
func toolLine(e event.Event) string {
	args, _ := e.Data["args"].(string)
	tool, _ := e.Data["tool"].(string)
	out := "→ " + oneLine(e.Response, 160)
	if e.Error != "" {
		out = "→ error: " + oneLine(e.Error, 160)
	}
	return fmt.Sprintf("[tool round %v] %s %s %s (%s)", e.Data["round"], tool, oneLine(args, 120), out, e.Duration.Round(time.Millisecond))
}

// oneLine folds s onto one line and clips it to max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
