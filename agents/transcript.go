package agents

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Transcript renders what a call sends the model as plain lines: the model,
// the system message, the prompt, the later messages with their tool calls,
// the tools offered, the tool choice and the response schema. Run records keep
// it (scrubbed, bounded) so that a replay can tell, line by line, how a call's
// request changed. Temperature, token caps and streaming are left out.
func (req Request) Transcript() string {
	var b strings.Builder
	block := func(head, text string) {
		b.WriteString(head)
		b.WriteString(":\n")
		for _, l := range strings.Split(text, "\n") {
			b.WriteString("  ")
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	fmt.Fprintf(&b, "model: %s\n", req.Model)
	if req.System != "" {
		block("system", req.System)
	}
	block("prompt", req.Prompt)
	for i, m := range req.Messages {
		head := fmt.Sprintf("message %d (%s", i+1, m.Role)
		if m.Name != "" {
			head += " " + m.Name
		}
		if m.ToolCallID != "" {
			head += ", answers " + m.ToolCallID
		}
		block(head+")", m.Text)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "  tool call %s %s: %s\n", c.ID, c.Name, c.Args)
		}
	}
	tools := append([]ToolSpec(nil), req.Tools...)
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	for _, t := range tools {
		params, _ := json.Marshal(t.Parameters) // map keys sorted: stable text
		fmt.Fprintf(&b, "tool %s: %s\n  parameters: %s\n", t.Name, t.Description, params)
	}
	if req.ToolChoice != "" {
		fmt.Fprintf(&b, "tool_choice: %s\n", req.ToolChoice)
	}
	if req.Schema != nil {
		s, _ := json.Marshal(req.Schema.Schema)
		fmt.Fprintf(&b, "schema %s: %s\n", req.Schema.Name, s)
	}
	return b.String()
}
