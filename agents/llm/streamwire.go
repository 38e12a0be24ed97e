package llm

import (
	"bytes"
	"encoding/json"
)

// wire is the format of a stream a streamText reads: OpenAI's server-sent
// events (chat.completion.chunk lines) or Ollama's NDJSON (one /api/chat
// response object a line). langchaingo's clients append every piece of
// either to the reply with string += (quadratic in the reply's length).
type wire uint8

const (
	wireOpenAI wire = iota
	wireOllama
)

// fields reads one line of a stream: its text, whether it ends the stream
// (a finish reason, [DONE], Ollama's done), and whether langchaingo's client
// needs the line (pass); a line that is not understood is passed on as it
// is, with no text taken.
func (w wire) fields(line []byte) (f chunkFields, pass bool) {
	if w == wireOllama {
		return ollamaFields(bytes.TrimSpace(line))
	}
	data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r\n"), []byte("data:"))
	if !ok {
		return chunkFields{}, true
	}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return chunkFields{finish: true}, true
	}
	if f, ok = scanChunk(data); !ok {
		if f, ok = decodeChunk(data); !ok {
			return chunkFields{}, true
		}
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
