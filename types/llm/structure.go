package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/cogloop/cogloop/agents"
	"github.com/cogloop/cogloop/agents/event"
	"github.com/cogloop/cogloop/agents/fault"
	"github.com/cogloop/cogloop/agents/load"
	"github.com/cogloop/cogloop/prompt"
)

// Structure is the validate_and_structure agent: an LLM call that validates an
// answer and structures it as a memory object, answering OrKa's shape
//
//	{valid, reason, memory_object, prompt, formatted_prompt, raw_llm_output}
//
// as Fields, so templates read previous_outputs.<id>.valid and
// .memory_object; the Response is the parsed answer alone ({valid, reason,
// memory_object} and any other key the model gave), which is what
// get_agent_response returns (OrKa's also holds the prompt and raw reply). The reply is parsed as JSON
// (in a ```json fence, or the outermost {...}; YAML's reading of it when JSON
// fails, as OrKa repairs Python literals and unquoted keys); valid is coerced to
// a bool, a missing reason is "No reason provided", a missing memory_object null.
// A reply that holds no object gives valid false and the reason why, as OrKa
// does, with a warning event.
type Structure struct {
	// ID is the agent id.
	ID string
	// Prompt is the template (the user's, or OrKa's default one, built from
	// the input and the outputs of context-collector and answer-builder).
	Prompt *prompt.Template
	// StoreStructure is the memory object's template (store_structure).
	StoreStructure string
	// LLM makes the call; its prompt template renders the prepared prompt.
	LLM *Agent
}

var (
	_ agents.Agent     = (*Structure)(nil)
	_ agents.ModelUser = (*Structure)(nil)
)

// structurePromptVar is the template variable the inner call's prompt reads.
const structurePromptVar = "validate_and_structure_prompt"

// structureFactory builds validate_and_structure: the definition's model keys
// are openai-answer's (OrKa uses its default OpenAI answer builder); prompt is
// optional; store_structure is the memory object's template.
func (o Options) structureFactory(b *agents.Builder, c *load.Config) (agents.Agent, error) {
	s := &Structure{ID: c.String("id", ""), StoreStructure: c.String("store_structure", "")}
	// An absent or empty prompt means OrKa's default one.
	if s.Prompt = b.Template(c, "prompt"); s.Prompt == nil {
		t, err := prompt.Parse(c.What()+" default prompt", defaultStructurePrompt, prompt.Options{})
		if err != nil {
			return nil, fmt.Errorf("default prompt: %w", err)
		}
		s.Prompt = t
	}
	inner := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "{{ " + structurePromptVar + " }}"}
	d := c.Derived(map[string]*yaml.Node{"prompt": inner, "store_structure": nil})
	a, err := o.llmFactory(typeSpec{name: "validate_and_structure", kind: Answer, defProvider: OpenAI})(b, d)
	d.Accept("type", "depends_on", "store_structure") // the builder's keys and ours
	d.Done()
	if err != nil {
		return nil, err
	}
	s.LLM = a.(*Agent)
	return s, nil
}

// Refs lists the inner call's tools ([agents.Referrer]).
func (s *Structure) Refs() []string { return s.LLM.Refs() }

// Models names the model the inner call is priced as.
func (s *Structure) Models() []string { return s.LLM.Models() }

// Run renders the prompt, adds OrKa's JSON instructions when the prompt does
// not already ask for the shape, calls the model and parses the reply.
func (s *Structure) Run(ctx context.Context, in agents.Input) (agents.Output, error) {
	text, err := in.Render(s.Prompt)
	if err != nil {
		return agents.Output{}, fmt.Errorf("render prompt: %w", err)
	}
	if !asksForShape(text) {
		text = strings.TrimSpace(text) + "\n\n" + structureInstructions(s.StoreStructure) + "\n\n" + jsonFormat +
			"\nDo not include any other text outside the JSON."
	}
	vars := make(map[string]any, len(in.Vars)+1)
	for k, v := range in.Vars {
		vars[k] = v
	}
	vars[structurePromptVar] = text
	call := in
	call.Vars = vars
	out, err := s.LLM.Run(ctx, call)
	if err != nil {
		return out, err
	}
	raw := out.Text()
	fields := parseStructure(raw)
	if why, bad := fields["_parse_error"]; bad {
		delete(fields, "_parse_error")
		if werr := in.Run.Warn(event.Event{Node: in.Path, Agent: s.ID, Message: fmt.Sprint(why),
			Data: map[string]any{"code": "not_json"}}); werr != nil {
			return agents.Output{Prompt: out.Prompt, Usage: out.Usage}, werr
		}
	}
	resp := make(map[string]any, len(fields))
	for k, v := range fields {
		resp[k] = v
	}
	fields["prompt"] = text
	fields["formatted_prompt"] = text
	fields["raw_llm_output"] = raw
	if tc, ok := out.Fields["tool_calls"]; ok {
		fields["tool_calls"] = tc
	}
	return agents.Output{Response: resp, Fields: fields, Prompt: out.Prompt, Usage: out.Usage}, nil
}

