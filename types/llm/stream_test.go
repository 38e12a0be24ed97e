package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/spend"
	"github.com/cogloop/cogloop/types/llm"
)

const streamKey = "sk-stream-canary-0123456789"

// The reply arrives in pieces, the key split across three of them.
var streamPieces = []string{"Hel", "lo, the key is sk-st", "ream-canary-0123", "456789 and ", "more ", "text."}

const streamReply = "Hello, the key is [REDACTED:OPENAI_API_KEY] and more text."

// openAISSE answers a streaming chat request as OpenAI does: one
// chat.completion.chunk per piece, a last chunk with the usage, then [DONE].
func openAISSE(w http.ResponseWriter, pieces []string, promptTokens, completionTokens int) {
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
		w.(http.Flusher).Flush()
	}
	for _, p := range pieces {
		chunk(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-test",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": p}}}})
	}
	chunk(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-test",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": "stop"}}})
	chunk(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-test",
		"choices": []any{}, "usage": map[string]any{"prompt_tokens": promptTokens, "completion_tokens": completionTokens,
			"total_tokens": promptTokens + completionTokens}})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// anthropicEvents answers a streaming Messages request as Anthropic does: a
// thinking block, then the pieces as text deltas of one text block, then the
// usage and message_stop.
func anthropicEvents(w http.ResponseWriter, pieces []string, input, output int) {
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
		w.(http.Flusher).Flush()
	}
	ev(map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
		"model": "claude-test", "content": []any{}, "usage": map[string]any{"input_tokens": input, "output_tokens": 1}}})
	ev(map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "thinking", "thinking": ""}})
	ev(map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "thinking_delta", "thinking": "Hm."}})
	ev(map[string]any{"type": "content_block_stop", "index": 0})
	ev(map[string]any{"type": "content_block_start", "index": 1, "content_block": map[string]any{"type": "text", "text": ""}})
	ev(map[string]any{"type": "ping"})
	for _, p := range pieces {
		ev(map[string]any{"type": "content_block_delta", "index": 1, "delta": map[string]any{"type": "text_delta", "text": p}})
	}
	ev(map[string]any{"type": "content_block_stop", "index": 1})
	ev(map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": "end_turn"}, "usage": map[string]any{"output_tokens": output}})
	ev(map[string]any{"type": "message_stop"})
}

// ollamaNDJSON answers a streaming /api/chat request: one line per piece,
// then the done line with the counts.
func ollamaNDJSON(w http.ResponseWriter, pieces []string, promptEval, eval int) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	for _, p := range pieces {
		fmt.Fprintf(w, `{"model":"llama3","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":%q},"done":false}`+"\n", p)
		w.(http.Flusher).Flush()
	}
	fmt.Fprintf(w, `{"model":"llama3","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":%d,"eval_count":%d}`+"\n", promptEval, eval)
}

func streamRun(rec *recorder, deltas bool) agents.Input {
	in := input(nil)
	in.Run = &agents.Run{ID: "run-1", Observe: rec.Observe, Deltas: deltas, ModelCalls: true}
	return in
}

// deltaText is the concatenated agent.delta text, checking the events' order
// fields on the way.
func deltaText(t *testing.T, rec *recorder) (string, int) {
	t.Helper()
	var b strings.Builder
	n := 0
	for _, e := range rec.Events() {
		if e.Kind == event.AgentDelta {
			assert.Equal(t, "x", e.Node)
			assert.Equal(t, 1, e.Attempt)
			assert.NotEmpty(t, e.Response)
			b.WriteString(e.Response)
			n++
		}
	}
	return b.String(), n
}

