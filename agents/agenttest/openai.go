package agenttest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// WriteChatReply answers an OpenAI chat-completions request as the API does
// without streaming: one choice whose message is text, and the token usage
// given.
func WriteChatReply(w http.ResponseWriter, text string, promptTokens, completionTokens int) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"gpt-test",
"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],
"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, text, promptTokens, completionTokens, promptTokens+completionTokens)
}

// ChatRequest is what a test server reads of an OpenAI chat-completions
// request: the model and the text of the last message (a plain string, or
// the first text part of a multi-part content).
type ChatRequest struct {
	Model       string
	Temperature float64
	Prompt      string
}

// ReadChatRequest decodes r's body as a chat-completions request; a body
// that is not one, or has no message, is an error.
func ReadChatRequest(r *http.Request) (ChatRequest, error) {
	var body struct {
		Model       string  `json:"model"`
		Temperature float64 `json:"temperature"`
		Messages    []struct {
			Content any `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		return ChatRequest{}, fmt.Errorf("not a chat-completions request: %w", err)
	}
	if len(body.Messages) == 0 {
		return ChatRequest{}, fmt.Errorf("a chat-completions request without messages")
	}
	last := body.Messages[len(body.Messages)-1].Content
	prompt := fmt.Sprint(last)
	if parts, ok := last.([]any); ok && len(parts) > 0 {
		if p, ok := parts[0].(map[string]any); ok {
			prompt = fmt.Sprint(p["text"])
		}
	}
	return ChatRequest{Model: body.Model, Temperature: body.Temperature, Prompt: prompt}, nil
}
