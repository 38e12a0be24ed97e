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
	"github.com/cogloop/cogloop/agents/llm"
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

func scenarioStream(rep *report, cfg config) error {
	const g = "streaming, one 1 MB reply"
	const size = 1 << 20
	reps := max(cfg.reps, 3)
	for _, piece := range []int{256, 16} {
		r := rep.add(&row{group: g, name: fmt.Sprintf("CPU per reply, %d-byte pieces", piece), unit: "ms", digits: 1})
		if piece == 256 {
			r.target, r.ok = "≤ 50", atMost(50)
		}
		body := sseStream(size, piece)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(body)
		}))
		m, err := llm.NewModel(llm.Config{Provider: llm.OpenAICompatible, URL: srv.URL, Model: "m"})
		if err != nil {
			srv.Close()
			return err
		}
		for i := range reps + 1 {
			n := 0
			c0 := cpuTime()
			rep, err := m.Generate(context.Background(), agents.Request{Agent: "a", Prompt: "hi", OnDelta: func(s string) { n += len(s) }})
			d := cpuTime() - c0
			if err != nil || len(rep.Text) != size || n != size {
				srv.Close()
				return fmt.Errorf("streamed reply of %d bytes (%d as deltas): %w", len(rep.Text), n, err)
			}
			if i > 0 { // the first call opens the connection
				r.samples = append(r.samples, float64(d)/float64(time.Millisecond))
			}
		}
		srv.Close()
	}
	rep.note("**streaming**: process CPU (getrusage) of one `Generate` of a 1 MB reply streamed as OpenAI chunks of 256 or 16 bytes " +
		"from a loopback server writing a pre-rendered stream, with an OnDelta as `run -v` has. Before (langchaingo appending " +
		"each piece to the reply with `+=`) the same call took 2.2 s (256-byte pieces) and 24.7 s (16-byte pieces): " +
		"see results-notes.md.")
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