func TestStreamingProviders(t *testing.T) {
	cases := []struct {
		name    string
		agent   string
		respond respondFunc
		// streamed reports whether the request asked for a stream.
		streamed func(body map[string]any) bool
		provider string
	}{
		{
			name:  "openai SSE",
			agent: "type: openai-answer\nmodel: gpt-test\n",
			respond: func(_ int, w http.ResponseWriter, _ *http.Request, body map[string]any) {
				if body["stream"] == true {
					openAISSE(w, streamPieces, 9, 5)
					return
				}
				agenttest.WriteChatReply(w, strings.Join(streamPieces, ""), 9, 5)
			},
			streamed: func(body map[string]any) bool {
				opts, _ := body["stream_options"].(map[string]any)
				return body["stream"] == true && opts["include_usage"] == true
			},
			provider: "openai",
		},
		{
			name:  "ollama NDJSON",
			agent: "type: local_llm\nprovider: ollama\nmodel: llama3\napi_key_env: OPENAI_API_KEY\n",
			respond: func(_ int, w http.ResponseWriter, _ *http.Request, body map[string]any) {
				if body["stream"] == true {
					ollamaNDJSON(w, streamPieces, 9, 5)
					return
				}
				ollamaOK(w, map[string]any{"stream": false}, strings.Join(streamPieces, ""), 9, 5)
			},
			streamed: func(body map[string]any) bool { return body["stream"] == true },
			provider: "ollama",
		},
		{
			name:  "anthropic events",
			agent: "type: llm\nprovider: anthropic\nmodel: claude-test\napi_key_env: OPENAI_API_KEY\n",
			respond: func(_ int, w http.ResponseWriter, _ *http.Request, body map[string]any) {
				if body["stream"] == true {
					anthropicEvents(w, streamPieces, 9, 5)
					return
				}
				fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
"content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":5}}`, strings.Join(streamPieces, ""))
			},
			streamed: func(body map[string]any) bool { return body["stream"] == true },
			provider: "anthropic",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.respond)
			a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", streamKey)},
				"id: x\n"+tc.agent+"model_url: "+srv.URL+"\nprompt: hi\n")

			rec := &recorder{}
			out, err := a.Run(context.Background(), streamRun(rec, true))
			require.NoError(t, err)
			require.Len(t, srv.Requests(), 1)
			assert.True(t, tc.streamed(srv.Requests()[0].Body), "asked for a stream: %s", srv.Requests()[0].Raw)
			text, n := deltaText(t, rec)
			assert.Equal(t, streamReply, text, "the deltas, in order, are the reply")
			assert.Equal(t, streamReply, out.Response)
			assert.GreaterOrEqual(t, n, 1)
			assert.Equal(t, spend.Usage{PromptTokens: 9, CompletionTokens: 5}, spend.Usage{
				PromptTokens: out.Usage.PromptTokens, CompletionTokens: out.Usage.CompletionTokens}, "usage still counted")
			assert.NotContains(t, rec.JSON(t), streamKey)
			var calls []event.Event
			for _, e := range rec.Events() {
				if e.Kind == event.ModelCall {
					calls = append(calls, e)
				}
			}
			require.Len(t, calls, 1)
			assert.Equal(t, tc.provider, calls[0].Data["provider"])
			require.NotNil(t, calls[0].Usage)
			assert.Equal(t, 5, calls[0].Usage.CompletionTokens)

			// Nobody asks for deltas: the request is the non-streaming one, and
			// no delta is emitted.
			rec = &recorder{}
			out, err = a.Run(context.Background(), streamRun(rec, false))
			require.NoError(t, err)
			require.Len(t, srv.Requests(), 2)
			_, set := srv.Requests()[1].Body["stream"]
			assert.False(t, set && srv.Requests()[1].Body["stream"] != false, srv.Requests()[1].Raw)
			_, n = deltaText(t, rec)
			assert.Zero(t, n)
			assert.Equal(t, streamReply, out.Response)
		})
	}
}

// writeSSEPieces sends OpenAI chunks without a finish reason or [DONE].
func writeSSEPieces(w http.ResponseWriter, pieces ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, p := range pieces {
		b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-test",
			"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": p}}}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	w.(http.Flusher).Flush()
}

// writeNDJSONPieces sends Ollama lines without the done line.
func writeNDJSONPieces(w http.ResponseWriter, pieces ...string) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	for _, p := range pieces {
		fmt.Fprintf(w, `{"model":"llama3","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":%q},"done":false}`+"\n", p)
	}
	w.(http.Flusher).Flush()
}
