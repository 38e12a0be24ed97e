package llm_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cogloop/cogloop/agents/agenttest"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/types/llm"
)

// gzipped compresses s.
func gzipped(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	require.NoError(t, err)
	_, err = zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

// pieces cuts s into n-byte pieces.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

// A reply longer than max_reply_bytes fails the call, for every provider,
// streamed or not, compressed or not: the error names the agent, the limit
// and the key to raise; the call is not retried (one request) and the failure
// is the agent's, not the run's (not fatal).
func TestReplyOverTheLimitFailsTheCall(t *testing.T) {
	long := strings.Repeat("0123456789abcdef", 256) // 4 KiB
	cases := []struct {
		name    string
		agent   string
		respond respondFunc
		stream  bool
	}{
		{name: "openai", agent: "type: openai-answer\nmodel: gpt-test\n",
			respond: func(_ int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
				agenttest.WriteChatReply(w, long, 3, 3)
			}},
		{name: "openai gzip", agent: "type: openai-answer\nmodel: gpt-test\n",
			respond: func(_ int, w http.ResponseWriter, r *http.Request, _ map[string]any) {
				// 256 KiB of spaces inside the JSON body: under 1 KiB on the wire.
				body := gzipped(t, `{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]`+strings.Repeat(" ", 256<<10)+`}`)
				require.Less(t, len(body), 1024)
				require.Contains(t, r.Header.Get("Accept-Encoding"), "gzip")
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(body)
			}},
		{name: "openai stream", agent: "type: openai-answer\nmodel: gpt-test\n", stream: true,
			respond: func(_ int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
				openAISSE(w, pieces(long, 64), 3, 3)
			}},
		{name: "ollama", agent: "type: local_llm\nprovider: ollama\nmodel: llama3\n",
			respond: func(_ int, w http.ResponseWriter, _ *http.Request, body map[string]any) {
				ollamaOK(w, map[string]any{"stream": false}, long, 3, 3)
			}},
		{name: "ollama stream", agent: "type: local_llm\nprovider: ollama\nmodel: llama3\n", stream: true,
			respond: func(_ int, w http.ResponseWriter, _ *http.Request, body map[string]any) {
				ollamaNDJSON(w, pieces(long, 64), 3, 3)
			}},
		{name: "anthropic", agent: "type: llm\nprovider: anthropic\nmodel: claude-test\n",
			respond: func(_ int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
				fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-test",
"content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":7,"output_tokens":3}}`, long)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.respond)
			a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "sk-test", "ANTHROPIC_API_KEY", "sk-ant")},
				"id: writer\n"+tc.agent+"model_url: "+srv.URL+"\nmax_reply_bytes: 1024\nprompt: hi\n")
			rec := &recorder{}
			_, err := a.Run(context.Background(), streamRun(rec, tc.stream))
			require.Error(t, err)
			msg := err.Error()
			assert.Contains(t, msg, "max_reply_bytes (1 KiB = 1024 bytes)")
			assert.Contains(t, msg, `agent "writer"`)
			assert.Contains(t, msg, "raise max_reply_bytes on the agent (or on the orchestrator")
			assert.Equal(t, tc.stream, strings.Contains(msg, "streamed reply"), msg)
			assert.Len(t, srv.Requests(), 1, "a reply too long is not asked for again")
			assert.False(t, fault.IsFatal(err), "the agent fails; on_error decides what the run does")
		})
	}
}

// The limit is on the reply's text, not on the stream's framing: a streamed
// reply under the limit passes even though its stream is many times longer.
func TestStreamedReplyUnderTheLimitPasses(t *testing.T) {
	text := strings.Repeat("ab", 500) // 1000 bytes in 2-byte pieces: ~100 KB of stream
	srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		openAISSE(w, pieces(text, 2), 3, 3)
	})
	a := mustBuild(t, llm.Options{Getenv: env("OPENAI_API_KEY", "sk-test")},
		"id: writer\ntype: openai-answer\nmodel: gpt-test\nmodel_url: "+srv.URL+"\nmax_reply_bytes: 1024\nprompt: hi\n")
	rec := &recorder{}
	out, err := a.Run(context.Background(), streamRun(rec, true))
	require.NoError(t, err)
	assert.Equal(t, text, out.Response)
	got, _ := deltaText(t, rec)
	assert.Equal(t, text, got)
}

func TestMaxReplyBytesIsChecked(t *testing.T) {
	for _, v := range []string{"0", "-5", "2000000000", "lots"} {
		_, probs := build(t, llm.Options{Getenv: env()}, "id: w\ntype: openai-answer\nmodel: m\nprompt: hi\nmax_reply_bytes: "+v+"\n")
		require.Error(t, probs.Err(), v)
		assert.Contains(t, probs.Err().Error(), "max_reply_bytes", v)
	}
}

// An embedding reply is bounded too (by the default limit).
func TestEmbeddingReplyIsBounded(t *testing.T) {
	srv := newServer(t, func(_ int, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[` + strings.Repeat("0.125,", 1<<20) + `0.5]}]}`))
	})
	e, err := llm.NewEmbedder(llm.Config{Provider: llm.OpenAICompatible, URL: srv.URL, Model: "emb"})
	require.NoError(t, err)
	_, err = e.Embed(context.Background(), "hi")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the reply is larger than 4 MiB = 4194304 bytes, the most an embedding reply may be")
	assert.Len(t, srv.Requests(), 1)
}
