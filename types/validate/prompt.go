package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/prompt"
	"github.com/cogloop/cogloop/scoring"
)

// maxContent caps the content put into a prompt.
const maxContent = 200_000

// maxHistory is how many earlier iterations a prompt shows.
const maxHistory = 5

// promptVar is the template variable that carries a validator's prompt to
// its inner LLM agent.
const promptVar = "validation_prompt"

var askTemplate = sync.OnceValues(func() (*prompt.Template, error) {
	return prompt.Parse("validator prompt", "{{ "+promptVar+" }}", prompt.Options{})
})

// writeCriteria lists p's criteria by dimension, with their questions.
func writeCriteria(b *strings.Builder, p *scoring.Preset) {
	b.WriteString("For each criterion below, answer true or false.\n")
	for _, dim := range p.Dimensions() {
		fmt.Fprintf(b, "\n%s:\n", strings.ToUpper(dim))
		for _, c := range p.Criteria {
			if c.Dimension() != dim {
				continue
			}
			if c.Description != "" {
				fmt.Fprintf(b, "- %s: %s\n", c.Name(), c.Description)
			} else {
				fmt.Fprintf(b, "- %s\n", c.Name())
			}
		}
	}
}

// writeAnswerForm asks for the JSON answer and shows its shape; extra is more
// fields of the object (`"rationale": "..."`).
func writeAnswerForm(b *strings.Builder, p *scoring.Preset, extra string) {
	b.WriteString("\nRespond with only a JSON object with one key per category in upper case and true or false for each of its criteria")
	if extra != "" {
		b.WriteString(", plus ")
		b.WriteString(extra)
	}
	b.WriteString(":\n{")
	for i, dim := range p.Dimensions() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%q: {", strings.ToUpper(dim))
		n := 0
		for _, c := range p.Criteria {
			if c.Dimension() != dim {
				continue
			}
			if n > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "%q: true|false", c.Name())
			n++
		}
		b.WriteString("}")
	}
	if extra != "" {
		b.WriteString(", ")
		b.WriteString(extra)
	}
	b.WriteString("}\n")
}

// heading opens a prompt: what is judged, with which preset, and how.
func heading(b *strings.Builder, what string, p *scoring.Preset) {
	fmt.Fprintf(b, "Evaluate %s against the %s %s criteria.", what, strings.ToUpper(p.Level), p.Context)
	if p.Instruction != "" {
		b.WriteString(" ")
		b.WriteString(p.Instruction)
	}
	b.WriteString("\n")
}

// writeHistory tells the model which iteration this is and shows the last
// past_loops entries, when the call is inside a loop.
func writeHistory(b *strings.Builder, in agents.Input) {
	if in.Loop == nil {
		return
	}
	fmt.Fprintf(b, "\nThis is iteration %d of a loop.", in.Loop.Number)
	past := in.Loop.PastLoops
	if len(past) == 0 {
		b.WriteString(" There are no earlier iterations.\n")
		return
	}
	if len(past) > maxHistory {
		past = past[len(past)-maxHistory:]
	}
	b.WriteString(" Earlier iterations, oldest first:\n")
	for _, e := range past {
		fmt.Fprintf(b, "- %s\n", fault.Truncate(compactJSON(e), 600))
	}
}

// outputContent is what a validator evaluates of one agent's output: its
// text, or for a non-text output its fields as indented JSON (without the
// rendered prompt and token counts).
func outputContent(o agents.Output) string {
	if s, ok := o.Response.(string); ok && !o.Failed() {
		return fault.Truncate(s, maxContent)
	}
	m := o.Map()
	delete(m, "formatted_prompt")
	delete(m, "_metrics")
	return indentJSON(m)
}

// payloadContent is the whole call as indented JSON: what a validator
// evaluates when it has no (present) target.
func payloadContent(in agents.Input) string {
	prev := in.Previous.Map()
	for _, v := range prev {
		if m, ok := v.(map[string]any); ok {
			delete(m, "formatted_prompt")
			delete(m, "_metrics")
		}
	}
	p := map[string]any{"input": in.Value, "previous_outputs": prev}
	if in.Loop != nil {
		p["loop_number"] = in.Loop.Number
	}
	return indentJSON(p)
}

func indentJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fault.Truncate(fmt.Sprintf("%v", v), maxContent)
	}
	return fault.Truncate(strings.TrimSuffix(buf.String(), "\n"), maxContent)
}
