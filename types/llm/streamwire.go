package llm

import (
	"bytes"
	"encoding/json"

	"github.com/cogloop/cogloop/internal/perf"
)

// wire is the format of a stream a streamText reads: OpenAI's server-sent
// events (chat.completion.chunk lines), Ollama's NDJSON (one /api/chat
// response object a line) or Anthropic's Messages events. langchaingo's
// clients append every piece of each to the reply with string += (quadratic
// in the reply's length).
type wire uint8

const (
	wireOpenAI wire = iota
	wireOllama
	wireAnthropic
)

// noEnd says what a stream of the format ended without.
func (w wire) noEnd() string {
	switch w {
	case wireOllama:
		return "no done line"
	case wireAnthropic:
		return "no message_stop"
	}
	return "no finish reason, no [DONE]"
}

// fields reads one line of a stream: its text, whether it ends the stream
// (a finish reason, [DONE], Ollama's done, Anthropic's message_stop), and
// whether langchaingo's client needs the line (pass); a line that is not
// understood is passed on as it is, with no text taken. s.mu is held.
func (s *streamText) fields(line []byte) (f chunkFields, pass bool) {
	switch s.wire {
	case wireOllama:
		return ollamaFields(bytes.TrimSpace(line))
	case wireAnthropic:
		return s.blocks.fields(line)
	}
	data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
	if !ok {
		return chunkFields{}, true
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return chunkFields{finish: true}, true
	}
	if perf.Off(perf.ChunkScan) {
		f, ok = decodeChunk(data)
	} else if f, ok = scanChunk(data); !ok {
		f, ok = decodeChunk(data)
	}
	if !ok {
		return chunkFields{}, true
	}
	return f, f.finish || f.more
}

// ollamaLine is the part of an Ollama /api/chat stream line that says
// whether it carries only text.
type ollamaLine struct {
	Message *struct {
		Content   string          `json:"content"`
		Images    json.RawMessage `json:"images"`
		ToolCalls json.RawMessage `json:"tool_calls"`
	} `json:"message"`
	Done  bool   `json:"done"`
	Error string `json:"error"`
}

// ollamaFields reads one NDJSON line: a line with a message's text and
// nothing else is taken; the done line, errors, and anything else go on to
// langchaingo's client (which reads the counts from the done line).
func ollamaFields(data []byte) (chunkFields, bool) {
	if len(data) == 0 {
		return chunkFields{}, true
	}
	var l ollamaLine
	if json.Unmarshal(data, &l) != nil || l.Message == nil {
		return chunkFields{}, true
	}
	f := chunkFields{content: l.Message.Content, finish: l.Done}
	return f, l.Done || l.Error != "" || isSet(l.Message.Images) || isSet(l.Message.ToolCalls)
}

// anthropicBlocks follows an Anthropic stream's content blocks: which are
// text (their text_delta events are taken), and the last one text came
// from. langchaingo's client makes each block a choice and the reply joins
// the texts of the blocks with a newline (replyOf), so text from a new block
// after earlier text begins with one.
type anthropicBlocks struct {
	text []bool
	last int
	any  bool
}

// anthropicEvent is the part of a Messages stream event that says whether it
// carries only text.
type anthropicEvent struct {
	Type         string `json:"type"`
	Index        *int   `json:"index"`
	ContentBlock *struct {
		Type string `json:"type"`
	} `json:"content_block"`
	Delta *struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	} `json:"delta"`
}

func (b *anthropicBlocks) fields(line []byte) (chunkFields, bool) {
	data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
	var e anthropicEvent
	if !ok || json.Unmarshal(data, &e) != nil {
		return chunkFields{}, true
	}
	switch e.Type {
	case "message_stop":
		return chunkFields{finish: true}, true
	case "content_block_start":
		b.start(&e)
	case "content_block_delta":
		if text, ok := b.textDelta(&e); ok {
			return chunkFields{content: text}, false
		}
	}
	return chunkFields{}, true
}

// maxBlocks bounds the content block indexes followed.
const maxBlocks = 1 << 16

// start records whether a started block is text.
func (b *anthropicBlocks) start(e *anthropicEvent) {
	if e.Index == nil || *e.Index < 0 || *e.Index >= maxBlocks || e.ContentBlock == nil {
		return
	}
	for len(b.text) <= *e.Index {
		b.text = append(b.text, false)
	}
	b.text[*e.Index] = e.ContentBlock.Type == "text"
}

// textDelta is the text of a text_delta of a started text block (with the
// newline that separates it from an earlier block's text); ok is false for
// any other delta.
func (b *anthropicBlocks) textDelta(e *anthropicEvent) (string, bool) {
	if e.Index == nil || *e.Index < 0 || *e.Index >= len(b.text) || !b.text[*e.Index] ||
		e.Delta == nil || e.Delta.Type != "text_delta" || e.Delta.Text == nil {
		return "", false
	}
	text := *e.Delta.Text
	if text == "" {
		return "", true
	}
	if b.any && b.last != *e.Index {
		text = "\n" + text
	}
	b.any, b.last = true, *e.Index
	return text, true
}
