package checks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/prompt"
)

// Marker introduces the execution record in a rendered prompt (OrKa's).
const Marker = "EXECUTION_DATA_JSON:"

// maxRecord caps the size of a record read from a prompt.
const maxRecord = 4 << 20

// Validator is the invariant_validator agent.
type Validator struct {
	ID     string
	Prompt *prompt.Template
	Config Config
}

var _ agents.Agent = (*Validator)(nil)

// Run checks the execution record (see the package doc for where it comes
// from) and returns the facts as both Fields and Response. A record in the
// prompt that cannot be parsed gives OrKa's {status: error, error, facts: []}
// and a warning (an error under strict mode).
func (v *Validator) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	text, err := in.Render(v.Prompt)
	if err != nil {
		return agents.Output{}, fmt.Errorf("render prompt: %w", err)
	}
	data, source := v.Config.Data, "execution_data"
	if data == nil {
		if i := strings.Index(text, Marker); i >= 0 {
			data, err = parseRecord(text[i+len(Marker):])
			if err != nil {
				msg := fmt.Sprintf("invalid execution record after %s in the prompt: %v", Marker, err)
				if werr := in.Run.Warn(event.Event{Node: in.Path, Agent: v.ID, Message: msg,
					Data: map[string]any{"code": "bad_execution_data"}}); werr != nil {
					return agents.Output{Prompt: text}, werr
				}
				f := map[string]any{"status": "error", "error": msg, "facts": []any{}}
				return agents.Output{Response: f, Fields: f, Prompt: text}, nil
			}
			source = "prompt"
		} else {
			data, source = RunRecord(in.Previous), "run"
		}
	}
	facts := Check(v.Config, data)
	summary := facts["validation_summary"].(map[string]any)
	summary["record_source"] = source
	resp := make(map[string]any, len(facts))
	for k, x := range facts {
		resp[k] = x
	}
	return agents.Output{Response: resp, Fields: facts, Prompt: text}, nil
}

// parseRecord reads a record: JSON, or YAML (which also reads most of
// Python's dict repr, as OrKa's literal_eval fallback does).
func parseRecord(s string) (map[string]any, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("nothing follows the marker")
	}
	if len(s) > maxRecord {
		return nil, fmt.Errorf("the record is longer than %d bytes", maxRecord)
	}
	var raw any
	if err := yaml.Unmarshal([]byte(s), &raw); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	return record(raw)
}

// record turns a decoded value into a record: a mapping as it is, a string
// parsed as JSON or YAML.
func record(raw any) (map[string]any, error) {
	switch x := raw.(type) {
	case map[string]any:
		return x, nil
	case string:
		return parseRecord(x)
	case nil:
		return map[string]any{}, nil
	}
	return nil, fmt.Errorf("the record must be a mapping {nodes_executed, fork_groups, ...}, not %T", raw)
}