// asksForShape is OrKa's test of whether a prompt already asks for the JSON.
func asksForShape(p string) bool {
	return strings.Contains(p, `"valid"`) || strings.Contains(p, `'valid'`) ||
		strings.Contains(p, "memory_object") || strings.Contains(p, "Return your response in the following JSON format")
}

const jsonFormat = `Return your response in the following JSON format:
{
    "valid": true/false,
    "reason": "explanation of validation decision",
    "memory_object": {
        // structured memory object if valid, null if invalid
    }
}`

func structureInstructions(store string) string {
	if store != "" {
		return "Structure the memory object according to this template:\n" + store +
			"\n\nEnsure all required fields are present and properly formatted."
	}
	return `Structure the memory object with these fields:
- fact: The validated fact or information
- category: The category or type of information (e.g., 'fact', 'opinion', 'data')
- confidence: A number between 0 and 1 indicating confidence in the fact
- source: The source of the information (e.g., 'context', 'answer', 'inferred')`
}

// defaultStructurePrompt is OrKa's built-in prompt, for a definition without
// one; store_structure is not known to it, so the default fields are asked for.
var defaultStructurePrompt = `{%- set c = safe_get_response('context-collector', 'NONE') -%}
{%- set a = safe_get_response('answer-builder', 'NONE') -%}
{%- set context = 'No context available' if c in ['NONE', ''] else c -%}
{%- set answer = 'No answer provided' if a in ['NONE', ''] else a -%}
Validate the following situation and structure it into a memory format.

Question: {{ get_input() }}

Context: {{ context }}

Answer to validate: {{ answer }}
{% if answer == 'No answer provided' and context == 'No context available' %}
This appears to be a case where no information was found for the question. Please validate this as a legitimate "no information available" response and structure it appropriately.

IMPORTANT: You MUST respond with the exact JSON format specified below. Do not use any other format.

For cases where no information is available, you should:
1. Mark as valid=true (since "no information available" is a valid response)
2. Set confidence to 0.1 (low but not zero)
3. Create a memory object that captures the fact that no information was found
{%- else %}
Please validate if the answer is correct and contextually coherent. Then structure the information into a memory object.

IMPORTANT: You MUST respond with the exact JSON format specified below. Do not use any other format.
{%- endif %}
` + structureInstructions("") + "\n\n" + jsonFormat

var (
	jsonFence = regexp.MustCompile("(?is)```(?:json)?\\s*(.*?)\\s*```")
	lineNote  = regexp.MustCompile(`(?m)^\s*//.*$`)
)

// parseStructure reads the reply's object into OrKa's fields; on failure the
// fields say so (valid false) and _parse_error holds the reason.
func parseStructure(raw string) map[string]any {
	m, err := replyObject(raw)
	if err != nil {
		reason := "Failed to parse JSON: " + err.Error()
		return map[string]any{"valid": false, "reason": reason, "memory_object": nil,
			"_parse_error": "the reply holds no JSON object, valid is false: " + fault.Truncate(raw, 80)}
	}
	out := make(map[string]any, len(m)+3)
	for k, v := range m {
		out[k] = v
	}
	switch v := out["valid"].(type) {
	case nil:
		out["valid"] = false
		out["reason"] = "Invalid JSON structure - missing 'valid' field"
	case bool:
	case string:
		s := strings.ToLower(strings.TrimSpace(v))
		out["valid"] = s == "true" || s == "yes" || s == "1"
	case float64:
		out["valid"] = v != 0
	default:
		out["valid"] = true
	}
	if _, ok := out["reason"]; !ok {
		out["reason"] = "No reason provided"
	}
	if _, ok := out["memory_object"]; !ok {
		out["memory_object"] = nil
	}
	return out
}

func replyObject(raw string) (map[string]any, error) {
	if len(raw) > 1<<20 {
		return nil, fmt.Errorf("the reply is longer than %d bytes", 1<<20)
	}
	text := think.ReplaceAllString(raw, "")
	var cands []string
	if m := jsonFence.FindStringSubmatch(text); m != nil {
		cands = append(cands, m[1])
	}
	if i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}'); i >= 0 && j > i {
		cands = append(cands, text[i:j+1])
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("no JSON object in the reply")
	}
	var last error
	for _, c := range cands {
		var m map[string]any
		d := json.NewDecoder(bytes.NewReader([]byte(c)))
		switch err := d.Decode(&m); {
		case err != nil:
			last = err
		case d.More():
			last = fmt.Errorf("text follows the JSON object")
		case m != nil:
			return m, nil
		}
		// YAML reads single quotes, unquoted keys and Python's True/None
		// spelled in YAML's way; // notes are dropped first.
		var y any
		if err := yaml.Unmarshal([]byte(lineNote.ReplaceAllString(c, "")), &y); err == nil {
			if ym, ok := y.(map[string]any); ok {
				return ym, nil
			}
		}
	}
	return nil, last
}
