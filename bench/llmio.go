package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/secrets"
	"github.com/cogloop/cogloop/types/llm"
)

// ---------------------------------------------------------------------------
// Streaming: the CPU of one long streamed reply.

// sseStream is an OpenAI stream whose reply is size bytes in piece-byte
// pieces, rendered once.
func sseStream(size, piece int) []byte {
	var b bytes.Buffer
	text := strings.Repeat("word ", size/5+1)[:size]
	for i := 0; i < len(text); i += piece {
		c, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1700000000, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": text[i:min(i+piece, len(text))]}}}})
		fmt.Fprintf(&b, "data: %s\n\n", c)
	}
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// ndjsonStream is an Ollama /api/chat stream of a size-byte reply in
// piece-byte pieces, then the done line.
func ndjsonStream(size, piece int) []byte {
	var b bytes.Buffer
	text := strings.Repeat("word ", size/5+1)[:size]
	for i := 0; i < len(text); i += piece {
		c, _ := json.Marshal(map[string]any{"model": "m", "created_at": "2024-01-01T00:00:00Z",
			"message": map[string]any{"role": "assistant", "content": text[i:min(i+piece, len(text))]}, "done": false})
		b.Write(c)
		b.WriteByte('\n')
	}
	b.WriteString(`{"model":"m","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":5,"eval_count":9}` + "\n")
	return b.Bytes()
}

// anthropicStream is an Anthropic Messages stream of a size-byte reply in
// piece-byte text deltas of one text block.
func anthropicStream(size, piece int) []byte {
	var b bytes.Buffer
	ev := func(name string, v any) {
		c, _ := json.Marshal(v)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, c)
	}
	text := strings.Repeat("word ", size/5+1)[:size]
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message",
		"role": "assistant", "model": "m", "content": []any{}, "usage": map[string]any{"input_tokens": 5, "output_tokens": 1}}})
	ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	for i := 0; i < len(text); i += piece {
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text[i:min(i+piece, len(text))]}})
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": 9}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	return b.Bytes()
}

func scenarioStream(rep *report, cfg config) error {
	const g = "streaming, one 1 MB reply"
	const size = 1 << 20
	reps := max(cfg.reps, 3)
	cases := []struct {
		provider llm.Provider
		piece    int
		body     func(size, piece int) []byte
		ctype    string
	}{
		{llm.OpenAICompatible, 256, sseStream, "text/event-stream"},
		{llm.OpenAICompatible, 16, sseStream, "text/event-stream"},
		{llm.Ollama, 256, ndjsonStream, "application/x-ndjson"},
		{llm.Anthropic, 256, anthropicStream, "text/event-stream"},
	}
	for _, c := range cases {
		r := rep.add(&row{group: g, name: fmt.Sprintf("CPU per reply, %s, %d-byte pieces", c.provider, c.piece), unit: "ms", digits: 1})
		if c.piece == 256 {
			r.target, r.ok = "≤ 50", atMost(50)
		}
		if err := streamSamples(r, c.provider, c.body(size, c.piece), c.ctype, size, reps); err != nil {
			return fmt.Errorf("%s, %d-byte pieces: %w", c.provider, c.piece, err)
		}
	}
	rep.note("**streaming**: process CPU (getrusage) of one `Generate` of a 1 MB reply streamed in pieces of 256 or 16 bytes " +
		"from a loopback server writing a pre-rendered stream (OpenAI chunks, Ollama NDJSON lines, Anthropic text deltas), with an " +
		"OnDelta as `run -v` has. Before (langchaingo appending each piece to the reply with `+=`) the OpenAI call took 2.2 s " +
		"(256-byte pieces) and 24.7 s (16-byte pieces): see results-notes.md.")
	return nil
}

// streamSamples adds to r the CPU of reps streamed calls (after one that
// opens the connection) to a server answering body.
func streamSamples(r *row, p llm.Provider, body []byte, ctype string, size, reps int) error {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	m, err := llm.NewModel(llm.Config{Provider: p, URL: srv.URL, Model: "m", APIKey: secrets.NewNamed("KEY", "bench-key")})
	if err != nil {
		return err
	}
	for i := range reps + 1 {
		n := 0
		c0 := cpuTime()
		rep, err := m.Generate(context.Background(), agents.Request{Agent: "a", Prompt: "hi", OnDelta: func(s string) { n += len(s) }})
		d := cpuTime() - c0
		if err != nil || len(rep.Text) != size || n != size {
			return fmt.Errorf("streamed reply of %d bytes (%d as deltas): %w", len(rep.Text), n, err)
		}
		if i > 0 { // the first call opens the connection
			r.samples = append(r.samples, float64(d)/float64(time.Millisecond))
		}
	}
	return nil
}

// ---------------------------------------------------------------------------
// Connection reuse: new TCP connections per 1,000 calls at 1,000 callers.

// acceptCounter counts the connections a listener accepts.
type acceptCounter struct {
	net.Listener
	n atomic.Int64
}

func (l *acceptCounter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// oldClient is the transport every model had before: 16 idle connections per host.
func oldClient() *http.Client {
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, ForceAttemptHTTP2: true,
		MaxIdleConns: 100, MaxIdleConnsPerHost: 16, IdleConnTimeout: 90 * time.Second}}
}

func scenarioConns(rep *report, cfg config) error {
	const g = "connection reuse, 1,000 callers at once"
	callers, rounds := 1000, 5
	if cfg.quick {
		rounds = 2
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(time.Duration(10+rand.IntN(40)) * time.Millisecond) // a model's latency, 10–50 ms
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`))
	}))
	ln := &acceptCounter{Listener: srv.Listener}
	srv.Listener = ln
	srv.Start()
	defer srv.Close()
	variants := []struct {
		name string
		hc   *http.Client
	}{
		{"the shared transport (1,024 idle per host)", nil},
		{"the transport before (16 idle per host)", oldClient()},
	}
	for _, v := range variants {
		steady := rep.add(&row{group: g, name: "new connections per 1,000 calls, " + v.name, unit: "conns", digits: 1})
		if v.hc == nil {
			steady.target, steady.ok = "≤ 10", atMost(10)
		}
		m, err := llm.NewModel(llm.Config{Provider: llm.OpenAICompatible, URL: srv.URL, Model: "m", HTTPClient: v.hc})
		if err != nil {
			return err
		}
		wave := func() error {
			var wg sync.WaitGroup
			errs := make(chan error, callers)
			for range callers {
				wg.Go(func() {
					if _, err := m.Generate(context.Background(), agents.Request{Agent: "a", Prompt: "hi"}); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			return <-errs
		}
		if err := wave(); err != nil { // the first wave opens the connections
			return err
		}
		for range max(cfg.reps, 1) {
			before := ln.n.Load()
			for range rounds {
				if err := wave(); err != nil {
					return err
				}
			}
			steady.samples = append(steady.samples, float64(ln.n.Load()-before)*1000/float64(callers*rounds))
		}
		srv.CloseClientConnections()
	}
	rep.note("**connection reuse**: %d callers call one loopback OpenAI-compatible server (10–50 ms per call) at once, in waves; after a "+
		"first wave has opened the connections, the server counts the TCP connections it accepts over %d more waves. The row "+
		"\"before\" is the transport every model had before (16 idle connections kept per host).", callers, rounds)
	return nil
}
