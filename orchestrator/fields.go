package orchestrator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/load"
)

// fieldReader is an agent whose configuration reads the output fields of
// the agents it runs (a loop's stop conditions).
type fieldReader interface{ FieldRefs() []agents.FieldRef }

// fieldDeclarer is an agent whose output fields are known (an LLM agent
// with an output_schema that lists its properties): nil when not known.
type fieldDeclarer interface{ DeclaredFields() []string }

// checkFieldRefs warns about a field read that no declared output can have:
// a loop's condition reading previous_outputs.review.aproved of an agent
// whose output_schema declares approved (issue 32 item 1). An agent
// without a declared output is not judged.
func (b *builder) checkFieldRefs() {
	for _, s := range b.scopes {
		if s.owner == nil || s.owner.agent == nil {
			continue
		}
		fr, ok := agents.Unwrap(s.owner.agent).(fieldReader)
		if !ok {
			continue
		}
		for _, ref := range fr.FieldRefs() {
			d := s.defs[ref.Agent]
			if d == nil || d.agent == nil {
				continue
			}
			fd, ok := agents.Unwrap(d.agent).(fieldDeclarer)
			if !ok {
				continue
			}
			fields := fd.DeclaredFields()
			if fields == nil || slices.Contains(fields, ref.Field) {
				continue
			}
			hint := ""
			if c := load.Closest(ref.Field, fields); c != "" {
				hint = fmt.Sprintf("; did you mean %q?", c)
			}
			b.probs.Warnf(ref.Pos, "%s reads previous_outputs.%s.%s, a field agent %q cannot have: its output_schema declares %s%s",
				ref.What, ref.Agent, ref.Field, ref.Agent, strings.Join(declaredOnly(fields), ", "), hint)
		}
	}
}

// declaredOnly leaves out the fields every answer has.
func declaredOnly(fields []string) []string {
	common := map[string]bool{"response": true, "confidence": true, "internal_reasoning": true, "formatted_prompt": true,
		"_metrics": true, "tool_calls": true, "result": true, "status": true, "error": true}
	var out []string
	for _, f := range fields {
		if !common[f] {
			out = append(out, f)
		}
	}
	return out
}
