package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/retry"
	"github.com/cogloop/cogloop/agents/secrets"
)

// A stream is read by cogloop, not accumulated by langchaingo: its clients
// append every piece to the reply with string += (e.g.
// openaiclient.combineStreamingChatResponse), which copies the whole reply
// per piece — a 1 MB reply in 16-byte pieces moved 35 GB. The transport hands
// langchaingo's client the stream through [sseReader], which takes each
// text-only line out of the stream into a strings.Builder (and the call's
// OnDelta), and passes every other line on unchanged (the finish reason, the
// usage, tool-call pieces, errors, [DONE]; streamwire.go says which for each
// wire format), so langchaingo still parses what it needs and never sees the
// text. Generate then uses the builder's text.

// streamText is one call's streamed reply text. Its methods are safe for
// concurrent use: the reader runs in langchaingo's reading goroutine.
type streamText struct {
	wire    wire
	blocks  anthropicBlocks
	mu      sync.Mutex
	b       strings.Builder
	onDelta func(string)
	limit   int64
	done    bool // [DONE] or a finish reason arrived
	closed  bool // the call is over: nothing more is taken
}

// sseChunk is the part of a chat.completion.chunk that says whether a line
// carries only text.
type sseChunk struct {
	Choices []struct {
		Delta struct {
			Content      string          `json:"content"`
			ToolCalls    json.RawMessage `json:"tool_calls"`
			FunctionCall json.RawMessage `json:"function_call"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

var errStreamOver = errors.New("the call is over")

// take reads one line of the stream: it returns the line to pass on to
// langchaingo, or nil when the line was text only and is now taken.
func (s *streamText) take(line []byte) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errStreamOver
	}
	f, pass := s.fields(line)
	if text := f.content; text != "" {
		if int64(s.b.Len())+int64(len(text)) > s.limit {
			return nil, errTooLarge
		}
		s.b.WriteString(text)
		if s.onDelta != nil {
			s.onDelta(text)
		}
	}
	if f.finish {
		s.done = true
	}
	if pass {
		// langchaingo needs the rest of this line; a copy of its text there is not used.
		return line, nil
	}
	return nil, nil
}

// decodeChunk reads a chunk with encoding/json: what scanChunk leaves to it.
// ok is false when the line is not a chunk of one choice (passed on as it is).
func decodeChunk(data []byte) (chunkFields, bool) {
	var c sseChunk
	if json.Unmarshal(data, &c) != nil || len(c.Choices) != 1 {
		return chunkFields{}, false
	}
	ch := &c.Choices[0]
	return chunkFields{content: ch.Delta.Content, finish: ch.FinishReason != "",
		more: isSet(ch.Delta.ToolCalls) || isSet(ch.Delta.FunctionCall) || isSet(c.Usage)}, true
}

func isSet(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// ended reports whether [DONE] or a finish reason arrived.
func (s *streamText) ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// finish ends the call: it returns the text and whether the stream said it
// was complete; nothing is taken after it.
func (s *streamText) finish() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.b.String(), s.done
}

// sseReader is the body langchaingo's client reads for an OpenAI stream.
// Its 64 KiB line buffer comes from a pool and goes back when the body is
// closed and no Read is under way (langchaingo's reading goroutine may still
// be in one when the call gives up and closes the body): a fresh buffer per
// call was a third of a streamed call's allocated bytes.
type sseReader struct {
	src  *bufio.Reader
	c    io.Closer
	st   *streamText
	ex   *exchange
	out  []byte // what is left of the current line to pass on
	long bool   // inside a line longer than src's buffer: passed on as it is
	err  error

	mu      sync.Mutex
	reading bool
	closed  bool
}

// sseBuffers are the line buffers of stream readers.
var sseBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

var errBodyClosed = errors.New("read on a closed response body")

func newSSEReader(body io.ReadCloser, st *streamText, ex *exchange) *sseReader {
	src, _ := sseBuffers.Get().(*bufio.Reader)
	src.Reset(body)
	return &sseReader{src: src, c: body, st: st, ex: ex}
}

func (r *sseReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return 0, errBodyClosed
	}
	r.reading = true
	r.mu.Unlock()
	n, err := r.read(p)
	r.mu.Lock()
	r.reading = false
	release := r.closed
	r.mu.Unlock()
	if release {
		r.release()
	}
	return n, err
}

func (r *sseReader) read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.src.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			// Longer than any piece of text: langchaingo's scanner decides.
			r.out, r.long = line, true
			continue
		case err != nil:
			r.err = err
		}
		if r.long {
			r.out, r.long = line, false
			continue
		}
		out, terr := r.st.take(line)
		if terr != nil {
			if errors.Is(terr, errTooLarge) {
				r.ex.setOver()
			}
			r.out, r.err = nil, terr
			continue
		}
		r.out = out
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// drainBytes and drainWait bound what Close reads of a body after the
// stream's [DONE]: langchaingo's client stops reading at [DONE] and closes
// the body before its end, and net/http closes a connection whose response
// was not read to the end. A server ends the body right after [DONE]
// (nothing but the chunked encoding's last chunk is left; OpenAI's own
// Python client reads on to the end too), so reading on to the end keeps the
// connection for the next call instead of opening a new one per streamed
// call. A server that keeps the body open holds the call at most drainWait
// longer and loses the connection, as before.
const (
	drainBytes = 4 << 10
	drainWait  = time.Second
)

func (r *sseReader) Close() error {
	r.mu.Lock()
	r.closed = true
	release := !r.reading
	r.mu.Unlock()
	if release && r.err == nil && r.st.ended() {
		r.drain()
	}
	err := r.c.Close()
	if release {
		r.release()
	}
	return err
}

// drain reads the rest of the body, up to drainBytes and for at most
// drainWait (then the request is canceled, which ends the read).
func (r *sseReader) drain() {
	r.ex.mu.Lock()
	abort := r.ex.abort
	r.ex.mu.Unlock()
	if abort == nil {
		return
	}
	t := time.AfterFunc(drainWait, abort)
	defer t.Stop()
	_, _ = io.Copy(io.Discard, io.LimitReader(r.src, drainBytes))
}

// release returns the line buffer to the pool, once.
func (r *sseReader) release() {
	r.mu.Lock()
	src := r.src
	r.src, r.out = nil, nil
	r.mu.Unlock()
	if src != nil {
		src.Reset(nil)
		sseBuffers.Put(src)
	}
}

// cutDetail is how much of a cut stream's text its error quotes.
const cutDetail = 200

// streamed is a streaming call's side of Generate: the reader of the
// stream's text (above), and after finish its text and whether the stream
// said it was complete.
type streamed struct {
	text *streamText
	all  string
	done bool
}

// stream prepares a streaming call on ex; compat is set when the call goes
// to an OpenAI-protocol endpoint (Ollama's for a round of messages).
func (m *Model) stream(ex *exchange, onDelta func(string), compat bool) *streamed {
	ex.streamed = true
	w := wireOpenAI
	switch p := m.cfg.Provider; {
	case p == Ollama && !compat:
		w = wireOllama
	case p == Anthropic:
		w = wireAnthropic
	}
	s := &streamed{text: &streamText{wire: w, onDelta: onDelta, limit: ex.limit}}
	ex.text = s.text
	return s
}

// chunk is langchaingo's streaming func: it only asks langchaingo's client
// to stream; the text was taken from the wire.
func (s *streamed) chunk(context.Context, []byte) error { return nil }

func (s *streamed) finish() { s.all, s.done = s.text.finish() }

// cut is the error of a stream that did not end the way a model ends one: cut
// by the context (the agent's timeout, a cancel), or closed by the server
// before its end (a finish reason or [DONE], Ollama's done line, Anthropic's
// message_stop). It is nil when the stream ended well. What had arrived is
// never a reply: it is quoted, clipped and scrubbed of keys, as the error's
// detail only.
func (s *streamed) cut(ctx context.Context, err error, what string, keys ...secrets.Secret) error {
	cerr := ctx.Err()
	if cerr == nil && (err != nil || s.done) {
		return nil
	}
	n, head := len(s.all), s.all
	head = head[:min(len(head), cutDetail*4)]
	head = fault.Truncate(secrets.Scrub(head, keys...), cutDetail)
	detail := "nothing had arrived"
	if n > 0 {
		detail = fmt.Sprintf("%d bytes had arrived, beginning %q", n, head)
	}
	if cerr != nil {
		return fmt.Errorf("%s: the stream was cut before the model finished (%s): %w", what, detail, cerr)
	}
	return &retry.CallError{Class: retry.ClassServerError, Err: fmt.Errorf(
		"%s: the server ended the stream before the model finished (%s; %s)", what, s.text.wire.noEnd(), detail)}
}
