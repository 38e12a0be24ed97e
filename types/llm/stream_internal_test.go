package llm

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/secrets"
)

// testDeltas returns a delta writer on a fixed clock and the events it emits.
func testDeltas(secrets ...secrets.Secret) (*deltas, *time.Time, *[]string) {
	var got []string
	run := &agents.Run{ID: "r", Observe: func(e event.Event) {
		if e.Kind == event.AgentDelta {
			got = append(got, e.Response)
		}
	}}
	now := time.Unix(1700000000, 0)
	d := newDeltas(agents.Input{Run: run, Path: "p"}, "p", 1, secrets)
	d.now = func() time.Time { return now }
	return d, &now, &got
}

// Every way of cutting a reply in two or three chunks: no emitted piece holds
// the secret or a part of it that a later chunk completes, and the pieces
// concatenate to the scrubbed reply.
func TestDeltasNeverLeakASplitSecret(t *testing.T) {
	key := secrets.NewNamed("K", "sk-0123456789")
	short := secrets.NewNamed("S", "pw-abcdefgh")
	reply := "a sk-0123456789 b pw-abcdefgh sk-0123456789sk-0123456789 ünïcode é"
	want := secrets.Scrub(reply, key, short)
	for i := 0; i <= len(reply); i++ {
		for j := i; j <= len(reply); j++ {
			d, now, got := testDeltas(key, short)
			for _, c := range []string{reply[:i], reply[i:j], reply[j:]} {
				*now = now.Add(time.Second) // every chunk may be emitted at once
				d.write(c)
			}
			d.close()
			joined := strings.Join(*got, "")
			require.Equal(t, want, joined, "cut at %d,%d", i, j)
			for _, piece := range *got {
				for _, s := range []string{"sk-0", "123456789", "pw-a", "bcdefgh"} {
					require.NotContains(t, piece, s, "cut at %d,%d: %q", i, j, *got)
				}
			}
		}
	}
}

// Pieces are coalesced: on a clock that does not move, one event per 256
// bytes (after the first); once 50 ms have passed, the next chunk goes out.
func TestDeltasAreCoalesced(t *testing.T) {
	d, now, got := testDeltas()
	for range 1000 {
		d.write("x")
	}
	assert.Len(t, *got, 1+999/deltaBytes, "the first byte at once, then every 256 bytes")
	before := len(*got)
	d.write("y")
	assert.Len(t, *got, before, "within 50 ms a small piece waits")
	*now = now.Add(deltaInterval)
	d.write("z")
	assert.Len(t, *got, before+1, "after 50 ms it goes out")
	d.close()
	assert.Equal(t, strings.Repeat("x", 1000)+"yz", strings.Join(*got, ""))
}

// stepBody is a response body that returns its parts one Read at a time,
// then EOF, and records whether it was read to the end before Close.
type stepBody struct {
	parts   []string
	atEOF   bool
	closed  bool
	eofThen bool // EOF had been read when Close came
}

func (b *stepBody) Read(p []byte) (int, error) {
	if len(b.parts) == 0 {
		b.atEOF = true
		return 0, io.EOF
	}
	n := copy(p, b.parts[0])
	b.parts[0] = b.parts[0][n:]
	if b.parts[0] == "" {
		b.parts = b.parts[1:]
	}
	return n, nil
}

func (b *stepBody) Close() error { b.closed, b.eofThen = true, b.atEOF; return nil }

// After [DONE], Close reads the body to its end (so that net/http keeps the
// connection) when the reader of the stream stopped at [DONE]; a stream
// given up before it ended is not read further.
func TestCloseReadsToTheEndAfterDone(t *testing.T) {
	for _, done := range []bool{true, false} {
		body := &stepBody{parts: []string{"data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n", "data: [DONE]\n\n", "\n", ""}}
		st := &streamText{limit: 1 << 20}
		ex := &exchange{text: st, abort: func() {}}
		r := newSSEReader(body, st, ex)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			// langchaingo's client stops at [DONE]; here the other
			// reader gives up at the first line it sees.
			if sc.Text() == "data: [DONE]" || !done {
				break
			}
		}
		require.NoError(t, r.Close())
		assert.True(t, body.closed)
		assert.Equal(t, done, body.eofThen, "done %t: read to the end before Close", done)
		text, ended := st.finish()
		assert.Equal(t, done, ended)
		assert.Equal(t, "hi", text)
	}
}
