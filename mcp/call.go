package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cogloop/cogloop/agents"
)

type sdkTool = sdk.Tool

// call calls tool on c's server within its call_timeout. A tool that
// reports an error (isError), a timeout or a lost server is an error the
// model is told; only the end of ctx stops the agent call.
func (c *conn) call(ctx context.Context, tool string, args map[string]any) (agents.Output, error) {
	cctx, cancel := context.WithTimeout(ctx, c.srv.CallTimeout)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := c.cs.CallTool(cctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	switch {
	case ctx.Err() != nil:
		return agents.Output{}, ctx.Err()
	case cctx.Err() != nil:
		return agents.Output{}, fmt.Errorf("%s: tool %s did not answer within its call_timeout of %s (raise call_timeout under mcp_servers: %s)",
			c.srv.What(), tool, c.srv.CallTimeout, c.srv.Name)
	case err != nil:
		msg := fmt.Sprintf("%s: tool %s: %v", c.srv.What(), tool, err)
		if errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) {
			c.gone.Store(true)
			msg += c.lastWords() // the server is gone: say why, if it said
		}
		return agents.Output{}, errors.New(msg)
	}
	text, fields := resultText(res)
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return agents.Output{}, fmt.Errorf("%s.%s: %s", c.srv.Name, tool, text)
	}
	return agents.Output{Response: text, Fields: fields}, nil
}

// resultText is a tool result as text: text parts as they are, images,
// audio and resources summarised with their MIME type; structured content
// is a field of its own (structured_content) unless the text carries it, and
// the text itself when there is no other.
func resultText(res *sdk.CallToolResult) (string, map[string]any) {
	parts := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		parts = append(parts, contentText(c))
	}
	text := strings.Join(parts, "\n")
	if res.StructuredContent == nil {
		return text, nil
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return text, nil
	}
	var v any
	if json.Unmarshal(b, &v) != nil || carries(text, b, v) {
		return text, nil
	}
	if text == "" {
		return string(b), nil
	}
	return text, map[string]any{"structured_content": v}
}

// carries reports whether a result's text already says what its structured
// content does (servers send the JSON as text too, or one of its strings).
func carries(text string, raw []byte, v any) bool {
	var t any
	if json.Unmarshal([]byte(text), &t) == nil {
		if tb, err := json.Marshal(t); err == nil && string(tb) == string(raw) {
			return true
		}
	}
	if m, ok := v.(map[string]any); ok {
		for _, e := range m {
			if s, ok := e.(string); ok && s == text {
				return true
			}
		}
	}
	return false
}

func contentText(c sdk.Content) string {
	switch x := c.(type) {
	case *sdk.TextContent:
		return x.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", x.MIMEType, len(x.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", x.MIMEType, len(x.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource link: %s (%s) %s]", x.URI, orUnknown(x.MIMEType), x.Name)
	case *sdk.EmbeddedResource:
		r := x.Resource
		if r == nil {
			return "[resource]"
		}
		if r.Text != "" {
			return fmt.Sprintf("[resource: %s (%s)]\n%s", r.URI, orUnknown(r.MIMEType), r.Text)
		}
		return fmt.Sprintf("[resource: %s (%s), %d bytes]", r.URI, orUnknown(r.MIMEType), len(r.Blob))
	}
	return fmt.Sprintf("[%T content]", c)
}

func orUnknown(mime string) string {
	if mime == "" {
		return "unknown type"
	}
	return mime
}
