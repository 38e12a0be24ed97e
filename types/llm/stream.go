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
// split across chunks, or spaced out, or in another case (secrets.Scrub
// catches those near-copies), so the end of what arrived is held back until
// more text (or the end) shows whether it begins one: the last
// secrets.Letters-1 letters (with the whitespace between them, up to
// secrets.MaxGap a run), and all of a near-copy the held part touches. What is
// emitted is scrubbed as the final reply is, and the pieces of one call
// concatenate to it. It is used by one call's goroutine at a time.
type deltas struct {
	run     *agents.Run
	node    string
	agent   string
	attempt int
	secrets []secrets.Secret
	hold    int // letters held back: secrets.Letters - 1
	now     func() time.Time

	raw   string // received, not yet scrubbed
	ready strings.Builder
	last  time.Time
}

func newDeltas(in agents.Input, agent string, attempt int, keys []secrets.Secret) *deltas {
	d := &deltas{run: in.Run, node: in.Path, agent: agent, attempt: attempt, now: time.Now,
		secrets: in.Run.Secrets(keys...)}
	d.hold = max(0, secrets.Letters(d.secrets...)-1)
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
// held-back tail, moved back to the start of any near-copy of a secret that
// reaches the tail (more text may extend it), then to a rune boundary.
func (d *deltas) safeCut() int {
	if len(d.secrets) == 0 {
		return len(d.raw)
	}
	cut, letters, gap := len(d.raw), 0, 0
	for cut > 0 && letters < d.hold {
		c := d.raw[cut-1]
		if !secrets.IsSpace(c) {
			letters, gap = letters+1, 0
		} else if gap++; gap > secrets.MaxGap {
			break // a run of whitespace no near-copy crosses
		}
		cut--
	}
	for _, sp := range secrets.Spans(d.raw, d.secrets...) {
		if sp[0] < cut && sp[1] >= cut {
			cut = sp[0]
		}
	}
	for cut > 0 && cut < len(d.raw) && !utf8.RuneStart(d.raw[cut]) {
		cut--
	}
	return cut
}

func (d *deltas) emit() {
	d.run.Emit(event.Event{Kind: event.AgentDelta, Node: d.node, Agent: d.agent, Attempt: d.attempt,
		Response: d.ready.String()})
	d.ready.Reset()
	d.last = d.now()
}
