package llm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readChunks are chunks as servers send them (and other valid ones):
// scanChunk reads them.
var readChunks = []string{
	`{"id":"c","object":"chat.completion.chunk","created":1700000000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello "}}]}`,
	`{"id":"c","choices":[{"index":0,"delta":{"content":"line\nnext \"q\" \u00e9 \ud83d\ude00"},"logprobs":null,"finish_reason":null}]}`,
	`{"choices":[{"index":0,"delta":{"content":"ünïcode é"}}],"system_fingerprint":"fp_1"}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	`{"choices":[{"delta":{"content":"x"}}],"usage":null}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":""}}]}}]}`,
	`{"choices":[{"delta":{"function_call":{"name":"f"}}}]}`,
	`{"choices":[{"delta":{"content":null,"reasoning_content":"hm"}}]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"\xff\xfe\"}}]}",
	`{"choices":[{"delta":{"content":"x"}}],"n":-0.5e+3,"t":true,"f":false,"z":[1,[2,{"a":{}}]]}`,
	`{"choices":[{"delta":{"content":"x"},"finish_reason":"length"}]}`,
}

// leftChunks are left to encoding/json: case-folded, escaped or repeated keys,
// invalid JSON, other types, no choice or several.
var leftChunks = []string{
	`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"}}]}`,
	`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}}`,
	`{"Choices":[{"delta":{"content":"case"}}]}`,
	`{"choices":[{"delta":{"Content":"case"}}]}`,
	`{"choices":[{"delta":{"content":"a","content":"b"}}]}`,
	"{\"choices\":[{\"delta\":{\"content\":\"bad \x01\"}}]}",
	`{"choices":[{"delta":{"content":5}}]}`,
	`{"choices":[{"delta":{"content":"x"}}]} trailing`,
	`{"choices":[{"delta":{"content":"x"}}],"n":01}`,
	`{"choices":[{"delta":{"content":"x"}}],"\u0075sage":{"a":1}}`,
	`{"choices":[{"delta":{"content":"x"}}],"ſkip":1,"usage":{"a":1}}`,
	`{"choices":[null]}`,
	`{"choices":null}`,
	`[1]`,
}

// scanChunk answers only where encoding/json gives the same answer.
func FuzzScanChunk(f *testing.F) {
	for _, s := range append(readChunks, leftChunks...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := scanChunk(data)
		if !ok {
			return
		}
		want, wok := decodeChunk(data)
		require.True(t, wok, "scanChunk read %q, encoding/json does not", data)
		require.Equal(t, want, got, "%q", data)
	})
}

// The chunks servers send are read without encoding/json; the near misses
// (case-folded or repeated keys, invalid JSON, other types, several choices)
// are left to it.
func TestScanChunkReadsTheCommonShapes(t *testing.T) {
	for _, s := range readChunks {
		got, ok := scanChunk([]byte(s))
		require.True(t, ok, s)
		want, wok := decodeChunk([]byte(s))
		require.True(t, wok, s)
		assert.Equal(t, want, got, s)
	}
	for _, s := range leftChunks {
		_, ok := scanChunk([]byte(s))
		assert.False(t, ok, s)
	}
	got, ok := scanChunk([]byte(readChunks[1]))
	require.True(t, ok)
	assert.Equal(t, "line\nnext \"q\" é 😀", got.content)
}

// Ollama's text lines are taken from the stream; the done line, errors and
// anything else go on to langchaingo's client.
func TestOllamaLinesTakenFromTheStream(t *testing.T) {
	cases := []struct {
		line     string
		text     string
		finish   bool
		passedOn bool
	}{
		{`{"model":"m","created_at":"2024-01-01T00:00:00Z","message":{"role":"assistant","content":"Hel"},"done":false}`, "Hel", false, false},
		{`{"model":"m","message":{"role":"assistant","content":"lo"},"done":true,"prompt_eval_count":9,"eval_count":5}`, "lo", true, true},
		{`{"error":"model not found"}`, "", false, true},
		{`{"message":{"role":"assistant","content":"x","tool_calls":[{"function":{"name":"f"}}]},"done":false}`, "x", false, true},
		{`not json`, "", false, true},
		{``, "", false, true},
	}
	for _, c := range cases {
		f, pass := (&streamText{wire: wireOllama}).fields([]byte(c.line + "\n"))
		assert.Equal(t, chunkFields{content: c.text, finish: c.finish}, f, c.line)
		assert.Equal(t, c.passedOn, pass, c.line)
	}
}

// Anthropic text deltas of started text blocks are taken, text from a second
// block after a newline (as replyOf joins the blocks' texts); everything
// else goes on to langchaingo's client, message_stop ends the stream.
func TestAnthropicEventsTakenFromTheStream(t *testing.T) {
	s := &streamText{wire: wireAnthropic}
	lines := []struct {
		line     string
		text     string
		passedOn bool
	}{
		{"event: message_start", "", true},
		{`data: {"type":"message_start","message":{"usage":{"input_tokens":3}}}`, "", true},
		{`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"early"}}`, "", true},
		{`data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`, "", true},
		{`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"one"}}`, "one", false},
		{`data: {"type":"content_block_start","index":1,"content_block":{"type":"thinking"}}`, "", true},
		{`data: {"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hm"}}`, "", true},
		{`data: {"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}`, "", true},
		{`data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"two"}}`, "\ntwo", false},
		{`data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":" more"}}`, " more", false},
		{`data: {"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":5}}`, "", true},
		{`data: {"type":"error","error":{"message":"overloaded"}}`, "", true},
	}
	for _, l := range lines {
		f, pass := s.fields([]byte(l.line + "\n"))
		assert.Equal(t, chunkFields{content: l.text}, f, l.line)
		assert.Equal(t, l.passedOn, pass, l.line)
	}
	f, pass := s.fields([]byte(`data: {"type":"message_stop"}` + "\n"))
	assert.True(t, f.finish)
	assert.True(t, pass)
}
