package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/llm"
)

// sseBody is a whole OpenAI stream whose reply is size bytes sent piece bytes
// at a time, rendered once so the server costs little per call.
func sseBody(size, piece int) []byte {
	var b bytes.Buffer
	text := strings.Repeat("word ", size/5+1)[:size]
	for i := 0; i < len(text); i += piece {
		c, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1700000000,
			"model": "gpt-test", "choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": text[i:min(i+piece, len(text))]}}}})
		fmt.Fprintf(&b, "data: %s\n\n", c)
	}
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-test","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}}` + "\n\n")
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
