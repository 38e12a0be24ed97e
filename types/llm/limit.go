package llm

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// defaultMaxReplyBytes bounds a model reply when neither the agent nor the
// workflow's orchestrator sets max_reply_bytes: 4 MiB.
const defaultMaxReplyBytes int64 = 4 << 20

// maxReplyBytesLimit is the largest max_reply_bytes a workflow may set (1 GiB).
const maxReplyBytesLimit int64 = 1 << 30

// streamFraming bounds a streamed reply's raw body at this many times its
// limit (plus streamSlack): a stream's framing (one JSON object per piece) is
// many times its text. The text itself is held to the limit.
const (
	streamFraming = 32
	streamSlack   = 64 << 10
)

// errTooLarge is what the capped body's Read returns past the limit; the
// call's error is built from the exchange, which knows the agent and limit.
var errTooLarge = errors.New("the reply is larger than max_reply_bytes")

// replyLimit is the limit a request asks for, or the default.
func replyLimit(n int64) int64 {
	if n <= 0 {
		return defaultMaxReplyBytes
	}
	return n
}

// tooLarge is the error of a call whose reply went past limit: it names the
// agent, the limit and the key to raise. It is not retried (a model asked
// again tends to answer as long again) and not fatal: the agent fails, and the
// step's on_error (or the loop's) decides what the run does.
func tooLarge(what, agent string, limit int64, streamed bool) error {
	part := "reply"
	if streamed {
		part = "streamed reply"
	}
	who := "the agent"
	if agent != "" {
		who = fmt.Sprintf("agent %q", agent)
	}
	return fmt.Errorf("%s: the %s is larger than max_reply_bytes (%s) of %s; it was cut off there and not used: "+
		"raise max_reply_bytes on the agent (or on the orchestrator, for every agent of the workflow) if replies "+
		"this long are expected", what, part, byteSize(limit), who)
}

// byteSize writes n as "4 MiB (4194304 bytes)" when it is a round binary
// size, else "N bytes".
func byteSize(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s = %d bytes", n>>u.shift, u.name, n)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// cappedBody lets at most left bytes of a response body through (after the
// transport's transparent gzip decoding, so a compressed bomb is stopped at
// the limit of what it inflates to) and records on the exchange a body that
// had more.
type cappedBody struct {
	rc   io.ReadCloser
	left int64
	ex   *exchange
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// At the limit: one more byte means the body is too long.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			b.ex.setOver()
			return 0, errTooLarge
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// bound wraps a response's body: capped at the call's limit (a streamed
// call's raw body at streamFraming times it), and, for an OpenAI-protocol
// stream, read by the exchange's own stream reader.
func (e *exchange) bound(resp *http.Response) {
	e.mu.Lock()
	limit, text := replyLimit(e.limit), e.text
	e.mu.Unlock()
	raw := limit
	if e.streamed {
		raw = limit*streamFraming + streamSlack
	}
	body := &cappedBody{rc: resp.Body, left: raw, ex: e}
	if text != nil && resp.StatusCode == http.StatusOK && (text.wire != wireOpenAI || !strings.Contains(resp.Header.Get("Content-Type"), "json")) {
		resp.Body = newSSEReader(body, text, e)
		return
	}
	resp.Body = body
}

func (e *exchange) setOver() {
	e.mu.Lock()
	e.over = true
	e.mu.Unlock()
}

func (e *exchange) isOver() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.over
}
