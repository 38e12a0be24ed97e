package llm

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/secrets"
)

// Coalescing of agent.delta events: a piece is emitted when this many bytes
// are ready, or when deltaInterval has passed since the last one; the rest
// waits for the next piece or the end of the call. The event rate is bounded
// by both, whatever the provider's chunk size.
const (
	deltaBytes    = 256
	deltaInterval = 50 * time.Millisecond
)

// deltas turns a streamed reply into agent.delta events. A secret may arrive
// split across chunks, so the last len(longest secret)-1 bytes are held back
// until more text (or the end) shows whether they begin a secret; what is
// emitted is scrubbed as the final reply is, and the pieces of one call
// concatenate to it. It is used by one call's goroutine only.
type deltas struct {
	run     *agents.Run
	node    string
	agent   string
	attempt int
	secrets []secrets.Secret
	hold    int // bytes held back: len(longest secret)-1
	now     func() time.Time

	raw   string // received, not yet scrubbed
	ready strings.Builder
	last  time.Time
}

func newDeltas(in agents.Input, agent string, attempt int, secrets []secrets.Secret) *deltas {
	d := &deltas{run: in.Run, node: in.Path, agent: agent, attempt: attempt, now: time.Now,
		secrets: in.Run.Secrets(secrets...)}
	for _, s := range d.secrets {
		d.hold = max(d.hold, len(s.Reveal())-1)
	}
	return d
}

// write takes the next chunk of the reply.
func (d *deltas) write(chunk string) {
	d.raw += chunk
	cut := d.safeCut()
	if cut > 0 {
		d.ready.WriteString(secrets.Scrub(d.raw[:cut], d.secrets...))
		d.raw = d.raw[cut:]
	}
	if d.ready.Len() > 0 && (d.ready.Len() >= deltaBytes || d.now().Sub(d.last) >= deltaInterval) {
		d.emit()
	}
}

// close emits what is left: the call is over, so nothing more can complete a
// secret.
func (d *deltas) close() {
	d.ready.WriteString(secrets.Scrub(d.raw, d.secrets...))
	d.raw = ""
	if d.ready.Len() > 0 {
		d.emit()
	}
}

// safeCut is how much of d.raw can be scrubbed and let go now: all but the
// held-back tail, moved back to a rune boundary and forward past any whole
// secret the cut would split.
func (d *deltas) safeCut() int {
	cut := len(d.raw) - d.hold
	for cut > 0 && cut < len(d.raw) && !utf8.RuneStart(d.raw[cut]) {
		cut--
	}
	if cut <= 0 {
		return 0
	}
	for moved := true; moved; {
		moved = false
		for _, s := range d.secrets {
			v := s.Reveal()
			if v == "" {
				continue
			}
			for from := 0; ; {
				i := strings.Index(d.raw[from:], v)
				if i < 0 || from+i >= cut {
					break
				}
				if end := from + i + len(v); end > cut {
					cut, moved = end, true
				}
				from += i + 1
			}
		}
	}
	return cut
}

func (d *deltas) emit() {
	d.run.Emit(event.Event{Kind: event.AgentDelta, Node: d.node, Agent: d.agent, Attempt: d.attempt,
		Response: d.ready.String()})
	d.ready.Reset()
	d.last = d.now()
}
