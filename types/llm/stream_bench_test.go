package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/types/llm"
)

// sseBody is a whole OpenAI stream whose reply is size bytes sent piece bytes
// at a time, rendered once so the server costs little per call.
func sseBody(size, piece int) []byte {
	text := strings.Repeat("word ", size/5+1)[:size]
	var pieces []string
	for i := 0; i < len(text); i += piece {
		pieces = append(pieces, text[i:min(i+piece, len(text))])
	}
	return ssePieces(pieces)
}

// ssePieces is a whole OpenAI stream of pieces (the first naming the role),
// a finish piece, a usage piece and [DONE].
func ssePieces(pieces []string) []byte {
	var b bytes.Buffer
	for i, p := range pieces {
		delta := map[string]any{"content": p}
		if i == 0 {
			delta["role"] = "assistant"
		}
		c, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1700000000,
			"model": "gpt-test", "choices": []any{map[string]any{"index": 0, "delta": delta}}})
		fmt.Fprintf(&b, "data: %s\n\n", c)
	}
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":300,"completion_tokens":80,"total_tokens":380}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkStreamedReply is one streamed OpenAI call through langchaingo's
// client whose reply is 1 MB (or 100 KB) in pieces of 16 or 256 bytes, with the
// run asking for deltas as `cogloop run -v` does: the cost of reading a long
// stream, which must grow linearly with the reply.
func BenchmarkStreamedReply(b *testing.B) {
	for _, size := range []int{100 << 10, 1 << 20} {
		for _, piece := range []int{16, 256} {
			b.Run(fmt.Sprintf("%dKB/%dB", size>>10, piece), func(b *testing.B) {
				body := sseBody(size, piece)
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Type", "text/event-stream")
					_, _ = w.Write(body)
				}))
				defer srv.Close()
				m, err := llm.NewModel(llm.Config{Provider: llm.OpenAICompatible, URL: srv.URL, Model: "gpt-test"})
				if err != nil {
					b.Fatal(err)
				}
				ctx := context.Background()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					n := 0
					rep, err := m.Generate(ctx, agents.Request{Agent: "a", Prompt: "hi", OnDelta: func(s string) { n += len(s) }})
					if err != nil || len(rep.Text) != size || n != size {
						b.Fatalf("reply of %d bytes (%d streamed): %v", len(rep.Text), n, err)
					}
				}
			})
		}
	}
}

// BenchmarkRealisticCall is one model call of the bench's realistic scenario
// (an 80-word reply to a 1.5 KB prompt, loopback server answering at once),
// without and with streaming: allocations per call are the figure to compare
// (the server's share is the same in both builds).
func BenchmarkRealisticCall(b *testing.B) {
	text := strings.TrimSpace(strings.Repeat("Recursion solves a problem through smaller copies of itself. ", 10))
	plain, _ := json.Marshal(map[string]any{"id": "chatcmpl-bench", "object": "chat.completion", "created": 1700000000, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": text}}},
		"usage":   map[string]any{"prompt_tokens": 300, "completion_tokens": 80, "total_tokens": 380}})
	stream := ssePieces(strings.SplitAfter(text, " "))
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Stream bool `json:"stream"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if req.Stream {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(stream)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(plain)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	m, err := llm.NewModel(llm.Config{Provider: llm.OpenAICompatible, URL: srv.URL, Model: "gpt-test"})
	if err != nil {
		b.Fatal(err)
	}
	prompt := strings.Repeat("ROLE: improver. Improve the answer with the lessons of the earlier passes. ", 20)
	for _, streamed := range []bool{false, true} {
		b.Run(fmt.Sprintf("stream=%t", streamed), func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			c0 := conns.Load()
			for b.Loop() {
				req := agents.Request{Agent: "a", Prompt: prompt, Temperature: 0.7}
				n := 0
				if streamed {
					req.OnDelta = func(s string) { n += len(s) }
				}
				rep, err := m.Generate(ctx, req)
				if err != nil || rep.Text != text || (streamed && n != len(text)) {
					b.Fatalf("reply %q (%d streamed): %v", rep.Text, n, err)
				}
			}
			b.ReportMetric(float64(conns.Load()-c0)/float64(b.N), "conns/op")
		})
	}
}
